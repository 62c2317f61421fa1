// Percentiles as exact order statistics (docs/semantics.md, "Sample statistics"): which ranks
// of the sorted samples a list of percentiles needs, and the percentiles from those samples.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "imghist/request.hpp"
#include "imghist/sample_stats.hpp"

namespace imghist {

// The 0-based ranks (sorted, unique) whose sample values percentiles_of() reads for n samples.
std::vector<std::uint64_t> ranks_needed(std::uint64_t n, const std::vector<double>& percents);

// Each percentile of n > 0 samples; value_at(rank) is the rank-th smallest sample (one of
// ranks_needed(n, percents)).
std::vector<SamplePercentile> percentiles_of(std::uint64_t n, const std::vector<double>& percents,
                                             const std::function<double(std::uint64_t)>& value_at);

// Whether each bin of `layout` holds exactly one integer value, bin k the value k: then counts
// in it are counts of distinct values, whose percentiles percentiles_of_counts() finds, as long
// as every sample fell in a bin.
bool bins_are_values(const BinLayout& layout);

// The same from counts of distinct values in increasing order (value_of(i) is the value of
// counts[i]): integer and half samples, whose every value has a counter.
std::vector<SamplePercentile> percentiles_of_counts(const std::vector<double>& percents,
                                                    const std::vector<std::uint64_t>& counts,
                                                    const std::function<double(std::size_t)>& value_of);

}  // namespace imghist
