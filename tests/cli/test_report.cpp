// End-to-end tests of what the imghist command reports and how: names that are not UTF-8 or
// hold control characters, write and directory errors, sums over files of different layouts,
// CSV that pandas and numpy load, plot file names, device ids, help text, install-deps.sh.
// The binary is run with fork/exec (so it can run under a dropped uid when the tests run as
// root), and every count is checked against the reference backend.
#include <gtest/gtest.h>

#include <OpenImageIO/imageio.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "imghist/imghist.hpp"
#include "cli_support.hpp"
#include "test_images.hpp"

namespace fs = std::filesystem;
namespace OIIO = OIIO_NAMESPACE;
using json = nlohmann::json;
using imghist::PixelFormat;
using imghist::testing::Pattern;

namespace {

using Ran = imghist::cli_test::CommandRun;
using imghist::cli_test::RunOptions;
using imghist::cli_test::slurp;

void write_png(const std::string& file, const imghist::ImageView& v) {
    const auto& fi = v.info();
    OIIO::ImageSpec spec(int(v.width), int(v.height), fi.channels,
                         fi.sample == imghist::SampleType::u16 ? OIIO::TypeDesc::UINT16 : OIIO::TypeDesc::UINT8);
    if (fi.channels == 4) spec.alpha_channel = 3;
    spec.attribute("oiio:UnassociatedAlpha", 1);
    auto out = OIIO::ImageOutput::create("png");
    ASSERT_TRUE(out && out->open(file, spec)) << OIIO::geterror();
    ASSERT_TRUE(out->write_image(spec.format, v.data, OIIO::AutoStride, OIIO::stride_t(v.stride_bytes)));
    ASSERT_TRUE(out->close());
}

imghist::Result reference(const imghist::ImageView& v) { return imghist::create_engine("reference")->compute(v, {}); }

// The JSON histograms equal the library's, channel by channel.
void expect_histograms(const json& h, const imghist::Result& want, const std::string& what) {
    ASSERT_TRUE(h.is_object()) << what;
    EXPECT_EQ(h.size(), want.channels.size()) << what;
    for (const auto& c : want.channels) {
        const std::string name(imghist::channel_name(c.channel));
        ASSERT_TRUE(h.contains(name)) << what << ": no " << name;
        EXPECT_EQ(h[name]["counts"].get<std::vector<std::uint64_t>>(), c.counts) << what << " " << name;
        EXPECT_EQ(h[name]["nan"].get<std::uint64_t>(), c.nan) << what << " " << name;
        EXPECT_EQ(h[name]["below"].get<std::uint64_t>(), c.below) << what << " " << name;
        EXPECT_EQ(h[name]["above"].get<std::uint64_t>(), c.above) << what << " " << name;
    }
}

std::string to_hex(const std::string& bytes) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (unsigned char c : bytes) {
        s += digits[c >> 4];
        s += digits[c & 15];
    }
    return s;
}

// Undoes the escaping docs/cli.md specifies for names in the table, on stderr and in messages:
// \\, \n, \r, \t, \xHH (one byte), \uHHHH (a code point, written as UTF-8).
std::string unescape(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\') {
            out += s[i];
            continue;
        }
        const char k = s.at(++i);
        if (k == '\\') out += '\\';
        else if (k == 'n') out += '\n';
        else if (k == 'r') out += '\r';
        else if (k == 't') out += '\t';
        else if (k == 'x') {
            out += char(std::stoi(s.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else if (k == 'u') {
            const unsigned cp = unsigned(std::stoul(s.substr(i + 1, 4), nullptr, 16));
            i += 4;
            if (cp < 0x800) {
                out += char(0xC0 | (cp >> 6));
                out += char(0x80 | (cp & 0x3F));
            } else {
                out += char(0xE0 | (cp >> 12));
                out += char(0x80 | ((cp >> 6) & 0x3F));
                out += char(0x80 | (cp & 0x3F));
            }
        } else {
            ADD_FAILURE() << "unknown escape \\" << k << " in " << s;
        }
    }
    return out;
}

// Strict UTF-8 check (no overlongs, surrogates or code points above U+10FFFF).
bool valid_utf8(const std::string& s) {
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = s[i];
        int n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
        if (n < 0 || i + n >= s.size() + (n == 0)) return false;
        unsigned cp = n == 0 ? c : c & (0x3F >> n);
        for (int k = 1; k <= n; ++k) {
            const unsigned char d = s[i + k];
            if ((d >> 6) != 2) return false;
            cp = (cp << 6) | (d & 0x3F);
        }
        if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += n + 1;
    }
    return true;
}

// Nothing a terminal would act on: no C0 control but the line ends, no DEL, no C1 control.
void expect_terminal_safe(const std::string& text, const std::string& what) {
    EXPECT_TRUE(valid_utf8(text)) << what << ": not UTF-8";
    for (std::size_t i = 0; i < text.size(); ++i) {
        const unsigned char c = text[i];
        EXPECT_FALSE((c < 0x20 && c != '\n') || c == 0x7F) << what << ": raw byte " << int(c) << " at " << i;
        if (c == 0xC2 && i + 1 < text.size())
            EXPECT_FALSE((unsigned char)text[i + 1] < 0xA0) << what << ": raw C1 control at " << i;
    }
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
}

class ReportTest : public imghist::cli_test::ScratchDirTest {};

const std::string kRepro = IMGHIST_REPRO_DIR;

// --- item 2: names that are not UTF-8 -----------------------------------------------------------

TEST_F(ReportTest, NonUtf8NamesKeepEveryResultInJson) {
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 13, 7, Pattern::random, 21);
    const std::string latin1 = path("caf\xe9.png");
    write_png(latin1, img.view);
    write_png(path("plain.png"), img.view);
    const std::string four = kRepro + "/json_kill_4ch_latin1_channel.exr";
    const std::string five = kRepro + "/json_kill_5ch_latin1_channel.exr";
    const Ran r = run({"--format", "json", "--sum", latin1, path("plain.png"), four, five});
    const json doc = r.doc();
    ASSERT_TRUE(doc.contains("results")) << r.err;
    // Both EXRs are read by their R,G,B(,A) channel names; the Latin-1 channel is left out
    // with a note (the reader's channel policy).
    EXPECT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(doc["results"].size(), 4u) << doc.dump().substr(0, 400);

    // The Latin-1 name: a valid UTF-8 display form and the exact bytes in hex.
    const json& cafe = doc["results"][0];
    EXPECT_EQ(cafe["file"], path("caf") + "\xEF\xBF\xBD.png");
    EXPECT_EQ(cafe["file_hex"], to_hex(latin1));
    expect_histograms(cafe["histograms"], reference(img.view), "caf\\xe9.png");
    const json& plain = doc["results"][1];
    EXPECT_EQ(plain["file"], path("plain.png"));
    EXPECT_FALSE(plain.contains("file_hex")) << "only names that are not UTF-8 carry the bytes";

    // The channel name read from the file reaches the note escaped, and unescapes to its bytes.
    auto in = OIIO::ImageInput::open(four);
    ASSERT_TRUE(in);
    const std::string raw_channel = in->spec().channelnames.at(3);
    ASSERT_FALSE(valid_utf8(raw_channel)) << "the reproducer's channel name is Latin-1";
    for (const auto& [index, file] : {std::pair{2, four}, std::pair{3, five}}) {
        const json& exr = doc["results"][index];
        EXPECT_EQ(exr["file"], file);
        bool seen = false;
        for (const auto& n : exr["notes"]) seen = seen || unescape(n.get<std::string>()).find(raw_channel) != std::string::npos;
        EXPECT_TRUE(seen) << exr["notes"].dump();
    }
    EXPECT_TRUE(doc["errors"].empty()) << doc["errors"].dump();
    // The sum names its files the way results do.
    ASSERT_TRUE(doc.contains("sums"));
    std::set<std::string> summed;
    for (const auto& g : doc["sums"])
        for (const auto& f : g["files"]) summed.insert(f.get<std::string>());
    EXPECT_TRUE(summed.count(cafe["file"].get<std::string>())) << doc["sums"].dump().substr(0, 300);
}

TEST_F(ReportTest, ControlCharactersInNamesAreEscapedOnTheTerminal) {
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 9, 5, Pattern::natural, 22);
    // Newline, ESC sequence, a backslash, a C1 control (U+009B, CSI) and a Latin-1 byte.
    const std::string good = path("two\nlines \x1b[31mred\\ \xC2\x9B caf\xe9.png");
    const std::string bad = path("bad\nname\x1b]0;title\x07.png");
    write_png(good, img.view);
    { std::ofstream(bad) << "not an image"; }
    const Ran table = run({good, bad});
    EXPECT_EQ(table.status, 1);
    expect_terminal_safe(table.out, "table");
    expect_terminal_safe(table.err, "stderr");
    const auto err_lines = lines_of(table.err);
    ASSERT_EQ(err_lines.size(), 1u) << table.err;  // one error, one line
    const std::string prefix = "imghist: ";
    ASSERT_EQ(err_lines[0].rfind(prefix, 0), 0u) << err_lines[0];
    const std::string shown = err_lines[0].substr(prefix.size(), err_lines[0].find(": ", prefix.size()) - prefix.size());
    EXPECT_EQ(unescape(shown), bad) << shown;
    // The table's heading names the good file, escaped and reversible.
    const auto out_lines = lines_of(table.out);
    ASSERT_FALSE(out_lines.empty());
    const std::string heading = out_lines[0].substr(0, out_lines[0].find("  "));
    EXPECT_EQ(unescape(heading), good) << heading;

    // JSON carries valid UTF-8 names exactly (JSON escapes control characters itself).
    const Ran j = run({"--format", "json", good, bad});
    const json doc = j.doc();
    ASSERT_EQ(doc["results"].size(), 1u);
    EXPECT_NE(doc["results"][0]["file"].get<std::string>(), good) << "the Latin-1 byte is not UTF-8";
    EXPECT_EQ(doc["results"][0]["file_hex"], to_hex(good));
    EXPECT_EQ(doc["errors"][0]["file"], bad);
    EXPECT_FALSE(doc["errors"][0].contains("file_hex"));
}

TEST_F(ReportTest, PlotTitleOfANonUtf8Name) {
    if (!IMGHIST_CLI_HAS_PLOT) GTEST_FAIL() << "built without cairo: the plot tests cannot run";
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 9, 5, Pattern::natural, 23);
    const std::string file = path("na\xefve\x1b[1m.png");
    write_png(file, img.view);
    const Ran r = run({"--plot", path("latin1_title.svg"), file});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(slurp(path("latin1_title.svg")).find("<svg"), std::string::npos);
}

// --- item 5: write errors and unreadable directories --------------------------------------------

TEST_F(ReportTest, WriteErrorsOnStdoutFail) {
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 9, 5, Pattern::natural, 24);
    write_png(path("full.png"), img.view);
    const std::vector<std::vector<std::string>> cases = {
        {path("full.png")},
        {"--format", "json", path("full.png")},
        {"--format", "csv", path("full.png")},
        {"--list-backends"},
        {"--help"},
    };
    for (const auto& args : cases) {
        const Ran r = run(args, {.stdout_path = "/dev/full"});
        EXPECT_EQ(r.status, 1) << args.front() << "\n" << r.err;
        EXPECT_NE(r.err.find("stdout"), std::string::npos) << args.front() << "\n" << r.err;
        EXPECT_NE(r.err.find(std::strerror(ENOSPC)), std::string::npos) << args.front() << "\n" << r.err;
    }
}

TEST_F(ReportTest, UnreadableDirectoriesAreErrors) {
    // Root reads every directory, so the command runs under an unprivileged uid (setpriv).
    const fs::path tree = dir_ / "walk";
    fs::create_directories(tree / "locked");
    fs::create_directories(tree / "open");
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 9, 5, Pattern::natural, 25);
    write_png((tree / "open" / "a.png").string(), img.view);
    write_png((tree / "locked" / "b.png").string(), img.view);
    for (const fs::path& d : {tree, tree / "open"}) fs::permissions(d, fs::perms(0755));
    fs::permissions(tree / "open" / "a.png", fs::perms(0644));
    fs::permissions(tree / "locked", fs::perms::none);

    const Ran walk = run({"--format", "json", tree.string()}, {.as_unprivileged = true});
    ASSERT_NE(walk.status, 127) << walk.err;  // setpriv (util-linux) must be there when run as root
    EXPECT_EQ(walk.status, 1) << walk.err;
    const json doc = walk.doc();
    ASSERT_EQ(doc["results"].size(), 1u) << walk.out;
    EXPECT_EQ(doc["results"][0]["file"], (tree / "open" / "a.png").string());
    expect_histograms(doc["results"][0]["histograms"], reference(img.view), "a.png");
    ASSERT_EQ(doc["errors"].size(), 1u) << doc["errors"].dump();
    EXPECT_EQ(doc["errors"][0]["file"], (tree / "locked").string());
    EXPECT_NE(doc["errors"][0]["error"].get<std::string>().find(std::strerror(EACCES)), std::string::npos)
        << doc["errors"][0].dump();

    const Ran direct = run({(tree / "locked").string()}, {.as_unprivileged = true});
    EXPECT_EQ(direct.status, 1);
    EXPECT_NE(direct.err.find((tree / "locked").string() + ": cannot read directory: " + std::strerror(EACCES)),
              std::string::npos)
        << direct.err;
    EXPECT_EQ(direct.err.find("holds no image"), std::string::npos) << direct.err;
    fs::permissions(tree / "locked", fs::perms::owner_all);
}

// --- item 8: sums over files of different layouts -----------------------------------------------

struct SumFiles {
    imghist::testing::TestImage a16, b8, c8, d_gray, e_rgba;
};

TEST_F(ReportTest, SumGroupsFilesByLayout) {
    SumFiles s{imghist::testing::make_image(PixelFormat::rgb16, 11, 6, Pattern::random, 31),
               imghist::testing::make_image(PixelFormat::rgb8, 12, 5, Pattern::random, 32),
               imghist::testing::make_image(PixelFormat::rgb8, 7, 9, Pattern::random, 33),
               imghist::testing::make_image(PixelFormat::gray8, 8, 8, Pattern::random, 34),
               imghist::testing::make_image(PixelFormat::rgba8, 5, 5, Pattern::random, 35)};
    // The 16-bit file sorts first: it once decided the layout and every 8-bit file was dropped.
    const std::vector<std::string> files = {path("s_a16.png"), path("s_b8.png"), path("s_c8.png"), path("s_d_gray.png"),
                                            path("s_e_rgba.png")};
    write_png(files[0], s.a16.view);
    write_png(files[1], s.b8.view);
    write_png(files[2], s.c8.view);
    write_png(files[3], s.d_gray.view);
    write_png(files[4], s.e_rgba.view);

    std::vector<std::string> args = {"--format", "json", "--sum"};
    args.insert(args.end(), files.begin(), files.end());
    const Ran r = run(args);
    ASSERT_EQ(r.status, 0) << r.err;
    const json doc = r.doc();
    EXPECT_EQ(doc["schema"], 2);
    EXPECT_FALSE(doc.contains("sum")) << "schema 2 replaces sum with sums";
    ASSERT_TRUE(doc.contains("sums"));
    const json& sums = doc["sums"];
    ASSERT_EQ(sums.size(), 3u) << sums.dump().substr(0, 500);

    imghist::Result rgb8 = reference(s.b8.view);
    rgb8.merge(reference(s.c8.view));
    rgb8.merge(reference(s.e_rgba.view));  // alpha not counted: same channels and bins as rgb8
    struct Want {
        std::vector<std::string> files;
        std::vector<std::string> formats;
        imghist::Result result;
        std::uint64_t pixels;
    };
    const std::vector<Want> want = {
        {{files[0]}, {"rgb16"}, reference(s.a16.view), 66},
        {{files[1], files[2], files[4]}, {"rgb8", "rgba8"}, rgb8, 60 + 63 + 25},
        {{files[3]}, {"gray8"}, reference(s.d_gray.view), 64},
    };
    std::set<std::string> seen;
    for (std::size_t g = 0; g < want.size(); ++g) {
        SCOPED_TRACE(g);
        EXPECT_EQ(sums[g]["files"].get<std::vector<std::string>>(), want[g].files);
        EXPECT_EQ(sums[g]["formats"].get<std::vector<std::string>>(), want[g].formats);
        EXPECT_EQ(sums[g]["pixels"].get<std::uint64_t>(), want[g].pixels);
        for (const auto& i : sums[g]["result_index"])
            EXPECT_TRUE(seen.insert(doc["results"][i.get<std::size_t>()]["file"].get<std::string>()).second);
        expect_histograms(sums[g]["histograms"], want[g].result, "sum group");
    }
    EXPECT_EQ(seen.size(), files.size()) << "every counted file is in exactly one sum";

    // The table labels each sum with its files.
    std::vector<std::string> targs(args.begin() + 2, args.end());
    const Ran t = run(targs);
    ASSERT_EQ(t.status, 0) << t.err;
    std::size_t blocks = 0;
    for (const auto& line : lines_of(t.out)) {
        if (line.rfind("sum of ", 0) == 0) ++blocks;
        if (line.rfind("  files: ", 0) == 0 && line.find("s_b8.png") != std::string::npos) {
            EXPECT_NE(line.find("s_c8.png"), std::string::npos) << line;
            EXPECT_NE(line.find("s_e_rgba.png"), std::string::npos) << line;
        }
    }
    EXPECT_EQ(blocks, 3u) << t.out;
    EXPECT_NE(t.out.find("sum of 3 files"), std::string::npos) << t.out;

    if (!IMGHIST_CLI_HAS_PLOT) GTEST_FAIL() << "built without cairo: the plot part cannot run";
    // The plot of several layouts: one chart per group, each named after its formats.
    std::vector<std::string> pargs = {"--plot", path("groups.png")};
    pargs.insert(pargs.end(), files.begin(), files.end());
    const Ran p = run(pargs);
    ASSERT_EQ(p.status, 0) << p.err;
    for (const char* f : {"groups-rgb16.png", "groups-rgb8+rgba8.png", "groups-gray8.png"})
        EXPECT_TRUE(fs::exists(dir_ / f)) << f << "\n" << p.err;
    EXPECT_FALSE(fs::exists(dir_ / "groups.png"));
    EXPECT_NE(p.err.find("3 charts"), std::string::npos) << p.err;
}

// --- item 16: CSV that pandas and numpy load with their defaults --------------------------------

// Reads the CSV with pandas and numpy, checks the column types, and prints what pandas read
// as JSON: {"image|format|channel": {"bins": [...], "below": n, "above": n, "nans": n}}.
const char* kCsvCheck = R"PY(
import json, sys
import numpy as np
import pandas as pd

path, numpy_too = sys.argv[1], sys.argv[2] == "1"
df = pd.read_csv(path)
assert list(df.columns) == ["image", "format", "channel", "kind", "bin", "lo", "hi", "count"], list(df.columns)
for c in ["image", "format", "channel", "kind", "bin", "count"]:
    assert not df[c].isna().any(), "missing values in " + c
assert df["bin"].dtype.kind == "i", df["bin"].dtype
assert df["count"].dtype.kind in "iu", df["count"].dtype
assert df["lo"].dtype.kind == "f" and df["hi"].dtype.kind == "f"
assert set(df["kind"]) == {"bin", "below", "above", "nans"}, set(df["kind"])
assert not df[df.kind != "nans"][["lo", "hi"]].isna().any().any()
bins = df[df.kind == "bin"]
assert (bins["bin"] >= 0).all() and (bins["lo"] <= bins["hi"]).all()
assert (df[df.kind != "bin"]["bin"] == -1).all()
out = {}
for (image, fmt, channel), g in df.groupby(["image", "format", "channel"], sort=False):
    k = g[g.kind == "bin"]
    assert list(k["bin"]) == list(range(len(k))), "bins in order"
    out[image + "|" + fmt + "|" + channel] = {
        "bins": [int(v) for v in k["count"]],
        **{kind: int(g[g.kind == kind]["count"].iloc[0]) for kind in ["below", "above", "nans"]},
    }
if numpy_too:
    a = np.genfromtxt(path, delimiter=",", names=True, dtype=None, encoding="utf-8")
    assert a.dtype["bin"].kind == "i" and a.dtype["count"].kind in "iu", a.dtype
    assert a.dtype["lo"].kind == "f" and a.dtype["hi"].kind == "f", a.dtype
    assert len(a) == len(df)
    b = np.loadtxt(path, delimiter=",", skiprows=1, usecols=(4, 5, 6, 7))
    assert b.shape == (len(df), 4)
    assert (b[:, 3] == df["count"].to_numpy()).all()
json.dump(out, sys.stdout)
)PY";

TEST_F(ReportTest, CsvLoadsWithPandasAndNumpyDefaults) {
    const auto f = imghist::testing::make_image(PixelFormat::rgb_f32, 12, 7, Pattern::specials, 41);
    const auto b = imghist::testing::make_image(PixelFormat::rgb8, 10, 4, Pattern::random, 42);
    {
        OIIO::ImageSpec spec(12, 7, 3, OIIO::TypeDesc::FLOAT);
        auto out = OIIO::ImageOutput::create("exr");
        ASSERT_TRUE(out && out->open(path("csv_f.exr"), spec));
        ASSERT_TRUE(out->write_image(OIIO::TypeDesc::FLOAT, f.view.data, OIIO::AutoStride, OIIO::stride_t(f.view.stride_bytes)));
        out->close();
    }
    write_png(path("csv_b.png"), b.view);
    write_png(path("csv, \"quoted\".png"), b.view);
    const std::string script = path("csv_check.py");
    { std::ofstream(script) << kCsvCheck; }

    struct Case {
        std::vector<std::string> args;
        bool numpy_too;  // numpy's readers know no quoting: only names without , and "
    };
    const std::vector<Case> cases = {
        {{"--format", "csv", "--sum", path("csv_f.exr"), path("csv_b.png"), path("csv, \"quoted\".png")}, false},
        {{"--format", "csv", "--sum", path("csv_f.exr"), path("csv_b.png")}, true},
        {{"--format", "csv", "--bins", "10", "--range", "0.25:0.75", path("csv_f.exr")}, true},
    };
    imghist::Request custom;
    custom.bins.bins = 10;
    custom.bins.range = {{0.25, 0.75}};
    for (std::size_t i = 0; i < cases.size(); ++i) {
        SCOPED_TRACE(i);
        const Ran r = run(cases[i].args);
        ASSERT_EQ(r.status, 0) << r.err;
        { std::ofstream(path("report.csv")) << r.out; }
        // The system Python with Debian's python3-pandas and python3-numpy: missing is a failure.
        const Ran py = run({script, path("report.csv"), cases[i].numpy_too ? "1" : "0"},
                                   {.program = "/usr/bin/python3"});
        ASSERT_EQ(py.status, 0) << py.err << "\n" << r.out.substr(0, 400);
        const json got = json::parse(py.out);

        const auto check = [&](const std::string& image, const imghist::Result& want) {
            for (const auto& c : want.channels) {
                const std::string key = image + "|" + std::string(imghist::format_info(want.format).name) + "|" +
                                        std::string(imghist::channel_name(c.channel));
                ASSERT_TRUE(got.contains(key)) << key << "\n" << got.dump().substr(0, 300);
                EXPECT_EQ(got[key]["bins"].get<std::vector<std::uint64_t>>(), c.counts) << key;
                EXPECT_EQ(got[key]["below"].get<std::uint64_t>(), c.below) << key;
                EXPECT_EQ(got[key]["above"].get<std::uint64_t>(), c.above) << key;
                EXPECT_EQ(got[key]["nans"].get<std::uint64_t>(), c.nan) << key;
            }
        };
        if (i == 2) {
            check(path("csv_f.exr"), imghist::create_engine("reference")->compute(f.view, custom));
            continue;
        }
        check(path("csv_f.exr"), reference(f.view));
        check(path("csv_b.png"), reference(b.view));
        // Sums: image "(sum)", told apart by their format column.
        imghist::Result sum8 = reference(b.view);
        if (i == 0) {
            check(path("csv, \"quoted\".png"), reference(b.view));
            sum8.merge(reference(b.view));
        }
        check("(sum)", sum8);
        check("(sum)", reference(f.view));
    }
}

// --- item 17: plot names, devices, --, help, install-deps.sh ------------------------------------

TEST_F(ReportTest, PlotsNeverOverwriteAndEveryChartIsAttempted) {
    if (!IMGHIST_CLI_HAS_PLOT) GTEST_FAIL() << "built without cairo: the plot tests cannot run";
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 9, 5, Pattern::natural, 51);
    fs::create_directories(dir_ / "a");
    fs::create_directories(dir_ / "b");
    fs::create_directories(dir_ / "charts" / "blocked.png");  // a directory where a chart would go
    for (const char* f : {"a/same.png", "b/same.png", "blocked.png", "last.png"}) write_png(path(f), img.view);
    const std::string pattern = path("charts/{}.png");
    const Ran r = run({"--plot", pattern, path("blocked.png"), path("a/same.png"), path("b/same.png"), path("last.png")});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_TRUE(fs::is_regular_file(dir_ / "charts" / "same.png"));
    EXPECT_TRUE(fs::is_regular_file(dir_ / "charts" / "last.png")) << "a failed chart stopped the rest\n" << r.err;
    const auto err = lines_of(r.err);
    ASSERT_EQ(err.size(), 2u) << r.err;
    EXPECT_NE(err[0].find("blocked.png"), std::string::npos) << err[0];
    EXPECT_NE(err[1].find(path("b/same.png")), std::string::npos) << err[1];
    EXPECT_NE(err[1].find(path("a/same.png")), std::string::npos) << err[1];
    EXPECT_NE(err[1].find("not overwritten"), std::string::npos) << err[1];
}

TEST_F(ReportTest, HostBackendsRefuseUnknownDevices) {
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 4, 4, Pattern::natural, 52);
    write_png(path("dev.png"), img.view);
    for (const char* backend : {"cpu", "reference"}) {
        SCOPED_TRACE(backend);
        const Ran bad = run({"--backend", backend, "--device", "99", path("dev.png")});
        EXPECT_EQ(bad.status, 2) << bad.err;
        EXPECT_NE(bad.err.find("99"), std::string::npos) << bad.err;
        EXPECT_NE(bad.err.find("0: host"), std::string::npos) << "the valid ids are listed\n" << bad.err;
        EXPECT_TRUE(bad.out.empty());
        EXPECT_EQ(run({"--backend", backend, "--device", "0", path("dev.png")}).status, 0);

        imghist::EngineOptions o;
        o.device = "99";
        EXPECT_THROW(imghist::create_engine(backend, o), imghist::BackendUnavailable);
        o.device = "0";
        EXPECT_NO_THROW(imghist::create_engine(backend, o));
        o.device = "host";
        EXPECT_NO_THROW(imghist::create_engine(backend, o));
    }
}

TEST_F(ReportTest, DashNamesAndHelpText) {
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 4, 4, Pattern::natural, 53);
    write_png(path("-dash.png"), img.view);
    const Ran dash = run({"--format", "json", "--", path("-dash.png")});
    ASSERT_EQ(dash.status, 0) << dash.err;
    EXPECT_EQ(dash.doc()["results"][0]["file"], path("-dash.png"));

    const Ran help = run({"--help"});
    ASSERT_EQ(help.status, 0);
    EXPECT_EQ(help.out.find("{false}"), std::string::npos) << help.out;
    EXPECT_NE(help.out.find("--no-progress "), std::string::npos) << help.out;
    EXPECT_NE(help.out.find("imghist -- -name.png"), std::string::npos) << "-- is explained\n" << help.out;
}

TEST_F(ReportTest, InstallDepsTakesCoreOrAll) {
    const std::string script = std::string(IMGHIST_SOURCE_DIR) + "/scripts/install-deps.sh";
    const auto list = [&](const std::string& set) {
        const Ran r = run({script, "--print", set}, {.program = "/bin/bash"});
        EXPECT_EQ(r.status, 0) << set << ": " << r.err;
        std::set<std::string> names;
        std::istringstream in(r.out);
        for (std::string w; in >> w;) names.insert(w);
        return names;
    };
    const auto core = list("core"), all = list("all");
    for (const char* p : {"cmake", "libopenimageio-dev", "libcli11-dev", "nlohmann-json3-dev", "libgtest-dev",
                          "python3-pandas", "python3-numpy"})
        EXPECT_TRUE(core.count(p)) << p;
    for (const char* p : {"pocl-opencl-icd", "mesa-vulkan-drivers", "libopencv-dev"}) {
        EXPECT_FALSE(core.count(p)) << p;
        EXPECT_TRUE(all.count(p)) << p;
    }
    for (const auto& p : core) EXPECT_TRUE(all.count(p)) << p << " is in core but not in all";
    const Ran bad = run({script, "everything"}, {.program = "/bin/bash"});
    EXPECT_EQ(bad.status, 2) << bad.out << bad.err;
    EXPECT_NE(bad.err.find("core|all"), std::string::npos) << bad.err;
}

}  // namespace
