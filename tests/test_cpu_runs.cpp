// The cpu backend's runs of equal pixels (src/backends/cpu/cpu_kernel.hpp: uniform_run,
// uniform_run3, uniform_run_wide), which count a whole run of one repeated pixel by one add per
// channel: against the reference backend, bit for bit, on images made to fool them. Each image is
// one constant pixel with one byte changed in most runs, at every position in the run (first
// pixel, last pixel, the middle, and every other) and every byte of the pixel (alpha too,
// which the run check may ignore only where alpha is not counted), by a flip that walks
// through the byte's bits (for floats: sign bits, so +0 against -0, and NaN
// payloads). Widths are not a multiple of any run, so runs also start mid-row. Every image is
// counted at each instruction set the CPU has (the fused luminance loop's steps of equal values
// are 32 pixels with AVX2, 64 with AVX-512).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>
#include <string>

#include "core/cpu_isa.hpp"
#include "histogram_asserts.hpp"
#include "imghist/imghist.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

// A constant image whose run r (of kRunPixels pixels, counted from each row's start) has one
// byte of one pixel flipped, except every fifth run, which stays uniform.
testing::TestImage almost_uniform(PixelFormat format, std::uint32_t width, std::uint32_t height,
                                  std::uint32_t run_pixels, const std::byte* pixel) {
    testing::TestImage img = testing::make_image(format, width, height, testing::Pattern::constant, 1, 8);
    const std::size_t pixel_bytes = format_info(format).pixel_bytes();
    // Flipped runs f = 0, 1, ... take every (position, byte) pair in turn, so that every byte of
    // a run is flipped somewhere (positions and bytes derived from one counter by different
    // moduli left some pairs out: a run check blind to pixel 1's first bytes passed).
    std::uint32_t r = 0, f = 0;
    for (std::uint32_t y = 0; y < height; ++y) {
        auto* row = const_cast<std::byte*>(img.view.row(y));
        for (std::uint32_t x = 0; x < width; ++x) std::memcpy(row + x * pixel_bytes, pixel, pixel_bytes);
        for (std::uint32_t start = 0; start < width; start += run_pixels, ++r) {
            if (r % 5 == 0) continue;
            const std::uint32_t x = std::min(width - 1, start + f % run_pixels);
            const std::size_t byte = (f / run_pixels) % pixel_bytes;
            row[x * pixel_bytes + byte] ^= std::byte(1u << ((f + f / (run_pixels * pixel_bytes)) % 8));
            ++f;
        }
    }
    return img;
}

class CpuRuns : public ::testing::TestWithParam<PixelFormat> {};

TEST_P(CpuRuns, AlmostUniformRunsCountLikeTheReference) {
    const PixelFormat format = GetParam();
    const FormatInfo& fi = format_info(format);
    auto cpu = create_engine("cpu");
    auto reference = create_engine("reference");
    // Pixels whose samples sit inside the default bins (and, for floats, one that is 0: the
    // low clipping extreme, whose sign flip makes -0).
    std::byte pixel[16]{};
    const auto fill = [&](double value) {
        for (int c = 0; c < fi.channels; ++c) {
            std::byte* s = pixel + std::size_t(c) * std::size_t(fi.bytes_per_sample);
            const double v = value + 0.1 * c;
            switch (fi.sample) {
                case SampleType::u8: *reinterpret_cast<std::uint8_t*>(s) = std::uint8_t(v * 255); break;
                case SampleType::u16: {
                    const auto x = std::uint16_t(v * 65535);
                    std::memcpy(s, &x, 2);
                    break;
                }
                case SampleType::f16: {
                    const std::uint16_t x = testing::float_to_half(float(v));
                    std::memcpy(s, &x, 2);
                    break;
                }
                case SampleType::f32: {
                    const auto x = float(v);
                    std::memcpy(s, &x, 4);
                    break;
                }
            }
        }
    };
    for (const double value : {0.0, 0.37}) {
        fill(value);
        // Runs: 16 pixels, or 64 bytes of 8-bit pixels of 1, 2, 4 or 8 bytes.
        for (const std::uint32_t run : {16u, 64u}) {
            const auto img = almost_uniform(format, 16 * 37 + 5, 29, run, pixel);
            for (const Mode mode : {Mode::all, Mode::rgb, Mode::luma})
                for (const bool alpha : {false, true}) {
                    Request request;
                    request.mode = mode;
                    request.count_alpha = alpha;
                    const std::string what = std::string(fi.name) + ", value " + std::to_string(value) + ", run " +
                                             std::to_string(run) + ", mode " + std::to_string(int(mode)) +
                                             (alpha ? ", alpha" : "");
                    const Result expected = reference->compute(img.view, request);
                    for (const cpu::Isa isa : {cpu::Isa::scalar, cpu::Isa::avx2, cpu::Isa::avx512}) {
                        cpu::force_isa(isa);  // capped at what the CPU has
                        testing::expect_same_histograms(cpu->compute(img.view, request), expected,
                                                        what + ", " + std::string(cpu::isa_name(cpu::isa())));
                    }
                    cpu::force_isa(std::nullopt);
                }
        }
    }
}

// The engine's workers take chunks of the image from a shared counter (cpu_backend.cpp): on an
// image of about 20 chunks per worker, with an odd width (chunks start and end mid-row and
// mid-step), every thread count counts every pixel once, like the reference.
TEST(CpuChunks, EveryThreadCountCountsEveryPixelOnce) {
    auto reference = create_engine("reference");
    for (const PixelFormat format : {PixelFormat::rgba8, PixelFormat::rgb8, PixelFormat::rgba_f16}) {
        const auto img = testing::make_image(format, 1283, 1031, testing::Pattern::natural, 77, 24);
        for (const Mode mode : {Mode::luma, Mode::all}) {
            Request request;
            request.mode = mode;
            const Result expected = reference->compute(img.view, request);
            for (const unsigned threads : {1u, 2u, 3u, 7u}) {
                EngineOptions options;
                options.threads = threads;
                const std::string what = std::string(format_info(format).name) + ", mode " +
                                         std::to_string(int(mode)) + ", " + std::to_string(threads) + " threads";
                testing::expect_same_histograms(create_engine("cpu", options)->compute(img.view, request), expected,
                                                what);
            }
        }
    }
}

// Float samples whose table entry holds more than one code (cpu_tables.cpp): 0 beside the
// positive denormals (the low clipping extreme against bin 0), 1 beside the values above it,
// -0 beside the negative denormals, and values on and beside the edges of 1000 bins over
// [0, 1) (second-level tables, and entries left to be classified one by one: such a value is
// kept with its code between samples). Each in runs of one value (counted with one add), alone,
// and alternating with its neighbour so that the kept code must change; with default bins, 1000
// bins, 1000 clamped bins and luminance. Against the reference.
TEST(CpuFloatTables, ValuesBesideCodeBoundariesInRunsAndAlone) {
    auto reference = create_engine("reference");
    std::vector<float> values = {0.0f, -0.0f, 1e-40f, -1e-40f, 1.0f, std::nextafter(1.0f, 2.0f), 0.5f, 0.37f,
                                 -1.0f, std::nextafter(-1.0f, 0.0f), -0.25f, -0.3f, 1.25f, std::nextafter(1.25f, 0.0f),
                                 std::numeric_limits<float>::quiet_NaN(), INFINITY, -INFINITY, 3e38f, std::nextafter(2.0f, 0.0f)};
    for (const int k : {1, 37, 370, 999}) {  // edges k / 1000 and their neighbours
        const float e = float(k) / 1000.0f;
        values.insert(values.end(), {e, std::nextafter(e, 0.0f), std::nextafter(e, 1.0f)});
    }
    const std::vector<double> ev = ev_edges(-8, 0, 32);
    for (const int k : {5, 77, 200, 255}) {  // EV edges (rounded once to fp32) and their neighbours
        const float e = float(ev[std::size_t(k)]);
        values.insert(values.end(), {e, std::nextafter(e, 0.0f), std::nextafter(e, 1.0f)});
    }
    constexpr std::uint32_t kWidth = 16 * 9 + 3;
    std::vector<float> pixels;
    std::uint32_t rows = 0;
    const auto add_row = [&](auto sample_of) {
        for (std::uint32_t x = 0; x < kWidth; ++x)
            for (std::uint32_t c = 0; c < 4; ++c) pixels.push_back(sample_of(x, c));
        ++rows;
    };
    for (std::size_t i = 0; i < values.size(); ++i) {
        const float v = values[i], other = values[(i + 1) % values.size()];
        add_row([&](std::uint32_t, std::uint32_t) { return v; });                           // runs of one pixel
        add_row([&](std::uint32_t x, std::uint32_t c) { return (x + c) % 3 == 0 ? v : other; });  // alone
        add_row([&](std::uint32_t x, std::uint32_t c) { return (x / 16 + c) % 2 == 0 ? v : other; });  // runs in turn
    }
    const ImageView view = ImageView::packed(pixels.data(), kWidth, rows, PixelFormat::rgba_f32);
    std::vector<std::pair<std::string, Request>> requests;
    Request r;
    r.mode = Mode::rgb;
    r.count_alpha = true;
    requests.emplace_back("default bins", r);
    r.bins.bins = 1000;
    r.bins.range = {{0.0, 1.0}};
    requests.emplace_back("1000 bins", r);
    r.bins.clamp = true;
    requests.emplace_back("1000 bins, clamp", r);
    r.bins.range = {{-0.25, 1.25}};
    requests.emplace_back("1000 bins over [-0.25, 1.25), clamp", r);  // 0 and 1 inside: clipping extremes
    r.bins.clamp = false;
    r.bins.bins = 300;
    r.bins.range = {{-1.0, 0.0}};
    requests.emplace_back("300 bins over [-1, 0)", r);  // -0 is 0: above, not the last bin
    r.bins.bins = 100;
    r.bins.range = {{0.0, 1.0}};
    requests.emplace_back("100 bins over [0, 1)", r);  // within the small pitch
    r.bins.bins = 4097;
    r.bins.range = {{0.0, 2.0}};
    requests.emplace_back("4097 bins over [0, 2)", r);
    r.bins.bins.reset();
    r.bins.range.reset();
    r.bins.edges = ev_edges(-8, 0, 32);  // within the small pitch, edges inside many blocks
    requests.emplace_back("256 EV bins", r);
    r.bins.edges.clear();
    r.mode = Mode::luma;
    r.bins.bins = 1000;
    r.bins.range = {{0.0, 1.0}};
    requests.emplace_back("luminance, 1000 bins", r);
    // Uniform bins with edges inside many float blocks are coded in SIMD (cpu_vector_bins.hpp)
    // at AVX2 and up, by the tables below: every level this CPU has.
    for (const cpu::Isa isa : cpu::kAllIsas) {
        if (isa > cpu::best_isa()) continue;
        cpu::force_isa(isa);
        for (const auto& [what, request] : requests)
            for (const unsigned threads : {1u, 2u}) {
                EngineOptions options;
                options.threads = threads;
                testing::expect_same_histograms(create_engine("cpu", options)->compute(view, request),
                                                reference->compute(view, request),
                                                what + ", " + std::to_string(threads) + " threads, " + cpu::isa_name(isa));
            }
    }
    cpu::force_isa(std::nullopt);
}

INSTANTIATE_TEST_SUITE_P(AllFormats, CpuRuns, ::testing::ValuesIn(all_pixel_formats),
                         [](const ::testing::TestParamInfo<PixelFormat>& info) {
                             return std::string(format_info(info.param).name);
                         });

}  // namespace
}  // namespace imghist
