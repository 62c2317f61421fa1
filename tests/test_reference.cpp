// The reference backend against expectations derived by hand from docs/semantics.md,
// including regressions for the seed documents' defects.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/plan.hpp"
#include "imghist/imghist.hpp"

namespace imghist {
namespace {

Result run_reference(const ImageView& view, const Request& request = {}) {
    return create_engine("reference")->compute(view, request);
}

ChannelHistogram channel(const Result& r, Channel c) {  // a copy: results are often temporaries
    const ChannelHistogram* h = r.find(c);
    if (h == nullptr) throw std::runtime_error("missing channel " + std::string(channel_name(c)));
    return *h;
}

TEST(Reference, RampOfAll8BitValuesGivesOneCountPerBin) {
    // Seed 14.2 truncated v/255*255 and put some values one bin low.
    std::vector<std::uint8_t> px;
    for (int v = 0; v < 256; ++v) px.insert(px.end(), {std::uint8_t(v), std::uint8_t(v), std::uint8_t(v), 255});
    const Result r = run_reference(ImageView::packed(px.data(), 256, 1, PixelFormat::rgba8));
    for (Channel c : {Channel::R, Channel::G, Channel::B, Channel::Y}) {
        const auto& h = channel(r, c);
        ASSERT_EQ(h.counts.size(), 256u);
        for (int k = 0; k < 256; ++k) EXPECT_EQ(h.counts[k], 1u) << channel_name(c) << " bin " << k;
        EXPECT_EQ(h.nan + h.below + h.above, 0u);
    }
    EXPECT_EQ(r.find(Channel::A), nullptr) << "alpha is counted only when asked for";
}

TEST(Reference, FloatOneLandsInBin256OfEveryChannel) {
    // Seed 14.6's summing kernel never wrote bin 770 (blue at 1.0).
    const float px[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    for (PixelFormat f : {PixelFormat::rgba_f32, PixelFormat::rgb_f32}) {
        const Result r = run_reference(ImageView::packed(px, 1, 1, f), Request{Mode::rgb});
        for (Channel c : {Channel::R, Channel::G, Channel::B}) {
            const auto& h = channel(r, c);
            ASSERT_EQ(h.counts.size(), 257u);
            EXPECT_EQ(h.counts[256], 1u) << channel_name(c);
            EXPECT_EQ(h.above, 0u) << "1.0 is inside the closed range";
        }
    }
    const std::uint16_t half_one[4] = {0x3C00, 0x3C00, 0x3C00, 0x3C00};
    const Result r = run_reference(ImageView::packed(half_one, 1, 1, PixelFormat::rgba_f16));
    EXPECT_EQ(channel(r, Channel::B).counts[256], 1u);
}

TEST(Reference, GreyPixelLandsInLumaBinOfItsValue) {
    for (LumaWeights w : {LumaWeights::rec709(), LumaWeights::rec601(), LumaWeights::rec2020()}) {
        std::vector<std::uint8_t> px8;
        for (int v = 0; v < 256; ++v) px8.insert(px8.end(), {std::uint8_t(v), std::uint8_t(v), std::uint8_t(v)});
        Request req{Mode::luma, w};
        const auto& y8 = channel(run_reference(ImageView::packed(px8.data(), 256, 1, PixelFormat::rgb8), req), Channel::Y);
        for (int k = 0; k < 256; ++k) EXPECT_EQ(y8.counts[k], 1u) << "8-bit grey " << k;

        std::vector<std::uint16_t> px16;
        for (int v = 0; v < 65536; v += 257) px16.insert(px16.end(), {std::uint16_t(v), std::uint16_t(v), std::uint16_t(v)});
        const auto& y16 = channel(run_reference(ImageView::packed(px16.data(), 256, 1, PixelFormat::rgb16), req), Channel::Y);
        for (int k = 0; k < 256; ++k) EXPECT_EQ(y16.counts[k], 1u) << "16-bit grey " << k * 257;
    }
}

TEST(Reference, FloatSpecialsAndOutOfRange) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    // One gray_f32 pixel per case: value, expected bin (-1: none), below, above.
    struct Case { float v; int bin; int below; int above; };
    const Case cases[] = {
        {nan, -1, 0, 0},  {2.0f, 256, 0, 1},   {inf, 256, 0, 1},  {-1.0f, 0, 1, 0},
        {-inf, 0, 1, 0},  {-0.0f, 0, 0, 0},    {0.0f, 0, 0, 0},   {1.0f, 256, 0, 0},
        {0.5f, 128, 0, 0}, {std::nextafter(0.5f, 0.0f), 127, 0, 0},
        {std::nextafter(1.0f, 0.0f), 255, 0, 0}, {std::nextafter(1.0f, 2.0f), 256, 0, 1},
        {std::numeric_limits<float>::denorm_min(), 0, 0, 0},
        {-std::numeric_limits<float>::denorm_min(), 0, 1, 0},
        {1.0f / 256.0f, 1, 0, 0},
    };
    for (const Case& c : cases) {
        const auto& h = channel(run_reference(ImageView::packed(&c.v, 1, 1, PixelFormat::gray_f32)), Channel::gray);
        SCOPED_TRACE(c.v);
        EXPECT_EQ(h.nan, c.bin < 0 ? 1u : 0u);
        EXPECT_EQ(h.below, std::uint64_t(c.below));
        EXPECT_EQ(h.above, std::uint64_t(c.above));
        for (int k = 0; k < 257; ++k) EXPECT_EQ(h.counts[k], k == c.bin ? 1u : 0u) << "bin " << k;
    }
}

TEST(Reference, SixteenBitBinsByShift) {
    const std::uint16_t px[3] = {0x1234, 0xFFFF, 0x00FF};
    const auto& h = channel(run_reference(ImageView::packed(px, 3, 1, PixelFormat::gray16)), Channel::gray);
    EXPECT_EQ(h.counts[0x12], 1u);
    EXPECT_EQ(h.counts[0xFF], 1u);
    EXPECT_EQ(h.counts[0x00], 1u);
    Request r;
    r.bins.bins = 4096;
    const auto& h12 = channel(run_reference(ImageView::packed(px, 3, 1, PixelFormat::gray16), r), Channel::gray);
    EXPECT_EQ(h12.counts[0x123], 1u);
    EXPECT_EQ(h12.counts[0xFFF], 1u);
    EXPECT_EQ(h12.counts[0x00F], 1u);
}

TEST(Reference, CustomIntegerBinsAreExactAndHalfOpen) {
    // 3 bins over [0, 256): k = floor(v * 3 / 256). 85*3 = 255 -> 0; 86*3 = 258 -> 1;
    // 171*3 = 513 -> 2; 170*3 = 510 -> 1.
    const std::uint8_t px[4] = {85, 86, 170, 171};
    Request r;
    r.bins.bins = 3;
    const auto& h = channel(run_reference(ImageView::packed(px, 4, 1, PixelFormat::gray8), r), Channel::gray);
    EXPECT_EQ(h.counts, (std::vector<std::uint64_t>{1, 2, 1}));
    // [10, 20): 9 is below, 20 is above; neither binned without clamp.
    const std::uint8_t px2[4] = {9, 10, 19, 20};
    r.bins.bins = 2;
    r.bins.range = {{10, 20}};
    const auto& h2 = channel(run_reference(ImageView::packed(px2, 4, 1, PixelFormat::gray8), r), Channel::gray);
    EXPECT_EQ(h2.counts, (std::vector<std::uint64_t>{1, 1}));
    EXPECT_EQ(h2.below, 1u);
    EXPECT_EQ(h2.above, 1u);
    r.bins.clamp = true;
    const auto& h3 = channel(run_reference(ImageView::packed(px2, 4, 1, PixelFormat::gray8), r), Channel::gray);
    EXPECT_EQ(h3.counts, (std::vector<std::uint64_t>{2, 2}));
    EXPECT_EQ(h3.below, 1u);
    EXPECT_EQ(h3.above, 1u);
}

TEST(Reference, CustomFloatBinsFollowTheSpecifiedSequence) {
    // 10 bins over [0, 1): scale = float(10 / 1.0) = 10; 0.1f * 10 rounds to exactly 1.0f.
    const float px[5] = {0.1f, 0.09999999f, 0.99999994f, 1.0f, -0.0f};
    Request r;
    r.bins.bins = 10;
    const auto& h = channel(run_reference(ImageView::packed(px, 5, 1, PixelFormat::gray_f32), r), Channel::gray);
    EXPECT_EQ(h.counts, (std::vector<std::uint64_t>{2, 1, 0, 0, 0, 0, 0, 0, 0, 1}));
    EXPECT_EQ(h.above, 1u) << "1.0 is outside [0, 1)";
    EXPECT_EQ(h.below, 0u) << "-0 is not below 0";
}

TEST(Reference, EveryHalfWidensExactly) {
    // IEEE half by its definition, with ldexp: (-1)^s * 2^(e - 15) * (1 + m / 1024), or
    // m * 2^-24 for subnormals. Every one of the 65536 patterns.
    for (std::uint32_t h = 0; h < 65536; ++h) {
        const std::uint32_t sign = h >> 15, exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
        const float got = half_to_float(std::uint16_t(h));
        if (exponent == 0x1F) {
            if (mantissa == 0) EXPECT_TRUE(std::isinf(got) && std::signbit(got) == bool(sign)) << h;
            else EXPECT_TRUE(std::isnan(got)) << h;
            continue;
        }
        const double magnitude = exponent == 0 ? std::ldexp(double(mantissa), -24)
                                               : std::ldexp(1.0 + mantissa / 1024.0, int(exponent) - 15);
        const float want = float(sign ? -magnitude : magnitude);
        EXPECT_EQ(std::memcmp(&got, &want, 4), 0) << "half 0x" << std::hex << h << ": got " << got << ", want " << want;
    }
}

TEST(Reference, CustomFloatScaleIsDividedInDouble) {
    // 2 bins over [0, 0.101): scale = float(2 / 0.101) = 19.801981f (double division, rounded
    // once). A float division, 2.0f / float(0.101), would give 19.8019791f instead. For
    // x = 0x3d4ed916 (0.050499998f), x * 19.801981f = 1.0000000x lands in bin 1, while
    // x * 19.8019791f < 1 would put it in bin 0.
    const std::uint32_t bits = 0x3d4ed916u;
    float x;
    std::memcpy(&x, &bits, 4);
    Request r;
    r.bins.bins = 2;
    r.bins.range = {{0.0, 0.101}};
    const auto& h = channel(run_reference(ImageView::packed(&x, 1, 1, PixelFormat::gray_f32), r), Channel::gray);
    EXPECT_EQ(h.counts, (std::vector<std::uint64_t>{0, 1}));
}

TEST(Reference, IntegerLumaIsExact) {
    // Rec. 709: (2126*10 + 7152*20 + 722*30) / 10000 = 18.186 -> 18.
    const std::uint8_t px[3] = {10, 20, 30};
    const auto& y = channel(run_reference(ImageView::packed(px, 1, 1, PixelFormat::rgb8), Request{Mode::luma}), Channel::Y);
    EXPECT_EQ(y.counts[18], 1u);
    // Weights 3333,3334,3333: (0,0,3) gives S = 9999, one short of the next bin, so it must stay
    // in bin 0; (0,0,4) gives 13332 -> 1. (Rec. 709 sums of 8-bit values are always even and
    // never end in 9999, so this needs odd weights.)
    const std::uint8_t edge[6] = {0, 0, 3, 0, 0, 4};
    Request odd{Mode::luma, LumaWeights{3333, 3334, 3333}};
    const auto& ye = channel(run_reference(ImageView::packed(edge, 2, 1, PixelFormat::rgb8), odd), Channel::Y);
    EXPECT_EQ(ye.counts[0], 1u);
    EXPECT_EQ(ye.counts[1], 1u);
    // BGRA: bytes are B, G, R, A.
    const std::uint8_t bgra[4] = {30, 20, 10, 0};
    const Result r = run_reference(ImageView::packed(bgra, 1, 1, PixelFormat::bgra8));
    EXPECT_EQ(channel(r, Channel::R).counts[10], 1u);
    EXPECT_EQ(channel(r, Channel::B).counts[30], 1u);
    EXPECT_EQ(channel(r, Channel::Y).counts[18], 1u);
}

TEST(Reference, GrayImagesGiveOneGrayChannel) {
    const std::uint8_t px[2] = {3, 250};
    for (Mode m : {Mode::rgb, Mode::luma, Mode::all}) {
        const Result r = run_reference(ImageView::packed(px, 2, 1, PixelFormat::gray8), Request{m});
        ASSERT_EQ(r.channels.size(), 1u);
        EXPECT_EQ(r.channels[0].channel, Channel::gray);
        EXPECT_EQ(r.channels[0].counts[3] + r.channels[0].counts[250], 2u);
    }
}

TEST(Reference, AlphaCountedOnlyWhenAsked) {
    const std::uint8_t px[8] = {1, 2, 3, 200, 4, 5, 6, 201};
    Request r;
    r.count_alpha = true;
    const Result res = run_reference(ImageView::packed(px, 2, 1, PixelFormat::rgba8), r);
    const auto& a = channel(res, Channel::A);
    EXPECT_EQ(a.counts[200], 1u);
    EXPECT_EQ(a.counts[201], 1u);
}

TEST(Reference, StridePaddingIsNeverRead) {
    // Two rows of 1 pixel with 3 padding bytes holding 77.
    const std::uint8_t px[8] = {5, 77, 77, 77, 6, 77, 77, 77};
    const ImageView v{px, 1, 2, 4, PixelFormat::gray8};
    const auto& h = channel(run_reference(v), Channel::gray);
    EXPECT_EQ(h.counts[5], 1u);
    EXPECT_EQ(h.counts[6], 1u);
    EXPECT_EQ(h.counts[77], 0u);
}

}  // namespace
}  // namespace imghist

// ih_luma8_quotient takes floor(S / 10000) from fp32 without a division (the contract,
// src/contract/luminance.h, has the proof); here it is checked against ih_luma_int's integer
// division for every sum an 8-bit pixel can have, whatever the weights.
namespace imghist {
namespace {

TEST(Luma8Quotient, EqualsTheIntegerDivisionForEverySum) {
    std::uint32_t wrong = 0, first_wrong = 0;
    for (std::uint32_t s = 0; s <= IH_LUMA8_MAX_SUM; ++s) {
        // ih_luma_int with weights (1, 0, 0) and r = s is the contract's division of s itself.
        if (ih_luma8_quotient(s) != ih_luma_int(s, 0, 0, 1, 0, 0)) {
            if (wrong++ == 0) first_wrong = s;
        }
    }
    EXPECT_EQ(wrong, 0u) << "first wrong sum: " << first_wrong;
    // And through ih_luma_int with weights that reach the largest sums and the exact multiples.
    for (std::uint32_t v : {0u, 1u, 127u, 128u, 254u, 255u}) {
        EXPECT_EQ(ih_luma8_quotient(IH_LUMA_WEIGHT_SUM * v), ih_luma_int(v, v, v, 2126, 7152, 722));
        EXPECT_EQ(ih_luma8_quotient(3333u * v + 3334u * v + 3333u * v), ih_luma_int(v, v, v, 3333, 3334, 3333));
    }
}

}  // namespace
}  // namespace imghist

// The table kernels take colour positions from FormatInfo: every 8-bit format, whatever its
// order, has one (none falls back to the slower direct path), in both orders of sub-histograms
// (cpu_kernel.hpp, IdentityApartMap): random data takes one, images whose neighbours repeat the
// other, so that the parity suite's random and natural patterns test both.
#include "backends/cpu/cpu_kernels.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

TEST(CpuKernels, EveryEightBitFormatHasATableKernelInEachOrder) {
    for (const PixelFormat f : all_pixel_formats) {
        if (format_info(f).sample != SampleType::u8) continue;
        const auto random = testing::make_image(f, 333, 67, testing::Pattern::random, 5, 12);
        const auto natural = testing::make_image(f, 333, 67, testing::Pattern::natural, 5, 12);
        for (const Mode mode : {Mode::rgb, Mode::luma, Mode::all}) {
            Request request;
            request.mode = mode;
            const HistogramPlan plan(f, request);
            const std::string what = std::string(format_info(f).name) + " " + std::string(mode_name(mode));
            // Luminance alone of colour pixels has one order; every sample channel, two.
            const bool luma_alone = mode == Mode::luma && plan.info.channels > 1;
            EXPECT_FALSE(cpu::neighbours_repeat(random.view, plan)) << what;
            EXPECT_EQ(cpu::neighbours_repeat(natural.view, plan), !luma_alone) << what;
            cpu::Tables tables(plan.info.sample, plan.layout, false);
            cpu::build_tables(tables, cpu::Classifier{plan, nullptr}, true, plan.has_luma());
            const cpu::ChannelSet cs = cpu::channel_set(plan);
            EXPECT_TRUE(cs.ok) << what;
            const cpu::KernelFn for_random = cpu::pick_kernel(plan, tables, cs, random.view);
            const cpu::KernelFn for_natural = cpu::pick_kernel(plan, tables, cs, natural.view);
            EXPECT_NE(for_random, nullptr) << what;
            EXPECT_NE(for_natural, nullptr) << what;
            if (luma_alone) EXPECT_EQ(for_random, for_natural) << what;
            else EXPECT_NE(for_random, for_natural) << what;
        }
    }
}

}  // namespace
}  // namespace imghist
