// A VkDevice the vulkan backend owns (for host images and the benchmark): instance, chosen
// physical device, one compute queue, a command pool and the HistogramCore on top.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "backends/vulkan/vk_histogram.hpp"

namespace imghist::vk {

class Context {
public:
    // selector: index or name substring, empty = best device. IMGHIST_VULKAN_VALIDATION=1
    // enables the Khronos validation layer. tuning: none for the chosen device's (its family and
    // IMGHIST_VULKAN_TUNE, vk_tuning.hpp). Throws BackendUnavailable / DeviceError / InvalidArgument.
    explicit Context(const std::string& selector, std::optional<Tuning> tuning = Tuning{});
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    VkInstance instance() const { return instance_.get(); }
    VkPhysicalDevice physical() const { return physical_; }
    VkDevice device() const { return device_; }
    VkQueue queue() const { return queue_; }
    std::uint32_t queue_family() const { return family_; }
    VkCommandPool command_pool() const { return pool_.get(); }
    HistogramCore& core() { return *core_; }
    const std::string& name() const { return name_; }
    bool float_controls() const { return float_controls_; }

    Fence make_fence(bool signaled) const;
    void submit(VkCommandBuffer cmd, VkFence fence) const;
    // Throws DeviceError if the validation layer reported anything since the last call.
    void check_validation();

private:
    Instance instance_;
    VkPhysicalDevice physical_ = VK_NULL_HANDLE;
    VkDevice device_ = VK_NULL_HANDLE;
    VkQueue queue_ = VK_NULL_HANDLE;
    std::uint32_t family_ = 0;
    std::string name_;
    CommandPool pool_;
    std::unique_ptr<HistogramCore> core_;
    std::uint64_t reported_ = 0;
    bool float_controls_ = false;
};

}  // namespace imghist::vk
