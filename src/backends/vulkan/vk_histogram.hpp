// The device side of the vulkan backend, shared by the Engine (its own VkDevice, host images)
// and the public interop API (a caller's VkDevice and VkBuffer): pipelines built from the
// embedded SPIR-V, the 32-bit work counters, and the recording of one histogram into a
// command buffer (tiles, channel passes, flushes into 64-bit totals) as plan_launch()
// (vk_launch.hpp) decides it.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "backends/vulkan/vk_launch.hpp"
#include "backends/vulkan/vk_util.hpp"
#include "core/plan.hpp"
#include "core/selection.hpp"
#include "imghist/vulkan.hpp"

namespace imghist::vk {

// Descriptor sets for the commands of one recording; reset() only once those commands have
// finished executing.
class DescriptorArena {
public:
    explicit DescriptorArena(VkDevice device) : device_(device) {}
    VkDescriptorSet allocate(VkDescriptorSetLayout layout);
    void reset();
    // Frees every set but keeps the pools, so that a recording of the same shape allocates no
    // pool again (a frame loop's arena, once its frame has finished executing).
    void recycle();
    std::uint64_t pools_made() const { return pools_made_; }  // over the arena's life

private:
    VkDevice device_;
    std::vector<DescriptorPool> pools_;
    std::size_t current_ = 0;  // the pool sets are taken from
    std::uint32_t used_ = 0;   // sets taken from pools_[current_]
    std::uint64_t pools_made_ = 0;
};

class HistogramCore {
public:
    // float_controls: the device has VK_KHR_shader_float_controls enabled (or is Vulkan 1.2+);
    // fp32 shaders then keep denormals where the device offers it.
    HistogramCore(VkPhysicalDevice physical, VkDevice device, Tuning tuning = {}, bool float_controls = false);
    HistogramCore(const HistogramCore&) = delete;
    HistogramCore& operator=(const HistogramCore&) = delete;

    // Whether one channel of the plan fits in the device's shared memory.
    bool supports(const HistogramPlan& plan) const { return plan.bins() <= max_bins(); }
    std::uint32_t max_bins() const { return vk::max_bins(limits_); }
    const VkPhysicalDeviceProperties& properties() const { return props_; }
    const DeviceLimits& limits() const { return limits_; }
    VkDevice device() const { return device_; }
    bool denorm_preserve() const { return limits_.denorm_preserve; }
    VkPhysicalDevice physical() const { return physical_; }
    const Tuning& tuning() const { return tuning_; }

    // Zeroes the work counters (after a barrier on earlier use).
    void record_begin(VkCommandBuffer cmd);
    // Counts `image` (its memory a VkBuffer, vulkan::memory_of; format plan.format) into the
    // 64-bit totals at `totals_offset` (plan.total_slots() uint64, offset a multiple of 8).
    // `overwrite` starts the totals afresh; otherwise adds to them. Ends with a
    // compute-to-compute barrier; the caller adds its own before reading totals. With a
    // `selection` (its mask a VkBuffer too), only the pixels it selects, and the totals are one
    // more: how many, then the plan's.
    void record_image(VkCommandBuffer cmd, DescriptorArena& arena, const DeviceImage& image,
                      const HistogramPlan& plan, VkBuffer totals, VkDeviceSize totals_offset, bool overwrite,
                      const Selection* selection = nullptr);

    // A tile grid (plan_tile_launch): counts `band`, rows of the grid's area from grid.first_row,
    // into the 64-bit totals of every tile at `totals_offset` ([tile][plan.total_slots()]).
    // `overwrite` starts the totals afresh. reserve_tile_counts(its total) first, while no
    // submitted work uses the core.
    void record_tiles(VkCommandBuffer cmd, DescriptorArena& arena, const DeviceImage& band, const HistogramPlan& plan,
                      const GridRows& grid, VkBuffer totals, VkDeviceSize totals_offset, bool overwrite);
    // Whether a grid of `slots` counters in all fits one binding (the work counters and the
    // totals), and grows the tile grids' work counters to them.
    bool fits_tile_grid(std::uint64_t slots) const { return slots * 8 <= limits_.max_range - limits_.offset_alignment; }
    void reserve_tile_counts(std::uint64_t slots);

    // A descriptor set of set_layout()'s four storage-buffer bindings (histogram.comp's pixels,
    // counters, edge keys, a mask); without `binding3`, binding 0 again (never read).
    VkDescriptorSet write_set(DescriptorArena& arena, const VkDescriptorBufferInfo& binding0,
                              const VkDescriptorBufferInfo& binding1, const VkDescriptorBufferInfo& binding2,
                              const VkDescriptorBufferInfo* binding3 = nullptr);
    VkDescriptorSetLayout set_layout() const { return set_layout_.get(); }

    // What record_image() dispatches, for reports and the benchmark.
    Shape shape(const DeviceImage& image, const HistogramPlan& plan) const {
        return decide_shape(plan, image, limits_, tuning_);
    }

private:
    // Binds the tile's pixels and counts them with every pass.
    // `counts` is the binding of the work counters; without `then_barrier` the next dispatch may
    // overlap this one (a tile grid's rows of tiles touch different counters).
    void record_tile(VkCommandBuffer cmd, DescriptorArena& arena, const LaunchPlan& launch, const TileLaunch& tile,
                     const DeviceImage& image, const std::vector<VkPipeline>& pipelines, VkBuffer edge_keys,
                     const VkDescriptorBufferInfo& counts, bool then_barrier = true,
                     const Selection* selection = nullptr);
    // Moves the work counters into the totals (flush.comp) and zeroes them.
    void record_flush(VkCommandBuffer cmd, VkDescriptorSet set, const LaunchPlan& launch, bool overwrite);
    VkBuffer edge_keys(const HistogramPlan& plan);
    VkPipeline pipeline(int variant, const SpecConstants& spec);
    VkShaderModule module(int variant);
    void make_layouts();

    VkPhysicalDevice physical_;
    VkDevice device_;
    Tuning tuning_;
    VkPhysicalDeviceProperties props_{};
    DeviceLimits limits_;
    DescriptorSetLayout set_layout_;
    PipelineLayout hist_layout_, flush_layout_;
    std::map<int, ShaderModule> modules_;
    ShaderModule flush_module_;
    Pipeline flush_pipeline_;
    std::map<std::pair<int, SpecConstants>, Pipeline> pipelines_;
    Allocation counts_;  // 32-bit work counters: the most slots any supported plan needs, and a selected count
    GrowingBuffer tile_counts_;  // a tile grid's 32-bit work counters (reserve_tile_counts)
    // Edge keys (binding 2) and, for floats, their code table (edge_keys()), one buffer per
    // distinct set and table (0: none; 1 + the plan's clamp), kept while the core lives: command
    // buffers recorded for later submission keep reading them. The empty set is uniform bins'
    // one unread word.
    std::map<std::pair<std::vector<std::uint32_t>, std::uint32_t>, Allocation> edge_keys_;
};

}  // namespace imghist::vk
