#include "backends/vulkan/vk_device.hpp"

#include <vector>

#include "backends/vulkan/vk_tuning.hpp"
#include "imghist/error.hpp"

namespace imghist::vk {

Context::Context(const std::string& selector, std::optional<Tuning> tuning) : instance_(validation_requested()) {
    const auto devices = physical_devices(instance_.get());
    const PhysicalDevice& pick = select_device(devices, selector);
    physical_ = pick.handle;
    if (!tuning) tuning = tuning_for(device_identity(physical_));
    family_ = pick.compute_family;
    name_ = pick.name;

    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue.queueFamilyIndex = family_;
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    VkPhysicalDeviceFeatures features{};
    features.shaderInt64 = VK_TRUE;  // the integer bin math and the 64-bit totals
    // VK_KHR_shader_float_controls: lets the fp32 shaders keep denormals (DenormPreserve).
    std::uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(physical_, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> exts(n);
    vkEnumerateDeviceExtensionProperties(physical_, nullptr, &n, exts.data());
    bool& float_controls = float_controls_;
    for (const auto& e : exts) float_controls = float_controls || std::string(e.extensionName) == VK_KHR_SHADER_FLOAT_CONTROLS_EXTENSION_NAME;
    const char* ext = VK_KHR_SHADER_FLOAT_CONTROLS_EXTENSION_NAME;
    VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    if (float_controls) {
        info.enabledExtensionCount = 1;
        info.ppEnabledExtensionNames = &ext;
    }
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue;
    info.pEnabledFeatures = &features;
    IMGHIST_VK(vkCreateDevice, physical_, &info, nullptr, &device_);
    try {
        vkGetDeviceQueue(device_, family_, 0, &queue_);
        VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        pool.queueFamilyIndex = family_;
        VkCommandPool p = VK_NULL_HANDLE;
        IMGHIST_VK(vkCreateCommandPool, device_, &pool, nullptr, &p);
        pool_ = CommandPool(device_, p);
        core_ = std::make_unique<HistogramCore>(physical_, device_, *tuning, float_controls);
    } catch (...) {
        core_.reset();
        pool_.reset();
        vkDestroyDevice(device_, nullptr);
        throw;
    }
}

Context::~Context() {
    vkDeviceWaitIdle(device_);
    core_.reset();
    pool_.reset();
    vkDestroyDevice(device_, nullptr);
}

Fence Context::make_fence(bool signaled) const {
    VkFenceCreateInfo info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (signaled) info.flags = VK_FENCE_CREATE_SIGNALED_BIT;
    VkFence f = VK_NULL_HANDLE;
    IMGHIST_VK(vkCreateFence, device_, &info, nullptr, &f);
    return Fence(device_, f);
}

void Context::submit(VkCommandBuffer cmd, VkFence fence) const {
    VkSubmitInfo info{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    info.commandBufferCount = 1;
    info.pCommandBuffers = &cmd;
    IMGHIST_VK(vkQueueSubmit, queue_, 1, &info, fence);
}

void Context::check_validation() {
    const ValidationLog& log = instance_.log();
    if (log.count == reported_) return;
    const std::uint64_t n = log.count - reported_;
    reported_ = log.count;
    throw DeviceError("the Vulkan validation layer reported " + std::to_string(n) + " message(s); first: " + log.first);
}

}  // namespace imghist::vk
