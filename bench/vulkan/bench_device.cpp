// imghist_vulkan_bench's device plumbing (bench_device.hpp).
#include "bench_device.hpp"

#include <algorithm>
#include <cstring>

#include "core/backend_engine.hpp"

extern const unsigned char imghist_vkbench_floor[];
extern const unsigned long long imghist_vkbench_floor_size;
extern const unsigned char imghist_vkbench_seed[];
extern const unsigned long long imghist_vkbench_seed_size;

namespace imghist::vkbench {

Bench::Bench() : ctx_(""), arena_(ctx_.device()) {
    VkQueryPoolCreateInfo q{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    q.queryType = VK_QUERY_TYPE_TIMESTAMP;
    q.queryCount = kQueries;
    VkQueryPool pool;
    IMGHIST_VK(vkCreateQueryPool, ctx_.device(), &q, nullptr, &pool);
    queries_ = vk::QueryPool(ctx_.device(), pool);
    period_ns_ = ctx_.core().properties().limits.timestampPeriod;
    totals_ = vk::allocate_buffer(ctx_.physical(), ctx_.device(), 1 << 20, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true);
    sink_ = vk::allocate_buffer(ctx_.physical(), ctx_.device(), 4096,
                                VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false);
    make_floor_and_seed();
}

void Bench::copy_to_device(const void* data, VkDeviceSize bytes, vk::Allocation& dst) {
    vkDeviceWaitIdle(ctx_.device());
    arena_.reset();
    const VkDeviceSize size = bytes + 256;
    if (dst.size < size)
        dst = vk::allocate_buffer(ctx_.physical(), ctx_.device(), size,
                                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                  false);
    const VkDeviceSize chunk = VkDeviceSize(256) << 20;
    if (!staging_) staging_ = std::make_unique<vk::Allocation>(vk::allocate_buffer(
                       ctx_.physical(), ctx_.device(), chunk, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true));
    for (VkDeviceSize at = 0; at < bytes; at += chunk) {
        const VkDeviceSize n = std::min(chunk, bytes - at);
        std::memcpy(staging_->mapped, static_cast<const std::byte*>(data) + at, n);
        once([&](VkCommandBuffer cmd) {
            VkBufferCopy copy{0, at, n};
            vkCmdCopyBuffer(cmd, staging_->buffer.get(), dst.buffer.get(), 1, &copy);
        });
    }
}

// Copies the image into one device-local buffer (and, for rgba8, a storage image).
void Bench::upload(const HostImage& img) {
    copy_to_device(img.pixels.data(), img.bytes(), pixels_);
    seed_image_ok_ = false;
    if (img.format == PixelFormat::rgba8) make_seed_image(img);
}

DeviceImage Bench::upload_mask(const std::vector<std::uint8_t>& bytes, std::uint32_t w, std::uint32_t h) {
    copy_to_device(bytes.data(), bytes.size(), mask_);
    return vulkan::device_image(mask_.buffer.get(), 0, w, h, 0, PixelFormat::gray8);
}

// Median GPU time (µs) of what `body` records. The repetitions run back to back in one
// command buffer, a timestamp after each, so the GPU never idles (and never drops its
// clocks) between them; the whole command buffer runs once as a warm-up first.
double Bench::time(const std::function<void(VkCommandBuffer)>& body, int runs) {
    VkCommandBuffer cmd = allocate();
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    IMGHIST_VK(vkBeginCommandBuffer, cmd, &begin);
    vkCmdResetQueryPool(cmd, queries_.get(), 0, kQueries);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_.get(), 0);
    for (int i = 0; i < runs; ++i) {
        body(cmd);
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_.get(), std::uint32_t(i + 1));
    }
    IMGHIST_VK(vkEndCommandBuffer, cmd);
    std::vector<std::uint64_t> ts(std::size_t(runs) + 1);
    // Untimed passes until the GPU's clocks are up (bench::keep_busy), then the timed one.
    bench::keep_busy(bench::kGpuWarmMs, [&] { submit_wait(cmd); });
    submit_wait(cmd);
    IMGHIST_VK(vkGetQueryPoolResults, ctx_.device(), queries_.get(), 0, std::uint32_t(runs + 1), ts.size() * 8,
               ts.data(), 8, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    vkFreeCommandBuffers(ctx_.device(), ctx_.command_pool(), 1, &cmd);
    std::vector<double> us;
    for (int i = 0; i < runs; ++i) us.push_back(double(ts[i + 1] - ts[i]) * period_ns_ / 1000.0);
    return bench::median(us);
}

// The backend's recorded work: zero the counters, count (tiles, passes), flush to 64 bits.
DeviceImage Bench::device_pixels(const HostImage& img) const {
    return vulkan::device_image(pixels_.buffer.get(), 0, img.width, img.height, 0, img.format);
}

double Bench::time_backend(vk::HistogramCore& core, const HostImage& img, const HistogramPlan& plan,
                           std::vector<std::uint64_t>* totals, const vk::Selection* selection) {
    const DeviceImage src = device_pixels(img);
    const double us = time([&](VkCommandBuffer cmd) {
        core.record_begin(cmd);
        core.record_image(cmd, arena_, src, plan, totals_.buffer.get(), 0, true, selection);
    });
    if (totals) {
        totals->resize(plan.total_slots() + (selection ? 1 : 0));
        std::memcpy(totals->data(), totals_.mapped, totals->size() * 8);
    }
    return us;
}

// Best of a few loads-per-invocation counts: the fastest read of every byte.
double Bench::time_floor(const HostImage& img) { return time_read(pixels_.buffer.get(), img.bytes()); }
double Bench::time_mask_floor(std::size_t bytes) { return time_read(mask_.buffer.get(), bytes); }

double Bench::time_read(VkBuffer buffer, VkDeviceSize bytes) {
    double best = 1e30;
    const auto count = std::uint32_t(bytes / 16);
    for (std::uint32_t per : {1u, 4u, 16u}) {
        VkPipeline p = floor_pipeline(per);
        VkDescriptorSet set = buffers_set(floor_set_layout_.get(), buffer, bytes);
        const std::uint64_t groups = (std::uint64_t(count) + 256 * per - 1) / (256 * per);
        const auto gx = std::uint32_t(std::min<std::uint64_t>(groups, 65535));
        const auto gy = std::uint32_t((groups + gx - 1) / gx);
        best = std::min(best, time([&](VkCommandBuffer cmd) {
            vk::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p);
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, floor_layout_.get(), 0, 1, &set, 0, nullptr);
            vkCmdPushConstants(cmd, floor_layout_.get(), VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &count);
            vkCmdDispatch(cmd, gx, gy, 1);
        }));
    }
    return best;
}

// The seed's shader on the rgba8 storage image (with the zeroing of its 256 bins).
double Bench::time_seed(const HostImage& img) {
    if (!seed_image_ok_) return -1;
    return time([&](VkCommandBuffer cmd) {
        vk::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                    VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
        vkCmdFillBuffer(cmd, sink_.buffer.get(), 0, 1024, 0);
        vk::barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, seed_pipeline_.get());
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, seed_layout_.get(), 0, 1, &seed_set_, 0, nullptr);
        vkCmdDispatch(cmd, (img.width + 15) / 16, (img.height + 15) / 16, 1);
    });
}

VkCommandBuffer Bench::allocate() {
    VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    info.commandPool = ctx_.command_pool();
    info.commandBufferCount = 1;
    VkCommandBuffer cmd;
    IMGHIST_VK(vkAllocateCommandBuffers, ctx_.device(), &info, &cmd);
    return cmd;
}

void Bench::submit_wait(VkCommandBuffer cmd) {
    VkSubmitInfo s{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    s.commandBufferCount = 1;
    s.pCommandBuffers = &cmd;
    IMGHIST_VK(vkQueueSubmit, ctx_.queue(), 1, &s, VK_NULL_HANDLE);
    IMGHIST_VK(vkQueueWaitIdle, ctx_.queue());
}

void Bench::once(const std::function<void(VkCommandBuffer)>& body) {
    VkCommandBuffer cmd = allocate();
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    IMGHIST_VK(vkBeginCommandBuffer, cmd, &begin);
    body(cmd);
    IMGHIST_VK(vkEndCommandBuffer, cmd);
    submit_wait(cmd);
    vkFreeCommandBuffers(ctx_.device(), ctx_.command_pool(), 1, &cmd);
}

vk::ShaderModule Bench::module(const unsigned char* data, unsigned long long size) {
    std::vector<std::uint32_t> code((size + 3) / 4);
    std::memcpy(code.data(), data, size);
    VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    info.codeSize = size;
    info.pCode = code.data();
    VkShaderModule m;
    IMGHIST_VK(vkCreateShaderModule, ctx_.device(), &info, nullptr, &m);
    return vk::ShaderModule(ctx_.device(), m);
}

vk::DescriptorSetLayout Bench::set_layout(VkDescriptorType first) {
    VkDescriptorSetLayoutBinding b[2] = {{0, first, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                         {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.bindingCount = 2;
    info.pBindings = b;
    VkDescriptorSetLayout l;
    IMGHIST_VK(vkCreateDescriptorSetLayout, ctx_.device(), &info, nullptr, &l);
    return vk::DescriptorSetLayout(ctx_.device(), l);
}

vk::PipelineLayout Bench::pipeline_layout(VkDescriptorSetLayout set, std::uint32_t push) {
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push};
    VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    info.setLayoutCount = 1;
    info.pSetLayouts = &set;
    info.pushConstantRangeCount = push ? 1 : 0;
    info.pPushConstantRanges = &range;
    VkPipelineLayout l;
    IMGHIST_VK(vkCreatePipelineLayout, ctx_.device(), &info, nullptr, &l);
    return vk::PipelineLayout(ctx_.device(), l);
}

vk::Pipeline Bench::pipeline(VkShaderModule m, VkPipelineLayout layout, const VkSpecializationInfo* spec) {
    VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_COMPUTE_BIT, m,
                  "main", spec};
    info.layout = layout;
    VkPipeline p;
    IMGHIST_VK(vkCreateComputePipelines, ctx_.device(), VK_NULL_HANDLE, 1, &info, nullptr, &p);
    return vk::Pipeline(ctx_.device(), p);
}

void Bench::make_floor_and_seed() {
    floor_module_ = module(imghist_vkbench_floor, imghist_vkbench_floor_size);
    seed_module_ = module(imghist_vkbench_seed, imghist_vkbench_seed_size);
    floor_set_layout_ = set_layout(VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    seed_set_layout_ = set_layout(VK_DESCRIPTOR_TYPE_STORAGE_IMAGE);
    floor_layout_ = pipeline_layout(floor_set_layout_.get(), 4);
    seed_layout_ = pipeline_layout(seed_set_layout_.get(), 0);
    seed_pipeline_ = pipeline(seed_module_.get(), seed_layout_.get(), nullptr);
    VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 4}, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4}};
    VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    info.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
    info.maxSets = 4;
    info.poolSizeCount = 2;
    info.pPoolSizes = sizes;
    VkDescriptorPool pool;
    IMGHIST_VK(vkCreateDescriptorPool, ctx_.device(), &info, nullptr, &pool);
    seed_pool_ = vk::DescriptorPool(ctx_.device(), pool);
}

VkPipeline Bench::floor_pipeline(std::uint32_t per) {
    auto it = floor_pipelines_.find(per);
    if (it != floor_pipelines_.end()) return it->second.get();
    VkSpecializationMapEntry e{0, 0, 4};
    VkSpecializationInfo spec{1, &e, 4, &per};
    return floor_pipelines_.emplace(per, pipeline(floor_module_.get(), floor_layout_.get(), &spec)).first->second.get();
}

VkDescriptorSet Bench::buffers_set(VkDescriptorSetLayout layout, VkBuffer data, VkDeviceSize bytes) {
    VkDescriptorSet set = arena_.allocate(layout);
    VkDescriptorBufferInfo b[2] = {{data, 0, bytes}, {sink_.buffer.get(), 0, 4096}};
    VkWriteDescriptorSet w[2] = {};
    for (std::uint32_t i = 0; i < 2; ++i) {
        w[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, set, i, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                nullptr, &b[i], nullptr};
    }
    vkUpdateDescriptorSets(ctx_.device(), 2, w, 0, nullptr);
    return set;
}

// The seed's rgba8 storage image (device-local, optimal tiling) and its view, replacing the last.
void Bench::create_seed_image(const HostImage& img) {
    seed_view_.reset();
    seed_image_.reset();
    seed_memory_.reset();
    if (seed_set_ != VK_NULL_HANDLE) vkFreeDescriptorSets(ctx_.device(), seed_pool_.get(), 1, &seed_set_);
    seed_set_ = VK_NULL_HANDLE;
    const VkDevice d = ctx_.device();
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = VK_FORMAT_R8G8B8A8_UNORM;
    info.extent = {img.width, img.height, 1};
    info.mipLevels = 1;
    info.arrayLayers = 1;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkImage image;
    IMGHIST_VK(vkCreateImage, d, &info, nullptr, &image);
    seed_image_ = std::make_unique<Image>(d, image);
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(d, image, &req);
    VkPhysicalDeviceMemoryProperties props;
    vkGetPhysicalDeviceMemoryProperties(ctx_.physical(), &props);
    std::uint32_t type = 0;
    for (std::uint32_t i = 0; i < props.memoryTypeCount; ++i)
        if ((req.memoryTypeBits & (1u << i)) && (props.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) {
            type = i;
            break;
        }
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, nullptr, req.size, type};
    VkDeviceMemory memory;
    IMGHIST_VK(vkAllocateMemory, d, &alloc, nullptr, &memory);
    seed_memory_ = vk::Memory(d, memory);
    IMGHIST_VK(vkBindImageMemory, d, image, memory, 0);
    VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    view.image = image;
    view.viewType = VK_IMAGE_VIEW_TYPE_2D;
    view.format = VK_FORMAT_R8G8B8A8_UNORM;
    view.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    VkImageView v;
    IMGHIST_VK(vkCreateImageView, d, &view, nullptr, &v);
    seed_view_ = std::make_unique<ImageViewH>(d, v);
}

// The uploaded pixels into the seed's image, left in the GENERAL layout for the shader.
void Bench::copy_to_seed_image(const HostImage& img) {
    const VkImage image = seed_image_->get();
    once([&](VkCommandBuffer cmd) {
        VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
        b.srcAccessMask = 0;
        b.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
        b.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
        b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        b.image = image;
        b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                             nullptr, 1, &b);
        VkBufferImageCopy copy{};
        copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        copy.imageExtent = {img.width, img.height, 1};
        vkCmdCopyBufferToImage(cmd, pixels_.buffer.get(), image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy);
        b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
        b.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
        b.newLayout = VK_IMAGE_LAYOUT_GENERAL;
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, nullptr, 0,
                             nullptr, 1, &b);
    });
}

// The seed shader's descriptor set: the storage image and its 256 bins (in the sink buffer).
void Bench::write_seed_set() {
    const VkDevice d = ctx_.device();
    VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = seed_pool_.get();
    ai.descriptorSetCount = 1;
    VkDescriptorSetLayout l = seed_set_layout_.get();
    ai.pSetLayouts = &l;
    IMGHIST_VK(vkAllocateDescriptorSets, d, &ai, &seed_set_);
    VkDescriptorImageInfo ii{VK_NULL_HANDLE, seed_view_->get(), VK_IMAGE_LAYOUT_GENERAL};
    VkDescriptorBufferInfo bi{sink_.buffer.get(), 0, 1024};
    VkWriteDescriptorSet w[2] = {
        {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, seed_set_, 0, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, &ii,
         nullptr, nullptr},
        {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, seed_set_, 1, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
         nullptr, &bi, nullptr}};
    vkUpdateDescriptorSets(d, 2, w, 0, nullptr);
}

void Bench::make_seed_image(const HostImage& img) {
    create_seed_image(img);
    copy_to_seed_image(img);
    write_seed_set();
    seed_image_ok_ = true;
}

}  // namespace imghist::vkbench
