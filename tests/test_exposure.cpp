// Auto-exposure (docs/semantics.md, "Auto-exposure", "Exact for EV bins", "Adaptation over
// frames"): the exact trimmed mean checked against rational arithmetic done here, independently
// of the library's integer parts, and the adaptation against hand-worked frames.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

#include "imghist/imghist.hpp"

namespace imghist {
namespace {

using i128 = __int128;

// An exact fraction n / d, d > 0, kept in lowest terms.
struct Q {
    i128 n = 0, d = 1;
    Q(i128 num = 0, i128 den = 1) : n(num), d(den) {
        if (d < 0) n = -n, d = -d;
        const i128 g = gcd(n < 0 ? -n : n, d);
        if (g > 1) n /= g, d /= g;
    }
    static i128 gcd(i128 a, i128 b) {
        while (b != 0) a = std::exchange(b, a % b);
        return a == 0 ? 1 : a;
    }
    Q operator+(const Q& o) const { return Q(n * o.d + o.n * d, d * o.d); }
    Q operator-(const Q& o) const { return Q(n * o.d - o.n * d, d * o.d); }
    Q operator*(const Q& o) const { return Q(n * o.n, d * o.d); }
    Q operator/(const Q& o) const { return Q(n * o.d, d * o.n); }
    bool operator<(const Q& o) const { return n * o.d < o.n * d; }
    bool operator<=(const Q& o) const { return !(o < *this); }
    bool operator==(const Q& o) const { return n == o.n && d == o.d; }
};
Q min(const Q& a, const Q& b) { return a < b ? a : b; }
Q max(const Q& a, const Q& b) { return a < b ? b : a; }

// The exact value of a finite float.
Q exact(float f) {
    int e = 0;
    const float m = std::frexp(f, &e);  // f = m * 2^e, |m| in [0.5, 1)
    const i128 mantissa = i128(std::ldexp(m, 24));
    e -= 24;
    return e >= 0 ? Q(mantissa * (i128(1) << e)) : Q(mantissa, i128(1) << -e);
}

// Whether f is q rounded to the nearest fp32, ties to the even one.
bool is_nearest_float(const Q& q, float f) {
    const Q here = exact(f);
    const Q down = (here + exact(std::nextafter(f, -INFINITY))) / Q(2);
    const Q up = (here + exact(std::nextafter(f, INFINITY))) / Q(2);
    const bool even = (std::bit_cast<std::uint32_t>(f) & 1u) == 0;
    return even ? (down <= q && q <= up) : (down < q && q < up);
}

// The trimmed mean EV, straight from the definition: entries (count, EV) in value order, the
// interval [low% of T, high% of T) of cumulative counts, each entry weighted by its part inside.
Q trimmed_mean(const std::vector<std::pair<std::uint64_t, Q>>& entries, int low_hundredths, int high_hundredths) {
    Q total;
    for (const auto& [n, ev] : entries) total = total + Q(i128(n));
    const Q from = total * Q(low_hundredths, 10000), to = total * Q(high_hundredths, 10000);
    Q before, weight, sum;
    for (const auto& [n, ev] : entries) {
        const Q after = before + Q(i128(n));
        const Q inside = min(after, to) - max(before, from);
        if (Q() < inside) {
            weight = weight + inside;
            sum = sum + inside * ev;
        }
        before = after;
    }
    return sum / weight;
}

// A luminance histogram in EV bins lo:hi:per_stop.
ChannelHistogram ev_histogram(double lo, double hi, std::uint32_t per_stop, std::vector<std::uint64_t> counts) {
    ChannelHistogram y;
    y.channel = Channel::Y;
    BinSpec spec;
    spec.edges = ev_edges(lo, hi, per_stop);
    y.layout = resolve_layout(SampleType::f32, spec);
    y.counts = std::move(counts);
    return y;
}

// Bin k's EV on a grid whose LO is lo_bins / per_stop: LO + (k + 1/2) / per_stop.
Q bin_ev(int lo_bins, int per_stop, std::size_t k) { return Q(2 * lo_bins + 2 * i128(k) + 1, 2 * per_stop); }

// The worked example of docs/semantics.md, "Exact for EV bins".
TEST(Exposure, WorkedExampleIsTheExactMeanRoundedOnceToFp32) {
    const ChannelHistogram y = ev_histogram(-4, 0, 1, {2, 2, 2, 2});
    const std::optional<Exposure> e = exposure(y);
    ASSERT_TRUE(e);
    // [4, 7.6): bin 2 wholly (2 at -1.5), 1.6 of bin 3 (at -0.5): -4.4 / 3.6 = -19/18.
    const Q average = (Q(2) * Q(-3, 2) + Q(16, 10) * Q(-1, 2)) / Q(36, 10);
    EXPECT_EQ(average, Q(-19, 18));
    EXPECT_EQ(e->average_ev, double(float(e->average_ev))) << "an fp32 value";
    EXPECT_TRUE(is_nearest_float(average, float(e->average_ev))) << e->average_ev;
    EXPECT_EQ(e->exposure_ev, double(float(std::log2(0.18)) - float(e->average_ev)));
    EXPECT_NEAR(e->exposure_ev, -1.4183755, 1e-7);  // the figures the documentation prints
    EXPECT_NEAR(e->average_ev, -1.0555556, 1e-7);
    EXPECT_EQ(e->samples, 3.6);
}

// below and above stand for the first and last edge's EV and take part in the percentiles.
TEST(Exposure, BelowAndAboveStandForTheEndEdges) {
    ChannelHistogram y = ev_histogram(-4, 0, 1, {2, 2, 2, 2});
    y.below = 8;  // of 16 samples, 25% to 95% keeps [4, 15.2): 4 below, 6 in bins 0-2, 1.2 of bin 3
    const std::optional<Exposure> e = exposure(y, {25, 95, 0.18});
    ASSERT_TRUE(e);
    const Q average = (Q(4) * Q(-4) + Q(2) * Q(-7, 2) + Q(2) * Q(-5, 2) + Q(2) * Q(-3, 2) + Q(12, 10) * Q(-1, 2)) /
                      Q(112, 10);
    EXPECT_TRUE(is_nearest_float(average, float(e->average_ev))) << e->average_ev;
    y.below = 0;
    y.above = 3;  // 0% to 100%: every sample; above at EV 0
    const std::optional<Exposure> all = exposure(y, {0, 100, 0.18});
    ASSERT_TRUE(all);
    EXPECT_TRUE(is_nearest_float(Q(2 * (-7 - 5 - 3 - 1), 2 * 11), float(all->average_ev))) << all->average_ev;
}

// Random histograms on several grids, with counts up to 2^62 (the host's 128-bit sums), against
// the definition in fractions.
TEST(Exposure, EvBinsGiveTheExactMeanOfTheirCounts) {
    std::mt19937_64 random(52);
    struct Grid { int lo, hi, per_stop; };
    for (const Grid g : {Grid{-16, 16, 8}, Grid{-4, 2, 3}, Grid{-12, -2, 1}, Grid{3, 5, 64}}) {
        for (int trial = 0; trial < 20; ++trial) {
            const std::size_t bins = std::size_t((g.hi - g.lo) * g.per_stop);
            const int shift = trial % 2 ? 50 : 8;  // counts below 2^50: sums past 2^64 parts
            std::vector<std::uint64_t> counts(bins);
            for (auto& c : counts) c = random() >> (64 - shift) >> (random() % 3 == 0 ? 8 : 0);
            ChannelHistogram y = ev_histogram(g.lo, g.hi, std::uint32_t(g.per_stop), counts);
            y.below = random() >> (64 - shift);
            y.above = random() >> (64 - shift);
            const int low = int(random() % 9000), high = low + 1 + int(random() % (10000 - low));
            const ExposureSettings settings{low / 100.0, high / 100.0, 0.18};
            std::vector<std::pair<std::uint64_t, Q>> entries{{y.below, Q(g.lo)}};
            for (std::size_t k = 0; k < bins; ++k) entries.emplace_back(counts[k], bin_ev(g.lo * g.per_stop, g.per_stop, k));
            entries.emplace_back(y.above, Q(g.hi));
            const std::optional<Exposure> e = exposure(y, settings);
            ASSERT_TRUE(e);
            ASSERT_EQ(e->average_ev, double(float(e->average_ev))) << "an fp32 value";
            EXPECT_TRUE(is_nearest_float(trimmed_mean(entries, low, high), float(e->average_ev)))
                << g.lo << ":" << g.hi << ":" << g.per_stop << " trial " << trial << " got " << e->average_ev;
        }
    }
}

TEST(Exposure, EvGridIsFoundFromTheEdgesAlone) {
    EXPECT_EQ(ev_grid(ev_edges(-16, 16, 8)), (EvGrid{-128, 8, 256}));
    EXPECT_EQ(ev_grid(ev_edges(-4, 2, 3)), (EvGrid{-12, 3, 18}));
    EXPECT_EQ(ev_grid(ev_edges(-12, 4, 256)), (EvGrid{-3072, 256, 4096}));
    EXPECT_EQ(ev_grid(ev_edges(100, 100.25, 4096)), (EvGrid{409600, 4096, 1024}));
    // LO between bins, or edges that are not powers of two: no grid.
    EXPECT_FALSE(ev_grid(ev_edges(-10.5, -8.5, 1)));
    EXPECT_FALSE(ev_grid({0.1, 0.3, 1, 5}));
    EXPECT_FALSE(ev_grid({0, 1, 2}));
    EXPECT_FALSE(ev_grid({1}));
}

// Edges that are not EV bins keep the mean in double, each bin at its middle EV.
TEST(Exposure, OtherEdgesAreMeteredInDouble) {
    ChannelHistogram y;
    y.channel = Channel::Y;
    y.layout.edges = {0.1, 0.3, 1, 5};
    y.layout.bins = 3;
    y.counts = {1, 2, 1};
    const std::optional<Exposure> e = exposure(y, {0, 100, 0.18});
    ASSERT_TRUE(e);
    const double mid0 = (std::log2(0.1) + std::log2(0.3)) / 2, mid1 = std::log2(0.3) / 2,
                 mid2 = std::log2(5) / 2;
    EXPECT_DOUBLE_EQ(e->average_ev, (mid0 + 2 * mid1 + mid2) / 4);
    EXPECT_DOUBLE_EQ(e->exposure_ev, std::log2(0.18) - e->average_ev);
}

// Dark frames: below meters at LO, or not at all; an all-black frame has no exposure with ignore.
TEST(Exposure, BelowRangePolicyDecidesWhatDarkFramesMeter) {
    ChannelHistogram y = ev_histogram(-8, 0, 2, std::vector<std::uint64_t>(16, 0));
    y.counts[12] = 10;  // EV -8 + 12.5/2 = -1.75
    y.below = 90;
    ExposureSettings meter{0, 100, 0.18};
    ExposureSettings ignore = meter;
    ignore.below = BelowRange::ignore;
    EXPECT_TRUE(is_nearest_float(Q(90 * -8 * 4 + 10 * -7, 400), float(exposure(y, meter)->average_ev)));
    EXPECT_EQ(exposure(y, ignore)->average_ev, -1.75);
    EXPECT_EQ(exposure(y, ignore)->samples, 10);
    y.counts[12] = 0;  // all black: everything below
    EXPECT_EQ(exposure(y, meter)->average_ev, -8);
    EXPECT_FALSE(exposure(y, ignore));
    // With clamp below is already in bin 0, whatever the policy.
    y.layout.clamp = true;
    y.counts[0] = 90;
    EXPECT_EQ(exposure(y, ignore)->average_ev, -7.75);
}

// A float image counted by the reference: NaN is left out, +Inf is above, -Inf and 0 below.
TEST(Exposure, NanAndInfinitePixelsOfARealImage) {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = INFINITY;
    const std::vector<float> pixels{nan, inf, -inf, 0.0f, 0.75f, 0.3f, 0.1f, 2.0f};
    const ImageView view{pixels.data(), 8, 1, 8 * sizeof(float), PixelFormat::gray_f32};
    Request request;
    request.bins.edges = ev_edges(-4, 0, 1);
    const Result r = create_engine("reference")->compute(view, request);
    const std::optional<Exposure> e = exposure(r.channels.at(0), {0, 100, 0.18});
    ASSERT_TRUE(e);
    // 7 samples: -Inf and 0 at -4, 0.1 at -3.5, 0.3 at -1.5, 0.75 at -0.5, 2 and +Inf at 0.
    EXPECT_TRUE(is_nearest_float(Q(-8 * 2 - 7 - 3 - 1, 2 * 7), float(e->average_ev))) << e->average_ev;
    EXPECT_EQ(e->samples, 7);
}

// A mask that selects nothing: no sample, no exposure, and the adaptation keeps its state.
TEST(Exposure, AMaskSelectingNothingMetersNothing) {
    const std::vector<float> pixels(16, 0.5f);
    const std::vector<std::uint8_t> none(16, 0);
    const ImageView view{pixels.data(), 4, 4, 4 * sizeof(float), PixelFormat::gray_f32};
    Request request;
    request.bins.edges = ev_edges(-4, 0, 1);
    request.mask = ImageView{none.data(), 4, 4, 4, PixelFormat::gray8};
    const Result r = create_engine("reference")->compute(view, request);
    EXPECT_FALSE(exposure(r.channels.at(0)));
    ExposureState state;
    state.ev = 1.25f;
    state.scale = std::exp2(1.25f);
    state.started = true;
    state.metered = true;
    const ExposureState next = adapt(state, r.channels.at(0), ExposureControl{}, 1.0f / 60);
    EXPECT_FALSE(next.metered);
    EXPECT_EQ(next.ev, 1.25f);
    EXPECT_EQ(next.scale, state.scale);
}

TEST(Exposure, PercentilesAreWholeHundredthsOfAPercent) {
    const ChannelHistogram y = ev_histogram(-4, 0, 1, {2, 2, 2, 2});
    EXPECT_TRUE(exposure(y, {33.33, 66.67, 0.18}));
    EXPECT_THROW((void)exposure(y, {33.333, 66.67, 0.18}), InvalidArgument);
    EXPECT_THROW((void)exposure(y, {95, 50, 0.18}), InvalidArgument);
    EXPECT_THROW((void)exposure(y, {50, 50.001, 0.18}), InvalidArgument);
    EXPECT_THROW((void)exposure(y, {0, 100, 0}), InvalidArgument);
}

}  // namespace
}  // namespace imghist
