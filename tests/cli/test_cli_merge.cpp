// imghist merge: the reports of runs over pieces of a dataset, in JSON and JSON Lines, summed
// back into what one run over every file reports; layouts kept apart; bad inputs refused.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cli_files.hpp"

namespace imghist::cli_test {
namespace {

using json = nlohmann::json;

class MergeTest : public CliTest {};

// A W x H RGB PPM whose samples are (seed * 7 + k) % 256, k = 0..3WH-1.
std::string ppm8(unsigned seed, unsigned w = 3, unsigned h = 2) {
    std::string bytes = "P6\n" + std::to_string(w) + " " + std::to_string(h) + "\n255\n";
    for (unsigned k = 0; k < 3 * w * h; ++k) bytes += char((seed * 7 + k) % 256);
    return bytes;
}

// Channel `ch` (0 R, 1 G, 2 B) counts of ppm8(seed, w, h).
std::vector<std::uint64_t> ppm8_counts(unsigned seed, int ch, unsigned w = 3, unsigned h = 2) {
    std::vector<std::uint64_t> counts(256, 0);
    for (unsigned k = ch; k < 3 * w * h; k += 3) ++counts[(seed * 7 + k) % 256];
    return counts;
}

// A 2 x 1 16-bit RGB PPM (big-endian samples).
std::string ppm16(std::uint16_t v) {
    std::string bytes = "P6\n2 1\n65535\n";
    for (int k = 0; k < 6; ++k) bytes += char(v >> 8), bytes += char(v & 0xFF);
    return bytes;
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Pieces of unequal sizes (2 files of 3 x 2, 3 of 5 x 4), so an average of the pieces' means
// would not be the mean of the whole.
struct Pieces {
    std::vector<std::string> first, second, all;
    std::vector<std::vector<std::uint64_t>> counts;  // R, G, B summed over every file
};

Pieces make_pieces(const std::string& prefix, const std::function<std::string(const std::string&)>& path) {
    Pieces p;
    p.counts.assign(3, std::vector<std::uint64_t>(256, 0));
    for (unsigned i = 0; i < 5; ++i) {
        const unsigned w = i < 2 ? 3 : 5, h = i < 2 ? 2 : 4;
        const std::string file = path(prefix + std::to_string(i) + ".ppm");
        write_bytes(file, ppm8(i + 1, w, h));
        (i < 2 ? p.first : p.second).push_back(file);
        p.all.push_back(file);
        for (int ch = 0; ch < 3; ++ch) {
            const auto c = ppm8_counts(i + 1, ch, w, h);
            for (int v = 0; v < 256; ++v) p.counts[ch][v] += c[v];
        }
    }
    return p;
}

void expect_sum_of(const json& sum, const Pieces& p, const std::string& what) {
    EXPECT_EQ(sum["files"], json(p.all)) << what;
    EXPECT_EQ(sum["pixels"], 2 * 6 + 3 * 20) << what;
    EXPECT_EQ(sum["formats"], json({"rgb8"})) << what;
    const char* names[] = {"R", "G", "B"};
    for (int ch = 0; ch < 3; ++ch) {
        const json& h = sum["histograms"][names[ch]];
        EXPECT_EQ(h["counts"], json(p.counts[ch])) << what << " " << names[ch];
        EXPECT_EQ(h["stats"]["count"], 72) << what;
        double mean = 0;
        for (int v = 0; v < 256; ++v) mean += double(v) * double(p.counts[ch][v]);
        EXPECT_NEAR(h["stats"]["mean"].get<double>(), mean / 72, 1e-9) << what << " " << names[ch];
    }
}

TEST_F(MergeTest, PiecesInJsonAndJsonLinesMergeToTheWholeRun) {
    const Pieces p = make_pieces("m", [](const std::string& n) { return path(n); });
    const auto runs = run_all({with({"--format", "json", "--sum"}, p.first), with({"--format", "jsonl"}, p.second),
                               with({"--format", "jsonl", "--sum-only"}, p.second), with({"--format", "json"}, p.first),
                               with({"--format", "json", "--sum-only"}, p.all)});
    for (const auto& r : runs) ASSERT_EQ(r.status, 0) << r.err;
    write_bytes(path("p1.json"), runs[0].out);        // results and sums: the sums are taken
    write_bytes(path("p2.jsonl"), runs[1].out);       // per-file lines only
    write_bytes(path("p2sum.jsonl"), runs[2].out);    // sum lines only
    write_bytes(path("p1results.json"), runs[3].out); // results only
    const json whole = runs[4].doc()["sums"][0];
    expect_sum_of(whole, p, "one run");

    const auto merged = run_all({{"merge", "--format", "json", path("p1.json"), path("p2.jsonl")},
                                 {"merge", "--format", "jsonl", path("p1results.json"), path("p2sum.jsonl")},
                                 {"merge", path("p1.json"), path("p2sum.jsonl")},
                                 {"merge", "-f", "csv", path("p1.json"), path("p2.jsonl")}});
    for (const auto& r : merged) ASSERT_EQ(r.status, 0) << r.err;
    const json doc = merged[0].doc();
    EXPECT_EQ(doc["schema"], 3);
    EXPECT_TRUE(doc["results"].empty());
    EXPECT_TRUE(doc["errors"].empty());
    ASSERT_EQ(doc["sums"].size(), 1u) << doc;
    expect_sum_of(doc["sums"][0], p, "json + jsonl");
    EXPECT_EQ(doc["sums"][0]["histograms"], whole["histograms"]);  // every statistic recomputed alike
    const std::vector<json> lines = json_lines(merged[1].out);
    ASSERT_EQ(lines.size(), 1u) << merged[1].out;
    expect_sum_of(lines[0]["sum"], p, "json results + jsonl sums");
    EXPECT_EQ(lines[0]["sum"]["histograms"], whole["histograms"]);
    EXPECT_TRUE(contains(merged[2].out, "sum of 5 files  72 pixels  rgb8")) << merged[2].out;
    EXPECT_TRUE(contains(merged[3].out, "(sum 1),rgb8,R,bin,")) << merged[3].out;

    // A merged document merges again; the same file in two inputs is counted twice, with a warning.
    write_bytes(path("merged.json"), merged[0].out);
    const CommandRun again = run({"merge", "--format", "json", path("merged.json"), path("p1.json")});
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_TRUE(contains(again.err, "warning: " + p.first[0] + " is in " + path("merged.json"))) << again.err;
    const json twice = again.doc()["sums"][0];
    EXPECT_EQ(twice["pixels"], 72 + 12);
    auto red = p.counts[0];
    for (unsigned i = 0; i < 2; ++i) {
        const auto c = ppm8_counts(i + 1, 0);
        for (int v = 0; v < 256; ++v) red[v] += c[v];
    }
    EXPECT_EQ(twice["histograms"]["R"]["counts"], json(red));
}

// Reports counted in EV bins keep their edges through merge, and merge --exposure gives the sum's
// auto-exposure: the same as one run over every file.
TEST_F(MergeTest, EdgeBinsMergeAndGiveTheExposureOfTheWhole) {
    write_bytes(path("e1.ppm"), ppm8(1, 40, 20));
    write_bytes(path("e2.ppm"), ppm8(5, 33, 17));
    const auto runs = run_all({
        {"--format", "json", "--sum-only", "--mode", "luma", "--ev=0:8:4", path("e1.ppm")},
        {"--format", "jsonl", "--mode", "luma", "--ev=0:8:4", path("e2.ppm")},
        {"--format", "json", "--sum-only", "--mode", "luma", "--ev=0:8:4", "--exposure", "--key", "64",
         path("e1.ppm"), path("e2.ppm")},
    });
    for (const auto& r : runs) ASSERT_EQ(r.status, 0) << r.err;
    write_bytes(path("e1.json"), runs[0].out);
    write_bytes(path("e2.jsonl"), runs[1].out);
    const auto merged = run_all({{"merge", "--format", "json", "--exposure", "--key", "64", path("e1.json"),
                                  path("e2.jsonl")},
                                 {"merge", "--exposure", "--exposure-percentiles", "90:10", path("e1.json")}});
    ASSERT_EQ(merged[0].status, 0) << merged[0].err;
    const json sum = merged[0].doc()["sums"][0];
    const json whole = runs[2].doc()["sums"][0];
    EXPECT_EQ(sum["histograms"]["Y"]["edges"], whole["histograms"]["Y"]["edges"]);
    EXPECT_EQ(sum["histograms"]["Y"]["counts"], whole["histograms"]["Y"]["counts"]);
    ASSERT_TRUE(whole["exposure"].is_object()) << whole.dump();
    EXPECT_EQ(sum["exposure"], whole["exposure"]);
    EXPECT_EQ(merged[1].status, 2);  // bad percentiles: a usage error
    EXPECT_NE(merged[1].err.find("--exposure-percentiles"), std::string::npos) << merged[1].err;
}

TEST_F(MergeTest, StoredStatisticsAreNotRead) {
    write_bytes(path("st.ppm"), ppm8(40));
    const CommandRun r = run({"--format", "json", "--sum", path("st.ppm")});
    ASSERT_EQ(r.status, 0) << r.err;
    json doc = r.doc();
    for (auto& [name, h] : doc["sums"][0]["histograms"].items()) {
        h["stats"]["mean"] = 999.5;
        h["stats"]["median"] = 3;
    }
    write_bytes(path("tampered.json"), doc.dump());
    const CommandRun m = run({"merge", "--format", "json", path("tampered.json")});
    ASSERT_EQ(m.status, 0) << m.err;
    EXPECT_EQ(m.doc()["sums"][0]["histograms"], r.doc()["sums"][0]["histograms"]);
}

TEST_F(MergeTest, LayoutsGetSumsOfTheirOwn) {
    write_bytes(path("l8a.ppm"), ppm8(50));
    write_bytes(path("l8b.ppm"), ppm8(51));
    write_bytes(path("l16.ppm"), ppm16(0x1234));
    const auto runs = run_all({{"--format", "json", "--sum", path("l8a.ppm"), path("l16.ppm")},
                               {"--format", "jsonl", "--sum", path("l8b.ppm")},
                               {"--format", "jsonl", "--bins", "16", path("l8b.ppm")}});
    for (const auto& r : runs) ASSERT_EQ(r.status, 0) << r.err;
    write_bytes(path("la.json"), runs[0].out);
    write_bytes(path("lb.jsonl"), runs[1].out);
    write_bytes(path("lc.jsonl"), runs[2].out);
    const auto merged = run_all({{"merge", "--format", "json", path("la.json"), path("lb.jsonl"), path("lc.jsonl")},
                                 {"merge", path("la.json"), path("lb.jsonl"), path("lc.jsonl")}});
    ASSERT_EQ(merged[0].status, 0) << merged[0].err;
    const json sums = merged[0].doc()["sums"];
    ASSERT_EQ(sums.size(), 3u) << sums;
    EXPECT_EQ(sums[0]["files"], json({path("l8a.ppm"), path("l8b.ppm")}));
    EXPECT_EQ(sums[0]["formats"], json({"rgb8"}));
    auto red = ppm8_counts(50, 0);
    const auto red2 = ppm8_counts(51, 0);
    for (int v = 0; v < 256; ++v) red[v] += red2[v];
    EXPECT_EQ(sums[0]["histograms"]["R"]["counts"], json(red));
    EXPECT_EQ(sums[1]["files"], json({path("l16.ppm")}));
    EXPECT_EQ(sums[1]["formats"], json({"rgb16"}));
    EXPECT_EQ(sums[1]["histograms"]["R"]["counts"][0x12], 2);
    EXPECT_EQ(sums[2]["files"], json({path("l8b.ppm")}));
    EXPECT_EQ(sums[2]["histograms"]["R"]["bins"], 16);
    EXPECT_EQ(sums[2]["histograms"]["R"]["stats"]["count"], 6);
    ASSERT_EQ(merged[1].status, 0) << merged[1].err;
    EXPECT_TRUE(contains(merged[1].out, "sum of 2 files  12 pixels  rgb8")) << merged[1].out;
    EXPECT_TRUE(contains(merged[1].out, "sum of 1 file  2 pixels  rgb16")) << merged[1].out;
    EXPECT_TRUE(contains(merged[1].out, "16 bins over [0, 256)")) << merged[1].out;
}

TEST_F(MergeTest, ErrorsOfTheInputsAreReportedAgain) {
    write_bytes(path("e1.ppm"), ppm8(60));
    write_bytes(path("ebad.ppm"), "P6\n3 2\n255\nshort");
    const CommandRun r = run({"--format", "jsonl", "--sum", path("e1.ppm"), path("ebad.ppm")});
    ASSERT_EQ(r.status, 1) << r.err;
    write_bytes(path("e.jsonl"), r.out);
    const CommandRun m = run({"merge", "--format", "json", path("e.jsonl")});
    EXPECT_EQ(m.status, 1) << m.err;
    const json doc = m.doc();
    ASSERT_EQ(doc["errors"].size(), 1u) << doc;
    EXPECT_EQ(doc["errors"][0]["file"], path("ebad.ppm"));
    EXPECT_TRUE(contains(doc["errors"][0]["error"].get<std::string>(), "(reported in " + path("e.jsonl") + ")"));
    EXPECT_EQ(doc["sums"][0]["files"], json({path("e1.ppm")}));
}

// Every kind of report imghist writes passes merge's checks of how an entry's fields agree:
// regions and tiles, masks, luma only, clamped and edge bins, 16-bit, gray, in JSON and JSON Lines.
TEST_F(MergeTest, EveryKindOfReportImghistWritesIsMerged) {
    write_bytes(path("k.ppm"), ppm8(90));
    std::string ppm16_3x2 = "P6\n3 2\n65535\n";  // a mask takes images of its own size
    for (int k = 0; k < 18; ++k) ppm16_3x2 += char(k * 13), ppm16_3x2 += char(k * 7);
    write_bytes(path("k16.ppm"), ppm16_3x2);
    write_bytes(path("k.pgm"), std::string("P5\n3 2\n255\n\x01\x00\x07\xff\x80\x09", 17));
    write_bytes(path("kmask.pgm"), std::string("P5\n3 2\n255\n\x00\x01\x00\x02\x00\x03", 17));
    const std::vector<std::vector<std::string>> options = {
        {"--roi", "1,0,2,2", "--tiles", "2,1"}, {"--mask", path("kmask.pgm")}, {"--mode", "luma"},
        {"--mode", "rgb", "--clamp", "--range", "10:200", "--bins", "7"}, {"--ev=0:8:2"}, {},
    };
    std::vector<std::vector<std::string>> runs;
    for (const auto& o : options)
        for (const char* format : {"json", "jsonl"})
            runs.push_back(with(with({"--sum", "--format", format}, o), {path("k.ppm"), path("k16.ppm"), path("k.pgm")}));
    const auto counted = run_all(runs);
    std::vector<std::vector<std::string>> merges;
    for (std::size_t i = 0; i < counted.size(); ++i) {
        ASSERT_EQ(counted[i].status, 0) << counted[i].err;
        write_bytes(path("kind" + std::to_string(i)), counted[i].out);
        merges.push_back({"merge", "--format", "json", path("kind" + std::to_string(i))});
    }
    const auto merged = run_all(merges);
    for (std::size_t i = 0; i < merged.size(); ++i) {
        ASSERT_EQ(merged[i].status, 0) << runs[i][3] << ": " << merged[i].err;
        json sums = json::array();
        if (i % 2 == 0) sums = counted[i].doc()["sums"];
        else
            for (const json& line : json_lines(counted[i].out))
                if (line.contains("sum")) sums.push_back(line["sum"]);
        const json again = merged[i].doc()["sums"];
        ASSERT_EQ(again.size(), sums.size()) << runs[i][3];
        for (std::size_t k = 0; k < sums.size(); ++k) EXPECT_EQ(again[k]["histograms"], sums[k]["histograms"]) << runs[i][3];
    }
}

// Reports imghist never writes are refused, naming the input, the entry and what disagrees,
// and no message repeats a huge value whole. (Found by the hardening review of 2026-12: channels
// of one sum in different bins, gray8 with R, G, B, Y channels, "pixels" 1 beside thousands of
// counts and a key given twice were summed; a 1 GB number was echoed in a 1 GB error line.)
TEST_F(MergeTest, ReportsImghistNeverWritesAreRefused) {
    write_bytes(path("c.ppm"), ppm8(80));
    write_bytes(path("c.pgm"), "P5\n3 2\n255\n\x01\x02\x03\x04\x05\x06");
    const auto runs = run_all({{"--format", "json", "--sum", path("c.ppm")}, {"--format", "jsonl", path("c.pgm")}});
    ASSERT_EQ(runs[0].status, 0) << runs[0].err;
    ASSERT_EQ(runs[1].status, 0) << runs[1].err;
    const json good = runs[0].doc();
    std::vector<std::pair<std::string, std::string>> cases;  // file, message
    const auto write_case = [&](const std::string& name, const std::string& text, const std::string& message) {
        write_bytes(path(name), text);
        cases.emplace_back(name, message);
    };
    json doc = good;
    json& green = doc["sums"][0]["histograms"]["G"];
    std::vector<std::uint64_t> coarse(16, 0);
    const auto green_counts = ppm8_counts(80, 1);
    for (int v = 0; v < 256; ++v) coarse[v / 16] += green_counts[v];
    green["bins"] = 16;
    green["counts"] = coarse;
    write_case("bins.json", doc.dump(), "bins.json: sums[0]: channel G is counted in other bins than channel R");
    json gray = json_lines(runs[1].out)[0];
    const json y = gray["histograms"].begin().value();
    gray["histograms"] = json::object({{"R", y}, {"G", y}, {"B", y}, {"Y", y}});
    write_case("gray.jsonl", gray.dump() + "\n", "gray.jsonl: line 1: channels R,G,B,Y are not what imghist counts in gray8");
    doc = good;
    doc["sums"][0]["pixels"] = 1;
    write_case("pixels.json", doc.dump(),
               "pixels.json: sums[0]: channel R counts 6 samples (bins, below, above, nan) in at most 1 pixels");
    doc = good;
    doc["results"][0]["height"] = 1;
    doc.erase("sums");
    write_case("height.json", doc.dump(), "height.json: results[0]: channel R counts 6 samples (bins, below, above, nan) in 3 pixels");
    std::string twice = runs[0].out;
    twice.replace(twice.find("\"pixels\":6"), 10, "\"pixels\":1,\"pixels\":6");
    write_case("twice.json", twice, "twice.json: line 1: the key \"pixels\" is given twice in one object");
    doc = good;
    doc["sums"][0]["formats"][0] = "rgb8" + std::string(10'000'000, 'x');
    write_case("long_format.json", doc.dump(), "long_format.json: sums[0].formats[0]: unknown pixel format \"rgb8xxx");
    std::string number = runs[0].out;  // as imghist writes it: {"schema": first
    number.insert(number.find("\"counts\":[") + 10, std::string(10'000'000, '1') + ".x");
    write_case("long_number.json", number, "long_number.json: malformed JSON document: [json.exception.parse_error.101]");
    // A number past a double's range is no syntax error to the JSON parser (out_of_range 406): it
    // escaped the parse as an unexpected exception (found by fuzz_merge).
    std::string huge = runs[0].out;
    huge.replace(huge.find("\"pixels\":6"), 10, "\"pixels\":4.278841e30860863");
    write_case("huge_number.json", huge, "huge_number.json: malformed JSON document: [json.exception.out_of_range.406]");
    std::vector<std::vector<std::string>> args;
    for (const auto& c : cases) args.push_back({"merge", path(c.first)});
    const auto merged = run_all(args);
    for (std::size_t i = 0; i < cases.size(); ++i) {
        EXPECT_EQ(merged[i].status, 1) << cases[i].first << ": " << merged[i].err;
        EXPECT_TRUE(contains(merged[i].err, "imghist merge: " + path(cases[i].second))) << merged[i].err;
        EXPECT_LT(merged[i].err.size(), 1000u) << cases[i].first;
        EXPECT_TRUE(merged[i].out.empty()) << cases[i].first;
    }
}

// A JSON document or a line of JSON Lines over 256 MiB is refused having read no more than that.
TEST_F(MergeTest, ALineOver256MiBIsRefusedInBoundedMemory) {
    const std::string file = path("endless.json");
    write_bytes(file, "{\"schema\":2,\"imghist\":\"");
    fs::resize_file(file, std::uintmax_t(300) << 20);  // sparse: zeros, no newline
    const CommandRun r = run({"merge", file});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_TRUE(contains(r.err, "imghist merge: " + file + ": line 1 is longer than 256 MiB")) << r.err;
    EXPECT_LT(r.max_rss_kib, 1024 * 1024);
}

TEST_F(MergeTest, BadInputsAreErrorsNamingTheFileAndField) {
    write_bytes(path("g.ppm"), ppm8(70));
    const CommandRun good = run({"--format", "json", "--sum", path("g.ppm")});
    ASSERT_EQ(good.status, 0) << good.err;
    write_bytes(path("good.json"), good.out);
    const CommandRun backends = run({"--list-backends", "--format", "json"});
    write_bytes(path("backends.json"), backends.out);
    write_bytes(path("truncated.json"), good.out.substr(0, good.out.size() / 2));
    write_bytes(path("other.json"), "{\n  \"name\": \"not imghist\",\n  \"values\": [1, 2]\n}\n");
    write_bytes(path("other.jsonl"), "{\"name\": \"not imghist\"}\n");
    json doc = json::parse(good.out);
    doc["sums"][0]["histograms"]["G"].erase("nan");
    write_bytes(path("nonan.json"), doc.dump());
    doc = json::parse(good.out);
    doc["sums"][0]["histograms"]["B"]["counts"][7] = -1;
    write_bytes(path("negative.json"), doc.dump());
    doc = json::parse(good.out);
    doc["sums"][0]["histograms"]["R"]["counts"].erase(0);
    write_bytes(path("short.json"), doc.dump());
    doc = json::parse(good.out);
    doc["schema"] = 1;
    write_bytes(path("schema1.json"), doc.dump());
    doc = json::parse(good.out);
    doc["sums"][0]["histograms"]["R"]["counts"][0] = 18446744073709551615ull;
    write_bytes(path("huge.json"), doc.dump());

    const std::vector<std::pair<std::string, std::string>> cases = {
        {"missing.json", "missing.json: cannot open"},
        {"truncated.json", "truncated.json: malformed JSON document"},
        {"other.json", "other.json: not an imghist report"},
        {"other.jsonl", "other.jsonl: line 1: not an imghist entry"},
        {"backends.json", "backends.json: not an imghist report"},
        {"nonan.json", "nonan.json: sums[0].histograms.G: no \"nan\" field"},
        {"negative.json", "negative.json: sums[0].histograms.B.counts[7]: not an unsigned 64-bit integer"},
        {"short.json", "short.json: sums[0].histograms.R.counts: 255 entries for 256 bins"},
        {"schema1.json", "schema1.json: schema: schema 1 is not read"},
        {"huge.json", "huge.json: sums[0]: the counts of the inputs add up to more than 64 bits"},
    };
    std::vector<std::vector<std::string>> args;
    for (const auto& c : cases) args.push_back({"merge", "--format", "json", path("good.json"), path(c.first)});
    const auto runs = run_all(args);
    for (std::size_t i = 0; i < cases.size(); ++i) {
        EXPECT_EQ(runs[i].status, 1) << cases[i].first << ": " << runs[i].err;
        EXPECT_TRUE(runs[i].out.empty()) << cases[i].first << ": " << runs[i].out;
        EXPECT_TRUE(contains(runs[i].err, "imghist merge: " + path(cases[i].second))) << runs[i].err;
    }
    const auto usage = run_all({{"merge"}, {"merge", "--format", "xml", path("good.json")}, {"merge", "--help"}});
    EXPECT_EQ(usage[0].status, 2) << usage[0].err;
    EXPECT_EQ(usage[1].status, 2) << usage[1].err;
    EXPECT_EQ(usage[2].status, 0) << usage[2].err;
    EXPECT_TRUE(contains(usage[2].out, "layout")) << usage[2].out;
    EXPECT_TRUE(contains(usage[2].out, "several inputs")) << usage[2].out;
}

}  // namespace
}  // namespace imghist::cli_test
