// Small Vulkan helpers for the vulkan backend: error checking that names the call and the
// VkResult, move-only owners of device objects, the instance (with the Khronos validation layer
// on request), physical-device discovery and selection, and host-visible buffers.
#pragma once

#include <vulkan/vulkan.h>

#include "gpu/growing_buffer.hpp"
#include "imghist/engine.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace imghist::gpu {
struct DeviceIdentity;
}

namespace imghist::vk {

const char* result_name(VkResult result);
// Throws DeviceError (gpu/api_error.hpp: "Vulkan <call> failed: <VK_...> (<code>)") unless
// result is VK_SUCCESS.
void check(VkResult result, const char* call);
#define IMGHIST_VK(fn, ...) ::imghist::vk::check(fn(__VA_ARGS__), #fn)

// Owner of one object created from a VkDevice.
template <typename T, void (*Destroy)(VkDevice, T, const VkAllocationCallbacks*)>
class Owned {
public:
    Owned() = default;
    Owned(VkDevice device, T handle) : device_(device), handle_(handle) {}
    Owned(Owned&& o) noexcept : device_(o.device_), handle_(std::exchange(o.handle_, T(VK_NULL_HANDLE))) {}
    Owned& operator=(Owned&& o) noexcept {
        if (this != &o) {
            reset();
            device_ = o.device_;
            handle_ = std::exchange(o.handle_, T(VK_NULL_HANDLE));
        }
        return *this;
    }
    ~Owned() { reset(); }
    void reset() {
        if (handle_ != T(VK_NULL_HANDLE)) Destroy(device_, handle_, nullptr);
        handle_ = T(VK_NULL_HANDLE);
    }
    T get() const { return handle_; }
    explicit operator bool() const { return handle_ != T(VK_NULL_HANDLE); }

private:
    VkDevice device_ = VK_NULL_HANDLE;
    T handle_ = T(VK_NULL_HANDLE);
};

using Buffer = Owned<VkBuffer, vkDestroyBuffer>;
using Memory = Owned<VkDeviceMemory, vkFreeMemory>;
using ShaderModule = Owned<VkShaderModule, vkDestroyShaderModule>;
using Pipeline = Owned<VkPipeline, vkDestroyPipeline>;
using PipelineLayout = Owned<VkPipelineLayout, vkDestroyPipelineLayout>;
using DescriptorSetLayout = Owned<VkDescriptorSetLayout, vkDestroyDescriptorSetLayout>;
using DescriptorPool = Owned<VkDescriptorPool, vkDestroyDescriptorPool>;
using CommandPool = Owned<VkCommandPool, vkDestroyCommandPool>;
using Fence = Owned<VkFence, vkDestroyFence>;
using QueryPool = Owned<VkQueryPool, vkDestroyQueryPool>;

// A buffer with its own memory; `mapped` is set for host-visible ones (kept mapped).
struct Allocation {
    Memory memory;  // destroyed after the buffer (members are destroyed in reverse order)
    Buffer buffer;
    void* mapped = nullptr;
    VkDeviceSize size = 0;
    bool device_local = false;  // its memory type is DEVICE_LOCAL
};
// host_visible: HOST_VISIBLE | HOST_COHERENT memory, mapped; otherwise DEVICE_LOCAL.
// Host-visible buffers go to plain system memory where there is a choice (a device-local BAR
// can be small), unless `read_by_shaders`: a small buffer every invocation reads (edge keys)
// then goes to memory that is device-local too, where the device has such a type. Shaders
// reading system memory cross the bus on every cache miss (the H200's 256 EV bins: 8-10x).
Allocation allocate_buffer(VkPhysicalDevice physical, VkDevice device, VkDeviceSize size,
                           VkBufferUsageFlags usage, bool host_visible, bool read_by_shaders = false);

// allocate_buffer's buffers for gpu::GrowingBuffer. Vulkan frees at once: a buffer is grown
// only while no submitted work uses it (the engines wait on their fences first).
struct BufferTraits {
    using Handle = Allocation;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkBufferUsageFlags usage = 0;
    bool host_visible = false;
    Allocation allocate(std::size_t bytes) const {
        return allocate_buffer(physical, device, bytes, usage, host_visible);
    }
    static void release(Allocation& a) noexcept { a = Allocation{}; }
    void wait_before_free() const {}
};
using GrowingBuffer = gpu::GrowingBuffer<BufferTraits>;

// Declares SPIR-V that CMakeLists.txt compiled and embedded as imghist_vk_<name> (its bytes) and
// imghist_vk_<name>_size; use at global scope.
#define IMGHIST_VK_SPIRV(name)                      \
    extern const unsigned char imghist_vk_##name[]; \
    extern const unsigned long long imghist_vk_##name##_size;

// A shader module of embedded SPIR-V, a compute pipeline of its "main" (`spec`: its
// specialization, or null), and a pipeline layout of one descriptor set and one push-constant range.
ShaderModule make_shader_module(VkDevice device, const unsigned char* spirv, std::size_t bytes);
Pipeline make_compute_pipeline(VkDevice device, VkShaderModule module, VkPipelineLayout layout,
                               const VkSpecializationInfo* spec);
// A compute pipeline of `module` specialized by `constants`: `count` 32-bit words, constant_id i
// the i-th.
Pipeline make_specialized_pipeline(VkDevice device, VkShaderModule module, VkPipelineLayout layout,
                                   const void* constants, std::uint32_t count);
PipelineLayout make_pipeline_layout(VkDevice device, VkDescriptorSetLayout set_layout, std::uint32_t push_bytes);
// A descriptor set layout of `bindings` storage buffers (bindings 0 .. bindings - 1) for compute.
DescriptorSetLayout make_storage_set_layout(VkDevice device, std::uint32_t bindings);
// Points binding i of `set` (storage buffers) at *infos[i], i < count.
void write_storage_set(VkDevice device, VkDescriptorSet set, const VkDescriptorBufferInfo* const* infos,
                       std::uint32_t count);
// A descriptor pool of `sets` such sets.
DescriptorPool make_storage_pool(VkDevice device, std::uint32_t sets, std::uint32_t bindings);

// A global memory barrier between two stages.
void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
             VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);

// Messages the validation layer reported (warnings and errors) to one instance.
struct ValidationLog {
    std::uint64_t count = 0;
    std::string first;
};

// A VkInstance. With validation, the Khronos layer is enabled and a debug-utils messenger
// counts every warning and error into log().
class Instance {
public:
    explicit Instance(bool validation);
    ~Instance();
    Instance(const Instance&) = delete;
    Instance& operator=(const Instance&) = delete;
    VkInstance get() const { return instance_; }
    const ValidationLog& log() const { return *log_; }
    bool validation() const { return messenger_ != VK_NULL_HANDLE; }

private:
    VkInstance instance_ = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    std::unique_ptr<ValidationLog> log_ = std::make_unique<ValidationLog>();
};

// IMGHIST_VULKAN_VALIDATION=1 in the environment.
bool validation_requested();

struct PhysicalDevice {
    VkPhysicalDevice handle = VK_NULL_HANDLE;
    std::uint32_t index = 0;
    std::string name;
    VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
    std::uint32_t api_version = 0;
    std::uint32_t compute_family = UINT32_MAX;
    bool available = false;
    std::string note;
};
std::vector<PhysicalDevice> physical_devices(VkInstance instance);
// What devices() lists for a physical device.
DeviceInfo device_info(const PhysicalDevice& d);
// What the tuning's device families match on (vk_tuning.hpp); the vendor is its PCI id, "0x10de".
gpu::DeviceIdentity device_identity(VkPhysicalDevice physical);
// The shared --device rule (core/device_select.hpp), with IMGHIST_VULKAN_DEVICE; empty picks
// the best available device (discrete GPU, integrated, virtual, other, CPU).
const PhysicalDevice& select_device(const std::vector<PhysicalDevice>& devices, const std::string& selector);
const char* type_name(VkPhysicalDeviceType type);

}  // namespace imghist::vk
