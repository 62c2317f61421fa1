#include "backends/vulkan/vk_histogram.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "imghist/error.hpp"

// SPIR-V compiled from histogram.comp / flush.comp at build time (CMakeLists.txt).
IMGHIST_VK_SPIRV(hist_u8_1)
IMGHIST_VK_SPIRV(hist_u8_3)
IMGHIST_VK_SPIRV(hist_u8_4)
IMGHIST_VK_SPIRV(hist_u16_1)
IMGHIST_VK_SPIRV(hist_u16_3)
IMGHIST_VK_SPIRV(hist_u16_4)
IMGHIST_VK_SPIRV(hist_f16_1)
IMGHIST_VK_SPIRV(hist_f16_3)
IMGHIST_VK_SPIRV(hist_f16_4)
IMGHIST_VK_SPIRV(hist_f32_1)
IMGHIST_VK_SPIRV(hist_f32_3)
IMGHIST_VK_SPIRV(hist_f32_4)
IMGHIST_VK_SPIRV(hist_f32p_1)
IMGHIST_VK_SPIRV(hist_f32p_3)
IMGHIST_VK_SPIRV(hist_f32p_4)
IMGHIST_VK_SPIRV(flush)

namespace imghist::vk {
namespace {

// Storage buffers of the one descriptor set layout: pixels (histogram) or counts (flush),
// counts or totals, edge keys, a selection's mask.
constexpr std::uint32_t kBindings = 4;

struct Spirv {
    const unsigned char* data;
    unsigned long long size;
};
#define IH_S(name) Spirv{imghist_vk_##name, imghist_vk_##name##_size}
// [sample type][1, 3 or 4 samples]
const Spirv kHistSpirv[5][3] = {
    {IH_S(hist_u8_1), IH_S(hist_u8_3), IH_S(hist_u8_4)},
    {IH_S(hist_u16_1), IH_S(hist_u16_3), IH_S(hist_u16_4)},
    {IH_S(hist_f16_1), IH_S(hist_f16_3), IH_S(hist_f16_4)},
    {IH_S(hist_f32_1), IH_S(hist_f32_3), IH_S(hist_f32_4)},
    {IH_S(hist_f32p_1), IH_S(hist_f32p_3), IH_S(hist_f32p_4)},  // fp32, DenormPreserve
};
#undef IH_S

constexpr std::uint32_t kFlushGroupSize = 256;  // local_size_x of flush.comp
constexpr std::uint32_t kMaxChannels = 5;        // R, G, B, A, Y

// Push constants of histogram.comp: its Params block, the contract's ih_bin_args first. Its
// last three words serve a tile grid or a selection, which never meet.
struct TileGridWords {
    std::uint32_t tiles_x, tile_slots, groups_per_piece;
};
struct SelectionWords {
    std::uint32_t mask_base, mask_pitch, alpha_least;
};
struct HistPushConstants {
    ih_bin_args bin;
    std::uint32_t pixels, base_byte, width, stride, out_slot;
    union {
        TileGridWords grid;
        SelectionWords select;
    };
};
// std430: the struct's 24 words at offset 0, then the launch fields one word each.
static_assert(sizeof(ih_bin_args) == 24 * 4 && offsetof(HistPushConstants, pixels) == sizeof(ih_bin_args) &&
              offsetof(HistPushConstants, out_slot) == sizeof(ih_bin_args) + 4 * 4 &&
              sizeof(HistPushConstants) == sizeof(ih_bin_args) + 8 * 4);
// maxPushConstantsSize is at least 128 on every Vulkan device.
static_assert(sizeof(HistPushConstants) <= 128);

struct FlushParams {
    std::uint32_t slots, overwrite, first_total;
};

ShaderModule make_module(VkDevice device, const Spirv& s) { return make_shader_module(device, s.data, s.size); }

DeviceLimits device_limits(const VkPhysicalDeviceLimits& lim, bool denorm_preserve) {
    DeviceLimits d;
    d.shared_bytes = lim.maxComputeSharedMemorySize;
    d.max_invocations = std::min(lim.maxComputeWorkGroupInvocations, lim.maxComputeWorkGroupSize[0]);
    d.max_groups_x = lim.maxComputeWorkGroupCount[0];
    d.max_groups_y = lim.maxComputeWorkGroupCount[1];
    d.offset_alignment = std::max<VkDeviceSize>(lim.minStorageBufferOffsetAlignment, 16);
    d.max_range = std::min<VkDeviceSize>(lim.maxStorageBufferRange, 0xFFFFFFFFu);
    d.denorm_preserve = denorm_preserve;
    return d;
}

bool offers_denorm_preserve(VkPhysicalDevice physical) {
    VkPhysicalDeviceFloatControlsPropertiesKHR fc{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES_KHR};
    VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    p2.pNext = &fc;
    vkGetPhysicalDeviceProperties2(physical, &p2);
    return fc.shaderDenormPreserveFloat32 == VK_TRUE;
}

}  // namespace

VkDescriptorSet DescriptorArena::allocate(VkDescriptorSetLayout layout) {
    constexpr std::uint32_t kSetsPerPool = 64;
    if (used_ == kSetsPerPool) {
        ++current_;
        used_ = 0;
    }
    if (current_ == pools_.size()) {
        pools_.push_back(make_storage_pool(device_, kSetsPerPool, kBindings));
        ++pools_made_;
    }
    VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    info.descriptorPool = pools_[current_].get();
    info.descriptorSetCount = 1;
    info.pSetLayouts = &layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    IMGHIST_VK(vkAllocateDescriptorSets, device_, &info, &set);
    ++used_;
    return set;
}

void DescriptorArena::reset() {
    pools_.clear();
    current_ = 0;
    used_ = 0;
}

void DescriptorArena::recycle() {
    for (const DescriptorPool& pool : pools_) IMGHIST_VK(vkResetDescriptorPool, device_, pool.get(), 0);
    current_ = 0;
    used_ = 0;
}


HistogramCore::HistogramCore(VkPhysicalDevice physical, VkDevice device, Tuning tuning, bool float_controls)
    : physical_(physical), device_(device), tuning_(tuning) {
    vkGetPhysicalDeviceProperties(physical, &props_);
    limits_ = device_limits(props_.limits, float_controls && offers_denorm_preserve(physical));
    make_layouts();
    flush_module_ = make_module(device_, Spirv{imghist_vk_flush, imghist_vk_flush_size});
    flush_pipeline_ = make_compute_pipeline(device_, flush_module_.get(), flush_layout_.get(), nullptr);
    const VkDeviceSize count_bytes = (VkDeviceSize(kMaxChannels) * (max_bins() + IH_EXTRA_SLOTS) + 1) * 4;
    counts_ = allocate_buffer(physical_, device_, count_bytes,
                              VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false);
}

// One descriptor set layout (kBindings storage buffers) for the two shaders, and their
// pipeline layouts; flush.comp reads bindings 0 and 1 only.
void HistogramCore::make_layouts() {
    set_layout_ = make_storage_set_layout(device_, kBindings);
    const VkDescriptorSetLayout set_layout = set_layout_.get();
    auto make_layout = [&](std::uint32_t push_bytes) { return make_pipeline_layout(device_, set_layout, push_bytes); };
    hist_layout_ = make_layout(sizeof(HistPushConstants));
    flush_layout_ = make_layout(sizeof(FlushParams));
}

VkShaderModule HistogramCore::module(int variant) {
    auto it = modules_.find(variant);
    if (it == modules_.end())
        it = modules_.emplace(variant, make_module(device_, kHistSpirv[variant / 3][variant % 3])).first;
    return it->second.get();
}

VkPipeline HistogramCore::pipeline(int variant, const SpecConstants& spec) {
    const auto key = std::make_pair(variant, spec);
    auto it = pipelines_.find(key);
    if (it != pipelines_.end()) return it->second.get();
    return pipelines_
        .emplace(key, make_specialized_pipeline(device_, module(variant), hist_layout_.get(), &spec, kSpecConstants))
        .first->second.get();
}

void HistogramCore::record_begin(VkCommandBuffer cmd) {
    barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
    vkCmdFillBuffer(cmd, counts_.buffer.get(), 0, VK_WHOLE_SIZE, 0);
    barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

// Float edge bins also get the code table of their blocks after the keys (histogram.comp,
// classify_float): 65536 16-bit entries by a float's top 16 bits, two to a word, so that most
// samples take one read instead of a binary search through the keys (core/plan.hpp, code16_table);
// then the finer window of it that launches copy into shared memory (Shape::code_window).
VkBuffer HistogramCore::edge_keys(const HistogramPlan& plan) {
    const bool table = plan.has_edges() && plan.is_float();
    Allocation& keys = edge_keys_[{plan.edge_keys, table ? 1u + plan.clamp : 0u}];
    if (keys.buffer.get() == VK_NULL_HANDLE) {
        const std::vector<std::uint32_t> words =
            edge_key_words(plan, table ? float_code_window(plan.edge_keys, tuning_.code_window) : FloatCodeWindow{});
        keys = allocate_buffer(physical_, device_, words.size() * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true,
                               /*read_by_shaders=*/true);
        std::copy(words.begin(), words.end(), static_cast<std::uint32_t*>(keys.mapped));
    }
    return keys.buffer.get();
}

VkDescriptorSet HistogramCore::write_set(DescriptorArena& arena, const VkDescriptorBufferInfo& binding0,
                                         const VkDescriptorBufferInfo& binding1, const VkDescriptorBufferInfo& binding2,
                                         const VkDescriptorBufferInfo* binding3) {
    VkDescriptorSet set = arena.allocate(set_layout_.get());
    const VkDescriptorBufferInfo* infos[kBindings] = {&binding0, &binding1, &binding2, binding3 ? binding3 : &binding0};
    write_storage_set(device_, set, infos, kBindings);
    return set;
}

void HistogramCore::record_image(VkCommandBuffer cmd, DescriptorArena& arena, const DeviceImage& image,
                                 const HistogramPlan& plan, VkBuffer totals, VkDeviceSize totals_offset,
                                 bool overwrite, const Selection* selection) {
    const LaunchPlan launch = plan_launch(plan, image, totals_offset, limits_, tuning_, selection);
    std::vector<VkPipeline> pipelines;
    for (const PassLaunch& pass : launch.passes) pipelines.push_back(pipeline(launch.variant, pass.spec));
    const VkDescriptorBufferInfo counts_info{counts_.buffer.get(), 0, VkDeviceSize(launch.total_slots) * 4};
    const VkDescriptorBufferInfo totals_info{totals, launch.totals_bind, launch.totals_bytes};
    const VkBuffer keys = edge_keys(plan);
    const VkDescriptorSet flush_set = write_set(arena, counts_info, totals_info, {keys, 0, VK_WHOLE_SIZE});
    for (const TileLaunch& tile : launch.tiles) {
        record_tile(cmd, arena, launch, tile, image, pipelines, keys, counts_info, true, selection);
        record_flush(cmd, flush_set, launch, overwrite);
        overwrite = false;
    }
}

void HistogramCore::reserve_tile_counts(std::uint64_t slots) {
    tile_counts_.ensure(slots * 4, BufferTraits{physical_, device_,
                                                VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false});
}

// A tile grid's rows of tiles are dispatched back to back (they touch different counters);
// their work counters go to the totals once at the end, or after each where a tile could reach
// 2^32 counts (LaunchPlan::flush_each).
void HistogramCore::record_tiles(VkCommandBuffer cmd, DescriptorArena& arena, const DeviceImage& band,
                                 const HistogramPlan& plan, const GridRows& grid, VkBuffer totals,
                                 VkDeviceSize totals_offset, bool overwrite) {
    const LaunchPlan launch = plan_tile_launch(plan, band, grid, totals_offset, limits_, tuning_);
    if (tile_counts_.size() < std::uint64_t(launch.total_slots) * 4)
        throw Error("internal error: vulkan tile counters not reserved");
    std::vector<VkPipeline> pipelines;
    for (const PassLaunch& pass : launch.passes) pipelines.push_back(pipeline(launch.variant, pass.spec));
    const VkDescriptorBufferInfo counts_info{tile_counts_.get().buffer.get(), 0, VkDeviceSize(launch.total_slots) * 4};
    const VkDescriptorBufferInfo totals_info{totals, launch.totals_bind, launch.totals_bytes};
    const VkBuffer keys = edge_keys(plan);
    const VkDescriptorSet flush_set = write_set(arena, counts_info, totals_info, {keys, 0, VK_WHOLE_SIZE});
    // Work counters start at zero (earlier work on them finished first).
    barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
    vkCmdFillBuffer(cmd, counts_info.buffer, 0, counts_info.range, 0);
    barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    for (std::size_t i = 0; i < launch.tiles.size(); ++i) {
        const bool last = i + 1 == launch.tiles.size();
        record_tile(cmd, arena, launch, launch.tiles[i], band, pipelines, keys, counts_info, launch.flush_each || last);
        if (launch.flush_each || last) {
            record_flush(cmd, flush_set, launch, overwrite);
            overwrite = false;
        }
    }
}

void HistogramCore::record_tile(VkCommandBuffer cmd, DescriptorArena& arena, const LaunchPlan& launch,
                                const TileLaunch& tile, const DeviceImage& image,
                                const std::vector<VkPipeline>& pipelines, VkBuffer edge_keys,
                                const VkDescriptorBufferInfo& counts, bool then_barrier, const Selection* selection) {
    const VkDescriptorBufferInfo image_info{vulkan::buffer_of(image), tile.bind_offset, tile.bind_bytes};
    const DeviceImage* mask = selection ? selection->mask : nullptr;
    const VkDescriptorBufferInfo mask_info =
        mask ? VkDescriptorBufferInfo{vulkan::buffer_of(*mask), tile.mask.bind_offset, tile.mask.bind_bytes} : image_info;
    const VkDescriptorSet set = write_set(arena, image_info, counts, {edge_keys, 0, VK_WHOLE_SIZE}, &mask_info);
    HistPushConstants pc{};
    pc.pixels = tile.pixels;
    pc.base_byte = tile.base_byte;
    pc.width = image.width;
    pc.stride = std::uint32_t(image.pitch());  // < 2^32 on the strided path (plan_launch)
    if (selection) {
        pc.select = {tile.mask.base_byte, mask ? std::uint32_t(mask->pitch()) : 0, selection->alpha.least};
    } else {
        pc.grid = {launch.tiles_x, launch.tile_slots, tile.groups_per_piece};
    }
    for (std::size_t p = 0; p < launch.passes.size(); ++p) {
        pc.bin = launch.passes[p].bin;
        pc.out_slot = launch.passes[p].out_slot + tile.tile_row * launch.tiles_x * launch.tile_slots;
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines[p]);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, hist_layout_.get(), 0, 1, &set, 0, nullptr);
        vkCmdPushConstants(cmd, hist_layout_.get(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
        vkCmdDispatch(cmd, tile.groups_x, tile.groups_y, 1);
    }
    if (then_barrier)
        barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

void HistogramCore::record_flush(VkCommandBuffer cmd, VkDescriptorSet set, const LaunchPlan& launch, bool overwrite) {
    const FlushParams fp{launch.total_slots, overwrite ? 1u : 0u, launch.first_total};
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, flush_pipeline_.get());
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, flush_layout_.get(), 0, 1, &set, 0, nullptr);
    vkCmdPushConstants(cmd, flush_layout_.get(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof fp, &fp);
    vkCmdDispatch(cmd, (launch.total_slots + kFlushGroupSize - 1) / kFlushGroupSize, 1, 1);
    barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

}  // namespace imghist::vk
