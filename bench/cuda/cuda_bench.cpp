// The CUDA backend's speed, with the yardsticks measured in the same run:
//   floor  a kernel that reads every byte of the image once (16-byte loads) and does nothing
//   CUB    cub::DeviceHistogram::MultiHistogramEven<4,3> (R, G, B of RGBA, 256 bins), whose
//          result also checks imghist's counts
//   H2D    cudaMemcpy bandwidth from pinned and from pageable host memory
// Every time is the median of many runs after warm-up, from a CUDA event recorded before the
// call to one recorded after it (so launch overhead counts: "launch to finished result").
// Images are generated on the device; host copies come from cudaMemcpy.
//
// (Kernels and CUB live in bench_kernels.cu; host-resident images and the --tune variants in
// cuda_bench_host.cpp.)
//
// Usage: imghist_cuda_bench [--out FILE] [--tune] [--quick] [--sync | --host | --host-sweep | --edges | --masks | --tiles | --stats]
//   --edges  only the edge-bin table (edge bins against uniform bins, issue 17)
//   --masks  only the device-mask table (masks and alpha thresholds against the whole image)
//   --tiles  only the device tile-grid table (one launch for every tile, against one call per tile)
//   --stats  only the sample statistics table (8K device images, against the histogram alone)
//   --tune   also time variants of the kernel's shape (IMGHIST_CUDA_TUNE) on a few inputs
//   --host   only the host-resident table (8K, 16384^2 RGBA8 through engine->compute(), against
//            the staged copy alone, with single calls timed before and after the bounds)
//   --host-sweep  only host images (8K, 16384^2 RGBA8) through engine->compute() under a grid of
//            staging tunings (copy_threads, stream_stores, stages, chunk_mb), each against the
//            pinned and pageable H2D bandwidth of this run, counts checked against the cpu
//            backend; one line per variant, then the best, and the best with ramp=1
//            (cuda_bench_host.cpp); --quick: 5 runs
//   --sync   only the synchronous calls bench/python/bench_cuda.py compares its Python times with:
//            compute_device -> Result on the host, host clock, RGBA8 1920x1080 and 7680x4320
//            (random, natural, constant), modes rgb and all, one line per case:
//              sync rgba8 1920x1080 random rgb: 21.30 us
//            then exits (no other table)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_bench.hpp"
#include "result_checks.hpp"

using namespace imghist_bench;

namespace {

void rgba8_table(Bench& b, imghist::cuda::Engine& engine, const Options& o) {
    const imghist::Request rgb = rgb_request();
    const Size sizes[] = {{"1080p", 1920, 1080, 400}, {"4K", 3840, 2160, 200}, {"8K", 7680, 4320, 100},
                          {"16384^2", 16384, 16384, o.quick ? 10 : 30}};
    line("RGBA8 -> R, G, B (256 bins each)");
    line("%-8s %-17s %9s %9s %9s %9s %8s %8s", "image", "data", "MB", "floor us", "CUB us", "imghist", "%floor", "x CUB");
    for (const Size& s : sizes) {
        const uint64_t px = uint64_t(s.w) * s.h;
        for (int d = 0; d < 4; ++d) {
            CK(generate_rgba8(b.image, s.w, s.h, d, b.stream));
            CK(cudaStreamSynchronize(b.stream));
            const auto view = on_device(b.image, s.w, s.h, imghist::PixelFormat::rgba8);
            const double fl = b.floor_us(b.image, px * 4, s.runs);
            const double cub = b.cub_us(cub_rgba8, b.image, px, s.runs);
            const double ih = b.imghist_us(engine, view, rgb, s.runs);
            b.check_against_cub(engine, view, (std::string(s.name) + " " + dist_name(d)).c_str());
            line("%-8s %-17s %9.1f %9.1f %9.1f %9.1f %7.0f%% %7.2fx", s.name, dist_name(d), px * 4 / 1e6, fl, cub, ih,
                 100.0 * fl / ih, cub / ih);
        }
    }
}

// 8K RGBA8 luminance and R,G,B,Y, then RGBA f32 (against CUB) and f16 R,G,B.
void other_formats_table(Bench& b, imghist::cuda::Engine& engine) {
    const imghist::Request rgb = rgb_request();
    line("%s", "");
    line("8K, other formats and modes");
    line("%-26s %-9s %9s %9s %9s %9s %8s %8s", "input", "data", "MB", "floor us", "CUB us", "imghist", "%floor", "x CUB");
    const uint32_t w = 7680, h = 4320;
    const uint64_t px = uint64_t(w) * h;
    for (int d : {kRandom, kNatural}) {
        CK(generate_rgba8(b.image, w, h, d, b.stream));
        CK(cudaStreamSynchronize(b.stream));
        const auto view = on_device(b.image, w, h, imghist::PixelFormat::rgba8);
        const double fl = b.floor_us(b.image, px * 4, 100);
        imghist::Request luma;
        luma.mode = imghist::Mode::luma;
        const double ih = b.imghist_us(engine, view, luma, 100);
        line("%-26s %-9s %9.1f %9.1f %9s %9.1f %7.0f%% %8s", "RGBA8 -> Y (luma)", dist_name(d), px * 4 / 1e6, fl, "-", ih,
             100.0 * fl / ih, "-");
        const double all = b.imghist_us(engine, view, imghist::Request{}, 100);
        line("%-26s %-9s %9.1f %9.1f %9s %9.1f %7.0f%% %8s", "RGBA8 -> R,G,B,Y (all)", dist_name(d), px * 4 / 1e6, fl, "-",
             all, 100.0 * fl / all, "-");
    }
    for (int d : {kRandom, kNatural}) {
        CK(generate_rgba_f32(b.image, w, h, d, b.stream));
        CK(cudaStreamSynchronize(b.stream));
        auto view = on_device(b.image, w, h, imghist::PixelFormat::rgba_f32);
        double fl = b.floor_us(b.image, px * 16, 50);
        const double cub = b.cub_us(cub_rgba_f32, b.image, px, 50);
        double ih = b.imghist_us(engine, view, rgb, 50);
        line("%-26s %-9s %9.1f %9.1f %9.1f %9.1f %7.0f%% %7.2fx", "RGBA f32 -> R,G,B (257)", dist_name(d), px * 16 / 1e6,
             fl, cub, ih, 100.0 * fl / ih, cub / ih);
        CK(generate_rgba_f16(b.image, w, h, d, b.stream));
        CK(cudaStreamSynchronize(b.stream));
        view = on_device(b.image, w, h, imghist::PixelFormat::rgba_f16);
        fl = b.floor_us(b.image, px * 8, 50);
        ih = b.imghist_us(engine, view, rgb, 50);
        line("%-26s %-9s %9.1f %9.1f %9s %9.1f %7.0f%% %8s", "RGBA f16 -> R,G,B (257)", dist_name(d), px * 8 / 1e6, fl, "-",
             ih, 100.0 * fl / ih, "-");
    }
    line("(CUB on f32: 256 even bins over [0, 1], not the 257-bin closed rule; shown for scale)");
}

// Issue 17: edge bins against uniform bins on the same 8K image (device-resident), with the
// read floor: 256 uniform bins over [0, 1) and the same 257 edges given as edges (the edge search
// alone), 256 and 4096 EV bins; R,G,B of RGBA f32, f16 and 8-bit, and the luminance of f32.
// Float edge bins are timed again in the same run without the code window (code_window=0 on
// top of `base_tune`: the whole table in shared memory), and both results must agree.
void edges_table(Bench& b, imghist::cuda::Engine& engine, const std::string& base_tune) {
    line("%s", "");
    line("8K, edge bins against uniform bins (device-resident)");
    line("%-30s %-9s %9s %9s %8s %9s %12s", "input", "data", "floor us", "imghist", "%floor", "x uniform",
         "whole table");
    set_tune((base_tune.empty() ? std::string("code_window=0") : base_tune + ",code_window=0").c_str());
    auto whole_table = imghist::cuda::create_engine();
    set_tune(base_tune.c_str());
    const uint32_t w = 7680, h = 4320;
    const uint64_t px = uint64_t(w) * h;
    struct Variant {
        const char* name;
        imghist::Request request;
    };
    const auto variants = [](imghist::Mode mode) {
        std::vector<Variant> v(4);
        for (Variant& x : v) x.request.mode = mode;
        v[0].name = "256 uniform [0, 1)";
        v[0].request.bins.bins = 256;
        v[0].request.bins.range = {{0.0, 1.0}};
        v[1].name = "257 edges k/256";
        for (int k = 0; k <= 256; ++k) v[1].request.bins.edges.push_back(k / 256.0);
        v[2].name = "256 EV bins -8:0:32";
        v[2].request.bins.edges = imghist::ev_edges(-8, 0, 32);
        v[3].name = "4096 EV bins -12:4:256";
        v[3].request.bins.edges = imghist::ev_edges(-12, 4, 256);
        return v;
    };
    struct Input {
        const char* name;
        imghist::PixelFormat format;
        uint64_t bytes;
        imghist::Mode mode;
    };
    const Input inputs[] = {{"RGBA f32 R,G,B", imghist::PixelFormat::rgba_f32, px * 16, imghist::Mode::rgb},
                            {"RGBA f32 Y", imghist::PixelFormat::rgba_f32, px * 16, imghist::Mode::luma},
                            {"RGBA f16 R,G,B", imghist::PixelFormat::rgba_f16, px * 8, imghist::Mode::rgb},
                            {"RGBA8 R,G,B", imghist::PixelFormat::rgba8, px * 4, imghist::Mode::rgb}};
    for (const Input& in : inputs)
        for (int d : {kRandom, kNatural}) {
            if (in.format == imghist::PixelFormat::rgba_f32) CK(generate_rgba_f32(b.image, w, h, d, b.stream));
            else if (in.format == imghist::PixelFormat::rgba_f16) CK(generate_rgba_f16(b.image, w, h, d, b.stream));
            else CK(generate_rgba8(b.image, w, h, d, b.stream));
            CK(cudaStreamSynchronize(b.stream));
            const auto view = on_device(b.image, w, h, in.format);
            const double fl = b.floor_us(b.image, in.bytes, 50);
            double uniform = 0;
            for (const Variant& v : variants(in.mode)) {
                const double ih = b.imghist_us(engine, view, v.request, 50);
                if (uniform == 0) uniform = ih;
                const std::string label = std::string(in.name) + ", " + v.name;
                std::string whole = "-";
                if (in.format == imghist::PixelFormat::rgba_f32 && !v.request.bins.edges.empty()) {
                    whole = std::to_string(b.imghist_us(*whole_table, view, v.request, 50)).substr(0, 7) + " us";
                    const imghist::Result a = engine.compute_device(view, v.request, b.stream);
                    const imghist::Result z = whole_table->compute_device(view, v.request, b.stream);
                    for (std::size_t c = 0; c < a.channels.size(); ++c)
                        if (a.channels[c].counts != z.channels[c].counts || a.channels[c].below != z.channels[c].below ||
                            a.channels[c].above != z.channels[c].above) {
                            std::fprintf(stderr, "MISMATCH: %s %s with and without the code window\n", label.c_str(),
                                         dist_name(d));
                            std::exit(2);
                        }
                }
                line("%-30s %-9s %9.1f %9.1f %7.0f%% %8.2fx %12s", label.c_str(), dist_name(d), fl, ih, 100.0 * fl / ih,
                     ih / uniform, whole.c_str());
            }
        }
}

// Issue 17: masks and alpha thresholds on device images, against the same request over the
// whole image and against reading the mask's bytes (the goal's budget). compute_device returns
// the Result on the host in both, so both are host-clock medians of the synchronous call. Each
// selection's counts are checked against the cpu backend's count of the same pixels and mask
// (copied back); a mismatch ends the run with status 2.
void masks_table(Bench& b, imghist::cuda::Engine& engine) {
    const auto cpu = imghist::create_engine("cpu");
    line("%s", "");
    line("8K, device masks and alpha thresholds (device-resident; compute_device -> Result, host clock)");
    line("%-34s %9s %9s %9s", "input", "us", "x whole", "mask us");
    const uint32_t w = 7680, h = 4320;
    const uint64_t px = uint64_t(w) * h;
    // The masks of bench_cpu.cpp's masks/ benchmarks (bench_mask_bytes): every pixel, a centred disc, noise.
    void* mask = nullptr;
    CK(cudaMalloc(&mask, px));
    const double mask_floor = b.floor_us(mask, px, 50);
    for (const auto format : {imghist::PixelFormat::rgba8, imghist::PixelFormat::rgba_f32}) {
        const bool f32 = format == imghist::PixelFormat::rgba_f32;
        CK(f32 ? generate_rgba_f32(b.image, w, h, kNatural, b.stream) : generate_rgba8(b.image, w, h, kNatural, b.stream));
        CK(cudaStreamSynchronize(b.stream));
        const auto view = on_device(b.image, w, h, format);
        std::vector<unsigned char> host_pixels(px * (f32 ? 16 : 4));
        CK(cudaMemcpy(host_pixels.data(), b.image, host_pixels.size(), cudaMemcpyDeviceToHost));
        const auto host_view = imghist::ImageView::packed(host_pixels.data(), w, h, format);
        imghist::Request r = rgb_request();
        const auto time = [&](const imghist::Request& q, const imghist::Request& on_host) {
            const imghist::Result got = engine.compute_device(view, q, b.stream);
            const imghist::Result want = cpu->compute(host_view, on_host);
            if (got.counted_pixels != want.counted_pixels || !imghist::bench::same_histograms_as_device(got, want)) {
                std::fprintf(stderr, "MISMATCH vs cpu: %s\n", view.format == imghist::PixelFormat::rgba8 ? "rgba8" : "rgba_f32");
                std::exit(2);
            }
            return host_median_us(5, 30, [&] { (void)engine.compute_device(view, q, b.stream); });
        };
        const double whole = time(r, r);
        const char* name = f32 ? "RGBA f32" : "RGBA8";
        line("%-34s %9.1f %8.2fx", (std::string(name) + " R,G,B whole").c_str(), whole, 1.0);
        for (const char* kind : {"all", "disc", "noise"}) {
            const std::vector<uint8_t> host_mask = imghist::bench::bench_mask_bytes(kind, w, h);
            CK(cudaMemcpy(mask, host_mask.data(), px, cudaMemcpyHostToDevice));
            r.device_mask = on_device(mask, w, h, imghist::PixelFormat::gray8);
            imghist::Request on_host = rgb_request();
            on_host.mask = imghist::ImageView::packed(host_mask.data(), w, h, imghist::PixelFormat::gray8);
            const double us = time(r, on_host);
            line("%-34s %9.1f %8.2fx %9.1f", (std::string(name) + " R,G,B mask " + kind).c_str(), us, us / whole,
                 mask_floor);
        }
        r.device_mask.reset();
        r.alpha_threshold = f32 ? 0.5 : 127.5;
        const double us = time(r, r);
        line("%-34s %9.1f %8.2fx", (std::string(name) + " R,G,B alpha above half").c_str(), us, us / whole);
    }
    CK(cudaFree(mask));
}

// Issue 17: a tile grid of a device image counted in one launch (compute_device with
// Request::tiles), against the whole image and against one compute_device call per tile (how
// tiles were counted before). Host-clock medians of the synchronous call.
void tiles_table(Bench& b, imghist::cuda::Engine& engine) {
    line("%s", "");
    line("8K, tile grids of device images (compute_device -> Result, host clock)");
    line("%-30s %11s %9s %15s %9s", "input", "one launch", "x whole", "call per tile", "x whole");
    const uint32_t w = 7680, h = 4320;
    for (const auto format : {imghist::PixelFormat::rgba8, imghist::PixelFormat::rgba_f32}) {
        const bool f32 = format == imghist::PixelFormat::rgba_f32;
        CK(f32 ? generate_rgba_f32(b.image, w, h, kNatural, b.stream) : generate_rgba8(b.image, w, h, kNatural, b.stream));
        CK(cudaStreamSynchronize(b.stream));
        const auto view = on_device(b.image, w, h, format);
        const imghist::Request whole_request = rgb_request();
        const double whole = host_median_us(5, 30, [&] { (void)engine.compute_device(view, whole_request, b.stream); });
        const char* name = f32 ? "RGBA f32" : "RGBA8";
        line("%-30s %11.1f %8.2fx", (std::string(name) + " R,G,B whole").c_str(), whole, 1.0);
        for (const uint32_t n : {8u, 32u, 64u}) {
            imghist::Request r = whole_request;
            r.tiles = {n, n};
            const double one = host_median_us(3, 15, [&] { (void)engine.compute_device(view, r, b.stream); });
            const double each = host_median_us(1, 3, [&] {
                for (uint32_t ty = 0; ty < n; ++ty)
                    for (uint32_t tx = 0; tx < n; ++tx)
                        (void)engine.compute_device(view.crop(imghist::tile_region({0, 0, w, h}, r.tiles, tx, ty)),
                                                    whole_request, b.stream);
            });
            line("%-30s %11.1f %8.2fx %15.1f %8.2fx",
                 (std::string(name) + " tiles " + std::to_string(n) + "x" + std::to_string(n)).c_str(), one,
                 one / whole, each, each / whole);
        }
    }
}

// Small frames: launch-bound one at a time, batched in one call.
void batch_table(Bench& b, imghist::cuda::Engine& engine) {
    const imghist::Request rgb = rgb_request();
    line("%s", "");
    line("Many small images, device-resident (RGBA8 random, R,G,B)");
    CK(generate_rgba8(b.image, 16384, 16384, kRandom, b.stream));
    CK(cudaStreamSynchronize(b.stream));
    struct BatchCase {
        uint32_t w, h, n;
    };
    for (const BatchCase& c : {BatchCase{256, 256, 1000}, BatchCase{640, 480, 200}, BatchCase{1920, 1080, 64}}) {
        std::vector<imghist::DeviceImage> views;
        const size_t bytes = size_t(c.w) * c.h * 4;
        for (uint32_t i = 0; i < c.n; ++i)
            views.push_back(on_device(static_cast<unsigned char*>(b.image) + i * ((bytes + 255) / 256 * 256),
                                                       c.w, c.h, imghist::PixelFormat::rgba8));
        uint64_t* out = nullptr;
        const size_t ts = engine.slot_count(imghist::PixelFormat::rgba8, rgb);
        CK(cudaMalloc(&out, ts * c.n * sizeof(uint64_t)));
        Timer t(b.stream);
        const double batch = t.median_us(2, 20, [&] { engine.compute_batch_device_async(views, rgb, out, b.stream); });
        const double single = t.median_us(1, 5, [&] {
            for (uint32_t i = 0; i < c.n; ++i) engine.compute_device_async(views[i], rgb, out + i * ts, b.stream);
        });
        const double fl = b.floor_us(b.image, bytes * c.n, 20);
        line("%4u x %4ux%-4u  one call: %8.1f us (%6.2f us/image, %3.0f%% of floor)   one call per image: %8.1f us (%6.2f us/image)",
             c.n, c.w, c.h, batch, batch / c.n, 100 * fl / batch, single, single / c.n);
        CK(cudaFree(out));
    }
}

// Host microseconds per call of f, from 1000 calls back to back (the stream idle before and after).
template <class F>
double host_us_per_call(Bench& b, F&& f) {
    CK(cudaStreamSynchronize(b.stream));
    const auto s0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 1000; ++i) f();
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s0).count() / 1000;
    CK(cudaStreamSynchronize(b.stream));
    return us;
}

// Host cost of one call (enqueue only), and what parts of it are CUDA's own: a launch, a
// pointer check.
void enqueue_costs(Bench& b, imghist::cuda::Engine& engine, const imghist::DeviceImage& view) {
    const imghist::Request rgb = rgb_request();
    const double per = host_us_per_call(b, [&] { engine.compute_device_async(view, rgb, b.slots, b.stream); });
    Timer t(b.stream);
    const double back_to_back = t.median_us(0, 5, [&] {
        for (int i = 0; i < 100; ++i) engine.compute_device_async(view, rgb, b.slots, b.stream);
    }) / 100;
    line("  host time to enqueue one call: %.2f us; 100 calls back to back: %.1f us per call", per, back_to_back);
    const double small = host_us_per_call(b, [&] { CK(launch_empty(16, b.stream)); });
    const double big = host_us_per_call(b, [&] { CK(launch_empty(2048, b.stream)); });
    const double attr = host_us_per_call(b, [&] {
        cudaPointerAttributes a{};
        CK(cudaPointerGetAttributes(&a, b.image));
    });
    Timer t2(b.stream);
    const double empty_ev = t2.median_us(10, 200, [&] { CK(launch_empty(16, b.stream)); });
    line("  for scale: enqueue an empty kernel %.2f us (2 KB of parameters: %.2f us), cudaPointerGetAttributes %.2f us;"
         " empty kernel, events around it: %.1f us", small, big, attr, empty_ev);
}

// Replaying a captured graph of the same call (on a fresh engine).
void graph_replay(Bench& b, const imghist::DeviceImage& view) {
    const imghist::Request rgb = rgb_request();
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    auto gengine = imghist::cuda::create_engine();
    gengine->compute_device_async(view, rgb, b.slots, b.stream);
    CK(cudaStreamSynchronize(b.stream));
    bool ok = cudaStreamBeginCapture(b.stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess;
    try {
        if (ok) gengine->compute_device_async(view, rgb, b.slots, b.stream);
    } catch (const std::exception& e) {
        line("  (graph capture of the call failed: %s)", e.what());
    }
    ok = cudaStreamEndCapture(b.stream, &graph) == cudaSuccess && ok && graph != nullptr;
    ok = ok && cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess;
    if (ok) {
        Timer t(b.stream);
        const double g = t.median_us(10, 1000, [&] { CK(cudaGraphLaunch(exec, b.stream)); });
        line("  the same call captured in a CUDA graph, replayed:  %7.1f us", g);
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
    } else {
        cudaGetLastError();
        line("  (CUDA graph capture not available for this call)");
    }
}

// One resident 1080p image: the latency a caller sees.
void latency_section(Bench& b, imghist::cuda::Engine& engine) {
    const imghist::Request rgb = rgb_request();
    line("%s", "");
    line("One resident 1080p RGBA8 image (random), R,G,B");
    const auto view = on_device(b.image, 1920, 1080, imghist::PixelFormat::rgba8);
    const double async_us = b.imghist_us(engine, view, rgb, 1000);
    const double sync_us = host_median_us(20, 500, [&] { (void)engine.compute_device(view, rgb, b.stream); });
    const double cub = b.cub_us(cub_rgba8, b.image, 1920 * 1080, 1000);
    line("  compute_device_async, events around the call:      %7.1f us   (CUB: %.1f us)", async_us, cub);
    enqueue_costs(b, engine, view);
    line("  compute_device -> Result on the host, host clock:   %7.1f us", sync_us);
    graph_replay(b, view);
}

// --sync: what a synchronous device-resident call costs the caller, for bench_cuda.py (the
// same call its Python binding makes: compute_device on a non-blocking stream, counts on the
// host when it returns). One machine-readable line per case.
void sync_table(Bench& b, imghist::cuda::Engine& engine) {
    imghist::Request all;
    all.mode = imghist::Mode::all;  // R, G, B, Y
    const struct {
        const char* name;
        imghist::Request request;
    } modes[] = {{"rgb", rgb_request()}, {"all", all}};
    const Size sizes[] = {{"1920x1080", 1920, 1080, 2000}, {"7680x4320", 7680, 4320, 500}};
    line("# %s; compute_device -> Result on the host, host clock: median of many calls after 20 warm-ups",
         b.props.name);
    for (const Size& s : sizes)
        for (int d : {kRandom, kNatural, kConstant}) {
            CK(generate_rgba8(b.image, s.w, s.h, d, b.stream));
            CK(cudaStreamSynchronize(b.stream));
            const auto view = on_device(b.image, s.w, s.h, imghist::PixelFormat::rgba8);
            for (const auto& m : modes) {
                const double us =
                    host_median_us(20, s.runs, [&] { (void)engine.compute_device(view, m.request, b.stream); });
                line("sync rgba8 %s %s %s: %.2f us", s.name, dist_name(d), m.name, us);
            }
        }
}

// Every table but --sync's, in order.
void full_report(Bench& b, imghist::cuda::Engine& engine, const Options& o) {
    line("device: %s, %d SMs, %.0f MiB L2, driver API %d; imghist tune: '%s'", b.props.name,
         b.props.multiProcessorCount, b.props.l2CacheSize / 1048576.0, CUDART_VERSION, o.default_tune.c_str());
    line("times: median of N event-timed calls after 3 warm-ups, launch to finished result (device memory)");
    line("%s", "");

    rgba8_table(b, engine, o);
    other_formats_table(b, engine);
    edges_table(b, engine, o.default_tune);
    batch_table(b, engine);
    latency_section(b, engine);
    host_resident_table(b, engine, o);
    if (o.tune) kernel_variants_table(b, o);
}

Options parse_options(int argc, char** argv) {
    Options o;
    (void)imghist::bench::parse_args(argc, argv, {{"--tune", &o.tune}, {"--quick", &o.quick}, {"--sync", &o.sync}, {"--host-sweep", &o.host_sweep}, {"--edges", &o.edges}, {"--masks", &o.masks}, {"--tiles", &o.tiles}, {"--host", &o.host}, {"--stats", &o.stats}},
                                     {{"--out", [&](const char* v) { o.out_path = v; }}});
    const char* base_tune = std::getenv("IMGHIST_CUDA_TUNE");
    o.default_tune = base_tune ? base_tune : "";
    return o;
}

// The device buffers every table shares, sized for the largest case (16384^2 RGBA8).
void open_device(Bench& b) {
    CK(cudaGetDeviceProperties(&b.props, 0));
    CK(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
    const size_t max_bytes = size_t(16384) * 16384 * 4;
    CK(cudaMalloc(&b.image, max_bytes));
    CK(cudaMalloc(&b.sink, 4));
    CK(cudaMalloc(&b.cub_hist, 768 * sizeof(unsigned)));
    CK(cudaMalloc(&b.slots, 4096 * 5 * sizeof(uint64_t)));
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse_options(argc, argv);
    Bench b;
    open_device(b);

    set_tune(o.default_tune.c_str());
    auto engine = imghist::cuda::create_engine();
    if (o.sync)
        sync_table(b, *engine);
    else if (o.host_sweep)
        host_sweep(b, o);
    else if (o.edges)
        edges_table(b, *engine, o.default_tune);
    else if (o.masks)
        masks_table(b, *engine);
    else if (o.tiles)
        tiles_table(b, *engine);
    else if (o.stats)
        stats_table(b, *engine);
    else if (o.host)
        host_resident_table(b, *engine, o);
    else
        full_report(b, *engine, o);

    if (!o.out_path.empty()) {
        FILE* f = std::fopen(o.out_path.c_str(), "w");
        if (f) {
            std::fputs(report().c_str(), f);
            std::fclose(f);
        }
    }
    if (b.failures) {
        std::fprintf(stderr, "cuda_bench: %d mismatches (against CUB, or floats against packed_float=0)\n", b.failures);
        return 1;
    }
    return 0;
}
