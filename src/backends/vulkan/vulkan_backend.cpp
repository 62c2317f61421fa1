// The vulkan backend: an Engine that owns its instance, device and queue, and counts host
// images by streaming them through two host-visible buffers: the CPU's copy threads fill one
// while the GPU copies the other into device-local memory (where the staging memory is not
// device-local) and counts it there. The counting itself is HistogramCore (vk_histogram.cpp).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

#include "backends/vulkan/vk_device.hpp"
#include "core/backend_engine.hpp"
#include "core/backend_list.hpp"
#include "gpu/copy_pool.hpp"
#include "gpu/staging.hpp"
#include "gpu/tile_bands.hpp"

namespace imghist {
namespace {

class VulkanEngine final : public BackendEngine<> {
public:
    explicit VulkanEngine(const EngineOptions& options) : ctx_(options.device, std::nullopt) {
        for (auto& a : arenas_) a = std::make_unique<vk::DescriptorArena>(ctx_.device());
        VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        info.commandPool = ctx_.command_pool();
        info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        info.commandBufferCount = 2;
        IMGHIST_VK(vkAllocateCommandBuffers, ctx_.device(), &info, cmds_);
        for (auto& f : fences_) f = ctx_.make_fence(true);
        ctx_.check_validation();
    }
    ~VulkanEngine() override { vkDeviceWaitIdle(ctx_.device()); }

    std::string_view backend_name() const override { return "vulkan"; }
    std::string device_name() const override { return ctx_.name(); }

    void accumulate(const ImageView& image, const HistogramPlan& plan, std::span<std::uint64_t> slots) override {
        if (const std::string why = why_on_the_cpu(plan); !why.empty()) {
            add_note(why);
            slot_counter(*cpu_backend().create_engine({})).accumulate(image, plan, slots);
            return;
        }
        run_checked(image, plan, slots, nullptr);
    }

    // Tiles in one pass: the grid's area staged as an image is, each chunk counted by one
    // dispatch per row of tiles it crosses (HistogramCore::record_tiles).
    bool counts_tiles_in_one_pass(bool device_image, bool selects_pixels) const override {
        return !device_image && !selects_pixels;
    }
    bool accumulate_tiles(const ImageView& image, std::span<const Region> regions, const HistogramPlan& plan,
                          const HistogramPlan* clipping, std::span<const PixelSelector* const>,
                          std::span<std::uint64_t> slots, std::span<std::uint64_t>,
                          std::span<std::uint64_t>) override {
        const gpu::TileBands grid(regions);
        if (why_on_the_cpu(plan).empty() && ctx_.core().fits_tile_grid(slots.size()))
            run_checked(image.crop(grid.area), plan, slots, &grid);
        else
            accumulate_each_tile(image, regions, plan, slots);
        return clipping == nullptr;
    }

private:
    vk::BufferTraits totals_traits() const {
        return {ctx_.physical(), ctx_.device(), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true};
    }
    // Whether staged chunks are copied into device-local memory before they are counted.
    bool copies_to_device(const vk::Allocation& staging) {
        const int wanted = ctx_.core().tuning().device_copy;
        return wanted == 1 || (wanted < 0 && !staging.device_local);
    }
    int copy_threads() {
        const std::uint32_t wanted = ctx_.core().tuning().copy_threads;
        return int(wanted > 0 ? wanted : std::clamp(std::thread::hardware_concurrency(), 1u, 16u));
    }

    // Why the shaders cannot count `plan` (the note of the cpu backend's count), or nothing.
    std::string why_on_the_cpu(const HistogramPlan& plan) {
        if (!ctx_.core().supports(plan))
            return "bins > " + std::to_string(ctx_.core().max_bins()) +
                   " do not fit this device's shared memory: counted on the CPU";
        if (plan.info.sample == SampleType::f32 && plan.has_luma() && flushes_fp32_denormals())
            return "this Vulkan device flushes fp32 denormals (no shaderDenormPreserveFloat32): "
                   "fp32 luminance counted on the CPU";
        return {};
    }

    void run_checked(const ImageView& image, const HistogramPlan& plan, std::span<std::uint64_t> slots,
                     const gpu::TileBands* grid) {
        try {
            run(image, plan, slots, grid);
        } catch (...) {
            // Leave the engine usable: nothing may still be running on the staging buffers.
            vkDeviceWaitIdle(ctx_.device());
            throw;
        }
        ctx_.check_validation();
    }

    // Whether the fp32 shader loses denormals (NVIDIA flushes them unless DenormPreserve is
    // available): one pixel whose luminance is a negative denormal must count as `below`.
    bool flushes_fp32_denormals() {
        if (ctx_.core().denorm_preserve()) return false;
        if (!flushes_) {
            const float pixel[3] = {-1e-39f, 0.0f, 0.0f};
            const ImageView view = ImageView::packed(pixel, 1, 1, PixelFormat::rgb_f32);
            Request request;
            request.mode = Mode::luma;
            const HistogramPlan probe(view.format, request);
            std::vector<std::uint64_t> counts(probe.total_slots(), 0);
            run(view, probe, counts);
            flushes_ = counts[probe.bins() + IH_SLOT_BELOW] != 1;
        }
        return *flushes_;
    }

    // Counts `image` into slots; with `grid`, the image is the grid's area and every tile
    // counts into its own slots.
    void run(const ImageView& image, const HistogramPlan& plan, std::span<std::uint64_t> slots,
             const gpu::TileBands* grid = nullptr) {
        const VkDevice device = ctx_.device();
        // Nothing is in flight between calls: the buffers may grow.
        totals_.ensure(slots.size() * sizeof(std::uint64_t), totals_traits());
        if (grid) ctx_.core().reserve_tile_counts(slots.size());
        const std::size_t row_bytes = image.row_bytes();
        const VkDeviceSize chunk_bytes = VkDeviceSize(ctx_.core().tuning().chunk_mb) << 20;
        const gpu::RowPieces chunks = gpu::split_rows(image.height, row_bytes, chunk_bytes);
        const VkDeviceSize staging_bytes = std::max(VkDeviceSize(chunks.rows_per_piece) * row_bytes, chunk_bytes) + 64;
        const vk::BufferTraits host_buffer{ctx_.physical(), device,
                                           VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true};
        for (auto& s : staging_) s.ensure(staging_bytes, host_buffer);
        const bool to_device = copies_to_device(staging_[0].get());
        const vk::BufferTraits device_buffer{ctx_.physical(), device,
                                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false};
        if (to_device)
            for (auto& r : resident_) r.ensure(staging_bytes, device_buffer);
        const int threads = copy_threads();

        for (std::uint64_t index = 0; index < chunks.count(); ++index) {
            const std::uint32_t k = index % 2;
            const auto [y, rows] = chunks[index];
            VkFence fence = fences_[k].get();
            IMGHIST_VK(vkWaitForFences, device, 1, &fence, VK_TRUE, UINT64_MAX);
            arenas_[k]->reset();
            const vk::Allocation& staging = staging_[k].get();
            // Streaming stores: the staging memory is only read by the device (copy_pool.hpp).
            gpu::copy_rows(copy_pool_, threads, static_cast<std::byte*>(staging.mapped), image, std::uint32_t(y),
                           std::uint32_t(rows), true);
            const VkBuffer counted = to_device ? resident_[k].get().buffer.get() : staging.buffer.get();
            const DeviceImage chunk = vulkan::device_image(counted, 0, image.width, std::uint32_t(rows), 0, image.format);
            record_chunk(k, chunk, plan, index == 0, index + 1 == chunks.count(), grid, std::uint32_t(y),
                         to_device ? staging.buffer.get() : VK_NULL_HANDLE);
        }
        VkFence all[2] = {fences_[0].get(), fences_[1].get()};
        IMGHIST_VK(vkWaitForFences, device, 2, all, VK_TRUE, UINT64_MAX);
        std::memcpy(slots.data(), totals_.get().mapped, slots.size() * sizeof(std::uint64_t));
    }

    // Records and submits the count of one staged chunk (rows from `first_row`) into the totals
    // (started afresh by the first chunk; the last makes them visible to the host). With
    // `staged`, the chunk's buffer is first filled from that one (the pixels' bytes).
    void record_chunk(std::uint32_t k, const DeviceImage& chunk, const HistogramPlan& plan, bool first, bool last,
                      const gpu::TileBands* grid, std::uint32_t first_row, VkBuffer staged) {
        VkCommandBuffer cmd = cmds_[k];
        IMGHIST_VK(vkResetCommandBuffer, cmd, 0);
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        IMGHIST_VK(vkBeginCommandBuffer, cmd, &begin);
        if (staged != VK_NULL_HANDLE) {
            // The shaders' reads of this buffer's last chunk come before the copy overwrites it.
            vk::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                        VK_ACCESS_TRANSFER_WRITE_BIT);
            const VkBufferCopy region{0, 0, chunk.extent_bytes()};
            vkCmdCopyBuffer(cmd, staged, vulkan::buffer_of(chunk), 1, &region);
            vk::barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                        VK_ACCESS_SHADER_READ_BIT);
        }
        if (first) ctx_.core().record_begin(cmd);
        const VkBuffer totals = totals_.get().buffer.get();
        if (grid)
            ctx_.core().record_tiles(cmd, *arenas_[k], chunk, plan,
                                     {grid->area.height, grid->tiles_x(), grid->tiles_y(), first_row}, totals, 0, first);
        else
            ctx_.core().record_image(cmd, *arenas_[k], chunk, plan, totals, 0, first);
        if (last)
            vk::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                        VK_ACCESS_HOST_READ_BIT);
        IMGHIST_VK(vkEndCommandBuffer, cmd);
        VkFence fence = fences_[k].get();
        IMGHIST_VK(vkResetFences, ctx_.device(), 1, &fence);
        ctx_.submit(cmd, fence);
    }

    vk::Context ctx_;
    std::unique_ptr<vk::DescriptorArena> arenas_[2];
    VkCommandBuffer cmds_[2] = {};
    vk::Fence fences_[2];
    vk::GrowingBuffer staging_[2];   // the chunks, packed (the device reads each as one run of pixels)
    vk::GrowingBuffer resident_[2];  // their device-local copies, where copies_to_device
    gpu::CopyPool copy_pool_;        // the threads filling the staging buffers
    vk::GrowingBuffer totals_;      // host-visible 64-bit totals ([tile][slot] for a tile grid)
    std::optional<bool> flushes_;
};

class VulkanBackend final : public Backend {
public:
    std::string_view name() const override { return "vulkan"; }
    std::string_view summary() const override {
        return "Vulkan compute shaders (GLSL, shared-memory atomics); host images or a caller's VkBuffer";
    }
    std::vector<DeviceInfo> devices() const override {
        std::vector<DeviceInfo> out;
        try {
            vk::Instance instance(false);
            for (const auto& d : vk::physical_devices(instance.get()))
                out.push_back(vk::device_info(d));
            if (out.empty()) out.push_back({"", "(no Vulkan device)", false, false, "the Vulkan loader found no device"});
        } catch (const std::exception& e) {
            out.push_back({"", "(no Vulkan device)", false, false, e.what()});
        }
        return out;
    }
    std::unique_ptr<Engine> create_engine(const EngineOptions& options) const override {
        try {
            return std::make_unique<VulkanEngine>(options);
        } catch (const BackendUnavailable&) {
            throw;
        } catch (const DeviceError& e) {
            throw BackendUnavailable(std::string("vulkan: ") + e.what());
        }
    }
};

}  // namespace

const Backend& vulkan_backend() {
    static const VulkanBackend backend;
    return backend;
}

}  // namespace imghist
