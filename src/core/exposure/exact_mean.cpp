// The exact trimmed mean EV of EV bins (docs/semantics.md, "Exact for EV bins"): integer parts,
// 128-bit sums, one rounding to fp32; what a GPU reproduces with 64-bit words.
#include <algorithm>
#include <cmath>
#include <vector>

#include "contract/exposure.h"
#include "core/exposure/metering.hpp"
#include "imghist/error.hpp"

namespace imghist {

namespace {

// log2 of the fp32 edges estimates per_stop within a few parts in ten thousand (off most for one
// bin of 1/4096 stop), so the candidates near the estimate are each checked exactly.
constexpr double kPerStopSlack = 2e-3;

std::optional<EvGrid> matching_grid(const std::vector<double>& edges, std::uint32_t per_stop) {
    const std::uint32_t bins = std::uint32_t(edges.size() - 1);
    const double lo_bins = std::round(std::log2(edges.front()) * per_stop);
    if (!(std::fabs(lo_bins) < double(1u << 30))) return std::nullopt;
    const double lo = lo_bins / per_stop, hi = lo + double(bins) / per_stop;
    // The ends first: most candidates miss them, and a full check is one exp2 per edge.
    if (double(float(std::exp2(lo))) != edges.front() || double(float(std::exp2(hi))) != edges.back())
        return std::nullopt;
    std::vector<double> made;
    try {
        made = ev_edges(lo, hi, per_stop);
    } catch (const InvalidArgument&) {
        return std::nullopt;
    }
    if (made != edges) return std::nullopt;
    return EvGrid{std::int32_t(lo_bins), per_stop, bins};
}

}  // namespace

std::optional<EvGrid> ev_grid(const std::vector<double>& edges) {
    if (edges.size() < 2 || !(edges.front() > 0) || !std::isfinite(edges.back())) return std::nullopt;
    const double span = std::log2(edges.back()) - std::log2(edges.front());
    if (!(span > 0)) return std::nullopt;
    const double estimate = double(edges.size() - 1) / span;
    const double first = std::max(1.0, std::floor(estimate * (1 - kPerStopSlack)) - 1);
    const double last = std::min(double(kMaxEdges - 1), std::ceil(estimate * (1 + kPerStopSlack)) + 1);
    for (double per_stop = first; per_stop <= last; ++per_stop)
        if (auto grid = matching_grid(edges, std::uint32_t(per_stop))) return grid;
    return std::nullopt;
}

namespace metering {

float key_ev(double key) { return float(std::log2(key)); }
float reciprocal(double x) { return float(1.0 / x); }

using u128 = unsigned __int128;
using i128 = __int128;

float nearest_float(bool negative, u128 magnitude, u128 denominator) {
    // The contract's 64-bit rounding, the one a shader runs, wherever the sums fit in it.
    constexpr u128 kContractLimit = u128(1) << 63;
    if (magnitude < kContractLimit && denominator < kContractLimit)
        return ih_exposure_nearest_float(negative ? 1u : 0u, std::uint64_t(magnitude), std::uint64_t(denominator));
    u128 quotient = magnitude / denominator, remainder = magnitude % denominator;
    if (quotient == 0 && remainder == 0) return 0.0f;
    // One binary digit at a time until the quotient has fp32's 24 significant bits.
    int exponent = 0;
    while (quotient < (u128(1) << 23)) {
        remainder <<= 1;
        quotient <<= 1;
        if (remainder >= denominator) {
            remainder -= denominator;
            quotient |= 1;
        }
        --exponent;
    }
    remainder <<= 1;
    const bool half = remainder >= denominator;
    if (half) remainder -= denominator;
    if (half && (remainder != 0 || (quotient & 1))) ++quotient;
    const float value = std::ldexp(float(std::uint32_t(quotient)), exponent);
    return negative ? -value : value;
}

std::optional<Exposure> exact_exposure(const ChannelHistogram& h, const EvGrid& grid, const ExposureSettings& settings) {
    // The population in value order as (count, position in half bins above LO).
    const bool ends = !h.layout.clamp;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> ordered;
    ordered.reserve(h.counts.size() + 2);
    if (ends && settings.below == BelowRange::meter) ordered.emplace_back(h.below, 0);
    for (std::size_t k = 0; k < h.counts.size(); ++k) ordered.emplace_back(h.counts[k], std::uint32_t(2 * k + 1));
    if (ends) ordered.emplace_back(h.above, 2 * grid.bins);
    u128 total = 0;
    for (const auto& [n, u] : ordered) total += n;
    if (total == 0) return std::nullopt;
    // Each sample is 10,000 parts: the percentiles' ends are whole parts.
    constexpr u128 kParts = IH_EXPOSURE_PARTS_PER_SAMPLE;
    const u128 from = total * hundredths(settings.low_percent), to = total * hundredths(settings.high_percent);
    u128 kept = 0, weighted = 0, before = 0;
    for (const auto& [n, u] : ordered) {
        const u128 after = before + kParts * n;
        const u128 lo = std::max(before, from), hi = std::min(after, to);
        if (hi > lo) {
            kept += hi - lo;
            weighted += (hi - lo) * u;
        }
        before = after;
    }
    // L = (2 j W + S) / (2 P W), j = LO in bins.
    const i128 numerator = i128(2) * grid.lo_bins * i128(kept) + i128(weighted);
    const u128 denominator = u128(2) * grid.per_stop * kept;
    const bool negative = numerator < 0;
    const float average = nearest_float(negative, u128(negative ? -numerator : numerator), denominator);
    const float key_ev = metering::key_ev(settings.key);
    Exposure e;
    e.average_ev = average;
    e.key = settings.key;
    e.exposure_ev = key_ev - average;
    e.samples = double(kept) / double(kParts);
    return e;
}

}  // namespace metering

}  // namespace imghist
