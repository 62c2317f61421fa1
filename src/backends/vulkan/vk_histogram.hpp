// The device side of the vulkan backend, shared by the Engine (its own VkDevice, host images)
// and the public interop API (a caller's VkDevice and VkBuffer): pipelines built from the
// embedded SPIR-V, the 32-bit work counters, and the recording of one histogram into a
// command buffer (tiles, channel passes, flushes into 64-bit totals).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "backends/vulkan/vk_util.hpp"
#include "core/plan.hpp"

namespace imghist::vk {

// Shared-memory layouts of histogram.comp (its LAYOUT constant).
enum class SharedLayout : std::uint32_t {
    copies = 0,  // `copies` copies of every slot
    lanes = 1,   // one 32-bit counter per slot and lane
    pairs = 2,   // two lanes' 16-bit counters per word
};

// Shader choices (docs/performance.md, "## Vulkan", has the H200 sweeps behind them).
struct Tuning {
    // Lanes and pairs take 32-48 KiB of shared memory per work-group, and NVIDIA's driver then
    // keeps fewer work-groups per SM. With 1024 invocations per work-group, pairs held 55-62% of
    // the floor on every R, G, B distribution of the H200 sweep; one copy 57-96% but 28% on
    // bank-adversarial data, and one copy with the value swizzle 57-92% on all four: that is the
    // default. A layout that does not fit the device falls back to copies.
    SharedLayout layout = SharedLayout::copies;
    bool value_mode = true;        // 8-bit samples: count raw values, classify in the merge
    std::uint32_t max_copies = 1;  // copies layout: shared copies of every slot (power of two, <= 32)
    std::uint32_t rounds = 8;      // rounds of 4 units (16 or 48 bytes each) per invocation
    // Invocations per work-group (a multiple of 32, at most the device's). 1024 measured 2-15%
    // faster than 256 on the H200 with one copy, and lets lanes/pairs keep the SM busy.
    std::uint32_t group_size = 1024;
    // Copies layout: spread slots over the banks (when copies < 32). -1 (the default): value-mode
    // passes that count a raw sample, with the two-instruction value swizzle (histogram.comp), so
    // values 32 apart do not share a bank; luminance alone (78 against 80%) and bins are left as
    // they are. 0: never; 1: every pass.
    int swizzle = -1;
    std::uint64_t max_tile_pixels = std::uint64_t(1) << 31;  // per dispatch (< 2^32: 32-bit counters)
};

// The defaults, overridden by IMGHIST_VULKAN_TUNE="key=value,..." (keys layout = copies, lanes
// or pairs; value, copies, rounds, swizzle, wg, tile_pixels), as benchmarks and tests do and as
// a caller with adversarial images may (layout=pairs holds its speed on every distribution).
// Throws InvalidArgument on a bad key or value.
Tuning tuning_from_env();

// Descriptor sets for the commands of one recording; reset() only once those commands have
// finished executing.
class DescriptorArena {
public:
    explicit DescriptorArena(VkDevice device) : device_(device) {}
    VkDescriptorSet allocate(VkDescriptorSetLayout layout);
    void reset();

private:
    VkDevice device_;
    std::vector<DescriptorPool> pools_;
    std::uint32_t used_ = 0;  // sets taken from pools_.back()
};

// Where the pixels are: `offset` bytes into `buffer`, rows `stride` bytes apart.
struct BufferSource {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;
    std::uint32_t width = 0, height = 0;
    VkDeviceSize stride = 0;
};

class HistogramCore {
public:
    // float_controls: the device has VK_KHR_shader_float_controls enabled (or is Vulkan 1.2+);
    // fp32 shaders then keep denormals where the device offers it.
    HistogramCore(VkPhysicalDevice physical, VkDevice device, Tuning tuning = {}, bool float_controls = false);
    HistogramCore(const HistogramCore&) = delete;
    HistogramCore& operator=(const HistogramCore&) = delete;

    // Whether one channel of the plan fits in the device's shared memory.
    bool supports(const HistogramPlan& plan) const;
    std::uint32_t max_bins() const;
    const VkPhysicalDeviceProperties& properties() const { return props_; }
    VkDevice device() const { return device_; }
    bool denorm_preserve() const { return denorm_preserve_; }
    VkPhysicalDevice physical() const { return physical_; }

    // Zeroes the work counters (after a barrier on earlier use).
    void record_begin(VkCommandBuffer cmd);
    // Counts `source` into the 64-bit totals at `totals_offset` (plan.total_slots() uint64,
    // offset a multiple of 8). `overwrite` starts the totals afresh; otherwise adds to them.
    // Ends with a compute-to-compute barrier; the caller adds its own before reading totals.
    void record_image(VkCommandBuffer cmd, DescriptorArena& arena, const BufferSource& source,
                      const HistogramPlan& plan, VkBuffer totals, VkDeviceSize totals_offset, bool overwrite);

    // What record_image() dispatches, for reports and the benchmark.
    struct Shape {
        std::uint32_t passes = 1, channels_per_pass = 1, copies = 1, group_size = 256;
        SharedLayout layout = SharedLayout::copies;
        bool value_mode = false;
        bool strided = false;
    };
    Shape shape(const BufferSource& source, const HistogramPlan& plan) const;

private:
    struct PassPipeline;
    VkPipeline pipeline(const HistogramPlan& plan, std::uint32_t first_channel, std::uint32_t channels,
                        const Shape& shape);
    VkShaderModule module(const HistogramPlan& plan);

    VkPhysicalDevice physical_;
    VkDevice device_;
    Tuning tuning_;
    bool denorm_preserve_ = false;
    VkPhysicalDeviceProperties props_{};
    DescriptorSetLayout set_layout_;
    PipelineLayout hist_layout_, flush_layout_;
    std::map<int, ShaderModule> modules_;
    ShaderModule flush_module_;
    Pipeline flush_pipeline_;
    std::map<std::array<std::uint32_t, 23>, Pipeline> pipelines_;
    Allocation counts_;  // 32-bit work counters: the most slots any supported plan needs
};

}  // namespace imghist::vk
