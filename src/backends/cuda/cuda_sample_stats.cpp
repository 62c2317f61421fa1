// The sample statistics of device images (SlotCounter::accumulate_sample_sums_device and
// accumulate_key_lows_device): sample_stats.cu's kernels count the contract's counters where the
// pixels lie, on the legacy default stream like accumulate_selected_device's counts, and only the
// counters a plan fills come back (a row of 8-bit codes is 256 of a channel's 67,586).
#include <algorithm>
#include <cstdint>

#include "contract/exact_sum.h"
#include "core/sample_stats_sums.hpp"
#include "core/selection.hpp"
#include "cuda_engine.hpp"
#include "sample_stats_kernels.hpp"

namespace imghist::cuda_detail {

namespace {
const unsigned char* device_bytes(const DeviceImage& image) {
    return reinterpret_cast<const unsigned char*>(std::uintptr_t(image.memory + image.offset_bytes));
}

StatsKind stats_kind(SampleKind kind) {
    switch (kind) {
        case SampleKind::integer_codes: return kStatsIntegerCodes;
        case SampleKind::half_codes: return kStatsHalfCodes;
        default: return kStatsFloatValues;
    }
}

// What both kernels read: the pixels, each channel's source and kind, and the selection.
StatsParams stats_params(const DeviceImage& image, const DeviceImage* mask, const AlphaTest& alpha,
                         const HistogramPlan& plan) {
    const FormatInfo& fi = plan.info;
    StatsParams p;
    p.pixels = device_bytes(image);
    p.pitch = image.pitch();
    p.width = image.width;
    p.height = image.height;
    p.sample = std::uint32_t(fi.sample);
    p.samples_per_pixel = std::uint32_t(fi.channels);
    p.channels = std::uint32_t(plan.channels.size());
    for (std::size_t c = 0; c < plan.channels.size(); ++c) {
        p.source[c] = plan.sources[c] == kLumaSource ? -1 : plan.sources[c];
        p.kind[c] = stats_kind(sample_kind_of(plan, plan.sources[c]));
    }
    p.rgb[0] = std::uint32_t(std::max(fi.red, 0));
    p.rgb[1] = std::uint32_t(std::max(fi.green, 0));
    p.rgb[2] = std::uint32_t(std::max(fi.blue, 0));
    std::copy_n(plan.weight_int, 3, p.weight_int);
    std::copy_n(plan.weight_float, 3, p.weight_float);
    if (mask) {
        p.mask = device_bytes(*mask);
        p.mask_pitch = mask->pitch();
    }
    p.alpha_kind = alpha.kind;
    p.alpha_least = alpha.least;
    p.alpha_sample = std::uint32_t(std::max(fi.alpha, 0));
    return p;
}

// How many of each channel's IH_STATS_SLOTS counters the first pass fills (the most any of the
// plan's channels fills): its codes, or every slot for a float channel.
std::size_t filled_slots(const HistogramPlan& plan) {
    std::size_t filled = 0;
    for (const int source : plan.sources) {
        const SampleKind kind = sample_kind_of(plan, source);
        filled = std::max(filled, kind == SampleKind::float_values ? std::size_t(IH_STATS_SLOTS) : code_count(plan, kind));
    }
    return filled;
}
}  // namespace

// Enough blocks of 256 threads to fill the GPU (8 a multiprocessor), fewer for small images.
int CudaEngine::stats_blocks(const DeviceImage& image) const {
    const std::uint64_t wanted = (image.pixel_count() + 255) / 256;
    return int(std::clamp<std::uint64_t>(wanted, 1, std::uint64_t(props_.multiProcessorCount) * 8));
}

bool CudaEngine::accumulate_sample_sums_device(const DeviceImage& image, const DeviceImage* mask,
                                               const AlphaTest& alpha, const HistogramPlan& plan,
                                               std::span<std::uint64_t> sums) {
    if (plan.channels.size() > std::size_t(kMaxStatsChannels)) return false;
    Call call(*this);
    check_device_pointer(image);
    if (mask) check_device_pointer(*mask);
    StatsParams p = stats_params(image, mask, alpha, plan);
    const std::size_t rows = plan.channels.size(), filled = filled_slots(plan);
    const std::size_t row_bytes = IH_STATS_SLOTS * sizeof(std::uint64_t), filled_bytes = filled * sizeof(std::uint64_t);
    stats_dev_.reserve(rows * IH_STATS_SLOTS);
    stats_host_.reserve(rows * IH_STATS_SLOTS);
    IH_CHECK(cudaMemset2DAsync(stats_dev_.ptr, row_bytes, 0, filled_bytes, rows, nullptr));
    p.sums = stats_dev_.ptr;
    launch_sample_sums(p, stats_blocks(image), nullptr);
    IH_CHECK(cudaGetLastError());
    IH_CHECK(cudaMemcpy2DAsync(stats_host_.ptr, row_bytes, stats_dev_.ptr, row_bytes, filled_bytes, rows,
                               cudaMemcpyDeviceToHost, nullptr));
    IH_CHECK(cudaStreamSynchronize(nullptr));
    for (std::size_t c = 0; c < rows; ++c)
        std::copy_n(stats_host_.ptr + c * IH_STATS_SLOTS, filled, sums.begin() + std::ptrdiff_t(c * IH_STATS_SLOTS));
    call.ok();
    return true;
}

void CudaEngine::accumulate_key_lows_device(const DeviceImage& image, const DeviceImage* mask, const AlphaTest& alpha,
                                            const HistogramPlan& plan, std::span<const RankSelection> selections,
                                            std::span<std::uint64_t> lows) {
    Call call(*this);
    StatsParams p = stats_params(image, mask, alpha, plan);
    const PackedTargets packed = pack_targets(selections);
    std::copy(packed.starts.begin(), packed.starts.end(), p.target_first);
    const std::vector<std::uint32_t>& targets = packed.targets;
    if (lows.size() != targets.size() * 65536)
        throw InvalidArgument("cuda: the second statistics pass needs 65,536 counters a target");
    stats_targets_.reserve(targets.size());
    stats_dev_.reserve(lows.size());
    stats_host_.reserve(lows.size());
    IH_CHECK(cudaMemcpy(stats_targets_.ptr, targets.data(), targets.size() * sizeof(std::uint32_t),
                        cudaMemcpyHostToDevice));
    IH_CHECK(cudaMemsetAsync(stats_dev_.ptr, 0, lows.size() * sizeof(std::uint64_t), nullptr));
    p.targets = stats_targets_.ptr;
    p.lows = stats_dev_.ptr;
    launch_key_lows(p, stats_blocks(image), nullptr);
    IH_CHECK(cudaGetLastError());
    IH_CHECK(cudaMemcpyAsync(stats_host_.ptr, stats_dev_.ptr, lows.size() * sizeof(std::uint64_t),
                             cudaMemcpyDeviceToHost, nullptr));
    IH_CHECK(cudaStreamSynchronize(nullptr));
    std::copy_n(stats_host_.ptr, lows.size(), lows.begin());
    call.ok();
}

}  // namespace imghist::cuda_detail
