// Custom ranges at the limits of the bin arithmetic (issue 11, item 7): float ranges whose fp32
// offset or scale overflows, whose scale is not a normal float, or whose bins are so narrow that
// a device flushing denormals to zero would bin differently, are refused by resolve_layout;
// integer ranges whose 64-bit product would wrap likewise. The ranges just inside every bound
// are accepted and counted alike by every backend (test_parity.cpp,
// BackendParity.FloatRangesAtTheAcceptedBounds).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

#include "imghist/imghist.hpp"

namespace imghist {
namespace {

BinSpec spec(std::uint32_t bins, double lo, double hi) {
    BinSpec s;
    s.bins = bins;
    s.range = {{lo, hi}};
    return s;
}

void expect_refused(const BinSpec& s, const char* why) {
    for (SampleType t : {SampleType::f16, SampleType::f32}) {
        try {
            resolve_layout(t, s);
            ADD_FAILURE() << why << ": [" << s.range->first << ", " << s.range->second << ") with " << *s.bins
                          << " bins was accepted";
        } catch (const InvalidArgument& e) {
            EXPECT_NE(std::string(e.what()).find("range"), std::string::npos) << e.what();
        }
    }
}

TEST(FloatRanges, TheReviewReproducersAreRefused) {
    // tests/data/repro/range_ub.cpp and the two .pfm files: scale float(1024 / 1e-36) is +Inf;
    // 3.4e38 - (-3.4e38) is +Inf in fp32.
    expect_refused(spec(1024, 0, 1e-36), "fp32 scale overflows");
    expect_refused(spec(256, -3.4e38, 3.4e38), "fp32 offset overflows");
}

TEST(FloatRanges, OffsetMustStayFinite) {
    // The widest offset a sample in range can have is float(hi) - float(lo).
    const double half_max = double(FLT_MAX) / 2;  // exact: FLT_MAX / 2 + FLT_MAX / 2 = FLT_MAX
    EXPECT_NO_THROW(resolve_layout(SampleType::f32, spec(256, -half_max, half_max)));
    expect_refused(spec(256, -half_max, double(std::nextafter(float(half_max), INFINITY))), "offset overflows");
    expect_refused(spec(4096, -double(FLT_MAX), double(FLT_MAX)), "offset overflows");
}

TEST(FloatRanges, ScaleMustBeANormalFloat) {
    // Two bins over [0, 2^127): scale = 2^-126, the smallest normal float. A wider range makes
    // it denormal, which a GPU may flush to zero (everything in bin 0).
    EXPECT_NO_THROW(resolve_layout(SampleType::f32, spec(2, 0, std::ldexp(1.0, 127))));
    expect_refused(spec(2, 0, std::ldexp(1.0, 127) * (1 + std::ldexp(1.0, -20))), "denormal scale");
    // And one bin over the widest range with a finite offset: scale 1 / FLT_MAX is denormal.
    expect_refused(spec(1, 0, double(FLT_MAX)), "denormal scale");
}

TEST(FloatRanges, BinsMustBeWiderThanTheDenormalZone) {
    // scale must stay below 2^100: narrower bins would put samples whose computation involves
    // a denormal (a denormal offset, sample or lower bound) in a bin >= 1 on a device that keeps
    // denormals and in bin 0 on one that flushes them.
    for (std::uint32_t n : {2u, 4096u}) {
        const double width = n * std::ldexp(1.0, -100);  // scale exactly 2^100
        EXPECT_NO_THROW(resolve_layout(SampleType::f32, spec(n, 0, width * (1 + std::ldexp(1.0, -20)))));
        EXPECT_NO_THROW(resolve_layout(SampleType::f32, spec(n, 1.0, 1.0 + 1e-6)));  // narrow but far from 0
        expect_refused(spec(n, 0, width), "scale 2^100");
        expect_refused(spec(n, -width / 2, width / 2), "scale 2^100 around 0");
    }
    // One bin never depends on the product: k is always 0, only the exact comparisons count.
    EXPECT_NO_THROW(resolve_layout(SampleType::f32, spec(1, 0, std::ldexp(1.0, -120))));
}

TEST(FloatRanges, ScaleIsTheDocumentedSequence) {
    // float(N / (hi - lo)) divided in double, for the closed default rule 256 bins below 1.0.
    EXPECT_EQ(float_bin_scale(resolve_layout(SampleType::f32, {})), 256.0f);
    EXPECT_EQ(float_bin_scale(resolve_layout(SampleType::f32, spec(2, 0, 0.101))), float(2 / 0.101));
}

TEST(FloatRanges, RefusedRangesThroughTheEngine) {
    // The reproducer's pixels: every backend refuses instead of disagreeing.
    const std::vector<float> px = {0.0f, 5e-37f, 9e-37f, 1e-40f, 1e38f, 2e38f, 3.3e38f, -3e38f};
    const ImageView view = ImageView::packed(px.data(), 8, 1, PixelFormat::gray_f32);
    for (const Backend* b : backends()) {
        if (!b->available()) continue;
        auto engine = b->create_engine({});
        for (const BinSpec& s : {spec(1024, 0, 1e-36), spec(256, -3.4e38, 3.4e38)}) {
            Request r;
            r.bins = s;
            EXPECT_THROW(engine->compute(view, r), InvalidArgument) << b->name();
        }
    }
}

TEST(IntegerRanges, ProductMustNotWrapIn64Bits) {
    // k = (v - lo) * N / (hi - lo) in 64 bits: (hi - lo) * N must stay below 2^63.
    EXPECT_NO_THROW(resolve_layout(SampleType::u8, spec(1u << 20, 0, std::ldexp(1.0, 43) - 1)));
    EXPECT_THROW(resolve_layout(SampleType::u8, spec(1u << 20, 0, std::ldexp(1.0, 43))), InvalidArgument);
    EXPECT_THROW(resolve_layout(SampleType::u16, spec(1u << 20, -1e15, 1e15)), InvalidArgument);
    // Just inside: value 0 over [-2^42, 2^42 - 1) lands in the middle bin, exactly.
    const std::uint8_t zero = 0;
    Request r;
    r.bins = spec(1u << 20, -std::ldexp(1.0, 42), std::ldexp(1.0, 42) - 1);
    const Result res = create_engine("reference")->compute(ImageView::packed(&zero, 1, 1, PixelFormat::gray8), r);
    // floor(2^42 * 2^20 / (2^43 - 1)) = 2^19 (2^62 / (2^43 - 1) is just above 2^19).
    EXPECT_EQ(res.channels[0].counts[1u << 19], 1u);
}

}  // namespace
}  // namespace imghist
