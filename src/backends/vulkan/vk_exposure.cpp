// vulkan::ExposureStep: exposure.comp recorded into a caller's command buffer, its settings in
// a small buffer written once, and one descriptor set per frame in flight.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "backends/vulkan/vk_exposure.hpp"
#include "backends/vulkan/vk_util.hpp"
#include "contract/exposure.h"
#include "core/exposure/metering.hpp"
#include "imghist/error.hpp"
#include "imghist/vulkan.hpp"

IMGHIST_VK_SPIRV(exposure)

namespace imghist::vulkan {

namespace {

constexpr std::uint32_t kMaxRing = 16;
constexpr std::uint32_t kBindings = 3;  // counters, control, state

// exposure.comp's Control block (std430).
struct ControlBlock {
    std::int32_t lo_bins;
    std::uint32_t per_stop, bins, from_hundredths, to_hundredths, meter_below, count_ends, curve_points;
    float key_ev, min_ev, max_ev, compensation, speed_up, speed_down, inverse_distance, unused;
    float curve[kMaxCompensationPoints][4];  // ev, stops, 1 / width to the next point, 0
};
static_assert(sizeof(ControlBlock) == 16 * 4 + kMaxCompensationPoints * 16);

// exposure.comp's Params block.
struct PushConstants {
    std::uint32_t first_slot, state_word;
    float seconds;
};

EvGrid checked_grid(const BinLayout& bins, std::uint64_t max_pixels) {
    const std::optional<EvGrid> grid = ev_grid(bins.edges);
    if (!grid)
        throw InvalidArgument("vulkan exposure: the luminance bins must be EV bins (ev_edges) whose LO is a whole "
                              "number of bins");
    // Every sum of exposure.comp stays below 2^63: the parts, their positions, 2 j W and 2 P W.
    const double bound = double(IH_EXPOSURE_PARTS_PER_SAMPLE) * double(max_pixels) *
                         (2.0 * grid->bins + 2.0 * std::fabs(double(grid->lo_bins)) + 2.0 * grid->per_stop);
    if (max_pixels == 0 || !(bound < 0x1p63))
        throw InvalidArgument("vulkan exposure: frames of " + std::to_string(max_pixels) +
                              " pixels do not fit the 64-bit exact mean of these bins (pixels * 10,000 * "
                              "(2 bins + 2 |LO in bins| + 2 bins per stop) must stay below 2^63)");
    return *grid;
}

ControlBlock control_block(const EvGrid& grid, const BinLayout& bins, const ExposureControl& control) {
    ControlBlock b{};
    b.lo_bins = grid.lo_bins;
    b.per_stop = grid.per_stop;
    b.bins = grid.bins;
    b.from_hundredths = metering::hundredths(control.metering.low_percent);
    b.to_hundredths = metering::hundredths(control.metering.high_percent);
    b.meter_below = control.metering.below == BelowRange::meter ? 1 : 0;
    b.count_ends = bins.clamp ? 0 : 1;
    b.curve_points = std::uint32_t(control.curve.size());
    b.key_ev = metering::key_ev(control.metering.key);
    b.min_ev = control.min_ev;
    b.max_ev = control.max_ev;
    b.compensation = control.compensation;
    b.speed_up = control.speed_up;
    b.speed_down = control.speed_down;
    b.inverse_distance = metering::reciprocal(control.distance);
    for (std::size_t i = 0; i < control.curve.size(); ++i) {
        const bool last = i + 1 == control.curve.size();
        b.curve[i][0] = control.curve[i].ev;
        b.curve[i][1] = control.curve[i].stops;
        b.curve[i][2] = last ? 0.0f : metering::reciprocal(double(control.curve[i + 1].ev) - double(control.curve[i].ev));
    }
    return b;
}

}  // namespace

void check_exposure_frame(float seconds, VkDeviceSize counters_offset, std::uint32_t slots, VkDeviceSize state_offset) {
    if (!(seconds >= 0) || !std::isfinite(seconds))
        throw InvalidArgument("vulkan exposure: the frame's time must be finite and >= 0 seconds (got " +
                              std::to_string(seconds) + ")");
    if (counters_offset % 8 != 0 || state_offset % 4 != 0)
        throw InvalidArgument("vulkan exposure: the counters' offset must be a multiple of 8 and the state's of 4");
    if (counters_offset / 8 + slots > UINT32_MAX || state_offset / 4 + 6 > UINT32_MAX)
        throw InvalidArgument("vulkan exposure: the counters or the state lie beyond what the shader indexes");
}

struct ExposureStep::Impl {
    VkDevice device = VK_NULL_HANDLE;
    std::uint32_t slots = 0;  // bins + 3
    vk::Allocation control;
    vk::DescriptorSetLayout set_layout;
    vk::PipelineLayout layout;
    vk::ShaderModule module;
    vk::Pipeline pipeline;
    vk::DescriptorPool pool;
    std::vector<VkDescriptorSet> sets;  // one per frame in flight

    void make_sets(std::uint32_t ring);
    void write_set(VkDescriptorSet set, VkBuffer counters, VkBuffer state) const;
};

void ExposureStep::Impl::make_sets(std::uint32_t ring) {
    set_layout = vk::make_storage_set_layout(device, kBindings);
    pool = vk::make_storage_pool(device, ring, kBindings);
    const std::vector<VkDescriptorSetLayout> layouts(ring, set_layout.get());
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = pool.get();
    alloc.descriptorSetCount = ring;
    alloc.pSetLayouts = layouts.data();
    sets.resize(ring);
    IMGHIST_VK(vkAllocateDescriptorSets, device, &alloc, sets.data());
}

void ExposureStep::Impl::write_set(VkDescriptorSet set, VkBuffer counters, VkBuffer state) const {
    const VkDescriptorBufferInfo infos[kBindings] = {
        {counters, 0, VK_WHOLE_SIZE}, {control.buffer.get(), 0, VK_WHOLE_SIZE}, {state, 0, VK_WHOLE_SIZE}};
    const VkDescriptorBufferInfo* pointers[kBindings] = {&infos[0], &infos[1], &infos[2]};
    vk::write_storage_set(device, set, pointers, kBindings);
}

ExposureStep::ExposureStep(const DeviceContext& context, const BinLayout& bins, const ExposureControl& control,
                           std::uint64_t max_pixels, std::uint32_t ring)
    : impl_(std::make_unique<Impl>()) {
    // Every setting is checked before anything is made on the device.
    if (ring == 0 || ring > kMaxRing)
        throw InvalidArgument("vulkan exposure: the ring of frames in flight must hold 1 to " +
                              std::to_string(kMaxRing) + " frames (got " + std::to_string(ring) + ")");
    control.validate();
    const EvGrid grid = checked_grid(bins, max_pixels);
    const ControlBlock block = control_block(grid, bins, control);
    Impl& m = *impl_;
    m.device = context.device;
    m.slots = grid.bins + 3;
    m.control = vk::allocate_buffer(context.physical_device, context.device, sizeof block,
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true, /*read_by_shaders=*/true);
    std::memcpy(m.control.mapped, &block, sizeof block);
    m.make_sets(ring);
    m.layout = vk::make_pipeline_layout(m.device, m.set_layout.get(), sizeof(PushConstants));
    m.module = vk::make_shader_module(m.device, imghist_vk_exposure, imghist_vk_exposure_size);
    m.pipeline = vk::make_compute_pipeline(m.device, m.module.get(), m.layout.get(), nullptr);
}

ExposureStep::~ExposureStep() = default;

void ExposureStep::record(VkCommandBuffer cmd, std::uint64_t frame, VkBuffer counters, VkDeviceSize counters_offset,
                          VkBuffer state, VkDeviceSize state_offset, float seconds) {
    check_exposure_frame(seconds, counters_offset, impl_->slots, state_offset);
    Impl& m = *impl_;
    const VkDescriptorSet set = m.sets[frame % m.sets.size()];
    m.write_set(set, counters, state);
    const PushConstants pc{std::uint32_t(counters_offset / 8), std::uint32_t(state_offset / 4), seconds};
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, m.pipeline.get());
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, m.layout.get(), 0, 1, &set, 0, nullptr);
    vkCmdPushConstants(cmd, m.layout.get(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
    vkCmdDispatch(cmd, 1, 1, 1);
}

}  // namespace imghist::vulkan
