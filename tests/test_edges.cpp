// Edge bins, EV edges and auto-exposure (docs/semantics.md, "Edges", "EV bins", "Auto-exposure"):
// hand-derived cases on the reference backend; every backend against the reference is
// BackendParity's (the edge requests of testing::parity_requests).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/plan.hpp"
#include "imghist/imghist.hpp"
#include "support/test_images.hpp"

namespace imghist {
namespace {

Result count_reference(const ImageView& view, const Request& request) {
    return create_engine("reference")->compute(view, request);
}

TEST(Edges, IntegerValuesAreComparedWithTheCeilingOfEachEdge) {
    std::vector<std::uint8_t> pixels(256);
    for (int v = 0; v < 256; ++v) pixels[v] = std::uint8_t(v);
    const ImageView view{pixels.data(), 256, 1, 256, PixelFormat::gray8};
    Request request;
    request.bins.edges = {0.5, 1.5, 2, 17, 100.2, 255};
    const Result r = count_reference(view, request);
    const ChannelHistogram& c = r.channels.at(0);
    // [0.5, 1.5) holds 1; [1.5, 2) no integer; [2, 17) 2..16; [17, 100.2) 17..100; [100.2, 255) 101..254.
    EXPECT_EQ(c.counts, (std::vector<std::uint64_t>{1, 0, 15, 84, 154}));
    EXPECT_EQ(c.below, 1u);  // 0
    EXPECT_EQ(c.above, 1u);  // 255: the last edge is above, as every edge is half-open
    EXPECT_EQ(c.layout.edges, request.bins.edges);
    EXPECT_EQ(bin_centre(c.layout, 3), 58.5);  // the integers 17 .. 100
    EXPECT_EQ(bin_lower_edge(c.layout, 4), 100.2);
    request.bins.clamp = true;
    const Result clamped_result = count_reference(view, request);
    const ChannelHistogram& clamped = clamped_result.channels.at(0);
    EXPECT_EQ(clamped.counts, (std::vector<std::uint64_t>{2, 0, 15, 84, 155}));
    EXPECT_EQ(clamped.below, 1u);
    EXPECT_EQ(clamped.above, 1u);
}

TEST(Edges, FloatSamplesAreComparedWithFp32EdgesAsKeys) {
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> pixels = {-0.0f, 0.0f, 1e-45f, 0.1f, 0.25f, 0.5f, 1.0f, 2.0f, inf, -inf, NAN, -1e-45f};
    const ImageView view{pixels.data(), std::uint32_t(pixels.size()), 1, pixels.size() * 4, PixelFormat::gray_f32};
    Request request;
    request.bins.edges = {0, 0.1, 0.5, 1};
    const Result r = count_reference(view, request);
    const ChannelHistogram& c = r.channels.at(0);
    // -0 is +0; the denormal 1e-45 is above 0 on every device (keys, no arithmetic); 0.1f is the
    // fp32 edge itself; 1.0 is the last edge: above.
    EXPECT_EQ(c.counts, (std::vector<std::uint64_t>{3, 2, 1}));
    EXPECT_EQ(c.below, 2u);  // -Inf and -1e-45
    EXPECT_EQ(c.above, 3u);  // 1, 2, +Inf
    EXPECT_EQ(c.nan, 1u);
    EXPECT_EQ(c.layout.edges[1], double(0.1f));
}

TEST(Edges, BadEdgesAreRefusedWithTheEdgeNamed) {
    const auto refused = [](SampleType sample, BinSpec spec, const std::string& words) {
        try {
            (void)resolve_layout(sample, spec);
            ADD_FAILURE() << "accepted: " << words;
        } catch (const InvalidArgument& e) {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    };
    BinSpec s;
    s.edges = {1};
    refused(SampleType::u8, s, "2 to 4097");
    s.edges.assign(4098, 0);
    for (std::size_t k = 0; k < s.edges.size(); ++k) s.edges[k] = double(k);
    refused(SampleType::u8, s, "got 4098");
    s.edges = {0, 2, 2};
    refused(SampleType::u16, s, "strictly increasing: edge 2");
    s.edges = {0, NAN};
    refused(SampleType::f32, s, "edge 1 (nan) is not finite");
    s.edges = {1, 1 + 1e-12};
    refused(SampleType::f16, s, "one value in fp32");
    EXPECT_NO_THROW((void)resolve_layout(SampleType::u8, s));  // integers compare them exactly
    s.edges = {0, 1e39};
    refused(SampleType::f32, s, "overflows fp32");
    s.edges = {0, 1};
    s.bins = 4;
    refused(SampleType::u8, s, "exclude bins and range");
    s.bins.reset();
    s.range = {{0, 1}};
    refused(SampleType::u8, s, "exclude bins and range");
}

TEST(Edges, EvEdgesArePowersOfTwoRoundedOnceToFp32) {
    const std::vector<double> e = ev_edges(-2, 1, 2);
    ASSERT_EQ(e.size(), 7u);
    for (int k = 0; k < 7; ++k) EXPECT_EQ(e[k], double(float(std::exp2(-2 + k / 2.0)))) << k;
    EXPECT_EQ(e.front(), 0.25);
    EXPECT_EQ(e.back(), 2.0);
    EXPECT_EQ(ev_edges(-12, 4, 256).size(), 4097u);
    for (auto [lo, hi, per_stop] : {std::tuple{1.0, 1.0, 1u}, {0.0, 1.0, 0u}, {0.0, 0.3, 1u}, {0.0, 5000.0, 1u},
                                    {-130.0, -120.0, 1u}, {120.0, 128.0, 1u}})
        EXPECT_THROW((void)ev_edges(lo, hi, per_stop), InvalidArgument) << lo << ":" << hi << ":" << per_stop;
}

TEST(Exposure, ComesFromTheExactCountsOfEveryBackend) {
    const auto img = testing::make_image(PixelFormat::rgba_f16, 97, 61, testing::Pattern::natural, 3);
    Request request;
    request.mode = Mode::luma;
    request.bins.edges = ev_edges(-12, 2, 8);
    const Result want = count_reference(img.view, request);
    const std::optional<Exposure> expected = exposure(want.channels.at(0));
    ASSERT_TRUE(expected);
    for (const Backend* backend : backends()) {
        if (!backend->available()) continue;  // RequiredBackends fails where CI needs one
        const std::string name(backend->name());
        const Result got = create_engine(name)->compute(img.view, request);
        EXPECT_TRUE(got.same_histograms(want)) << name;
        EXPECT_EQ(exposure(got.channels.at(0)), expected) << name;
    }
}

// The code tables' edge hints (CUDA's float table): from the hint, the walk up the edges gives
// every value of the block the full search's code.
TEST(Edges, EdgeHintsOfFloatBlocksGiveTheFullSearchsCode) {
    for (const bool clamp : {false, true}) {
        Request request;
        request.bins.edges = ev_edges(-8, 0, 32);
        request.bins.edges.insert(request.bins.edges.begin(), {-3.0, -1e-40, 0.0});
        request.bins.clamp = clamp;
        const HistogramPlan plan(PixelFormat::rgba_f32, request);
        std::uint32_t hinted = 0, across_ends = 0;
        for (std::uint32_t t = 0; t < 65536; ++t) {
            const std::uint32_t entry = unresolved_float_code16(plan.edge_keys, t);
            const std::uint32_t lo_key = ih_float_key(t << 16), hi_key = ih_float_key((t << 16) | 0xFFFFu);
            const bool across_an_end = std::min(lo_key, hi_key) < plan.edge_keys.front() ||
                                       std::max(lo_key, hi_key) >= plan.edge_keys.back();
            if (entry == IH_CODE16_UNRESOLVED) {
                // only blocks with NaN, and blocks across the first or the last edge
                EXPECT_TRUE((t & 0x7F80u) == 0x7F80u || across_an_end) << t;
                across_ends += across_an_end ? 1 : 0;
                continue;
            }
            ++hinted;
            EXPECT_FALSE(across_an_end) << t;
            for (std::uint32_t low = 0; low < 65536; low += 251) {
                const std::uint32_t bits = (t << 16) | low;
                const std::uint32_t want = plan.classify_float(std::bit_cast<float>(bits));
                ASSERT_EQ(ih_edge_walk_from(ih_float_key(bits), entry & 0x3FFFu, plan.edge_keys.data()), want)
                    << std::hex << bits;
            }
            // the block's last value too: the walk's longest
            const std::uint32_t last = (t << 16) | ((t & 0x8000u) ? 0u : 0xFFFFu);
            ASSERT_EQ(ih_edge_walk_from(ih_float_key(last), entry & 0x3FFFu, plan.edge_keys.data()),
                      plan.classify_float(std::bit_cast<float>(last)))
                << std::hex << last;
        }
        EXPECT_GT(hinted, 30000u);  // every block inside [-3, 1) without NaN
        EXPECT_GE(across_ends, 1u);  // -3.0 and 1.0 lie inside blocks of their own
    }
    EXPECT_EQ(unresolved_float_code16({}, 0x3F00), IH_CODE16_UNRESOLVED);  // uniform bins: no hint
}

// The code window (core/plan.hpp, FloatCodeWindow, the GPU backends' shared-memory table): it
// covers [E_0, E_bins] with the finest blocks that fit, and every entry read as the kernels read
// it (the shared code, or the walk from the hint, or the full search) gives every value of its
// block the full search's code.
TEST(Edges, CodeWindowEntriesGiveTheFullSearchsCode) {
    struct Case {
        std::vector<double> edges;
        std::uint32_t max_entries, want_shift;
    };
    std::vector<double> with_zero = ev_edges(-4, 0, 8);
    with_zero.insert(with_zero.begin(), 0.0);
    const Case cases[] = {{ev_edges(-8, 0, 32), 8192, 14},   // 2^26 bits of [2^-8, 1]: 4097 blocks of 2^14, 4104 with padding
                          {ev_edges(-8, 0, 32), 32768, 12},
                          {ev_edges(-8, 0, 32), 2048, 16},
                          {ev_edges(-12, 4, 256), 8192, 15},  // 4096 bins
                          {with_zero, 32768, 15},             // E_0 = +0: from the denormals up
                          {{0.25, 0.5, 0.75, 1.0, 3e38}, 8192, 16}};
    for (const Case& c : cases) {
        for (const bool clamp : {false, true}) {
            Request request;
            request.bins.edges = c.edges;
            request.bins.clamp = clamp;
            const HistogramPlan plan(PixelFormat::gray_f32, request);
            const FloatCodeWindow window = float_code_window(plan.edge_keys, c.max_entries);
            const std::string what = std::to_string(c.edges.size()) + " edges, window of " +
                                     std::to_string(c.max_entries) + (clamp ? ", clamp" : "");
            if (c.want_shift == 16 && c.edges.back() > 1e30) {
                EXPECT_EQ(window.entries, 0u) << what;  // [0.25, 3e38] takes more blocks than fit
                continue;
            }
            ASSERT_EQ(window.shift, c.want_shift) << what;
            ASSERT_GT(window.entries, 0u) << what;
            EXPECT_LE(window.entries, c.max_entries) << what;
            EXPECT_EQ(window.entries % 8, 0u) << what;
            const auto block_of = [&](double v) { return std::bit_cast<std::uint32_t>(float(v)) >> window.shift; };
            EXPECT_EQ(window.first, block_of(c.edges.front())) << what;
            EXPECT_LT(block_of(c.edges.back()), window.first + window.entries) << what;
            const std::vector<std::uint16_t> entries =
                code16_window([&](float v) { return plan.classify_float(v); }, plan.edge_keys, window);
            ASSERT_EQ(entries.size(), window.entries);
            const std::uint32_t low_mask = (1u << window.shift) - 1, step = std::max(1u, low_mask / 97);
            std::uint32_t hinted = 0, resolved = 0;
            for (std::uint32_t i = 0; i < window.entries; ++i) {
                const std::uint32_t e = entries[i], first_bits = (window.first + i) << window.shift;
                resolved += (e >> 14) != 3u ? 1 : 0;
                hinted += (e >> 14) == 3u && e != IH_CODE16_UNRESOLVED ? 1 : 0;
                auto check = [&](std::uint32_t bits) {
                    const std::uint32_t want = plan.classify_float(std::bit_cast<float>(bits));
                    const std::uint32_t got = (e >> 14) != 3u              ? ih_code_from_16(e)
                                              : e == IH_CODE16_UNRESOLVED ? want
                                                                          : ih_edge_walk_from(ih_float_key(bits), e & 0x3FFFu,
                                                                                              plan.edge_keys.data());
                    ASSERT_EQ(got, want) << what << " entry " << i << " bits " << std::hex << bits;
                };
                for (std::uint32_t low = 0; low < low_mask; low += step) check(first_bits | low);
                check(first_bits | low_mask);
            }
            // and every edge, with the floats beside it
            for (const std::uint32_t key : plan.edge_keys) {
                const std::uint32_t bits = ih_float_bits_of_key(key);
                for (const std::uint32_t b : {bits - 1, bits, bits + 1}) {
                    const std::uint32_t i = (b >> window.shift) - window.first;
                    if (b > 0x7F7FFFFFu || i >= window.entries) continue;
                    const std::uint32_t e = entries[i];
                    const std::uint32_t want = plan.classify_float(std::bit_cast<float>(b));
                    if ((e >> 14) != 3u) EXPECT_EQ(ih_code_from_16(e), want) << what << std::hex << b;
                    else if (e != IH_CODE16_UNRESOLVED)
                        EXPECT_EQ(ih_edge_walk_from(ih_float_key(b), e & 0x3FFFu, plan.edge_keys.data()), want)
                            << what << std::hex << b;
                }
            }
            // Most blocks hold no edge where they outnumber the bins by far.
            if (plan.bins() * 4 < window.entries) EXPECT_GT(resolved, window.entries * 3 / 4) << what;
            EXPECT_GT(hinted, 0u) << what;
        }
    }
    // No window: uniform bins, an edge below zero, no room.
    EXPECT_EQ(float_code_window({}, 8192).entries, 0u);
    Request across_zero;
    across_zero.bins.edges = {-1.0, 0.5, 1.0};
    EXPECT_EQ(float_code_window(HistogramPlan(PixelFormat::gray_f32, across_zero).edge_keys, 8192).entries, 0u);
    Request ev;
    ev.bins.edges = ev_edges(-8, 0, 32);
    EXPECT_EQ(float_code_window(HistogramPlan(PixelFormat::gray_f32, ev).edge_keys, 1024).entries, 0u);
}

TEST(Edges, ResultsMergeOnlyWithTheSameEdges) {
    const auto img = testing::make_image(PixelFormat::rgb8, 31, 17, testing::Pattern::random, 4);
    Request a;
    a.bins.edges = {0, 10, 100, 256};
    Request b = a;
    b.bins.edges = {0, 10, 101, 256};
    Result sum = count_reference(img.view, a);
    const Result again = count_reference(img.view, a);
    EXPECT_TRUE(sum.can_merge(again));
    sum.merge(again);
    EXPECT_EQ(sum.channels[0].counts[1], 2 * again.channels[0].counts[1]);
    EXPECT_FALSE(sum.can_merge(count_reference(img.view, b)));
    EXPECT_THROW(sum.merge(count_reference(img.view, b)), MergeError);
}

}  // namespace
}  // namespace imghist
