// opencl backend: what the generic parity suite cannot reach: the GPU configurations (32
// bank-private copies, 16-bit packed counters, lane pairs, 8-bit value mode, the summing merge,
// compile-time specialisation, global-atomic fallback, channel passes, tiles and split launches)
// forced on whatever device runs the tests (PoCL in CI), against the reference. The interop API
// and device selection and errors: test_opencl_interop.cpp, test_opencl_devices.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/opencl/cl_util.hpp"
#include "imghist/imghist.hpp"
#include "imghist/opencl.hpp"
#include "histogram_asserts.hpp"
#include "opencl_test_support.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

using opencl_test::ScopedEnv;
using testing::expect_same_histograms;
using testing::make_image;
using testing::Pattern;


struct Variant {
    const char* name;
    const char* tune;
    std::vector<PixelFormat> formats;
};

// Each variant is a configuration the host would choose on some device.
const Variant kVariants[] = {
    {"gpu", "copies=32,pack=1,spec=1,wg=256,gpc=2",
     {PixelFormat::rgba8, PixelFormat::gray16, PixelFormat::rgba_f16}},
    {"gpu-generic", "copies=32,pack=1,spec=0,wg=256,gpc=2",
     {PixelFormat::gray8, PixelFormat::rgb8, PixelFormat::bgr8, PixelFormat::rgba8, PixelFormat::bgra8, PixelFormat::rgba16,
      PixelFormat::rgb_f16, PixelFormat::gray_f32, PixelFormat::rgba_f32}},
    {"sum-merge", "copies=16,pack=1,merge=sum,wg=128", {PixelFormat::rgba8, PixelFormat::rgb16, PixelFormat::rgba_f32}},
    {"no-fast", "fast=0,copies=8,pack=0", {PixelFormat::rgba8, PixelFormat::bgra8}},
    {"global-atomics", "global=1", {PixelFormat::rgba8, PixelFormat::gray_f16, PixelFormat::rgb16}},
    // 4096 bins x 4 channels do not fit 20000 bytes: one channel per pass (bins <= 256 fit;
    // value mode, 256 slots per channel, would fit all at once).
    {"channel-passes", "max_local=20000,pack=0,copies=1,value=0", {PixelFormat::rgba8, PixelFormat::rgba_f32}},
    // Tiles of 1000 pixels (64-bit accumulation on the device) and launches of 300.
    {"tiles", "tile_pixels=1000,launch_pixels=300,copies=4,pack=1", {PixelFormat::rgba8, PixelFormat::rgb_f16}},
};

TEST(OpenClVariants, MatchReferenceBitForBit) {
    REQUIRE_OPENCL();
    auto reference = create_engine("reference");
    for (const Variant& v : kVariants) {
        SCOPED_TRACE(std::string("IMGHIST_OPENCL_TUNE=") + v.tune);
        ScopedEnv env("IMGHIST_OPENCL_TUNE", v.tune);
        auto engine = create_engine("opencl");
        std::uint64_t seed = 1;
        for (PixelFormat f : v.formats) {
            for (Pattern pattern : {Pattern::random, Pattern::bank_adversarial, Pattern::specials}) {
                // 331 x 7 = 2317 pixels: not a multiple of 4, of the work-group size or of a row.
                auto img = make_image(f, 331, 7, pattern, ++seed, 8);
                for (const auto& [name, request] : testing::parity_requests(format_info(f))) {
                    const std::string what = std::string(v.name) + " " + std::string(format_info(f).name) + " " +
                                             testing::pattern_name(pattern) + " " + name;
                    Result got;
                    try {
                        got = engine->compute(img.view, request);
                    } catch (const std::exception& e) {
                        ADD_FAILURE() << what << ": threw " << e.what();
                        continue;
                    }
                    expect_same_histograms(got, reference->compute(img.view, request), what);
                }
            }
        }
    }
}

TEST(OpenClVariants, ChannelPassesAndGlobalFallbackAreNoted) {
    REQUIRE_OPENCL();
    auto img = make_image(PixelFormat::rgba8, 64, 3, Pattern::random, 5);
    Request r;
    r.bins.bins = 4096;
    r.bins.range = {{0.0, 256.0}};
    {
        ScopedEnv env("IMGHIST_OPENCL_TUNE", "max_local=20000,pack=0,copies=1,value=0");
        const Result res = create_engine("opencl")->compute(img.view, r);
        ASSERT_EQ(res.notes.size(), 1u);
        EXPECT_NE(res.notes[0].find("passes"), std::string::npos) << res.notes[0];
    }
    {
        ScopedEnv env("IMGHIST_OPENCL_TUNE", "max_local=1000,value=0");
        const Result res = create_engine("opencl")->compute(img.view, r);
        ASSERT_EQ(res.notes.size(), 1u);
        EXPECT_NE(res.notes[0].find("global atomics"), std::string::npos) << res.notes[0];
        expect_same_histograms(res, create_engine("reference")->compute(img.view, r), "global fallback");
    }
    // The normal path says nothing.
    EXPECT_TRUE(create_engine("opencl")->compute(img.view).notes.empty());
}

// A tile grid in one pass (the tile kernels, ih_hist_tiles_*) under the configurations that
// change it: staged tiles of 1000 pixels with launches of 300 (a tile of the grid spread over
// several launches and staged tiles, 64-bit accumulation), copies (packed counters are never
// used by a tile pass), channel passes, the generic build, small work-groups, and global
// atomics, where the grid is counted tile by tile instead.
TEST(OpenClTiles, TileGridsUnderEveryConfiguration) {
    REQUIRE_OPENCL();
    auto reference = create_engine("reference");
    for (const char* tune : {"", "tile_pixels=1000,launch_pixels=300", "copies=4,pack=1",
                             "max_local=20000,pack=0,copies=1,value=0", "spec=0,wg=64,groups=3", "max_local=1000,value=0"}) {
        SCOPED_TRACE(std::string("IMGHIST_OPENCL_TUNE=") + tune);
        ScopedEnv env("IMGHIST_OPENCL_TUNE", tune);
        auto engine = create_engine("opencl");
        std::uint64_t seed = 70;
        for (PixelFormat f : {PixelFormat::rgba8, PixelFormat::rgb16, PixelFormat::rgba_f32}) {
            auto img = make_image(f, 331, 57, Pattern::specials, ++seed, 8);
            Request r;
            r.count_alpha = true;
            r.tiles = {7, 5};
            expect_same_histograms(engine->compute(img.view, r), reference->compute(img.view, r),
                                   std::string(format_info(f).name) + " tiles 7,5");
            r.roi = Region{2, 3, 320, 50};
            r.tiles = {40, 9};
            r.bins.bins = 4096;
            r.bins.range = {{0.0, f == PixelFormat::rgba_f32 ? 1.0 : 65536.0}};
            expect_same_histograms(engine->compute(img.view, r), reference->compute(img.view, r),
                                   std::string(format_info(f).name) + " roi, tiles 40,9, 4096 bins");
        }
    }
}

TEST(OpenClSizes, NotMultiplesOfTheWorkGroup) {
    REQUIRE_OPENCL();
    ScopedEnv env("IMGHIST_OPENCL_TUNE", "copies=32,pack=1,wg=256,gpc=1");
    auto engine = create_engine("opencl");
    auto reference = create_engine("reference");
    std::uint64_t seed = 50;
    for (auto [w, h] : {std::pair{1u, 1u}, {3u, 1u}, {5u, 3u}, {255u, 1u}, {257u, 1u}, {1023u, 1u},
                        {4099u, 1u}, {1u, 1025u}, {97u, 89u}}) {
        for (PixelFormat f : {PixelFormat::rgba8, PixelFormat::rgb8, PixelFormat::gray_f32}) {
            auto img = make_image(f, w, h, Pattern::random, ++seed, 0);
            const std::string what = std::to_string(w) + "x" + std::to_string(h) + " " + std::string(format_info(f).name);
            expect_same_histograms(engine->compute(img.view), reference->compute(img.view), what);
        }
    }
}

// ---- local layouts and value mode ----------------------------------------------------------

// Every local layout of the 8-bit kernels, value mode on and off (with and without the value
// swizzle), 2 and 4 loads in flight, generic and specialised builds, GPU and CPU work-group sizes.
const char* const kLayoutTunes[] = {
    "layout=pairs,value=1,spec=1,wg=256",
    "layout=pairs,value=0,wg=64",
    "layout=pairs,value=1,loads=4,wg=128",
    "layout=pairs,copies=8,value=1,spec=1,wg=256",
    "layout=lanes,value=1,spec=1,wg=256,loads=4",
    "layout=lanes,value=0,wg=64",
    "layout=copies,copies=1,pack=0,value=1,spec=1",
    "layout=copies,copies=1,pack=0,value=0,loads=4",
    "layout=copies,copies=32,pack=1,value=1,wg=128",
    "layout=pairs,value=1,merge=sum,wg=64",
    "layout=copies,copies=1,pack=0,value=1,swizzle=1,spec=1",
    "layout=copies,copies=8,pack=0,value=1,swizzle=1,merge=sum,wg=128",
};

TEST(OpenClLayouts, MatchReferenceBitForBit) {
    REQUIRE_OPENCL();
    auto reference = create_engine("reference");
    for (const char* tune : kLayoutTunes) {
        SCOPED_TRACE(std::string("IMGHIST_OPENCL_TUNE=") + tune);
        ScopedEnv env("IMGHIST_OPENCL_TUNE", tune);
        auto engine = create_engine("opencl");
        std::uint64_t seed = 200;
        // RGBA8/BGRA8 take the 16-byte kernel, gray8/rgb8/bgr8 the per-pixel one.
        for (PixelFormat f : {PixelFormat::rgba8, PixelFormat::bgra8, PixelFormat::gray8, PixelFormat::rgb8, PixelFormat::bgr8}) {
            for (Pattern pattern : {Pattern::random, Pattern::constant, Pattern::bank_adversarial, Pattern::specials}) {
                // 2317 pixels: not a multiple of 4 or of any work-group size; padded rows.
                auto img = make_image(f, 331, 7, pattern, ++seed, 12);
                for (const auto& [name, request] : testing::parity_requests(format_info(f))) {
                    const std::string what = std::string(format_info(f).name) + " " +
                                             testing::pattern_name(pattern) + " " + name;
                    try {
                        expect_same_histograms(engine->compute(img.view, request),
                                               reference->compute(img.view, request), what);
                    } catch (const std::exception& e) {
                        ADD_FAILURE() << what << ": threw " << e.what();
                    }
                }
            }
        }
    }
}

TEST(OpenClLayouts, SixteenBitCountersNearTheirBound) {
    REQUIRE_OPENCL();
    // On a constant image every pixel of a work-item hits the same counter. One work-group per
    // launch puts each 16-bit counter at the host's bound: lane pairs with wg 32 (one
    // work-item per half) give every work-item 16383 vectors = 65532 pixels per launch, so
    // 1500 x 1500 pixels take two launches (two flushes); the others take more.
    auto img = make_image(PixelFormat::rgba8, 1500, 1500, Pattern::constant, 9);
    auto reference = create_engine("reference");
    std::vector<std::pair<std::string, Request>> requests;
    requests.push_back({"default", Request{}});
    Request luma;
    luma.mode = Mode::luma;
    luma.weights = LumaWeights::parse("3333,3334,3333");
    requests.push_back({"luma", luma});
    Request all;
    all.mode = Mode::all;
    all.bins.bins = 7;
    all.bins.range = {{17, 253}};
    all.bins.clamp = true;
    requests.push_back({"all, 7 bins clamp", all});
    for (const char* tune : {"layout=pairs,wg=32,groups=1", "layout=pairs,value=0,wg=64,groups=1,loads=4",
                             "layout=pairs,copies=8,wg=64,groups=1",
                             "layout=copies,copies=32,pack=1,wg=64,groups=1",
                             "layout=copies,copies=1,pack=1,wg=32,groups=1"}) {
        ScopedEnv env("IMGHIST_OPENCL_TUNE", tune);
        auto engine = create_engine("opencl");
        for (const auto& [name, request] : requests)
            expect_same_histograms(engine->compute(img.view, request), reference->compute(img.view, request),
                                   std::string(tune) + " " + name);
    }
}

}  // namespace
}  // namespace imghist
