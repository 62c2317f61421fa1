// The CUDA interop: images in device memory (packed, pitched, misaligned sub-views) on the caller's
// stream, asynchronous results in the caller's device buffer on two streams, and calls captured
// into the caller's CUDA graph; bit for bit against the reference backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cuda_selection_upload.hpp"
#include "cuda_test_support.hpp"
#include "histogram_asserts.hpp"
#include "interop_checks.hpp"
#include "selection_checks.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

using namespace cuda_test;
using testing::expect_same_histograms;
using testing::make_image;
using testing::Pattern;
using testing::TestImage;

TEST(CudaDevice, AllFormatsPitchesAndOffsets) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    auto reference = create_engine("reference");
    std::uint64_t seed = 1;
    for (PixelFormat format : testing::plan_pixel_formats()) {
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
    for (PixelFormat format : testing::plan_pixel_formats()) {
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
        r.roi = Region{1, 2, 250, 16};
        r.tiles = {5, 2};
        expect_same_histograms(cuda::compute(*engine, d.view, r, stream), reference->compute(img.view, r),
                               std::string(fi.name) + " roi and tiles on a stream");
    }
    CK(cudaStreamDestroy(stream));
}

// A tile grid of a device image is one batch launch of its tiles (every tile an image of it),
// padded rows included.
TEST(CudaDevice, LargeTileGridsInOneLaunch) {
    REQUIRE_GPU();
    std::unique_ptr<Engine> engine = cuda::create_engine();
    auto reference = create_engine("reference");
    for (PixelFormat format : {PixelFormat::gray8, PixelFormat::rgba8, PixelFormat::rgb16, PixelFormat::rgba_f16,
                               PixelFormat::rgba_f32}) {
        const FormatInfo& fi = format_info(format);
        const TestImage img = make_image(format, 1500, 900, Pattern::specials, 31);
        DeviceCopy d = upload(img.view, img.view.row_bytes() + 2 * fi.pixel_bytes(), fi.pixel_bytes());
        ASSERT_NE(d.mem.ptr, nullptr);
        Request r;
        r.count_alpha = true;
        for (const auto& [grid, roi] : {std::pair{TileGrid{250, 7}, std::optional<Region>{}},
                                        std::pair{TileGrid{3, 299}, std::optional<Region>{Region{1, 2, 1497, 897}}}}) {
            r.tiles = grid;
            r.roi = roi;
            expect_same_histograms(cuda::compute(*engine, d.view, r), reference->compute(img.view, r),
                                   std::string(fi.name) + " tiles " + std::to_string(grid.x) + "," +
                                       std::to_string(grid.y));
        }
    }
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

TEST(CudaDevice, DeviceMasksAndAlphaThresholdsCountOnlyTheSelectedPixels) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    cudaStream_t stream = nullptr;
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    testing::expect_device_selections_match(
        [&](const testing::SelectionCase& c) { return compute_pitched_on_stream(*engine, c, stream); });
    // A host mask for a device image is refused by name, and the engine counts on.
    const TestImage img = make_image(PixelFormat::rgba8, 16, 4, Pattern::random, 1);
    const testing::Mask m = testing::random_mask(16, 4, 2);
    DeviceCopy d = upload(img.view);
    Request host_mask;
    host_mask.mask = m.view();
    EXPECT_THROW(engine->compute_device(d.view, host_mask), InvalidArgument);
    DeviceCopy dm = upload(m.view());
    Request r;
    r.device_mask = dm.view;
    EXPECT_THROW(engine->compute_batch(std::span<const DeviceImage>(&d.view, 1), r), InvalidArgument);
    EXPECT_EQ(engine->compute_device(d.view, r).counted_pixels,
              std::uint64_t(std::count_if(m.bytes.begin(), m.bytes.end(), [](std::uint8_t b) { return b != 0; })));
    CK(cudaStreamDestroy(stream));
}

// A selection's pixel count is the growth of a running total on the device (select_out_[0],
// never reset between calls): it must stay exact when the counts' buffer grows (2048 EV bins
// after 256 bins), between plain calls, and after a failed call that left the engine to recover.
TEST(CudaDevice, SelectedPixelCountsStayExactAcrossGrowthPlainCallsAndFailures) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    auto reference = create_engine("reference");
    const TestImage img = make_image(PixelFormat::rgba_f32, 97, 31, Pattern::specials, 11);
    DeviceCopy image = upload(img.view);
    std::vector<testing::Mask> masks;
    std::vector<DeviceCopy> device_masks;
    for (std::uint64_t seed : {21u, 22u, 23u}) {
        masks.push_back(testing::random_mask(97, 31, seed));
        device_masks.push_back(upload(masks.back().view()));
    }
    Request few;  // 256 uniform bins
    Request many;
    many.bins.edges = ev_edges(-8, 0, 256);  // 2049 edges: a larger counts buffer
    const auto expect_selection = [&](const Request& base, std::size_t k, const std::string& what) {
        Request r = base;
        r.device_mask = device_masks[k].view;
        Request host = base;
        host.mask = masks[k].view();
        const Result got = engine->compute_device(image.view, r);
        expect_same_histograms(got, reference->compute(img.view, host), what);
        EXPECT_EQ(got.counted_pixels, std::uint64_t(std::count_if(masks[k].bytes.begin(), masks[k].bytes.end(),
                                                                   [](std::uint8_t b) { return b != 0; })))
            << what;
    };
    expect_selection(few, 0, "first");
    expect_selection(few, 1, "second, same buffer");
    expect_selection(many, 2, "grown buffer");
    expect_same_histograms(engine->compute_device(image.view, few), reference->compute(img.view, few), "plain");
    expect_selection(many, 0, "after a plain call");
    // A mask in host memory fails inside the call (the pointer check): the next call recovers.
    Request bad = few;
    bad.device_mask = DeviceImage{};
    bad.device_mask->memory = std::uint64_t(reinterpret_cast<std::uintptr_t>(masks[0].bytes.data()));
    bad.device_mask->width = 97;
    bad.device_mask->height = 31;
    bad.device_mask->format = PixelFormat::gray8;
    EXPECT_THROW(engine->compute_device(image.view, bad), InvalidArgument);
    expect_selection(few, 1, "after a failed call");
    expect_selection(many, 2, "and again");
}

// The selection is counted inside the histogram kernel (KernelParams::select), which finds each
// pixel's mask byte from its row and column: packed images with packed masks (one long row, also
// in several segments), packed images with pitched masks, and 16-byte-aligned pitches (whole
// 16-byte groups, several rows per tile), against the reference of the selected pixels.
TEST(CudaDevice, DeviceSelectionsInEveryRowLayoutMatchTheReference) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    struct Layout {
        const char* what;
        std::size_t image_pad, mask_pad;  // bytes after each row (0: packed)
    };
    const Layout layouts[] = {{"packed image, packed mask", 0, 0},
                              {"packed image, pitched mask", 0, 7},
                              {"aligned pitch, pitched mask", 1, 13}};
    testing::expect_device_selections_match([&](const testing::SelectionCase& c) -> Result {
        const ImageView& v = c.image.view;
        Result first;
        for (const Layout& l : layouts) {
            SCOPED_TRACE(l.what);
            // image_pad 1: the row rounded up to a multiple of 64 bytes (and one more 64).
            const std::size_t pitch = l.image_pad == 0 ? 0 : (v.row_bytes() / 64 + 2) * 64;
            DeviceCopy image = upload(v, pitch);
            DeviceCopy mask = upload(c.mask.view(), l.mask_pad == 0 ? 0 : c.mask.view().row_bytes() + l.mask_pad);
            Request r = c.request;
            if (c.use_mask) r.device_mask = mask.view;
            Result got = engine->compute_device(image.view, r);
            if (&l == &layouts[0]) first = got;
            else expect_same_histograms(got, first, std::string(l.what) + " against packed");
            EXPECT_EQ(got.counted_pixels, first.counted_pixels);
        }
        return first;
    });
    // Long rows: one packed image of 4099 x 7 pixels is one row that many blocks share; floats
    // also through the code table and the code window of EV bins (float_lut=2: at any size).
    auto reference = create_engine("reference");
    for (const char* tune : {"", "float_lut=2"}) {
        SCOPED_TRACE(tune);
        TuneScope scope(tune);
        auto tuned = cuda::create_engine();
        for (PixelFormat f : {PixelFormat::rgba8, PixelFormat::gray8, PixelFormat::rgb8, PixelFormat::rgba_f32,
                              PixelFormat::rgba_f16, PixelFormat::gray_f32}) {
            SCOPED_TRACE(format_info(f).name);
            const TestImage img = make_image(f, 4099, 7, Pattern::specials, 5);
            const testing::Mask m = testing::random_mask(4099, 7, 6);
            DeviceCopy image = upload(img.view), mask = upload(m.view());
            Request plain;
            plain.count_alpha = format_info(f).alpha >= 0;
            Request rgb_ev;
            rgb_ev.mode = format_info(f).alpha >= 0 ? Mode::rgb : Mode::all;
            rgb_ev.bins.edges = ev_edges(-8, 0, 32);
            Request alpha_only;
            alpha_only.alpha_threshold = 0.25;
            for (const Request& want : {plain, rgb_ev, alpha_only}) {
                if (want.alpha_threshold && format_info(f).alpha < 0) continue;
                if (!want.bins.edges.empty() && !format_info(f).is_float()) continue;
                const bool masked = !want.alpha_threshold;
                Request r = want;
                if (masked) r.device_mask = mask.view;
                Request host = want;
                if (masked) host.mask = m.view();
                const Result got = tuned->compute_device(image.view, r);
                expect_same_histograms(got, reference->compute(img.view, host), "long row");
                if (masked)
                    EXPECT_EQ(got.counted_pixels, std::uint64_t(std::count_if(m.bytes.begin(), m.bytes.end(),
                                                                               [](std::uint8_t b) { return b != 0; })));
            }
        }
    }
}

// Request::value_extremes on every CUDA call that returns a Result: host batches find them,
// device images say why they have none (they were dropped silently before).
TEST(CudaDevice, ValueExtremesOnBatchesAndDeviceImages) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    auto reference = create_engine("reference");
    Request r;
    r.value_extremes = true;
    const TestImage a = make_image(PixelFormat::rgba_f32, 61, 17, Pattern::specials, 71);
    const TestImage b = make_image(PixelFormat::rgba_f32, 61, 17, Pattern::natural, 72);
    const ImageView views[] = {a.view, b.view};
    const std::vector<Result> batch = engine->compute_batch(std::span<const ImageView>(views), r);
    ASSERT_EQ(batch.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        const Result want = reference->compute(views[i], r);
        for (std::size_t c = 0; c < want.channels.size(); ++c) {
            ASSERT_TRUE(want.channels[c].finite_min.has_value());
            EXPECT_EQ(batch[i].channels[c].finite_min, want.channels[c].finite_min) << i << " " << c;
            EXPECT_EQ(batch[i].channels[c].finite_max, want.channels[c].finite_max) << i << " " << c;
            EXPECT_EQ(batch[i].channels[c].positive_infinities, want.channels[c].positive_infinities);
            EXPECT_EQ(batch[i].channels[c].negative_infinities, want.channels[c].negative_infinities);
        }
    }
    const DeviceCopy d = upload(a.view);
    const auto noted = [](const Result& x) {
        return std::find(x.notes.begin(), x.notes.end(), "value extremes are found for images in host memory only") !=
               x.notes.end();
    };
    EXPECT_TRUE(noted(engine->compute_device(d.view, r)));
    const DeviceImage two[] = {d.view, d.view};
    for (const Result& x : engine->compute_batch(std::span<const DeviceImage>(two), r)) EXPECT_TRUE(noted(x));
}

}  // namespace
}  // namespace imghist
