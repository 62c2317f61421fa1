// vulkan::ExposureStep: a walk from a dark room into sunlight, each frame's luminance histogram
// recorded on the device and its exposure adapted there, against the host's adapt() of the
// reference backend's histogram of the same frame: the same fp32 bits every frame (scale is the
// device's exp2). The validation layer runs whenever installed and must see no message.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/vulkan/vk_histogram.hpp"
#include "imghist/imghist.hpp"
#include "imghist/vulkan.hpp"
#include "vulkan_test_support.hpp"

namespace imghist {
namespace {

constexpr std::uint32_t kWidth = 40, kHeight = 24;
constexpr int kFrames = 40;
constexpr VkDeviceSize kStateOffset = 12;  // a multiple of 4 that is not one of 8 or 16

// Frame `i` of the walk, RGB fp32: random pixels whose brightness climbs 20 stops over the
// sequence, with frames that are all black, all NaN, NaN and ±Inf among ordinary pixels,
// darker than every bin, and brighter than every bin.
std::vector<float> frame_pixels(int i) {
    std::mt19937 rng(std::uint32_t(1000 + i));
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    const float scale = std::exp2(-14.0f + 20.0f * float(i) / kFrames);
    std::vector<float> rgb(std::size_t(kWidth) * kHeight * 3);
    for (std::size_t k = 0; k < rgb.size(); ++k) {
        float v = scale * unit(rng) * unit(rng);
        if (i == 4 || i == 5) v = 0.0f;                                   // all black
        if (i == 9) v = std::numeric_limits<float>::quiet_NaN();          // nothing to meter
        if (i == 14 && k % 7 == 0) v = std::numeric_limits<float>::quiet_NaN();
        if (i == 14 && k % 11 == 0) v = std::numeric_limits<float>::infinity();
        if (i == 18) v = 0x1p-30f * unit(rng);                           // darker than every bin
        if (i == 30) v = 0x1p20f * (1.0f + unit(rng));                    // brighter than every bin
        rgb[k] = v;
    }
    return rgb;
}

float frame_seconds(int i) { return i == 12 ? 0.0f : (i % 3 == 0 ? 1.0f / 30 : 1.0f / 60); }

// A frame loop's command buffers and fences on the test's device: frame i waits only for frame
// i - ring before it is recorded.
class FrameRing {
public:
    FrameRing(const vulkan_test::AppDevice& app, std::uint32_t ring) : app_(app), cmds_(ring), fences_(ring) {
        VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        fence.flags = VK_FENCE_CREATE_SIGNALED_BIT;
        for (VkFence& f : fences_) vk::check(vkCreateFence(app.device, &fence, nullptr, &f), "vkCreateFence");
    }
    ~FrameRing() {
        vkWaitForFences(app_.device, std::uint32_t(fences_.size()), fences_.data(), VK_TRUE, UINT64_MAX);
        for (VkFence f : fences_) vkDestroyFence(app_.device, f, nullptr);
        for (VkCommandBuffer c : cmds_)
            if (c != VK_NULL_HANDLE) vkFreeCommandBuffers(app_.device, app_.pool, 1, &c);
    }
    VkCommandBuffer begin(std::uint64_t frame) {
        const std::size_t i = frame % cmds_.size();
        vk::check(vkWaitForFences(app_.device, 1, &fences_[i], VK_TRUE, UINT64_MAX), "vkWaitForFences");
        vk::check(vkResetFences(app_.device, 1, &fences_[i]), "vkResetFences");
        // The test's pool does not reset command buffers one by one: a fresh one each frame.
        if (cmds_[i] != VK_NULL_HANDLE) vkFreeCommandBuffers(app_.device, app_.pool, 1, &cmds_[i]);
        VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        alloc.commandPool = app_.pool;
        alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        alloc.commandBufferCount = 1;
        vk::check(vkAllocateCommandBuffers(app_.device, &alloc, &cmds_[i]), "vkAllocateCommandBuffers");
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        vk::check(vkBeginCommandBuffer(cmds_[i], &begin), "vkBeginCommandBuffer");
        return cmds_[i];
    }
    void submit(std::uint64_t frame) {
        const std::size_t i = frame % cmds_.size();
        vk::check(vkEndCommandBuffer(cmds_[i]), "vkEndCommandBuffer");
        VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        submit.commandBufferCount = 1;
        submit.pCommandBuffers = &cmds_[i];
        vk::check(vkQueueSubmit(app_.queue, 1, &submit, fences_[i]), "vkQueueSubmit");
    }

private:
    const vulkan_test::AppDevice& app_;
    std::vector<VkCommandBuffer> cmds_;
    std::vector<VkFence> fences_;
};

class VulkanExposure : public vulkan_test::AppDeviceTest {
protected:
    // Every frame: the histogram and the exposure step recorded into one command buffer, the
    // state read back only to check it here.
    std::vector<vulkan::GpuExposureState> run_on_device(const Request& request, const ExposureControl& control,
                                                        std::uint32_t ring) {
        vulkan::Histogrammer histogrammer(context());
        const vulkan::ResultLayout layout = histogrammer.result_layout(PixelFormat::rgb_f32, request);
        vulkan::ExposureStep step(context(), layout.bins, control, std::uint64_t(kWidth) * kHeight, ring);
        vk::Allocation counters = vk::allocate_buffer(app_->physical, app_->device, layout.bytes,
                                                      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false);
        const vulkan::GpuExposureState initial;  // as ExposureState{}: nothing metered yet, scale 1
        vk::Allocation state = app_->upload(&initial, sizeof initial, kStateOffset);
        auto* read = reinterpret_cast<const vulkan::GpuExposureState*>(static_cast<std::byte*>(state.mapped) + kStateOffset);
        std::vector<vulkan::GpuExposureState> states;
        for (int i = 0; i < kFrames; ++i) {
            const std::vector<float> rgb = frame_pixels(i);
            vk::Allocation pixels = app_->upload(rgb.data(), rgb.size() * sizeof(float));
            const DeviceImage image =
                vulkan::device_image(pixels.buffer.get(), 0, kWidth, kHeight, 0, PixelFormat::rgb_f32);
            app_->run([&](VkCommandBuffer cmd) {
                vk::barrier(cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
                histogrammer.record(cmd, image, request, counters.buffer.get());
                vk::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
                step.record(cmd, std::uint64_t(i), counters.buffer.get(), 0, state.buffer.get(), kStateOffset,
                            frame_seconds(i));
                vk::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                            VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
            });
            histogrammer.release_recordings();
            states.push_back(*read);
        }
        return states;
    }

    // The same through ExposureRecorder with `ring` frames in flight, each frame copying the
    // state it wrote into a readback slot of its own.
    std::vector<vulkan::GpuExposureState> run_in_flight(const Request& request, const ExposureControl& control,
                                                        std::uint32_t ring) {
        vulkan::ExposureRecorder recorder(context(), PixelFormat::rgb_f32, request, control,
                                          std::uint64_t(kWidth) * kHeight, ring);
        const vulkan::GpuExposureState initial;
        vk::Allocation state = vk::allocate_buffer(app_->physical, app_->device, kStateOffset + sizeof initial,
                                                   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                                   true);
        std::memcpy(static_cast<std::byte*>(state.mapped) + kStateOffset, &initial, sizeof initial);
        constexpr VkDeviceSize kStateBytes = sizeof(vulkan::GpuExposureState);
        vk::Allocation readback = vk::allocate_buffer(app_->physical, app_->device, kFrames * kStateBytes,
                                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
        std::vector<vk::Allocation> pixels;
        for (int i = 0; i < kFrames; ++i) {
            const std::vector<float> rgb = frame_pixels(i);
            pixels.push_back(app_->upload(rgb.data(), rgb.size() * sizeof(float)));
        }
        {
            FrameRing frames(*app_, ring);
            for (int i = 0; i < kFrames; ++i) {
                VkCommandBuffer cmd = frames.begin(std::uint64_t(i));
                vk::barrier(cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
                const DeviceImage image = vulkan::device_image(pixels[std::size_t(i)].buffer.get(), 0, kWidth, kHeight,
                                                               0, PixelFormat::rgb_f32);
                recorder.record(cmd, std::uint64_t(i), image, state.buffer.get(), kStateOffset, frame_seconds(i));
                vk::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                            VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
                const VkBufferCopy copy{kStateOffset, VkDeviceSize(i) * kStateBytes, kStateBytes};
                vkCmdCopyBuffer(cmd, state.buffer.get(), readback.buffer.get(), 1, &copy);
                vk::barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                            VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
                frames.submit(std::uint64_t(i));
            }
        }  // waits for every frame
        const auto* states = static_cast<const vulkan::GpuExposureState*>(readback.mapped);
        return {states, states + kFrames};
    }

    // The host's states over the same frames: the reference backend's histograms, adapt().
    std::vector<ExposureState> run_on_host(const Request& request, const ExposureControl& control) {
        std::vector<ExposureState> states;
        ExposureState s;
        for (int i = 0; i < kFrames; ++i) {
            const std::vector<float> rgb = frame_pixels(i);
            const Result r =
                reference_->compute(ImageView::packed(rgb.data(), kWidth, kHeight, PixelFormat::rgb_f32), request);
            s = adapt(s, *r.luminance(), control, frame_seconds(i));
            states.push_back(s);
        }
        return states;
    }

    void expect_same_states(const Request& request, const ExposureControl& control,
                            const std::vector<vulkan::GpuExposureState>& gpu) {
        const std::vector<ExposureState> host = run_on_host(request, control);
        int held = 0, adapting = 0;
        for (int i = 0; i < kFrames; ++i) {
            SCOPED_TRACE("frame " + std::to_string(i));
            const ExposureState& want = host[std::size_t(i)];
            const vulkan::GpuExposureState& got = gpu[std::size_t(i)];
            EXPECT_EQ(std::bit_cast<std::uint32_t>(got.ev), std::bit_cast<std::uint32_t>(want.ev))
                << got.ev << " against " << want.ev;
            EXPECT_EQ(std::bit_cast<std::uint32_t>(got.average_ev), std::bit_cast<std::uint32_t>(want.average_ev))
                << got.average_ev << " against " << want.average_ev;
            EXPECT_EQ(std::bit_cast<std::uint32_t>(got.target_ev), std::bit_cast<std::uint32_t>(want.target_ev))
                << got.target_ev << " against " << want.target_ev;
            EXPECT_EQ(got.started, want.started ? 1u : 0u);
            EXPECT_EQ(got.metered, want.metered ? 1u : 0u);
            // Vulkan's exp2 is within 3 ulp of 2^x per unit of |x| in its exponent: a loose bound.
            EXPECT_NEAR(got.scale, want.scale, want.scale * 1e-5f);
            held += want.metered ? 0 : 1;
            adapting += want.metered && want.ev != want.target_ev ? 1 : 0;
        }
        // The sequence exercises what it is for: frames held unmetered, and adaptation under way.
        EXPECT_GT(adapting, kFrames / 2);
        if (control.metering.below == BelowRange::ignore) EXPECT_GE(held, 4);
    }

};

Request luminance_request(double lo, double hi, std::uint32_t per_stop) {
    Request request;
    request.mode = Mode::luma;
    request.bins.edges = ev_edges(lo, hi, per_stop);
    return request;
}

TEST_F(VulkanExposure, DarkPixelsMeteredAtTheFirstEdge) {
    ExposureControl control;  // 50-95%, key 0.18, below metered, 3 stops/s up, 1 down
    control.compensation = 0.25f;
    control.min_ev = -9;
    control.max_ev = 6;
    const Request request = luminance_request(-8, 8, 4);
    expect_same_states(request, control, run_on_device(request, control, 2));
}

TEST_F(VulkanExposure, DarkPixelsIgnoredWithACurve) {
    ExposureControl control;
    control.metering.low_percent = 10;
    control.metering.high_percent = 90;
    control.metering.below = BelowRange::ignore;
    control.curve = {{-8, 1.0f}, {-1.5f, 0.25f}, {0, 0.0f}, {8, -1.0f}};
    control.speed_up = 2.5f;
    control.speed_down = 0.75f;
    control.distance = 1.25f;
    // 8 bins a stop from LO = -10.5: a LO that is a whole number of bins but not of stops.
    const Request request = luminance_request(-10.5, 9.5, 8);
    expect_same_states(request, control, run_on_device(request, control, 3));
}

// Clamped bins: below and above are counted in the end bins, and metered there.
TEST_F(VulkanExposure, ClampedBinsWithFourFramesInFlight) {
    ExposureControl control;
    control.metering.low_percent = 1;
    control.metering.high_percent = 99;
    control.speed_up = 4;
    Request request = luminance_request(-12, 4, 2);
    request.bins.clamp = true;
    expect_same_states(request, control, run_in_flight(request, control, 4));
}

// The frame loop of an application: ExposureRecorder, three frames in flight.
TEST_F(VulkanExposure, RecorderWithFramesInFlight) {
    ExposureControl control;
    control.metering.below = BelowRange::ignore;
    control.curve = {{-6, 0.5f}, {4, -0.5f}};
    const Request request = luminance_request(-10, 10, 4);
    expect_same_states(request, control, run_in_flight(request, control, 3));
}

TEST_F(VulkanExposure, BadSettingsThrowOneClearError) {
    const BinLayout bins = vulkan::Histogrammer(context()).result_layout(PixelFormat::rgb_f32,
                                                                         luminance_request(-8, 8, 4)).bins;
    const ExposureControl good;
    auto message = [&](auto&& make) -> std::string {
        try {
            make();
        } catch (const InvalidArgument& e) {
            return e.what();
        }
        return "(no error)";
    };
    EXPECT_NE(message([&] { vulkan::ExposureStep(context(), bins, good, 1000, 0); }).find("ring"), std::string::npos);
    ExposureControl slow = good;
    slow.speed_up = 0;
    EXPECT_NE(message([&] { vulkan::ExposureStep(context(), bins, slow, 1000, 2); }).find("speed_up"),
              std::string::npos);
    slow = good;
    slow.speed_down = -1;
    EXPECT_NE(message([&] { vulkan::ExposureStep(context(), bins, slow, 1000, 2); }).find("speed_down"),
              std::string::npos);
    BinLayout uniform = bins;
    uniform.edges = {1, 2, 3, 4};
    EXPECT_NE(message([&] { vulkan::ExposureStep(context(), uniform, good, 1000, 2); }).find("EV bins"),
              std::string::npos);
    EXPECT_NE(message([&] { vulkan::ExposureStep(context(), bins, good, std::uint64_t(1) << 50, 2); }).find("2^63"),
              std::string::npos);
}

// A bad record() throws before it records anything: the state after the submitted command
// buffer is still the zeros it held.
TEST_F(VulkanExposure, BadRecordRecordsNothing) {
    const Request request = luminance_request(-8, 8, 4);
    vulkan::Histogrammer histogrammer(context());
    const vulkan::ResultLayout layout = histogrammer.result_layout(PixelFormat::rgb_f32, request);
    vulkan::ExposureStep step(context(), layout.bins, ExposureControl{}, 1000, 2);
    std::vector<std::uint64_t> counts(layout.slots_per_channel, 0);
    counts[10] = 100;  // something to meter, had the step run
    vk::Allocation counters = app_->upload(counts.data(), counts.size() * 8);
    const std::vector<std::byte> zeros(sizeof(vulkan::GpuExposureState));
    vk::Allocation state = app_->upload(zeros.data(), zeros.size());
    app_->run([&](VkCommandBuffer cmd) {
        EXPECT_THROW(step.record(cmd, 0, counters.buffer.get(), 0, state.buffer.get(), 0, -1.0f), InvalidArgument);
        EXPECT_THROW(step.record(cmd, 0, counters.buffer.get(), 0, state.buffer.get(), 0, NAN), InvalidArgument);
        EXPECT_THROW(step.record(cmd, 0, counters.buffer.get(), 4, state.buffer.get(), 0, 0.0f), InvalidArgument);
    });
    EXPECT_EQ(std::memcmp(state.mapped, zeros.data(), zeros.size()), 0);
}

// The recorder's own checks: each one clear error, from the constructor or before record()
// records anything (the state still holds what it was given).
TEST_F(VulkanExposure, RecorderRefusesBadSettingsAndFrames) {
    const Request request = luminance_request(-8, 8, 4);
    const ExposureControl control;
    auto make = [&](const Request& r, std::uint32_t ring) {
        vulkan::ExposureRecorder(context(), PixelFormat::rgb_f32, r, control, 100, ring);
    };
    EXPECT_THROW(make(request, 0), InvalidArgument);
    Request rgb = request;
    rgb.mode = Mode::rgb;  // no luminance channel
    EXPECT_THROW(make(rgb, 2), InvalidArgument);

    vulkan::ExposureRecorder recorder(context(), PixelFormat::rgb_f32, request, control, 100, 2);
    const std::vector<float> pixels(11 * 10 * 3, 0.5f);
    vk::Allocation buffer = app_->upload(pixels.data(), pixels.size() * sizeof(float));
    const vulkan::GpuExposureState initial;
    vk::Allocation state = app_->upload(&initial, sizeof initial);
    auto image = [&](std::uint32_t w, std::uint32_t h, PixelFormat f) {
        return vulkan::device_image(buffer.buffer.get(), 0, w, h, 0, f);
    };
    app_->run([&](VkCommandBuffer cmd) {
        EXPECT_THROW(recorder.record(cmd, 0, image(11, 10, PixelFormat::rgb_f32), state.buffer.get(), 0, 0.0f),
                     InvalidArgument)
            << "110 pixels, more than 100";
        EXPECT_THROW(recorder.record(cmd, 0, image(10, 10, PixelFormat::rgba8), state.buffer.get(), 0, 0.0f),
                     InvalidArgument);
        EXPECT_THROW(recorder.record(cmd, 0, image(10, 10, PixelFormat::rgb_f32), state.buffer.get(), 0, -0.5f),
                     InvalidArgument);
        EXPECT_THROW(recorder.record(cmd, 0, image(10, 10, PixelFormat::rgb_f32), state.buffer.get(), 2, 0.0f),
                     InvalidArgument);
    });
    EXPECT_EQ(std::memcmp(state.mapped, &initial, sizeof initial), 0);
}

// What lets ExposureRecorder's frames reuse their descriptor sets: a recycled arena hands out as
// many sets again from the pools it already has.
TEST_F(VulkanExposure, RecycledArenaMakesNoNewPool) {
    const vk::DescriptorSetLayout layout = vk::make_storage_set_layout(app_->device, 4);
    vk::DescriptorArena arena(app_->device);
    for (int i = 0; i < 150; ++i) arena.allocate(layout.get());
    const std::uint64_t pools = arena.pools_made();
    EXPECT_GE(pools, 3u);
    for (int lap = 0; lap < 3; ++lap) {
        arena.recycle();
        for (int i = 0; i < 150; ++i) EXPECT_NE(arena.allocate(layout.get()), VkDescriptorSet(VK_NULL_HANDLE));
        EXPECT_EQ(arena.pools_made(), pools);
    }
}

}  // namespace
}  // namespace imghist
