// Statistics of the samples themselves, not of the bins (docs/semantics.md, "Sample
// statistics"): exact sums that merge in any order, and every derived number rounded once.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "imghist/exact.hpp"

namespace imghist {

// What merges exactly: per channel, over the finite samples counted (NaN and ±Inf apart).
struct SampleMoments {
    std::uint64_t count = 0;          // finite samples
    ExactNumber sum, sum_of_squares;  // Σv and Σv², exact
    std::optional<double> min, max;   // exact (every sample value is a double); empty when count is 0
    void merge(const SampleMoments& other);
    bool operator==(const SampleMoments&) const = default;
};

// One percentile of a channel's finite samples x_0 <= ... <= x_{n-1}, p in percent.
struct SamplePercentile {
    double percent = 50;
    double nearest_rank = 0;  // x_{k-1}, k = max(1, ceil(p·n/100)): a sample value, exactly
    double linear = 0;        // numpy's default: x_i + f·(x_{i+1} - x_i), i + f = (n-1)·p/100, rounded once
    bool operator==(const SamplePercentile&) const = default;
};

// The derived statistics, each computed from the exact sums and rounded once to the nearest
// double. Empty optionals where they are undefined (no finite sample; n - 1 = 0).
struct SampleStats {
    std::uint64_t count = 0;
    std::optional<double> mean, variance, sample_variance, stddev, sample_stddev, min, max;
    std::vector<SamplePercentile> percentiles;
    bool operator==(const SampleStats&) const = default;
};

SampleStats sample_stats(const SampleMoments& moments, const std::vector<SamplePercentile>& percentiles = {});

// The mean and the (population) standard deviation in units of `unit` (value / unit, unit > 0),
// each rounded once from the exact sums: what torchvision's Normalize(mean, std) takes. Empty
// when there is no finite sample.
struct SampleNormalization {
    double mean = 0, stddev = 0;
};
std::optional<SampleNormalization> sample_stats_normalization(const SampleMoments& moments, double unit = 1);

// Throws InvalidArgument unless every percent is in [0, 100] and there are at most kMaxPercentiles.
inline constexpr std::size_t kMaxPercentiles = 100;
void validate_percentiles(const std::vector<double>& percents);

// The percentiles a request asks for by default.
inline const std::vector<double>& default_percentiles() {
    static const std::vector<double> percents{1, 50, 99};
    return percents;
}

}  // namespace imghist
