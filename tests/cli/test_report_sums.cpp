// End-to-end tests of the imghist command's sums over files of different layouts and of its CSV,
// which pandas and numpy load with their defaults; every count is checked against the reference
// backend.
#include <gtest/gtest.h>

#include <OpenImageIO/imageio.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "imghist/imghist.hpp"
#include "cli_files.hpp"
#include "cli_support.hpp"
#include "report_support.hpp"
#include "test_images.hpp"

namespace fs = std::filesystem;
namespace OIIO = OIIO_NAMESPACE;
using json = nlohmann::json;
using imghist::PixelFormat;
using imghist::testing::Pattern;

namespace {

using Ran = imghist::cli_test::CommandRun;
using imghist::cli_test::expect_histograms;
using imghist::cli_test::lines_of;
using imghist::cli_test::reference;
using imghist::cli_test::ReportTest;
using imghist::cli_test::slurp;
using imghist::cli_test::write_png;

// --- item 8: sums over files of different layouts -----------------------------------------------

struct SumFiles {
    imghist::testing::TestImage a16, b8, c8, d_gray, e_rgba;
};

// What each sum must hold, in order: the files of one layout, their formats, counts and pixels.
struct SumWant {
    std::vector<std::string> files;
    std::vector<std::string> formats;
    imghist::Result result;
    std::uint64_t pixels;
};
std::vector<SumWant> expected_sums(const SumFiles& s, const std::vector<std::string>& files) {
    imghist::Result rgb8 = reference(s.b8.view);
    rgb8.merge(reference(s.c8.view));
    rgb8.merge(reference(s.e_rgba.view));  // alpha not counted: same channels and bins as rgb8
    return {
        {{files[0]}, {"rgb16"}, reference(s.a16.view), 66},
        {{files[1], files[2], files[4]}, {"rgb8", "rgba8"}, rgb8, 60 + 63 + 25},
        {{files[3]}, {"gray8"}, reference(s.d_gray.view), 64},
    };
}

// The table's three sums, the 8-bit RGB one naming its three files.
void expect_table_of_sums(const std::string& out) {
    std::size_t blocks = 0;
    for (const auto& line : lines_of(out)) {
        if (line.rfind("sum of ", 0) == 0) ++blocks;
        if (line.rfind("  files: ", 0) == 0 && line.find("s_b8.png") != std::string::npos) {
            EXPECT_NE(line.find("s_c8.png"), std::string::npos) << line;
            EXPECT_NE(line.find("s_e_rgba.png"), std::string::npos) << line;
        }
    }
    EXPECT_EQ(blocks, 3u) << out;
    EXPECT_NE(out.find("sum of 3 files"), std::string::npos) << out;
}

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
    EXPECT_EQ(doc["schema"], 3);
    EXPECT_FALSE(doc.contains("sum")) << "schema 2 replaces sum with sums";
    ASSERT_TRUE(doc.contains("sums"));
    const json& sums = doc["sums"];
    ASSERT_EQ(sums.size(), 3u) << sums.dump().substr(0, 500);

    const std::vector<SumWant> want = expected_sums(s, files);
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
    expect_table_of_sums(t.out);

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
assert {"bin", "below", "above", "nans"} <= set(df["kind"]), set(df["kind"])
# The samples' statistics: one row each, the number in both lo and hi.
stat_kinds = set(df["kind"]) - {"bin", "below", "above", "nans"}
assert stat_kinds <= {"mean", "stddev", "sample_stddev", "min", "max", "p1", "p50", "p99"}, stat_kinds
stat_rows = df[df.kind.isin(stat_kinds)]
assert (stat_rows["lo"] == stat_rows["hi"]).all()
assert not df[df.kind != "nans"][["lo", "hi"]].isna().any().any()
bins = df[df.kind == "bin"]
assert (bins["bin"] >= 0).all() and (bins["lo"] <= bins["hi"]).all()
assert (df[df.kind != "bin"]["bin"] == -1).all()
out = {}
# Grouped as a user would, by image and channel: each group must be one histogram.
for (image, channel), g in df.groupby(["image", "channel"], sort=False):
    assert g["format"].nunique() == 1, (image, channel, set(g["format"]))
    fmt = g["format"].iloc[0]
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

// A float RGB image as OpenEXR.
void write_float_exr(const std::string& file, const imghist::ImageView& v) {
    OIIO::ImageSpec spec(int(v.width), int(v.height), 3, OIIO::TypeDesc::FLOAT);
    auto out = OIIO::ImageOutput::create("exr");
    ASSERT_TRUE(out && out->open(file, spec));
    ASSERT_TRUE(out->write_image(OIIO::TypeDesc::FLOAT, v.data, OIIO::AutoStride, OIIO::stride_t(v.stride_bytes)));
    out->close();
}

// What the check script printed for `image` (its "image|format|channel" entries) equals `want`.
void expect_csv_rows(const json& got, const std::string& image, const imghist::Result& want) {
    for (const auto& c : want.channels) {
        const std::string key = image + "|" + std::string(imghist::format_info(want.format).name) + "|" +
                                std::string(imghist::channel_name(c.channel));
        ASSERT_TRUE(got.contains(key)) << key << "\n" << got.dump().substr(0, 300);
        EXPECT_EQ(got[key]["bins"].get<std::vector<std::uint64_t>>(), c.counts) << key;
        EXPECT_EQ(got[key]["below"].get<std::uint64_t>(), c.below) << key;
        EXPECT_EQ(got[key]["above"].get<std::uint64_t>(), c.above) << key;
        EXPECT_EQ(got[key]["nans"].get<std::uint64_t>(), c.nan) << key;
    }
}

TEST_F(ReportTest, CsvLoadsWithPandasAndNumpyDefaults) {
    const auto f = imghist::testing::make_image(PixelFormat::rgb_f32, 12, 7, Pattern::specials, 41);
    const auto b = imghist::testing::make_image(PixelFormat::rgb8, 10, 4, Pattern::random, 42);
    ASSERT_NO_FATAL_FAILURE(write_float_exr(path("csv_f.exr"), f.view));
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

        if (i == 2) {
            expect_csv_rows(got, path("csv_f.exr"), imghist::create_engine("reference")->compute(f.view, custom));
            continue;
        }
        expect_csv_rows(got, path("csv_f.exr"), reference(f.view));
        expect_csv_rows(got, path("csv_b.png"), reference(b.view));
        // Sums: image "(sum K)", K in the order of the sums (the float file's first).
        imghist::Result sum8 = reference(b.view);
        if (i == 0) {
            expect_csv_rows(got, path("csv, \"quoted\".png"), reference(b.view));
            sum8.merge(reference(b.view));
        }
        expect_csv_rows(got, "(sum 2)", sum8);
        expect_csv_rows(got, "(sum 1)", reference(f.view));
    }
}

}  // namespace
