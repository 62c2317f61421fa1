// The exact accumulators of the sample statistics (docs/semantics.md, "Sample statistics") and
// what they become: every pass that finds the statistics, on the host (sample_stats_pass.cpp)
// or on a device, fills these and hands them here, so that the moments and percentiles come
// from one rule whichever pass counted them.
//   - integer and half samples: a counter per possible value (the codes);
//   - float samples (and float luminance): Σm and Σm² per exponent bucket
//     (src/contract/exact_sum.h) and the counts of the top 16 bits of the contract's total-order
//     key; their order statistics then need the low 16 key bits of the few top-16 buckets that
//     hold a needed rank (a second pass over the samples).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "contract/exact_sum.h"
#include "imghist/sample_stats.hpp"

namespace imghist {

class HistogramPlan;

struct ChannelSampleStats {
    SampleMoments moments;
    std::vector<SamplePercentile> percentiles;
    std::uint64_t positive_infinities = 0, negative_infinities = 0;
};

// How a channel's samples are held: by value (8- and 16-bit samples, integer luminance, half
// samples by their bits), or as fp32 bits summed by exponent bucket (float samples, float luminance).
enum class SampleKind { integer_codes, half_codes, float_values };
SampleKind sample_kind_of(const HistogramPlan& plan, int source);
// How many codes a channel of that kind has (256 or 65,536; 0 for float values).
std::size_t code_count(const HistogramPlan& plan, SampleKind kind);

// A float channel's first-pass sums. 128-bit per bucket: 2^24 * 2^64 samples before Σm can
// overflow, and Σm² (below 2^48 each) 2^80.
struct FloatSums {
    using u128 = unsigned __int128;
    std::array<u128, IH_SUM_BUCKETS> positive{}, negative{}, squares{};
    std::vector<std::uint64_t> top = std::vector<std::uint64_t>(65536, 0);  // top-16 key bits' counts
    std::uint64_t positive_infinities = 0, negative_infinities = 0;

    void add(std::uint32_t bits);  // one sample's fp32 bits (NaN is not passed: the histogram counts it)
    void add(std::uint32_t bits, std::uint64_t times);  // `times` samples of those bits at once
    void merge(const FloatSums& other);
};

// A channel's first-pass statistics counted by a device, IH_STATS_SLOTS counters in the contract's
// layout (exact_sum.h): a float channel's sums (the codes of the others are the first
// code_count() counters as they are).
FloatSums float_sums_of_slots(const std::uint64_t* slots);

// Moments and percentiles of a channel counted by value (`codes` indexed by the integer value or
// the half's bits). Half codes are read in the float total order; NaN codes are skipped (the
// histogram counts them) and infinities counted apart.
ChannelSampleStats stats_of_codes(SampleKind kind, const std::vector<std::uint64_t>& codes,
                                  const std::vector<double>& percents);

// A float channel's exact moments (min and max not yet: they are order statistics) and the
// infinities, from its sums.
ChannelSampleStats moments_of_sums(const FloatSums& sums);

// A float channel's ranks to resolve (the min, the max and those the percentiles read): where
// each falls among the top-16 key buckets.
struct RankSelection {
    std::vector<std::uint64_t> ranks;        // ascending
    std::vector<std::uint32_t> bucket_of;    // per rank: its top-16 bucket
    std::vector<std::uint64_t> offset;       // per rank: its rank among that bucket's samples
    std::vector<std::uint32_t> targets;      // the distinct buckets, ascending
    std::vector<std::int32_t> target_index;  // 65536: bucket -> index in targets, or -1
};
RankSelection select_ranks(std::uint64_t count, const std::vector<std::uint64_t>& top,
                           const std::vector<double>& percents);

// Every channel's second-pass targets in one list, as the devices' kernels read them: channel
// c's are targets[starts[c] .. starts[c + 1]) (starts has one entry more than there are channels).
struct PackedTargets {
    std::vector<std::uint32_t> starts, targets;
};
PackedTargets pack_targets(std::span<const RankSelection> selections);

// The second pass's answer for one channel: low[target * 65536 + low16] counts the finite
// samples whose key is (targets[target] << 16) | low16. Fills the min, max and percentiles of
// `stats` (whose moments.count is the channel's).
void finish_order_statistics(const RankSelection& selection, std::span<const std::uint64_t> low,
                             const std::vector<double>& percents, ChannelSampleStats& stats);
// The same in steps, for a second pass made in several (the host's, to bound its counters'
// memory): read_rank_values() sets values[i] for each rank i whose bucket `selection` targets
// (a target_index of -1 leaves that rank's value alone), and finish_order_statistics() takes
// the values of every rank.
void read_rank_values(const RankSelection& selection, std::span<const std::uint64_t> low, std::vector<double>& values);
void finish_order_statistics(const RankSelection& selection, const std::vector<double>& values,
                             const std::vector<double>& percents, ChannelSampleStats& stats);

}  // namespace imghist
