// include/imghist/vulkan.hpp: the caller's VkDevice and VkBuffer, HistogramCore underneath.
// compute() counts through count_image() (core/backend_engine.hpp) like every engine, with
// Impl as the slot counter of device images.
#include "imghist/vulkan.hpp"

#include <algorithm>
#include <functional>
#include <optional>

#include "backends/vulkan/vk_histogram.hpp"
#include "backends/vulkan/vk_sample_stats.hpp"
#include "backends/vulkan/vk_tuning.hpp"
#include "core/backend_engine.hpp"
#include "core/interop.hpp"
#include "gpu/tile_bands.hpp"
#include "imghist/error.hpp"

namespace imghist::vulkan {

struct Histogrammer::Impl final : SlotCounter {
    explicit Impl(const DeviceContext& c)
        : context(c),
          core(c.physical_device, c.device, vk::tuning_for(vk::device_identity(c.physical_device)),
               c.float_controls_enabled),
          arena(c.device) {}
    ~Impl() override {
        if (result.size() != 0) vkDeviceWaitIdle(context.device);
    }

    void accumulate(const ImageView&, const HistogramPlan&, std::span<std::uint64_t>) override {
        throw Error("internal error: the vulkan interop counts device images only");
    }
    // Records `plan` into a command buffer of its own, submits it to `queue`, waits, reads back.
    void accumulate_device(const DeviceImage& image, const HistogramPlan& plan, std::span<std::uint64_t> slots) override;
    // A tile grid of a device image in one submission (HistogramCore::record_tiles); grids
    // beyond one binding tile by tile.
    bool counts_tiles_in_one_pass(bool device_image, bool selects_pixels) const override {
        return device_image && !selects_pixels;
    }
    void accumulate_tiles_device(const DeviceImage& image, std::span<const Region> regions, const HistogramPlan& plan,
                                 std::span<std::uint64_t> slots) override;
    // A mask or an alpha threshold, tested by histogram.comp as it counts: one read of the
    // image and of the mask.
    std::optional<std::uint64_t> accumulate_selected_device(const DeviceImage& image, const DeviceImage* mask,
                                                            const AlphaTest& alpha, const HistogramPlan& plan,
                                                            std::span<std::uint64_t> slots) override;

    // Request::sample_stats, counted by sample_stats.comp over the pixels the histogram counts.
    bool accumulate_sample_sums_device(const DeviceImage& image, const DeviceImage* mask, const AlphaTest& alpha,
                                       const HistogramPlan& plan, std::span<std::uint64_t> sums) override;
    void accumulate_key_lows_device(const DeviceImage& image, const DeviceImage* mask, const AlphaTest& alpha,
                                    const HistogramPlan& plan, std::span<const RankSelection> selections,
                                    std::span<std::uint64_t> lows) override;

    // Zeroes the work counters and records `image` into `result` (overwritten).
    void record(VkCommandBuffer cmd, const DeviceImage& image, const HistogramPlan& plan, VkBuffer result_buffer,
                VkDeviceSize result_offset) {
        if (result_buffer == VK_NULL_HANDLE) throw InvalidArgument("vulkan: no result buffer");
        core.record_begin(cmd);
        core.record_image(cmd, arena, image, plan, result_buffer, result_offset, true);
    }
    std::string device_name() const { return core.properties().deviceName; }

    DeviceContext context;
    vk::HistogramCore core;
    vk::DescriptorArena arena;
    VkQueue queue = VK_NULL_HANDLE;  // compute()'s
    // For compute(): created on first use.
    vk::CommandPool pool;
    vk::Fence fence;
    vk::GrowingBuffer result;  // compute()'s counters, host-visible
    std::optional<vk::SampleStatsCore> stats;  // created on first use
    vk::GrowingBuffer targets;                 // the second pass's targets (vk::target_words), host-visible
    vk::GrowingBuffer stats_counters;          // the statistics' counters, device-local: their atomics stay on the device

private:
    void make_pool();
    // Sizes `result` to `words` 64-bit totals, runs `record` (which counts into them), and
    // returns them once they are read back.
    const std::uint64_t* count_into_result(std::uint64_t words, const std::function<void(VkCommandBuffer)>& record);
    // Records one command buffer with `record`, after a barrier on the caller's earlier writes
    // to the pixels (in submission order on this queue), submits it to `queue` and waits.
    void run_once(const std::function<void(VkCommandBuffer)>& record);
    // Zeroes `out.size()` 64-bit counters in stats_counters, runs `record` (which counts into
    // them), and copies them into `out` through `result`.
    void count_statistics(std::span<std::uint64_t> out, const std::function<void(VkCommandBuffer, VkBuffer)>& record);
};

void Histogrammer::Impl::make_pool() {
    if (pool) return;
    VkCommandPoolCreateInfo info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    info.queueFamilyIndex = context.queue_family;
    VkCommandPool p = VK_NULL_HANDLE;
    IMGHIST_VK(vkCreateCommandPool, context.device, &info, nullptr, &p);
    pool = vk::CommandPool(context.device, p);
    VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence f = VK_NULL_HANDLE;
    IMGHIST_VK(vkCreateFence, context.device, &fence_info, nullptr, &f);
    fence = vk::Fence(context.device, f);
}

void Histogrammer::Impl::run_once(const std::function<void(VkCommandBuffer)>& record) {
    make_pool();
    const VkDevice device = context.device;
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool.get();
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    IMGHIST_VK(vkAllocateCommandBuffers, device, &alloc, &cmd);
    struct Free {
        VkDevice d;
        VkCommandPool p;
        VkCommandBuffer c;
        ~Free() { vkFreeCommandBuffers(d, p, 1, &c); }
    } free_cmd{device, pool.get(), cmd};

    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    IMGHIST_VK(vkBeginCommandBuffer, cmd, &begin);
    vk::barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT);
    record(cmd);
    IMGHIST_VK(vkEndCommandBuffer, cmd);

    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    VkFence f = fence.get();
    IMGHIST_VK(vkResetFences, device, 1, &f);
    IMGHIST_VK(vkQueueSubmit, queue, 1, &submit, f);
    const VkResult waited = vkWaitForFences(device, 1, &f, VK_TRUE, UINT64_MAX);
    arena.reset();
    vk::check(waited, "vkWaitForFences");
}

const std::uint64_t* Histogrammer::Impl::count_into_result(std::uint64_t words,
                                                          const std::function<void(VkCommandBuffer)>& record) {
    result.ensure(words * sizeof(std::uint64_t),
                  {context.physical_device, context.device,
                   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, true});
    run_once([&](VkCommandBuffer cmd) {
        record(cmd);
        vk::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                    VK_ACCESS_HOST_READ_BIT);
    });
    return static_cast<const std::uint64_t*>(result.get().mapped);
}

void Histogrammer::Impl::accumulate_device(const DeviceImage& image, const HistogramPlan& plan,
                                           std::span<std::uint64_t> slots) {
    const std::uint64_t* totals = count_into_result(slots.size(), [&](VkCommandBuffer cmd) {
        record(cmd, image, plan, result.get().buffer.get(), 0);
    });
    std::copy_n(totals, slots.size(), slots.begin());
}

std::optional<std::uint64_t> Histogrammer::Impl::accumulate_selected_device(const DeviceImage& image,
                                                                            const DeviceImage* mask,
                                                                            const AlphaTest& alpha,
                                                                            const HistogramPlan& plan,
                                                                            std::span<std::uint64_t> slots) {
    const vk::Selection selection{mask, alpha};
    // The selected count first, then the plan's slots (HistogramCore::record_image).
    const std::uint64_t* totals = count_into_result(1 + slots.size(), [&](VkCommandBuffer cmd) {
        core.record_begin(cmd);
        core.record_image(cmd, arena, image, plan, result.get().buffer.get(), 0, true, &selection);
    });
    std::copy_n(totals + 1, slots.size(), slots.begin());
    return totals[0];
}

void Histogrammer::Impl::accumulate_tiles_device(const DeviceImage& image, std::span<const Region> regions,
                                                 const HistogramPlan& plan, std::span<std::uint64_t> slots) {
    if (!core.fits_tile_grid(slots.size())) return accumulate_each_tile(image, regions, plan, slots);
    const gpu::TileBands grid(regions);
    core.reserve_tile_counts(slots.size());  // nothing of ours is in flight between run_once calls
    const std::uint64_t* totals = count_into_result(slots.size(), [&](VkCommandBuffer cmd) {
        core.record_tiles(cmd, arena, image.crop(grid.area), plan,
                          {grid.area.height, grid.tiles_x(), grid.tiles_y(), 0}, result.get().buffer.get(), 0, true);
    });
    std::copy_n(totals, slots.size(), slots.begin());
}

void Histogrammer::Impl::count_statistics(std::span<std::uint64_t> out,
                                          const std::function<void(VkCommandBuffer, VkBuffer)>& record) {
    if (!stats) stats.emplace(core);
    const VkDeviceSize bytes = VkDeviceSize(out.size()) * 8;
    // Nothing of ours is in flight between run_once calls: the buffer may be replaced.
    stats_counters.ensure(bytes, {context.physical_device, context.device,
                                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                  false});
    const VkBuffer counters = stats_counters.get().buffer.get();
    const std::uint64_t* totals = count_into_result(out.size(), [&](VkCommandBuffer cmd) {
        vkCmdFillBuffer(cmd, counters, 0, bytes, 0);
        vk::barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        record(cmd, counters);
        vk::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                    VK_ACCESS_TRANSFER_READ_BIT);
        const VkBufferCopy copy{0, 0, bytes};
        vkCmdCopyBuffer(cmd, counters, result.get().buffer.get(), 1, &copy);
        vk::barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                    VK_ACCESS_HOST_READ_BIT);
    });
    std::copy_n(totals, out.size(), out.begin());
}

bool Histogrammer::Impl::accumulate_sample_sums_device(const DeviceImage& image, const DeviceImage* mask,
                                                       const AlphaTest& alpha, const HistogramPlan& plan,
                                                       std::span<std::uint64_t> sums) {
    const vk::Selection selection{mask, alpha};
    count_statistics(sums, [&](VkCommandBuffer cmd, VkBuffer counters) {
        stats->record_sums(cmd, arena, image, plan, selection, counters, sums.size());
    });
    return true;
}

void Histogrammer::Impl::accumulate_key_lows_device(const DeviceImage& image, const DeviceImage* mask,
                                                    const AlphaTest& alpha, const HistogramPlan& plan,
                                                    std::span<const RankSelection> selections,
                                                    std::span<std::uint64_t> lows) {
    const std::vector<std::uint32_t> words = vk::target_words(selections);
    // Nothing of ours is in flight between run_once calls: the targets may be rewritten.
    targets.ensure(words.size() * 4, {context.physical_device, context.device, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true});
    std::copy(words.begin(), words.end(), static_cast<std::uint32_t*>(targets.get().mapped));
    const vk::Selection selection{mask, alpha};
    count_statistics(lows, [&](VkCommandBuffer cmd, VkBuffer counters) {
        stats->record_lows(cmd, arena, image, plan, selection, targets.get().buffer.get(), counters, lows.size());
    });
}

Histogrammer::Histogrammer(const DeviceContext& context) {
    if (context.physical_device == VK_NULL_HANDLE || context.device == VK_NULL_HANDLE)
        throw InvalidArgument("vulkan: DeviceContext needs a physical device and a device");
    impl_ = std::make_unique<Impl>(context);
}

Histogrammer::~Histogrammer() = default;

ResultLayout Histogrammer::result_layout(PixelFormat format, const Request& request) const {
    HistogramPlan plan(format, request);
    ResultLayout l;
    l.channels = plan.channels;
    l.bins = plan.layout;
    l.slots_per_channel = plan.slots_per_channel();
    l.bytes = VkDeviceSize(plan.total_slots()) * 8;
    return l;
}

std::uint32_t Histogrammer::max_bins() const { return impl_->core.max_bins(); }

void Histogrammer::record(VkCommandBuffer cmd, const DeviceImage& image, const Request& request, VkBuffer result,
                          VkDeviceSize result_offset) {
    image.validate();
    impl_->record(cmd, image, HistogramPlan(image.format, request), result, result_offset);
}

void Histogrammer::release_recordings() { impl_->arena.reset(); }

Result Histogrammer::compute(VkQueue queue, const DeviceImage& image, const Request& request) {
    impl_->queue = queue;
    return count_image(*impl_, image, request, "vulkan", impl_->device_name());
}

Result Histogrammer::to_result(const DeviceImage& image, const Request& request,
                               std::span<const std::uint64_t> slots) const {
    return HistogramPlan(image.format, request).make_result(image, slots, "vulkan", impl_->device_name());
}

namespace {

// create_engine()'s engine: a Histogrammer on the caller's device and the queue it submits to.
class InteropEngine final : public BackendEngine<> {
public:
    InteropEngine(const DeviceContext& context, VkQueue queue) : histogrammer_(context), queue_(queue) {
        VkPhysicalDeviceProperties properties{};
        vkGetPhysicalDeviceProperties(context.physical_device, &properties);
        device_name_ = properties.deviceName;
    }

    std::string_view backend_name() const override { return "vulkan"; }
    std::string device_name() const override { return device_name_; }

    // Host pixels would need the staging of the backend's own engine, which owns its device.
    void accumulate(const ImageView&, const HistogramPlan&, std::span<std::uint64_t>) override {
        throw InvalidArgument("imghist::vulkan: an engine of vulkan::create_engine counts device images "
                              "(vulkan::compute); count host images with imghist::create_engine(\"vulkan\")");
    }
    Result compute_device(const DeviceImage& image, const Request& request) {
        return histogrammer_.compute(queue_, image, request);
    }

private:
    Histogrammer histogrammer_;
    VkQueue queue_;
    std::string device_name_;
};

}  // namespace

std::unique_ptr<Engine> create_engine(const DeviceContext& context, VkQueue queue) {
    if (queue == VK_NULL_HANDLE) throw InvalidArgument("imghist::vulkan::create_engine: no queue");
    return std::make_unique<InteropEngine>(context, queue);
}

Result compute(Engine& engine, const DeviceImage& image, const Request& request) {
    return interop_engine<InteropEngine>(engine, "vulkan").compute_device(image, request);
}

}  // namespace imghist::vulkan
