#include "imghist/error.hpp"
#include "imghist/result.hpp"

#include <cmath>
#include <cstdio>
#include <string>

namespace imghist {

namespace {
std::string describe(const BinLayout& l) {
    char text[160];
    std::snprintf(text, sizeof text, "%u bins over [%g, %g%c%s", l.bins, l.lo, l.hi, l.closed_top ? ']' : ')',
                  l.clamp ? " clamped" : "");
    return text;
}

// Smallest bin whose cumulative count reaches share q of the total.
std::uint32_t quantile_bin(const std::vector<std::uint64_t>& counts, std::uint64_t total, double q) {
    const double target = q * double(total);
    std::uint64_t cumulative = 0;
    for (std::size_t k = 0; k < counts.size(); ++k) {
        cumulative += counts[k];
        if (cumulative > 0 && double(cumulative) >= target) return std::uint32_t(k);
    }
    return std::uint32_t(counts.size() - 1);
}
}  // namespace

ChannelStats ChannelHistogram::stats() const {
    ChannelStats s;
    long double sum = 0, sum_sq = 0;
    for (std::size_t k = 0; k < counts.size(); ++k) {
        if (counts[k] == 0) continue;
        if (!s.min_bin) s.min_bin = std::uint32_t(k);
        s.max_bin = std::uint32_t(k);
        s.count += counts[k];
        sum += (long double)counts[k] * k;
        sum_sq += (long double)counts[k] * k * k;
    }
    if (s.count == 0) return s;
    const long double n = s.count;
    s.mean = double(sum / n);
    const long double variance = sum_sq / n - (sum / n) * (sum / n);
    s.stddev = variance > 0 ? double(std::sqrt(variance)) : 0.0;
    s.median = quantile_bin(counts, s.count, 0.5);
    s.p1 = quantile_bin(counts, s.count, 0.01);
    s.p99 = quantile_bin(counts, s.count, 0.99);
    s.clipped_low = double(counts.front()) / double(s.count);
    s.clipped_high = double(counts.back()) / double(s.count);
    return s;
}

const ChannelHistogram* Result::find(Channel channel) const {
    for (const auto& c : channels)
        if (c.channel == channel) return &c;
    return nullptr;
}

void Result::merge(const Result& other) {
    if (other.channels.size() != channels.size())
        throw MergeError("cannot merge results with different channels");
    for (std::size_t i = 0; i < channels.size(); ++i) {
        const auto& a = channels[i];
        const auto& b = other.channels[i];
        if (a.channel != b.channel) throw MergeError("cannot merge results with different channels");
        if (!(a.layout == b.layout))
            throw MergeError("cannot merge histograms with different bin layouts (" + describe(a.layout) +
                             " vs " + describe(b.layout) + ")");
    }
    for (std::size_t i = 0; i < channels.size(); ++i) {
        auto& a = channels[i];
        const auto& b = other.channels[i];
        for (std::size_t k = 0; k < a.counts.size(); ++k) a.counts[k] += b.counts[k];
        a.nan += b.nan;
        a.below += b.below;
        a.above += b.above;
    }
    notes.insert(notes.end(), other.notes.begin(), other.notes.end());
    if (backend != other.backend) backend = "mixed";
    if (device != other.device) device = "mixed";
}

}  // namespace imghist
