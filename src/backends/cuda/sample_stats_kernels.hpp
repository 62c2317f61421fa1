// The sample statistics of device images (SlotCounter::accumulate_sample_sums_device and
// accumulate_key_lows_device; contract/exact_sum.h): what the host passes to the two kernels of
// sample_stats.cu, and their launches.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace imghist::cuda_detail {

inline constexpr int kMaxStatsChannels = 5;  // R, G, B, A, Y

// How a channel's samples are counted (core/sample_stats_sums.hpp's SampleKind).
enum StatsKind : std::uint32_t { kStatsIntegerCodes, kStatsHalfCodes, kStatsFloatValues };

struct StatsParams {
    const unsigned char* pixels = nullptr;  // the first pixel of the first row
    std::uint64_t pitch = 0;                // bytes from one row to the next
    std::uint32_t width = 0, height = 0;
    std::uint32_t sample = 0;              // SampleType
    std::uint32_t samples_per_pixel = 0;
    std::uint32_t channels = 0;            // plan channels
    std::int32_t source[kMaxStatsChannels] = {};  // sample index in the pixel, or -1: luminance
    std::uint32_t kind[kMaxStatsChannels] = {};   // StatsKind
    std::uint32_t rgb[3] = {};                    // the luminance's sample indexes
    std::uint32_t weight_int[3] = {};
    float weight_float[3] = {};
    // The selection (contract/selection.h): a gray8 mask of the image's size, or null; alpha.
    const unsigned char* mask = nullptr;
    std::uint64_t mask_pitch = 0;
    std::uint32_t alpha_kind = 0, alpha_least = 0, alpha_sample = 0;
    // First pass: channels * IH_STATS_SLOTS counters, zeroed.
    unsigned long long* sums = nullptr;
    // Second pass: every channel's target top-16 buckets, ascending, one channel after another
    // (channel c's are targets[target_first[c]] .. targets[target_first[c + 1] - 1]); target t's
    // 65,536 low-16 counters at lows[t * 65536], zeroed.
    const std::uint32_t* targets = nullptr;
    std::uint32_t target_first[kMaxStatsChannels + 1] = {};
    unsigned long long* lows = nullptr;
};

// The first pass (p.sums) and the second (p.lows), queued on `stream` over `blocks` blocks.
void launch_sample_sums(const StatsParams& p, int blocks, cudaStream_t stream);
void launch_key_lows(const StatsParams& p, int blocks, cudaStream_t stream);

}  // namespace imghist::cuda_detail
