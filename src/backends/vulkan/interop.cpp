// include/imghist/vulkan.hpp: the caller's VkDevice and VkBuffer, HistogramCore underneath.
#include "imghist/vulkan.hpp"

#include <cstring>

#include "backends/vulkan/vk_histogram.hpp"
#include "imghist/error.hpp"

namespace imghist::vulkan {

struct Histogrammer::Impl {
    Impl(const DeviceContext& c)
        : context(c), core(c.physical_device, c.device, vk::tuning_from_env(), c.float_controls_enabled),
          arena(c.device) {}
    ~Impl() {
        if (result.buffer) vkDeviceWaitIdle(context.device);
    }
    DeviceContext context;
    vk::HistogramCore core;
    vk::DescriptorArena arena;
    // For compute(): created on first use.
    vk::CommandPool pool;
    vk::Fence fence;
    vk::Allocation result;
};

namespace {

void check_context(const DeviceContext& c) {
    if (c.physical_device == VK_NULL_HANDLE || c.device == VK_NULL_HANDLE)
        throw InvalidArgument("vulkan: DeviceContext needs a physical device and a device");
}

// Validates the image and turns it into the core's source description.
vk::BufferSource source_of(const BufferImage& image) {
    const FormatInfo& fi = format_info(image.format);
    if (image.buffer == VK_NULL_HANDLE) throw InvalidArgument("vulkan: BufferImage has no buffer");
    if (image.width == 0 || image.height == 0) throw InvalidArgument("vulkan: BufferImage has zero size");
    const VkDeviceSize row = VkDeviceSize(image.width) * fi.pixel_bytes();
    const VkDeviceSize stride = image.stride_bytes == 0 ? row : image.stride_bytes;
    if (stride < row) throw InvalidArgument("vulkan: BufferImage stride is smaller than one row");
    if (stride % fi.bytes_per_sample != 0 || image.offset % fi.bytes_per_sample != 0)
        throw InvalidArgument("vulkan: BufferImage offset and stride must be multiples of the sample size");
    return {image.buffer, image.offset, image.width, image.height, stride};
}

}  // namespace

Histogrammer::Histogrammer(const DeviceContext& context) {
    check_context(context);
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

void Histogrammer::record(VkCommandBuffer cmd, const BufferImage& image, const Request& request, VkBuffer result,
                          VkDeviceSize result_offset) {
    const vk::BufferSource src = source_of(image);
    HistogramPlan plan(image.format, request);
    if (result == VK_NULL_HANDLE) throw InvalidArgument("vulkan: no result buffer");
    impl_->core.record_begin(cmd);
    impl_->core.record_image(cmd, impl_->arena, src, plan, result, result_offset, true);
}

void Histogrammer::release_recordings() { impl_->arena.reset(); }

Result Histogrammer::compute(VkQueue queue, const BufferImage& image, const Request& request) {
    Impl& m = *impl_;
    const VkDevice device = m.context.device;
    if (!m.pool) {
        VkCommandPoolCreateInfo info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
        info.queueFamilyIndex = m.context.queue_family;
        VkCommandPool pool = VK_NULL_HANDLE;
        IMGHIST_VK(vkCreateCommandPool, device, &info, nullptr, &pool);
        m.pool = vk::CommandPool(device, pool);
        VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        VkFence fence = VK_NULL_HANDLE;
        IMGHIST_VK(vkCreateFence, device, &fence_info, nullptr, &fence);
        m.fence = vk::Fence(device, fence);
    }
    const ResultLayout layout = result_layout(image.format, request);
    if (m.result.size < layout.bytes)
        m.result = vk::allocate_buffer(m.context.physical_device, device, layout.bytes,
                                       VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true);

    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = m.pool.get();
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    IMGHIST_VK(vkAllocateCommandBuffers, device, &alloc, &cmd);
    struct Free {
        VkDevice d;
        VkCommandPool p;
        VkCommandBuffer c;
        ~Free() { vkFreeCommandBuffers(d, p, 1, &c); }
    } free_cmd{device, m.pool.get(), cmd};

    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    IMGHIST_VK(vkBeginCommandBuffer, cmd, &begin);
    // The caller's earlier writes to the pixels, in submission order on this queue.
    vk::barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT);
    record(cmd, image, request, m.result.buffer.get(), 0);
    vk::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                VK_ACCESS_HOST_READ_BIT);
    IMGHIST_VK(vkEndCommandBuffer, cmd);
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    VkFence fence = m.fence.get();
    IMGHIST_VK(vkResetFences, device, 1, &fence);
    IMGHIST_VK(vkQueueSubmit, queue, 1, &submit, fence);
    const VkResult waited = vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX);
    release_recordings();
    vk::check(waited, "vkWaitForFences");

    std::vector<std::uint64_t> slots(layout.bytes / 8);
    std::memcpy(slots.data(), m.result.mapped, layout.bytes);
    return to_result(image, request, slots);
}

Result Histogrammer::to_result(const BufferImage& image, const Request& request,
                               std::span<const std::uint64_t> slots) const {
    HistogramPlan plan(image.format, request);
    ImageView view;
    view.width = image.width;
    view.height = image.height;
    view.format = image.format;
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(impl_->context.physical_device, &props);
    return plan.make_result(view, slots, "vulkan", props.deviceName);
}

}  // namespace imghist::vulkan
