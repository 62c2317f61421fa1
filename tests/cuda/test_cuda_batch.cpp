// CUDA batches: many images (device and host memory), more than one launch's worth, and every
// half value as its own 1x1 image, classified as the reference does (the kernels widen halves in
// hardware).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cuda_test_support.hpp"
#include "histogram_asserts.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

using namespace cuda_test;
using testing::expect_same_histograms;
using testing::make_image;
using testing::Pattern;
using testing::TestImage;

TEST(CudaBatch, ManyImagesDeviceAndHost) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    auto reference = create_engine("reference");
    for (PixelFormat format : testing::plan_pixel_formats()) {
        std::vector<TestImage> hosts;
        std::vector<DeviceCopy> devs;
        std::vector<ImageView> host_views;
        std::vector<DeviceImage> dev_views;
        for (int i = 0; i < 75; ++i) {  // more than one launch's worth (kMaxBatch = 32)
            const std::uint32_t w = 1 + (i * 37) % 300, h = 1 + (i * 13) % 40;
            hosts.push_back(make_image(format, w, h, Pattern(i % 4), 1000 + i, (i % 3) * 4));
            host_views.push_back(hosts.back().view);
        }
        for (const auto& h : hosts) {
            devs.push_back(upload(h.view, h.view.stride_bytes));
            ASSERT_NE(devs.back().mem.ptr, nullptr);
            dev_views.push_back(devs.back().view);
        }
        Request request;
        request.count_alpha = true;
        const auto on_device = engine->compute_batch(dev_views, request);
        const auto on_host = engine->compute_batch(host_views, request);
        ASSERT_EQ(on_device.size(), hosts.size());
        ASSERT_EQ(on_host.size(), hosts.size());
        for (std::size_t i = 0; i < hosts.size(); ++i) {
            const Result want = reference->compute(host_views[i], request);
            const std::string what = std::string(format_info(format).name) + " image " + std::to_string(i);
            expect_same_histograms(on_device[i], want, what + " (device batch)");
            expect_same_histograms(on_host[i], want, what + " (host batch)");
        }
        // The asynchronous batch into the caller's buffer.
        const std::size_t n = engine->slot_count(format, request);
        DeviceMemory out(n * sizeof(std::uint64_t) * hosts.size());
        engine->compute_batch_device_async(dev_views, request, static_cast<std::uint64_t*>(out.ptr), nullptr);
        std::vector<std::uint64_t> back(n * hosts.size());
        CK(cudaMemcpy(back.data(), out.ptr, back.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
        for (std::size_t i = 0; i < hosts.size(); i += 7)
            expect_same_histograms(engine->unpack(dev_views[i], request, std::span(back.data() + i * n, n)),
                        on_host[i], "async batch image " + std::to_string(i));
    }
}

// A host batch's clipping counts where the bins do not prove them (edge bins, EV bins, a range
// inside the values): the same as compute() gives each image (its second pass), and as the
// reference's. The batch once left them unset (Python's histogram_batch with edges on CUDA).
TEST(CudaBatch, HostBatchCountsTheClippingTheBinsDoNotProve) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    auto reference = create_engine("reference");
    std::vector<Request> requests(3);
    requests[0].bins.edges = {-0.05, 0.1, 0.5, 0.9, 1.05};
    requests[1].bins.edges = ev_edges(-6, 1, 2);
    requests[2].bins.bins = 10;
    requests[2].bins.range = {{0.25, 0.75}};
    for (PixelFormat format : {PixelFormat::rgb_f32, PixelFormat::rgba_f16, PixelFormat::rgba16, PixelFormat::rgb8}) {
        std::vector<TestImage> hosts;
        std::vector<ImageView> views;
        for (int i = 0; i < 5; ++i) {
            hosts.push_back(make_image(format, 12 + i, 13, i % 2 ? Pattern::specials : Pattern::random, 14 + i));
            views.push_back(hosts.back().view);
        }
        for (std::size_t q = 0; q < requests.size(); ++q) {
            Request request = requests[q];
            if (!format_info(format).is_float() && q == 1) continue;  // EV edges: fractions for floats
            if (!format_info(format).is_float() && q == 2) request.bins.range = {{60.0, 200.0}};
            const std::vector<Result> batch = engine->compute_batch(std::span<const ImageView>(views), request);
            ASSERT_EQ(batch.size(), views.size());
            for (std::size_t i = 0; i < views.size(); ++i) {
                const std::string what = std::string(format_info(format).name) + " request " + std::to_string(q) +
                                         " image " + std::to_string(i);
                const Result want = reference->compute(views[i], request);
                for (std::size_t c = 0; c < batch[i].channels.size(); ++c) {
                    ASSERT_TRUE(batch[i].channels[c].clipped_low_count.has_value()) << what;
                    ASSERT_TRUE(batch[i].channels[c].clipped_high_count.has_value()) << what;
                    EXPECT_EQ(batch[i].channels[c].clipped_low_count, want.channels[c].clipped_low_count) << what;
                    EXPECT_EQ(batch[i].channels[c].clipped_high_count, want.channels[c].clipped_high_count) << what;
                }
                expect_same_histograms(batch[i], want, what);
                EXPECT_EQ(batch[i], engine->compute(views[i], request)) << what;
            }
        }
    }
}

// Every half value, each as its own 1x1 gray_f16 image, in host memory and in device memory;
// `all_host` and `all_dev` view them as one packed 256x256 image.
struct EveryHalf {
    std::vector<std::uint16_t> halves = std::vector<std::uint16_t>(65536);
    DeviceMemory dev;
    std::vector<ImageView> host_views;
    std::vector<DeviceImage> dev_views;
    ImageView all_host;
    DeviceImage all_dev;
};

void make_every_half(EveryHalf& h) {
    for (std::size_t i = 0; i < h.halves.size(); ++i) h.halves[i] = std::uint16_t(i);
    h.dev = DeviceMemory(h.halves.size() * 2);
    ASSERT_NE(h.dev.ptr, nullptr);
    CK(cudaMemcpy(h.dev.ptr, h.halves.data(), h.halves.size() * 2, cudaMemcpyHostToDevice));
    for (std::size_t i = 0; i < h.halves.size(); ++i) {
        h.host_views.push_back(ImageView{&h.halves[i], 1, 1, 2, PixelFormat::gray_f16});
        h.dev_views.push_back(
            cuda::device_image(static_cast<std::uint16_t*>(h.dev.ptr) + i, 1, 1, 2, PixelFormat::gray_f16));
    }
    h.all_host = ImageView{h.halves.data(), 256, 256, 512, PixelFormat::gray_f16};
    h.all_dev = cuda::device_image(h.dev.ptr, 256, 256, 512, PixelFormat::gray_f16);
}

// The default rule, a clamped custom range and a range over the whole finite half range.
NamedRequests half_requests() {
    NamedRequests cases = {{"default", Request{}}};
    Request r;
    r.bins.bins = 300;
    r.bins.range = {-0.25, 1.5};
    r.bins.clamp = true;
    cases.push_back({"300 bins [-0.25, 1.5) clamp", r});
    r.bins.bins = 1000;
    r.bins.range = {-65504.0, 65504.0};
    r.bins.clamp = false;
    cases.push_back({"1000 bins [-65504, 65504)", r});
    return cases;
}

// One compute_device_async per image, image i's `n` counters at i * n; `back` receives them all.
void async_each(cuda::Engine& engine, const std::vector<DeviceImage>& images, const Request& request,
                std::size_t n, std::vector<std::uint64_t>& back) {
    DeviceMemory out(n * images.size() * sizeof(std::uint64_t));
    ASSERT_NE(out.ptr, nullptr);
    auto* slots = static_cast<std::uint64_t*>(out.ptr);
    for (std::size_t i = 0; i < images.size(); ++i) engine.compute_device_async(images[i], request, slots + i * n, nullptr);
    back.resize(n * images.size());
    CK(cudaMemcpy(back.data(), slots, back.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
}

// Each of the 65536 half values as its own 1x1 image in one device batch: the kernels widen
// halves in hardware (cvt.f32.f16), and every value must land in the slot where the reference
// (binning.h's ih_half_to_float_bits) puts it, for the default rule, a clamped custom range and
// a range over the whole finite half range. Then all of them in one packed image (the fast path),
// and each again through the fast path's code table (float_lut=2).
TEST(CudaHalf, EveryHalfValueLandsWhereTheReferencePutsIt) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    auto reference = create_engine("reference");
    EveryHalf h;
    ASSERT_NO_FATAL_FAILURE(make_every_half(h));
    for (const auto& [name, request] : half_requests()) {
        std::vector<Result> want;
        want.reserve(h.halves.size());
        for (const ImageView& v : h.host_views) want.push_back(reference->compute(v, request));
        const Result want_all = reference->compute(h.all_host, request);
        // Checks every half's result (stopping at the first wrong one).
        auto check_each = [&](const std::string& path, auto&& result_of) {
            for (std::size_t i = 0; i < h.halves.size() && !HasFailure(); ++i) {
                char bits[16];
                std::snprintf(bits, sizeof bits, "0x%04zx", i);
                expect_same_histograms(result_of(i), want[i], name + ", " + path + ", half " + bits);
            }
        };
        const std::vector<Result> got = engine->compute_batch(h.dev_views, request);
        ASSERT_EQ(got.size(), h.halves.size());
        check_each("batch", [&](std::size_t i) { return got[i]; });
        expect_same_histograms(engine->compute_device(h.all_dev, request), want_all, name + ", every half in one image");
        // The packed fast path's code table (float_lut=2: at any size): each half as a 1x1 image.
        TuneScope scope("float_lut=2");
        auto lut_engine = cuda::create_engine();
        const std::size_t n = lut_engine->slot_count(PixelFormat::gray_f16, request);
        std::vector<std::uint64_t> back;
        ASSERT_NO_FATAL_FAILURE(async_each(*lut_engine, h.dev_views, request, n, back));
        check_each("code table", [&](std::size_t i) {
            return lut_engine->unpack(h.dev_views[i], request, std::span(back.data() + i * n, n));
        });
        expect_same_histograms(lut_engine->compute_device(h.all_dev, request), want_all,
                               name + ", code table, every half in one image");
    }
}

}  // namespace
}  // namespace imghist
