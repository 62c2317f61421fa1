// The CUDA backend's own inputs, bit for bit against the reference backend:
// - images in device memory (packed, pitched, misaligned sub-views) on the caller's stream;
// - asynchronous results written to the caller's device buffer, on two streams;
// - batches of many images (device and host memory), more than one launch's worth;
// - the host path cut into many staging chunks;
// - every shared-memory counter layout, forced flushes, bytewise loads;
// - the packed 8-bit and float fast paths and each of their knobs;
// - every half value, classified as the reference does (the kernels widen halves in hardware);
// - a device-resident constant image of more than 2^32 pixels (exact 64-bit counts).
// Without a usable GPU the tests skip; IMGHIST_REQUIRE_BACKENDS containing "cuda" makes that a
// failure.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "imghist/cuda.hpp"
#include "imghist/imghist.hpp"
#include "histogram_asserts.hpp"
#include "interop_checks.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

using testing::make_image;
using testing::Pattern;
using testing::TestImage;

bool cuda_required() {
    const char* env = std::getenv("IMGHIST_REQUIRE_BACKENDS");
    if (env == nullptr) return false;
    std::stringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ','))
        if (item == "cuda") return true;
    return false;
}

std::string device_notes() {
    std::string notes;
    const Backend* b = find_backend("cuda");
    if (b == nullptr) return "cuda backend not compiled in";
    for (const auto& d : b->devices()) notes += d.name + ": " + d.note + "; ";
    return notes;
}

#define REQUIRE_GPU()                                                                          \
    do {                                                                                        \
        const Backend* b_ = find_backend("cuda");                                               \
        if (b_ == nullptr || !b_->available()) {                                                \
            if (cuda_required()) FAIL() << "cuda is required but unusable: " << device_notes(); \
            GTEST_SKIP() << "no usable CUDA device: " << device_notes();                        \
        }                                                                                       \
    } while (0)

#define CK(call) ASSERT_EQ((call), cudaSuccess) << #call

// Owns device memory.
struct DeviceMemory {
    void* ptr = nullptr;
    DeviceMemory() = default;
    explicit DeviceMemory(std::size_t bytes) {
        if (cudaMalloc(&ptr, bytes) != cudaSuccess) ptr = nullptr;
    }
    ~DeviceMemory() {
        if (ptr) cudaFree(ptr);
    }
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;
    DeviceMemory(DeviceMemory&& o) noexcept : ptr(o.ptr) { o.ptr = nullptr; }
    DeviceMemory& operator=(DeviceMemory&& o) noexcept {
        std::swap(ptr, o.ptr);
        return *this;
    }
};

// A copy of a host test image in device memory: `offset` bytes into the allocation, rows
// `pitch` bytes apart (0: packed).
struct DeviceCopy {
    DeviceMemory mem;
    DeviceImage view;
};
DeviceCopy upload(const ImageView& host, std::size_t pitch = 0, std::size_t offset = 0) {
    DeviceCopy d;
    const std::size_t row = host.row_bytes();
    if (pitch == 0) pitch = row;
    d.mem = DeviceMemory(offset + pitch * host.height + 64);
    if (d.mem.ptr == nullptr) return d;
    cudaMemset(d.mem.ptr, 0xA5, offset + pitch * host.height + 64);
    auto* base = static_cast<unsigned char*>(d.mem.ptr) + offset;
    cudaMemcpy2D(base, pitch, host.data, host.stride_bytes, row, host.height, cudaMemcpyHostToDevice);
    cudaDeviceSynchronize();
    d.view = cuda::device_image(base, host.width, host.height, pitch, host.format);
    return d;
}

using testing::expect_same_histograms;

std::vector<std::pair<std::string, Request>> requests(const FormatInfo& fi) {
    std::vector<std::pair<std::string, Request>> out;
    out.push_back({"default", Request{}});
    Request r;
    r.mode = Mode::rgb;
    out.push_back({"rgb", r});
    r = Request{};
    r.mode = Mode::luma;
    r.weights = LumaWeights::rec601();
    out.push_back({"luma rec601", r});
    r = Request{};
    r.count_alpha = true;
    r.bins.bins = 4096;
    r.bins.clamp = true;
    r.bins.range = fi.is_float() ? std::pair<double, double>{-0.25, 1.5}
                                 : std::pair<double, double>{-3, fi.sample == SampleType::u8 ? 200 : 60000};
    out.push_back({"4096 bins clamp", r});
    r.bins.clamp = false;
    r.bins.bins = 100;
    out.push_back({"100 bins", r});
    return out;
}

// Sets IMGHIST_CUDA_TUNE for the engines created in its lifetime.
struct TuneScope {
    explicit TuneScope(const std::string& tune) {
        if (tune.empty()) unsetenv("IMGHIST_CUDA_TUNE");
        else setenv("IMGHIST_CUDA_TUNE", tune.c_str(), 1);
    }
    ~TuneScope() { unsetenv("IMGHIST_CUDA_TUNE"); }
};

TEST(CudaBackend, DevicesAlwaysAnswerAndExplain) {
    const Backend* b = find_backend("cuda");
    ASSERT_NE(b, nullptr);
    const auto devs = b->devices();
    ASSERT_FALSE(devs.empty());
    if (!b->available()) {
        EXPECT_FALSE(devs[0].note.empty());
        EXPECT_THROW(b->create_engine({}), BackendUnavailable);
        EXPECT_THROW(cuda::create_engine(), BackendUnavailable);
        if (cuda_required()) FAIL() << "cuda is required but unusable: " << device_notes();
    }
}

TEST(CudaBackend, DeviceSelection) {
    REQUIRE_GPU();
    EXPECT_THROW(cuda::create_engine({.device = "no such device"}), BackendUnavailable);
    EXPECT_THROW(cuda::create_engine({.device = "99"}), BackendUnavailable);
    EXPECT_NO_THROW(cuda::create_engine({.device = "0"}));
    setenv("IMGHIST_CUDA_DEVICE", "no such device", 1);
    EXPECT_THROW(create_engine("cuda"), BackendUnavailable);
    unsetenv("IMGHIST_CUDA_DEVICE");
}

TEST(CudaDevice, AllFormatsPitchesAndOffsets) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    auto reference = create_engine("reference");
    std::uint64_t seed = 1;
    for (PixelFormat format : all_pixel_formats) {
        const FormatInfo& fi = format_info(format);
        for (Pattern pattern : {Pattern::random, Pattern::bank_adversarial, Pattern::specials}) {
            const TestImage img = make_image(format, 333, 41, pattern, ++seed);
            struct Layout {
                const char* name;
                std::size_t pitch, offset;
            };
            const std::size_t row = img.view.row_bytes();
            const Layout layouts[] = {{"packed", 0, 0},
                                      {"pitch 512", (row + 511) / 512 * 512, 0},
                                      {"pitch +1 sample, offset 1 pixel", row + fi.bytes_per_sample, fi.pixel_bytes()},
                                      {"offset 1 byte", 0, 1}};
            for (const Layout& l : layouts) {
                if (l.offset % fi.bytes_per_sample != 0) {
                    // Samples must be aligned (ImageView::validate); the rejection is the test.
                    DeviceCopy d = upload(img.view, l.pitch, l.offset);
                    ASSERT_NE(d.mem.ptr, nullptr);
                    EXPECT_THROW(engine->compute_device(d.view), InvalidArgument) << fi.name << " " << l.name;
                    continue;
                }
                DeviceCopy d = upload(img.view, l.pitch, l.offset);
                ASSERT_NE(d.mem.ptr, nullptr);
                for (const auto& [name, request] : requests(fi)) {
                    const std::string what = std::string(fi.name) + " " + testing::pattern_name(pattern) + " " +
                                             l.name + " " + name;
                    Result got;
                    try {
                        got = engine->compute_device(d.view, request);
                    } catch (const std::exception& e) {
                        ADD_FAILURE() << what << ": " << e.what();
                        continue;
                    }
                    expect_same_histograms(got, reference->compute(img.view, request), what);
                }
            }
        }
    }
}

// cuda::compute, the call shape shared with opencl::compute and vulkan::compute: a free
// function on the public Engine, on the caller's stream or the default one.
TEST(CudaDevice, FreeComputeOnTheCallersStreamAndTheDefaultOne) {
    REQUIRE_GPU();
    std::unique_ptr<Engine> engine = cuda::create_engine();
    auto reference = create_engine("reference");
    cudaStream_t stream = nullptr;
    CK(cudaStreamCreate(&stream));
    std::uint64_t seed = 40;
    for (PixelFormat format : {PixelFormat::rgba8, PixelFormat::gray16, PixelFormat::rgb_f16, PixelFormat::rgba_f32}) {
        const FormatInfo& fi = format_info(format);
        const TestImage img = make_image(format, 257, 19, Pattern::specials, ++seed);
        DeviceCopy d = upload(img.view, img.view.row_bytes() + fi.bytes_per_sample, fi.pixel_bytes());
        ASSERT_NE(d.mem.ptr, nullptr);
        Request r;
        r.count_alpha = true;
        expect_same_histograms(cuda::compute(*engine, d.view, r, stream), reference->compute(img.view, r),
                               std::string(fi.name) + " on a stream");
        expect_same_histograms(cuda::compute(*engine, d.view), reference->compute(img.view),
                               std::string(fi.name) + " on the default stream");
    }
    CK(cudaStreamDestroy(stream));
}

// Rejected before any CUDA call, so this runs without a GPU too.
TEST(CudaInterop, EngineOfAnotherBackendIsRejectedNamingBoth) {
    auto reference = create_engine("reference");
    static const unsigned char pixels[64] = {};
    const DeviceImage image = cuda::device_image(pixels, 4, 4, 0, PixelFormat::rgba8);
    testing::expect_wrong_engine([&] { cuda::compute(*reference, image); }, "reference", "cuda");
}

TEST(CudaDevice, AsyncIntoCallerBufferOnTwoStreams) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    auto reference = create_engine("reference");
    cudaStream_t streams[2];
    for (auto& s : streams) CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const Request request;
    std::vector<TestImage> hosts;
    std::vector<DeviceCopy> devs;
    for (int i = 0; i < 6; ++i) {
        hosts.push_back(make_image(PixelFormat::rgba8, 1920 + 16 * i, 64 + i, i % 2 ? Pattern::random : Pattern::natural, 50 + i));
        devs.push_back(upload(hosts.back().view));
        ASSERT_NE(devs.back().mem.ptr, nullptr);
    }
    const std::size_t n = engine->slot_count(PixelFormat::rgba8, request);
    DeviceMemory out(n * sizeof(std::uint64_t) * hosts.size());
    auto* slots = static_cast<std::uint64_t*>(out.ptr);
    for (std::size_t i = 0; i < hosts.size(); ++i)
        engine->compute_device_async(devs[i].view, request, slots + i * n, streams[i % 2]);
    for (auto& s : streams) CK(cudaStreamSynchronize(s));
    std::vector<std::uint64_t> back(n * hosts.size());
    CK(cudaMemcpy(back.data(), slots, back.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < hosts.size(); ++i)
        expect_same_histograms(engine->unpack(devs[i].view, request, std::span(back.data() + i * n, n)),
                    reference->compute(hosts[i].view, request), "async image " + std::to_string(i));
    for (auto& s : streams) cudaStreamDestroy(s);
}

// One compute_device_async captured from `stream` into a CUDA graph of the caller's own, and
// replayed by launch(); the graph is destroyed with the object.
struct CapturedCall {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    CapturedCall(cuda::Engine& engine, const DeviceImage& image, const Request& request, std::uint64_t* slots,
                 cudaStream_t stream) {
        EXPECT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
        engine.compute_device_async(image, request, slots, stream);
        EXPECT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
        EXPECT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    }
    ~CapturedCall() {
        if (exec) cudaGraphExecDestroy(exec);
        if (graph) cudaGraphDestroy(graph);
    }
    CapturedCall(const CapturedCall&) = delete;
    CapturedCall& operator=(const CapturedCall&) = delete;
    // Replays the graph on `stream` after filling its output (`count` counters) with 0xFF bytes.
    void launch(std::uint64_t* slots, std::size_t count, cudaStream_t stream) const {
        ASSERT_NE(exec, nullptr);
        ASSERT_EQ(cudaMemsetAsync(slots, 0xFF, count * sizeof(std::uint64_t), stream), cudaSuccess);
        ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    }
};

// The engine replays its own cached graph for single images; inside the caller's stream
// capture it must launch directly, so the caller's graph holds the work and replays it right.
TEST(CudaDevice, AsyncCapturedIntoCallersGraph) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    auto reference = create_engine("reference");
    cudaStream_t stream;
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    Request request;
    request.mode = Mode::rgb;
    const TestImage host = make_image(PixelFormat::rgba8, 1920, 1080, Pattern::random, 77);
    const DeviceCopy dev = upload(host.view);
    ASSERT_NE(dev.mem.ptr, nullptr);
    const std::size_t n = engine->slot_count(PixelFormat::rgba8, request);
    DeviceMemory out(2 * n * sizeof(std::uint64_t));
    auto* slots = static_cast<std::uint64_t*>(out.ptr);
    engine->compute_device_async(dev.view, request, slots, stream);  // outside the capture
    CK(cudaStreamSynchronize(stream));
    const CapturedCall captured(*engine, dev.view, request, slots + n, stream);
    const Result want = reference->compute(host.view, request);
    for (int replay = 0; replay < 3; ++replay) {
        captured.launch(slots + n, n, stream);
        std::vector<std::uint64_t> back(2 * n);
        CK(cudaMemcpy(back.data(), slots, back.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
        for (int k = 0; k < 2; ++k)
            expect_same_histograms(engine->unpack(dev.view, request, std::span(back.data() + k * n, n)), want,
                                   "replay " + std::to_string(replay) + " output " + std::to_string(k));
    }
    cudaStreamDestroy(stream);
}

TEST(CudaBatch, ManyImagesDeviceAndHost) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    auto reference = create_engine("reference");
    for (PixelFormat format : {PixelFormat::rgba8, PixelFormat::rgb8, PixelFormat::gray16, PixelFormat::rgba_f16}) {
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

// A float image captured into the caller's graph must not depend on the engine's code table,
// which a later call with another request rewrites: replays still give the first request's counts.
TEST(CudaDevice, CapturedFloatLaunchOutlivesTheCodeTable) {
    REQUIRE_GPU();
    TuneScope scope("float_lut=2");
    auto engine = cuda::create_engine();
    auto reference = create_engine("reference");
    cudaStream_t stream;
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const TestImage host = make_image(PixelFormat::rgba_f32, 256, 64, Pattern::random, 31);
    const DeviceCopy dev = upload(host.view);
    ASSERT_NE(dev.mem.ptr, nullptr);
    Request first;
    first.mode = Mode::rgb;
    Request second = first;
    second.bins.bins = 100;
    second.bins.range = {0.25, 0.75};
    const std::size_t n = engine->slot_count(PixelFormat::rgba_f32, first);
    DeviceMemory out(n * sizeof(std::uint64_t));
    auto* slots = static_cast<std::uint64_t*>(out.ptr);
    engine->compute_device_async(dev.view, first, slots, stream);  // the table for `first`
    CK(cudaStreamSynchronize(stream));
    const CapturedCall captured(*engine, dev.view, first, slots, stream);
    expect_same_histograms(engine->compute_device(dev.view, second, stream), reference->compute(host.view, second),
                           "second request");  // rewrites the table
    const Result want = reference->compute(host.view, first);
    for (int replay = 0; replay < 2; ++replay) {
        captured.launch(slots, n, stream);
        std::vector<std::uint64_t> back(n);
        CK(cudaMemcpy(back.data(), slots, n * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
        expect_same_histograms(engine->unpack(dev.view, first, std::span(back.data(), n)), want,
                               "replay " + std::to_string(replay));
    }
    cudaStreamDestroy(stream);
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
    std::vector<std::uint16_t> halves(65536);
    for (std::size_t i = 0; i < halves.size(); ++i) halves[i] = std::uint16_t(i);
    DeviceMemory dev(halves.size() * 2);
    ASSERT_NE(dev.ptr, nullptr);
    CK(cudaMemcpy(dev.ptr, halves.data(), halves.size() * 2, cudaMemcpyHostToDevice));
    std::vector<ImageView> host_views;
    std::vector<DeviceImage> dev_views;
    for (std::size_t i = 0; i < halves.size(); ++i) {
        host_views.push_back(ImageView{&halves[i], 1, 1, 2, PixelFormat::gray_f16});
        dev_views.push_back(cuda::device_image(static_cast<std::uint16_t*>(dev.ptr) + i, 1, 1, 2, PixelFormat::gray_f16));
    }
    std::vector<std::pair<std::string, Request>> cases = {{"default", Request{}}};
    Request r;
    r.bins.bins = 300;
    r.bins.range = {-0.25, 1.5};
    r.bins.clamp = true;
    cases.push_back({"300 bins [-0.25, 1.5) clamp", r});
    r.bins.bins = 1000;
    r.bins.range = {-65504.0, 65504.0};
    r.bins.clamp = false;
    cases.push_back({"1000 bins [-65504, 65504)", r});
    const ImageView all_host{halves.data(), 256, 256, 512, PixelFormat::gray_f16};
    const DeviceImage all_dev = cuda::device_image(dev.ptr, 256, 256, 512, PixelFormat::gray_f16);
    for (const auto& [name, request] : cases) {
        std::vector<Result> want;
        want.reserve(halves.size());
        for (const ImageView& v : host_views) want.push_back(reference->compute(v, request));
        const Result want_all = reference->compute(all_host, request);
        // Checks every half's result (stopping at the first wrong one).
        auto check_each = [&](const std::string& path, auto&& result_of) {
            for (std::size_t i = 0; i < halves.size() && !HasFailure(); ++i) {
                char bits[16];
                std::snprintf(bits, sizeof bits, "0x%04zx", i);
                expect_same_histograms(result_of(i), want[i], name + ", " + path + ", half " + bits);
            }
        };
        const std::vector<Result> got = engine->compute_batch(dev_views, request);
        ASSERT_EQ(got.size(), halves.size());
        check_each("batch", [&](std::size_t i) { return got[i]; });
        expect_same_histograms(engine->compute_device(all_dev, request), want_all, name + ", every half in one image");
        // The packed fast path's code table (float_lut=2: at any size): each half as a 1x1 image.
        TuneScope scope("float_lut=2");
        auto lut_engine = cuda::create_engine();
        const std::size_t n = lut_engine->slot_count(PixelFormat::gray_f16, request);
        DeviceMemory out(n * halves.size() * sizeof(std::uint64_t));
        ASSERT_NE(out.ptr, nullptr);
        auto* slots = static_cast<std::uint64_t*>(out.ptr);
        for (std::size_t i = 0; i < halves.size(); ++i)
            lut_engine->compute_device_async(dev_views[i], request, slots + i * n, nullptr);
        std::vector<std::uint64_t> back(n * halves.size());
        CK(cudaMemcpy(back.data(), slots, back.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
        check_each("code table", [&](std::size_t i) {
            return lut_engine->unpack(dev_views[i], request, std::span(back.data() + i * n, n));
        });
        expect_same_histograms(lut_engine->compute_device(all_dev, request), want_all,
                               name + ", code table, every half in one image");
    }
}

// Every counter layout and loop variant the engine can pick, forced, on the host and device paths.
TEST(CudaTuning, EveryLayoutAndVariantMatchesReference) {
    REQUIRE_GPU();
    auto reference = create_engine("reference");
    const char* tunes[] = {"layout=lanes32", "layout=lanes16", "layout=copies", "layout=global",
                           "scalar=1", "flush=1,layout=lanes16", "block=1024,gpt=1", "block=64,gpt=3,chunk_mb=1",
                           "blocks_per_sm=1,block=256", "acc_stride=16,prefetch=1"};
    std::uint64_t seed = 500;
    for (const char* tune : tunes) {
        TuneScope scope(tune);
        auto engine = cuda::create_engine();
        for (PixelFormat format : {PixelFormat::gray8, PixelFormat::rgb8, PixelFormat::bgra8, PixelFormat::rgb16,
                                   PixelFormat::rgba_f16, PixelFormat::rgb_f32}) {
            const FormatInfo& fi = format_info(format);
            const TestImage img = make_image(format, 1000 + 3, 173, Pattern::specials, ++seed, 8);
            DeviceCopy d = upload(img.view, img.view.stride_bytes);
            ASSERT_NE(d.mem.ptr, nullptr);
            for (const auto& [name, request] : requests(fi)) {
                const std::string what = std::string(tune) + " " + std::string(fi.name) + " " + name;
                const Result want = reference->compute(img.view, request);
                expect_same_histograms(engine->compute(img.view, request), want, what + " (host)");
                expect_same_histograms(engine->compute_device(d.view, request), want, what + " (device)");
            }
        }
    }
}

// Images on the packed fast paths: their device copies and the reference's results, made once
// and checked under every tune.
struct PackedShape {
    std::uint32_t w, h;
    std::size_t pad, offset_pixels;
};
struct PackedCase {
    std::string where;
    TestImage img;
    DeviceCopy dev;
    std::vector<std::pair<std::string, Request>> requests;
    std::vector<Result> want;
};
using RequestsFor = std::vector<std::pair<std::string, Request>> (*)(const FormatInfo&);

void make_packed_cases(std::vector<PackedCase>& cases, std::initializer_list<PixelFormat> formats,
                       std::initializer_list<PackedShape> shapes, std::initializer_list<Pattern> patterns,
                       RequestsFor requests_for, std::uint64_t seed) {
    auto reference = create_engine("reference");
    for (PixelFormat format : formats) {
        const FormatInfo& fi = format_info(format);
        for (const PackedShape& sh : shapes) {
            PackedCase c;
            const Pattern pattern = patterns.begin()[seed % patterns.size()];
            c.img = make_image(format, sh.w, sh.h, pattern, ++seed, sh.pad);
            c.dev = upload(c.img.view, sh.pad ? c.img.view.stride_bytes : 0, sh.offset_pixels * fi.pixel_bytes());
            ASSERT_NE(c.dev.mem.ptr, nullptr);
            c.where = std::string(fi.name) + " " + std::to_string(sh.w) + "x" + std::to_string(sh.h) + " pad " +
                      std::to_string(sh.pad) + " offset " + std::to_string(sh.offset_pixels) + " " +
                      testing::pattern_name(pattern);
            c.requests = requests_for(fi);
            for (const auto& r : c.requests) c.want.push_back(reference->compute(c.img.view, r.second));
            cases.push_back(std::move(c));
        }
    }
}

// compute_device, then compute_device_async twice (the second call reuses the engine's cached
// shape; the next request or image changes it), for every case under every tune.
void check_packed_cases(const std::vector<PackedCase>& cases, std::initializer_list<const char*> tunes) {
    for (const char* tune : tunes) {
        TuneScope scope(tune);
        auto engine = cuda::create_engine();
        for (const PackedCase& c : cases) {
            const PixelFormat format = c.img.view.format;
            for (std::size_t i = 0; i < c.requests.size(); ++i) {
                const Request& request = c.requests[i].second;
                const Result& want = c.want[i];
                const std::string what = std::string(tune) + " " + c.where + " " + c.requests[i].first;
                expect_same_histograms(engine->compute_device(c.dev.view, request), want, what);
                const std::size_t n = engine->slot_count(format, request);
                DeviceMemory out(2 * n * sizeof(std::uint64_t));
                auto* slots = static_cast<std::uint64_t*>(out.ptr);
                engine->compute_device_async(c.dev.view, request, slots, nullptr);
                engine->compute_device_async(c.dev.view, request, slots + n, nullptr);
                std::vector<std::uint64_t> back(2 * n);
                CK(cudaMemcpy(back.data(), slots, back.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
                for (int k = 0; k < 2; ++k)
                    expect_same_histograms(engine->unpack(c.dev.view, request, std::span(back.data() + k * n, n)), want,
                                           what + " async #" + std::to_string(k));
            }
        }
    }
}

// The packed 8-bit fast path (one long row of gray8, rgba8 or bgra8) and each of its knobs,
// forced: vector-even split, next step loaded ahead or not, first loads before or after the
// counters are zeroed, the per-slot merge or the last-block pass (also forced by a grid past
// kMaxArrivals blocks), flushes after every step (also with tiny blocks: many flushes), two
// blocks per SM, and the generic kernel (packed=0). Heads (start not 16-byte aligned) and tails
// (length not whole vectors), pitched and rgb8 images (which take the generic kernel),
// compute_device and compute_device_async with the engine's cached shape (the same request on
// another image, another request on the same image).
TEST(CudaPacked, EveryKnobMatchesReference) {
    REQUIRE_GPU();
    std::vector<PackedCase> cases;
    make_packed_cases(cases, {PixelFormat::gray8, PixelFormat::rgba8, PixelFormat::bgra8, PixelFormat::rgb8},
                      {{1000, 173, 0, 0}, {1000, 173, 0, 1}, {1, 1, 0, 0}, {3, 1, 0, 3}, {4099, 257, 0, 2},
                       {333, 41, 12, 0}, {2048, 1024, 0, 0}},
                      {Pattern::random, Pattern::natural, Pattern::constant, Pattern::bank_adversarial}, requests, 900);
    check_packed_cases(cases, {"", "graph=0", "ahead=1", "packed=0", "flush=1", "flush=1,ahead=1", "block=64,flush=1",
                               "block=512", "block=96,ahead=0", "acc_stride=16", "blocks_per_sm=1,block=256",
                               "early=0", "slot_merge=0", "slot_merge=0,early=0,flush=1", "blocks_per_sm=8,block=64"});
}

// Every plan a gray or RGBA float image can have, for the float packed kernels (compile-time
// channels: R,G,B; R,G,B,A; Y; A,Y; R,G,B,Y; R,G,B,A,Y; gray), with the default closed rule and
// custom ranges that give below / above counts, clamped or not; 4096 bins take the generic kernel.
std::vector<std::pair<std::string, Request>> float_requests(const FormatInfo& fi) {
    std::vector<std::pair<std::string, Request>> out = requests(fi);
    Request r;
    r.mode = Mode::rgb;
    r.count_alpha = true;
    r.bins.bins = 300;
    r.bins.range = {-0.25, 1.5};
    r.bins.clamp = true;
    out.push_back({"rgb alpha 300 bins clamp", r});
    r = Request{};
    r.mode = Mode::luma;
    r.count_alpha = true;
    r.bins.bins = 100;
    r.bins.range = {0.125, 0.75};
    out.push_back({"luma alpha 100 bins [0.125, 0.75)", r});
    r.weights = LumaWeights::rec2020();
    r.bins.clamp = true;
    out.push_back({"luma alpha rec2020 100 bins clamp", r});
    r = Request{};
    r.mode = Mode::all;
    r.bins.bins = 64;
    r.bins.range = {0.25, 0.75};
    r.bins.clamp = true;
    out.push_back({"all 64 bins clamp [0.25, 0.75)", r});
    r.count_alpha = true;
    r.mode = Mode::rgb;
    r.bins.clamp = false;
    out.push_back({"rgb alpha 64 bins [0.25, 0.75)", r});
    return out;
}

// The packed float fast path (one long row of gray_f16/f32 or rgba_f16/f32) with the specials
// (NaN, +-Inf, -0, denormals, neighbours of bin edges) and random data, and the generic kernel
// (packed_float=0), with the knobs the float path shares with the 8-bit one (it ignores ahead)
// and its code table (float_lut: never, from 2^20 pixels, always);
// heads, tails, pitched images and rgb_f32 take the generic kernel or the edge code.
TEST(CudaPacked, FloatEveryKnobMatchesReference) {
    REQUIRE_GPU();
    std::vector<PackedCase> cases;
    make_packed_cases(cases, {PixelFormat::gray_f32, PixelFormat::gray_f16, PixelFormat::rgba_f32, PixelFormat::rgba_f16,
                              PixelFormat::rgb_f32},
                      {{1000, 173, 0, 0}, {1000, 173, 0, 1}, {1, 1, 0, 0}, {3, 1, 0, 3}, {4099, 257, 0, 2},
                       {333, 41, 12, 0}, {1024, 1024, 0, 0}},
                      {Pattern::specials, Pattern::specials, Pattern::random}, float_requests, 1300);
    check_packed_cases(cases, {"", "packed_float=0", "graph=0", "flush=1", "block=64,flush=1", "block=96",
                               "block=512,flush=2", "acc_stride=16", "blocks_per_sm=1,block=256", "slot_merge=0",
                               "slot_merge=0,flush=1", "blocks_per_sm=8,block=64", "float_lut=0", "float_lut=2",
                               "float_lut=2,flush=1,block=96"});
}

TEST(CudaHost, LargeImageAcrossManyChunksAndStreams) {
    REQUIRE_GPU();
    TuneScope scope("chunk_mb=1");
    auto engine = cuda::create_engine();
    auto reference = create_engine("reference");
    for (std::size_t padding : {std::size_t(0), std::size_t(12)}) {
        const TestImage img = make_image(PixelFormat::rgba8, 4000, 700, Pattern::random, 77 + padding, padding);
        expect_same_histograms(engine->compute(img.view), reference->compute(img.view),
                    "4000x700 rgba8 +" + std::to_string(padding) + "B, 1 MiB chunks");
    }
}

// Host images of every format with the automatic chunk size, which follows the image size
// (an eighth of it, 16 to 64 MiB): about 150 MB each, so the chunk is not a round number and
// the image spans several chunks and streams; packed and with an odd row padding.
TEST(CudaHost, EveryFormatWithAutomaticChunksPackedAndPadded) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    auto reference = create_engine("reference");
    constexpr std::uint32_t width = 6007;
    constexpr std::uint64_t target_bytes = 150'000'000;
    for (PixelFormat format : all_pixel_formats) {
        const FormatInfo& info = format_info(format);
        for (std::size_t padding : {std::size_t(0), std::size_t(10)}) {
            const std::size_t row = std::size_t(width) * info.pixel_bytes() + padding;
            const auto height = std::uint32_t(target_bytes / row);
            const TestImage img = make_image(format, width, height, Pattern::random, 5 + padding, padding);
            Request request;
            request.count_alpha = info.channels == 4;
            expect_same_histograms(engine->compute(img.view, request), reference->compute(img.view, request),
                                   std::string(info.name) + " " + std::to_string(width) + "x" + std::to_string(height) +
                                       " +" + std::to_string(padding) + "B");
        }
    }
}

TEST(CudaErrors, HostPointerIsRejectedAndEngineStaysUsable) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    const TestImage img = make_image(PixelFormat::rgba8, 64, 64, Pattern::random, 3);
    const DeviceImage host = cuda::device_image(img.view.data, img.view.width, img.view.height, img.view.stride_bytes,
                                                img.view.format);
    EXPECT_THROW(engine->compute_device(host), InvalidArgument);
    EXPECT_THROW(engine->compute_device_async(host, {}, nullptr, nullptr), InvalidArgument);
    expect_same_histograms(engine->compute(img.view), create_engine("reference")->compute(img.view), "after errors");
}

// More than 2^32 pixels, resident on the device (no 4 GB upload): every counter must flush to
// 64 bits in time. Runs with the default layout and with packed 16-bit counters.
TEST(CudaLarge, DeviceConstantImageOfMoreThan2To32Pixels) {
    REQUIRE_GPU();
    constexpr std::uint32_t width = 65536, height = 65537;
    constexpr std::uint64_t pixels = std::uint64_t(width) * height;
    std::size_t free_bytes = 0, total_bytes = 0;
    CK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (free_bytes < pixels + (std::size_t(1) << 30)) GTEST_SKIP() << "needs " << pixels << " bytes of device memory";
    DeviceMemory mem(pixels);
    ASSERT_NE(mem.ptr, nullptr);
    CK(cudaMemset(mem.ptr, 0x5A, pixels));
    CK(cudaDeviceSynchronize());
    for (const char* tune : {"", "layout=lanes16", "layout=copies", "prefetch=1,acc_stride=16", "ahead=0,block=512"}) {
        SCOPED_TRACE(tune);
        TuneScope scope(tune);
        auto engine = cuda::create_engine();
        const DeviceImage view = cuda::device_image(mem.ptr, width, height, 0, PixelFormat::gray8);
        const Result r = engine->compute_device(view);
        ASSERT_EQ(r.channels.size(), 1u);
        EXPECT_EQ(r.channels[0].counts[0x5A], pixels);
        std::uint64_t total = 0;
        for (std::uint64_t c : r.channels[0].counts) total += c;
        EXPECT_EQ(total, pixels);
        // Pitched: the same bytes as 32768-pixel rows of rgba8 with a 2-pixel gap per row.
        const DeviceImage pitched =
            cuda::device_image(mem.ptr, 32766, std::uint32_t(pixels / (32768 * 4)), 32768 * 4, PixelFormat::rgba8);
        Request rgb;
        rgb.mode = Mode::rgb;
        const Result p = engine->compute_device(pitched, rgb);
        for (const auto& ch : p.channels) EXPECT_EQ(ch.counts[0x5A], pitched.pixel_count());
    }
}

}  // namespace
}  // namespace imghist
