// vulkan interop: pixels in a VkBuffer on a VkDevice this test creates (as an application would),
// counted by commands recorded into the test's command buffer, the result in the test's
// VkBuffer; compared with the reference backend bit for bit. The validation layer runs whenever
// installed and must see no message.
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
#include "interop_checks.hpp"
#include "sample_stats_checks.hpp"
#include "selection_checks.hpp"
#include "test_images.hpp"
#include "vulkan_test_support.hpp"

namespace imghist {
namespace {

using testing::make_image;
using testing::Pattern;
using vulkan_test::expect_same;

class VulkanInterop : public vulkan_test::AppDeviceTest {
protected:
    void TearDown() override {
        buffers_.clear();  // before their device
        AppDeviceTest::TearDown();
    }
    // One device image of `v` (rows padded by `pad` bytes) `offset` bytes into a buffer of its
    // own, kept in buffers_.
    DeviceImage upload(const ImageView& v, std::size_t offset, std::size_t pad) {
        const std::size_t pitch = v.row_bytes() + pad;
        std::vector<std::byte> bytes(pitch * v.height);
        for (std::uint32_t y = 0; y < v.height; ++y) std::memcpy(bytes.data() + y * pitch, v.row(y), v.row_bytes());
        buffers_.push_back(app_->upload(bytes.data(), bytes.size(), offset));
        return vulkan::device_image(buffers_.back().buffer.get(), offset, v.width, v.height, pitch, v.format);
    }
    // vulkan.hpp's known gap: a device that flushes fp32 denormals (NVIDIA's, even with float
    // controls) miscounts the luminance of denormal products, so its fp32 images hold none in
    // the selection tests. The probe: one pixel whose luminance is a negative denormal must
    // count as `below`.
    bool keeps_fp32_denormals() {
        const float pixel[3] = {-1e-39f, 0.0f, 0.0f};
        std::unique_ptr<Engine> engine = vulkan::create_engine(context(), app_->queue);
        Request luma;
        luma.mode = Mode::luma;
        buffers_.clear();
        const Result r =
            vulkan::compute(*engine, upload(ImageView::packed(pixel, 1, 1, PixelFormat::rgb_f32), 16, 0), luma);
        return r.channels.at(0).below == 1;
    }
    // vulkan::compute of a selection case through every path of the shaders' pixel walks: the
    // packed path (image and mask packed from 16-byte offsets), strided rows (a pitched image, or
    // a packed image with a pitched mask at an odd offset); each must give the packed one's Result.
    Result compute_in_every_layout(Engine& engine, const testing::SelectionCase& c) {
        struct Layout {
            const char* what;
            std::size_t image_offset, image_pad, mask_offset, mask_pad;  // pad: bytes after each row (0: packed)
        };
        const Layout layouts[] = {{"packed image, packed mask", 16, 0, 32, 0},
                                  {"packed image, pitched mask at an odd offset", 16, 0, 3, 7},
                                  {"pitched image, pitched mask", 16, 20, 16, 13}};
        Result first;
        for (const Layout& l : layouts) {
            SCOPED_TRACE(l.what);
            buffers_.clear();
            const DeviceImage image = upload(c.image.view, l.image_offset, l.image_pad);
            Request r = c.request;
            if (c.use_mask) r.device_mask = upload(c.mask.view(), l.mask_offset, l.mask_pad);
            Result got = vulkan::compute(engine, image, r);
            if (&l == &layouts[0]) first = got;
            else testing::expect_same_histograms(got, first, std::string(l.what) + " against packed");
            EXPECT_EQ(got.counted_pixels, first.counted_pixels);
        }
        return first;
    }
    // An engine on the test's device with the tuning `tune` (IMGHIST_VULKAN_TUNE).
    std::unique_ptr<Engine> tuned_engine(const char* tune) {
        ::setenv("IMGHIST_VULKAN_TUNE", tune, 1);
        std::unique_ptr<Engine> engine = vulkan::create_engine(context(), app_->queue);
        ::unsetenv("IMGHIST_VULKAN_TUNE");
        return engine;
    }

    std::vector<vk::Allocation> buffers_;
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
            if (mode == Mode::luma) {  // a roi and tiles of the caller's buffer
                r.roi = Region{3, 2, 199, 15};
                r.tiles = {4, 3};
            }
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

// Masks in the caller's VkBuffer and alpha thresholds, tested by histogram.comp as it counts
// (its selection constants), through vulkan::compute on every path of the shader: the packed
// path (image and mask packed from 16-byte offsets: a unit's mask bytes read as whole words),
// strided rows (a pitched image, or a packed image with a pitched mask at an odd offset), each
// with the default tuning (one work-group a dispatch here) and with small dispatches and
// work-groups (several dispatches, each of several work-groups, rows and partial units), against
// the reference of the selected pixels bit for bit.
TEST_F(VulkanInterop, DeviceMasksAndAlphaThresholdsInEveryPathMatchTheReference) {
    const bool fp32_denormals = keeps_fp32_denormals();
    for (const char* tune : {"tile_pixels=4096,wg=32,rounds=1"}) {
        SCOPED_TRACE(tune);
        std::unique_ptr<Engine> engine = tuned_engine(tune);
        testing::expect_device_selections_match(
            [&](const testing::SelectionCase& c) { return compute_in_every_layout(*engine, c); }, fp32_denormals);
    }
    // Long packed rows of several dispatches, floats also with EV edge bins (code table and window).
    std::unique_ptr<Engine> engine = tuned_engine("tile_pixels=8192,wg=64,rounds=2");
    for (PixelFormat f : {PixelFormat::rgba8, PixelFormat::gray8, PixelFormat::rgb8, PixelFormat::gray16,
                          PixelFormat::rgba_f32, PixelFormat::rgba_f16, PixelFormat::gray_f32}) {
        const FormatInfo& fi = format_info(f);
        SCOPED_TRACE(fi.name);
        const auto img =
            make_image(f, 4099, 7, fi.sample == SampleType::f32 && !fp32_denormals ? Pattern::natural : Pattern::specials, 5);
        const testing::Mask m = testing::random_mask(4099, 7, 6);
        buffers_.clear();
        const DeviceImage image = upload(img.view, 16, 0);
        const DeviceImage mask = upload(m.view(), 16, 0);
        Request plain;
        plain.count_alpha = fi.alpha >= 0;
        Request ev;
        ev.mode = fi.alpha >= 0 ? Mode::rgb : Mode::all;
        ev.bins.edges = ev_edges(-8, 0, 32);
        Request alpha_and_mask;
        alpha_and_mask.alpha_threshold = fi.is_float() ? 0.25 : 100.0;
        for (const Request& want : {plain, ev, alpha_and_mask}) {
            if (want.alpha_threshold && fi.alpha < 0) continue;
            if (!want.bins.edges.empty() && !fi.is_float()) continue;
            Request r = want, host = want;
            r.device_mask = mask;
            host.mask = m.view();
            const Result got = vulkan::compute(*engine, image, r);
            testing::expect_same_histograms(got, reference_->compute(img.view, host), "long rows");
            const testing::Selected s = testing::select(img.view, &m, want.alpha_threshold);
            EXPECT_EQ(got.counted_pixels, s.count);
        }
    }
}

// Request::sample_stats of device images (sample_stats.comp) against the reference over the same
// host pixels, bit for bit: every format and pattern, float specials, masks, alpha thresholds, a
// roi and tiles, through every path of the pixel walk, in dispatches of 4096 pixels and
// work-groups of 32 (many work-groups' partials merged into the 64-bit counters).
TEST_F(VulkanInterop, DeviceSampleStatisticsMatchTheReference) {
    std::unique_ptr<Engine> engine = tuned_engine("tile_pixels=4096,wg=32,rounds=1");
    testing::expect_device_sample_stats_match(
        [&](const testing::SelectionCase& c) { return compute_in_every_layout(*engine, c); }, keeps_fp32_denormals());
}

// Sums past 32 bits: every sample's mantissa is 2^24 - 1 (v = 2 - 2^-23), so a work-group's
// 512 samples of one bucket pass 2^32 in its shared partials and the image's in the global
// counters: both carry into their high words (sample_stats.comp). Against the hand-derived
// sums n·v, -n·v and n·v², and the reference for every channel.
TEST_F(VulkanInterop, DeviceSampleSumsCarryPast32Bits) {
    std::unique_ptr<Engine> engine = tuned_engine("wg=32");
    const float v = 2.0f - 0x1p-23f;
    const std::uint32_t width = 640, height = 200;
    std::vector<float> pixels;
    for (std::uint32_t i = 0; i < width * height; ++i) pixels.insert(pixels.end(), {v, -v, v, 1.0f});
    const ImageView view = ImageView::packed(pixels.data(), width, height, PixelFormat::rgba_f32);
    Request request;
    request.mode = Mode::all;
    request.sample_stats = true;
    buffers_.clear();
    const Result got = vulkan::compute(*engine, upload(view, 16, 0), request);
    const ExactNumber n = ExactNumber::from_integer(std::int64_t(width) * height), value = ExactNumber::from_double(v);
    for (const int c : {0, 1}) {
        const SampleMoments& m = got.channels.at(std::size_t(c)).sample_moments.value();
        EXPECT_EQ(m.count, std::uint64_t(width) * height);
        EXPECT_EQ(m.sum, c == 0 ? n * value : -(n * value)) << m.sum.to_string();
        EXPECT_EQ(m.sum_of_squares, n * value * value) << m.sum_of_squares.to_string();
    }
    testing::expect_same_histograms(got, reference_->compute(view, request), "carries");
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

}  // namespace
}  // namespace imghist
