// The contract's pieces that the backends share (src/contract/) and the boundary types around
// them: the kernel-argument struct carries a plan losslessly, the format table says what
// docs/semantics.md says, device images are validated like views, value types compare.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "contract/contract.h"
#include "core/backend_engine.hpp"
#include "core/plan.hpp"
#include "imghist/imghist.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

// Every dialect lays the struct out as 24 consecutive 32-bit words: OpenCL passes it as one
// argument and Vulkan embeds it in its push constants, so a padding byte would shift fields.
static_assert(sizeof(ih_bin_args) == 96 && std::is_standard_layout_v<ih_bin_args> &&
              std::is_trivially_copyable_v<ih_bin_args>);

std::vector<Request> requests_with_odd_ranges(const FormatInfo& info) {
    std::vector<Request> out;
    for (const auto& [name, request] : testing::parity_requests(info)) out.push_back(request);
    Request negative;  // integer range ends below zero and past 2^32 need all 64 bits
    negative.bins.bins = 7;
    negative.bins.range = info.is_float() ? std::pair{-3.5, 2.25} : std::pair{-5000000000.0, 70000.0};
    out.push_back(negative);
    negative.bins.clamp = true;
    out.push_back(negative);
    return out;
}

// Values that reach every branch of classify: the whole 8-bit range, a 16-bit sweep, float
// specials and range ends.
std::vector<std::uint32_t> integer_probes() {
    std::vector<std::uint32_t> v;
    for (std::uint32_t x = 0; x < 65536; x += 97) v.push_back(x);
    for (std::uint32_t x : {0u, 1u, 254u, 255u, 256u, 65534u, 65535u}) v.push_back(x);
    return v;
}
std::vector<float> float_probes() {
    std::vector<float> v = {0.0f, -0.0f, 1.0f, -3.5f, 2.25f, 0.5f, 1e-40f, -1e-40f, INFINITY, -INFINITY, NAN};
    for (int k = -600; k <= 600; ++k) v.push_back(float(k) / 256.0f);
    return v;
}

TEST(Contract, BinArgsClassifyExactlyAsThePlan) {
    for (PixelFormat format : testing::plan_pixel_formats()) {
        const FormatInfo& fi = format_info(format);
        for (const Request& request : requests_with_odd_ranges(fi)) {
            const HistogramPlan plan(format, request);
            const ih_bin_args args = plan.bin_args();
            ASSERT_EQ(args.channels, plan.channels.size());
            for (std::size_t c = 0; c < plan.channels.size(); ++c) {
                const int src = plan.sources[c];
                EXPECT_EQ(ih_args_source(args, std::uint32_t(c)),
                          src == kLumaSource ? IH_SRC_LUMA : std::uint32_t(src)) << fi.name;
            }
            EXPECT_EQ(int(ih_args_red(args)), fi.red) << fi.name;
            EXPECT_EQ(int(ih_args_green(args)), fi.green) << fi.name;
            EXPECT_EQ(int(ih_args_blue(args)), fi.blue) << fi.name;
            if (fi.is_float()) {
                for (float v : float_probes())
                    ASSERT_EQ(ih_args_classify_float(v, args, plan.edge_keys.data()), plan.classify_float(v)) << fi.name << " " << v;
            } else {
                for (std::uint32_t v : integer_probes())
                    ASSERT_EQ(ih_args_classify_int(v, args, plan.edge_keys.data()), plan.classify_int(v)) << fi.name << " " << v;
            }
        }
    }
}

// HistogramPlan::with_layout (the cpu backend's plan of raw 8-bit values) is the plan that a
// request with that layout makes, every field alike, from any plan of the same channels: also
// from edge and clamped plans back to uniform ones, whose keys and flags must not linger.
TEST(Contract, PlanWithAnotherLayoutIsThePlanOfThatRequest) {
    for (PixelFormat format : testing::plan_pixel_formats()) {
        const FormatInfo& fi = format_info(format);
        const std::vector<Request> requests = requests_with_odd_ranges(fi);
        for (const Request& from : requests) {
            const HistogramPlan plan(format, from);
            for (Request to : requests) {
                to.mode = from.mode;
                to.count_alpha = from.count_alpha;
                to.weights = from.weights;
                const HistogramPlan want(format, to);
                EXPECT_TRUE(plan.with_layout(want.layout) == want) << fi.name;
            }
        }
    }
}

TEST(Contract, BinArgsOfAPassNameItsOwnChannels) {
    Request request;
    request.count_alpha = true;
    const HistogramPlan plan(PixelFormat::bgra8, request);  // R G B A Y
    ASSERT_EQ(plan.channels.size(), 5u);
    const ih_bin_args pass = plan.bin_args(3, 2);
    EXPECT_EQ(pass.channels, 2u);
    EXPECT_EQ(ih_args_source(pass, 0), 3u);  // alpha is sample 3 of BGRA
    EXPECT_EQ(ih_args_source(pass, 1), IH_SRC_LUMA);
    EXPECT_THROW(plan.bin_args(4, 2), Error);
}

// Where docs/semantics.md puts each colour, stated here independently of formats.h.
TEST(Contract, FormatTableMatchesTheDocumentedLayouts) {
    struct Expected {
        PixelFormat format;
        SampleType sample;
        int samples, red, green, blue, alpha;
    };
    const Expected table[] = {
        {PixelFormat::gray8, SampleType::u8, 1, 0, 0, 0, -1},
        {PixelFormat::rgb8, SampleType::u8, 3, 0, 1, 2, -1},
        {PixelFormat::rgba8, SampleType::u8, 4, 0, 1, 2, 3},
        {PixelFormat::bgra8, SampleType::u8, 4, 2, 1, 0, 3},
        {PixelFormat::rgb16, SampleType::u16, 3, 0, 1, 2, -1},
        {PixelFormat::rgba_f16, SampleType::f16, 4, 0, 1, 2, 3},
        {PixelFormat::gray_f32, SampleType::f32, 1, 0, 0, 0, -1},
    };
    for (const Expected& e : table) {
        const FormatInfo& fi = format_info(e.format);
        EXPECT_EQ(fi.sample, e.sample) << fi.name;
        EXPECT_EQ(fi.channels, e.samples) << fi.name;
        EXPECT_EQ(fi.red, e.red) << fi.name;
        EXPECT_EQ(fi.green, e.green) << fi.name;
        EXPECT_EQ(fi.blue, e.blue) << fi.name;
        EXPECT_EQ(fi.alpha, e.alpha) << fi.name;
    }
    for (PixelFormat f : all_pixel_formats) EXPECT_EQ(parse_pixel_format(format_info(f).name), f);
}

TEST(Contract, ValueSwizzleIsItsOwnInverseAndSpreadsBanks) {
    for (std::uint32_t v = 0; v < IH_VALUE_SLOTS; ++v) {
        ASSERT_LT(ih_value_swizzle(v), IH_VALUE_SLOTS);
        ASSERT_EQ(ih_value_swizzle(ih_value_swizzle(v)), v);
    }
    // The slot form is the same permutation within each channel, whose bits it leaves alone.
    for (std::uint32_t s = 0; s < 8 * IH_VALUE_SLOTS; ++s) {
        const std::uint32_t channel = s / IH_VALUE_SLOTS, value = s % IH_VALUE_SLOTS;
        ASSERT_EQ(ih_value_slot_swizzle(s), channel * IH_VALUE_SLOTS + ih_value_swizzle(value)) << s;
        ASSERT_EQ(ih_value_slot_swizzle(ih_value_slot_swizzle(s)), s);
    }
    // b, b + 32, ..., b + 224 share a bank unswizzled (mod 32); swizzled they use 8 banks.
    for (std::uint32_t b = 0; b < 32; ++b) {
        std::uint32_t banks = 0;
        for (std::uint32_t k = 0; k < 8; ++k) banks |= 1u << (ih_value_swizzle(b + 32 * k) % 32);
        EXPECT_EQ(std::popcount(banks), 8) << b;
    }
}

TEST(Contract, SixteenBitCodesRoundTrip) {
    for (std::uint32_t slot = 0; slot < (1u << 14); slot += 7)
        for (std::uint32_t extra : {0u, IH_EXTRA_BELOW, IH_EXTRA_ABOVE}) {
            const std::uint32_t code = slot | extra;
            ASSERT_EQ(ih_code_from_16(ih_code_to_16(code)), code);
            ASSERT_NE(ih_code_to_16(code), IH_CODE16_UNRESOLVED);
        }
}

TEST(Contract, EightBitLumaQuotientIsTheDivision) {
    for (std::uint32_t s = 0; s <= IH_LUMA8_MAX_SUM; ++s)
        ASSERT_EQ(ih_luma8_quotient(s), s / 10000u) << s;
}

TEST(DeviceImage, IsValidatedLikeAView) {
    DeviceImage ok{0x1000, 0, 16, 4, 0, PixelFormat::rgba8};
    EXPECT_NO_THROW(ok.validate());
    EXPECT_EQ(ok.pitch(), 64u);
    EXPECT_EQ(ok.extent_bytes(), 256u);
    DeviceImage null_memory = ok;
    null_memory.memory = 0;
    EXPECT_THROW(null_memory.validate(), InvalidArgument);
    DeviceImage empty = ok;
    empty.height = 0;
    EXPECT_THROW(empty.validate(), InvalidArgument);
    DeviceImage short_stride = ok;
    short_stride.stride_bytes = 63;
    EXPECT_THROW(short_stride.validate(), InvalidArgument);
    DeviceImage misaligned{0x1000, 1, 16, 4, 0, PixelFormat::rgba16};
    EXPECT_THROW(misaligned.validate(), InvalidArgument);
    misaligned.offset_bytes = 2;
    EXPECT_NO_THROW(misaligned.validate());
    // A backend without device images says so instead of reading host memory.
    auto cpu = create_engine("cpu");
    std::vector<std::uint64_t> slots;
    const HistogramPlan plan(PixelFormat::rgba8, {});
    slots.resize(plan.total_slots());
    EXPECT_THROW(slot_counter(*cpu).accumulate_device(ok, plan, slots), InvalidArgument);
}

TEST(ValueTypes, CompareEveryField) {
    const Request base;
    EXPECT_EQ(base, Request{});
    Request r = base;
    r.mode = Mode::luma;
    EXPECT_NE(r, base);
    r = base;
    r.weights = LumaWeights::rec601();
    EXPECT_NE(r, base);
    r = base;
    r.bins.bins = 128;
    EXPECT_NE(r, base);
    r = base;
    r.bins.range = std::pair{0.0, 128.0};
    EXPECT_NE(r, base);
    r = base;
    r.bins.clamp = true;
    EXPECT_NE(r, base);
    r = base;
    r.count_alpha = true;
    EXPECT_NE(r, base);
    // Plans compare whole: caches keyed by a plan see every field of the request.
    EXPECT_EQ(HistogramPlan(PixelFormat::rgb8, base), HistogramPlan(PixelFormat::rgb8, base));
    r = base;
    r.weights = LumaWeights::rec601();
    EXPECT_NE(HistogramPlan(PixelFormat::rgb8, r), HistogramPlan(PixelFormat::rgb8, base));
    EXPECT_NE(HistogramPlan(PixelFormat::rgb8, base), HistogramPlan(PixelFormat::bgra8, base));
    // Results compare with ==, and engines' options too.
    const testing::TestImage img = testing::make_image(PixelFormat::rgba8, 33, 7, testing::Pattern::random);
    auto engine = create_engine("reference");
    EXPECT_EQ(engine->compute(img.view), engine->compute(img.view));
    EXPECT_NE(engine->compute(img.view), engine->compute(img.view, r));
    EXPECT_EQ(EngineOptions{}, EngineOptions{});
}

}  // namespace
}  // namespace imghist
