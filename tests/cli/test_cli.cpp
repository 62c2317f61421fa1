// End-to-end tests of the imghist command line: its options and outputs (usage errors, help,
// backends, modes, directories, sums, CSV, the table and plots). Every test writes its input
// files, runs the built binary, parses its JSON, and checks the counts against the reference
// backend computing the same pixels. The input formats and bad files: test_cli_inputs.cpp.
#include <gtest/gtest.h>

#include <OpenImageIO/imageio.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "imghist/imghist.hpp"
#include "cli_files.hpp"
#include "cli_support.hpp"
#include "test_images.hpp"

namespace fs = std::filesystem;
namespace OIIO = OIIO_NAMESPACE;
using json = nlohmann::json;
using imghist::PixelFormat;

namespace {

using imghist::cli_test::CliTest;
using imghist::cli_test::expect_matches;
using imghist::cli_test::find_result;
using imghist::cli_test::reference;
using imghist::cli_test::slurp;
using imghist::cli_test::write_bytes;
using imghist::cli_test::write_oiio;
using Outcome = imghist::cli_test::CommandRun;

TEST_F(CliTest, UsageErrorsExitWithTwo) {
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 8, 8, imghist::testing::Pattern::natural, 1);
    write_oiio(path("u.png"), img.view);
    const std::string f = path("u.png");
    const std::vector<std::vector<std::string>> cases = {
        {},
        {"--no-such-option", f},
        {"--mode", "hsv", f},
        {"--bins", "0", f},
        {"--range", "5:1", f},
        {"--luma-weights", "1,2,3", f},
        {"--backend", "no-such-backend", f},
        {"--plot", "chart.jpg", f},
        {"--max-pixels", "lots", f},
        {"--decode", "nvjpeg", f},
        {"--decode", "gpu", "--backend", "cpu", f},
    };
    const auto results = run_all(cases);
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto& args = cases[i];
        const Outcome& r = results[i];
        std::string joined;
        for (const auto& a : args) joined += a + " ";
        EXPECT_EQ(r.status, 2) << joined << "\n" << r.err;
        EXPECT_FALSE(r.err.empty()) << joined;
        EXPECT_TRUE(r.out.empty()) << joined;
    }
}

// --decode gpu says what it needs: the cuda backend, and nvImageCodec where it runs (this test
// needs no GPU: on the GPU machine the same pipeline is tested in tests/cuda/test_cuda_jpeg.cpp).
TEST_F(CliTest, DecodeGpuSaysWhatItNeeds) {
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 8, 8, imghist::testing::Pattern::natural, 1);
    write_oiio(path("g.jpg"), img.view);
    const auto r = run_all({{"--decode", "gpu", "--backend", "cpu", path("g.jpg")}, {"--decode", "gpu", path("g.jpg")}});
    EXPECT_EQ(r[0].status, 2);
    EXPECT_NE(r[0].err.find("--decode gpu needs --backend cuda"), std::string::npos) << r[0].err;
    if (r[1].status != 0) {  // no GPU or no nvImageCodec here: a usage error naming why
        EXPECT_EQ(r[1].status, 2) << r[1].err;
        EXPECT_TRUE(r[1].err.find("cuda") != std::string::npos || r[1].err.find("nvImageCodec") != std::string::npos)
            << r[1].err;
        EXPECT_TRUE(r[1].out.empty());
    } else {
        EXPECT_NE(r[1].out.find("g.jpg"), std::string::npos);
    }
}

TEST_F(CliTest, HelpAndVersion) {
    const auto r = run_all({{"--help"}, {"--version"}});
    ASSERT_EQ(r[0].status, 0);
    for (const char* s : {"Exit status", "Examples", "--format", "json", "csv", "--plot", "--max-pixels", "--list-backends"})
        EXPECT_NE(r[0].out.find(s), std::string::npos) << s;
    EXPECT_EQ(r[1].status, 0);
    EXPECT_NE(r[1].out.find(std::string(imghist::version())), std::string::npos) << r[1].out;
}

TEST_F(CliTest, ListBackends) {
    const auto runs = run_all({{"--list-backends"}, {"--list-backends", "--format", "json"}});
    ASSERT_EQ(runs[0].status, 0) << runs[0].err;
    for (const imghist::Backend* b : imghist::backends())
        EXPECT_NE(runs[0].out.find(std::string(b->name())), std::string::npos);
    ASSERT_EQ(runs[1].status, 0);
    const json doc = runs[1].doc();
    ASSERT_EQ(doc["backends"].size(), imghist::backends().size());
    for (const auto& b : doc["backends"]) {
        EXPECT_TRUE(b["devices"].is_array());
        if (b["name"] == "cpu" || b["name"] == "reference") EXPECT_TRUE(b["available"].get<bool>());
    }
}

TEST_F(CliTest, ModesWeightsAndBackendsAgree) {
    const auto img = imghist::testing::make_image(PixelFormat::rgba16, 33, 17, imghist::testing::Pattern::random, 3);
    write_oiio(path("m.tif"), img.view);
    // Custom weights and a float range with values outside it (not clamped).
    const auto f = imghist::testing::make_image(PixelFormat::rgb_f32, 21, 13, imghist::testing::Pattern::specials, 4);
    write_oiio(path("f.exr"), f.view);
    const auto r = run_all({
        {"--format", "json", "--mode", "luma", "--luma-weights", "rec601", path("m.tif")},
        {"--format", "json", "--mode", "rgb", "--bins", "64", "--range", "1000:60000", "--clamp", "--backend",
         "reference", path("m.tif")},
        {"--format", "json", "--mode", "rgb", "--bins", "64", "--range", "1000:60000", "--clamp", "--backend", "auto",
         path("m.tif")},
        {"--format", "json", "--luma-weights", "3000,6000,1000", "--bins", "100", "--range=-0.5:0.5", path("f.exr")},
    });
    for (const auto& o : r) ASSERT_EQ(o.status, 0) << o.err;

    imghist::Request req;
    req.mode = imghist::Mode::luma;
    req.weights = imghist::LumaWeights::rec601();
    expect_matches(r[0].doc()["results"][0]["histograms"], reference(img.view, req), "luma rec601");
    EXPECT_EQ(r[0].doc()["results"][0]["histograms"].size(), 1u);  // Y only

    req = {};
    req.mode = imghist::Mode::rgb;
    req.bins.bins = 64;
    req.bins.range = {{1000, 60000}};
    req.bins.clamp = true;
    expect_matches(r[1].doc()["results"][0]["histograms"], reference(img.view, req), "reference backend");
    EXPECT_EQ(r[1].doc()["results"][0]["backend"], "reference");
    expect_matches(r[2].doc()["results"][0]["histograms"], reference(img.view, req), "auto backend");

    req = {};
    req.weights = imghist::LumaWeights::parse("3000,6000,1000");
    req.bins.bins = 100;
    req.bins.range = {{-0.5, 0.5}};
    const json h = r[3].doc()["results"][0]["histograms"];
    expect_matches(h, reference(f.view, req), "float custom");
    EXPECT_GT(h["R"]["below"].get<std::uint64_t>() + h["R"]["above"].get<std::uint64_t>(), 0u);
}

TEST_F(CliTest, RoiAndTiles) {
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 61, 37, imghist::testing::Pattern::natural, 5);
    write_oiio(path("r.png"), img.view);
    const auto small = imghist::testing::make_image(PixelFormat::rgb8, 20, 10, imghist::testing::Pattern::random, 6);
    write_oiio(path("small.png"), small.view);
    const auto r = run_all({
        {"--format", "json", "--roi", "5,3,40,30", "--tiles", "3,2", path("r.png")},
        {"--roi", "5,3,40,30", "--tiles", "3,2", path("r.png")},
        {"--format", "json", "--roi", "5,3,40,30", path("small.png"), path("r.png")},
    });
    ASSERT_EQ(r[0].status, 0) << r[0].err;
    imghist::Request req;
    req.roi = imghist::Region{5, 3, 40, 30};
    req.tiles = {3, 2};
    const imghist::Result want = reference(img.view, req);
    const json doc = r[0].doc()["results"][0];
    expect_matches(doc["histograms"], want, "roi");
    EXPECT_EQ(doc["region"], json({{"x", 5}, {"y", 3}, {"width", 40}, {"height", 30}}));
    EXPECT_EQ(doc["tile_grid"], json({{"x", 3}, {"y", 2}}));
    ASSERT_EQ(doc["tiles"].size(), 6u);
    for (std::size_t t = 0; t < 6; ++t) {
        const imghist::Region& w = want.tiles[t].region;
        EXPECT_EQ(doc["tiles"][t]["region"], json({{"x", w.x}, {"y", w.y}, {"width", w.width}, {"height", w.height}}));
        imghist::Result tile = want;
        tile.channels = want.tiles[t].channels;
        expect_matches(doc["tiles"][t]["histograms"], tile, "tile " + std::to_string(t));
    }
    EXPECT_EQ(doc["tiles"][5]["region"]["width"], 40 - 2 * 13);  // the last column takes the remainder

    ASSERT_EQ(r[1].status, 0) << r[1].err;
    EXPECT_NE(r[1].out.find("region: 40 x 30 pixels from column 5, row 3"), std::string::npos) << r[1].out;
    EXPECT_NE(r[1].out.find("tiles: 3 x 2"), std::string::npos) << r[1].out;

    // A roi that one file cannot hold is that file's error; the others are still counted.
    EXPECT_EQ(r[2].status, 1);
    const json both = r[2].doc();
    ASSERT_EQ(both["errors"].size(), 1u) << r[2].out;
    EXPECT_NE(both["errors"][0]["error"].get<std::string>().find("is not inside the 20 x 10 image"), std::string::npos)
        << both["errors"][0]["error"];
    ASSERT_EQ(both["results"].size(), 1u);
    req.tiles = {};
    expect_matches(both["results"][0]["histograms"], reference(img.view, req), "roi of the file that holds it");

    // Bad values are usage errors before any file is read.
    const std::vector<std::vector<std::string>> bad = {
        {"--roi", "1,2,3", path("r.png")},        {"--roi", "0,0,0,5", path("r.png")},
        {"--roi", "a,b,c,d", path("r.png")},      {"--roi", "-1,0,2,2", path("r.png")},
        {"--tiles", "0,1", path("r.png")},        {"--tiles", "3", path("r.png")},
        {"--roi", "0,0,2,2", "--tiles", "3,1", path("r.png")},
    };
    const auto errors = run_all(bad);
    for (std::size_t i = 0; i < bad.size(); ++i) {
        EXPECT_EQ(errors[i].status, 2) << bad[i][1] << " " << errors[i].err;
        EXPECT_NE(errors[i].err.find(bad[i][0]), std::string::npos) << errors[i].err;
        EXPECT_TRUE(errors[i].out.empty());
    }
}

TEST_F(CliTest, MaskAndAlphaThreshold) {
    const auto img = imghist::testing::make_image(PixelFormat::rgba8, 61, 37, imghist::testing::Pattern::random, 5);
    write_oiio(path("r.png"), img.view);
    const auto small = imghist::testing::make_image(PixelFormat::rgba8, 20, 10, imghist::testing::Pattern::random, 6);
    write_oiio(path("small.png"), small.view);
    const auto rgb = imghist::testing::make_image(PixelFormat::rgb8, 61, 37, imghist::testing::Pattern::random, 7);
    write_oiio(path("rgb.png"), rgb.view);
    std::vector<std::uint8_t> mask(61 * 37);
    std::uint64_t on = 0;
    for (std::size_t i = 0; i < mask.size(); ++i) on += (mask[i] = (i % 3 == 0) ? 0 : std::uint8_t(i)) != 0;
    const imghist::ImageView mask_view = imghist::ImageView::packed(mask.data(), 61, 37, PixelFormat::gray8);
    write_oiio(path("mask.png"), mask_view);
    const auto r = run_all({
        {"--format", "json", "--mask", path("mask.png"), "--tiles", "2,2", path("r.png")},
        {"--mask", path("mask.png"), "--alpha-threshold", "100", path("r.png")},
        {"--format", "json", "--alpha-threshold", "127.5", "--mode", "luma", "--sum", path("r.png"), path("small.png"),
         path("rgb.png")},
        {"--format", "json", "--mask", path("mask.png"), path("small.png"), path("r.png")},
    });
    ASSERT_EQ(r[0].status, 0) << r[0].err;
    imghist::Request req;
    req.mask = mask_view;
    req.tiles = {2, 2};
    const imghist::Result want = reference(img.view, req);
    ASSERT_EQ(want.counted_pixels, on);
    const json doc = r[0].doc()["results"][0];
    expect_matches(doc["histograms"], want, "mask");
    EXPECT_EQ(doc["counted_pixels"], on);
    ASSERT_EQ(doc["tiles"].size(), 4u);
    for (std::size_t t = 0; t < 4; ++t) {
        EXPECT_EQ(doc["tiles"][t]["counted_pixels"], *want.tiles[t].counted_pixels);
        imghist::Result tile = want;
        tile.channels = want.tiles[t].channels;
        expect_matches(doc["tiles"][t]["histograms"], tile, "tile " + std::to_string(t));
    }

    ASSERT_EQ(r[1].status, 0) << r[1].err;
    req.tiles = {};
    req.alpha_threshold = 100;
    const imghist::Result both = reference(img.view, req);
    ASSERT_LT(*both.counted_pixels, 1000u);  // printed without a thousands separator
    EXPECT_NE(r[1].out.find("counted: " + std::to_string(*both.counted_pixels) + " pixels"), std::string::npos) << r[1].out;

    // The alpha threshold is a file's error where the file has no alpha; the others are counted
    // and summed with their counted pixels.
    EXPECT_EQ(r[2].status, 1);
    const json sums = r[2].doc();
    ASSERT_EQ(sums["errors"].size(), 1u) << r[2].out;
    EXPECT_NE(sums["errors"][0]["error"].get<std::string>().find("rgb8 has none"), std::string::npos) << sums["errors"];
    imghist::Request luma;
    luma.mode = imghist::Mode::luma;
    luma.alpha_threshold = 127.5;
    imghist::Result sum = reference(img.view, luma);
    sum.merge(reference(small.view, luma));
    ASSERT_EQ(sums["results"].size(), 2u);
    expect_matches(sums["results"][0]["histograms"], reference(img.view, luma), "alpha threshold");
    ASSERT_EQ(sums["sums"].size(), 1u);
    expect_matches(sums["sums"][0]["histograms"], sum, "sum");
    EXPECT_EQ(sums["sums"][0]["counted_pixels"], *sum.counted_pixels);

    // A file of another size than the mask is that file's error.
    EXPECT_EQ(r[3].status, 1);
    const json sized = r[3].doc();
    ASSERT_EQ(sized["errors"].size(), 1u) << r[3].out;
    EXPECT_NE(sized["errors"][0]["error"].get<std::string>().find("the mask is 61 x 37 pixels, the image 20 x 10"),
              std::string::npos)
        << sized["errors"][0]["error"];
    ASSERT_EQ(sized["results"].size(), 1u);

    // Bad values are usage errors before any file is read.
    const std::vector<std::vector<std::string>> bad = {
        {"--mask", path("r.png"), path("r.png")},                  // rgba8, not one 8-bit channel
        {"--mask", path("missing.png"), path("r.png")},
        {"--alpha-threshold", "nan", path("r.png")},
        {"--alpha-threshold", "x", path("r.png")},
        {"--mask", path("mask.png"), "--decode", "gpu", path("r.png")},
    };
    const auto errors = run_all(bad);
    for (std::size_t i = 0; i < bad.size(); ++i) {
        EXPECT_EQ(errors[i].status, 2) << bad[i][1] << " " << errors[i].err;
        EXPECT_NE(errors[i].err.find(bad[i][0]), std::string::npos) << errors[i].err;
        EXPECT_TRUE(errors[i].out.empty());
    }
}

TEST_F(CliTest, ValueExtremesOfFloatFiles) {
    // An EXR whose values pass 1, with +Inf, -Inf and NaN among them.
    auto f = imghist::testing::make_image(PixelFormat::rgba_f32, 31, 17, imghist::testing::Pattern::random, 4);
    auto* px = const_cast<float*>(static_cast<const float*>(f.view.data));
    for (std::size_t i = 0; i < 31 * 17 * 4; ++i) px[i] *= 40.0f;
    px[0] = INFINITY;
    px[5] = -INFINITY;
    px[10] = NAN;
    px[12] = 1000.0f;  // R of pixel 3, the largest finite R
    write_oiio(path("hdr.exr"), f.view);
    const auto g = imghist::testing::make_image(PixelFormat::gray8, 10, 10, imghist::testing::Pattern::random, 5);
    write_oiio(path("g.png"), g.view);
    const auto r = run_all({
        {"--format", "json", "--sum", path("hdr.exr"), path("g.png")},
        {path("hdr.exr")},
        {"--format", "json", "--no-extremes", path("hdr.exr")},
    });
    ASSERT_EQ(r[0].status, 0) << r[0].err;
    imghist::Request req;
    req.value_extremes = true;
    const imghist::Result want = reference(f.view, req);
    const json doc = r[0].doc();
    const json& hdr = doc["results"][0]["histograms"];
    for (const imghist::ChannelHistogram& c : want.channels) {
        const json& j = hdr[std::string(imghist::channel_name(c.channel))];
        EXPECT_EQ(j["finite_min"].get<double>(), *c.finite_min) << imghist::channel_name(c.channel);
        EXPECT_EQ(j["finite_max"].get<double>(), *c.finite_max);
        EXPECT_EQ(j["positive_infinities"], *c.positive_infinities);
        EXPECT_EQ(j["negative_infinities"], *c.negative_infinities);
    }
    EXPECT_EQ(hdr["R"]["finite_max"].get<double>(), 1000.0);
    EXPECT_EQ(hdr["R"]["positive_infinities"], 1u);
    EXPECT_EQ(hdr["G"]["negative_infinities"], 1u);  // sample 5: pixel 1's G
    EXPECT_FALSE(doc["results"][1]["histograms"]["gray"].contains("finite_min"));  // 8-bit: none
    ASSERT_EQ(r[1].status, 0) << r[1].err;
    EXPECT_NE(r[1].out.find("R: finite values from "), std::string::npos) << r[1].out;
    EXPECT_NE(r[1].out.find(" to 1000; 1 +Inf; past 1: the last bin holds "), std::string::npos) << r[1].out;
    ASSERT_EQ(r[2].status, 0) << r[2].err;
    EXPECT_FALSE(r[2].doc()["results"][0]["histograms"]["R"].contains("finite_min"));

    // imghist merge reads them back: the merged report's sums carry the same values.
    std::ofstream(path("report.json")) << r[0].out;
    const auto merged = run_all({{"merge", "--format", "json", path("report.json")}});
    ASSERT_EQ(merged[0].status, 0) << merged[0].err;
    const json sums = merged[0].doc()["sums"];
    json hdr_sum;
    for (const json& s : sums)
        if (s["histograms"].contains("R")) hdr_sum = s["histograms"];
    ASSERT_FALSE(hdr_sum.is_null()) << merged[0].out;
    for (const char* key : {"finite_min", "finite_max", "positive_infinities", "negative_infinities"})
        EXPECT_EQ(hdr_sum["R"][key], hdr["R"][key]) << key;
}

TEST_F(CliTest, EdgesEvBinsAndExposure) {
    const auto f = imghist::testing::make_image(PixelFormat::rgb_f32, 53, 29, imghist::testing::Pattern::natural, 8);
    write_oiio(path("hdr.exr"), f.view);
    const auto g = imghist::testing::make_image(PixelFormat::gray8, 40, 20, imghist::testing::Pattern::random, 9);
    write_oiio(path("g.png"), g.view);
    std::ofstream(path("edges.txt")) << "0.5, 1.5\n2 17\n100.2,255\n";
    const auto r = run_all({
        {"--format", "json", "--edges", "-1,0,0.001,0.25,0.5,1,4", "--clamp", path("hdr.exr")},
        {"--format", "json", "--mode", "luma", "--ev=-10:2:4", "--exposure", "--exposure-percentiles", "40:90",
         "--key", "0.25", path("hdr.exr")},
        {"--mode", "luma", "--exposure", path("hdr.exr")},
        {"--format", "json", "--edges", "@" + path("edges.txt"), path("g.png")},
    });
    imghist::Request req;
    req.bins.edges = {-1, 0, 0.001, 0.25, 0.5, 1, 4};
    req.bins.clamp = true;
    ASSERT_EQ(r[0].status, 0) << r[0].err;
    expect_matches(r[0].doc()["results"][0]["histograms"], reference(f.view, req), "--edges");
    EXPECT_EQ(r[0].doc()["results"][0]["histograms"]["R"]["edges"][2].get<double>(), double(0.001f));  // fp32 edge

    ASSERT_EQ(r[1].status, 0) << r[1].err;
    req = {};
    req.mode = imghist::Mode::luma;
    req.bins.edges = imghist::ev_edges(-10, 2, 4);
    const imghist::Result want = reference(f.view, req);
    const json doc = r[1].doc()["results"][0];
    expect_matches(doc["histograms"], want, "--ev");
    imghist::ExposureSettings settings;
    settings.low_percent = 40;
    settings.high_percent = 90;
    settings.key = 0.25;
    const auto e = imghist::exposure(*want.find(imghist::Channel::Y), settings);
    ASSERT_TRUE(e);
    EXPECT_EQ(doc["exposure"]["channel"], "Y");
    EXPECT_EQ(doc["exposure"]["average_ev"].get<double>(), e->average_ev);
    EXPECT_EQ(doc["exposure"]["exposure_ev"].get<double>(), e->exposure_ev);
    EXPECT_EQ(doc["exposure"]["key"].get<double>(), 0.25);
    EXPECT_EQ(doc["exposure"]["low_percent"].get<double>(), 40);

    ASSERT_EQ(r[2].status, 0) << r[2].err;  // the default --ev=-16:16:8
    EXPECT_NE(r[2].out.find("256 edge bins over"), std::string::npos) << r[2].out;
    EXPECT_NE(r[2].out.find("exposure: "), std::string::npos) << r[2].out;
    EXPECT_NE(r[2].out.find(" EV (average "), std::string::npos) << r[2].out;

    ASSERT_EQ(r[3].status, 0) << r[3].err;
    req = {};
    req.bins.edges = {0.5, 1.5, 2, 17, 100.2, 255};
    expect_matches(r[3].doc()["results"][0]["histograms"], reference(g.view, req), "--edges @FILE");

    // Bad values are usage errors before any file is read; the message names the option.
    const std::vector<std::vector<std::string>> bad = {
        {"--edges", "1", path("g.png")},           {"--edges", "2,1", path("g.png")},
        {"--edges", "0,x", path("g.png")},         {"--edges", "@" + path("none.txt"), path("g.png")},
        {"--edges", "0,1", "--bins", "4", path("g.png")},
        {"--ev", "1:1:4", path("g.png")},          {"--ev", "0:1:0", path("g.png")},
        {"--ev", "0:5000:1", path("g.png")},       {"--ev", "0:1", path("g.png")},
        {"--ev", "0:0.3:1", path("g.png")},        {"--exposure", "--mode", "rgb", path("g.png")},
        {"--exposure", "--exposure-percentiles", "95:50", path("g.png")},
        {"--exposure", "--exposure-percentiles", "33.333:90", path("g.png")},
        {"--exposure", "--key", "0", path("g.png")},
        {"--exposure", "--bins", "16", path("g.png")},
    };
    const auto errors = run_all(bad);
    for (std::size_t i = 0; i < bad.size(); ++i) {
        EXPECT_EQ(errors[i].status, 2) << bad[i][0] << " " << bad[i][1] << " " << errors[i].err;
        EXPECT_NE(errors[i].err.find(bad[i][0]), std::string::npos) << errors[i].err;
        EXPECT_TRUE(errors[i].out.empty());
    }
}

TEST_F(CliTest, DirectoriesAreSearchedRecursively) {
    const fs::path d = dir_ / "tree";
    fs::create_directories(d / "sub" / "deeper");
    fs::create_directories(d / ".hidden");
    std::vector<imghist::testing::TestImage> imgs;
    const std::vector<std::string> names = {"a.png", "sub/b.TIF", "sub/deeper/c.exr", "sub/deeper/d.jpg"};
    for (std::size_t i = 0; i < names.size(); ++i) {
        const PixelFormat pf = names[i].ends_with(".exr") ? PixelFormat::rgb_f16 : PixelFormat::rgb8;
        imgs.push_back(imghist::testing::make_image(pf, 16 + i, 9, imghist::testing::Pattern::natural, i));
        write_oiio((d / names[i]).string(), imgs.back().view);
    }
    write_oiio((d / ".hidden" / "e.png").string(), imgs[0].view);
    write_bytes((d / "notes.txt").string(), "not an image");
    fs::create_directories(dir_ / "empty_dir");

    const auto runs = run_all({{"--format", "json", "--threads", "1", d.string()},
                               {"--format", "json", "--threads", "3", d.string()},
                               {"--format", "json", (dir_ / "empty_dir").string()}});
    const Outcome& r = runs[0];
    ASSERT_EQ(r.status, 0) << r.err;
    const json doc = r.doc();
    ASSERT_EQ(doc["results"].size(), names.size()) << doc["results"].dump().substr(0, 400);
    std::vector<std::string> files;
    for (const auto& res : doc["results"]) files.push_back(res["file"]);
    EXPECT_TRUE(std::is_sorted(files.begin(), files.end()));
    for (std::size_t i = 0; i < names.size(); ++i) {
        const json* got = find_result(doc, (d / names[i]).string());
        ASSERT_TRUE(got) << names[i];
        if (!names[i].ends_with(".jpg")) expect_matches((*got)["histograms"], reference(imgs[i].view), names[i]);
    }
    // Parallel workers give the same answers, in the same order, as one.
    ASSERT_EQ(runs[1].status, 0);
    const json many = runs[1].doc();
    ASSERT_EQ(many["results"].size(), names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        EXPECT_EQ(doc["results"][i]["file"], many["results"][i]["file"]);
        EXPECT_EQ(doc["results"][i]["histograms"], many["results"][i]["histograms"]) << i;
    }
    // A directory without images is an error.
    EXPECT_EQ(runs[2].status, 1);
    ASSERT_EQ(runs[2].doc()["errors"].size(), 1u);
}

TEST_F(CliTest, SumMergesMatchingFiles) {
    const auto a = imghist::testing::make_image(PixelFormat::rgb8, 20, 10, imghist::testing::Pattern::random, 1);
    const auto b = imghist::testing::make_image(PixelFormat::rgb8, 7, 5, imghist::testing::Pattern::random, 2);
    const auto c = imghist::testing::make_image(PixelFormat::rgb16, 7, 5, imghist::testing::Pattern::random, 3);
    write_oiio(path("sa.png"), a.view);
    write_oiio(path("sb.bmp"), b.view);
    write_oiio(path("sc.png"), c.view);
    const Outcome r = run({"--format", "json", "--sum", path("sa.png"), path("sb.bmp"), path("sc.png")});
    ASSERT_EQ(r.status, 0) << r.err;
    const json doc = r.doc();
    // Schema 2: one sum per layout; the 16-bit file gets its own instead of being left out.
    ASSERT_TRUE(doc.contains("sums"));
    ASSERT_EQ(doc["sums"].size(), 2u);
    const json& sum = doc["sums"][0];
    EXPECT_FALSE(sum.contains("file"));
    EXPECT_EQ(sum["files"], json({path("sa.png"), path("sb.bmp")}));
    EXPECT_EQ(sum["pixels"], 20 * 10 + 7 * 5);
    EXPECT_EQ(sum["formats"], json({"rgb8"}));
    imghist::Result want = reference(a.view);
    want.merge(reference(b.view));
    expect_matches(sum["histograms"], want, "sum");
    EXPECT_EQ(doc["sums"][1]["files"], json({path("sc.png")}));
    expect_matches(doc["sums"][1]["histograms"], reference(c.view), "16-bit sum");
    EXPECT_EQ(doc["results"].size(), 3u);
}

TEST_F(CliTest, CsvAndTable) {
    const auto img = imghist::testing::make_image(PixelFormat::rgb_f32, 12, 7, imghist::testing::Pattern::specials, 8);
    write_oiio(path("t,1.exr"), img.view);  // a comma in the name must be quoted
    const auto runs = run_all({{"--format", "csv", path("t,1.exr")}, {path("t,1.exr")}});
    const Outcome& r = runs[0];
    ASSERT_EQ(r.status, 0) << r.err;
    std::istringstream lines(r.out);
    std::string line;
    std::getline(lines, line);
    EXPECT_EQ(line, "image,format,channel,kind,bin,lo,hi,count");
    std::size_t rows = 0, stat_rows = 0;
    std::uint64_t r_total = 0;
    const imghist::Result want = reference(img.view);
    const std::string prefix = "\"" + path("t,1.exr") + "\",rgb_f32,R,bin,";
    while (std::getline(lines, line)) {
        // The sample statistics' rows (mean, stddev, sample_stddev, min, max, p1, p50, p99 per channel).
        if (line.find(",mean,-1,") != std::string::npos || line.find(",p50,-1,") != std::string::npos) ++stat_rows;
        ++rows;
        if (line.rfind(prefix, 0) == 0) r_total += std::stoull(line.substr(line.rfind(',') + 1));
    }
    EXPECT_EQ(stat_rows, 4 * 2u);
    EXPECT_EQ(rows, 4 * (257 + 3 + 8));  // R, G, B, Y: bins, below / above / nans, statistics
    const auto& rch = *want.find(imghist::Channel::R);
    std::uint64_t binned = 0;
    for (auto v : rch.counts) binned += v;
    EXPECT_EQ(r_total, binned);

    const Outcome& t = runs[1];
    ASSERT_EQ(t.status, 0);
    EXPECT_NE(t.out.find("257 bins"), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("NaN"), std::string::npos) << t.out;  // specials: NaN counts shown
    EXPECT_NE(t.out.find("above 1"), std::string::npos) << t.out;
}

TEST_F(CliTest, Plots) {
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 64, 32, imghist::testing::Pattern::natural, 1);
    write_oiio(path("p.png"), img.view);
    const auto fimg = imghist::testing::make_image(PixelFormat::rgba_f16, 30, 20, imghist::testing::Pattern::specials, 1);
    write_oiio(path("p.exr"), fimg.view);
    write_oiio(path("q.exr"), fimg.view);
    if (!IMGHIST_CLI_HAS_PLOT) {
        const Outcome r = run({"--plot", path("chart.png"), path("p.png")});
        EXPECT_EQ(r.status, 2);
        EXPECT_NE(r.err.find("cairo"), std::string::npos);
        GTEST_SKIP() << "built without cairo";
    }
    const auto r = run_all({
        {"--plot", path("chart.png"), path("p.png")},
        {"--plot", path("chart.svg"), "--log", "--alpha", "--bins", "1000", path("p.exr")},
        {"--plot", path("each_{}.png"), path("p.png"), path("q.exr")},
        {"--plot", path("sum.png"), "--sum", path("p.png"), path("p.png")},
        {"--plot", path("none.png"), path("missing.png")},
    });
    for (int i = 0; i < 4; ++i) ASSERT_EQ(r[i].status, 0) << i << ": " << r[i].err;
    auto in = OIIO::ImageInput::open(path("chart.png"));
    ASSERT_TRUE(in) << OIIO::geterror();
    EXPECT_GT(in->spec().width, 900);
    in.reset();
    EXPECT_NE(slurp(dir_ / "chart.svg").find("<svg"), std::string::npos);
    EXPECT_TRUE(fs::exists(dir_ / "each_p.png"));
    EXPECT_TRUE(fs::exists(dir_ / "each_q.png"));
    EXPECT_TRUE(fs::exists(dir_ / "sum.png"));
    EXPECT_EQ(r[4].status, 1);
    EXPECT_FALSE(fs::exists(dir_ / "none.png"));
}

}  // namespace
