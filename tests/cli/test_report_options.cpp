// End-to-end tests of the imghist command's plot file names, device ids of the host backends,
// names starting with a dash, help text, scripts/install-deps.sh, and --closed-top.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "imghist/imghist.hpp"
#include "cli_files.hpp"
#include "cli_support.hpp"
#include "report_support.hpp"
#include "test_images.hpp"

namespace fs = std::filesystem;
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

// numpy.histogram's rule, written here for integer samples: edges lo + k (hi - lo) / bins, each
// bin [e_k, e_k+1) but the last closed, values outside the range in no bin.
std::vector<std::uint64_t> numpy_counts(const std::vector<std::uint8_t>& values, int bins, double lo, double hi) {
    std::vector<std::uint64_t> counts(std::size_t(bins), 0);
    for (const std::uint8_t v : values) {
        if (v < lo || v > hi) continue;
        int k = bins - 1;
        while (k > 0 && double(v) < lo + k * (hi - lo) / bins) --k;
        ++counts[std::size_t(k)];
    }
    return counts;
}

TEST_F(ReportTest, ClosedTopCountsAsNumpyDoes) {
    const auto img = imghist::testing::make_image(PixelFormat::gray8, 64, 16, Pattern::specials, 53);  // 0 and 255 mixed in
    write_png(path("closed.png"), img.view);
    const Ran r = run({"--format", "json", "--bins", "10", "--range", "0:255", "--closed-top", path("closed.png")});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<std::uint8_t> values;
    for (std::uint32_t y = 0; y < img.view.height; ++y)
        for (std::uint32_t x = 0; x < img.view.width; ++x) values.push_back(std::uint8_t(img.view.row(y)[x]));
    ASSERT_NE(std::count(values.begin(), values.end(), 255), 0) << "the image must hold the range's top";
    const json gray = json::parse(r.out)["results"][0]["histograms"]["gray"];
    EXPECT_EQ(gray["counts"].get<std::vector<std::uint64_t>>(), numpy_counts(values, 10, 0, 255));
    EXPECT_EQ(gray["above"].get<std::uint64_t>(), 0u);

    const Ran without_range = run({"--closed-top", path("closed.png")});
    EXPECT_EQ(without_range.status, 2) << without_range.err;
    EXPECT_NE(without_range.err.find("--closed-top"), std::string::npos) << without_range.err;
}

}  // namespace
