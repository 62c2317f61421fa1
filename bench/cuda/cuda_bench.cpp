// The CUDA backend's speed, with the yardsticks measured in the same run:
//   floor  a kernel that reads every byte of the image once (16-byte loads) and does nothing
//   CUB    cub::DeviceHistogram::MultiHistogramEven<4,3> (R, G, B of RGBA, 256 bins), whose
//          result also checks imghist's counts
//   H2D    cudaMemcpy bandwidth from pinned and from pageable host memory
// Every time is the median of many runs after warm-up, from a CUDA event recorded before the
// call to one recorded after it (so launch overhead counts: "launch to finished result").
// Images are generated on the device; host copies come from cudaMemcpy.
//
// (Kernels and CUB live in bench_kernels.cu.)
//
// Usage: imghist_cuda_bench [--out FILE] [--tune] [--quick]
//   --tune   also time variants of the kernel's shape (IMGHIST_CUDA_TUNE) on a few inputs
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <cstdarg>

#include <cuda_runtime.h>

#include "bench_kernels.hpp"

#include "imghist/cuda.hpp"
#include "imghist/imghist.hpp"

using namespace imghist_bench;

namespace {

void check(cudaError_t e, const char* what, int line) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "cuda_bench: %s (line %d): %s\n", what, line, cudaGetErrorString(e));
        std::exit(2);
    }
}
#define CK(x) check((x), #x, __LINE__)

const char* dist_name(int d) {
    static const char* names[] = {"random", "natural", "constant", "bank-adversarial"};
    return names[d];
}

struct Timer {
    cudaStream_t stream;
    cudaEvent_t a, b;
    explicit Timer(cudaStream_t s) : stream(s) {
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
    }
    // Median microseconds of `runs` event-timed calls after `warm` untimed ones.
    template <class F>
    double median_us(int warm, int runs, F&& f) {
        for (int i = 0; i < warm; ++i) f();
        CK(cudaStreamSynchronize(stream));
        std::vector<float> t;
        for (int i = 0; i < runs; ++i) {
            CK(cudaEventRecord(a, stream));
            f();
            CK(cudaEventRecord(b, stream));
            CK(cudaEventSynchronize(b));
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, a, b));
            t.push_back(ms * 1000.0f);
        }
        std::sort(t.begin(), t.end());
        return t[t.size() / 2];
    }
};

template <class F>
double host_median_us(int warm, int runs, F&& f) {
    for (int i = 0; i < warm; ++i) f();
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
        const auto s = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

std::string report;
void line(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void line(const char* fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    std::printf("%s\n", buf);
    std::fflush(stdout);
    report += buf;
    report += "\n";
}

// A packed image in device memory, as the interop calls take it.
imghist::DeviceImage on_device(const void* pixels, uint32_t w, uint32_t h, imghist::PixelFormat format) {
    return imghist::cuda::device_image(pixels, w, h, 0, format);
}

struct Bench {
    cudaStream_t stream = nullptr;
    cudaDeviceProp props{};
    void* image = nullptr;     // the device image (largest case)
    uint32_t* sink = nullptr;
    unsigned int* cub_hist = nullptr;  // 3 x 256
    void* cub_temp = nullptr;
    size_t cub_temp_bytes = 0;
    uint64_t* slots = nullptr;  // imghist device output
    int failures = 0;

    double floor_us(const void* p, size_t bytes, int runs) {
        Timer t(stream);
        const int grid = props.multiProcessorCount * 4;
        return t.median_us(3, runs, [&] {
            CK(read_floor(p, bytes, sink, grid, stream));
        });
    }

    // CUB's MultiHistogramEven<4,3> (fn: cub_rgba8 or cub_rgba_f32).
    template <class Fn>
    double cub_us(Fn fn, const void* p, uint64_t pixels, int runs) {
        size_t need = 0;
        CK(fn(nullptr, need, p, cub_hist, int64_t(pixels), stream));
        if (need > cub_temp_bytes) {
            if (cub_temp) CK(cudaFree(cub_temp));
            CK(cudaMalloc(&cub_temp, need));
            cub_temp_bytes = need;
        }
        Timer t(stream);
        return t.median_us(3, runs, [&] {
            size_t bytes = cub_temp_bytes;
            CK(fn(cub_temp, bytes, p, cub_hist, int64_t(pixels), stream));
        });
    }

    double imghist_us(imghist::cuda::Engine& e, const imghist::DeviceImage& v, const imghist::Request& r, int runs) {
        Timer t(stream);
        return t.median_us(3, runs, [&] { e.compute_device_async(v, r, slots, stream); });
    }

    // imghist's R, G, B against CUB's last result (both 256 bins of 8-bit values).
    void check_against_cub(imghist::cuda::Engine& e, const imghist::DeviceImage& v, const char* what) {
        imghist::Request rgb;
        rgb.mode = imghist::Mode::rgb;
        const imghist::Result r = e.compute_device(v, rgb, stream);
        std::vector<unsigned int> cub(768);
        CK(cudaMemcpy(cub.data(), cub_hist, 768 * sizeof(unsigned), cudaMemcpyDeviceToHost));
        for (int c = 0; c < 3; ++c)
            for (int k = 0; k < 256; ++k)
                if (r.channels[c].counts[k] != cub[c * 256 + k]) {
                    line("MISMATCH %s channel %d bin %d: imghist %llu, CUB %u", what, c, k,
                         (unsigned long long)r.channels[c].counts[k], cub[c * 256 + k]);
                    ++failures;
                    return;
                }
    }
};

struct Size {
    const char* name;
    uint32_t w, h;
    int runs;
};

void set_tune(const char* tune) {
    if (tune && *tune) setenv("IMGHIST_CUDA_TUNE", tune, 1);
    else unsetenv("IMGHIST_CUDA_TUNE");
}

}  // namespace

int main(int argc, char** argv) {
    std::string out_path;
    bool tune = false, quick = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out_path = argv[++i];
        else if (!std::strcmp(argv[i], "--tune")) tune = true;
        else if (!std::strcmp(argv[i], "--quick")) quick = true;
    }
    const char* base_tune = std::getenv("IMGHIST_CUDA_TUNE");
    const std::string default_tune = base_tune ? base_tune : "";

    Bench b;
    CK(cudaGetDeviceProperties(&b.props, 0));
    CK(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
    const size_t max_bytes = size_t(16384) * 16384 * 4;
    CK(cudaMalloc(&b.image, max_bytes));
    CK(cudaMalloc(&b.sink, 4));
    CK(cudaMalloc(&b.cub_hist, 768 * sizeof(unsigned)));
    CK(cudaMalloc(&b.slots, 4096 * 5 * sizeof(uint64_t)));

    set_tune(default_tune.c_str());
    auto engine = imghist::cuda::create_engine();
    line("device: %s, %d SMs, %.0f MiB L2, driver API %d; imghist tune: '%s'", b.props.name,
         b.props.multiProcessorCount, b.props.l2CacheSize / 1048576.0, CUDART_VERSION, default_tune.c_str());
    line("times: median of N event-timed calls after 3 warm-ups, launch to finished result (device memory)");
    line("%s", "");

    imghist::Request rgb;
    rgb.mode = imghist::Mode::rgb;
    const Size sizes[] = {{"1080p", 1920, 1080, 400}, {"4K", 3840, 2160, 200}, {"8K", 7680, 4320, 100},
                          {"16384^2", 16384, 16384, quick ? 10 : 30}};
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
            const double ih = b.imghist_us(*engine, view, rgb, s.runs);
            b.check_against_cub(*engine, view, (std::string(s.name) + " " + dist_name(d)).c_str());
            line("%-8s %-17s %9.1f %9.1f %9.1f %9.1f %7.0f%% %7.2fx", s.name, dist_name(d), px * 4 / 1e6, fl, cub, ih,
                 100.0 * fl / ih, cub / ih);
        }
    }

    line("%s", "");
    line("8K, other formats and modes");
    line("%-26s %-9s %9s %9s %9s %9s %8s %8s", "input", "data", "MB", "floor us", "CUB us", "imghist", "%floor", "x CUB");
    {
        const uint32_t w = 7680, h = 4320;
        const uint64_t px = uint64_t(w) * h;
        for (int d : {kRandom, kNatural}) {
            CK(generate_rgba8(b.image, w, h, d, b.stream));
            CK(cudaStreamSynchronize(b.stream));
            const auto view = on_device(b.image, w, h, imghist::PixelFormat::rgba8);
            const double fl = b.floor_us(b.image, px * 4, 100);
            imghist::Request luma;
            luma.mode = imghist::Mode::luma;
            const double ih = b.imghist_us(*engine, view, luma, 100);
            line("%-26s %-9s %9.1f %9.1f %9s %9.1f %7.0f%% %8s", "RGBA8 -> Y (luma)", dist_name(d), px * 4 / 1e6, fl, "-", ih,
                 100.0 * fl / ih, "-");
            const double all = b.imghist_us(*engine, view, imghist::Request{}, 100);
            line("%-26s %-9s %9.1f %9.1f %9s %9.1f %7.0f%% %8s", "RGBA8 -> R,G,B,Y (all)", dist_name(d), px * 4 / 1e6, fl, "-",
                 all, 100.0 * fl / all, "-");
        }
        for (int d : {kRandom, kNatural}) {
            CK(generate_rgba_f32(b.image, w, h, d, b.stream));
            CK(cudaStreamSynchronize(b.stream));
            auto view = on_device(b.image, w, h, imghist::PixelFormat::rgba_f32);
            double fl = b.floor_us(b.image, px * 16, 50);
            const double cub = b.cub_us(cub_rgba_f32, b.image, px, 50);
            double ih = b.imghist_us(*engine, view, rgb, 50);
            line("%-26s %-9s %9.1f %9.1f %9.1f %9.1f %7.0f%% %7.2fx", "RGBA f32 -> R,G,B (257)", dist_name(d), px * 16 / 1e6,
                 fl, cub, ih, 100.0 * fl / ih, cub / ih);
            CK(generate_rgba_f16(b.image, w, h, d, b.stream));
            CK(cudaStreamSynchronize(b.stream));
            view = on_device(b.image, w, h, imghist::PixelFormat::rgba_f16);
            fl = b.floor_us(b.image, px * 8, 50);
            ih = b.imghist_us(*engine, view, rgb, 50);
            line("%-26s %-9s %9.1f %9.1f %9s %9.1f %7.0f%% %8s", "RGBA f16 -> R,G,B (257)", dist_name(d), px * 8 / 1e6, fl, "-",
                 ih, 100.0 * fl / ih, "-");
        }
        line("(CUB on f32: 256 even bins over [0, 1], not the 257-bin closed rule; shown for scale)");
    }

    // Small frames: launch-bound one at a time, batched in one call.
    line("%s", "");
    line("Many small images, device-resident (RGBA8 random, R,G,B)");
    {
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
            const size_t ts = engine->slot_count(imghist::PixelFormat::rgba8, rgb);
            CK(cudaMalloc(&out, ts * c.n * sizeof(uint64_t)));
            Timer t(b.stream);
            const double batch = t.median_us(2, 20, [&] { engine->compute_batch_device_async(views, rgb, out, b.stream); });
            const double single = t.median_us(1, 5, [&] {
                for (uint32_t i = 0; i < c.n; ++i) engine->compute_device_async(views[i], rgb, out + i * ts, b.stream);
            });
            const double fl = b.floor_us(b.image, bytes * c.n, 20);
            line("%4u x %4ux%-4u  one call: %8.1f us (%6.2f us/image, %3.0f%% of floor)   one call per image: %8.1f us (%6.2f us/image)",
                 c.n, c.w, c.h, batch, batch / c.n, 100 * fl / batch, single, single / c.n);
            CK(cudaFree(out));
        }
    }

    // One resident 1080p image: the latency a caller sees.
    line("%s", "");
    line("One resident 1080p RGBA8 image (random), R,G,B");
    {
        const auto view = on_device(b.image, 1920, 1080, imghist::PixelFormat::rgba8);
        const double async_us = b.imghist_us(*engine, view, rgb, 1000);
        const double sync_us = host_median_us(20, 500, [&] { (void)engine->compute_device(view, rgb, b.stream); });
        const double cub = b.cub_us(cub_rgba8, b.image, 1920 * 1080, 1000);
        line("  compute_device_async, events around the call:      %7.1f us   (CUB: %.1f us)", async_us, cub);
        {
            // Host cost of one call (enqueue only), from 1000 back-to-back calls.
            CK(cudaStreamSynchronize(b.stream));
            const auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < 1000; ++i) engine->compute_device_async(view, rgb, b.slots, b.stream);
            const double per = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 1000;
            CK(cudaStreamSynchronize(b.stream));
            Timer t(b.stream);
            const double back_to_back = t.median_us(0, 5, [&] {
                for (int i = 0; i < 100; ++i) engine->compute_device_async(view, rgb, b.slots, b.stream);
            }) / 100;
            line("  host time to enqueue one call: %.2f us; 100 calls back to back: %.1f us per call", per, back_to_back);
            // What parts of that are CUDA's own: a launch, a pointer check.
            auto host_us = [&](auto&& f) {
                CK(cudaStreamSynchronize(b.stream));
                const auto s0 = std::chrono::steady_clock::now();
                for (int i = 0; i < 1000; ++i) f();
                const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s0).count() / 1000;
                CK(cudaStreamSynchronize(b.stream));
                return us;
            };
            const double small = host_us([&] { CK(launch_empty(16, b.stream)); });
            const double big = host_us([&] { CK(launch_empty(2048, b.stream)); });
            const double attr = host_us([&] {
                cudaPointerAttributes a{};
                CK(cudaPointerGetAttributes(&a, b.image));
            });
            Timer t2(b.stream);
            const double empty_ev = t2.median_us(10, 200, [&] { CK(launch_empty(16, b.stream)); });
            line("  for scale: enqueue an empty kernel %.2f us (2 KB of parameters: %.2f us), cudaPointerGetAttributes %.2f us;"
                 " empty kernel, events around it: %.1f us", small, big, attr, empty_ev);
        }
        line("  compute_device -> Result on the host, host clock:   %7.1f us", sync_us);
        // Replaying a captured graph of the same call.
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

    // Host-resident images: staged through pinned buffers, against the copy bandwidth.
    cudaGetLastError();
    line("%s", "");
    line("Host-resident RGBA8 images (pageable std::vector), R,G,B, through engine->compute()");
    {
        for (const Size& s : {Size{"8K", 7680, 4320, 10}, Size{"16384^2", 16384, 16384, quick ? 2 : 4}}) {
            const size_t bytes = size_t(s.w) * s.h * 4;
            CK(generate_rgba8(b.image, s.w, s.h, kRandom, b.stream));
            CK(cudaStreamSynchronize(b.stream));
            std::vector<unsigned char> host(bytes);
            CK(cudaMemcpy(host.data(), b.image, bytes, cudaMemcpyDeviceToHost));
            void* pinned = nullptr;
            CK(cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault));
            std::memcpy(pinned, host.data(), bytes);
            Timer t(b.stream);
            const double pinned_us = t.median_us(1, 5, [&] { CK(cudaMemcpyAsync(b.image, pinned, bytes, cudaMemcpyHostToDevice, b.stream)); });
            const double pageable_us = t.median_us(1, 5, [&] { CK(cudaMemcpyAsync(b.image, host.data(), bytes, cudaMemcpyHostToDevice, b.stream)); });
            const auto view = imghist::ImageView::packed(host.data(), s.w, s.h, imghist::PixelFormat::rgba8);
            const double ih = host_median_us(1, s.runs, [&] { (void)engine->compute(view, rgb); });
            const double gbs = bytes / ih / 1e3, pin = bytes / pinned_us / 1e3, page = bytes / pageable_us / 1e3;
            line("%-8s %7.1f MB: imghist %8.0f us = %5.1f GB/s; H2D pinned %5.1f GB/s (%3.0f%%), pageable %5.1f GB/s (%3.0f%%)",
                 s.name, bytes / 1e6, ih, gbs, pin, 100 * gbs / pin, page, 100 * gbs / page);
            if (tune) {
                for (const char* v : {"chunk_mb=16,copy_threads=8", "chunk_mb=64,copy_threads=16"}) {
                    set_tune(v);
                    auto e = imghist::cuda::create_engine();
                    const double us = host_median_us(1, s.runs, [&] { (void)e->compute(view, rgb); });
                    line("    %-30s %8.0f us = %5.1f GB/s (%3.0f%% of pinned H2D)", v, us, bytes / us / 1e3, 100 * bytes / us / 1e3 / pin);
                }
                set_tune(default_tune.c_str());
            }
            CK(cudaFreeHost(pinned));
        }
    }

    if (tune) {
        line("%s", "");
        line("Kernel variants (IMGHIST_CUDA_TUNE), RGBA8 (f32/f16: RGBA float, 257 bins), us (median) and share of the floor;"
             " RGBA8 R,G,B counts checked against CUB, float counts against packed_float=0");
        // packed/ahead: the packed fast path (8-bit, and with packed_float f16/f32); packed=0 (or
        // packed_float=0 for floats): the generic tiled kernel; graph=0: launched directly instead
        // of replayed from the engine's cached graph.
        const char* variants[] = {"", "early=0", "slot_merge=0", "early=0,slot_merge=0", "float_lut=0", "graph=0", "ahead=1",
                                  "packed=0", "block=512", "packed=0,layout=lanes16", "packed_float=0"};
        enum Sample { u8, f32, f16 };
        struct Case {
            const char* name;
            uint32_t w, h;
            int dist, runs;
            imghist::Mode mode;
            Sample sample = u8;
        };
        const Case cases[] = {{"1080p rnd", 1920, 1080, kRandom, 300, imghist::Mode::rgb},
                              {"1080p const", 1920, 1080, kConstant, 300, imghist::Mode::rgb},
                              {"1080p bank", 1920, 1080, kBank, 300, imghist::Mode::rgb},
                              {"8K rnd", 7680, 4320, kRandom, 60, imghist::Mode::rgb},
                              {"8K const", 7680, 4320, kConstant, 60, imghist::Mode::rgb},
                              {"8K bank", 7680, 4320, kBank, 60, imghist::Mode::rgb},
                              {"16K rnd", 16384, 16384, kRandom, 15, imghist::Mode::rgb},
                              {"16K const", 16384, 16384, kConstant, 15, imghist::Mode::rgb},
                              {"16K bank", 16384, 16384, kBank, 15, imghist::Mode::rgb},
                              {"8K rnd RGBY", 7680, 4320, kRandom, 60, imghist::Mode::all},
                              {"8K rnd Y", 7680, 4320, kRandom, 60, imghist::Mode::luma},
                              {"8K f32 rnd", 7680, 4320, kRandom, 50, imghist::Mode::rgb, f32},
                              {"8K f32 RGBY", 7680, 4320, kRandom, 50, imghist::Mode::all, f32},
                              {"8K f16 rnd", 7680, 4320, kRandom, 50, imghist::Mode::rgb, f16},
                              {"8K f16 RGBY", 7680, 4320, kRandom, 50, imghist::Mode::all, f16}};
        std::vector<std::unique_ptr<imghist::cuda::Engine>> engines;
        for (const char* v : variants) {
            set_tune(v);
            engines.push_back(imghist::cuda::create_engine());
        }
        set_tune(default_tune.c_str());
        std::string head = "variant                   ";
        std::vector<std::string> rows(std::size(variants));
        for (size_t i = 0; i < rows.size(); ++i) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%-26s", *variants[i] ? variants[i] : "(default)");
            rows[i] = buf;
        }
        std::string floors = "floor                     ";
        for (const Case& c : cases) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%-14s", c.name);
            head += buf;
            const uint64_t px = uint64_t(c.w) * c.h;
            CK(c.sample == f32   ? generate_rgba_f32(b.image, c.w, c.h, c.dist, b.stream)
               : c.sample == f16 ? generate_rgba_f16(b.image, c.w, c.h, c.dist, b.stream)
                                 : generate_rgba8(b.image, c.w, c.h, c.dist, b.stream));
            CK(cudaStreamSynchronize(b.stream));
            const auto format = c.sample == f32   ? imghist::PixelFormat::rgba_f32
                                : c.sample == f16 ? imghist::PixelFormat::rgba_f16
                                                  : imghist::PixelFormat::rgba8;
            const auto view = on_device(b.image, c.w, c.h, format);
            const double fl = b.floor_us(b.image, px * (c.sample == f32 ? 16 : c.sample == f16 ? 8 : 4), c.runs);
            std::snprintf(buf, sizeof buf, "%-14.1f", fl);
            floors += buf;
            const bool vs_cub = c.sample == u8 && c.mode == imghist::Mode::rgb;
            if (vs_cub) (void)b.cub_us(cub_rgba8, b.image, px, 1);  // CUB's counts, to check against
            imghist::Request req;
            req.mode = c.mode;
            // Floats: every variant's counts must equal those of the generic kernel (packed_float=0).
            std::optional<imghist::Result> generic;
            if (c.sample != u8) {
                set_tune("packed_float=0");
                generic = imghist::cuda::create_engine()->compute_device(view, req, b.stream);
                set_tune(default_tune.c_str());
            }
            for (size_t i = 0; i < rows.size(); ++i) {
                const double us = b.imghist_us(*engines[i], view, req, c.runs);
                if (generic && !engines[i]->compute_device(view, req, b.stream).same_histograms(*generic)) {
                    line("MISMATCH %s %s: counts differ from packed_float=0", c.name, *variants[i] ? variants[i] : "(default)");
                    ++b.failures;
                }
                if (vs_cub)
                    b.check_against_cub(*engines[i], view, (std::string(c.name) + " " + (*variants[i] ? variants[i] : "(default)")).c_str());
                std::snprintf(buf, sizeof buf, "%6.1f (%3.0f%%) ", us, 100.0 * fl / us);
                rows[i] += buf;
            }
        }
        line("%s", head.c_str());
        line("%s", floors.c_str());
        for (const auto& r : rows) line("%s", r.c_str());
    }

    if (!out_path.empty()) {
        FILE* f = std::fopen(out_path.c_str(), "w");
        if (f) {
            std::fputs(report.c_str(), f);
            std::fclose(f);
        }
    }
    if (b.failures) {
        std::fprintf(stderr, "cuda_bench: %d mismatches (against CUB, or floats against packed_float=0)\n", b.failures);
        return 1;
    }
    return 0;
}
