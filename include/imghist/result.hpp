// Histogram results: 64-bit counts per channel, out-of-range counters, derived statistics.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "imghist/image.hpp"
#include "imghist/request.hpp"
#include "imghist/sample_stats.hpp"

namespace imghist {

// Statistics of one channel (docs/semantics.md, "Statistics"). Every optional is empty when
// its channel has nothing to describe: no binned sample for the bin and value statistics, no
// non-NaN sample or unknown clipping counts for the clipped shares.
struct ChannelStats {
    std::uint64_t count = 0;    // samples in bins (nan and unbinned below/above excluded)
    std::uint64_t samples = 0;  // non-NaN samples, binned or not: the clipped shares' denominator
    // Derived from the bins, in bin units: bin k is the number k.
    std::optional<std::uint32_t> min_bin, max_bin;   // first and last non-empty bin
    std::optional<double> mean, stddev;              // of the bin index, weighted by count
    std::optional<std::uint32_t> median, p1, p99;    // smallest bin whose cumulative share reaches q
    // The same, in value units: bin k stands for bin_centre(layout, k).
    std::optional<double> min_value, max_value, mean_value, stddev_value, median_value, p1_value,
        p99_value;
    // Shares of `samples` at the extreme values (ChannelHistogram::clipped_low_count), exact and
    // independent of the bins.
    std::optional<double> clipped_low, clipped_high;
    bool operator==(const ChannelStats&) const = default;
};

struct ChannelHistogram {
    Channel channel = Channel::R;
    BinLayout layout;
    std::vector<std::uint64_t> counts;
    std::uint64_t nan = 0, below = 0, above = 0;
    // Samples at the extreme values, whatever the bins: 0 and the largest value (255, 65535) of
    // an integer format; <= 0 and >= 1 for half and float (-0 and +-Inf included, NaN never).
    // Empty when the path that made the result could not count them (the interop calls of
    // cuda.hpp, opencl.hpp and vulkan.hpp when the end bins hold other values too): clipping
    // is then unknown, never estimated from the bins. Engine::compute always fills them.
    std::optional<std::uint64_t> clipped_low_count, clipped_high_count;
    // With Request::value_extremes, for half and float images (docs/semantics.md, "Value
    // extremes"): the smallest and largest finite sample (the luminance for Y), exact, -0 as 0,
    // empty when no sample is finite; and how many samples are +Inf and -Inf. All four are
    // empty when not asked for or not found (device images).
    std::optional<double> finite_min, finite_max;
    std::optional<std::uint64_t> positive_infinities, negative_infinities;
    // With Request::sample_stats (docs/semantics.md, "Sample statistics"): the exact moments of
    // the finite samples counted, and the request's percentiles of them. A merge adds the
    // moments (unknown when either side lacks them) and keeps no percentiles: they do not add up.
    std::optional<SampleMoments> sample_moments;
    std::vector<SamplePercentile> sample_percentiles;

    // The statistics of sample_moments and sample_percentiles, each rounded once; empty without them.
    std::optional<SampleStats> sample_stats() const;
    // Non-NaN samples: the binned ones plus the unbinned below / above ones.
    std::uint64_t samples() const;
    ChannelStats stats() const;
    bool operator==(const ChannelHistogram&) const = default;
};

// Every statistic of one channel with its name in the command line's JSON and the Python
// package's stats() (docs/cli.md, "JSON"), in that order: visit(name, value) once each, value a
// std::uint64_t or a std::optional of std::uint32_t, std::uint64_t or double (empty: none).
template <class Visit>
void visit_stats(const ChannelHistogram& c, Visit&& visit) {
    const ChannelStats s = c.stats();
    visit("count", s.count);
    visit("min", s.min_bin);
    visit("max", s.max_bin);
    visit("mean", s.mean);
    visit("stddev", s.stddev);
    visit("median", s.median);
    visit("p1", s.p1);
    visit("p99", s.p99);
    visit("min_value", s.min_value);
    visit("max_value", s.max_value);
    visit("mean_value", s.mean_value);
    visit("stddev_value", s.stddev_value);
    visit("median_value", s.median_value);
    visit("p1_value", s.p1_value);
    visit("p99_value", s.p99_value);
    visit("samples", s.samples);
    visit("clipped_low_count", c.clipped_low_count);
    visit("clipped_high_count", c.clipped_high_count);
    visit("clipped_low", s.clipped_low);
    visit("clipped_high", s.clipped_high);
}

// The histograms of one tile: the channels of Result::channels, over the tile's pixels only.
struct TileHistogram {
    Region region;  // in the image's coordinates
    std::vector<ChannelHistogram> channels;
    std::optional<std::uint64_t> counted_pixels;  // as Result::counted_pixels, for this tile
    bool operator==(const TileHistogram&) const = default;
};

struct Result {
    std::uint32_t width = 0, height = 0;  // of the image
    PixelFormat format = PixelFormat::rgba8;
    std::string backend, device;
    // The pixels counted: the request's roi, else the whole image.
    Region region;
    // Of every counted pixel, tiles or not.
    std::vector<ChannelHistogram> channels;
    // With a mask or an alpha threshold (Request::mask, alpha_threshold): how many pixels of
    // `region` they let through, the pixels every channel counted. Empty without one: every
    // pixel of `region` was counted.
    std::optional<std::uint64_t> counted_pixels;
    // With a grid of more than one tile (Request::tiles): the tiles row by row, tile (tx, ty) at
    // ty * tile_grid.x + tx; their sum is `channels`. Empty otherwise.
    TileGrid tile_grid;
    std::vector<TileHistogram> tiles;
    const TileHistogram& tile(std::uint32_t tx, std::uint32_t ty) const { return tiles.at(std::size_t(ty) * tile_grid.x + tx); }
    // Anything the backend did that the caller should know, e.g. "bins > 4096: counted on the
    // CPU". Empty on the normal path.
    std::vector<std::string> notes;

    const ChannelHistogram* find(Channel channel) const;
    // The luminance: Y, or a gray image's channel (what --exposure and Histogram.exposure() read).
    const ChannelHistogram* luminance() const;
    // Adds other's counts into this one, tile by tile; throws MergeError if channels, layouts or
    // tile grids differ (size, region and tile regions stay this one's). counted_pixels adds up
    // when either side has it (the other side counting its whole region). A
    // clipping count unknown on either side is unknown in the sum. Notes are kept once each,
    // so a sum of many results does not grow with them.
    void merge(const Result& other);
    // Whether merge(other) would succeed: the same channels, bin layouts and tile grid.
    bool can_merge(const Result& other) const;
    // Same channels, layouts and counts (backend, device and size are not compared).
    bool same_histograms(const Result& other) const { return channels == other.channels && tiles == other.tiles; }
    bool operator==(const Result&) const = default;
};

}  // namespace imghist
