// BinSpec::closed_top (docs/semantics.md, "Closed top"): numpy.histogram's closed last bin as
// edge bins, resolved per sample type. Hand-derived cases on the reference backend; the Python
// tests (python/tests/test_closed_top.py) compare every backend with numpy.histogram itself.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "imghist/imghist.hpp"

namespace imghist {
namespace {

BinSpec closed(std::uint32_t bins, double lo, double hi) {
    return {.bins = bins, .range = std::pair{lo, hi}, .closed_top = true};
}

TEST(ClosedTop, IntegerTopHoldsTheTopValueItself) {
    std::vector<std::uint8_t> pixels(256);
    for (int v = 0; v < 256; ++v) pixels[v] = std::uint8_t(v);
    Request request;
    request.bins = closed(10, 0, 255);
    const Result r = create_engine("reference")->compute({pixels.data(), 256, 1, 256, PixelFormat::gray8}, request);
    const ChannelHistogram& c = r.channels.at(0);
    // Edges 0, 25.5, 51, ..., 229.5, 255: bin k holds ceil(25.5 k) .. ceil(25.5 (k + 1)) - 1, the
    // last 230 .. 255 (numpy's 26, 25, 26, 25, ...: 255 is in the last bin, none above).
    EXPECT_EQ(c.counts, (std::vector<std::uint64_t>{26, 25, 26, 25, 26, 25, 26, 25, 26, 26}));
    EXPECT_EQ(c.above, 0u);
    EXPECT_EQ(c.layout.edges.back(), 256.0);  // the next integer above 255
    EXPECT_FALSE(c.layout.closed_top);        // the default float rule's flag keeps its meaning
}

TEST(ClosedTop, FloatTopIsTheNextFp32AboveIt) {
    const BinLayout f32 = resolve_layout(SampleType::f32, closed(10, 0, 1));
    EXPECT_EQ(f32.edges.back(), double(std::nextafter(1.0f, 2.0f)));
    EXPECT_EQ(f32.edges[3], double(float(3 * 0.1)));  // numpy's float32 edge: 3 * step in double, to fp32
}

TEST(ClosedTop, HalfSamplesGetHalfEdgesAsNumpyMakesThem) {
    // 0.1 is 0x2E66 in half, 1638.4 * 2^-14 rounded: 0.0999755859375.
    const BinLayout f16 = resolve_layout(SampleType::f16, closed(10, 0, 1));
    EXPECT_EQ(f16.edges[1], 0.0999755859375);
    EXPECT_EQ(f16.edges.back(), double(std::nextafter(1.0f, 2.0f)));
}

TEST(ClosedTop, NeedsARangeOrEdgesAndAtMost4096Bins) {
    BinSpec no_range;
    no_range.closed_top = true;
    EXPECT_THROW(resolve_layout(SampleType::u8, no_range), InvalidArgument);
    EXPECT_THROW(resolve_layout(SampleType::u8, closed(4097, 0, 255)), InvalidArgument);
    BinSpec edges;
    edges.edges = {0, 10, 20};
    edges.closed_top = true;
    EXPECT_EQ(resolve_layout(SampleType::u16, edges).edges, (std::vector<double>{0, 10, 21}));
}

}  // namespace
}  // namespace imghist
