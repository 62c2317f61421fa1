#include "backends/vulkan/vk_sample_stats.hpp"

#include <algorithm>

#include "contract/exact_sum.h"
#include "contract/kernel_args.h"
#include "imghist/error.hpp"
#include "imghist/vulkan.hpp"

// SPIR-V compiled from sample_stats.comp at build time (CMakeLists.txt).
IMGHIST_VK_SPIRV(sample_stats)
IMGHIST_VK_SPIRV(sample_stats_p)

namespace imghist::vk {
namespace {

constexpr std::uint32_t kPixelsPerInvocation = 16;  // PIXELS_PER_INVOCATION in sample_stats.comp
constexpr std::uint32_t kSpecCount = sizeof(StatsSpecConstants) / 4;
constexpr std::uint32_t kTargetStarts = 6;  // target_words(): plan channels 0..5

// sample_stats.comp's Params block.
struct SampleStatsPushConstants {
    std::uint32_t pixels, base_byte, width, stride, mask_base, mask_pitch, alpha_least, first_channel;
    std::uint32_t weight_int[3];
    float weight_float[3];
};
static_assert(sizeof(SampleStatsPushConstants) == 14 * 4);

// Shared words one channel's partials take (CHANNEL_WORDS in sample_stats.comp).
std::uint32_t channel_words(const FormatInfo& fi) {
    if (fi.sample == SampleType::u8) return 256;
    return fi.is_float() ? 4 * IH_SUM_BUCKETS * 2 + 2 : 0;
}

StatsSpecConstants spec_of(const HistogramPlan& plan, const gpu::ChannelPass& pass, const Selection& selection,
                           std::uint32_t group_size, bool lows) {
    const FormatInfo& fi = plan.info;
    StatsSpecConstants k;
    k.group_size = group_size;
    k.bytes_per_sample = std::uint32_t(fi.bytes_per_sample);
    k.half = fi.sample == SampleType::f16 ? 1 : 0;
    k.samples = std::uint32_t(fi.channels);
    k.channels = pass.count;
    for (unsigned c = 0; c < pass.count; ++c) {
        const int source = plan.sources[pass.first + c];
        k.sources[c] = source == kLumaSource ? IH_SRC_LUMA : std::uint32_t(source);
    }
    k.red = std::uint32_t(std::max(fi.red, 0));
    k.green = std::uint32_t(std::max(fi.green, 0));
    k.blue = std::uint32_t(std::max(fi.blue, 0));
    k.select_mask = selection.mask ? 1 : 0;
    k.alpha_kind = selection.alpha.kind;
    k.alpha_sample = selection.alpha.kind != IH_ALPHA_ALL ? std::uint32_t(fi.alpha) : 0;
    k.lows = lows ? 1 : 0;
    return k;
}

}  // namespace

std::vector<std::uint32_t> target_words(std::span<const RankSelection> selections) {
    if (selections.size() >= kTargetStarts) throw Error("internal error: too many channels for sample_stats.comp");
    PackedTargets packed = pack_targets(selections);
    std::vector<std::uint32_t> words = std::move(packed.starts);
    words.resize(kTargetStarts, words.back());  // the shader's fixed starts: channels past the plan's are empty
    words.insert(words.end(), packed.targets.begin(), packed.targets.end());
    return words;
}

SampleStatsCore::SampleStatsCore(HistogramCore& core) : core_(core) {
    layout_ = make_pipeline_layout(core.device(), core.set_layout(), sizeof(SampleStatsPushConstants));
    modules_[0] = make_shader_module(core.device(), imghist_vk_sample_stats, imghist_vk_sample_stats_size);
    modules_[1] = make_shader_module(core.device(), imghist_vk_sample_stats_p, imghist_vk_sample_stats_p_size);
}

VkPipeline SampleStatsCore::pipeline(bool denorm_preserve, const StatsSpecConstants& spec) {
    const auto key = std::make_pair(denorm_preserve, spec);
    auto it = pipelines_.find(key);
    if (it != pipelines_.end()) return it->second.get();
    Pipeline p = make_specialized_pipeline(core_.device(), modules_[denorm_preserve ? 1 : 0].get(), layout_.get(), &spec,
                                           kSpecCount);
    return pipelines_.emplace(key, std::move(p)).first->second.get();
}

void SampleStatsCore::record_sums(VkCommandBuffer cmd, DescriptorArena& arena, const DeviceImage& image,
                                  const HistogramPlan& plan, const Selection& selection, VkBuffer counters,
                                  std::size_t words) {
    record(cmd, arena, image, plan, selection, VK_NULL_HANDLE, {counters, 0, VkDeviceSize(words) * 8});
}

void SampleStatsCore::record_lows(VkCommandBuffer cmd, DescriptorArena& arena, const DeviceImage& image,
                                  const HistogramPlan& plan, const Selection& selection, VkBuffer targets,
                                  VkBuffer counters, std::size_t words) {
    record(cmd, arena, image, plan, selection, targets, {counters, 0, VkDeviceSize(words) * 8});
}

// Every dispatch of plan_launch() (its bindings of the image and the mask), once per pass of
// the channels whose shared partials fit together; the second pass where `targets` is given.
void SampleStatsCore::record(VkCommandBuffer cmd, DescriptorArena& arena, const DeviceImage& image,
                             const HistogramPlan& plan, const Selection& selection, VkBuffer targets,
                             const VkDescriptorBufferInfo& counters) {
    const bool lows = targets != VK_NULL_HANDLE;
    const DeviceLimits& limits = core_.limits();
    const LaunchPlan launch = plan_launch(plan, image, 0, limits, core_.tuning(), &selection);
    const std::uint32_t group_size = launch.shape.group_size;
    const std::uint32_t words = lows ? 0 : channel_words(plan.info);
    const auto channels = unsigned(plan.channels.size());
    const unsigned fit = words == 0 ? channels : std::max(1u, limits.shared_bytes / 4 / words);
    const bool denorm = core_.denorm_preserve();
    // Binding 2 is read by the second pass only; the first binds the counters there again.
    const VkDescriptorBufferInfo targets_info = lows ? VkDescriptorBufferInfo{targets, 0, VK_WHOLE_SIZE} : counters;
    SampleStatsPushConstants pc{};
    std::copy_n(plan.weight_int, 3, pc.weight_int);
    std::copy_n(plan.weight_float, 3, pc.weight_float);
    pc.width = image.width;
    pc.stride = std::uint32_t(image.pitch());  // < 2^32 wherever plan_launch() takes the image
    pc.mask_pitch = selection.mask ? std::uint32_t(selection.mask->pitch()) : 0;
    pc.alpha_least = selection.alpha.least;
    for (const TileLaunch& tile : launch.tiles) {
        const VkDescriptorBufferInfo image_info{vulkan::buffer_of(image), tile.bind_offset, tile.bind_bytes};
        const VkDescriptorBufferInfo mask_info =
            selection.mask ? VkDescriptorBufferInfo{vulkan::buffer_of(*selection.mask), tile.mask.bind_offset,
                                                    tile.mask.bind_bytes}
                           : image_info;
        const VkDescriptorSet set = core_.write_set(arena, image_info, counters, targets_info, &mask_info);
        pc.pixels = tile.pixels;
        pc.base_byte = tile.base_byte;
        pc.mask_base = tile.mask.base_byte;
        const std::uint64_t groups = gpu::ceil_div(tile.pixels, std::uint64_t(group_size) * kPixelsPerInvocation);
        if (groups == 0) continue;
        const auto groups_x = std::uint32_t(std::min<std::uint64_t>(groups, limits.max_groups_x));
        const auto groups_y = std::uint32_t(gpu::ceil_div(groups, groups_x));
        for (const gpu::ChannelPass& pass : gpu::split_channel_passes(channels, fit, gpu::PassSplit::balance)) {
            pc.first_channel = pass.first;
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                              pipeline(denorm, spec_of(plan, pass, selection, group_size, lows)));
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_.get(), 0, 1, &set, 0, nullptr);
            vkCmdPushConstants(cmd, layout_.get(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
            vkCmdDispatch(cmd, groups_x, groups_y, 1);
        }
    }
    barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

}  // namespace imghist::vk
