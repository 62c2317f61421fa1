// The Vulkan side of imghist_vulkan_bench: one device (the backend's vk::Context), GPU
// timestamps around back-to-back runs, and the two yardstick shaders (floor.comp, seed.comp)
// on an image uploaded once per case.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/vulkan/vk_device.hpp"
#include "bench_common.hpp"
#include "imghist/imghist.hpp"

namespace imghist::vkbench {

using Pattern = bench::Dist;

// A generated image on the host (vulkan_bench.cpp's generate()).
struct HostImage {
    std::string label;
    PixelFormat format;
    std::uint32_t width, height;
    Pattern pattern;
    std::vector<std::byte> pixels;
    std::size_t bytes() const { return pixels.size(); }
    ImageView view() const { return ImageView::packed(pixels.data(), width, height, format); }
};

class Bench {
public:
    Bench();
    ~Bench() { vkDeviceWaitIdle(ctx_.device()); }

    vk::Context& ctx() { return ctx_; }
    vk::DescriptorArena& arena() { return arena_; }
    // The image upload() copied, as a device image.
    DeviceImage device_pixels(const HostImage& img) const;

    // Copies the image into one device-local buffer (and, for rgba8, a storage image).
    void upload(const HostImage& img);
    // Copies a w x h gray8 mask into a device-local buffer of its own; returns it as a device image.
    DeviceImage upload_mask(const std::vector<std::uint8_t>& bytes, std::uint32_t w, std::uint32_t h);

    // Median GPU time (µs) of what `body` records. The repetitions run back to back in one
    // command buffer, a timestamp after each, so the GPU never idles (and never drops its
    // clocks) between them; the whole command buffer runs once as a warm-up first.
    double time(const std::function<void(VkCommandBuffer)>& body, int runs = 15);

    // The backend's recorded work: zero the counters, count (tiles, passes), flush to 64 bits;
    // only the pixels `selection` selects where given (totals: their number, then the plan's).
    double time_backend(vk::HistogramCore& core, const HostImage& img, const HistogramPlan& plan,
                        std::vector<std::uint64_t>* totals, const vk::Selection* selection = nullptr);

    // Best of a few loads-per-invocation counts: the fastest read of every byte (of the image,
    // or of the mask upload_mask() holds).
    double time_floor(const HostImage& img);
    double time_mask_floor(std::size_t bytes);

    // The seed's shader on the rgba8 storage image (with the zeroing of its 256 bins).
    double time_seed(const HostImage& img);

private:
    VkCommandBuffer allocate();
    void submit_wait(VkCommandBuffer cmd);
    void once(const std::function<void(VkCommandBuffer)>& body);
    // Copies `bytes` bytes into `dst` (device-local, grown to them) through the staging buffer.
    void copy_to_device(const void* data, VkDeviceSize bytes, vk::Allocation& dst);
    double time_read(VkBuffer buffer, VkDeviceSize bytes);

    vk::ShaderModule module(const unsigned char* data, unsigned long long size);
    vk::DescriptorSetLayout set_layout(VkDescriptorType first);
    vk::PipelineLayout pipeline_layout(VkDescriptorSetLayout set, std::uint32_t push);
    vk::Pipeline pipeline(VkShaderModule m, VkPipelineLayout layout, const VkSpecializationInfo* spec);
    void make_floor_and_seed();
    VkPipeline floor_pipeline(std::uint32_t per);
    VkDescriptorSet buffers_set(VkDescriptorSetLayout layout, VkBuffer data, VkDeviceSize bytes);
    void make_seed_image(const HostImage& img);
    void create_seed_image(const HostImage& img);
    void copy_to_seed_image(const HostImage& img);
    void write_seed_set();

    static constexpr std::uint32_t kQueries = 64;
    using Image = vk::Owned<VkImage, vkDestroyImage>;
    using ImageViewH = vk::Owned<VkImageView, vkDestroyImageView>;

    vk::Context ctx_;
    vk::DescriptorArena arena_;
    vk::QueryPool queries_;
    double period_ns_ = 1;
    vk::Allocation totals_, sink_, pixels_, mask_;
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

}  // namespace imghist::vkbench
