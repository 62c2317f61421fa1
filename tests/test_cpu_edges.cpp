// The cpu backend's code window for edge bins of non-negative floats (EV bins): Tables'
// float_window and window_keys (src/backends/cpu/cpu_tables.cpp) as WindowMap reads them
// (cpu_kernel.hpp), checked entry by entry against the plan's classify function, and whole counts
// against the reference backend, bit for bit.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "backends/cpu/cpu_kernel.hpp"
#include "histogram_asserts.hpp"
#include "imghist/imghist.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

struct EdgeSet {
    std::string name;
    std::vector<double> edges;
    bool window;  // whether the tables must have a code window
};

std::vector<EdgeSet> edge_sets() {
    const double largest = std::numeric_limits<float>::max();
    return {
        {"ev -8:0:32", ev_edges(-8, 0, 32), true},
        {"ev -8:0:512 (4096 bins)", ev_edges(-8, 0, 512), true},
        {"ev 2:12:16", ev_edges(2, 12, 16), true},
        // Up to the largest float: the window's padding blocks hold +Inf and NaNs, which it must
        // leave to the two levels.
        {"1e30 .. largest float", {1e30, 1e33, 1e36, largest}, true},
        {"negative first edge", {-1.0, 0.0, 0.25, 1.0}, false},
        {"0 .. 1 by 1/256 (too many stops)", [] {
             std::vector<double> e;
             for (int k = 0; k <= 256; ++k) e.push_back(k / 256.0);
             return e;
         }(), false},
    };
}

// The slot the kernels count a float in, by the window, then (outside it or where it misses)
// the two levels; kFallback where they classify it directly. Half images' luminance reads the
// window in front of float_lut.
std::uint32_t window_slot(const cpu::Tables& tb, std::uint32_t bits) {
    cpu::WindowMap m;
    m.lut = tb.sample == SampleType::f16 ? tb.float_lut.data() : tb.sample_lut.data();
    m.sub = tb.float_sub.data();
    m.window = tb.float_window.data();
    m.keys = tb.window_keys.data();
    m.shift = tb.window.shift;
    m.first = tb.window.first;
    m.entries = tb.window.entries;
    return m(bits);
}

// Every entry of the window, at its block's first, middle and last floats, and every edge with
// its neighbours, against the slot of the plan's own code (and extreme, where counted).
TEST(CpuTables, CodeWindowGivesEveryFloatTheSlotOfItsCode) {
    for (const EdgeSet& set : edge_sets()) {
      for (const PixelFormat format : {PixelFormat::rgba_f32, PixelFormat::rgba_f16}) {
        for (const bool clamp : {false, true}) {
            for (const bool extremes : {false, true}) {
                SCOPED_TRACE(set.name + " " + std::string(format_info(format).name) + (clamp ? " clamp" : "") +
                             (extremes ? " extremes" : ""));
                const SampleType sample = format_info(format).sample;
                Request r;
                r.mode = Mode::all;
                r.bins.edges = set.edges;
                r.bins.clamp = clamp;
                const HistogramPlan plan(format, r);
                const HistogramPlan clipping(format, HistogramPlan::clipping_request(sample, r));
                const cpu::Classifier cl{plan, extremes ? &clipping : nullptr};
                cpu::Tables tb(sample, plan.layout, extremes);
                cpu::build_tables(tb, cl, true, true);
                ASSERT_EQ(!tb.float_window.empty(), set.window);
                if (!set.window) continue;
                cpu::SlotMap slots = tb.slots;  // slot() may add to it: a copy
                std::uint64_t checked = 0, resolved = 0, edge_blocks = 0;
                const auto check = [&](std::uint32_t bits) {
                    const std::uint32_t got = window_slot(tb, bits);
                    if (got == cpu::kFallback) return;  // classified directly, as the reference does
                    const float v = std::bit_cast<float>(bits);
                    ASSERT_EQ(got, slots.slot(cl.of_float(v))) << "bits " << std::hex << bits;
                    ++checked;
                };
                const std::uint32_t low_mask = (1u << tb.window.shift) - 1;
                for (std::uint32_t i = 0; i < tb.window.entries; ++i) {
                    const std::uint32_t first = (tb.window.first + i) << tb.window.shift;
                    for (const std::uint32_t bits : {first, first + low_mask / 2, first | low_mask}) check(bits);
                    if (tb.float_window[i] != cpu::kWindowMiss) ++resolved;
                    if (tb.float_window[i] != cpu::kWindowMiss && tb.float_window[i] % 2 == 1) ++edge_blocks;
                }
                for (const std::uint32_t key : plan.edge_keys) {
                    const std::uint32_t bits = ih_float_bits_of_key(key);
                    for (const std::uint32_t b : {bits - 1, bits, bits + 1}) check(b);
                }
                // Most blocks resolve in the window, and blocks that hold an edge are among them.
                EXPECT_GT(resolved, std::uint64_t(tb.window.entries) * 9 / 10);
                EXPECT_GE(edge_blocks, (plan.bins() - 1) / 2);  // edges on a block start hold none
                EXPECT_GT(checked, 2u * tb.window.entries);
            }
        }
      }
    }
}

// The whole count on images of every edge, its neighbours, every block start of the window's
// shifts and specials (testing::values_around_edges), big enough for the 65536-entry tables:
// the same as the reference, for R, G, B; luminance; and R, G, B, A with luminance and the
// value extremes.
TEST(CpuEdges, FloatEdgeBinsThroughTheCodeWindowMatchTheReference) {
    auto reference = create_engine("reference");
    auto cpu = create_engine("cpu");
    for (const EdgeSet& set : edge_sets()) {
        const testing::TestImage img = testing::values_around_edges(set.edges);
        for (const bool clamp : {false, true}) {
            for (const Mode mode : {Mode::rgb, Mode::luma, Mode::all}) {
                Request r;
                r.bins.edges = set.edges;
                r.bins.clamp = clamp;
                r.mode = mode;
                r.count_alpha = mode == Mode::all;
                r.value_extremes = mode == Mode::all;
                testing::expect_same_histograms(cpu->compute(img.view, r), reference->compute(img.view, r),
                                                set.name + (clamp ? " clamp" : "") + " mode " +
                                                    std::string(mode_name(mode)));
            }
        }
    }
}

// Luminance of half images in edge bins (the window in front of float_lut), on random halves
// in [0, 1], natural ones and every bit pattern (luminance across the whole range, specials
// included), of three and four samples.
TEST(CpuEdges, HalfLuminanceThroughTheCodeWindowMatchesTheReference) {
    auto reference = create_engine("reference");
    auto cpu = create_engine("cpu");
    for (const PixelFormat format : {PixelFormat::rgba_f16, PixelFormat::rgb_f16}) {
        for (const testing::Pattern pattern :
             {testing::Pattern::random, testing::Pattern::natural, testing::Pattern::specials}) {
            const testing::TestImage img = testing::make_image(format, 160, 120, pattern, 7);
            for (const EdgeSet& set : edge_sets()) {
                for (const Mode mode : {Mode::luma, Mode::all}) {
                    Request r;
                    r.bins.edges = set.edges;
                    r.mode = mode;
                    testing::expect_same_histograms(cpu->compute(img.view, r), reference->compute(img.view, r),
                                                    set.name + " " + std::string(format_info(format).name) +
                                                        " mode " + std::string(mode_name(mode)));
                }
            }
        }
    }
}

// Many bins far above the clipping range: with the float rule's clipping at [0, 1] and 62720
// bins over [191, 26991), every bin's code is a clipping extreme's, so the tables number tens of
// thousands of (code, extreme) pairs (tests/data/repro/cpu_float_many_bins_slow_64x64.rgba_f32;
// its request is fuzz/seeds/api/cpu_float_many_bins_slow). Each pair has one slot of its own,
// the same every time it is met, and the count matches the reference.
TEST(CpuTables, ManyBinsAboveTheClippingRangeNumberEveryPairOnce) {
    Request r;
    r.bins.bins = 62720;
    r.bins.range = {{191.0, 26991.0}};
    const HistogramPlan plan(PixelFormat::rgba_f32, r);
    const HistogramPlan clipping(PixelFormat::rgba_f32, HistogramPlan::clipping_request(SampleType::f32, r));
    const cpu::Classifier cl{plan, &clipping};
    cpu::Tables tb(SampleType::f32, plan.layout, true);
    cpu::build_tables(tb, cl, true, false);
    ASSERT_GT(tb.slots.width(), plan.bins() + IH_EXTRA_SLOTS + 1000) << "the case numbers many pairs";
    cpu::SlotMap slots = tb.slots;  // slot() may add to it: a copy
    std::vector<std::uint32_t> owner;   // extra slot -> its code
    for (std::uint32_t k = 0; k < plan.bins(); k += 3) {
        const float v = 191.0f + (float(k) + 0.5f) * (26800.0f / 62720.0f);
        const cpu::Classified c = cl.of_float(v);
        const std::uint32_t s = slots.slot(c);
        ASSERT_EQ(slots.slot(c), s) << "the same pair, the same slot (value " << v << ")";
        if (s < plan.bins() + IH_EXTRA_SLOTS) continue;
        const std::uint32_t extra = s - plan.bins() - IH_EXTRA_SLOTS;
        if (owner.size() <= extra) owner.resize(extra + 1, std::numeric_limits<std::uint32_t>::max());
        ASSERT_TRUE(owner[extra] == std::numeric_limits<std::uint32_t>::max() || owner[extra] == c.code)
            << "two codes share slot " << s;
        owner[extra] = c.code;
    }

    testing::TestImage img = testing::make_image(PixelFormat::rgba_f32, 64, 64, testing::Pattern::random, 11);
    auto* px = reinterpret_cast<float*>(img.storage.data());  // packed: the view starts there
    for (std::size_t i = 0; i < std::size_t(64) * 64 * 4; ++i) px[i] = 150.0f + px[i] * 27000.0f;
    Request all = r;
    all.mode = Mode::all;
    all.value_extremes = true;
    for (const Request& q : {r, all})
        testing::expect_same_histograms(create_engine("cpu")->compute(img.view, q),
                                        create_engine("reference")->compute(img.view, q), "62720 bins over [191, 26991)");
}

}  // namespace
}  // namespace imghist
