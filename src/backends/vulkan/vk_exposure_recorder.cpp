// vulkan::ExposureRecorder: a frame's luminance histogram (HistogramCore) and ExposureStep, with
// one counters buffer and one descriptor arena per frame in flight, recycled when the ring comes
// round, so a frame loop creates no device object after its first `ring` frames.
#include <algorithm>
#include <string>
#include <vector>

#include "backends/vulkan/vk_exposure.hpp"
#include "backends/vulkan/vk_histogram.hpp"
#include "backends/vulkan/vk_tuning.hpp"
#include "core/plan.hpp"
#include "imghist/error.hpp"
#include "imghist/vulkan.hpp"

namespace imghist::vulkan {

namespace {

// Where the luminance channel's slots start in the plan's counters, in bytes.
VkDeviceSize luminance_offset(const HistogramPlan& plan) {
    const auto y = std::find(plan.channels.begin(), plan.channels.end(), Channel::Y);
    if (y == plan.channels.end())
        throw InvalidArgument("vulkan exposure: the request must count luminance (Mode::luma)");
    return VkDeviceSize(y - plan.channels.begin()) * plan.slots_per_channel() * 8;
}

}  // namespace

struct ExposureRecorder::Impl {
    Impl(const DeviceContext& context, PixelFormat format, const Request& request, const ExposureControl& control,
         std::uint64_t max_pixels, std::uint32_t ring)
        : plan(format, request),
          y_offset(luminance_offset(plan)),
          step(context, plan.layout, control, max_pixels, ring),
          max_pixels(max_pixels),
          core(context.physical_device, context.device, vk::tuning_for(vk::device_identity(context.physical_device)),
               context.float_controls_enabled) {
        arenas.reserve(ring);
        for (std::uint32_t i = 0; i < ring; ++i) {
            arenas.emplace_back(context.device);
            counters.push_back(vk::allocate_buffer(context.physical_device, context.device, plan.total_slots() * 8,
                                                   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false));
        }
    }

    HistogramPlan plan;
    VkDeviceSize y_offset;
    ExposureStep step;  // checks the settings and the ring before anything else is made
    std::uint64_t max_pixels;
    vk::HistogramCore core;
    std::vector<vk::DescriptorArena> arenas;  // one per frame in flight
    std::vector<vk::Allocation> counters;
};

ExposureRecorder::ExposureRecorder(const DeviceContext& context, PixelFormat format, const Request& request,
                                   const ExposureControl& control, std::uint64_t max_pixels, std::uint32_t ring)
    : impl_(std::make_unique<Impl>(context, format, request, control, max_pixels, ring)) {}

ExposureRecorder::~ExposureRecorder() = default;

void ExposureRecorder::record(VkCommandBuffer cmd, std::uint64_t frame, const DeviceImage& image, VkBuffer state,
                              VkDeviceSize state_offset, float seconds) {
    Impl& m = *impl_;
    // Every check first: a bad frame records nothing.
    image.validate();
    if (image.format != m.plan.format)
        throw InvalidArgument("vulkan exposure: the frame's pixel format is not the one the recorder was made for");
    if (std::uint64_t(image.width) * image.height > m.max_pixels)
        throw InvalidArgument("vulkan exposure: a frame of " + std::to_string(image.width) + "x" +
                              std::to_string(image.height) + " pixels is larger than the recorder's " +
                              std::to_string(m.max_pixels));
    check_exposure_frame(seconds, m.y_offset, m.plan.slots_per_channel(), state_offset);
    const std::size_t slot = frame % m.arenas.size();
    vk::DescriptorArena& arena = m.arenas[slot];
    arena.recycle();  // its sets were last used `ring` frames ago, which has finished
    const VkBuffer counters = m.counters[slot].buffer.get();
    m.core.record_begin(cmd);
    m.core.record_image(cmd, arena, image, m.plan, counters, 0, true);
    vk::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    m.step.record(cmd, frame, counters, m.y_offset, state, state_offset, seconds);
}

}  // namespace imghist::vulkan
