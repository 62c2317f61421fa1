// What the vulkan backend's test files share: the skip without a usable device, the comparison
// of two Results, and an application's own Vulkan device (the validation layer on when
// installed) for the interop tests and the validation check.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "backends/vulkan/vk_device.hpp"
#include "backends/vulkan/vk_util.hpp"
#include "imghist/imghist.hpp"
#include "imghist/vulkan.hpp"

namespace imghist::vulkan_test {

// VK_LAYER_KHRONOS_validation is installed.
bool layer_installed();
bool vulkan_available();

// Channels, layouts, counts, nan, below and above are the same.
void expect_same(const Result& got, const Result& want, const std::string& what);

// An application's own Vulkan device: instance (validation on when installed), one compute
// queue, shaderInt64 enabled.
class AppDevice {
public:
    AppDevice();
    ~AppDevice();
    AppDevice(const AppDevice&) = delete;
    AppDevice& operator=(const AppDevice&) = delete;
    std::uint64_t validation_messages() const { return instance_.log().count; }
    const std::string& first_message() const { return instance_.log().first; }
    bool validating() const { return instance_.validation(); }

    // A host-visible storage buffer holding `bytes` at `offset` (the rest zero).
    vk::Allocation upload(const void* data, std::size_t bytes, std::size_t offset = 0);

    // Records `body` into a fresh command buffer, submits it and waits.
    template <typename F>
    void run(F&& body) {
        VkCommandBuffer cmd = begin_commands();
        body(cmd);
        submit_and_wait(cmd);
    }

    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    std::uint32_t family = 0;
    bool float_controls = false;

private:
    VkCommandBuffer begin_commands();
    void submit_and_wait(VkCommandBuffer cmd);
    vk::Instance instance_;
};

// A test on an application's own device (skipped without a usable one), with the reference
// engine for what it expects; it fails if the validation layer reported any message.
class AppDeviceTest : public ::testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;
    vulkan::DeviceContext context() const {
        return {app_->physical, app_->device, app_->family, app_->float_controls};
    }

    std::unique_ptr<AppDevice> app_;
    std::unique_ptr<Engine> reference_;
};

}  // namespace imghist::vulkan_test

#define REQUIRE_VULKAN() \
    if (!::imghist::vulkan_test::vulkan_available()) GTEST_SKIP() << "no usable Vulkan device"
