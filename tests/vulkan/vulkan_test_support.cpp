#include "vulkan_test_support.hpp"

#include <cstring>
#include <vector>

namespace imghist::vulkan_test {

bool layer_installed() {
    std::uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> layers(n);
    vkEnumerateInstanceLayerProperties(&n, layers.data());
    for (const auto& l : layers)
        if (std::strcmp(l.layerName, "VK_LAYER_KHRONOS_validation") == 0) return true;
    return false;
}

bool vulkan_available() { return find_backend("vulkan") && find_backend("vulkan")->available(); }

void expect_same(const Result& got, const Result& want, const std::string& what) {
    SCOPED_TRACE(what);
    ASSERT_EQ(got.channels.size(), want.channels.size());
    for (std::size_t c = 0; c < want.channels.size(); ++c) {
        EXPECT_EQ(got.channels[c].channel, want.channels[c].channel);
        EXPECT_EQ(got.channels[c].layout, want.channels[c].layout);
        EXPECT_EQ(got.channels[c].nan, want.channels[c].nan);
        EXPECT_EQ(got.channels[c].below, want.channels[c].below);
        EXPECT_EQ(got.channels[c].above, want.channels[c].above);
        EXPECT_TRUE(got.channels[c].counts == want.channels[c].counts) << "channel " << c << " counts differ";
    }
}

AppDevice::AppDevice() : instance_(layer_installed()) {
    const auto devices = vk::physical_devices(instance_.get());
    const vk::PhysicalDevice& d = vk::select_device(devices, "");
    physical = d.handle;
    family = d.compute_family;
    const float priority = 1;
    VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    q.queueFamilyIndex = family;
    q.queueCount = 1;
    q.pQueuePriorities = &priority;
    VkPhysicalDeviceFeatures features{};
    features.shaderInt64 = VK_TRUE;
    VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    // As the interop header asks: float controls on where offered (fp32 denormals kept).
    std::uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> exts(n);
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, exts.data());
    const char* fc = VK_KHR_SHADER_FLOAT_CONTROLS_EXTENSION_NAME;
    for (const auto& e : exts)
        if (std::strcmp(e.extensionName, fc) == 0) float_controls = true;
    if (float_controls) {
        info.enabledExtensionCount = 1;
        info.ppEnabledExtensionNames = &fc;
    }
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &q;
    info.pEnabledFeatures = &features;
    vk::check(vkCreateDevice(physical, &info, nullptr, &device), "vkCreateDevice");
    vkGetDeviceQueue(device, family, 0, &queue);
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.queueFamilyIndex = family;
    vk::check(vkCreateCommandPool(device, &pool_info, nullptr, &pool), "vkCreateCommandPool");
}

AppDevice::~AppDevice() {
    vkDeviceWaitIdle(device);
    vkDestroyCommandPool(device, pool, nullptr);
    vkDestroyDevice(device, nullptr);
}

vk::Allocation AppDevice::upload(const void* data, std::size_t bytes, std::size_t offset) {
    vk::Allocation a = vk::allocate_buffer(physical, device, offset + bytes + 64, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true);
    std::memset(a.mapped, 0, offset + bytes + 64);
    std::memcpy(static_cast<char*>(a.mapped) + offset, data, bytes);
    return a;
}

VkCommandBuffer AppDevice::begin_commands() {
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cmd;
    vk::check(vkAllocateCommandBuffers(device, &alloc, &cmd), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(cmd, &begin);
    return cmd;
}

void AppDevice::submit_and_wait(VkCommandBuffer cmd) {
    vkEndCommandBuffer(cmd);
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    vk::check(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE), "vkQueueSubmit");
    vk::check(vkQueueWaitIdle(queue), "vkQueueWaitIdle");
    vkFreeCommandBuffers(device, pool, 1, &cmd);
}

void AppDeviceTest::SetUp() {
    REQUIRE_VULKAN();
    app_ = std::make_unique<AppDevice>();
    reference_ = create_engine("reference");
}

void AppDeviceTest::TearDown() {
    if (!app_) return;
    const std::uint64_t n = app_->validation_messages();
    const std::string first = app_->first_message();
    app_.reset();
    EXPECT_EQ(n, 0u) << "validation layer: " << first;
}

}  // namespace imghist::vulkan_test
