// The vulkan backend beyond the generic parity suite:
//  - interop: pixels in a VkBuffer on a VkDevice this test creates (as an application would),
//    counted by commands recorded into the test's command buffer, the result in the test's
//    VkBuffer; compared with the reference backend bit for bit;
//  - tiling: many small tiles, so the 32-bit counters are flushed into the 64-bit totals many
//    times; strided rows and unaligned offsets;
//  - device selection (index, name, IMGHIST_VULKAN_DEVICE, no match) (error messages: test_launch_plan.cpp);
//  - the validation layer: it is enabled here whenever installed, its messenger must see no
//    message, and a deliberate mistake must be seen.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "backends/vulkan/vk_device.hpp"
#include "backends/vulkan/vk_util.hpp"
#include "imghist/imghist.hpp"
#include "imghist/vulkan.hpp"
#include "histogram_asserts.hpp"
#include "interop_checks.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

using testing::make_image;
using testing::Pattern;

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

#define REQUIRE_VULKAN() \
    if (!vulkan_available()) GTEST_SKIP() << "no usable Vulkan device"

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

// An application's own Vulkan device: instance (validation on when installed), one compute
// queue, shaderInt64 enabled.
class AppDevice {
public:
    AppDevice() : instance_(layer_installed()) {
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
    ~AppDevice() {
        vkDeviceWaitIdle(device);
        vkDestroyCommandPool(device, pool, nullptr);
        vkDestroyDevice(device, nullptr);
    }
    std::uint64_t validation_messages() const { return instance_.log().count; }
    const std::string& first_message() const { return instance_.log().first; }
    bool validating() const { return instance_.validation(); }

    // A host-visible storage buffer holding `bytes` at `offset` (the rest zero).
    vk::Allocation upload(const void* data, std::size_t bytes, std::size_t offset = 0) {
        vk::Allocation a = vk::allocate_buffer(physical, device, offset + bytes + 64,
                                               VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true);
        std::memset(a.mapped, 0, offset + bytes + 64);
        std::memcpy(static_cast<char*>(a.mapped) + offset, data, bytes);
        return a;
    }

    // Records `body` into a fresh command buffer, submits it and waits.
    template <typename F>
    void run(F&& body) {
        VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        alloc.commandPool = pool;
        alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        alloc.commandBufferCount = 1;
        VkCommandBuffer cmd;
        vk::check(vkAllocateCommandBuffers(device, &alloc, &cmd), "vkAllocateCommandBuffers");
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        vkBeginCommandBuffer(cmd, &begin);
        body(cmd);
        vkEndCommandBuffer(cmd);
        VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        submit.commandBufferCount = 1;
        submit.pCommandBuffers = &cmd;
        vk::check(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE), "vkQueueSubmit");
        vk::check(vkQueueWaitIdle(queue), "vkQueueWaitIdle");
        vkFreeCommandBuffers(device, pool, 1, &cmd);
    }

    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    std::uint32_t family = 0;
    bool float_controls = false;

private:
    vk::Instance instance_;
};

class VulkanInterop : public ::testing::Test {
protected:
    void SetUp() override {
        REQUIRE_VULKAN();
        app_ = std::make_unique<AppDevice>();
        reference_ = create_engine("reference");
    }
    void TearDown() override {
        if (app_) {
            const std::uint64_t n = app_->validation_messages();
            const std::string first = app_->first_message();
            app_.reset();
            EXPECT_EQ(n, 0u) << "validation layer: " << first;
        }
    }
    std::unique_ptr<AppDevice> app_;
    std::unique_ptr<Engine> reference_;
};

// Recorded into the application's command buffer, result into a device-local buffer of the
// application, copied to a host-visible one only to check it here.
TEST_F(VulkanInterop, RecordIntoCallerCommandBufferAndResultBuffer) {
    vulkan::Histogrammer h({app_->physical, app_->device, app_->family, app_->float_controls});
    for (PixelFormat format : {PixelFormat::rgba8, PixelFormat::rgb8, PixelFormat::gray16, PixelFormat::rgba_f16,
                               PixelFormat::rgb_f32}) {
        auto img = make_image(format, 301, 45, Pattern::random, 5);
        const std::size_t bytes = img.view.stride_bytes * img.view.height;
        vk::Allocation pixels = app_->upload(img.view.data, bytes, 32);
        const DeviceImage bi = vulkan::device_image(pixels.buffer.get(), 32, img.view.width, img.view.height,
                                                    img.view.stride_bytes, format);
        Request request;
        request.count_alpha = true;
        const vulkan::ResultLayout layout = h.result_layout(format, request);
        // Results at an offset, in device-local memory the host cannot see.
        vk::Allocation result = vk::allocate_buffer(app_->physical, app_->device, layout.bytes + 8,
                                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                                    false);
        vk::Allocation readback = vk::allocate_buffer(app_->physical, app_->device, layout.bytes,
                                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
        app_->run([&](VkCommandBuffer cmd) {
            vk::barrier(cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                        VK_ACCESS_SHADER_READ_BIT);
            h.record(cmd, bi, request, result.buffer.get(), 8);
            vk::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                        VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
            VkBufferCopy copy{8, 0, layout.bytes};
            vkCmdCopyBuffer(cmd, result.buffer.get(), readback.buffer.get(), 1, &copy);
            vk::barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                        VK_ACCESS_HOST_READ_BIT);
        });
        h.release_recordings();
        std::vector<std::uint64_t> slots(layout.bytes / 8);
        std::memcpy(slots.data(), readback.mapped, layout.bytes);
        const Result got = h.to_result(bi, request, slots);
        expect_same(got, reference_->compute(img.view, request), std::string(format_info(format).name));
        EXPECT_EQ(got.backend, "vulkan");
    }
}

// Strided rows and offsets that are not 16-byte aligned take the word-by-word path.
TEST_F(VulkanInterop, StridesAndOffsets) {
    vulkan::Histogrammer h({app_->physical, app_->device, app_->family, app_->float_controls});
    struct Case {
        PixelFormat format;
        std::size_t padding, offset;
    };
    for (const Case& c : {Case{PixelFormat::rgba8, 12, 0}, Case{PixelFormat::gray8, 3, 1}, Case{PixelFormat::rgb16, 6, 2},
                          Case{PixelFormat::rgba8, 0, 4}, Case{PixelFormat::gray_f32, 0, 8},
                          Case{PixelFormat::rgba_f16, 10, 6}, Case{PixelFormat::rgb_f32, 4, 0},
                          Case{PixelFormat::rgba_f32, 0, 16}}) {
        // fp32 specials include denormals, whose luminance only devices that keep fp32
        // denormals get right through this path (vulkan.hpp); the engine tests cover them.
        const bool fp32 = format_info(c.format).sample == SampleType::f32;
        auto img = make_image(c.format, 77, 31, fp32 ? Pattern::natural : Pattern::specials, 9, c.padding);
        vk::Allocation pixels = app_->upload(img.view.data, img.view.stride_bytes * img.view.height, c.offset);
        const DeviceImage bi = vulkan::device_image(pixels.buffer.get(), c.offset, img.view.width, img.view.height,
                                                    img.view.stride_bytes, c.format);
        for (Mode mode : {Mode::all, Mode::luma}) {
            Request r;
            r.mode = mode;
            expect_same(h.compute(app_->queue, bi, r), reference_->compute(img.view, r),
                        std::string(format_info(c.format).name) + " +" + std::to_string(c.padding) + "B @" +
                            std::to_string(c.offset));
        }
    }
}

TEST_F(VulkanInterop, RejectsBadInput) {
    vulkan::Histogrammer h({app_->physical, app_->device, app_->family, app_->float_controls});
    auto img = make_image(PixelFormat::rgba16, 8, 8, Pattern::random, 1);
    vk::Allocation pixels = app_->upload(img.view.data, img.view.stride_bytes * 8);
    DeviceImage bi = vulkan::device_image(pixels.buffer.get(), 1, 8, 8, 0, PixelFormat::rgba16);  // odd offset
    EXPECT_THROW(h.compute(app_->queue, bi), InvalidArgument);
    bi.offset_bytes = 0;
    bi.stride_bytes = 8;  // smaller than a row
    EXPECT_THROW(h.compute(app_->queue, bi), InvalidArgument);
    bi.stride_bytes = 0;
    Request big;
    big.bins.bins = h.max_bins() + 1;
    EXPECT_THROW(h.compute(app_->queue, bi, big), InvalidArgument);
    EXPECT_THROW(vulkan::Histogrammer({}), InvalidArgument);
    // Still usable afterwards.
    expect_same(h.compute(app_->queue, bi), reference_->compute(img.view), "after errors");
}

// vulkan::create_engine and vulkan::compute, the call shape shared with opencl:: and cuda::.
TEST_F(VulkanInterop, EngineOnTheCallersDeviceAndQueue) {
    const vulkan::DeviceContext context{app_->physical, app_->device, app_->family, app_->float_controls};
    std::unique_ptr<Engine> engine = vulkan::create_engine(context, app_->queue);
    EXPECT_EQ(engine->backend_name(), "vulkan");
    std::uint64_t seed = 20;
    for (PixelFormat format : {PixelFormat::rgba8, PixelFormat::bgr8, PixelFormat::gray16, PixelFormat::rgba_f16}) {
        auto img = make_image(format, 203, 17, Pattern::specials, ++seed, 8);
        vk::Allocation pixels = app_->upload(img.view.data, img.view.stride_bytes * img.view.height, 16);
        const DeviceImage bi = vulkan::device_image(pixels.buffer.get(), 16, img.view.width, img.view.height,
                                                    img.view.stride_bytes, format);
        for (Mode mode : {Mode::all, Mode::luma}) {
            Request r;
            r.mode = mode;
            const Result got = vulkan::compute(*engine, bi, r);
            // Clipping counts included: compute() counts them as Engine::compute does.
            ASSERT_FALSE(got.channels.empty());
            EXPECT_TRUE(got.channels[0].clipped_low_count && got.channels[0].clipped_high_count);
            testing::expect_same_histograms(got, reference_->compute(img.view, r), std::string(format_info(format).name));
        }
    }
    // Host pixels: a clear error pointing at the vulkan backend's own engine.
    const auto host = make_image(PixelFormat::rgba8, 8, 8, Pattern::random, 1);
    try {
        engine->compute(host.view);
        ADD_FAILURE() << "a host image was accepted";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("create_engine(\"vulkan\")"), std::string::npos) << e.what();
    }
    EXPECT_THROW(vulkan::create_engine(context, VK_NULL_HANDLE), InvalidArgument);
}

TEST_F(VulkanInterop, ComputeRejectsEnginesNotMadeOnTheCallersDevice) {
    auto img = make_image(PixelFormat::rgba8, 8, 8, Pattern::random, 2);
    vk::Allocation pixels = app_->upload(img.view.data, img.view.stride_bytes * 8);
    const DeviceImage bi = vulkan::device_image(pixels.buffer.get(), 0, 8, 8, 0, PixelFormat::rgba8);
    testing::expect_wrong_engine([&] { vulkan::compute(*reference_, bi); }, "reference", "vulkan");
    // The backend's own engine runs on a device of its own, which cannot read this buffer.
    auto own = create_engine("vulkan");
    try {
        vulkan::compute(*own, bi);
        ADD_FAILURE() << "the backend's own engine was accepted";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("vulkan::create_engine"), std::string::npos) << e.what();
    }
}

// Counts `img` (copied into a host-visible VkBuffer) with the context's core, as the engine
// does, and returns the Result; `shape` receives what was dispatched.
Result count_on(vk::Context& ctx, const testing::TestImage& img, const Request& r, vk::Shape* shape) {
    const std::size_t bytes = img.view.stride_bytes * img.view.height;
    vk::Allocation pixels = vk::allocate_buffer(ctx.physical(), ctx.device(), bytes + 64,
                                                VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true);
    std::memcpy(pixels.mapped, img.view.data, bytes);
    HistogramPlan plan(img.view.format, r);
    vk::Allocation totals = vk::allocate_buffer(ctx.physical(), ctx.device(), plan.total_slots() * 8,
                                                VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true);
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = ctx.command_pool();
    alloc.commandBufferCount = 1;
    VkCommandBuffer cmd;
    if (vkAllocateCommandBuffers(ctx.device(), &alloc, &cmd) != VK_SUCCESS) throw Error("vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(cmd, &begin);
    const DeviceImage src = vulkan::device_image(pixels.buffer.get(), 0, img.view.width, img.view.height,
                                                 img.view.stride_bytes, img.view.format);
    *shape = ctx.core().shape(src, plan);
    vk::DescriptorArena arena(ctx.device());
    ctx.core().record_begin(cmd);
    ctx.core().record_image(cmd, arena, src, plan, totals.buffer.get(), 0, true);
    vk::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                VK_ACCESS_HOST_READ_BIT);
    vkEndCommandBuffer(cmd);
    vk::Fence fence = ctx.make_fence(false);
    ctx.submit(cmd, fence.get());
    VkFence f = fence.get();
    if (vkWaitForFences(ctx.device(), 1, &f, VK_TRUE, UINT64_MAX) != VK_SUCCESS) throw Error("vkWaitForFences");
    vkFreeCommandBuffers(ctx.device(), ctx.command_pool(), 1, &cmd);
    std::vector<std::uint64_t> slots(plan.total_slots());
    std::memcpy(slots.data(), totals.mapped, slots.size() * 8);
    return plan.make_result(img.view, slots, "vulkan", ctx.name());
}

// Tiny tiles: hundreds of dispatches, each flushed from 32-bit counters into 64-bit totals,
// on the packed path, the strided path, and with channel passes (4096 bins x 4 channels does
// not fit one work-group's shared memory on lavapipe or NVIDIA, unless 8-bit samples count
// their 256 values: value mode needs one pass).
TEST(VulkanTiling, ManySmallTilesAndPasses) {
    REQUIRE_VULKAN();
    auto reference = create_engine("reference");
    for (bool value_mode : {false, true}) {
        vk::Tuning tuning;
        tuning.max_tile_pixels = 4096;
        tuning.value_mode = value_mode;
        vk::Context ctx("", tuning);
        for (std::size_t padding : {std::size_t(0), std::size_t(8)}) {
            auto img = make_image(PixelFormat::rgba8, 1000, 301, Pattern::natural, 3, padding);
            for (int variant = 0; variant < 2; ++variant) {
                Request r;
                if (variant == 1) {
                    r.bins.bins = 4096;
                    r.bins.range = {{-3, 200}};
                }
                vk::Shape shape;
                const Result got = count_on(ctx, img, r, &shape);
                EXPECT_EQ(shape.strided, padding != 0);
                EXPECT_EQ(shape.value_mode, value_mode);
                if (variant == 1) EXPECT_EQ(shape.passes > 1, !value_mode);
                expect_same(got, reference->compute(img.view, r),
                            "value mode " + std::to_string(value_mode) + " padding " + std::to_string(padding) +
                                " variant " + std::to_string(variant));
            }
        }
        EXPECT_NO_THROW(ctx.check_validation());
    }
}

// Every shared-memory layout, with and without 8-bit value mode, against the reference, on
// requests that use every slot kind (custom bins, clamp, below/above, luminance, alpha). What
// does not fit this device's shared memory falls back to a layout that does: the test checks
// that each layout runs for at least one request.
TEST(VulkanLayouts, EveryLayoutMatchesReference) {
    REQUIRE_VULKAN();
    auto reference = create_engine("reference");
    std::vector<Request> requests(5);
    requests[0].mode = Mode::luma;
    requests[1].mode = Mode::luma;
    requests[1].weights = LumaWeights{3333, 3334, 3333};
    requests[1].bins.bins = 7;
    requests[1].bins.range = {{10, 90}};
    requests[2].mode = Mode::rgb;
    requests[2].bins.bins = 100;
    requests[2].bins.range = {{-5, 120}};
    requests[2].bins.clamp = true;
    requests[3].mode = Mode::all;
    requests[4].mode = Mode::rgb;
    requests[4].count_alpha = true;
    struct Case {
        PixelFormat format;
        Pattern pattern;
        std::uint32_t width, height;
        std::size_t padding;
    };
    const Case cases[] = {{PixelFormat::rgba8, Pattern::bank_adversarial, 333, 67, 0},
                          {PixelFormat::bgra8, Pattern::random, 1027, 31, 0},
                          {PixelFormat::rgb8, Pattern::natural, 301, 45, 4},
                          {PixelFormat::bgr8, Pattern::specials, 299, 13, 4},
                          {PixelFormat::gray8, Pattern::constant, 4099, 5, 0},
                          {PixelFormat::rgba16, Pattern::random, 257, 33, 0},
                          {PixelFormat::rgba_f16, Pattern::specials, 199, 41, 0},
                          {PixelFormat::gray_f32, Pattern::specials, 1023, 9, 0}};
    for (vk::SharedLayout layout : {vk::SharedLayout::copies, vk::SharedLayout::lanes, vk::SharedLayout::pairs}) {
        for (int variant = 0; variant < 3; ++variant) {
            const bool value_mode = variant != 1;
            vk::Tuning tuning;
            tuning.layout = layout;
            tuning.value_mode = value_mode;
            tuning.group_size = variant == 2 ? 1024 : 256;  // 32 invocations per lane of a pair
            // Variant 2: one copy with the bank swizzle (value slots XOR-ed, histogram.comp).
            tuning.max_copies = variant == 2 ? 1 : 4;
            tuning.swizzle = variant == 2 ? 1 : 0;
            tuning.rounds = 2;
            tuning.max_tile_pixels = 8192;  // several dispatches per image
            vk::Context ctx("", tuning);
            int ran = 0;
            for (const Case& c : cases) {
                auto img = make_image(c.format, c.width, c.height, c.pattern, 7, c.padding);
                for (std::size_t i = 0; i < requests.size(); ++i) {
                    Request r = requests[i];
                    if (format_info(c.format).alpha < 0) r.count_alpha = false;
                    vk::Shape shape;
                    const Result got = count_on(ctx, img, r, &shape);
                    ran += shape.layout == layout ? 1 : 0;
                    expect_same(got, reference->compute(img.view, r),
                                std::string(format_info(c.format).name) + " request " + std::to_string(i) + " layout " +
                                    std::to_string(int(layout)) + " value mode " + std::to_string(value_mode) +
                                    " group " + std::to_string(tuning.group_size));
                }
            }
            EXPECT_GT(ran, 0) << "layout " << int(layout) << " never fitted";
            EXPECT_NO_THROW(ctx.check_validation());
        }
    }
}

// IMGHIST_VULKAN_TUNE reaches the engine (a caller with adversarial images may want pairs);
// bad values are clear errors, not a silent default.
TEST(VulkanEngine, TuningFromTheEnvironment) {
    REQUIRE_VULKAN();
    auto reference = create_engine("reference");
    const auto img = make_image(PixelFormat::rgba8, 1031, 77, Pattern::bank_adversarial, 5);
    Request rgb;
    rgb.mode = Mode::luma;  // one channel: pairs and lanes fit lavapipe's 32 KiB too
    for (const char* tune : {"layout=pairs,wg=512,rounds=2", "layout=lanes,value=0", "copies=4,swizzle=1,wg=64",
                             "copies=1,swizzle=1"}) {
        ::setenv("IMGHIST_VULKAN_TUNE", tune, 1);
        expect_same(create_engine("vulkan")->compute(img.view, rgb), reference->compute(img.view, rgb), tune);
    }
    for (const char* bad : {"layout=diagonal", "wg=33", "copies=3", "rounds=0", "bogus=1", "wg"}) {
        ::setenv("IMGHIST_VULKAN_TUNE", bad, 1);
        EXPECT_THROW(create_engine("vulkan"), InvalidArgument) << bad;
    }
    ::unsetenv("IMGHIST_VULKAN_TUNE");
}

// Host images larger than one 64 MiB staging buffer: several chunks, double-buffered.
TEST(VulkanEngine, ImageLargerThanOneStagingChunk) {
    REQUIRE_VULKAN();
    auto img = make_image(PixelFormat::rgba8, 4100, 4400, Pattern::bank_adversarial, 4, 4);  // 72 MB
    Request r;
    r.mode = Mode::luma;
    expect_same(create_engine("vulkan")->compute(img.view, r), create_engine("cpu")->compute(img.view, r),
                "4100x4400 luma");
}

// fp32 luminance of denormal pixels: exact on the GPU where denormals are kept, else counted
// on the CPU with a note (NVIDIA flushes fp32 denormals).
TEST(VulkanEngine, Fp32LuminanceOfDenormalsIsExact) {
    REQUIRE_VULKAN();
    auto img = make_image(PixelFormat::rgba_f32, 64, 16, Pattern::specials, 11);
    Request r;
    r.mode = Mode::luma;
    const Result got = create_engine("vulkan")->compute(img.view, r);
    expect_same(got, create_engine("reference")->compute(img.view, r), "rgba_f32 specials luma");
    for (const auto& note : got.notes) std::printf("note: %s\n", note.c_str());
}

TEST(VulkanEngine, BinsBeyondTheDeviceFallBackToTheCpuWithANote) {
    REQUIRE_VULKAN();
    auto img = make_image(PixelFormat::gray16, 100, 10, Pattern::random, 2);
    Request r;
    r.bins.bins = 60000;
    const Result got = create_engine("vulkan")->compute(img.view, r);
    expect_same(got, create_engine("reference")->compute(img.view, r), "60000 bins");
    ASSERT_EQ(got.notes.size(), 1u);
    EXPECT_NE(got.notes[0].find("CPU"), std::string::npos);
}

TEST(VulkanDevices, ListingAndSelection) {
    const Backend* b = find_backend("vulkan");
    ASSERT_NE(b, nullptr);
    const auto devices = b->devices();
    ASSERT_FALSE(devices.empty());
    REQUIRE_VULKAN();
    for (const auto& d : devices) {
        EXPECT_FALSE(d.note.empty());
        if (d.name.find("llvmpipe") != std::string::npos) {
            EXPECT_FALSE(d.is_gpu) << "lavapipe is a CPU device";
            EXPECT_TRUE(d.available);
        }
    }
    const DeviceInfo& first = devices.front();
    EXPECT_EQ(create_engine("vulkan", {first.id})->device_name(), first.name);
    EXPECT_EQ(create_engine("vulkan", {first.name.substr(0, 4)})->device_name().substr(0, 4), first.name.substr(0, 4));
    try {
        create_engine("vulkan", {"no such device anywhere"});
        ADD_FAILURE() << "expected BackendUnavailable";
    } catch (const BackendUnavailable& e) {
        EXPECT_NE(std::string(e.what()).find("no such device anywhere"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find(first.name), std::string::npos) << "lists the devices";
    }
    EXPECT_THROW(create_engine("vulkan", {"999"}), BackendUnavailable);
    // IMGHIST_VULKAN_DEVICE applies when EngineOptions::device is empty.
    ::setenv("IMGHIST_VULKAN_DEVICE", "999", 1);
    EXPECT_THROW(create_engine("vulkan"), BackendUnavailable);
    EXPECT_NO_THROW(create_engine("vulkan", {first.id}));
    ::setenv("IMGHIST_VULKAN_DEVICE", first.id.c_str(), 1);
    EXPECT_NO_THROW(create_engine("vulkan"));
    ::unsetenv("IMGHIST_VULKAN_DEVICE");
    // `auto` takes a Vulkan device only when it is a GPU.
    bool any_gpu = false;
    for (const auto& d : devices) any_gpu = any_gpu || (d.is_gpu && d.available);
    if (!any_gpu) EXPECT_NE(create_engine("auto")->backend_name(), "vulkan");
}

// The messenger that the tests rely on really sees validation errors.
TEST(VulkanValidation, MessengerSeesAMistake) {
    REQUIRE_VULKAN();
    if (!layer_installed()) GTEST_SKIP() << "VK_LAYER_KHRONOS_validation is not installed";
    AppDevice app;
    ASSERT_TRUE(app.validating());
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = 0;  // invalid: VUID-VkBufferCreateInfo-size-00912
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    std::fprintf(stderr, "(the next validation message is expected)\n");
    VkBuffer buffer = VK_NULL_HANDLE;
    if (vkCreateBuffer(app.device, &info, nullptr, &buffer) == VK_SUCCESS && buffer != VK_NULL_HANDLE)
        vkDestroyBuffer(app.device, buffer, nullptr);
    EXPECT_GE(app.validation_messages(), 1u);
}

}  // namespace
}  // namespace imghist
