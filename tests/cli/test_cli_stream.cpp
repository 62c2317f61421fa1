// The command's reports as they come: JSON Lines, --sum-only, paths from lists, memory that does
// not grow with the number of files, and the progress on stderr.
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_files.hpp"

namespace imghist::cli_test {
namespace {

using json = nlohmann::json;

class StreamTest : public CliTest {};

// A 3 x 2 RGB PPM whose samples are (seed * 7 + k) % 256, k = 0..17.
std::string tiny_ppm(unsigned seed) {
    std::string bytes = "P6\n3 2\n255\n";
    for (unsigned k = 0; k < 18; ++k) bytes += char((seed * 7 + k) % 256);
    return bytes;
}

// R counts of tiny_ppm(seed): samples 0, 3, 6, ... of each pixel.
std::vector<std::uint64_t> tiny_red_counts(unsigned seed) {
    std::vector<std::uint64_t> counts(256, 0);
    for (unsigned k = 0; k < 18; k += 3) ++counts[(seed * 7 + k) % 256];
    return counts;
}

TEST_F(StreamTest, ManyFilesStreamInBoundedMemory) {
    constexpr unsigned kFiles = 20000;
    const fs::path many = dir_ / "many";
    fs::create_directories(many);
    std::vector<std::uint64_t> red_sum(256, 0);
    for (unsigned i = 0; i < kFiles; ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "f%05u.ppm", i);
        write_bytes((many / name).string(), tiny_ppm(i));
        const auto red = tiny_red_counts(i);
        for (int v = 0; v < 256; ++v) red_sum[v] += red[v];
    }
    const CommandRun one = run({"--format", "jsonl", "--no-progress", (many / "f00000.ppm").string()});
    ASSERT_EQ(one.status, 0) << one.err;
    const CommandRun r = run({"--format", "jsonl", "--sum", "--no-progress", many.string()});
    ASSERT_EQ(r.status, 0) << r.err;
    // Holding every result (the old report) grew by more than 170 MB here; streaming by about 4.
    EXPECT_LT(r.max_rss_kib - one.max_rss_kib, 48 * 1024)
        << "peak " << r.max_rss_kib << " KiB for " << kFiles << " files, " << one.max_rss_kib << " KiB for one";
    const std::vector<json> lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), kFiles + 1);
    for (unsigned i = 0; i < kFiles; i += 997) {  // in input order, each its own pixels
        char name[32];
        std::snprintf(name, sizeof name, "f%05u.ppm", i);
        EXPECT_EQ(lines[i]["file"], (many / name).string());
        EXPECT_EQ(lines[i]["histograms"]["R"]["counts"], json(tiny_red_counts(i))) << name;
    }
    const json& sum = lines.back()["sum"];
    ASSERT_TRUE(sum.is_object()) << "the last line is not the sum";
    EXPECT_EQ(sum["pixels"], 6 * kFiles);
    EXPECT_EQ(sum["files"].size(), kFiles);
    EXPECT_EQ(sum["histograms"]["R"]["counts"], json(red_sum));
}

TEST_F(StreamTest, JsonLinesHoldTheDocumentsEntries) {
    write_bytes(path("s1.ppm"), tiny_ppm(1));
    write_bytes(path("s2.ppm"), tiny_ppm(2));
    write_bytes(path("sbad.ppm"), "P6\n3 2\n255\nshort");
    const std::vector<std::string> files = {path("s1.ppm"), path("sbad.ppm"), path("s2.ppm")};
    std::vector<std::string> doc_args = {"--format", "json", "--sum"}, lines_args = {"--format", "jsonl", "--sum"};
    doc_args.insert(doc_args.end(), files.begin(), files.end());
    lines_args.insert(lines_args.end(), files.begin(), files.end());
    const auto runs = run_all({doc_args, lines_args});
    EXPECT_EQ(runs[0].status, 1);
    EXPECT_EQ(runs[1].status, 1);  // a bad file fails the run in both, and is not in the sum
    const json doc = runs[0].doc();
    const std::vector<json> lines = json_lines(runs[1].out);
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[0], doc["results"][0]);
    EXPECT_EQ(lines[1], doc["errors"][0]);
    EXPECT_EQ(lines[2], doc["results"][1]);
    EXPECT_EQ(lines[3]["sum"], doc["sums"][0]);
    EXPECT_EQ(doc["sums"][0]["files"], json({path("s1.ppm"), path("s2.ppm")}));
    EXPECT_EQ(doc["sums"][0]["result_index"], json({0, 1}));
    auto red = tiny_red_counts(1);
    const auto red2 = tiny_red_counts(2);
    for (int v = 0; v < 256; ++v) red[v] += red2[v];
    EXPECT_EQ(doc["sums"][0]["histograms"]["R"]["counts"], json(red));
}

TEST_F(StreamTest, SumOnlyFromListsOnStdinAndInAFile) {
    write_bytes(path("l1.ppm"), tiny_ppm(11));
    write_bytes(path("l2.ppm"), tiny_ppm(12));
    write_bytes(path("list.txt"), path("l1.ppm") + "\n\n" + path("missing.ppm") + "\n" + path("l2.ppm") + "\n");
    write_bytes(path("one.txt"), path("l2.ppm") + "\n");
    RunOptions shell;
    shell.program = "/bin/sh";
    // The list on stdin, the other in a file; stdin read twice is a usage error.
    const CommandRun r = run({"-c", "exec \"$0\" --sum-only --format json - --files-from \"$1\" < \"$2\"", imghist_binary(),
                              path("one.txt"), path("list.txt")}, shell);
    EXPECT_EQ(r.status, 1) << r.err;
    const json doc = r.doc();
    EXPECT_TRUE(doc["results"].empty());
    ASSERT_EQ(doc["errors"].size(), 1u);
    EXPECT_EQ(doc["errors"][0]["file"], path("missing.ppm"));
    EXPECT_NE(doc["errors"][0]["error"].get<std::string>().find("(line 3 of stdin)"), std::string::npos) << doc["errors"][0];
    ASSERT_EQ(doc["sums"].size(), 1u);
    EXPECT_FALSE(doc["sums"][0].contains("result_index"));
    EXPECT_EQ(doc["sums"][0]["files"], json({path("l1.ppm"), path("l2.ppm"), path("l2.ppm")}));
    auto red = tiny_red_counts(11);
    const auto red2 = tiny_red_counts(12);
    for (int v = 0; v < 256; ++v) red[v] += 2 * red2[v];
    EXPECT_EQ(doc["sums"][0]["histograms"]["R"]["counts"], json(red));

    const auto runs = run_all({{"--files-from", path("nolist.txt")}, {"--files-from", path("one.txt"), "--sum-only"}});
    EXPECT_EQ(runs[0].status, 2);
    EXPECT_NE(runs[0].err.find("cannot open"), std::string::npos) << runs[0].err;
    EXPECT_EQ(runs[1].status, 0) << runs[1].err;
    EXPECT_NE(runs[1].out.find("sum of 1 file"), std::string::npos) << runs[1].out;
    const CommandRun twice = run({"-c", "exec \"$0\" - --files-from - < \"$1\"", imghist_binary(), path("one.txt")}, shell);
    EXPECT_EQ(twice.status, 2);
    EXPECT_NE(twice.err.find("only once"), std::string::npos) << twice.err;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// --progress with stderr in a file: plain lines (the first file's at once), each error on a line
// of its own, and the summary last, with the rates of the bytes read.
TEST_F(StreamTest, ProgressToALogIsPlainLinesAndASummary) {
    std::string pixels = "P6\n500 400\n255\n";  // 600,015 bytes
    pixels.resize(600'015, '\x7f');
    std::vector<std::string> args = {"--progress", "-j", "1"}, files;
    for (const char* name : {"g1.ppm", "g2.ppm", "gbad.ppm", "g3.ppm", "g4.ppm"}) {
        write_bytes(path(name), name == std::string("gbad.ppm") ? "P6\n3 2\n255\nshort" : pixels);  // 16 bytes
        files.push_back(path(name));
    }
    args.insert(args.end(), files.begin(), files.end());
    std::vector<std::string> quiet = files;
    quiet.insert(quiet.begin(), "-j1");
    const auto runs = run_all({args, quiet});
    const CommandRun& r = runs[0];
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(r.err.find_first_of("\r\033"), std::string::npos) << r.err;
    const std::vector<std::string> lines = lines_of(r.err);
    ASSERT_GE(lines.size(), 3u) << r.err;
    // One worker takes the files in order: the first line is g1's, before the bad file.
    const std::regex first(R"(\[1/5 20%\]  [0-9.]+ files/s  [0-9.]+ MB/s  0 errors  ETA (--:--|[0-9]+:[0-9]{2})  .*g1\.ppm)");
    EXPECT_TRUE(std::regex_match(lines[0], first)) << lines[0];
    EXPECT_LE(lines[0].size(), 79u) << lines[0];
    const std::regex line(R"(\[[1-5]/5 [0-9]+%\]  [0-9.]+ files/s  [0-9.]+ MB/s  [01] errors?  ETA \S+  .*)");
    const std::string error_start = "imghist: " + path("gbad.ppm") + ": ";
    std::size_t errors = 0;
    for (std::size_t i = 1; i + 1 < lines.size(); ++i) {
        if (lines[i].starts_with(error_start)) {
            ++errors;
            continue;
        }
        EXPECT_TRUE(std::regex_match(lines[i], line)) << "line " << i << ": " << lines[i];
        EXPECT_LE(lines[i].size(), 79u) << lines[i];  // 80 columns where stderr is no terminal, the last left free
    }
    EXPECT_EQ(errors, 1u) << r.err;
    std::smatch m;
    const std::regex summary(R"(imghist: 5 files in ([0-9.]+) s \(([0-9.]+) files/s, ([0-9.]+) MB/s\), 1 error)");
    ASSERT_TRUE(std::regex_match(lines.back(), m, summary)) << lines.back();
    // Every input's size counts, the bad file's too: 2.400076 MB over the time shown (to 0.1 s).
    const double seconds = std::stod(m[1]), files_per_s = std::stod(m[2]), mb_per_s = std::stod(m[3]);
    // Both rates come from one elapsed time: their ratio is the bytes per file, to their rounding.
    ASSERT_GT(files_per_s, 0) << lines.back();
    EXPECT_NEAR(mb_per_s / files_per_s, 2.400076 / 5, (0.05 / mb_per_s + 0.05 / files_per_s) * 0.481) << lines.back();
    if (seconds > 0.05) {  // shown to 0.1 s: the rates against it
        EXPECT_NEAR(files_per_s, 5 / seconds, 5 / (seconds - 0.05) - 5 / seconds + 0.05) << lines.back();
        EXPECT_NEAR(mb_per_s, 2.400076 / seconds, 2.4 / (seconds - 0.05) - 2.4 / seconds + 0.05) << lines.back();
    } else {  // "0.0 s": under 0.05 s
        EXPECT_GE(files_per_s, 5 / 0.05) << lines.back();
    }

    // Without --progress, and stderr no terminal: only the error.
    EXPECT_EQ(runs[1].status, 1);
    EXPECT_EQ(lines_of(runs[1].err).size(), 1u) << runs[1].err;
    EXPECT_TRUE(runs[1].err.starts_with(error_start)) << runs[1].err;
}

}  // namespace
}  // namespace imghist::cli_test
