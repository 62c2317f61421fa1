// Every compiled backend against the reference, bit for bit, on generated and adversarial
// images. New backends are covered as soon as they are registered.
//
// IMGHIST_REQUIRE_BACKENDS=cpu,opencl,vulkan turns "skipped: no device" into a failure, so CI
// cannot pass by skipping.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>

#include "imghist/imghist.hpp"
#include "histogram_asserts.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

using testing::make_image;
using testing::Pattern;

std::vector<std::string> required_backends() {
    std::vector<std::string> out;
    const char* env = std::getenv("IMGHIST_REQUIRE_BACKENDS");
    if (env == nullptr) return out;
    std::stringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty()) out.push_back(item);
    return out;
}

bool is_required(std::string_view name) {
    for (const auto& r : required_backends())
        if (r == name) return true;
    return false;
}

TEST(RequiredBackends, AreCompiledAndAvailable) {
    const auto required = required_backends();
    if (required.empty()) GTEST_SKIP() << "IMGHIST_REQUIRE_BACKENDS is not set";
    for (const auto& name : required) {
        const Backend* b = find_backend(name);
        ASSERT_NE(b, nullptr) << "required backend '" << name << "' is not compiled in";
        std::string notes;
        for (const auto& d : b->devices()) notes += d.name + ": " + d.note + "; ";
        EXPECT_TRUE(b->available()) << "required backend '" << name << "' has no usable device: " << notes;
    }
}


class BackendParity : public ::testing::TestWithParam<std::tuple<std::string, PixelFormat>> {
protected:
    void SetUp() override {
        const auto& [name, format] = GetParam();
        const Backend* b = find_backend(name);
        ASSERT_NE(b, nullptr);
        if (!b->available()) {
            if (is_required(name)) FAIL() << name << " is required but has no usable device";
            GTEST_SKIP() << name << " has no usable device here";
        }
        engine_ = b->create_engine({});
        reference_ = create_engine("reference");
    }

    void expect_same(const ImageView& view, const Request& request, const std::string& what) {
        const Result want = reference_->compute(view, request);
        Result got;
        try {
            got = engine_->compute(view, request);
        } catch (const std::exception& e) {
            ADD_FAILURE() << what << ": backend threw: " << e.what();
            return;
        }
        testing::expect_same_histograms(got, want, what);
        for (const ChannelHistogram& c : got.channels)
            EXPECT_TRUE(c.clipped_low_count && c.clipped_high_count)
                << what << ": Engine::compute leaves clipping of " << channel_name(c.channel) << " unknown";
    }

    std::unique_ptr<Engine> engine_, reference_;
};

TEST_P(BackendParity, PatternsAndRequests) {
    const PixelFormat format = std::get<1>(GetParam());
    const FormatInfo& fi = format_info(format);
    std::uint64_t seed = 7;
    for (Pattern pattern : testing::all_patterns) {
        // Odd width, several rows, a padded stride: every edge at once.
        auto img = make_image(format, 333, 67, pattern, ++seed, 12);
        for (const auto& [name, request] : testing::parity_requests(fi))
            expect_same(img.view, request, std::string(testing::pattern_name(pattern)) + ", " + name);
    }
}

TEST_P(BackendParity, AwkwardSizesAndStrides) {
    const PixelFormat format = std::get<1>(GetParam());
    std::uint64_t seed = 100;
    for (const auto& size : testing::awkward_sizes()) {
        for (std::size_t padding : {std::size_t(0), std::size_t(4), std::size_t(100)}) {
            auto img = make_image(format, size.width, size.height, Pattern::specials, ++seed, padding);
            Request r;
            r.count_alpha = true;
            expect_same(img.view, r,
                        std::to_string(size.width) + "x" + std::to_string(size.height) + " +" +
                            std::to_string(padding) + "B");
        }
    }
}

TEST_P(BackendParity, RegionsAndTiles) {
    // A roi whose first pixel is not aligned to anything, tiles with remainders, and both.
    const PixelFormat format = std::get<1>(GetParam());
    auto img = make_image(format, 333, 67, Pattern::specials, 41, 12);
    Request r;
    r.count_alpha = true;
    r.roi = Region{3, 5, 101, 31};
    expect_same(img.view, r, "roi 3,5,101,31");
    r.roi.reset();
    r.tiles = {4, 3};
    expect_same(img.view, r, "tiles 4,3");
    r.roi = Region{1, 1, 330, 60};
    r.tiles = {7, 2};
    r.bins.bins = 100;
    expect_same(img.view, r, "roi 1,1,330,60, tiles 7,2, 100 bins");
}

TEST_P(BackendParity, MasksAndAlpha) {
    // A mask with every byte value, alone and with a roi and tiles; an alpha threshold where the
    // format has alpha (docs/semantics.md, "Masks and alpha").
    const PixelFormat format = std::get<1>(GetParam());
    auto img = make_image(format, 333, 67, Pattern::specials, 43, 12);
    std::vector<std::uint8_t> mask(333 * 67);
    for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = std::uint8_t((i * 2654435761u) >> 24) & 0x83;
    Request r;
    r.count_alpha = true;
    r.mask = ImageView::packed(mask.data(), 333, 67, PixelFormat::gray8);
    expect_same(img.view, r, "mask");
    r.roi = Region{1, 1, 330, 60};
    r.tiles = {7, 2};
    expect_same(img.view, r, "mask, roi 1,1,330,60, tiles 7,2");
    if (format_info(format).alpha < 0) return;
    r.alpha_threshold = format_info(format).is_float() ? 0.25 : 100.0;
    expect_same(img.view, r, "mask, roi, tiles and alpha threshold");
    r = Request{};
    r.mode = Mode::luma;
    r.alpha_threshold = 0.0;
    expect_same(img.view, r, "alpha threshold 0");
}

TEST_P(BackendParity, LargerImage) {
    // Bigger than any work-group tile, with a stride that is not a multiple of 16.
    const PixelFormat format = std::get<1>(GetParam());
    auto img = make_image(format, 1920 + 7, 301, Pattern::random, 99, 4);
    expect_same(img.view, Request{}, "1927x301 random");
}

// Float values around a custom range's edges: the floats just above lo, around the first,
// middle and last inner bin edges and below hi, every kind of special, and denormals.
std::vector<float> values_around(double lo, double hi, std::uint32_t bins) {
    std::vector<float> out;
    const auto walk = [&](float from, int steps) {
        float v = from, w = from;
        for (int i = 0; i < steps; ++i) {
            out.push_back(v);
            out.push_back(w);
            v = std::nextafter(v, INFINITY);
            w = std::nextafter(w, -INFINITY);
        }
    };
    const double width = (hi - lo) / bins;
    walk(float(lo), 300);
    for (double k : {1.0, double(bins / 2), double(bins - 1)}) walk(float(lo + k * width), 100);
    walk(float(hi), 100);
    walk(0.0f, 100);  // denormals of both signs, and both zeros
    for (float s : {std::numeric_limits<float>::quiet_NaN(), INFINITY, -INFINITY, -0.0f, 0.0f, 1.0f,
                    std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                    std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min()})
        out.push_back(s);
    return out;
}

// The same fixture, instantiated for the float formats only (below).
// Grids of thousands of tiles over images larger than a GPU backend's staging chunks, so that
// bands of staged rows cut through rows of tiles (backends that count every tile in one pass
// describe each band as one piece per tile it crosses).
class TileParity : public BackendParity {};

TEST_P(TileParity, LargeGridsAcrossStagingChunks) {
    const PixelFormat format = std::get<1>(GetParam());
    auto img = make_image(format, 1600, 1200, Pattern::specials, 47, 20);
    Request r;
    r.count_alpha = true;
    r.tiles = {61, 37};
    expect_same(img.view, r, "tiles 61,37");
    r.roi = Region{5, 3, 1591, 1190};
    r.tiles = {9, 150};
    r.mode = Mode::luma;
    expect_same(img.view, r, "roi 5,3,1591,1190, tiles 9,150, luminance");
}

// Tiles with a mask or an alpha threshold, which the GPU backends count in one pass over cells
// of each tile's selected pixels padded with zero pixels (src/core/engine.cpp,
// accumulate_tiles_in_cells): a tile with nothing selected, one with everything, ranges where
// the zero padding is below the range or in its first bin, luminance, the value extremes, and
// cells of more bytes than one band holds.
TEST_P(TileParity, MasksAndAlphaThresholdsOverTileGrids) {
    const PixelFormat format = std::get<1>(GetParam());
    const FormatInfo& fi = format_info(format);
    const std::uint32_t w = 900, h = 610;
    auto img = make_image(format, w, h, Pattern::specials, 53, 12);
    std::vector<std::uint8_t> mask(std::size_t(w) * h);
    for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = std::uint8_t((i * 2654435761u >> 13) % 3 == 0 ? 0 : 1 + i % 200);
    const TileGrid grid{7, 5};
    const Region first = tile_region(Region{0, 0, w, h}, grid, 0, 0), second = tile_region(Region{0, 0, w, h}, grid, 1, 0);
    for (std::uint32_t y = 0; y < first.height; ++y) {
        std::fill_n(mask.begin() + std::ptrdiff_t(y) * w + first.x, first.width, std::uint8_t(0));
        std::fill_n(mask.begin() + std::ptrdiff_t(y) * w + second.x, second.width, std::uint8_t(9));
    }
    const auto compare = [&](const Request& r, const std::string& what) {
        expect_same(img.view, r, what);
        if (!r.value_extremes) return;
        const Result got = engine_->compute(img.view, r), want = reference_->compute(img.view, r);
        ASSERT_EQ(got.tiles.size(), want.tiles.size());
        for (std::size_t t = 0; t < want.tiles.size(); ++t)
            for (std::size_t c = 0; c < want.tiles[t].channels.size(); ++c) {
                const ChannelHistogram &g = got.tiles[t].channels[c], &v = want.tiles[t].channels[c];
                EXPECT_TRUE(g.finite_min == v.finite_min && g.finite_max == v.finite_max &&
                            g.positive_infinities == v.positive_infinities && g.negative_infinities == v.negative_infinities)
                    << what << ", tile " << t << ", channel " << c;
            }
    };
    Request r;
    r.count_alpha = true;
    r.mask = ImageView::packed(mask.data(), w, h, PixelFormat::gray8);
    r.tiles = grid;
    compare(r, "mask, tiles 7,5");
    // Zero below the range (16-bit and floats) or in its first bin, with the value extremes.
    r.bins.bins = 50;
    r.bins.range = fi.is_float() ? std::pair{0.125, 0.75} : std::pair{10.0, 200.0};
    r.value_extremes = fi.is_float();
    r.mode = fi.channels >= 3 ? Mode::all : Mode::rgb;
    compare(r, "mask, 50 bins over a range above zero, tiles 7,5");
    r.bins.clamp = true;
    compare(r, "the same, clamped");
    if (fi.alpha >= 0) {
        Request a;
        a.alpha_threshold = fi.is_float() ? 0.25 : (fi.sample == SampleType::u8 ? 100.0 : 20000.0);
        a.mode = Mode::luma;
        a.roi = Region{3, 2, 890, 600};
        a.tiles = {40, 30};
        compare(a, "alpha threshold, roi, tiles 40,30");
        a.mask = r.mask;
        compare(a, "mask and alpha threshold, roi, tiles 40,30");
    }
    // Cells of more than one band (64 MiB) of rows of tiles.
    if (format == PixelFormat::rgba_f32) {
        auto big = make_image(format, 2900, 1500, Pattern::random, 59, 0);
        std::vector<std::uint8_t> big_mask(std::size_t(2900) * 1500);
        for (std::size_t i = 0; i < big_mask.size(); ++i) big_mask[i] = std::uint8_t(i % 7 != 2);
        Request b;
        b.mask = ImageView::packed(big_mask.data(), 2900, 1500, PixelFormat::gray8);
        b.tiles = {3, 4};
        expect_same(big.view, b, "mask, 2900 x 1500 rgba_f32, tiles 3,4");
    }
}

class FloatRangeParity : public BackendParity {};

TEST_P(FloatRangeParity, FloatRangesAtTheAcceptedBounds) {
    // Just inside every bound resolve_layout sets on float ranges (test_float_ranges.cpp):
    // the widest finite offset, the smallest normal scale, and the narrowest bins (scale just
    // under 2^100) at, straddling and just above zero, where denormals are in play.
    const PixelFormat format = std::get<1>(GetParam());
    const FormatInfo& fi = format_info(format);
    const double max = std::numeric_limits<float>::max();
    const double inside = 1 + std::ldexp(1.0, -20);
    struct Edge { std::uint32_t bins; double lo, hi; };
    std::vector<Edge> edges = {{256, -max / 2, max / 2}, {4096, -max, 0}, {2, 0, std::ldexp(1.0, 127)}};
    for (std::uint32_t n : {2u, 4096u}) {
        const double width = n * std::ldexp(1.0, -100) * inside;
        for (double lo : {0.0, -width / 2, std::ldexp(1.0, -126), -std::ldexp(1.0, -110), -std::ldexp(1.0, -140)})
            edges.push_back({n, lo, lo + width});
    }
    for (const Edge& e : edges) {
        std::vector<float> values = values_around(e.lo, e.hi, e.bins);
        std::vector<std::uint16_t> halves;
        if (fi.sample == SampleType::f16) {
            // Half images: the halves nearest the float values, plus every half pattern.
            for (float v : values) halves.push_back(testing::float_to_half(v));
            for (std::uint32_t h = 0; h < 65536; h += 7) halves.push_back(std::uint16_t(h));
        }
        const std::size_t samples = fi.sample == SampleType::f16 ? halves.size() : values.size();
        const auto width = std::uint32_t(samples / fi.channels);
        const void* data = fi.sample == SampleType::f16 ? static_cast<const void*>(halves.data()) : values.data();
        Request r;
        r.bins.bins = e.bins;
        r.bins.range = {{e.lo, e.hi}};
        char what[160];
        std::snprintf(what, sizeof what, "%u bins over [%a, %a)", e.bins, e.lo, e.hi);
        ASSERT_NO_THROW(resolve_layout(fi.sample, r.bins)) << what;
        expect_same(ImageView::packed(data, width, 1, format), r, what);
        r.bins.clamp = true;
        expect_same(ImageView::packed(data, width, 1, format), r, std::string(what) + " clamp");
    }
}

// The same fixture, instantiated for every 8-bit format with colours (below).
class LumaColourCube : public BackendParity {};

TEST_P(LumaColourCube, EveryEightBitColourOnce) {
    // All 2^24 colours once each: every quotient of the exact integer luminance, as a SIMD or
    // GPU path computes it, is checked against the reference.
    const PixelFormat format = std::get<1>(GetParam());
    const FormatInfo& fi = format_info(format);
    std::vector<std::uint8_t> pixels((std::size_t(1) << 24) * fi.pixel_bytes());
    for (std::uint32_t c = 0; c < (1u << 24); ++c) {
        std::uint8_t* px = pixels.data() + std::size_t(c) * fi.pixel_bytes();
        px[fi.red] = std::uint8_t(c);
        px[fi.green] = std::uint8_t(c >> 8);
        px[fi.blue] = std::uint8_t(c >> 16);
        if (fi.alpha >= 0) px[fi.alpha] = std::uint8_t(c * 7);
    }
    const ImageView view = ImageView::packed(pixels.data(), 4096, 4096, format);
    for (LumaWeights w : {LumaWeights::rec709(), LumaWeights::rec601(), LumaWeights{1, 9998, 1}}) {
        Request r;
        r.mode = Mode::luma;
        r.weights = w;
        expect_same(view, r, "all colours, weights " + std::to_string(w.r) + "," + std::to_string(w.g) + "," + std::to_string(w.b));
    }
}

// Every 8-bit format with colours: the layouts whose luminance a SIMD or GPU path computes.
std::vector<PixelFormat> eight_bit_colour_formats() {
    std::vector<PixelFormat> out;
    for (const PixelFormat f : all_pixel_formats)
        if (format_info(f).sample == SampleType::u8 && !format_info(f).is_gray()) out.push_back(f);
    return out;
}

std::vector<std::string> backends_under_test() {
    std::vector<std::string> out;
    for (const Backend* b : backends())
        if (b->name() != "reference") out.emplace_back(b->name());
    return out;
}

INSTANTIATE_TEST_SUITE_P(
    AllBackends, BackendParity,
    ::testing::Combine(::testing::ValuesIn(backends_under_test()), ::testing::ValuesIn(all_pixel_formats)),
    [](const auto& info) {
        return std::get<0>(info.param) + "_" + std::string(format_info(std::get<1>(info.param)).name);
    });

std::vector<PixelFormat> float_formats() {
    std::vector<PixelFormat> out;
    for (PixelFormat f : all_pixel_formats)
        if (format_info(f).is_float()) out.push_back(f);
    return out;
}

INSTANTIATE_TEST_SUITE_P(
    AllBackends, TileParity,
    ::testing::Combine(::testing::ValuesIn(backends_under_test()),
                       ::testing::Values(PixelFormat::gray8, PixelFormat::rgba8, PixelFormat::rgb16,
                                         PixelFormat::gray_f16, PixelFormat::rgba_f32)),
    [](const auto& info) {
        return std::get<0>(info.param) + "_" + std::string(format_info(std::get<1>(info.param)).name);
    });

INSTANTIATE_TEST_SUITE_P(
    AllBackends, FloatRangeParity,
    ::testing::Combine(::testing::ValuesIn(backends_under_test()), ::testing::ValuesIn(float_formats())),
    [](const auto& info) {
        return std::get<0>(info.param) + "_" + std::string(format_info(std::get<1>(info.param)).name);
    });

INSTANTIATE_TEST_SUITE_P(
    AllBackends, LumaColourCube,
    ::testing::Combine(::testing::ValuesIn(backends_under_test()),
                       ::testing::ValuesIn(eight_bit_colour_formats())),
    [](const auto& info) {
        return std::get<0>(info.param) + "_" + std::string(format_info(std::get<1>(info.param)).name);
    });

}  // namespace
}  // namespace imghist
