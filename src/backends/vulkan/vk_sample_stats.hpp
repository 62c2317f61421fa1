// The sample statistics of device images on the vulkan backend (SlotCounter's
// accumulate_sample_sums_device and accumulate_key_lows_device): sample_stats.comp's two passes
// recorded over the dispatches plan_launch() cuts the image (and its mask) into, so that they
// read the same pixels as the histogram.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "backends/vulkan/vk_histogram.hpp"
#include "core/sample_stats_sums.hpp"

namespace imghist::vk {

// sample_stats.comp's specialization constants, in constant_id order.
struct StatsSpecConstants {
    std::uint32_t group_size = 256, bytes_per_sample = 1, half = 0, samples = 1, channels = 1;
    std::uint32_t sources[5] = {};
    std::uint32_t red = 0, green = 1, blue = 2;
    std::uint32_t select_mask = 0, alpha_kind = 0, alpha_sample = 0, lows = 0;
    auto operator<=>(const StatsSpecConstants&) const = default;
};

// Binding 2 of the second pass: for plan channels 0..5 where each one's targets start (6
// words), then every channel's targets in turn (RankSelection::targets, ascending).
std::vector<std::uint32_t> target_words(std::span<const RankSelection> selections);

class SampleStatsCore {
public:
    explicit SampleStatsCore(HistogramCore& core);

    // The first pass into the `words` uint64 counters at the start of `counters`
    // (plan.channels.size() * IH_STATS_SLOTS, zeroed).
    void record_sums(VkCommandBuffer cmd, DescriptorArena& arena, const DeviceImage& image, const HistogramPlan& plan,
                     const Selection& selection, VkBuffer counters, std::size_t words);
    // The second pass into the `words` uint64 counters at the start of `counters` (the lows of
    // every target, zeroed), the targets in `targets` (target_words()).
    void record_lows(VkCommandBuffer cmd, DescriptorArena& arena, const DeviceImage& image, const HistogramPlan& plan,
                     const Selection& selection, VkBuffer targets, VkBuffer counters, std::size_t words);

private:
    void record(VkCommandBuffer cmd, DescriptorArena& arena, const DeviceImage& image, const HistogramPlan& plan,
                const Selection& selection, VkBuffer targets, const VkDescriptorBufferInfo& counters);
    VkPipeline pipeline(bool denorm_preserve, const StatsSpecConstants& spec);

    HistogramCore& core_;
    PipelineLayout layout_;
    ShaderModule modules_[2];  // plain, fp32 denormals kept
    std::map<std::pair<bool, StatsSpecConstants>, Pipeline> pipelines_;
};

}  // namespace imghist::vk
