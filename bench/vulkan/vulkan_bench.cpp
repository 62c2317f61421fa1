// imghist_vulkan_bench: times the vulkan backend's shader with GPU timestamps (warm-up, then the
// median of 15 back-to-back runs in one command buffer) on images already in device memory, next to
//   - the floor: a shader that reads every byte once and does nothing else (floor.comp);
//   - the seed's shader as printed (seed.comp; rgba8 storage image, luminance only);
// and sweeps the shader's tuning (shared copies, units per invocation, bank swizzle).
//
// Usage: imghist_vulkan_bench [--quick] [--no-sweep] [--out DIR]
//   --quick: 1080p images and a small sweep (for a CPU device such as lavapipe)
//   --no-sweep: the compiled-in default tuning only
// Writes DIR/vulkan_table.txt (the table for docs/performance.md) and DIR/vulkan_sweep.csv.
// IMGHIST_VULKAN_DEVICE picks the device.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backends/vulkan/vk_device.hpp"
#include "core/backend_engine.hpp"
#include "imghist/imghist.hpp"

extern const unsigned char imghist_vkbench_floor[];
extern const unsigned long long imghist_vkbench_floor_size;
extern const unsigned char imghist_vkbench_seed[];
extern const unsigned long long imghist_vkbench_seed_size;

namespace imghist {
namespace {

using Clock = std::chrono::steady_clock;

// --- images -------------------------------------------------------------------------------
// Generated here on all cores (the test generators are single-threaded and too slow for
// 16384^2). Same kinds as tests/support: uniform random, natural (gradients + noise),
// constant, bank-adversarial (8-bit values only from {b, b+32, ..., b+224}).
enum class Pattern { random, natural, constant, bank };
const char* pattern_name(Pattern p) {
    switch (p) {
        case Pattern::random: return "random";
        case Pattern::natural: return "natural";
        case Pattern::constant: return "constant";
        case Pattern::bank: return "bank-adversarial";
    }
    return "?";
}

struct HostImage {
    std::string label;
    PixelFormat format;
    std::uint32_t width, height;
    Pattern pattern;
    std::vector<std::byte> pixels;
    std::size_t bytes() const { return pixels.size(); }
    ImageView view() const { return ImageView::packed(pixels.data(), width, height, format); }
};

std::uint64_t splitmix(std::uint64_t& s) {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

HostImage generate(const std::string& label, PixelFormat format, std::uint32_t w, std::uint32_t h, Pattern p) {
    HostImage img{label, format, w, h, p, {}};
    const FormatInfo& fi = format_info(format);
    img.pixels.resize(std::size_t(w) * h * fi.pixel_bytes());
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            std::uint64_t state = 0x1234567ull * (t + 1);
            for (std::uint32_t y = t; y < h; y += threads) {
                for (std::uint32_t x = 0; x < w; ++x) {
                    std::byte* px = img.pixels.data() + (std::size_t(y) * w + x) * fi.pixel_bytes();
                    for (int c = 0; c < fi.channels; ++c) {
                        const std::uint64_t r = splitmix(state);
                        double unit;  // in [0, 1)
                        switch (p) {
                            case Pattern::random: unit = double(r >> 11) * 0x1.0p-53; break;
                            case Pattern::natural: {
                                const double g = 0.5 * double(x) / w + 0.3 * double(y) / h + 0.1 * c;
                                unit = std::clamp(g + double(std::int64_t(r % 21) - 10) / 512.0, 0.0, 0.999);
                                break;
                            }
                            case Pattern::constant: unit = 0.4; break;
                            case Pattern::bank: unit = (7 + 32 * double(r % 8)) / 256.0; break;
                        }
                        if (fi.sample == SampleType::u8) {
                            px[c] = std::byte(std::uint8_t(unit * 256));
                        } else {
                            float f = float(unit);
                            std::memcpy(px + 4 * c, &f, 4);
                        }
                    }
                }
            }
        });
    }
    for (auto& th : pool) th.join();
    return img;
}

// --- Vulkan plumbing ----------------------------------------------------------------------
class Bench {
public:
    Bench() : ctx_(""), arena_(ctx_.device()) {
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
    ~Bench() { vkDeviceWaitIdle(ctx_.device()); }

    vk::Context& ctx() { return ctx_; }

    // Copies the image into one device-local buffer (and, for rgba8, a storage image).
    void upload(const HostImage& img) {
        vkDeviceWaitIdle(ctx_.device());
        arena_.reset();
        const VkDeviceSize size = img.bytes() + 256;
        if (pixels_.size < size)
            pixels_ = vk::allocate_buffer(ctx_.physical(), ctx_.device(), size,
                                          VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                              VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                          false);
        const VkDeviceSize chunk = VkDeviceSize(256) << 20;
        if (!staging_) staging_ = std::make_unique<vk::Allocation>(vk::allocate_buffer(
                           ctx_.physical(), ctx_.device(), chunk, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true));
        for (VkDeviceSize at = 0; at < img.bytes(); at += chunk) {
            const VkDeviceSize n = std::min(chunk, img.bytes() - at);
            std::memcpy(staging_->mapped, img.pixels.data() + at, n);
            once([&](VkCommandBuffer cmd) {
                VkBufferCopy copy{0, at, n};
                vkCmdCopyBuffer(cmd, staging_->buffer.get(), pixels_.buffer.get(), 1, &copy);
            });
        }
        seed_image_ok_ = false;
        if (img.format == PixelFormat::rgba8) make_seed_image(img);
    }

    // Median GPU time (µs) of what `body` records. The repetitions run back to back in one
    // command buffer, a timestamp after each, so the GPU never idles (and never drops its
    // clocks) between them; the whole command buffer runs once as a warm-up first.
    double time(const std::function<void(VkCommandBuffer)>& body, int runs = 15) {
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
        for (int pass = 0; pass < 2; ++pass) {
            submit_wait(cmd);
            IMGHIST_VK(vkGetQueryPoolResults, ctx_.device(), queries_.get(), 0, std::uint32_t(runs + 1),
                       ts.size() * 8, ts.data(), 8, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        }
        vkFreeCommandBuffers(ctx_.device(), ctx_.command_pool(), 1, &cmd);
        std::vector<double> us;
        for (int i = 0; i < runs; ++i) us.push_back(double(ts[i + 1] - ts[i]) * period_ns_ / 1000.0);
        std::sort(us.begin(), us.end());
        return us[us.size() / 2];
    }

    // The backend's recorded work: zero the counters, count (tiles, passes), flush to 64 bits.
    double time_backend(vk::HistogramCore& core, const HostImage& img, const HistogramPlan& plan,
                        std::vector<std::uint64_t>* totals) {
        const DeviceImage src = vulkan::device_image(pixels_.buffer.get(), 0, img.width, img.height, 0, img.format);
        const double us = time([&](VkCommandBuffer cmd) {
            core.record_begin(cmd);
            core.record_image(cmd, arena_, src, plan, totals_.buffer.get(), 0, true);
        });
        if (totals) {
            totals->resize(plan.total_slots());
            std::memcpy(totals->data(), totals_.mapped, totals->size() * 8);
        }
        return us;
    }

    // Best of a few loads-per-invocation counts: the fastest read of every byte.
    double time_floor(const HostImage& img) {
        double best = 1e30;
        const auto count = std::uint32_t(img.bytes() / 16);
        for (std::uint32_t per : {1u, 4u, 16u}) {
            VkPipeline p = floor_pipeline(per);
            VkDescriptorSet set = buffers_set(floor_set_layout_.get(), pixels_.buffer.get(), img.bytes());
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
    double time_seed(const HostImage& img) {
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

private:
    VkCommandBuffer allocate() {
        VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        info.commandPool = ctx_.command_pool();
        info.commandBufferCount = 1;
        VkCommandBuffer cmd;
        IMGHIST_VK(vkAllocateCommandBuffers, ctx_.device(), &info, &cmd);
        return cmd;
    }
    void submit_wait(VkCommandBuffer cmd) {
        VkSubmitInfo s{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        s.commandBufferCount = 1;
        s.pCommandBuffers = &cmd;
        IMGHIST_VK(vkQueueSubmit, ctx_.queue(), 1, &s, VK_NULL_HANDLE);
        IMGHIST_VK(vkQueueWaitIdle, ctx_.queue());
    }
    void once(const std::function<void(VkCommandBuffer)>& body) {
        VkCommandBuffer cmd = allocate();
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        IMGHIST_VK(vkBeginCommandBuffer, cmd, &begin);
        body(cmd);
        IMGHIST_VK(vkEndCommandBuffer, cmd);
        submit_wait(cmd);
        vkFreeCommandBuffers(ctx_.device(), ctx_.command_pool(), 1, &cmd);
    }

    vk::ShaderModule module(const unsigned char* data, unsigned long long size) {
        std::vector<std::uint32_t> code((size + 3) / 4);
        std::memcpy(code.data(), data, size);
        VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
        info.codeSize = size;
        info.pCode = code.data();
        VkShaderModule m;
        IMGHIST_VK(vkCreateShaderModule, ctx_.device(), &info, nullptr, &m);
        return vk::ShaderModule(ctx_.device(), m);
    }
    vk::DescriptorSetLayout set_layout(VkDescriptorType first) {
        VkDescriptorSetLayoutBinding b[2] = {{0, first, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                             {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
        VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
        info.bindingCount = 2;
        info.pBindings = b;
        VkDescriptorSetLayout l;
        IMGHIST_VK(vkCreateDescriptorSetLayout, ctx_.device(), &info, nullptr, &l);
        return vk::DescriptorSetLayout(ctx_.device(), l);
    }
    vk::PipelineLayout pipeline_layout(VkDescriptorSetLayout set, std::uint32_t push) {
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
    vk::Pipeline pipeline(VkShaderModule m, VkPipelineLayout layout, const VkSpecializationInfo* spec) {
        VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
        info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_COMPUTE_BIT, m,
                      "main", spec};
        info.layout = layout;
        VkPipeline p;
        IMGHIST_VK(vkCreateComputePipelines, ctx_.device(), VK_NULL_HANDLE, 1, &info, nullptr, &p);
        return vk::Pipeline(ctx_.device(), p);
    }
    void make_floor_and_seed() {
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
    VkPipeline floor_pipeline(std::uint32_t per) {
        auto it = floor_pipelines_.find(per);
        if (it != floor_pipelines_.end()) return it->second.get();
        VkSpecializationMapEntry e{0, 0, 4};
        VkSpecializationInfo spec{1, &e, 4, &per};
        return floor_pipelines_.emplace(per, pipeline(floor_module_.get(), floor_layout_.get(), &spec)).first->second.get();
    }
    VkDescriptorSet buffers_set(VkDescriptorSetLayout layout, VkBuffer data, VkDeviceSize bytes) {
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
    void make_seed_image(const HostImage& img) {
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
        VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        ai.descriptorPool = seed_pool_.get();
        ai.descriptorSetCount = 1;
        VkDescriptorSetLayout l = seed_set_layout_.get();
        ai.pSetLayouts = &l;
        IMGHIST_VK(vkAllocateDescriptorSets, d, &ai, &seed_set_);
        VkDescriptorImageInfo ii{VK_NULL_HANDLE, v, VK_IMAGE_LAYOUT_GENERAL};
        VkDescriptorBufferInfo bi{sink_.buffer.get(), 0, 1024};
        VkWriteDescriptorSet w[2] = {
            {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, seed_set_, 0, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, &ii,
             nullptr, nullptr},
            {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, seed_set_, 1, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
             nullptr, &bi, nullptr}};
        vkUpdateDescriptorSets(d, 2, w, 0, nullptr);
        seed_image_ok_ = true;
    }

    static constexpr std::uint32_t kQueries = 64;
    using Image = vk::Owned<VkImage, vkDestroyImage>;
    using ImageViewH = vk::Owned<VkImageView, vkDestroyImageView>;

    vk::Context ctx_;
    vk::DescriptorArena arena_;
    vk::QueryPool queries_;
    double period_ns_ = 1;
    vk::Allocation totals_, sink_, pixels_;
    std::unique_ptr<vk::Allocation> staging_;
    vk::ShaderModule floor_module_, seed_module_;
    vk::DescriptorSetLayout floor_set_layout_, seed_set_layout_;
    vk::PipelineLayout floor_layout_, seed_layout_;
    vk::Pipeline seed_pipeline_;
    std::map<std::uint32_t, vk::Pipeline> floor_pipelines_;
    vk::DescriptorPool seed_pool_;
    vk::Memory seed_memory_;
    std::unique_ptr<Image> seed_image_;
    std::unique_ptr<ImageViewH> seed_view_;
    VkDescriptorSet seed_set_ = VK_NULL_HANDLE;
    bool seed_image_ok_ = false;
};

std::string tuning_name(const vk::Tuning& t) {
    const char* layouts[] = {"copies", "lanes", "pairs"};
    std::string name = layouts[int(t.layout)];
    if (t.layout == vk::SharedLayout::copies) name += "<=" + std::to_string(t.max_copies);
    return name + (t.value_mode ? " values" : " bins") + " rounds=" + std::to_string(t.rounds) +
           (t.swizzle > 0 ? " swizzle" : t.swizzle == 0 ? " no-swizzle" : "") + " wg=" + std::to_string(t.group_size);
}

struct Row {
    std::string image, pattern, request;
    int tuning;  // index into the sweep
    double us, floor_us;
    std::uint32_t copies, passes;
    vk::SharedLayout layout;
};

}  // namespace
}  // namespace imghist

int main(int argc, char** argv) {
    using namespace imghist;
    bool quick = false, sweep = true;
    std::string out_dir = ".";
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0) quick = true;
        else if (std::strcmp(argv[i], "--no-sweep") == 0) sweep = false;
        else if (std::strcmp(argv[i], "--out") == 0 && i + 1 < argc) out_dir = argv[++i];
    }
    try {
        Bench bench;
        const auto& props = bench.ctx().core().properties();
        std::printf("device: %s (shared memory %u bytes)\n", props.deviceName, props.limits.maxComputeSharedMemorySize);

        // The sweep; index 0 is the backend's compiled-in default. (An earlier sweep over copies
        // 1..32, swizzle and rounds 1..8 of the copies layout is in docs/performance.md.)
        std::vector<vk::Tuning> tunings{vk::Tuning{}};
        auto add = [&](vk::SharedLayout layout, bool values, std::uint32_t copies, std::uint32_t rounds,
                       int swizzle, std::uint32_t group = 256) {
            vk::Tuning t;
            t.group_size = group;
            t.layout = layout;
            t.value_mode = values;
            t.max_copies = copies;
            t.rounds = rounds;
            t.swizzle = swizzle;
            tunings.push_back(t);
        };
        if (sweep) {
            using L = vk::SharedLayout;
            // NVIDIA's driver runs fewer work-groups per SM when each takes more shared memory:
            // bigger work-groups keep the SM busy with the same 32-48 KiB.
            add(L::pairs, true, 1, 8, 0, 1024);
            // The default (one copy, value swizzle) without the swizzle, and two and four copies
            // with it. Work-groups of 256 and 512, 32 lanes (which falls back to copies where it
            // does not fit) and counting bins instead of values were swept on 2026-11-29
            // (docs/performance.md).
            add(L::copies, true, 1, 8, 0, 1024);
            add(L::copies, true, 2, 8, 1, 1024);
            add(L::copies, true, 4, 8, 1, 1024);
        }
        std::vector<std::unique_ptr<vk::HistogramCore>> cores;
        for (const auto& t : tunings)
            cores.push_back(std::make_unique<vk::HistogramCore>(bench.ctx().physical(), bench.ctx().device(), t,
                                                                bench.ctx().float_controls()));

        struct Spec {
            std::string label;
            PixelFormat format;
            std::uint32_t w, h;
            std::vector<Pattern> patterns;
            std::vector<Mode> modes;
        };
        const std::vector<Pattern> four{Pattern::random, Pattern::natural, Pattern::constant, Pattern::bank};
        std::vector<Spec> specs;
        if (quick) {
            specs.push_back({"1080p rgba8", PixelFormat::rgba8, 1920, 1080, four, {Mode::rgb, Mode::all, Mode::luma}});
        } else {
            specs.push_back({"8K rgba8", PixelFormat::rgba8, 7680, 4320, four, {Mode::rgb, Mode::all, Mode::luma}});
            specs.push_back({"16384^2 rgba8", PixelFormat::rgba8, 16384, 16384, four, {Mode::rgb, Mode::all, Mode::luma}});
            specs.push_back({"8K rgba_f32", PixelFormat::rgba_f32, 7680, 4320, {Pattern::random, Pattern::natural},
                             {Mode::all, Mode::rgb}});
        }

        std::vector<Row> rows;
        std::map<std::string, double> seed_us;
        std::ofstream csv(out_dir + "/vulkan_sweep.csv");
        csv << "image,pattern,request,tuning,layout,value_mode,copies,passes,us,floor_us\n";
        auto cpu = create_engine("cpu");
        for (const Spec& spec : specs) {
            for (Pattern pattern : spec.patterns) {
                const auto t0 = Clock::now();
                const HostImage img = generate(spec.label, spec.format, spec.w, spec.h, pattern);
                bench.upload(img);
                const double floor_us = bench.time_floor(img);
                const double seed = bench.time_seed(img);
                const std::string key = spec.label + "/" + pattern_name(pattern);
                if (seed > 0) seed_us[key] = seed;
                std::printf("%s %s: floor %.1f us (%.0f GB/s), seed %.1f us  [prepared in %.1f s]\n", spec.label.c_str(),
                            pattern_name(pattern), floor_us, img.bytes() / floor_us / 1e3, seed,
                            std::chrono::duration<double>(Clock::now() - t0).count());
                for (Mode mode : spec.modes) {
                    Request request;
                    request.mode = mode;
                    HistogramPlan plan(spec.format, request);
                    std::vector<std::uint64_t> first, got;
                    for (std::size_t t = 0; t < tunings.size(); ++t) {
                        // Float images: the default only.
                        if (spec.format != PixelFormat::rgba8 && t != 0) continue;
                        const double us = bench.time_backend(*cores[t], img, plan, &got);
                        if (first.empty()) {
                            first = got;
                            // The default against the CPU backend (8K, request `all`); every
                            // other tuning must then agree with it exactly.
                            std::vector<std::uint64_t> want(plan.total_slots(), 0);
                            if (spec.w * spec.h <= 7680u * 4320u && mode == Mode::all)
                                slot_counter(*cpu).accumulate(img.view(), plan, want);
                            else
                                want = got;
                            std::uint64_t binned = 0;
                            for (std::uint32_t k = 0; k < plan.bins(); ++k) binned += got[k];
                            if (spec.format == PixelFormat::rgba8 && binned != std::uint64_t(spec.w) * spec.h)
                                want.clear();
                            if (want != got) {
                                std::fprintf(stderr, "MISMATCH vs cpu: %s %s\n", key.c_str(),
                                             std::string(mode_name(mode)).c_str());
                                return 2;
                            }
                        } else if (got != first) {
                            std::fprintf(stderr, "MISMATCH between tunings: %s %s %s\n", key.c_str(),
                                         std::string(mode_name(mode)).c_str(), tuning_name(tunings[t]).c_str());
                            return 2;
                        }
                        const DeviceImage src{0, 0, img.width, img.height, 0, img.format};
                        const auto shape = cores[t]->shape(src, plan);
                        rows.push_back({spec.label, pattern_name(pattern), std::string(mode_name(mode)), int(t), us, floor_us,
                                        shape.copies, shape.passes, shape.layout});
                        csv << spec.label << ',' << pattern_name(pattern) << ',' << mode_name(mode) << ",\""
                            << tuning_name(tunings[t]) << "\"," << int(shape.layout) << ',' << shape.value_mode << ','
                            << shape.copies << ',' << shape.passes << ',' << us << ',' << floor_us << '\n';
                    }
                }
            }
        }

        // Share of the floor: the floor of an image size is its fastest read (on the H200 the
        // read-only shader was 2.3x slower on the `natural` images than on the others, while
        // the histogram shader was not). Tunings are ranked by the geometric mean share over
        // every rgba8 image and request; the worst share is printed beside it.
        std::map<std::string, double> size_floor;
        for (const Row& r : rows)
            size_floor[r.image] = size_floor.count(r.image) ? std::min(size_floor[r.image], r.floor_us) : r.floor_us;
        for (Row& r : rows) r.floor_us = size_floor[r.image];
        std::vector<double> worst(tunings.size(), 1e30), logsum(tunings.size(), 0);
        std::vector<int> n(tunings.size(), 0);
        for (const Row& r : rows)
            if (r.image.find("rgba8") != std::string::npos) {
                worst[r.tuning] = std::min(worst[r.tuning], r.floor_us / r.us);
                logsum[r.tuning] += std::log(r.floor_us / r.us);
                ++n[r.tuning];
            }
        std::vector<double> geomean(tunings.size());
        for (std::size_t i = 0; i < tunings.size(); ++i) geomean[i] = n[i] ? std::exp(logsum[i] / n[i]) : 0;
        std::vector<int> order(tunings.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = int(i);
        std::sort(order.begin(), order.end(), [&](int a, int b) { return geomean[a] > geomean[b]; });
        const int best = order[0];

        std::ostringstream table;
        char line[512];
        auto print_table = [&](int tuning, const char* title) {
            table << "### " << title << ": " << tuning_name(tunings[tuning]) << "\n\n";
            table << "| image | pattern | request | imghist µs | floor µs | share of floor | GB/s | seed shader µs |\n";
            table << "|---|---|---|---:|---:|---:|---:|---:|\n";
            for (const Row& r : rows) {
                if (r.tuning != tuning) continue;
                std::string seed = "";
                auto it = seed_us.find(r.image + "/" + r.pattern);
                if (r.request == "luma" && it != seed_us.end()) {
                    std::snprintf(line, sizeof line, "%.1f", it->second);
                    seed = line;
                }
                const double bytes = r.image.find("16384") != std::string::npos ? 16384.0 * 16384 * 4
                                     : r.image.find("f32") != std::string::npos ? 7680.0 * 4320 * 16
                                     : r.image.find("1080p") != std::string::npos ? 1920.0 * 1080 * 4
                                                                                 : 7680.0 * 4320 * 4;
                std::snprintf(line, sizeof line, "| %s | %s | %s | %.1f | %.1f | %.0f%% | %.0f | %s |\n", r.image.c_str(),
                              r.pattern.c_str(), r.request.c_str(), r.us, r.floor_us, 100 * r.floor_us / r.us,
                              bytes / r.us / 1e3, seed.c_str());
                table << line;
            }
            table << "\n";
        };
        table << "device: " << props.deviceName << "\n\n";
        print_table(0, "Compiled-in default tuning");
        if (best != 0) print_table(best, "Best tuning of this sweep (geometric mean share of the floor, rgba8)");
        table << "### Sweep: share of the floor over every rgba8 image and request, per tuning\n\n";
        for (int i : order) {
            std::snprintf(line, sizeof line, "- %d: %s: geometric mean %.0f%%, worst %.0f%%\n", i,
                          tuning_name(tunings[i]).c_str(), 100 * geomean[i], 100 * worst[i]);
            table << line;
        }
        // Every case against every tuning (share of the floor; tuning numbers as listed above).
        if (tunings.size() > 1) {
            std::map<std::string, std::vector<double>> matrix;
            std::vector<std::string> keys;
            for (const Row& r : rows) {
                const std::string key = r.image + " " + r.pattern + " " + r.request;
                if (!matrix.count(key)) keys.push_back(key);
                auto& v = matrix[key];
                v.resize(tunings.size(), 0);
                v[r.tuning] = r.floor_us / r.us;
            }
            table << "\n| case |";
            for (std::size_t i = 0; i < tunings.size(); ++i) table << ' ' << i << " |";
            table << "\n|---|";
            for (std::size_t i = 0; i < tunings.size(); ++i) table << "---:|";
            table << '\n';
            for (const auto& key : keys) {
                table << "| " << key << " |";
                for (double share : matrix[key]) {
                    if (share > 0) std::snprintf(line, sizeof line, " %.0f%% |", 100 * share);
                    else std::snprintf(line, sizeof line, " - |");
                    table << line;
                }
                table << '\n';
            }
        }
        std::printf("\n%s", table.str().c_str());
        std::ofstream(out_dir + "/vulkan_table.txt") << table.str();
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "imghist_vulkan_bench: %s\n", e.what());
        return 1;
    }
}
