// Histogram results: 64-bit counts per channel, out-of-range counters, derived statistics.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "imghist/image.hpp"
#include "imghist/request.hpp"

namespace imghist {

// Statistics derived from the histogram alone, in bin units (bin k stands for [k, k+1)).
struct ChannelStats {
    std::uint64_t count = 0;  // samples in bins (nan and unbinned below/above excluded)
    std::optional<std::uint32_t> min_bin, max_bin;
    double mean = 0, stddev = 0;  // over bin indices
    std::uint32_t median = 0, p1 = 0, p99 = 0;  // smallest bin whose cumulative share reaches q
    double clipped_low = 0, clipped_high = 0;  // share of count in the first / last bin
};

struct ChannelHistogram {
    Channel channel = Channel::R;
    BinLayout layout;
    std::vector<std::uint64_t> counts;
    std::uint64_t nan = 0, below = 0, above = 0;

    ChannelStats stats() const;
    bool operator==(const ChannelHistogram&) const = default;
};

struct Result {
    std::uint32_t width = 0, height = 0;
    PixelFormat format = PixelFormat::rgba8;
    std::string backend, device;
    std::vector<ChannelHistogram> channels;
    // Anything the backend did that the caller should know, e.g. "bins > 4096: counted on the
    // CPU". Empty on the normal path.
    std::vector<std::string> notes;

    const ChannelHistogram* find(Channel channel) const;
    // Adds other's counts into this one; throws MergeError if channels or layouts differ.
    void merge(const Result& other);
    // Same channels, layouts and counts (backend, device and size are not compared).
    bool same_histograms(const Result& other) const { return channels == other.channels; }
};

}  // namespace imghist
