// The CUDA backend's devices and errors, the host path cut into many staging chunks, and a
// device-resident constant image of more than 2^32 pixels (exact 64-bit counts); bit for bit
// against the reference backend. The interop, batches and forced launch variants have files of
// their own (test_cuda_interop.cpp, test_cuda_batch.cpp, test_cuda_tuning.cpp).
// Without a usable GPU the tests skip; IMGHIST_REQUIRE_BACKENDS containing "cuda" makes that a
// failure.
#include <gtest/gtest.h>

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

// 1 MiB chunks: the image spans many of them, on every number of staging buffers in flight,
// copied with streaming stores or memcpy by few or many copy threads (packed: byte ranges;
// padded: whole rows per thread), and with chunks ramping up from an eighth.
TEST(CudaHost, LargeImageAcrossManyChunksAndStreams) {
    REQUIRE_GPU();
    auto reference = create_engine("reference");
    for (const char* tune : {"chunk_mb=1", "chunk_mb=1,stages=2,stream_stores=0", "chunk_mb=1,stages=4,copy_threads=5",
                             "chunk_mb=1,stages=2,stream_stores=1,copy_threads=16",
                             "chunk_mb=1,stages=4,stream_stores=0,copy_threads=1", "chunk_mb=1,ramp=1,stages=2", "chunk_mb=1,ramp=0,stream_stores=auto",
                             "chunk_mb=2,ramp=1,stages=4,copy_threads=3"}) {
        TuneScope scope(tune);
        auto engine = cuda::create_engine();
        for (std::size_t padding : {std::size_t(0), std::size_t(12)}) {
            const TestImage img = make_image(PixelFormat::rgba8, 4000, 700, Pattern::random, 77 + padding, padding);
            expect_same_histograms(engine->compute(img.view), reference->compute(img.view),
                                   "4000x700 rgba8 +" + std::to_string(padding) + "B, " + tune);
        }
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

// Tiles in one pass of host images (CudaEngine::accumulate_tiles): 1 MiB chunks cut bands
// through rows of tiles; a row of more tiles than a launch takes (pieces) counts each tile as an
// image of a batch instead; floats with default bins need the clipping plan's second pass.
// Against the reference.
TEST(CudaHost, TilesInOnePassAcrossChunksAndWideRows) {
    REQUIRE_GPU();
    auto reference = create_engine("reference");
    for (const char* tune : {"chunk_mb=1,ramp=1", "chunk_mb=1,stages=2,ramp=0"}) {
        TuneScope scope(tune);
        auto engine = cuda::create_engine();
        for (PixelFormat format : {PixelFormat::rgba8, PixelFormat::rgb_f16, PixelFormat::rgba_f32}) {
            const TestImage img = make_image(format, 1500, 900, Pattern::specials, 9, 12);
            Request r;
            r.count_alpha = true;
            r.tiles = {250, 7};
            expect_same_histograms(engine->compute(img.view, r), reference->compute(img.view, r),
                                   std::string(format_info(format).name) + " tiles 250,7, " + tune);
            r.roi = Region{1, 2, 1497, 897};
            r.tiles = {3, 299};
            expect_same_histograms(engine->compute(img.view, r), reference->compute(img.view, r),
                                   std::string(format_info(format).name) + " roi, tiles 3,299, " + tune);
        }
    }
    auto engine = cuda::create_engine();
    const TestImage wide = make_image(PixelFormat::gray8, 40000, 3, Pattern::random, 4, 3);
    Request r;
    r.bins.bins = 4;
    r.tiles = {40000, 3};  // 40000 tiles a row: more than a launch's pieces
    const Result got = engine->compute(wide.view, r);
    expect_same_histograms(got, reference->compute(wide.view, r), "gray8 40000x3, tiles 40000,3");
    ASSERT_EQ(got.tiles.size(), 120000u);
}

// Masks and alpha thresholds of host images (CudaEngine::accumulate_selected): the copy threads
// gather the selected pixels into 1 MiB chunks, a piece per thread's part. Noise masks, a band of
// masked-out rows (chunks with nothing kept), a mask that keeps nothing, an alpha threshold with
// the mask, and clamp with 100 bins (the clipping plan's second pass); packed and padded rows.
// Against the reference with the same request.
TEST(CudaHost, MasksGatheredIntoTheChunksByEveryCopyThread) {
    REQUIRE_GPU();
    auto reference = create_engine("reference");
    constexpr std::uint32_t w = 1999, h = 700;
    std::vector<std::uint8_t> noise(std::size_t(w) * h), band(noise.size()), none(noise.size(), 0);
    for (std::size_t i = 0; i < noise.size(); ++i) {
        noise[i] = std::uint8_t((i * 2654435761u >> 13) % 3 == 0 ? 0 : 1 + i % 255);
        const std::size_t y = i / w;
        band[i] = y >= 100 && y < 450 ? 0 : noise[i];
    }
    for (const char* tune : {"chunk_mb=1,stages=2,copy_threads=1", "chunk_mb=1,stages=4,copy_threads=5,ramp=0",
                             "chunk_mb=4,ramp=1,copy_threads=16"}) {
        TuneScope scope(tune);
        auto engine = cuda::create_engine();
        for (PixelFormat format : {PixelFormat::rgba8, PixelFormat::rgb_f16, PixelFormat::rgba_f32}) {
            for (std::size_t padding : {std::size_t(0), std::size_t(20)}) {
                const TestImage img = make_image(format, w, h, Pattern::specials, 31 + padding, padding);
                for (const auto* mask : {&noise, &band, &none}) {
                    Request r;
                    r.count_alpha = true;
                    r.mask = ImageView::packed(mask->data(), w, h, PixelFormat::gray8);
                    std::vector<Request> requests{r};
                    r.bins.bins = 100;
                    r.bins.clamp = true;
                    requests.push_back(r);
                    if (format_info(format).alpha >= 0) {
                        r.alpha_threshold = format_info(format).is_float() ? 0.5 : 100.0;
                        requests.push_back(r);
                    }
                    for (std::size_t i = 0; i < requests.size(); ++i) {
                        const std::string what = std::string(format_info(format).name) + " +" + std::to_string(padding) +
                                                 "B, mask " + std::to_string(mask == &noise ? 0 : mask == &band ? 1 : 2) +
                                                 ", request " + std::to_string(i) + ", " + tune;
                        const Result got = engine->compute(img.view, requests[i]);
                        const Result want = reference->compute(img.view, requests[i]);
                        expect_same_histograms(got, want, what);
                        EXPECT_EQ(got.counted_pixels, want.counted_pixels) << what;
                        for (std::size_t c = 0; c < got.channels.size(); ++c) {
                            EXPECT_EQ(got.channels[c].clipped_low_count, want.channels[c].clipped_low_count) << what;
                            EXPECT_EQ(got.channels[c].clipped_high_count, want.channels[c].clipped_high_count) << what;
                        }
                    }
                }
            }
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
