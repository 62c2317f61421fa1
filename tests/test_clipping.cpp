// Clipping is the extreme VALUES (issue 11, item 9): 0 and 255 for 8-bit, 0 and 65535 for
// 16-bit, <= 0 and >= 1 for half and float, counted exactly whatever the bins. Every backend is
// checked against a count made here from the pixels themselves, independently of the library's
// bin math, and the shares against those counts over the non-NaN samples.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/backend_engine.hpp"
#include "core/plan.hpp"
#include "imghist/imghist.hpp"
#include "histogram_asserts.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

using testing::make_image;
using testing::Pattern;

// A half's value from its definition (not the library's widening).
double half_value(std::uint16_t h) {
    const int sign = h >> 15, exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
    double m;
    if (exponent == 0x1F) m = mantissa ? std::numeric_limits<double>::quiet_NaN() : INFINITY;
    else if (exponent == 0) m = std::ldexp(double(mantissa), -24);
    else m = std::ldexp(1.0 + mantissa / 1024.0, exponent - 15);
    return sign ? -m : m;
}

// One sample of a pixel as a double (exact for every format).
double sample_at(const ImageView& v, std::uint32_t x, std::uint32_t y, int s) {
    const FormatInfo& fi = v.info();
    if (fi.packed) return testing::packed_sample_by_hand(v, x, y, s);
    const auto* p = static_cast<const std::byte*>(v.data) + y * v.stride_bytes + std::size_t(x) * fi.pixel_bytes() +
                    std::size_t(s) * fi.bytes_per_sample;
    switch (fi.sample) {
        case SampleType::u8: return double(std::to_integer<std::uint8_t>(*p));
        case SampleType::u16: { std::uint16_t u; std::memcpy(&u, p, 2); return u; }
        case SampleType::f16: { std::uint16_t u; std::memcpy(&u, p, 2); return half_value(u); }
        case SampleType::f32: { float f; std::memcpy(&f, p, 4); return f; }
    }
    return 0;
}

struct Extremes {
    std::uint64_t low = 0, high = 0, samples = 0;
};

// The extremes of one channel, counted from the pixels: the luminance by the contract's own
// formula (exact integers; fp32 with every operation rounded, this file has no contraction).
Extremes count_extremes(const ImageView& v, Channel channel, const LumaWeights& w) {
    const FormatInfo& fi = v.info();
    const bool integer = !fi.is_float();
    const double max = fi.sample == SampleType::u8 ? 255 : 65535;
    Extremes e;
    for (std::uint32_t y = 0; y < v.height; ++y)
        for (std::uint32_t x = 0; x < v.width; ++x) {
            double value;
            switch (channel) {
                case Channel::R: value = sample_at(v, x, y, fi.red); break;
                case Channel::G: value = sample_at(v, x, y, fi.green); break;
                case Channel::B: value = sample_at(v, x, y, fi.blue); break;
                case Channel::A: value = sample_at(v, x, y, fi.alpha); break;
                case Channel::gray: value = sample_at(v, x, y, 0); break;
                case Channel::Y: {
                    const double r = sample_at(v, x, y, fi.red), g = sample_at(v, x, y, fi.green),
                                 b = sample_at(v, x, y, fi.blue);
                    if (integer) {
                        value = double((std::uint64_t(w.r) * std::uint64_t(r) + std::uint64_t(w.g) * std::uint64_t(g) +
                                        std::uint64_t(w.b) * std::uint64_t(b)) / 10000);
                    } else {
                        const float wr = float(w.r / 10000.0), wg = float(w.g / 10000.0), wb = float(w.b / 10000.0);
                        const float pr = wr * float(r), pg = wg * float(g), pb = wb * float(b);
                        const float s = pr + pg;
                        value = s + pb;
                    }
                    break;
                }
            }
            if (std::isnan(value)) continue;
            ++e.samples;
            if (integer ? value == 0 : value <= 0) ++e.low;
            if (integer ? value == max : value >= 1) ++e.high;
        }
    return e;
}

void expect_exact_clipping(const Result& r, const ImageView& view, const Request& request, const std::string& what) {
    for (const ChannelHistogram& h : r.channels) {
        SCOPED_TRACE(what + ", channel " + std::string(channel_name(h.channel)));
        const Extremes want = count_extremes(view, h.channel, request.weights);
        ASSERT_TRUE(h.clipped_low_count.has_value());
        ASSERT_TRUE(h.clipped_high_count.has_value());
        EXPECT_EQ(*h.clipped_low_count, want.low);
        EXPECT_EQ(*h.clipped_high_count, want.high);
        EXPECT_EQ(h.samples(), want.samples);
        const ChannelStats s = h.stats();
        EXPECT_EQ(s.samples, want.samples);
        if (want.samples == 0) {
            EXPECT_FALSE(s.clipped_low.has_value());
            EXPECT_FALSE(s.clipped_high.has_value());
            continue;
        }
        ASSERT_TRUE(s.clipped_low && s.clipped_high);
        EXPECT_EQ(*s.clipped_low, double(want.low) / double(want.samples));
        EXPECT_EQ(*s.clipped_high, double(want.high) / double(want.samples));
    }
}

TEST(Clipping, ExactOnEveryBackendFormatPatternAndRequest) {
    // Every available backend (test_parity.cpp's RequiredBackends fails where a required one is not).
    for (const Backend* b : backends()) {
        if (!b->available()) continue;
        auto engine = b->create_engine({});
        std::uint64_t seed = 300;
        for (PixelFormat format : all_pixel_formats) {
            const FormatInfo& fi = format_info(format);
            for (Pattern pattern : testing::all_patterns) {
                auto img = make_image(format, 97, 13, pattern, ++seed, 8);
                for (const auto& [name, request] : testing::parity_requests(fi)) {
                    const std::string what = std::string(b->name()) + ", " + std::string(fi.name) + ", " +
                                             testing::pattern_name(pattern) + ", " + name;
                    expect_exact_clipping(engine->compute(img.view, request), img.view, request, what);
                }
            }
        }
    }
}

TEST(Clipping, SixteenBitNearTheTopIsNotClipped) {
    // The review's case: every sample 65300 (bin 255 of 256) used to report 100% clipped high.
    std::vector<std::uint16_t> px(64, 65300);
    px[5] = 65535;
    px[6] = 0;
    px[7] = 255;  // bin 0, but not value 0
    const ImageView view = ImageView::packed(px.data(), 8, 8, PixelFormat::gray16);
    for (const Backend* b : backends()) {
        if (!b->available()) continue;
        const ChannelHistogram h = b->create_engine({})->compute(view).channels[0];
        EXPECT_EQ(h.clipped_low_count, std::optional<std::uint64_t>(1)) << b->name();
        EXPECT_EQ(h.clipped_high_count, std::optional<std::uint64_t>(1)) << b->name();
        EXPECT_EQ(h.stats().clipped_high, std::optional<double>(1.0 / 64)) << b->name();
    }
}

TEST(Clipping, FloatExtremesIncludeSignedZeroInfinitiesAndNothingForNaN) {
    const float inf = std::numeric_limits<float>::infinity();
    const float px[] = {-0.0f, 0.0f, -inf, -1e-40f, 1e-40f, 0.5f, 1.0f, inf, 7.0f,
                        std::nextafter(1.0f, 0.0f), std::numeric_limits<float>::quiet_NaN()};
    const ImageView view = ImageView::packed(px, std::uint32_t(std::size(px)), 1, PixelFormat::gray_f32);
    Request narrow;  // a custom range that bins none of the extremes
    narrow.bins.bins = 3;
    narrow.bins.range = {{0.25, 0.75}};
    for (const Request& r : {Request{}, narrow})
        for (const Backend* b : backends()) {
            if (!b->available()) continue;
            const ChannelHistogram h = b->create_engine({})->compute(view, r).channels[0];
            EXPECT_EQ(h.clipped_low_count, std::optional<std::uint64_t>(4)) << b->name() << ": -0, 0, -inf, -1e-40";
            EXPECT_EQ(h.clipped_high_count, std::optional<std::uint64_t>(3)) << b->name() << ": 1, inf, 7";
            EXPECT_EQ(h.samples(), 10u) << b->name();
        }
}

// What the main histogram already proves, so that the common layouts need no second pass over
// the pixels, and what it does not (the plan's read-off, used by every path that makes a Result).
Result from_plan_alone(const ImageView& view, const Request& request = {}) {
    const HistogramPlan plan(view.format, request);
    std::vector<std::uint64_t> slots(plan.total_slots(), 0);
    slot_counter(*create_engine("reference")).accumulate(view, plan, slots);
    return plan.make_result(view, slots, "reference", "test");
}

TEST(Clipping, ReadOffTheHistogramWhereItProvesTheCount) {
    auto rgba8 = make_image(PixelFormat::rgba8, 64, 9, Pattern::specials, 4);
    for (const ChannelHistogram& h : from_plan_alone(rgba8.view).channels) {
        EXPECT_TRUE(h.clipped_low_count && h.clipped_high_count) << "8-bit default: bins 0 and 255 are the extremes";
    }
    auto f32 = make_image(PixelFormat::rgba_f32, 64, 9, Pattern::natural, 4);
    for (const ChannelHistogram& h : from_plan_alone(f32.view).channels)
        EXPECT_TRUE(h.clipped_high_count.has_value()) << "float default: bin 256 is exactly v >= 1";
    // 16-bit default: bins 0 and 255 hold 256 values each. Empty end bins prove zero counts.
    std::vector<std::uint16_t> mid(16, 30000);
    const Result r16 = from_plan_alone(ImageView::packed(mid.data(), 16, 1, PixelFormat::gray16));
    EXPECT_EQ(r16.channels[0].clipped_low_count, std::optional<std::uint64_t>(0));
    EXPECT_EQ(r16.channels[0].clipped_high_count, std::optional<std::uint64_t>(0));
    mid[3] = 65300;
    const Result unknown = from_plan_alone(ImageView::packed(mid.data(), 16, 1, PixelFormat::gray16));
    EXPECT_EQ(unknown.channels[0].clipped_low_count, std::optional<std::uint64_t>(0));
    EXPECT_FALSE(unknown.channels[0].clipped_high_count.has_value()) << "65300 or 65535: the bins cannot tell";
    EXPECT_FALSE(unknown.channels[0].stats().clipped_high.has_value()) << "never the bin share under the name";
    // A range that leaves value 0 alone below it: the below counter is the exact count.
    Request from_one;
    from_one.bins.range = {{1, 65536}};
    const Result below = from_plan_alone(ImageView::packed(mid.data(), 16, 1, PixelFormat::gray16), from_one);
    EXPECT_EQ(below.channels[0].clipped_low_count, std::optional<std::uint64_t>(0));
}

// HistogramPlan::proven_extremes (the CUDA backend skips its second staged pass of a selection
// with it): all channels or nothing, and where it answers, the clipping plan's pass agrees.
TEST(Clipping, ProvenExtremesAreAllOrNothingAndExact) {
    auto engine = create_engine("reference");
    SlotCounter& reference = slot_counter(*engine);
    int proven = 0, unproven = 0;
    std::uint64_t seed = 40;
    for (PixelFormat format : testing::plan_pixel_formats()) {
        const FormatInfo& fi = format_info(format);
        for (Pattern pattern : {Pattern::random, Pattern::natural, Pattern::constant, Pattern::specials}) {
            auto img = make_image(format, 67, 23, pattern, ++seed);
            for (const auto& [name, request] : testing::parity_requests(fi)) {
                const std::string what = std::string(fi.name) + ", " + testing::pattern_name(pattern) + ", " + name;
                const HistogramPlan plan(format, request);
                const HistogramPlan clipping(format, HistogramPlan::clipping_request(fi.sample, request));
                std::vector<std::uint64_t> slots(plan.total_slots(), 0), clipping_slots(clipping.total_slots(), 0);
                reference.accumulate(img.view, plan, slots);
                reference.accumulate(img.view, clipping, clipping_slots);
                std::vector<std::uint64_t> want(2 * plan.channels.size()), got(want.size(), 12345);
                clipping.extremes_of(clipping_slots, want);
                if (plan.proven_extremes(slots, got)) {
                    ++proven;
                    EXPECT_EQ(got, want) << what;
                } else {
                    ++unproven;
                    EXPECT_EQ(got, std::vector<std::uint64_t>(want.size(), 12345)) << what << ": untouched";
                    bool some_channel_unproven = false;
                    for (std::size_t c = 0; c < plan.channels.size(); ++c) {
                        const auto [low, high] = plan.clipping_proven_by(slots.data() + c * plan.slots_per_channel());
                        some_channel_unproven = some_channel_unproven || !low || !high;
                    }
                    EXPECT_TRUE(some_channel_unproven) << what;
                }
            }
        }
    }
    EXPECT_GT(proven, 50);
    EXPECT_GT(unproven, 50);
}

TEST(Clipping, MergeAddsKnownCountsAndKeepsUnknownUnknown) {
    std::vector<std::uint16_t> a(4, 65535), b(4, 0);
    b[0] = 65300;
    const ImageView va = ImageView::packed(a.data(), 4, 1, PixelFormat::gray16);
    const ImageView vb = ImageView::packed(b.data(), 4, 1, PixelFormat::gray16);
    auto engine = create_engine("reference");
    Result sum = engine->compute(va);
    sum.merge(engine->compute(vb));
    EXPECT_EQ(sum.channels[0].clipped_low_count, std::optional<std::uint64_t>(3));
    EXPECT_EQ(sum.channels[0].clipped_high_count, std::optional<std::uint64_t>(4));
    // From the plan alone, vb's end bins hold values besides the extremes: both unknown.
    Result partial = engine->compute(va);
    partial.merge(from_plan_alone(vb));
    EXPECT_FALSE(partial.channels[0].clipped_low_count.has_value());
    EXPECT_FALSE(partial.channels[0].clipped_high_count.has_value());
}

// The cpu backend counts the extremes in its main pass (accumulate_with_extremes): on images big
// enough for its 65536-entry tables and for several threads, with odd widths and padded rows.
TEST(Clipping, CpuCountsTheExtremesInItsMainPassOnEveryPath) {
    EngineOptions three_threads;
    three_threads.threads = 3;
    auto cpu = create_engine("cpu", three_threads);
    auto reference = create_engine("reference");
    std::uint64_t seed = 900;
    for (PixelFormat format : testing::plan_pixel_formats()) {
        const FormatInfo& fi = format_info(format);
        for (Pattern pattern : {Pattern::random, Pattern::constant, Pattern::specials}) {
            auto img = make_image(format, 331, 401, pattern, ++seed, 8);
            for (const auto& [name, request] : testing::parity_requests(fi)) {
                const std::string what =
                    std::string(fi.name) + ", " + testing::pattern_name(pattern) + ", " + name;
                const Result got = cpu->compute(img.view, request);
                expect_exact_clipping(got, img.view, request, what);
                testing::expect_same_histograms(got, reference->compute(img.view, request), what);
                // Not the second pass: the cpu backend answers accumulate_with_extremes itself.
                const HistogramPlan plan(format, request);
                const HistogramPlan clipping(format, HistogramPlan::clipping_request(fi.sample, request));
                std::vector<std::uint64_t> slots(plan.total_slots(), 0), extremes(2 * plan.channels.size(), 0);
                ASSERT_TRUE(slot_counter(*cpu).accumulate_with_extremes(img.view, plan, clipping, slots, extremes)) << what;
                for (std::size_t c = 0; c < got.channels.size(); ++c) {
                    EXPECT_EQ(extremes[2 * c], got.channels[c].clipped_low_count) << what;
                    EXPECT_EQ(extremes[2 * c + 1], got.channels[c].clipped_high_count) << what;
                }
            }
        }
    }
}

// Constant images AT the extreme values (and, for floats, -0 and the smallest denormal beside
// them): every sample on the extremes' own table slots, runs of equal luminance included.
TEST(Clipping, ConstantImagesAtTheExtremes) {
    auto cpu = create_engine("cpu");
    const std::uint32_t width = 257, height = 130;
    for (PixelFormat format : testing::plan_pixel_formats()) {
        const FormatInfo& fi = format_info(format);
        const std::size_t bytes = fi.bytes_per_sample;
        std::vector<std::vector<std::byte>> values;  // one sample's bytes
        const auto add = [&](auto v) {
            std::vector<std::byte> b(bytes);
            std::memcpy(b.data(), &v, bytes);
            values.push_back(b);
        };
        switch (fi.sample) {
            case SampleType::u8: add(std::uint8_t(0)); add(std::uint8_t(255)); add(std::uint8_t(1)); break;
            case SampleType::u16: add(std::uint16_t(0)); add(std::uint16_t(65535)); add(std::uint16_t(65534)); break;
            case SampleType::f16:
                for (std::uint16_t h : {0x0000, 0x8000, 0x0001, 0x3C00, 0x3BFF, 0x7C00}) add(h);
                break;
            case SampleType::f32:
                for (float f : {0.0f, -0.0f, std::numeric_limits<float>::denorm_min(), 1.0f,
                                std::nextafter(1.0f, 0.0f), -1e-40f})
                    add(f);
                break;
        }
        for (const auto& value : values) {
            const std::size_t stride = width * fi.pixel_bytes() + 12;
            std::vector<std::byte> storage(stride * height);
            for (std::size_t at = 0; at + bytes <= storage.size(); at += bytes)
                std::memcpy(storage.data() + at, value.data(), bytes);
            ImageView view{storage.data(), width, height, stride, format};
            for (const auto& [name, request] : testing::parity_requests(fi))
                expect_exact_clipping(cpu->compute(view, request), view, request,
                                      std::string(fi.name) + ", " + name);
        }
    }
}

}  // namespace
}  // namespace imghist
