// The vulkan backend beyond the generic parity suite:
//  - tiling: many small tiles, so the 32-bit counters are flushed into the 64-bit totals many
//    times; strided rows and unaligned offsets; every shared-memory layout;
//  - the engine's tuning, staging and CPU fallbacks;
//  - device selection (index, name, IMGHIST_VULKAN_DEVICE, no match) (error messages: test_launch_plan.cpp);
//  - the validation layer: it is enabled here whenever installed, its messenger must see no
//    message, and a deliberate mistake must be seen.
// The interop (the caller's VkDevice and VkBuffer): test_vulkan_interop.cpp.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backends/vulkan/vk_device.hpp"
#include "backends/vulkan/vk_util.hpp"
#include "imghist/imghist.hpp"
#include "imghist/vulkan.hpp"
#include "histogram_asserts.hpp"
#include "test_images.hpp"
#include "vulkan_test_support.hpp"

namespace imghist {
namespace {

using testing::make_image;
using testing::Pattern;
using vulkan_test::AppDevice;
using vulkan_test::expect_same;
using vulkan_test::layer_installed;

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

// Requests that use every slot kind: custom bins, clamp, below/above, luminance, alpha.
std::vector<Request> every_slot_kind() {
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
    return requests;
}

// Variant 0 and 2 use 8-bit value mode; variant 2 also 1024 invocations (32 per lane of a pair)
// and one copy with the bank swizzle (value slots XOR-ed, histogram.comp).
vk::Tuning layout_tuning(vk::SharedLayout layout, int variant) {
    vk::Tuning tuning;
    tuning.layout = layout;
    tuning.value_mode = variant != 1;
    tuning.group_size = variant == 2 ? 1024 : 256;
    tuning.max_copies = variant == 2 ? 1 : 4;
    tuning.swizzle = variant == 2 ? 1 : 0;
    tuning.rounds = 2;
    tuning.max_tile_pixels = 8192;  // several dispatches per image
    return tuning;
}

// Every shared-memory layout, with and without 8-bit value mode, against the reference, on
// requests that use every slot kind (custom bins, clamp, below/above, luminance, alpha). What
// does not fit this device's shared memory falls back to a layout that does: the test checks
// that each layout runs for at least one request.
TEST(VulkanLayouts, EveryLayoutMatchesReference) {
    REQUIRE_VULKAN();
    auto reference = create_engine("reference");
    const std::vector<Request> requests = every_slot_kind();
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
            const vk::Tuning tuning = layout_tuning(layout, variant);
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
                                    std::to_string(int(layout)) + " value mode " + std::to_string(tuning.value_mode) +
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

// Host images larger than several staging chunks (16 MiB by default): double-buffered.
TEST(VulkanEngine, ImageLargerThanOneStagingChunk) {
    REQUIRE_VULKAN();
    auto img = make_image(PixelFormat::rgba8, 4100, 4400, Pattern::bank_adversarial, 4, 4);  // 72 MB
    Request r;
    r.mode = Mode::luma;
    expect_same(create_engine("vulkan")->compute(img.view, r), create_engine("cpu")->compute(img.view, r),
                "4100x4400 luma");
}

// Host images staged in small chunks, filled by 1 to 5 copy threads, and copied into
// device-local memory before they are counted (device_copy=1, the discrete GPUs' default; on
// lavapipe, whose memory is all device-local, the shaders read the staging buffers unless told
// so) or counted in place (device_copy=0): packed and padded rows of every sample type, a tile
// grid across the chunks, and bad values of the new keys. Against the reference.
TEST(VulkanEngine, HostChunksCopiedToDeviceMemoryOrCountedInPlace) {
    REQUIRE_VULKAN();
    auto reference = create_engine("reference");
    const testing::TestImage images[] = {make_image(PixelFormat::rgba8, 1500, 900, Pattern::specials, 3, 0),
                                         make_image(PixelFormat::rgb_f16, 1001, 700, Pattern::specials, 4, 10),
                                         make_image(PixelFormat::rgba_f32, 700, 500, Pattern::specials, 5, 4),
                                         make_image(PixelFormat::gray16, 2000, 333, Pattern::random, 6, 2)};
    for (const char* tune : {"device_copy=1,chunk_mb=1", "device_copy=1,chunk_mb=2,copy_threads=5",
                             "device_copy=0,chunk_mb=1,copy_threads=1", "device_copy=auto,chunk_mb=3,copy_threads=2"}) {
        ::setenv("IMGHIST_VULKAN_TUNE", tune, 1);
        auto engine = create_engine("vulkan");
        for (const auto& img : images) {
            Request r;
            r.count_alpha = true;
            const std::string what = std::string(tune) + ", " + std::string(img.view.info().name);
            expect_same(engine->compute(img.view, r), reference->compute(img.view, r), what);
            r.tiles = {7, 5};
            expect_same(engine->compute(img.view, r), reference->compute(img.view, r), what + ", tiles 7,5");
        }
    }
    for (const char* bad : {"chunk_mb=0", "chunk_mb=2000", "copy_threads=-1", "device_copy=yes"}) {
        ::setenv("IMGHIST_VULKAN_TUNE", bad, 1);
        EXPECT_THROW(create_engine("vulkan"), InvalidArgument) << bad;
    }
    ::unsetenv("IMGHIST_VULKAN_TUNE");
}

// Tile grids in one pass (HistogramCore::record_tiles): a host image of two staging chunks
// (a row of tiles split between them), under tunings that change the tile dispatches (pairs,
// which a tile pass replaces by copies; small work-groups; dispatches of 4096 pixels, so rows
// of tiles span several), with channel passes, and bins beyond the device (tile by tile on
// the CPU). Against the reference.
TEST(VulkanEngine, TileGridsInOnePass) {
    REQUIRE_VULKAN();
    auto reference = create_engine("reference");
    const auto big = make_image(PixelFormat::rgba8, 4100, 4400, Pattern::specials, 6, 4);  // 72 MB
    Request r;
    r.count_alpha = true;
    r.tiles = {37, 23};
    expect_same(create_engine("vulkan")->compute(big.view, r), reference->compute(big.view, r), "4100x4400 tiles 37,23");
    const auto img = make_image(PixelFormat::rgba16, 333, 201, Pattern::specials, 7, 6);
    for (const char* tune : {"layout=pairs", "copies=4,swizzle=1,wg=64", "tile_pixels=4096,rounds=1"}) {
        ::setenv("IMGHIST_VULKAN_TUNE", tune, 1);
        r.roi = Region{3, 1, 329, 199};
        r.tiles = {9, 7};
        expect_same(create_engine("vulkan")->compute(img.view, r), reference->compute(img.view, r), tune);
    }
    ::unsetenv("IMGHIST_VULKAN_TUNE");
    r.bins.bins = 4096;  // 4 channels of 4096 bins: a pass per channel
    expect_same(create_engine("vulkan")->compute(img.view, r), reference->compute(img.view, r), "4096 bins");
    r.bins.bins = 60000;  // beyond the device: each tile on the CPU, with the note
    const Result beyond = create_engine("vulkan")->compute(img.view, r);
    expect_same(beyond, reference->compute(img.view, r), "60000 bins");
    ASSERT_FALSE(beyond.notes.empty());
    EXPECT_NE(beyond.notes[0].find("CPU"), std::string::npos);
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

// Float edge bins read the code window in shared memory (histogram.comp, classify_float): the
// same counts as the reference with the default window, finer and coarser windows, a window too
// large for the device (dropped), and none, on testing::values_around_edges.
TEST(VulkanEngine, FloatEdgeBinsWithAndWithoutTheCodeWindow) {
    REQUIRE_VULKAN();
    Request r;
    r.bins.edges = ev_edges(-8, 0, 32);
    const testing::TestImage img = testing::values_around_edges(r.bins.edges);
    auto reference = create_engine("reference");
    for (const bool clamp : {false, true}) {
        r.bins.clamp = clamp;
        for (const Mode mode : {Mode::rgb, Mode::luma}) {
            r.mode = mode;
            const Result want = reference->compute(img.view, r);
            for (std::uint32_t window : {8192u, 32768u, 2048u, 65536u * 4, 0u}) {
                vk::Tuning tuning;
                tuning.code_window = window;
                vk::Context ctx("", tuning);
                vk::Shape shape;
                expect_same(count_on(ctx, img, r, &shape), want,
                            "code window " + std::to_string(window) + (clamp ? " clamp" : "") + " mode " +
                                std::to_string(int(mode)));
                EXPECT_TRUE(shape.shared_keys);
                if (window == 8192) EXPECT_EQ(shape.code_window.shift, 14u);  // fits lavapipe and NVIDIA
                if (window == 0) EXPECT_EQ(shape.code_window.entries, 0u);
            }
        }
    }
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
