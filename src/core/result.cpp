#include "imghist/result.hpp"

#include "core/order_statistics.hpp"
#include "imghist/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

namespace imghist {

namespace {
std::string describe(const BinLayout& l) {
    char text[160];
    std::snprintf(text, sizeof text, "%u bins over [%g, %g%c of %s values%s", l.bins, l.lo, l.hi,
                  l.closed_top ? ']' : ')', l.integer ? "integer" : "float", l.clamp ? " clamped" : "");
    return text;
}

// Smallest bin whose cumulative count reaches share q of the total (total > 0).
std::uint32_t quantile_bin(const std::vector<std::uint64_t>& counts, std::uint64_t total, double q) {
    const double target = q * double(total);
    std::uint64_t cumulative = 0;
    for (std::size_t k = 0; k < counts.size(); ++k) {
        cumulative += counts[k];
        if (cumulative > 0 && double(cumulative) >= target) return std::uint32_t(k);
    }
    return std::uint32_t(counts.size() - 1);
}

// Weighted mean and population standard deviation of x(k) over the bins (total > 0).
template <class X>
std::pair<double, double> moments(const std::vector<std::uint64_t>& counts, std::uint64_t total, X x) {
    long double sum = 0, sum_sq = 0;
    for (std::size_t k = 0; k < counts.size(); ++k) {
        if (counts[k] == 0) continue;
        const long double v = x(std::uint32_t(k));
        sum += (long double)counts[k] * v;
        sum_sq += (long double)counts[k] * v * v;
    }
    const long double n = total, mean = sum / n;
    const long double variance = sum_sq / n - mean * mean;
    return {double(mean), variance > 0 ? double(std::sqrt(variance)) : 0.0};
}

std::optional<std::uint64_t> add_known(std::optional<std::uint64_t> a, std::optional<std::uint64_t> b) {
    if (!a || !b) return std::nullopt;
    return *a + *b;
}
}  // namespace

std::uint64_t ChannelHistogram::samples() const {
    std::uint64_t binned = 0;
    for (std::uint64_t c : counts) binned += c;
    // Below / above samples are already in the end bins when they are folded there.
    const bool folded = layout.clamp || layout.closed_top;
    return folded ? binned : binned + below + above;
}

ChannelStats ChannelHistogram::stats() const {
    ChannelStats s;
    s.samples = samples();
    if (s.samples > 0) {
        if (clipped_low_count) s.clipped_low = double(*clipped_low_count) / double(s.samples);
        if (clipped_high_count) s.clipped_high = double(*clipped_high_count) / double(s.samples);
    }
    for (std::size_t k = 0; k < counts.size(); ++k) {
        if (counts[k] == 0) continue;
        if (!s.min_bin) s.min_bin = std::uint32_t(k);
        s.max_bin = std::uint32_t(k);
        s.count += counts[k];
    }
    if (s.count == 0) return s;  // nothing binned: no bin or value statistic
    const auto value = [&](std::uint32_t k) { return bin_centre(layout, k); };
    std::tie(s.mean, s.stddev) = moments(counts, s.count, [](std::uint32_t k) { return double(k); });
    std::tie(s.mean_value, s.stddev_value) = moments(counts, s.count, value);
    s.median = quantile_bin(counts, s.count, 0.5);
    s.p1 = quantile_bin(counts, s.count, 0.01);
    s.p99 = quantile_bin(counts, s.count, 0.99);
    s.min_value = value(*s.min_bin);
    s.max_value = value(*s.max_bin);
    s.median_value = value(*s.median);
    s.p1_value = value(*s.p1);
    s.p99_value = value(*s.p99);
    return s;
}

const ChannelHistogram* Result::find(Channel channel) const {
    for (const auto& c : channels)
        if (c.channel == channel) return &c;
    return nullptr;
}

const ChannelHistogram* Result::luminance() const {
    if (const ChannelHistogram* y = find(Channel::Y)) return y;
    return find(Channel::gray);
}

namespace {

std::optional<std::string> channels_conflict(const std::vector<ChannelHistogram>& a,
                                             const std::vector<ChannelHistogram>& b) {
    if (a.size() != b.size()) return "cannot merge results with different channels";
    for (std::size_t i = 0; i < a.size(); ++i) {
        const auto& x = a[i];
        const auto& y = b[i];
        if (x.channel != y.channel) return "cannot merge results with different channels";
        if (!(x.layout == y.layout))
            return "cannot merge histograms with different bin layouts (" + describe(x.layout) + " vs " +
                   describe(y.layout) + ")";
    }
    return std::nullopt;
}

// Why a and b cannot be merged, or nullopt: the one rule behind merge() and can_merge().
std::optional<std::string> merge_conflict(const Result& a, const Result& b) {
    if (a.tile_grid != b.tile_grid || a.tiles.size() != b.tiles.size())
        return "cannot merge results with different tile grids (" + std::to_string(a.tile_grid.x) + "," +
               std::to_string(a.tile_grid.y) + " vs " + std::to_string(b.tile_grid.x) + "," +
               std::to_string(b.tile_grid.y) + ")";
    return channels_conflict(a.channels, b.channels);
}

// Value extremes are known where the infinity counts are (finite_min / max may be empty then:
// no finite sample); known on one side only, they are unknown in the sum.
void add_value_extremes(ChannelHistogram& a, const ChannelHistogram& b) {
    if (!a.positive_infinities || !b.positive_infinities) {
        a.finite_min = a.finite_max = std::nullopt;
        a.positive_infinities = a.negative_infinities = std::nullopt;
        return;
    }
    const auto pick = [](std::optional<double> x, std::optional<double> y, auto better) -> std::optional<double> {
        if (!x) return y;
        if (!y) return x;
        return better(*x, *y);
    };
    a.finite_min = pick(a.finite_min, b.finite_min, [](double x, double y) { return std::min(x, y); });
    a.finite_max = pick(a.finite_max, b.finite_max, [](double x, double y) { return std::max(x, y); });
    *a.positive_infinities += *b.positive_infinities;
    *a.negative_infinities += *b.negative_infinities;
}

// Percentiles do not add up, except where every bin holds one integer value and every sample is
// in a bin (8-bit default bins; 16-bit ones with --bins 65536): then the summed counts are the
// samples' own, and give the percentiles both sides asked for exactly.
void add_sample_percentiles(ChannelHistogram& a, const ChannelHistogram& b) {
    std::vector<double> percents;
    for (const SamplePercentile& p : a.sample_percentiles) percents.push_back(p.percent);
    std::vector<double> other;
    for (const SamplePercentile& p : b.sample_percentiles) other.push_back(p.percent);
    a.sample_percentiles.clear();
    const bool value_per_bin = bins_are_values(a.layout) && a.below == 0 && a.above == 0 && a.nan == 0;
    if (!a.sample_moments || percents.empty() || percents != other || !value_per_bin) return;
    a.sample_percentiles = percentiles_of_counts(percents, a.counts, [](std::size_t k) { return double(k); });
}

void add_channels(std::vector<ChannelHistogram>& sum, const std::vector<ChannelHistogram>& more) {
    for (std::size_t i = 0; i < sum.size(); ++i) {
        auto& a = sum[i];
        const auto& b = more[i];
        for (std::size_t k = 0; k < a.counts.size(); ++k) a.counts[k] += b.counts[k];
        a.nan += b.nan;
        a.below += b.below;
        a.above += b.above;
        a.clipped_low_count = add_known(a.clipped_low_count, b.clipped_low_count);
        a.clipped_high_count = add_known(a.clipped_high_count, b.clipped_high_count);
        add_value_extremes(a, b);
        if (a.sample_moments && b.sample_moments) a.sample_moments->merge(*b.sample_moments);
        else a.sample_moments.reset();
        add_sample_percentiles(a, b);
    }
}

// A sum's counted pixels: unknown-is-whole, as Result::counted_pixels says, once either side
// selected pixels.
std::optional<std::uint64_t> add_counted(std::optional<std::uint64_t> a, const Region& a_region,
                                         std::optional<std::uint64_t> b, const Region& b_region) {
    if (!a && !b) return std::nullopt;
    return a.value_or(a_region.pixel_count()) + b.value_or(b_region.pixel_count());
}

}  // namespace

std::optional<SampleStats> ChannelHistogram::sample_stats() const {
    if (!sample_moments) return std::nullopt;
    return imghist::sample_stats(*sample_moments, sample_percentiles);
}

bool Result::can_merge(const Result& other) const { return !merge_conflict(*this, other); }

void Result::merge(const Result& other) {
    if (const auto conflict = merge_conflict(*this, other)) throw MergeError(*conflict);
    add_channels(channels, other.channels);
    counted_pixels = add_counted(counted_pixels, region, other.counted_pixels, other.region);
    for (std::size_t t = 0; t < tiles.size(); ++t) {
        add_channels(tiles[t].channels, other.tiles[t].channels);
        tiles[t].counted_pixels =
            add_counted(tiles[t].counted_pixels, tiles[t].region, other.tiles[t].counted_pixels, other.tiles[t].region);
    }
    for (const std::string& note : other.notes)
        if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
    if (backend != other.backend) backend = "mixed";
    if (device != other.device) device = "mixed";
}

}  // namespace imghist
