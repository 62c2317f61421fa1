// Google Benchmark suite for the `cpu` backend (and `reference`, timed a few times for context),
// on 8K (7680x4320) images, plus the call overhead on a 256x256 image (call/...), the C++ side of
// bench/python/bench_python.py.
//   build/bench/imghist_bench --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bare_count.hpp"
#include "bench_support.hpp"
#include "imghist/imghist.hpp"

namespace {

using imghist::Mode;
using imghist::PixelFormat;
using imghist::Request;
using imghist::testing::Pattern;

void run(benchmark::State& state, const char* backend, PixelFormat format, Pattern pattern, Request request,
         unsigned threads, std::uint32_t width = imghist::bench::k8KWidth,
         std::uint32_t height = imghist::bench::k8KHeight) {
    const auto& img = imghist::bench::image(format, pattern, width, height);
    imghist::EngineOptions options;
    options.threads = threads;
    auto engine = imghist::create_engine(backend, options);
    state.SetLabel(std::string(engine->device_name()));
    for (auto _ : state) {
        imghist::Result r = engine->compute(img.view, request);
        benchmark::DoNotOptimize(r.channels.data());
    }
    state.SetItemsProcessed(std::int64_t(state.iterations()) * std::int64_t(img.view.pixel_count()));
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(img.view.height) *
                            std::int64_t(img.view.row_bytes()));
}

// The bare work of R, G, B (Ch = 3) or R, G, B, A (Ch = 4) counting on one core, in the 8-bit
// kernels' order for random data (bare_count.hpp; imghist_compare also times the other), for
// comparison with cpu-1thread/.../rgb and .../rgba: the increments alone. One core commits about
// one increment to scattered cache lines per cycle, so on random data the kernels can go below
// this only by counting runs of equal pixels with one add.
template <int Ch, bool Stores>
void bare_count(benchmark::State& state, Pattern pattern) {
    const auto& img = imghist::bench::image(PixelFormat::rgba8, pattern);
    alignas(64) static imghist::bench::BareCounts<Ch> counts;
    for (auto _ : state) {
        imghist::bench::bare_count_pass<Ch, Stores>(img.view, counts);
        benchmark::DoNotOptimize(counts);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(std::int64_t(state.iterations()) * std::int64_t(img.view.pixel_count()));
}

// A fresh engine per call: what the Python one-shot imghist.histogram(..., backend="cpu") did before it kept
// each thread's engine (issue 13); the upper bound of a call that opens its engine.
void run_one_shot(benchmark::State& state, std::uint32_t side, Request request) {
    const auto& img = imghist::bench::image(PixelFormat::rgba8, Pattern::random, side, side);
    for (auto _ : state) {
        imghist::Result r = imghist::create_engine("cpu")->compute(img.view, request);
        benchmark::DoNotOptimize(r.channels.data());
    }
}

Request with_mode(Mode m) {
    Request r;
    r.mode = m;
    return r;
}

struct ModeName {
    const char* name;
    Mode mode;
};
constexpr ModeName kModes[] = {{"rgb", Mode::rgb}, {"luma", Mode::luma}, {"all", Mode::all}};

void add(const std::string& name, const char* backend, PixelFormat f, Pattern p, Request r, bool slow,
         unsigned threads = 0) {
    auto* b = benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) { run(s, backend, f, p, r, threads); });
    b->Unit(benchmark::kMillisecond)->UseRealTime();
    if (slow) b->Iterations(3);
}

// 8-bit pixels of four and of three bytes, on the default threads and on one worker (what one
// core does, without the second vCPU's noise: docs/performance.md).
void register_8bit() {
    for (const Pattern p : imghist::bench::kBenchPatterns)
        for (const auto& m : kModes)
            add(std::string("cpu/rgba8/") + imghist::testing::pattern_name(p) + "/" + m.name, "cpu", PixelFormat::rgba8, p,
                with_mode(m.mode), false);
    for (const Pattern p : imghist::bench::kBenchPatterns)
        for (const auto& m : kModes)
            add(std::string("cpu-1thread/rgba8/") + imghist::testing::pattern_name(p) + "/" + m.name, "cpu",
                PixelFormat::rgba8, p, with_mode(m.mode), false, 1);
    // R, G, B and A on one worker: the case of imghist_compare's IPP rows (issue 14).
    for (const Pattern p : imghist::bench::kBenchPatterns) {
        Request rgba = with_mode(Mode::rgb);
        rgba.count_alpha = true;
        add(std::string("cpu-1thread/rgba8/") + imghist::testing::pattern_name(p) + "/rgba", "cpu", PixelFormat::rgba8,
            p, rgba, false, 1);
    }
    // Float and half on one worker, default bins: R, G, B and A (imghist_compare's floor rows),
    // and luminance alone (its SIMD loops; IMGHIST_CPU_ISA=avx2 or lower times the others).
    for (const PixelFormat f : {PixelFormat::rgb_f32, PixelFormat::rgba_f32, PixelFormat::rgb_f16, PixelFormat::rgba_f16})
        for (const Pattern p : imghist::bench::kBenchPatterns) {
            const std::string name =
                std::string("cpu-1thread/") + std::string(format_info(f).name) + "/" + imghist::testing::pattern_name(p);
            Request rgba = with_mode(Mode::rgb);
            rgba.count_alpha = true;
            if (format_info(f).alpha >= 0) add(name + "/rgba", "cpu", f, p, rgba, false, 1);
            add(name + "/luma", "cpu", f, p, with_mode(Mode::luma), false, 1);
        }
    // 3-byte pixels (what JPEGs decode to).
    for (const unsigned threads : {0u, 1u})
        for (const Pattern p : imghist::bench::kBenchPatterns)
            for (const auto& m : kModes)
                add(std::string(threads == 1 ? "cpu-1thread" : "cpu") + "/rgb8/" + imghist::testing::pattern_name(p) +
                        "/" + m.name,
                    "cpu", PixelFormat::rgb8, p, with_mode(m.mode), false, threads);
}

void register_bare() {
    for (const Pattern p : imghist::bench::kBenchPatterns) {
        const std::string name = std::string("bare-1thread/rgba8/") + imghist::testing::pattern_name(p);
        const auto bare = [&](const char* suffix, void (*fn)(benchmark::State&, Pattern)) {
            benchmark::RegisterBenchmark((name + suffix).c_str(), [p, fn](benchmark::State& s) { fn(s, p); })
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
        };
        bare("/rgb", &bare_count<3, false>);
        bare("/rgb-stores", &bare_count<3, true>);
        bare("/rgba", &bare_count<4, false>);
        bare("/rgba-stores", &bare_count<4, true>);
    }
}

void register_other_formats() {
    for (const auto& m : kModes)
        add(std::string("cpu/rgba_f32/random/") + m.name, "cpu", PixelFormat::rgba_f32, Pattern::random,
            with_mode(m.mode), false);
    add("cpu/rgba_f32/natural/rgb", "cpu", PixelFormat::rgba_f32, Pattern::natural, with_mode(Mode::rgb), false);
    Request custom = with_mode(Mode::rgb);
    custom.bins.bins = 1000;
    custom.bins.range = {{-0.25, 1.25}};
    add("cpu/rgba_f32/random/rgb_1000bins", "cpu", PixelFormat::rgba_f32, Pattern::random, custom, false);
    custom.bins.range = {{0.0, 1.0}};
    add("cpu-1thread/rgba_f32/random/rgb_1000bins_0_1", "cpu", PixelFormat::rgba_f32, Pattern::random, custom, false, 1);
    add("cpu-1thread/rgba_f32/natural/rgb_1000bins_0_1", "cpu", PixelFormat::rgba_f32, Pattern::natural, custom, false, 1);
    custom.bins.bins = 100;  // a count that is no power of two, within the small pitch
    add("cpu-1thread/rgba_f32/random/rgb_100bins_0_1", "cpu", PixelFormat::rgba_f32, Pattern::random, custom, false, 1);
    // Exact 0 and 1 in every sample (black; white clipped at 1), default bins: the top-16 blocks
    // of 0 and 1 hold other codes too (the denormals beside 0, the values past 1), so their
    // samples are classified one by one (cpu_counters.hpp, classify_direct).
    for (const auto& [name, value] : {std::pair{"black", 0.0f}, std::pair{"white", 1.0f}}) {
        auto* b = benchmark::RegisterBenchmark(
            (std::string("cpu-1thread/rgba_f32/") + name + "/rgba").c_str(), [value](benchmark::State& state) {
                const std::vector<float> pixels(std::size_t(imghist::bench::k8KWidth) * imghist::bench::k8KHeight * 4, value);
                const auto view = imghist::ImageView::packed(pixels.data(), imghist::bench::k8KWidth,
                                                            imghist::bench::k8KHeight, PixelFormat::rgba_f32);
                Request rgba = with_mode(Mode::rgb);
                rgba.count_alpha = true;
                auto engine = imghist::create_engine("cpu", {.threads = 1});
                for (auto _ : state) {
                    imghist::Result r = engine->compute(view, rgba);
                    benchmark::DoNotOptimize(r.channels.data());
                }
            });
        b->Unit(benchmark::kMillisecond)->UseRealTime();
    }
    add("cpu/rgba16/random/rgb", "cpu", PixelFormat::rgba16, Pattern::random, with_mode(Mode::rgb), false);
    add("cpu/rgba_f16/random/rgb", "cpu", PixelFormat::rgba_f16, Pattern::random, with_mode(Mode::rgb), false);
    add("cpu/gray8/random", "cpu", PixelFormat::gray8, Pattern::random, Request{}, false);
}

// Call overhead (bench/python/bench_python.py runs these): RGBA8 R,G,B through a kept engine,
// and through a fresh engine per call; 256x256 (the case) and 1x1 (the fixed cost).
void register_calls() {
    for (const std::uint32_t side : {256u, 1u}) {
        const std::string size = std::to_string(side) + "x" + std::to_string(side);
        benchmark::RegisterBenchmark(("call/cpu/rgba8/" + size + "/random/rgb").c_str(), [side](benchmark::State& s) {
            run(s, "cpu", PixelFormat::rgba8, Pattern::random, with_mode(Mode::rgb), 0, side, side);
        })->Unit(benchmark::kMicrosecond)->UseRealTime();
        benchmark::RegisterBenchmark(("call-oneshot/cpu/rgba8/" + size + "/random/rgb").c_str(),
                                     [side](benchmark::State& s) { run_one_shot(s, side, with_mode(Mode::rgb)); })
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
    }
}

// Issue 17: a roi and tiles against the same request over the whole image, on `cpu` and on
// every GPU backend available here (host images: what Engine::compute costs them, upload
// included). roi-whole (a roi of every pixel) is the cost of the roi path itself; roi-half
// counts the middle half of the rows and columns (a quarter of the pixels); tiles-8x8 and
// tiles-32x32 count every pixel once into 64 and 1024 tile histograms.
void register_regions() {
    using imghist::Region;
    constexpr std::uint32_t w = imghist::bench::k8KWidth, h = imghist::bench::k8KHeight;
    for (const char* backend : {"cpu", "opencl", "vulkan", "cuda"}) {
        const imghist::Backend* b = imghist::find_backend(backend);
        if (b == nullptr || !b->available()) continue;
        for (const PixelFormat f : {PixelFormat::rgba8, PixelFormat::rgba_f32}) {
            const std::string base = std::string("regions/") + backend + "/" + std::string(format_info(f).name) +
                                     "/natural/rgb/";
            Request r = with_mode(Mode::rgb);
            add(base + "whole", backend, f, Pattern::natural, r, false);
            r.roi = Region{0, 0, w, h};
            add(base + "roi-whole", backend, f, Pattern::natural, r, false);
            r.roi = Region{w / 4, h / 4, w / 2, h / 2};
            add(base + "roi-half", backend, f, Pattern::natural, r, false);
            r.roi.reset();
            r.tiles = {8, 8};
            add(base + "tiles-8x8", backend, f, Pattern::natural, r, false);
            r.tiles = {32, 32};
            add(base + "tiles-32x32", backend, f, Pattern::natural, r, false);
        }
    }
}

// An 8K gray8 mask of bench_mask_bytes, built once.
const imghist::ImageView& bench_mask(const std::string& kind) {
    constexpr std::uint32_t w = imghist::bench::k8KWidth, h = imghist::bench::k8KHeight;
    static std::map<std::string, std::vector<std::uint8_t>> masks;
    static std::map<std::string, imghist::ImageView> views;
    if (!views.count(kind)) {
        std::vector<std::uint8_t>& m = masks[kind];
        m = imghist::bench::bench_mask_bytes(kind.c_str(), w, h);
        views[kind] = imghist::ImageView::packed(m.data(), w, h, PixelFormat::gray8);
    }
    return views[kind];
}

// Issue 17: a mask and an alpha threshold against the same request over the whole image, on
// `cpu` and every GPU backend here (host images). The goal: no more than reading the mask's
// bytes, which floor/read-mask measures (one pass summing the 8K mask, one thread).
void register_masks() {
    benchmark::RegisterBenchmark("floor/read-mask", [](benchmark::State& s) {
        const imghist::ImageView& m = bench_mask("all");
        const auto* bytes = static_cast<const std::uint64_t*>(m.data);
        for (auto _ : s) {
            std::uint64_t sum = 0;
            for (std::size_t i = 0; i < m.pixel_count() / 8; ++i) sum += bytes[i];
            benchmark::DoNotOptimize(sum);
        }
    })->Unit(benchmark::kMillisecond)->UseRealTime();
    for (const char* backend : {"cpu", "opencl", "vulkan", "cuda"}) {
        const imghist::Backend* b = imghist::find_backend(backend);
        if (b == nullptr || !b->available()) continue;
        for (const PixelFormat f : {PixelFormat::rgba8, PixelFormat::rgba_f32}) {
            const std::string base = std::string("masks/") + backend + "/" + std::string(format_info(f).name) +
                                     "/natural/rgb/";
            Request r = with_mode(Mode::rgb);
            add(base + "whole", backend, f, Pattern::natural, r, false);
            for (const char* kind : {"all", "disc", "noise"}) {
                r.mask = bench_mask(kind);
                add(base + "mask-" + kind, backend, f, Pattern::natural, r, false);
            }
            // With 32 x 32 tiles: the GPU backends count the tiles' selected pixels in one pass
            // (cells, src/core/engine.cpp); the request without the mask is regions/*/tiles-32x32.
            r.mask = bench_mask("disc");
            r.tiles = {32, 32};
            add(base + "mask-disc-tiles-32x32", backend, f, Pattern::natural, r, false);
            r.tiles = {};
            r.mask.reset();
            // The natural pattern's alpha is a gradient: about half of the pixels pass, in runs.
            r.alpha_threshold = f == PixelFormat::rgba8 ? 127.5 : 0.5;
            add(base + "alpha-above-half", backend, f, Pattern::natural, r, false);
        }
    }
}

// Issue 17: the value extremes' host pass (Request::value_extremes, on by default in the CLI)
// against the same count without it, half and float 8K images, on `cpu`.
void register_value_extremes() {
    for (const PixelFormat f : {PixelFormat::rgba_f16, PixelFormat::rgba_f32}) {
        const std::string base = "extremes/cpu/" + std::string(format_info(f).name) + "/natural/all/";
        Request r = with_mode(Mode::all);
        add(base + "off", "cpu", f, Pattern::natural, r, false);
        r.value_extremes = true;
        add(base + "on", "cpu", f, Pattern::natural, r, false);
    }
}

// Issue 17: edge bins against 256 uniform bins over [0, 1) (or [0, 256) for 8-bit) on the same
// image: the same 257 edges given as edges (the edge search alone), and 256 EV bins; on `cpu`
// and every GPU backend here (host images, upload included: bench/cuda's --edges table has
// device-resident CUDA times).
void register_edges() {
    for (const char* backend : {"cpu", "opencl", "vulkan", "cuda"}) {
        const imghist::Backend* b = imghist::find_backend(backend);
        if (b == nullptr || !b->available()) continue;
        for (const PixelFormat f : {PixelFormat::rgba8, PixelFormat::rgba_f32}) {
            const bool eight = f == PixelFormat::rgba8;
            const std::string base = std::string("edges/") + backend + "/" + std::string(format_info(f).name) +
                                     "/natural/rgb/";
            Request r = with_mode(Mode::rgb);
            r.bins.bins = 256;
            r.bins.range = {{0.0, eight ? 256.0 : 1.0}};
            add(base + "uniform-256", backend, f, Pattern::natural, r, false);
            r.bins = {};
            for (int k = 0; k <= 256; ++k) r.bins.edges.push_back(eight ? k : k / 256.0);
            add(base + "edges-257", backend, f, Pattern::natural, r, false);
            r.bins.edges = imghist::ev_edges(eight ? 0 : -8, eight ? 8 : 0, 32);
            add(base + "ev-256", backend, f, Pattern::natural, r, false);
            if (!eight) {  // auto-exposure's request: luminance alone in EV bins, of floats and halves
                for (const PixelFormat lf : {PixelFormat::rgba_f32, PixelFormat::rgba_f16}) {
                    const std::string luma_base =
                        std::string("edges/") + backend + "/" + std::string(format_info(lf).name) + "/natural/luma/";
                    Request y = with_mode(Mode::luma);
                    y.bins.edges = imghist::ev_edges(-8, 0, 32);
                    add(luma_base + "ev-256", backend, lf, Pattern::natural, y, false);
                    y.bins = {};
                    y.bins.bins = 256;
                    y.bins.range = {{0.0, 1.0}};
                    add(luma_base + "uniform-256", backend, lf, Pattern::natural, y, false);
                }
            }
        }
    }
}

void register_all() {
    register_8bit();
    register_regions();
    register_masks();
    register_value_extremes();
    register_edges();
    register_bare();
    register_other_formats();
    register_calls();
    // The oracle, for context: plain single-threaded code.
    add("reference/rgba8/random/rgb", "reference", PixelFormat::rgba8, Pattern::random, with_mode(Mode::rgb), true);
    add("reference/rgba_f32/random/rgb", "reference", PixelFormat::rgba_f32, Pattern::random,
        with_mode(Mode::rgb), true);
}

}  // namespace

int main(int argc, char** argv) {
    register_all();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
