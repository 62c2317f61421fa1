// Value extremes (docs/semantics.md, "Value extremes"): the finite min and max and the +-Inf
// counts of half and float channels, worked by hand, against this test's own plain evaluation
// on every backend (with regions, tiles and masks), merged, and absent where they should be.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "contract/half.h"
#include "contract/luminance.h"
#include "core/cpu_isa.hpp"
#include "imghist/imghist.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

using testing::make_image;
using testing::Pattern;

std::vector<std::string> available_backends() { return testing::available_backend_names(); }

// This test's own evaluation: plain float comparisons over the finite values.
struct Expected {
    std::optional<float> min, max;
    std::uint64_t positive_infinities = 0, negative_infinities = 0;
    void add(float v) {
        if (std::isnan(v)) return;
        if (std::isinf(v)) {
            ++(v > 0 ? positive_infinities : negative_infinities);
            return;
        }
        if (v == 0) v = 0;  // -0 counts as 0
        if (!min || v < *min) min = v;
        if (!max || v > *max) max = v;
    }
};

float sample(const ImageView& view, std::uint32_t x, std::uint32_t y, int index) {
    const FormatInfo& fi = view.info();
    const std::byte* p = view.row(y) + std::size_t(x) * fi.pixel_bytes() + std::size_t(index) * fi.bytes_per_sample;
    if (fi.sample == SampleType::f16) {
        std::uint16_t h;
        std::memcpy(&h, p, 2);
        float f;
        const std::uint32_t bits = ih_half_to_float_bits(h);
        std::memcpy(&f, &bits, 4);
        return f;
    }
    float f;
    std::memcpy(&f, p, 4);
    return f;
}

// Expected extremes of each channel of `request` over `region` of `view`, where `keep` says so.
template <class Keep>
std::vector<Expected> expected(const ImageView& view, const Request& request, const Region& region, const Keep& keep) {
    const FormatInfo& fi = view.info();
    const std::vector<Channel> channels = channels_for(view.format, request);
    std::vector<Expected> out(channels.size());
    const LumaWeights& w = request.weights;
    const float wr = float(w.r / 10000.0), wg = float(w.g / 10000.0), wb = float(w.b / 10000.0);
    for (std::uint32_t y = region.y; y < region.y + region.height; ++y)
        for (std::uint32_t x = region.x; x < region.x + region.width; ++x) {
            if (!keep(x, y)) continue;
            for (std::size_t c = 0; c < channels.size(); ++c) {
                float v = 0;
                switch (channels[c]) {
                    case Channel::R: v = sample(view, x, y, fi.red); break;
                    case Channel::G: v = sample(view, x, y, fi.green); break;
                    case Channel::B: v = sample(view, x, y, fi.blue); break;
                    case Channel::A: v = sample(view, x, y, fi.alpha); break;
                    case Channel::gray: v = sample(view, x, y, 0); break;
                    case Channel::Y:
                        v = ih_luma_float(sample(view, x, y, fi.red), sample(view, x, y, fi.green),
                                          sample(view, x, y, fi.blue), wr, wg, wb);
                        break;
                }
                out[c].add(v);
            }
        }
    return out;
}

void expect_extremes(const std::vector<ChannelHistogram>& got, const std::vector<Expected>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t c = 0; c < got.size(); ++c) {
        SCOPED_TRACE(what + ", channel " + std::string(channel_name(got[c].channel)));
        ASSERT_TRUE(got[c].positive_infinities.has_value());
        EXPECT_EQ(got[c].positive_infinities, want[c].positive_infinities);
        EXPECT_EQ(got[c].negative_infinities, want[c].negative_infinities);
        ASSERT_EQ(got[c].finite_min.has_value(), want[c].min.has_value());
        if (!want[c].min) continue;
        EXPECT_EQ(*got[c].finite_min, double(*want[c].min));
        EXPECT_EQ(*got[c].finite_max, double(*want[c].max));
        EXPECT_FALSE(std::signbit(*got[c].finite_min) && *got[c].finite_min == 0) << "-0 is reported as 0";
    }
}

TEST(ValueExtremes, WorkedByHand) {
    // gray_f32 6 x 1: NaN, +Inf, -Inf, -0, the smallest denormal, 37.5. Finite: -0 (as 0) to 37.5.
    const float px[] = {NAN, INFINITY, -INFINITY, -0.0f, std::numeric_limits<float>::denorm_min(), 37.5f};
    Request r;
    r.value_extremes = true;
    for (const std::string& name : available_backends()) {
        const Result got = create_engine(name)->compute(ImageView::packed(px, 6, 1, PixelFormat::gray_f32), r);
        const ChannelHistogram& g = got.channels.at(0);
        EXPECT_EQ(g.finite_min, 0.0) << name;
        EXPECT_FALSE(std::signbit(*g.finite_min)) << name;
        EXPECT_EQ(g.finite_max, 37.5) << name;
        EXPECT_EQ(g.positive_infinities, 1u) << name;
        EXPECT_EQ(g.negative_infinities, 1u) << name;
        // Without a zero the denormal is the smallest.
        const float px2[] = {std::numeric_limits<float>::denorm_min(), -2.5f, 1e30f};
        const Result got2 = create_engine(name)->compute(ImageView::packed(px2, 3, 1, PixelFormat::gray_f32), r);
        EXPECT_EQ(got2.channels[0].finite_min, -2.5) << name;
        EXPECT_EQ(got2.channels[0].finite_max, double(1e30f)) << name;
        EXPECT_EQ(got2.channels[0].positive_infinities, 0u) << name;
    }
}

TEST(ValueExtremes, NotAskedForOrNotFloatLeavesThemUnknown) {
    const auto f = make_image(PixelFormat::rgba_f32, 40, 9, Pattern::specials, 3);
    const auto i = make_image(PixelFormat::rgba16, 40, 9, Pattern::specials, 3);
    Request asked;
    asked.value_extremes = true;
    const auto engine = create_engine("cpu");
    for (const ChannelHistogram& c : engine->compute(f.view, Request{}).channels)
        EXPECT_FALSE(c.positive_infinities || c.finite_min || c.finite_max || c.negative_infinities);
    for (const ChannelHistogram& c : engine->compute(i.view, asked).channels)
        EXPECT_FALSE(c.positive_infinities || c.finite_min || c.finite_max || c.negative_infinities);
}

TEST(ValueExtremes, AllNanHasNoFiniteValue) {
    const std::vector<float> px(4 * 10, NAN);
    Request r;
    r.value_extremes = true;
    const Result got = create_engine("cpu")->compute(ImageView::packed(px.data(), 10, 1, PixelFormat::rgba_f32), r);
    for (const ChannelHistogram& c : got.channels) {
        EXPECT_FALSE(c.finite_min || c.finite_max);
        EXPECT_EQ(c.positive_infinities, 0u);
        EXPECT_EQ(c.negative_infinities, 0u);
    }
}

class FloatFormats : public ::testing::TestWithParam<PixelFormat> {};

TEST_P(FloatFormats, EveryBackendFindsThePlainEvaluation) {
    const PixelFormat format = GetParam();
    const auto img = make_image(format, 333, 67, Pattern::specials, 29, 12);
    const ImageView& v = img.view;
    std::vector<std::uint8_t> mask(333 * 67);
    for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = (i * 2654435761u >> 20) & 1;
    const auto all = [](std::uint32_t, std::uint32_t) { return true; };
    const auto masked = [&](std::uint32_t x, std::uint32_t y) { return mask[std::size_t(y) * 333 + x] != 0; };
    Request r;
    r.value_extremes = true;
    r.count_alpha = true;
    for (const std::string& name : available_backends()) {
        const auto engine = create_engine(name);
        expect_extremes(engine->compute(v, r).channels, expected(v, r, {0, 0, 333, 67}, all), name);
        Request tiled = r;
        tiled.roi = Region{5, 3, 300, 60};
        tiled.tiles = {3, 2};
        tiled.mask = ImageView::packed(mask.data(), 333, 67, PixelFormat::gray8);
        const Result got = engine->compute(v, tiled);
        expect_extremes(got.channels, expected(v, tiled, *tiled.roi, masked), name + ", roi and mask");
        for (const TileHistogram& t : got.tiles)
            expect_extremes(t.channels, expected(v, tiled, t.region, masked), name + ", a tile");
        Request luma;
        luma.value_extremes = true;
        luma.mode = Mode::luma;
        luma.weights = LumaWeights::rec2020();
        if (!v.info().is_gray())
            expect_extremes(engine->compute(v, luma).channels, expected(v, luma, {0, 0, 333, 67}, all), name + ", Y");
    }
}

INSTANTIATE_TEST_SUITE_P(Formats, FloatFormats,
                         ::testing::Values(PixelFormat::gray_f16, PixelFormat::rgb_f16, PixelFormat::rgba_f16,
                                           PixelFormat::gray_f32, PixelFormat::rgb_f32, PixelFormat::rgba_f32),
                         [](const auto& info) { return std::string(format_info(info.param).name); });

// Rows long enough for the vector blocks of the host pass (24 samples a block), one channel
// at a time made adversarial: channel 0 of every pixel is -0 or a positive value (so the min is
// 0, reported as +0), channel 1 holds more +Inf than -Inf, channel 2 NaN, channel 3 denormals
// and the largest finite halves of both signs; for 1, 3 and 4 samples a pixel, float and half.
TEST(ValueExtremes, LongRowsOfSpecialValues) {
    // Each special as (float bits, half bits).
    struct Special {
        std::uint32_t f32;
        std::uint16_t f16;
    };
    const Special negative_zero{0x80000000u, 0x8000}, pos_inf{0x7F800000u, 0x7C00}, neg_inf{0xFF800000u, 0xFC00},
        nan{0x7FC00000u, 0x7E00}, tiny{0x33800000u, 0x0001} /* 2^-24 */, neg_tiny{0xB3800000u, 0x8001},
        largest{0x477FE000u, 0x7BFF} /* 65504 */, neg_largest{0xC77FE000u, 0xFBFF};
    for (const PixelFormat format : {PixelFormat::gray_f32, PixelFormat::rgb_f32, PixelFormat::rgba_f32,
                                     PixelFormat::rgba_f16, PixelFormat::gray_f16}) {
        const FormatInfo& fi = format_info(format);
        const std::uint32_t w = 1001, h = 3, samples = std::uint32_t(fi.channels);
        const bool half = fi.sample == SampleType::f16;
        std::vector<std::uint32_t> f32(std::size_t(w) * h * samples);
        std::vector<std::uint16_t> f16(f32.size());
        std::uint32_t state = 99;
        for (std::size_t i = 0; i < f32.size(); ++i) {
            const std::uint32_t c = std::uint32_t(i % samples);
            const std::uint32_t r = state = state * 1664525u + 1013904223u;
            // A positive finite value: a half's bits below 65504, and its float.
            Special v{0, std::uint16_t(1 + (r >> 8) % 0x7BFE)};
            v.f32 = ih_half_to_float_bits(v.f16);
            if (c == 0 && r % 3 == 0) v = negative_zero;
            if (c == 1 % samples && r % 17 == 0) v = pos_inf;
            if (c == 1 % samples && r % 41 == 0) v = neg_inf;
            if (c == 2 % samples && r % 5 == 0) v = nan;
            if (c == 3 % samples && r % 7 == 0) v = (r & 1024) ? tiny : neg_largest;
            if (c == 3 % samples && r % 11 == 0) v = (r & 2048) ? largest : neg_tiny;
            f32[i] = v.f32;
            f16[i] = v.f16;
        }
        const ImageView view = half ? ImageView::packed(f16.data(), w, h, format) : ImageView::packed(f32.data(), w, h, format);
        Request r;
        r.count_alpha = true;
        r.value_extremes = true;
        const auto all = [](std::uint32_t, std::uint32_t) { return true; };
        const auto want = expected(view, r, {0, 0, w, h}, all);
        for (const std::string& name : available_backends())
            expect_extremes(create_engine(name)->compute(view, r).channels, want, name + ", " + std::string(fi.name));
        // The blocks at each level this CPU has (AVX2 with F16C's widening; the portable blocks
        // and the half table below it).
        for (const cpu::Isa level : {cpu::Isa::avx2, cpu::Isa::sse2}) {
            if (level > cpu::best_isa()) continue;
            cpu::force_isa(level);
            expect_extremes(create_engine("cpu")->compute(view, r).channels, want,
                            std::string("cpu at ") + cpu::isa_name(level) + ", " + std::string(fi.name));
            cpu::force_isa(std::nullopt);
        }
    }
}

// `cpu` finds the luminance's extremes from the luminance its kernels count (Kernel::block hands
// each block's values over). One pixel holds the smallest luminance, one the largest and one
// an infinite one, moved over the image's first and last pixels, a row's end, a block's
// boundary and the last piece a worker takes, with one to three threads: a block whose values
// were not handed over, or handed over twice where it matters (the infinities), is caught.
TEST(ValueExtremes, LuminanceFromTheCountReachesEveryPixel) {
    const std::uint32_t w = 1031, h = 517;
    const std::uint64_t n = std::uint64_t(w) * h;
    const std::uint64_t places[][3] = {{0, n - 1, 256}, {n - 1, 0, w - 1}, {w - 1, 2 * w, n - 300},
                                       {255, 257, n / 2}, {n - 16385, n - 20000, 1}};
    for (const PixelFormat format : {PixelFormat::rgba_f32, PixelFormat::rgba_f16}) {
        const bool half = format_info(format).sample == SampleType::f16;
        for (const auto& place : places) {
            std::vector<float> f32(n * 4);
            for (std::uint64_t i = 0; i < n; ++i)
                for (int c = 0; c < 4; ++c) f32[i * 4 + c] = 0.25f + float((i * 7 + std::uint64_t(c) * 13) % 97) / 400.0f;
            for (int c = 0; c < 3; ++c) {
                f32[place[0] * 4 + std::uint64_t(c)] = -5.0f;   // the smallest luminance
                f32[place[1] * 4 + std::uint64_t(c)] = 1000.0f; // the largest
            }
            f32[place[2] * 4] = INFINITY;  // an infinite luminance
            std::vector<std::uint16_t> f16(f32.size());
            for (std::size_t i = 0; i < f32.size(); ++i) f16[i] = testing::float_to_half(f32[i]);
            const ImageView view = half ? ImageView::packed(f16.data(), w, h, format) : ImageView::packed(f32.data(), w, h, format);
            for (const Mode mode : {Mode::luma, Mode::all}) {
                Request r;
                r.mode = mode;
                r.value_extremes = true;
                const auto want = expected(view, r, {0, 0, w, h}, [](std::uint32_t, std::uint32_t) { return true; });
                for (unsigned threads = 1; threads <= 3; ++threads) {
                    EngineOptions options;
                    options.threads = threads;
                    expect_extremes(create_engine("cpu", options)->compute(view, r).channels, want,
                                    std::string(format_info(format).name) + ", " + std::to_string(threads) +
                                        " threads, extremes at " + std::to_string(place[0]) + "/" +
                                        std::to_string(place[1]) + "/" + std::to_string(place[2]));
                }
            }
        }
    }
}

TEST(ValueExtremes, MergeTakesTheOuterValuesAndAddsTheInfinities) {
    const float a[] = {1.0f, INFINITY, 3.0f}, b[] = {-2.0f, -INFINITY, 0.5f}, none[] = {NAN};
    Request r;
    r.value_extremes = true;
    const auto engine = create_engine("cpu");
    Result sum = engine->compute(ImageView::packed(a, 3, 1, PixelFormat::gray_f32), r);
    sum.merge(engine->compute(ImageView::packed(b, 3, 1, PixelFormat::gray_f32), r));
    sum.merge(engine->compute(ImageView::packed(none, 1, 1, PixelFormat::gray_f32), r));  // no finite value
    EXPECT_EQ(sum.channels[0].finite_min, -2.0);
    EXPECT_EQ(sum.channels[0].finite_max, 3.0);
    EXPECT_EQ(sum.channels[0].positive_infinities, 1u);
    EXPECT_EQ(sum.channels[0].negative_infinities, 1u);
    // Unknown on one side: unknown in the sum.
    sum.merge(engine->compute(ImageView::packed(a, 3, 1, PixelFormat::gray_f32), Request{}));
    EXPECT_FALSE(sum.channels[0].finite_min || sum.channels[0].positive_infinities);
}

}  // namespace
}  // namespace imghist
