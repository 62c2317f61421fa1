#include "backends/vulkan/vk_util.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/device_select.hpp"
#include "gpu/api_error.hpp"
#include "gpu/tuning.hpp"
#include "imghist/error.hpp"

namespace imghist::vk {

const char* result_name(VkResult r) {
    switch (r) {
#define IH_CASE(x) case x: return #x;
        IH_CASE(VK_SUCCESS)
        IH_CASE(VK_NOT_READY)
        IH_CASE(VK_TIMEOUT)
        IH_CASE(VK_EVENT_SET)
        IH_CASE(VK_EVENT_RESET)
        IH_CASE(VK_INCOMPLETE)
        IH_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
        IH_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        IH_CASE(VK_ERROR_INITIALIZATION_FAILED)
        IH_CASE(VK_ERROR_DEVICE_LOST)
        IH_CASE(VK_ERROR_MEMORY_MAP_FAILED)
        IH_CASE(VK_ERROR_LAYER_NOT_PRESENT)
        IH_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
        IH_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
        IH_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
        IH_CASE(VK_ERROR_TOO_MANY_OBJECTS)
        IH_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
        IH_CASE(VK_ERROR_FRAGMENTED_POOL)
        IH_CASE(VK_ERROR_UNKNOWN)
        IH_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
        IH_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
        IH_CASE(VK_ERROR_FRAGMENTATION)
        IH_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
        IH_CASE(VK_PIPELINE_COMPILE_REQUIRED)
#undef IH_CASE
        default: return "VkResult(unknown)";
    }
}

void check(VkResult r, const char* call) {
    if (r != VK_SUCCESS) gpu::throw_api_error("Vulkan", call, result_name(r), r);
}

Allocation allocate_buffer(VkPhysicalDevice physical, VkDevice device, VkDeviceSize size,
                           VkBufferUsageFlags usage, bool host_visible, bool read_by_shaders) {
    Allocation a;
    a.size = size;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer buffer = VK_NULL_HANDLE;
    IMGHIST_VK(vkCreateBuffer, device, &info, nullptr, &buffer);
    a.buffer = Buffer(device, buffer);

    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, buffer, &req);
    VkPhysicalDeviceMemoryProperties props;
    vkGetPhysicalDeviceMemoryProperties(physical, &props);
    const VkMemoryPropertyFlags want = host_visible
        ? (VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)
        : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    std::uint32_t type = UINT32_MAX;
    for (std::uint32_t i = 0; i < props.memoryTypeCount; ++i) {
        if (!(req.memoryTypeBits & (1u << i))) continue;
        const VkMemoryPropertyFlags f = props.memoryTypes[i].propertyFlags;
        if ((f & want) != want) continue;
        // Host buffers: plain system memory, or device-local for read_by_shaders (the header).
        const bool preferred = host_visible && (read_by_shaders == ((f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0));
        if (type == UINT32_MAX || preferred) {
            type = i;
            if (preferred) break;
        }
    }
    if (type == UINT32_MAX)
        throw DeviceError(std::string("no Vulkan memory type is ") + (host_visible ? "host-visible and coherent" : "device-local"));
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = type;
    a.device_local = (props.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    IMGHIST_VK(vkAllocateMemory, device, &alloc, nullptr, &memory);
    a.memory = Memory(device, memory);
    IMGHIST_VK(vkBindBufferMemory, device, buffer, memory, 0);
    if (host_visible) IMGHIST_VK(vkMapMemory, device, memory, 0, VK_WHOLE_SIZE, 0, &a.mapped);
    return a;
}

ShaderModule make_shader_module(VkDevice device, const unsigned char* spirv, std::size_t bytes) {
    std::vector<std::uint32_t> code((bytes + 3) / 4);  // SPIR-V is read as aligned words
    std::memcpy(code.data(), spirv, bytes);
    VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    info.codeSize = bytes;
    info.pCode = code.data();
    VkShaderModule m = VK_NULL_HANDLE;
    IMGHIST_VK(vkCreateShaderModule, device, &info, nullptr, &m);
    return ShaderModule(device, m);
}

Pipeline make_compute_pipeline(VkDevice device, VkShaderModule module, VkPipelineLayout layout,
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

Pipeline make_specialized_pipeline(VkDevice device, VkShaderModule module, VkPipelineLayout layout,
                                   const void* constants, std::uint32_t count) {
    std::vector<VkSpecializationMapEntry> entries(count);
    for (std::uint32_t i = 0; i < count; ++i) entries[i] = {i, i * 4, 4};
    const VkSpecializationInfo info{count, entries.data(), std::size_t(count) * 4, constants};
    return make_compute_pipeline(device, module, layout, &info);
}

PipelineLayout make_pipeline_layout(VkDevice device, VkDescriptorSetLayout set_layout, std::uint32_t push_bytes) {
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
    VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    info.setLayoutCount = 1;
    info.pSetLayouts = &set_layout;
    info.pushConstantRangeCount = 1;
    info.pPushConstantRanges = &range;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    IMGHIST_VK(vkCreatePipelineLayout, device, &info, nullptr, &layout);
    return PipelineLayout(device, layout);
}

DescriptorSetLayout make_storage_set_layout(VkDevice device, std::uint32_t bindings) {
    std::vector<VkDescriptorSetLayoutBinding> list(bindings);
    for (std::uint32_t i = 0; i < bindings; ++i)
        list[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.bindingCount = bindings;
    info.pBindings = list.data();
    VkDescriptorSetLayout layout = VK_NULL_HANDLE;
    IMGHIST_VK(vkCreateDescriptorSetLayout, device, &info, nullptr, &layout);
    return DescriptorSetLayout(device, layout);
}

void write_storage_set(VkDevice device, VkDescriptorSet set, const VkDescriptorBufferInfo* const* infos,
                       std::uint32_t count) {
    std::vector<VkWriteDescriptorSet> writes(count);
    for (std::uint32_t i = 0; i < count; ++i) {
        writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[i].dstSet = set;
        writes[i].dstBinding = i;
        writes[i].descriptorCount = 1;
        writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[i].pBufferInfo = infos[i];
    }
    vkUpdateDescriptorSets(device, count, writes.data(), 0, nullptr);
}

DescriptorPool make_storage_pool(VkDevice device, std::uint32_t sets, std::uint32_t bindings) {
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, bindings * sets};
    VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    info.maxSets = sets;
    info.poolSizeCount = 1;
    info.pPoolSizes = &size;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    IMGHIST_VK(vkCreateDescriptorPool, device, &info, nullptr, &pool);
    return DescriptorPool(device, pool);
}

void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
             VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
    VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    b.srcAccessMask = src_access;
    b.dstAccessMask = dst_access;
    vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &b, 0, nullptr, 0, nullptr);
}

namespace {

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                          VkDebugUtilsMessageTypeFlagsEXT,
                                          const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    if (severity < VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) return VK_FALSE;
    auto* log = static_cast<ValidationLog*>(user);
    const char* text = data && data->pMessage ? data->pMessage : "(no message)";
    if (log->count++ == 0) log->first = text;
    std::fprintf(stderr, "imghist vulkan validation: %s\n", text);
    return VK_FALSE;
}

bool has_layer(const char* name) {
    std::uint32_t n = 0;
    if (vkEnumerateInstanceLayerProperties(&n, nullptr) != VK_SUCCESS) return false;
    std::vector<VkLayerProperties> layers(n);
    if (vkEnumerateInstanceLayerProperties(&n, layers.data()) != VK_SUCCESS) return false;
    for (const auto& l : layers)
        if (std::strcmp(l.layerName, name) == 0) return true;
    return false;
}

}  // namespace

bool validation_requested() {
    const char* v = std::getenv("IMGHIST_VULKAN_VALIDATION");
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

Instance::Instance(bool validation) {
    static constexpr const char* kLayer = "VK_LAYER_KHRONOS_validation";
    if (validation && !has_layer(kLayer))
        throw DeviceError("IMGHIST_VULKAN_VALIDATION is set but the layer VK_LAYER_KHRONOS_validation is not "
                          "installed (Debian: vulkan-validationlayers)");
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "imghist";
    app.pEngineName = "imghist";
    app.apiVersion = VK_API_VERSION_1_1;
    VkDebugUtilsMessengerCreateInfoEXT msg{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    msg.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    msg.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    msg.pfnUserCallback = on_message;
    msg.pUserData = log_.get();
    const char* ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    if (validation) {
        info.enabledLayerCount = 1;
        info.ppEnabledLayerNames = &kLayer;
        info.enabledExtensionCount = 1;
        info.ppEnabledExtensionNames = &ext;
        info.pNext = &msg;  // also covers vkCreateInstance / vkDestroyInstance
    }
    IMGHIST_VK(vkCreateInstance, &info, nullptr, &instance_);
    if (validation) {
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
        VkResult r = create ? create(instance_, &msg, nullptr, &messenger_) : VK_ERROR_EXTENSION_NOT_PRESENT;
        if (r != VK_SUCCESS) {
            vkDestroyInstance(instance_, nullptr);
            check(r, "vkCreateDebugUtilsMessengerEXT");
        }
    }
}

Instance::~Instance() {
    if (messenger_ != VK_NULL_HANDLE) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(instance_, messenger_, nullptr);
    }
    vkDestroyInstance(instance_, nullptr);
}

const char* type_name(VkPhysicalDeviceType type) {
    switch (type) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
        default: return "other";
    }
}

std::vector<PhysicalDevice> physical_devices(VkInstance instance) {
    std::uint32_t n = 0;
    IMGHIST_VK(vkEnumeratePhysicalDevices, instance, &n, nullptr);
    std::vector<VkPhysicalDevice> handles(n);
    IMGHIST_VK(vkEnumeratePhysicalDevices, instance, &n, handles.data());
    std::vector<PhysicalDevice> out;
    for (std::uint32_t i = 0; i < n; ++i) {
        PhysicalDevice d;
        d.handle = handles[i];
        d.index = i;
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(handles[i], &props);
        d.name = props.deviceName;
        d.type = props.deviceType;
        d.api_version = props.apiVersion;
        VkPhysicalDeviceFeatures features;
        vkGetPhysicalDeviceFeatures(handles[i], &features);
        std::uint32_t nf = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(handles[i], &nf, nullptr);
        std::vector<VkQueueFamilyProperties> families(nf);
        vkGetPhysicalDeviceQueueFamilyProperties(handles[i], &nf, families.data());
        for (std::uint32_t f = 0; f < nf; ++f)
            if (families[f].queueFlags & VK_QUEUE_COMPUTE_BIT) {
                d.compute_family = f;
                break;
            }
        d.note = std::string(type_name(d.type)) + ", Vulkan " + std::to_string(VK_API_VERSION_MAJOR(d.api_version)) +
                 "." + std::to_string(VK_API_VERSION_MINOR(d.api_version)) + "." +
                 std::to_string(VK_API_VERSION_PATCH(d.api_version));
        if (d.api_version < VK_API_VERSION_1_1)
            d.note += "; unusable: needs Vulkan 1.1";
        else if (d.compute_family == UINT32_MAX)
            d.note += "; unusable: no compute queue";
        else if (!features.shaderInt64)
            d.note += "; unusable: no shaderInt64 (the integer bin math needs 64-bit integers)";
        else
            d.available = true;
        out.push_back(std::move(d));
    }
    return out;
}

namespace {
int rank(VkPhysicalDeviceType t) {
    switch (t) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return 4;
        default: return 3;
    }
}

bool is_gpu(VkPhysicalDeviceType t) { return t != VK_PHYSICAL_DEVICE_TYPE_CPU && t != VK_PHYSICAL_DEVICE_TYPE_OTHER; }
}  // namespace

DeviceInfo device_info(const PhysicalDevice& d) {
    return {std::to_string(d.index), d.name, is_gpu(d.type), d.available, d.note};
}

gpu::DeviceIdentity device_identity(VkPhysicalDevice physical) {
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(physical, &props);
    char vendor[16];
    std::snprintf(vendor, sizeof vendor, "0x%04x", props.vendorID);
    return {vendor, props.deviceName, is_gpu(props.deviceType)};
}

const PhysicalDevice& select_device(const std::vector<PhysicalDevice>& devices, const std::string& selector) {
    std::vector<DeviceInfo> infos;
    std::vector<int> preference;  // `auto`: discrete, then integrated, then virtual GPUs
    for (const PhysicalDevice& d : devices) {
        infos.push_back(device_info(d));
        preference.push_back(rank(d.type));
    }
    return devices[imghist::select_device("vulkan", infos, selector, "IMGHIST_VULKAN_DEVICE", preference)];
}

}  // namespace imghist::vk
