// What the parts of imghist_cuda_bench share: the error check, event and host-clock timers, the
// printed report, and the device state every table measures with (cuda_bench.cpp has the
// overview; the tables are in cuda_bench.cpp and cuda_bench_host.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "bench_common.hpp"
#include "bench_kernels.hpp"

#include "imghist/cuda.hpp"
#include "imghist/imghist.hpp"

namespace imghist_bench {

// Exits (status 2) with the failed call and its line when e is an error.
void check(cudaError_t e, const char* what, int line);
#define CK(x) check((x), #x, __LINE__)

inline const char* dist_name(int d) { return imghist::bench::dist_name(imghist::bench::Dist(d)); }

struct Timer {
    cudaStream_t stream;
    cudaEvent_t a, b;
    explicit Timer(cudaStream_t s) : stream(s) {
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
    }
    // Median microseconds of `runs` event-timed calls after `warm` untimed ones and kGpuWarmMs of them.
    template <class F>
    double median_us(int warm, int runs, F&& f) {
        for (int i = 0; i < warm; ++i) f();
        imghist::bench::keep_busy(imghist::bench::kGpuWarmMs, [&] {
            f();
            CK(cudaStreamSynchronize(stream));
        });
        return imghist::bench::median_of(runs, [&] {
            CK(cudaEventRecord(a, stream));
            f();
            CK(cudaEventRecord(b, stream));
            CK(cudaEventSynchronize(b));
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, a, b));
            return ms * 1000.0f;
        });
    }
};

// Median host-clock microseconds of `runs` calls after `warm` untimed ones and kGpuWarmMs of them.
template <class F>
double host_median_us(int warm, int runs, F&& f) {
    for (int i = 0; i < warm; ++i) f();
    imghist::bench::keep_busy(imghist::bench::kGpuWarmMs, f);
    return imghist::bench::median(imghist::bench::wall_times<std::micro>(runs, f));
}

// Prints one line of the report (printf format) and keeps it for --out.
void line(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// Every line printed so far.
const std::string& report();

// A packed image in device memory, as the interop calls take it.
inline imghist::DeviceImage on_device(const void* pixels, uint32_t w, uint32_t h, imghist::PixelFormat format) {
    return imghist::cuda::device_image(pixels, w, h, 0, format);
}

inline imghist::Request rgb_request() {
    imghist::Request rgb;
    rgb.mode = imghist::Mode::rgb;
    return rgb;
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
    void check_against_cub(imghist::cuda::Engine& e, const imghist::DeviceImage& v, const char* what);
};

struct Size {
    const char* name;
    uint32_t w, h;
    int runs;
};

// IMGHIST_CUDA_TUNE for the engines created next ("" or null: unset).
void set_tune(const char* tune);

struct Options {
    std::string out_path;
    bool tune = false, quick = false, sync = false;  // sync: only sync_table (--sync)
    bool host_sweep = false;                         // only host_sweep (--host-sweep)
    bool edges = false;                              // only edges_table (--edges)
    bool masks = false;                              // only masks_table (--masks)
    bool tiles = false;                              // only tiles_table (--tiles)
    bool host = false;                               // only host_resident_table (--host)
    bool stats = false;                              // only stats_table (--stats)
    std::string default_tune;  // IMGHIST_CUDA_TUNE at the start
};

// The sections of cuda_bench_host.cpp, in the order main prints them.
void host_resident_table(Bench& b, imghist::cuda::Engine& engine, const Options& o);
void kernel_variants_table(Bench& b, const Options& o);
void host_sweep(Bench& b, const Options& o);
// cuda_bench_stats.cpp's.
void stats_table(Bench& b, imghist::cuda::Engine& engine);

}  // namespace imghist_bench
