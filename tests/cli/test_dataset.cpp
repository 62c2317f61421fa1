// imghist::io::histogram_files (include/imghist/dataset.hpp): many files decoded on a pool of
// threads, counted in input order, errors reported and never summed. The files are PGM/PPM
// written byte for byte from pixels the test knows, so every file's counts and the sums are
// checked against the reference backend on those pixels, not against the pipeline itself.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "imghist/dataset.hpp"
#include "imghist/imghist.hpp"
#include "io/pixel_pool.hpp"

namespace imghist::cli_test {
namespace {

// A binary PGM (channels 1) or PPM (3) of 8- or 16-bit samples; the pixels are returned.
std::vector<std::uint16_t> write_pnm(const std::string& file, std::uint32_t w, std::uint32_t h, int channels,
                                     bool sixteen, std::uint32_t seed) {
    std::vector<std::uint16_t> samples(std::size_t(w) * h * channels);
    std::uint32_t x = seed * 2654435761u + 1;
    for (auto& s : samples) {
        x = x * 1103515245u + 12345u;
        s = std::uint16_t(sixteen ? (x >> 8) & 0xFFFF : (x >> 16) & 0xFF);
    }
    std::ofstream out(file, std::ios::binary);
    out << (channels == 1 ? "P5" : "P6") << '\n' << w << ' ' << h << '\n' << (sixteen ? 65535 : 255) << '\n';
    for (const std::uint16_t s : samples) {
        if (sixteen) out.put(char(s >> 8));  // PNM is big-endian
        out.put(char(s & 0xFF));
    }
    return samples;
}

Result reference_of(const std::vector<std::uint16_t>& samples, std::uint32_t w, std::uint32_t h, int channels,
                    bool sixteen, const Request& request) {
    const PixelFormat f = sixteen ? (channels == 1 ? PixelFormat::gray16 : PixelFormat::rgb16)
                                  : (channels == 1 ? PixelFormat::gray8 : PixelFormat::rgb8);
    std::vector<std::uint8_t> bytes8(samples.begin(), samples.end());
    const void* data = sixteen ? static_cast<const void*>(samples.data()) : bytes8.data();
    return create_engine("reference")->compute(ImageView::packed(data, w, h, f), request);
}

class Dataset : public ScratchDirTest {
protected:
    // `count` PGM (channels 1) or PPM (3) files of w x h random 8-bit samples, named prefix0...
    std::vector<std::string> small_files(const std::string& prefix, int count, std::uint32_t w, std::uint32_t h,
                                         int channels) {
        std::vector<std::string> paths;
        for (int i = 0; i < count; ++i) {
            paths.push_back(path(prefix + std::to_string(i) + (channels == 1 ? ".pgm" : ".ppm")));
            write_pnm(paths.back(), w, h, channels, false, std::uint32_t(i));
        }
        return paths;
    }
};

TEST_F(Dataset, EveryFileInInputOrderErrorsReportedAndSumsExact) {
    // 8-bit RGB files, with bad ones among them; sizes vary so decoding times differ.
    Request request;  // mode all: R, G, B and Y
    std::vector<std::string> paths;
    std::vector<std::optional<Result>> want;
    for (std::uint32_t i = 0; i < 40; ++i) {
        const std::string file = path("d" + std::to_string(i) + ".ppm");
        if (i % 9 == 4) {  // truncated: the header promises more pixels than there are
            std::ofstream(file, std::ios::binary) << "P6\n64 64\n255\n" << std::string(100, 'x');
            want.push_back(std::nullopt);
        } else if (i % 13 == 7) {
            want.push_back(std::nullopt);  // missing
        } else {
            const std::uint32_t w = 1 + (i * 37) % 97, h = 1 + (i * 11) % 23;
            want.push_back(reference_of(write_pnm(file, w, h, 3, false, i), w, h, 3, false, request));
        }
        paths.push_back(file);
    }
    Result want_sum;
    bool first = true;
    for (const auto& r : want)
        if (r) {
            if (first) want_sum = *r;
            else want_sum.merge(*r);
            first = false;
        }
    auto engine = create_engine("cpu");
    for (const unsigned threads : {1u, 2u, 5u})
        for (const std::size_t pending : {std::size_t(0), std::size_t(1), std::size_t(3)}) {
            const std::string what = std::to_string(threads) + " decoders, max_pending " + std::to_string(pending);
            io::DatasetOptions options;
            options.decode_threads = threads;
            options.max_pending = pending;
            std::size_t seen = 0;
            const io::DatasetSummary summary = io::histogram_files(
                *engine, paths, request,
                [&](io::FileHistogram& f) {
                    ASSERT_EQ(f.index, seen) << what;  // input order
                    EXPECT_EQ(f.path, paths[seen]) << what;
                    if (want[seen]) {
                        ASSERT_TRUE(f.result.has_value()) << what << ": " << f.path << ": " << f.error;
                        EXPECT_TRUE(f.result->same_histograms(*want[seen])) << what << ": " << f.path;
                        EXPECT_TRUE(f.error.empty());
                        EXPECT_GT(f.file_bytes, 0u);
                    } else {
                        EXPECT_FALSE(f.result.has_value()) << what << ": " << f.path;
                        EXPECT_FALSE(f.error.empty()) << what << ": " << f.path;
                    }
                    ++seen;
                },
                options);
            EXPECT_EQ(seen, paths.size()) << what;
            EXPECT_EQ(summary.files, paths.size());
            EXPECT_EQ(summary.failed, std::size_t(std::count(want.begin(), want.end(), std::nullopt))) << what;
            EXPECT_EQ(summary.counted + summary.failed, summary.files);
            ASSERT_EQ(summary.sums.size(), 1u) << what;
            EXPECT_TRUE(summary.sums[0].same_histograms(want_sum)) << what;
        }
}

TEST_F(Dataset, KindsOfHistogramsThatCannotBeAddedKeepSeparateSums) {
    Request request;
    request.mode = Mode::luma;
    std::vector<std::string> paths;
    Result want8, want16;
    for (std::uint32_t i = 0; i < 6; ++i) {
        const bool sixteen = i % 2 == 1;
        const std::string file = path(std::string("k") + std::to_string(i) + (sixteen ? ".pgm" : ".ppm"));
        const int channels = sixteen ? 1 : 3;
        const Result r = reference_of(write_pnm(file, 17, 5, channels, sixteen, 100 + i), 17, 5, channels, sixteen,
                                      request);
        Result& sum = sixteen ? want16 : want8;
        if (i < 2) sum = r;
        else sum.merge(r);
        paths.push_back(file);
    }
    auto engine = create_engine("cpu");
    const auto summary = io::histogram_files(*engine, paths, request, [](io::FileHistogram&) {});
    ASSERT_EQ(summary.sums.size(), 2u);
    EXPECT_TRUE(summary.sums[0].same_histograms(want8));  // the 8-bit file came first
    EXPECT_TRUE(summary.sums[1].same_histograms(want16));
    EXPECT_EQ(summary.counted, 6u);
}

// DatasetOptions::make_reader (the command line plugs its decoder processes in there): one
// reader per decode thread, all made before any file is read; every file is read by one of
// them, and a reader's exception fails only its file.
TEST_F(Dataset, TheCallersReadersReadEveryFile) {
    Request request;
    std::vector<std::string> paths;
    std::vector<std::optional<Result>> want;
    for (std::uint32_t i = 0; i < 12; ++i) {
        const bool bad = i == 5;
        const std::string file = path(std::string(bad ? "bad" : "r") + std::to_string(i) + ".ppm");
        const std::uint32_t w = 3 + i, h = 2 + i % 4;
        const auto samples = write_pnm(file, w, h, 3, false, 40 + i);
        want.push_back(bad ? std::nullopt : std::optional<Result>(reference_of(samples, w, h, 3, false, request)));
        paths.push_back(file);
    }
    std::atomic<int> made{0}, reads{0};
    io::DatasetOptions options;
    options.decode_threads = 3;
    options.make_reader = [&] {
        EXPECT_EQ(reads.load(), 0) << "a reader was made after reading began";
        ++made;
        return io::FileReader([&](const std::string& file) {
            ++reads;
            if (file.find("bad") != std::string::npos) throw std::runtime_error("the reader's own failure");
            return io::read_image(file, {});
        });
    };
    auto engine = create_engine("cpu");
    std::vector<io::FileHistogram> got;
    const auto summary = io::histogram_files(
        *engine, paths, request, [&](io::FileHistogram& f) { got.push_back(std::move(f)); }, options);
    EXPECT_EQ(made.load(), 3);
    EXPECT_EQ(reads.load(), 12);
    EXPECT_EQ(summary.failed, 1u);
    ASSERT_EQ(got.size(), paths.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        SCOPED_TRACE(paths[i]);
        ASSERT_EQ(got[i].result.has_value(), want[i].has_value()) << got[i].error;
        if (want[i]) EXPECT_TRUE(got[i].result->same_histograms(*want[i]));
        else EXPECT_EQ(got[i].error, "unexpected error: the reader's own failure");
    }
}

TEST_F(Dataset, AnExceptionFromTheCallbackStopsTheRunAndIsRethrown) {
    const std::vector<std::string> paths = small_files("s", 50, 8, 8, 1);
    auto engine = create_engine("cpu");
    std::size_t calls = 0;
    EXPECT_THROW(io::histogram_files(*engine, paths, Request{},
                                     [&](io::FileHistogram&) {
                                         if (++calls == 3) throw std::runtime_error("stop here");
                                     }),
                 std::runtime_error);
    EXPECT_EQ(calls, 3u);
    // Bad weights are refused before any file is read.
    Request bad;
    bad.weights = {5000, 5000, 1};
    EXPECT_THROW(io::histogram_files(*engine, paths, bad, [&](io::FileHistogram&) { ++calls; }), InvalidArgument);
    EXPECT_EQ(calls, 3u);
    EXPECT_EQ(io::histogram_files(*engine, {}, Request{}, [&](io::FileHistogram&) { ++calls; }).files, 0u);
}

// Decode::gpu needs the cuda backend: any other engine is refused before a file is read, and
// where GPU decoding cannot run the reason is given. (It runs on the GPU machine:
// tests/cuda/test_cuda_jpeg.cpp.) CPU runs say each file went through the CPU reader.
TEST_F(Dataset, GpuDecodeIsRefusedClearlyWhereItCannotRun) {
    const std::vector<std::string> paths = small_files("g", 4, 5, 4, 3);
    auto engine = create_engine("cpu");
    io::DatasetOptions gpu;
    gpu.decode = io::Decode::gpu;
    std::size_t calls = 0;
    try {
        io::histogram_files(*engine, paths, Request{}, [&](io::FileHistogram&) { ++calls; }, gpu);
        ADD_FAILURE() << "a cpu engine decoded on the GPU";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("cuda backend"), std::string::npos) << e.what();
    }
    EXPECT_EQ(calls, 0u);
    std::string why;
    if (!io::gpu_decode_available(&why)) EXPECT_FALSE(why.empty());
    io::histogram_files(*engine, paths, Request{}, [&](io::FileHistogram& f) {
        EXPECT_EQ(f.decoder, "cpu");
        EXPECT_TRUE(f.gpu_fallback.empty());
        ++calls;
    });
    EXPECT_EQ(calls, paths.size());
}

// A line of /proc/self/status in KiB (Linux): VmRSS, the resident memory now, or VmHWM, its
// peak since the last reset_peak().
long status_kib(const std::string& field) {
    std::ifstream status("/proc/self/status");
    std::string key;
    long value = 0;
    while (status >> key) {
        if (key == field + ":") {
            status >> value;
            return value;
        }
        status.ignore(4096, '\n');
    }
    return -1;
}
void reset_peak() { std::ofstream("/proc/self/clear_refs") << "5"; }

TEST_F(Dataset, HundredThousandFilesInBoundedMemory) {
    // 100,000 files of 3 x 2 pixels: the pipeline holds a window of decoded images and one sum
    // per kind, so its peak memory must not grow with the number of files.
    constexpr std::uint32_t kFiles = 100000;
    const fs::path dir = fs::path(path("many"));
    fs::create_directories(dir);
    std::vector<std::string> paths;
    paths.reserve(kFiles);
    std::uint64_t want_r_sum = 0;
    for (std::uint32_t i = 0; i < kFiles; ++i) {
        paths.push_back((dir / ("f" + std::to_string(i) + ".ppm")).string());
        const unsigned char v = static_cast<unsigned char>(i % 251);
        std::FILE* f = std::fopen(paths.back().c_str(), "wb");
        ASSERT_NE(f, nullptr);
        std::fprintf(f, "P6\n3 2\n255\n");
        for (int k = 0; k < 6; ++k) {
            const unsigned char px[3] = {v, static_cast<unsigned char>(k), 200};
            std::fwrite(px, 1, 3, f);
        }
        std::fclose(f);
        want_r_sum += v;
    }
    Request request;
    request.mode = Mode::rgb;
    auto engine = create_engine("cpu");
    reset_peak();
    const long before = status_kib("VmRSS");
    std::size_t seen = 0;
    std::uint64_t r_sum = 0;
    const auto summary = io::histogram_files(*engine, paths, request, [&](io::FileHistogram& f) {
        ASSERT_TRUE(f.result) << f.path << ": " << f.error;
        const auto& r = f.result->channels[0].counts;
        const std::uint64_t v = (f.index) % 251;
        ASSERT_EQ(r[v], 6u) << f.path;  // every pixel's R is the file's own value
        r_sum += v;
        ++seen;
    });
    const long growth_mib = (status_kib("VmHWM") - before) / 1024;
    EXPECT_EQ(seen, kFiles);
    EXPECT_EQ(r_sum, want_r_sum);
    ASSERT_EQ(summary.sums.size(), 1u);
    EXPECT_EQ(summary.counted, kFiles);
    // Every file's six pixels: R holds i % 251 six times, G values 0..5 once per file.
    for (std::uint32_t k = 0; k < 6; ++k) EXPECT_EQ(summary.sums[0].channels[1].counts[k], kFiles);
    EXPECT_EQ(summary.sums[0].channels[2].counts[200], 6u * kFiles);
    EXPECT_LT(growth_mib, 48) << "peak memory grew by " << growth_mib << " MiB over " << kFiles << " files";
    std::printf("[ info ] %u files: peak memory %ld MiB above the start\n", kFiles, growth_mib);
    fs::remove_all(dir);
}

// The pipeline's pixel buffers (src/io/pixel_pool.hpp): each is lent to one image at a time and
// lent again once that image is gone; one too large to keep is the image's own.
TEST(PixelPool, LendsEachBufferToOneImageAtATime) {
    io::PixelPool pool;
    auto a = pool.allocate(1000), b = pool.allocate(1000);
    ASSERT_NE(a.get(), b.get());
    std::memset(a.get(), 1, 1000);
    std::memset(b.get(), 2, 1000);
    EXPECT_EQ(a[999], std::byte{1});  // b did not overlap a
    std::byte* const first = a.get();
    a.reset();
    auto c = pool.allocate(500);  // the free buffer fits
    EXPECT_EQ(c.get(), first);
    auto d = pool.allocate(4000);  // none is free: a new one
    EXPECT_NE(d.get(), b.get());
    EXPECT_NE(d.get(), c.get());
    b.reset();
    auto e = pool.allocate(3000);  // the free buffer is too small: it grows
    std::memset(e.get(), 3, 3000);
    std::memset(c.get(), 4, 500);
    std::memset(d.get(), 5, 4000);
    EXPECT_EQ(e[2999], std::byte{3});
    EXPECT_EQ(e[0], std::byte{3});
    EXPECT_EQ(c.get_deleter().lender, &pool);
    const auto huge = pool.allocate(io::kReusedPixelBytes + 1);
    EXPECT_EQ(huge.get_deleter().lender, nullptr);  // freed with the image, not kept
}

}  // namespace
}  // namespace imghist::cli_test
