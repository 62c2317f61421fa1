// GPU JPEG decoding (include/imghist/cuda_decode.hpp): every image the GPU decodes is counted
// exactly as the cpu backend counts the same decoded pixels (copied back for the check only),
// on JPEGs of every subsampling, odd sizes and progressive scans, made by libjpeg-turbo; files
// the GPU does not take are named, not counted. On a machine without a GPU (CI) only the checks
// that need none run.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "cuda_test_support.hpp"
#include "imghist/cuda_decode.hpp"
#include "imghist/dataset.hpp"
#include "histogram_asserts.hpp"
#include "interop_checks.hpp"
#include "turbojpeg_files.hpp"

namespace imghist {
namespace {

using testing::JpegSettings;

// Photo-like content: smooth gradients and waves (long runs of near values), plus noise and
// sharp edges (which the entropy coder and IDCT find hard).
std::vector<std::uint8_t> photo_like(int width, int height, int channels, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> noise(0.f, 6.f);
    std::vector<std::uint8_t> px(std::size_t(width) * height * channels);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            for (int c = 0; c < channels; ++c) {
                float v = 128.f + 90.f * std::sin(0.02f * float(x + 7 * c) + 0.013f * float(y)) +
                          40.f * float((x / 37 + y / 23 + c) % 2) + noise(rng);
                px[(std::size_t(y) * width + x) * channels + c] = std::uint8_t(std::clamp(v, 0.f, 255.f));
            }
    return px;
}

struct Case {
    int width, height, channels;
    JpegSettings settings;
};

std::vector<Case> cases() {
    std::vector<Case> out;
    int k = 0;
    for (const int sampling : {TJSAMP_444, TJSAMP_422, TJSAMP_420, TJSAMP_440, TJSAMP_411})
        for (const auto& [w, h] : {std::pair{500, 375}, std::pair{17, 9}, std::pair{333, 777}, std::pair{1, 1}})
            out.push_back({w, h, 3, {k++ % 2 ? 95 : 75, sampling, k % 3 == 0}});
    out.push_back({1920, 1080, 3, {90, TJSAMP_420, false}});
    out.push_back({640, 480, 1, {90, TJSAMP_GRAY, false}});
    out.push_back({31, 47, 1, {50, TJSAMP_GRAY, true}});
    return out;
}

const std::vector<Request>& requests() {
    static const std::vector<Request> list = [] {
        Request all;  // the default: R, G, B and luminance
        Request rgb16;
        rgb16.mode = Mode::rgb;
        rgb16.bins.bins = 16;
        Request luma;
        luma.mode = Mode::luma;
        luma.bins.bins = 100;
        return std::vector<Request>{all, rgb16, luma};
    }();
    return list;
}

std::unique_ptr<cuda::JpegDecoder> decoder_or_skip(Engine& engine) {
    std::string why;
    if (!cuda::jpeg_decode_available(&why)) {
        if (cuda_test::cuda_required()) ADD_FAILURE() << why;
        return nullptr;
    }
    return cuda::make_jpeg_decoder(engine);
}

#define DECODER_OR_SKIP(name, engine)                                 \
    auto name = decoder_or_skip(engine);                              \
    if (!name) GTEST_SKIP() << "GPU JPEG decoding is not available here"

TEST(CudaJpeg, EveryDecodedImageCountsAsTheCpuBackendCountsItsPixels) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    DECODER_OR_SKIP(decoder, *engine);
    auto cpu = create_engine("cpu");
    std::vector<std::vector<std::byte>> files;
    const std::vector<Case> list = cases();
    for (std::size_t i = 0; i < list.size(); ++i) {
        const Case& c = list[i];
        files.push_back(testing::encode_jpeg(photo_like(c.width, c.height, c.channels, unsigned(i)), c.width, c.height,
                                             c.channels, c.settings));
    }
    std::vector<std::span<const std::byte>> spans(files.begin(), files.end());
    for (const Request& request : requests()) {
        std::vector<std::vector<std::byte>> pixels;
        const std::vector<cuda::GpuDecoded> out = decoder->histograms(spans, request, 0, pixels);
        ASSERT_EQ(out.size(), files.size());
        for (std::size_t i = 0; i < list.size(); ++i) {
            const Case& c = list[i];
            SCOPED_TRACE(std::to_string(c.width) + "x" + std::to_string(c.height) + " sampling " +
                         std::to_string(c.settings.subsampling) + (c.settings.progressive ? " progressive" : ""));
            ASSERT_TRUE(out[i].result) << out[i].not_decoded;
            const PixelFormat format = c.channels == 1 ? PixelFormat::gray8 : PixelFormat::rgb8;
            EXPECT_EQ(out[i].format, format);
            ASSERT_EQ(out[i].width, std::uint32_t(c.width));
            ASSERT_EQ(out[i].height, std::uint32_t(c.height));
            ASSERT_EQ(pixels[i].size(), std::size_t(c.width) * c.height * c.channels);
            const ImageView view = ImageView::packed(pixels[i].data(), std::uint32_t(c.width), std::uint32_t(c.height), format);
            testing::expect_same_histograms(*out[i].result, cpu->compute(view, request), "gpu-decoded pixels");
            EXPECT_EQ(out[i].result->width, std::uint32_t(c.width));
        }
    }
}

// The decoded pixels are close to libjpeg-turbo's (the same image, another IDCT): a wrong
// colour conversion, orientation or row layout would be far off.
TEST(CudaJpeg, DecodedPixelsAreCloseToLibjpegTurbos) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    DECODER_OR_SKIP(decoder, *engine);
    std::vector<std::vector<std::byte>> files;
    for (const Case& c : cases())
        files.push_back(testing::encode_jpeg(photo_like(c.width, c.height, c.channels, 7), c.width, c.height,
                                             c.channels, c.settings));
    std::vector<std::span<const std::byte>> spans(files.begin(), files.end());
    std::vector<std::vector<std::byte>> pixels;
    const auto out = decoder->histograms(spans, Request{}, 0, pixels);
    for (std::size_t i = 0; i < files.size(); ++i) {
        ASSERT_TRUE(out[i].result) << out[i].not_decoded;
        const testing::DecodedJpeg cpu = testing::decode_jpeg(files[i]);
        ASSERT_EQ(pixels[i].size(), cpu.pixels.size());
        int largest = 0;
        std::size_t differ = 0;
        for (std::size_t k = 0; k < cpu.pixels.size(); ++k) {
            const int d = std::abs(int(std::to_integer<std::uint8_t>(pixels[i][k])) - int(cpu.pixels[k]));
            largest = std::max(largest, d);
            differ += d != 0;
        }
        EXPECT_LE(largest, 16) << "file " << i;
        EXPECT_LE(double(differ), 0.5 * double(cpu.pixels.size())) << "file " << i;
    }
}

TEST(CudaJpeg, FilesTheGpuDoesNotTakeAreNamedAndNotCounted) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    DECODER_OR_SKIP(decoder, *engine);
    const std::vector<std::byte> good = testing::encode_jpeg(photo_like(64, 48, 3, 1), 64, 48, 3, {});
    const std::vector<std::byte> cmyk = testing::encode_jpeg(photo_like(64, 48, 4, 2), 64, 48, 4, {90, TJSAMP_444, false});
    const std::vector<std::byte> truncated(good.begin(), good.begin() + std::ptrdiff_t(good.size() / 3));
    // nvJPEG decodes these without complaint, the missing part as zeros: they must not be counted.
    const std::vector<std::byte> half(good.begin(), good.begin() + std::ptrdiff_t(good.size() / 2));
    const std::vector<std::byte> most(good.begin(), good.begin() + std::ptrdiff_t(good.size() * 9 / 10));
    std::vector<std::byte> garbage(5000);
    std::mt19937 rng(3);
    for (std::byte& b : garbage) b = std::byte(rng());
    const std::vector<std::byte> png = {std::byte(0x89), std::byte('P'), std::byte('N'), std::byte('G'),
                                        std::byte(13),   std::byte(10),  std::byte(26),  std::byte(10)};
    const std::vector<std::byte> empty;
    const std::vector<std::span<const std::byte>> files = {good, cmyk, truncated, garbage, png, empty, good, half, most};
    const auto out = decoder->histograms(files, Request{});
    ASSERT_EQ(out.size(), files.size());
    EXPECT_TRUE(out[0].result) << out[0].not_decoded;
    EXPECT_TRUE(out[6].result) << out[6].not_decoded;
    for (const std::size_t i : {1, 2, 3, 4, 5, 7, 8}) {
        EXPECT_FALSE(out[i].result) << "file " << i << " was counted";
        EXPECT_FALSE(out[i].not_decoded.empty()) << "file " << i;
    }
    EXPECT_EQ(out[0].result->width, 64u);
    EXPECT_EQ(out[6].result->height, 48u);
}

TEST(CudaJpeg, MaxPixelsIsCheckedFromTheHeader) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    if (!cuda::jpeg_decode_available()) GTEST_SKIP() << "GPU JPEG decoding is not available here";
    cuda::JpegDecoder& decoder = cuda::jpeg_decoder(*engine);
    const std::vector<std::byte> big = testing::encode_jpeg(photo_like(40, 30, 3, 1), 40, 30, 3, {});
    const std::vector<std::byte> small = testing::encode_jpeg(photo_like(20, 30, 3, 1), 20, 30, 3, {});
    const std::vector<std::span<const std::byte>> files = {big, small};
    const auto out = decoder.histograms(files, Request{}, 1000);
    EXPECT_FALSE(out[0].result);
    EXPECT_NE(out[0].not_decoded.find("max_pixels"), std::string::npos) << out[0].not_decoded;
    EXPECT_TRUE(out[1].result) << out[1].not_decoded;
}

// Batches of changing sizes reuse the decoder's buffers: later batches must not see earlier ones.
TEST(CudaJpeg, BatchAfterBatchOfChangingSizes) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    DECODER_OR_SKIP(decoder, *engine);
    auto cpu = create_engine("cpu");
    for (int round = 0; round < 4; ++round) {
        std::vector<std::vector<std::byte>> files;
        const int count = round == 2 ? 1 : 40 + 30 * round;
        for (int k = 0; k < count; ++k) {
            const int w = 16 + (k * 37 + round * 11) % 300, h = 8 + (k * 53 + round) % 200;
            files.push_back(testing::encode_jpeg(photo_like(w, h, 3, unsigned(k + 100 * round)), w, h, 3, {}));
        }
        std::vector<std::span<const std::byte>> spans(files.begin(), files.end());
        std::vector<std::vector<std::byte>> pixels;
        const auto out = decoder->histograms(spans, Request{}, 0, pixels);
        for (int k = 0; k < count; ++k) {
            ASSERT_TRUE(out[k].result) << out[k].not_decoded;
            const ImageView view = ImageView::packed(pixels[k].data(), out[k].width, out[k].height, PixelFormat::rgb8);
            testing::expect_same_histograms(*out[k].result, cpu->compute(view, Request{}),
                                            "round " + std::to_string(round) + " file " + std::to_string(k));
        }
    }
}

// io::histogram_files with Decode::gpu: JPEGs in batches (3 here, so runs are cut by batch
// ends and by the other files), other files and the JPEGs the GPU does not take through the
// CPU reader, errors reported and never summed, input order kept, and each GPU-decoded file's
// result that of the decoder on that file alone.
TEST(CudaJpeg, DatasetPipelineMixesGpuAndCpuFilesInOrder) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    if (!cuda::jpeg_decode_available()) GTEST_SKIP() << "GPU JPEG decoding is not available here";
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("imghist-jpeg-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::vector<std::string> paths;
    std::vector<std::vector<std::byte>> bytes;  // what each file holds (empty: missing)
    const auto add = [&](const std::string& name, std::vector<std::byte> content, bool write = true) {
        paths.push_back((dir / name).string());
        if (write) std::ofstream(paths.back(), std::ios::binary).write(reinterpret_cast<const char*>(content.data()),
                                                                       std::streamsize(content.size()));
        bytes.push_back(write ? std::move(content) : std::vector<std::byte>{});
    };
    for (int k = 0; k < 5; ++k) {
        const int w = 40 + 13 * k, h = 30 + 7 * k;
        add("a" + std::to_string(k) + ".jpg", testing::encode_jpeg(photo_like(w, h, 3, unsigned(k)), w, h, 3, {}));
    }
    add("gray.jpg", testing::encode_jpeg(photo_like(33, 21, 1, 9), 33, 21, 1, {}));
    add("noise.jpg", std::vector<std::byte>(300, std::byte(0x5A)));  // not a JPEG: the CPU reader says so
    const std::vector<std::byte> whole = testing::encode_jpeg(photo_like(64, 64, 3, 5), 64, 64, 3, {});
    add("truncated.jpg", std::vector<std::byte>(whole.begin(), whole.begin() + std::ptrdiff_t(whole.size() / 2)));
    add("missing.jpg", {}, false);
    add("cmyk.jpg", testing::encode_jpeg(photo_like(24, 16, 4, 6), 24, 16, 4, {90, TJSAMP_444, false}));
    for (int k = 0; k < 7; ++k) {
        const int w = 17 + 29 * k, h = 11 + 5 * k;
        add("b" + std::to_string(k) + ".jpg", testing::encode_jpeg(photo_like(w, h, 3, unsigned(50 + k)), w, h, 3, {}));
    }
    io::DatasetOptions options;
    options.decode = io::Decode::gpu;
    options.gpu_batch = 3;
    options.decode_threads = 3;
    std::vector<io::FileHistogram> seen, again;
    const io::DatasetSummary summary =
        io::histogram_files(*engine, paths, Request{}, [&](io::FileHistogram& f) { seen.push_back(f); }, options);
    // Batches of another size decode every file alike: a file's decoder does not depend on
    // the files beside it.
    options.gpu_batch = 128;
    io::histogram_files(*engine, paths, Request{}, [&](io::FileHistogram& f) { again.push_back(f); }, options);
    fs::remove_all(dir);
    ASSERT_EQ(seen.size(), paths.size());
    ASSERT_EQ(again.size(), paths.size());
    // Which of nvImageCodec's decoders took each file: the notes say.
    const auto decoded_by = [](const io::FileHistogram& f) {
        std::string notes;
        if (f.result)
            for (const std::string& n : f.result->notes) notes += n + "; ";
        return notes;
    };
    for (std::size_t i = 0; i < paths.size(); ++i)
        if (seen[i].result && again[i].result)
            testing::expect_same_histograms(*again[i].result, *seen[i].result,
                                            "batches of 128 against 3: " + paths[i] + " (" + decoded_by(again[i]) +
                                                " against " + decoded_by(seen[i]) + ")");
    cuda::JpegDecoder& alone = cuda::jpeg_decoder(*engine);
    std::vector<Result> sums;
    for (std::size_t i = 0; i < paths.size(); ++i) {
        const io::FileHistogram& f = seen[i];
        SCOPED_TRACE(paths[i]);
        EXPECT_EQ(f.index, i);
        EXPECT_EQ(f.path, paths[i]);
        const std::string name = fs::path(paths[i]).filename().string();
        if (name[0] == 'a' || name[0] == 'b' || name == "gray.jpg") {
            ASSERT_TRUE(f.result) << f.error;
            EXPECT_EQ(f.decoder, "gpu");
            const std::vector<std::span<const std::byte>> one = {bytes[i]};
            const auto single = alone.histograms(one, Request{});
            ASSERT_TRUE(single[0].result);
            std::string alone_notes;
            for (const std::string& n : single[0].result->notes) alone_notes += n + "; ";
            testing::expect_same_histograms(*f.result, *single[0].result,
                                            "pipeline (" + decoded_by(f) + ") against the decoder alone (" +
                                                alone_notes + ")");
        } else if (name == "cmyk.jpg") {
            EXPECT_EQ(f.decoder, "cpu");
            EXPECT_NE(f.gpu_fallback.find("CMYK"), std::string::npos) << f.gpu_fallback;
        } else {  // noise, truncated, missing: the CPU reader's error, nothing counted
            EXPECT_FALSE(f.result);
            EXPECT_FALSE(f.error.empty());
            EXPECT_EQ(f.decoder, "cpu");
        }
        if (f.result) {
            bool added = false;
            for (Result& sum : sums)
                if (sum.can_merge(*f.result)) {
                    sum.merge(*f.result);
                    added = true;
                }
            if (!added) sums.push_back(*f.result);
        }
    }
    EXPECT_EQ(summary.files, paths.size());
    EXPECT_EQ(summary.counted + summary.failed, paths.size());
    ASSERT_EQ(summary.sums.size(), sums.size());
    for (std::size_t k = 0; k < sums.size(); ++k) testing::expect_same_histograms(summary.sums[k], sums[k], "sum");
}

// The engine keeps one decoder: the second call gets the same one.
TEST(CudaJpeg, TheEngineKeepsItsDecoder) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    if (!cuda::jpeg_decode_available()) GTEST_SKIP() << "GPU JPEG decoding is not available here";
    EXPECT_EQ(&cuda::jpeg_decoder(*engine), &cuda::jpeg_decoder(*engine));
}

// Needs no GPU: only a cuda engine may decode for the GPU.
TEST(CudaJpeg, AnEngineOfAnotherBackendIsRefused) {
    auto cpu = create_engine("cpu");
    testing::expect_wrong_engine([&] { (void)cuda::make_jpeg_decoder(*cpu); }, "cpu", "cuda");
    testing::expect_wrong_engine([&] { (void)cuda::jpeg_decoder(*cpu); }, "cpu", "cuda");
}

// Needs no GPU: availability is answered with a reason, never by a crash.
TEST(CudaJpeg, AvailabilityComesWithAReason) {
    std::string why;
    if (!cuda::jpeg_decode_available(&why)) EXPECT_FALSE(why.empty());
}

}  // namespace
}  // namespace imghist
