#include "backends/vulkan/vk_histogram.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "core/tune.hpp"
#include "imghist/error.hpp"

// SPIR-V compiled from histogram.comp / flush.comp at build time (CMakeLists.txt).
#define IMGHIST_SPIRV(name)                       \
    extern const unsigned char imghist_vk_##name[]; \
    extern const unsigned long long imghist_vk_##name##_size;
IMGHIST_SPIRV(hist_u8_1)
IMGHIST_SPIRV(hist_u8_3)
IMGHIST_SPIRV(hist_u8_4)
IMGHIST_SPIRV(hist_u16_1)
IMGHIST_SPIRV(hist_u16_3)
IMGHIST_SPIRV(hist_u16_4)
IMGHIST_SPIRV(hist_f16_1)
IMGHIST_SPIRV(hist_f16_3)
IMGHIST_SPIRV(hist_f16_4)
IMGHIST_SPIRV(hist_f32_1)
IMGHIST_SPIRV(hist_f32_3)
IMGHIST_SPIRV(hist_f32_4)
IMGHIST_SPIRV(hist_f32p_1)
IMGHIST_SPIRV(hist_f32p_3)
IMGHIST_SPIRV(hist_f32p_4)
IMGHIST_SPIRV(flush)
#undef IMGHIST_SPIRV

namespace imghist::vk {
namespace {

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
constexpr std::uint32_t kBatch = 4;        // BATCH in histogram.comp
constexpr std::uint32_t kMaxChannels = 5;  // R, G, B, A, Y

int variant(const FormatInfo& fi, bool denorm_preserve) {
    const int sample = fi.sample == SampleType::u8    ? 0
                       : fi.sample == SampleType::u16 ? 1
                       : fi.sample == SampleType::f16 ? 2
                       : denorm_preserve              ? 4
                                                      : 3;
    const int spp = fi.channels == 1 ? 0 : fi.channels == 3 ? 1 : 2;
    return sample * 3 + spp;
}

// histogram.comp's unit: 16 bytes, or 48 for 3-, 6- and 12-byte pixels.
std::uint32_t unit_pixels(const FormatInfo& fi) {
    const auto pb = std::uint32_t(fi.pixel_bytes());
    return (pb % 3 == 0 ? 48 : 16) / pb;
}

// 32-bit words of histogram.comp's `hist`: SHARED_SLOTS * SLOT_WORDS.
std::uint32_t shared_words(std::uint32_t channels, std::uint32_t channel_slots, SharedLayout layout,
                           std::uint32_t copies) {
    const std::uint32_t slot_words = layout == SharedLayout::lanes   ? 32
                                     : layout == SharedLayout::pairs ? 16
                                                                     : copies;
    return (channels * channel_slots + 31) / 32 * 32 * slot_words;
}

// Push constants of histogram.comp (same order and offsets as its Params block, which begins
// with the plan's KernelScalars).
struct HistParams {
    KernelScalars scalars;
    std::uint32_t pixels, base_byte, width, stride, out_slot;
};
static_assert(offsetof(KernelScalars, lo_float) == 16 && offsetof(KernelScalars, weight_float) == 32 &&
              offsetof(KernelScalars, weight_int) == 44 && offsetof(HistParams, pixels) == 56 &&
              offsetof(HistParams, out_slot) == 72);
constexpr std::uint32_t kHistParamsSize = 76;

struct FlushParams {
    std::uint32_t slots, overwrite, first_total;
};

ShaderModule make_module(VkDevice device, const Spirv& s) {
    std::vector<std::uint32_t> code((s.size + 3) / 4);  // SPIR-V is read as aligned words
    std::memcpy(code.data(), s.data, s.size);
    VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    info.codeSize = s.size;
    info.pCode = code.data();
    VkShaderModule m = VK_NULL_HANDLE;
    IMGHIST_VK(vkCreateShaderModule, device, &info, nullptr, &m);
    return ShaderModule(device, m);
}

Pipeline make_pipeline(VkDevice device, VkShaderModule module, VkPipelineLayout layout,
                       const VkSpecializationInfo* spec) {
    VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module;
    info.stage.pName = "main";
    info.stage.pSpecializationInfo = spec;
    info.layout = layout;
    VkPipeline p = VK_NULL_HANDLE;
    IMGHIST_VK(vkCreateComputePipelines, device, VK_NULL_HANDLE, 1, &info, nullptr, &p);
    return Pipeline(device, p);
}

VkDeviceSize round_down(VkDeviceSize v, VkDeviceSize a) { return v / a * a; }
VkDeviceSize round_up(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

}  // namespace

Tuning tuning_from_env() {
    Tuning t;
    for (const TuneKnob& k : tune_knobs("IMGHIST_VULKAN_TUNE")) {
        if (k.key == "layout") {
            if (k.value == "copies") t.layout = SharedLayout::copies;
            else if (k.value == "lanes") t.layout = SharedLayout::lanes;
            else if (k.value == "pairs") t.layout = SharedLayout::pairs;
            else throw InvalidArgument("IMGHIST_VULKAN_TUNE: layout is copies, lanes or pairs");
            continue;
        }
        const std::uint64_t n = k.number();
        if (k.key == "value") t.value_mode = n != 0;
        else if (k.key == "copies") {
            if (n == 0 || n > 32 || (n & (n - 1)) != 0)
                throw InvalidArgument("IMGHIST_VULKAN_TUNE: copies is a power of two up to 32");
            t.max_copies = std::uint32_t(n);
        } else if (k.key == "rounds") {
            if (n == 0 || n > 64) throw InvalidArgument("IMGHIST_VULKAN_TUNE: rounds is 1 to 64");
            t.rounds = std::uint32_t(n);
        } else if (k.key == "swizzle") t.swizzle = n != 0 ? 1 : 0;
        else if (k.key == "wg") {
            if (n < 32 || n > 1024 || n % 32 != 0)
                throw InvalidArgument("IMGHIST_VULKAN_TUNE: wg is a multiple of 32 from 32 to 1024");
            t.group_size = std::uint32_t(n);
        } else if (k.key == "tile_pixels") t.max_tile_pixels = n;  // checked where it is used
        else k.unknown("layout, value, copies, rounds, swizzle, wg, tile_pixels");
    }
    return t;
}

VkDescriptorSet DescriptorArena::allocate(VkDescriptorSetLayout layout) {
    constexpr std::uint32_t kSetsPerPool = 64;
    if (pools_.empty() || used_ == kSetsPerPool) {
        VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 * kSetsPerPool};
        VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
        info.maxSets = kSetsPerPool;
        info.poolSizeCount = 1;
        info.pPoolSizes = &size;
        VkDescriptorPool pool = VK_NULL_HANDLE;
        IMGHIST_VK(vkCreateDescriptorPool, device_, &info, nullptr, &pool);
        pools_.emplace_back(device_, pool);
        used_ = 0;
    }
    VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    info.descriptorPool = pools_.back().get();
    info.descriptorSetCount = 1;
    info.pSetLayouts = &layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    IMGHIST_VK(vkAllocateDescriptorSets, device_, &info, &set);
    ++used_;
    return set;
}

void DescriptorArena::reset() {
    pools_.clear();
    used_ = 0;
}

HistogramCore::HistogramCore(VkPhysicalDevice physical, VkDevice device, Tuning tuning, bool float_controls)
    : physical_(physical), device_(device), tuning_(tuning) {
    vkGetPhysicalDeviceProperties(physical, &props_);
    if (float_controls) {
        VkPhysicalDeviceFloatControlsPropertiesKHR fc{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES_KHR};
        VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
        p2.pNext = &fc;
        vkGetPhysicalDeviceProperties2(physical, &p2);
        denorm_preserve_ = fc.shaderDenormPreserveFloat32 == VK_TRUE;
    }
    VkDescriptorSetLayoutBinding bindings[2] = {};
    for (std::uint32_t i = 0; i < 2; ++i) {
        bindings[i].binding = i;
        bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        bindings[i].descriptorCount = 1;
        bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    set_info.bindingCount = 2;
    set_info.pBindings = bindings;
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    IMGHIST_VK(vkCreateDescriptorSetLayout, device_, &set_info, nullptr, &set_layout);
    set_layout_ = DescriptorSetLayout(device_, set_layout);

    auto make_layout = [&](std::uint32_t push_bytes) {
        VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
        VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
        info.setLayoutCount = 1;
        info.pSetLayouts = &set_layout;
        info.pushConstantRangeCount = 1;
        info.pPushConstantRanges = &range;
        VkPipelineLayout layout = VK_NULL_HANDLE;
        IMGHIST_VK(vkCreatePipelineLayout, device_, &info, nullptr, &layout);
        return PipelineLayout(device_, layout);
    };
    hist_layout_ = make_layout(kHistParamsSize);
    flush_layout_ = make_layout(sizeof(FlushParams));
    flush_module_ = make_module(device_, Spirv{imghist_vk_flush, imghist_vk_flush_size});
    flush_pipeline_ = make_pipeline(device_, flush_module_.get(), flush_layout_.get(), nullptr);

    const VkDeviceSize count_bytes = VkDeviceSize(kMaxChannels) * (max_bins() + IH_EXTRA_SLOTS) * 4;
    counts_ = allocate_buffer(physical_, device_, count_bytes,
                              VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false);
}

std::uint32_t HistogramCore::max_bins() const {
    // One channel, one copy, rounded to 32 slots, must fit the shared memory.
    return props_.limits.maxComputeSharedMemorySize / 4 / 32 * 32 - IH_EXTRA_SLOTS;
}

bool HistogramCore::supports(const HistogramPlan& plan) const { return plan.bins() <= max_bins(); }

HistogramCore::Shape HistogramCore::shape(const BufferSource& source, const HistogramPlan& plan) const {
    Shape s;
    const auto channels = std::uint32_t(plan.channels.size());
    const std::uint32_t limit = props_.limits.maxComputeSharedMemorySize / 4;
    s.value_mode = tuning_.value_mode && plan.info.sample == SampleType::u8;
    const std::uint32_t channel_slots = s.value_mode ? 256 : plan.slots_per_channel();
    auto fits = [&](std::uint32_t n, SharedLayout layout, std::uint32_t copies) {
        return shared_words(n, channel_slots, layout, copies) <= limit;
    };
    std::uint32_t fit = channels;
    while (fit > 1 && !fits(fit, SharedLayout::copies, 1)) --fit;
    s.passes = (channels + fit - 1) / fit;
    s.channels_per_pass = (channels + s.passes - 1) / s.passes;

    const auto& lim = props_.limits;
    s.group_size = std::max<std::uint32_t>(
        32, std::min({tuning_.group_size, lim.maxComputeWorkGroupInvocations, lim.maxComputeWorkGroupSize[0]}) / 32 * 32);
    // A 16-bit half is bumped by the group_size / 32 invocations of one lane, each counting at
    // most this many samples per channel into any one slot.
    const std::uint64_t per_invocation = std::uint64_t(kBatch) * tuning_.rounds * unit_pixels(plan.info);
    const bool pairs_exact = (s.group_size / 32) * per_invocation <= 0xFFFF;
    s.layout = SharedLayout::copies;
    const SharedLayout want = tuning_.layout;
    if (want != SharedLayout::copies && fits(s.channels_per_pass, want, 1) && (want != SharedLayout::pairs || pairs_exact))
        s.layout = want;
    s.copies = 1;
    while (s.layout == SharedLayout::copies && s.copies * 2 <= tuning_.max_copies &&
           fits(s.channels_per_pass, SharedLayout::copies, s.copies * 2))
        s.copies *= 2;
    const auto pb = VkDeviceSize(plan.info.pixel_bytes());
    s.strided = !(source.stride == source.width * pb && source.offset % 16 == 0);
    return s;
}

VkShaderModule HistogramCore::module(const HistogramPlan& plan) {
    const int v = variant(plan.info, denorm_preserve_);
    auto it = modules_.find(v);
    if (it == modules_.end()) it = modules_.emplace(v, make_module(device_, kHistSpirv[v / 3][v % 3])).first;
    return it->second.get();
}

VkPipeline HistogramCore::pipeline(const HistogramPlan& plan, std::uint32_t first, std::uint32_t count,
                                   const Shape& shape) {
    std::array<std::uint32_t, 23> spec{};  // constant_id 0..21 of histogram.comp, then the variant
    spec[0] = count;
    bool luma = false;
    for (std::uint32_t c = 0; c < count; ++c) {
        const int src = plan.sources[first + c];
        spec[1 + c] = std::uint32_t(src);
        luma = luma || src == kLumaSource;
    }
    spec[6] = plan.bins();
    spec[7] = plan.int_mode;
    spec[8] = plan.shift;
    spec[9] = plan.clamp;
    spec[10] = plan.closed_top;
    spec[11] = shape.copies;
    spec[12] = tuning_.swizzle > 0 || (tuning_.swizzle < 0 && shape.value_mode && plan.counts_a_sample(first, count))
                   ? 1
                   : 0;
    spec[13] = tuning_.rounds;
    spec[14] = shape.strided ? 1 : 0;
    spec[15] = std::uint32_t(std::max(plan.info.red, 0));
    spec[16] = std::uint32_t(std::max(plan.info.green, 0));
    spec[17] = std::uint32_t(std::max(plan.info.blue, 0));
    spec[18] = luma ? 1 : 0;
    spec[19] = std::uint32_t(shape.layout);
    spec[20] = shape.value_mode ? 1 : 0;
    spec[21] = shape.group_size;
    spec[22] = std::uint32_t(variant(plan.info, denorm_preserve_));
    auto it = pipelines_.find(spec);
    if (it != pipelines_.end()) return it->second.get();

    constexpr std::uint32_t kConstants = 22;
    VkSpecializationMapEntry entries[kConstants];
    for (std::uint32_t i = 0; i < kConstants; ++i) entries[i] = {i, i * 4, 4};
    VkSpecializationInfo info{kConstants, entries, kConstants * 4, spec.data()};
    return pipelines_.emplace(spec, make_pipeline(device_, module(plan), hist_layout_.get(), &info)).first->second.get();
}

void HistogramCore::record_begin(VkCommandBuffer cmd) {
    barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
    vkCmdFillBuffer(cmd, counts_.buffer.get(), 0, VK_WHOLE_SIZE, 0);
    barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

void HistogramCore::record_image(VkCommandBuffer cmd, DescriptorArena& arena, const BufferSource& src,
                                 const HistogramPlan& plan, VkBuffer totals, VkDeviceSize totals_offset,
                                 bool overwrite) {
    if (!supports(plan))
        throw InvalidArgument("vulkan: " + std::to_string(plan.bins()) + " bins exceed this device's limit of " +
                              std::to_string(max_bins()));
    if (tuning_.max_tile_pixels > (std::uint64_t(1) << 31) || tuning_.max_tile_pixels < 4096)
        throw InvalidArgument("vulkan: max_tile_pixels must be in [4096, 2^31]");
    if (totals_offset % 8 != 0) throw InvalidArgument("vulkan: the result offset must be a multiple of 8 bytes");
    const Shape shape_ = shape(src, plan);
    const auto pb = VkDeviceSize(plan.info.pixel_bytes());
    const VkDeviceSize row_bytes = src.width * pb;
    const VkDeviceSize align = std::max<VkDeviceSize>(props_.limits.minStorageBufferOffsetAlignment, 16);
    const VkDeviceSize max_range = std::min<VkDeviceSize>(props_.limits.maxStorageBufferRange, 0xFFFFFFFFu);
    const std::uint32_t pixels_per_group = shape_.group_size * tuning_.rounds * kBatch * unit_pixels(plan.info);
    const std::uint32_t slots = plan.slots_per_channel();
    const std::uint32_t total_slots = std::uint32_t(plan.total_slots());

    std::vector<VkPipeline> pass_pipelines;
    for (std::uint32_t first = 0; first < plan.channels.size(); first += shape_.channels_per_pass) {
        const auto n = std::min<std::uint32_t>(shape_.channels_per_pass, std::uint32_t(plan.channels.size()) - first);
        pass_pipelines.push_back(pipeline(plan, first, n, shape_));
    }

    HistParams pc{};
    pc.scalars = plan;
    pc.width = src.width;
    pc.stride = std::uint32_t(src.stride);

    // Totals: bound from an aligned offset; the flush shader indexes past the remainder.
    const VkDeviceSize totals_bind = round_down(totals_offset, align);
    VkDescriptorBufferInfo totals_info{totals, totals_bind, totals_offset - totals_bind + VkDeviceSize(total_slots) * 8};
    VkDescriptorBufferInfo counts_info{counts_.buffer.get(), 0, VkDeviceSize(total_slots) * 4};

    auto write_set = [&](const VkDescriptorBufferInfo& b0, const VkDescriptorBufferInfo& b1) {
        VkDescriptorSet set = arena.allocate(set_layout_.get());
        VkWriteDescriptorSet w[2] = {};
        const VkDescriptorBufferInfo* infos[2] = {&b0, &b1};
        for (std::uint32_t i = 0; i < 2; ++i) {
            w[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
            w[i].dstSet = set;
            w[i].dstBinding = i;
            w[i].descriptorCount = 1;
            w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            w[i].pBufferInfo = infos[i];
        }
        vkUpdateDescriptorSets(device_, 2, w, 0, nullptr);
        return set;
    };
    const VkDescriptorSet flush_set = write_set(counts_info, totals_info);

    // One tile: `pixels` pixels whose first byte is `start` bytes into the buffer, spanning
    // `bytes` bytes; every pass, then a flush of the 32-bit counters.
    auto tile = [&](VkDeviceSize start, VkDeviceSize bytes, std::uint64_t pixels) {
        const VkDeviceSize bind = round_down(start, align);
        VkDescriptorBufferInfo image_info{src.buffer, bind, round_up(start - bind + bytes, 4)};
        const VkDescriptorSet set = write_set(image_info, counts_info);
        pc.pixels = std::uint32_t(pixels);
        pc.base_byte = std::uint32_t(start - bind);
        const std::uint64_t groups = (pixels + pixels_per_group - 1) / pixels_per_group;
        const auto gx = std::uint32_t(std::min<std::uint64_t>(groups, props_.limits.maxComputeWorkGroupCount[0]));
        const auto gy = std::uint32_t((groups + gx - 1) / gx);
        if (gy > props_.limits.maxComputeWorkGroupCount[1]) throw Error("internal error: vulkan tile too large");
        for (std::size_t p = 0; p < pass_pipelines.size(); ++p) {
            pc.out_slot = std::uint32_t(p) * shape_.channels_per_pass * slots;
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pass_pipelines[p]);
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, hist_layout_.get(), 0, 1, &set, 0, nullptr);
            vkCmdPushConstants(cmd, hist_layout_.get(), VK_SHADER_STAGE_COMPUTE_BIT, 0, kHistParamsSize, &pc);
            vkCmdDispatch(cmd, gx, gy, 1);
        }
        barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        FlushParams fp{total_slots, overwrite ? 1u : 0u, std::uint32_t((totals_offset - totals_bind) / 8)};
        overwrite = false;
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, flush_pipeline_.get());
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, flush_layout_.get(), 0, 1, &flush_set, 0, nullptr);
        vkCmdPushConstants(cmd, flush_layout_.get(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof fp, &fp);
        vkCmdDispatch(cmd, (total_slots + kFlushGroupSize - 1) / kFlushGroupSize, 1, 1);
        barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    };

    const VkDeviceSize room = max_range - align - 4;  // what one binding can span
    if (!shape_.strided) {
        // Packed rows: one run of pixels, cut into tiles of a multiple of 4096 pixels, so every
        // tile starts on a 16-byte boundary (and a 48-byte unit boundary).
        const std::uint64_t total = std::uint64_t(src.width) * src.height;
        const std::uint64_t tile_max = std::min<std::uint64_t>(tuning_.max_tile_pixels, room / pb) / 4096 * 4096;
        if (tile_max == 0) throw DeviceError("vulkan: maxStorageBufferRange is too small");
        for (std::uint64_t first = 0; first < total; first += tile_max) {
            const std::uint64_t n = std::min(tile_max, total - first);
            tile(src.offset + first * pb, n * pb, n);
        }
    } else {
        if (src.stride > 0xFFFFFFFFu || row_bytes > room)
            throw InvalidArgument("vulkan: an image row is larger than one storage buffer binding");
        const std::uint64_t rows_max = std::max<std::uint64_t>(
            1, std::min<std::uint64_t>((room - row_bytes) / src.stride + 1, tuning_.max_tile_pixels / src.width));
        for (std::uint64_t y = 0; y < src.height; y += rows_max) {
            const std::uint64_t rows = std::min<std::uint64_t>(rows_max, src.height - y);
            tile(src.offset + y * src.stride, (rows - 1) * src.stride + row_bytes, rows * src.width);
        }
    }
}

}  // namespace imghist::vk
