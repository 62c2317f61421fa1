// imghist_cuda_bench (cuda_bench.cpp): host-resident images, the --tune kernel variants, and
// the shared pieces of cuda_bench.hpp.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cuda_bench.hpp"
#include "gpu/copy_pool.hpp"

namespace imghist_bench {

void check(cudaError_t e, const char* what, int line) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "cuda_bench: %s (line %d): %s\n", what, line, cudaGetErrorString(e));
        std::exit(2);
    }
}

namespace {
std::string report_text;
}

void line(const char* fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    std::printf("%s\n", buf);
    std::fflush(stdout);
    report_text += buf;
    report_text += "\n";
}

const std::string& report() { return report_text; }

void set_tune(const char* tune) {
    if (tune && *tune) setenv("IMGHIST_CUDA_TUNE", tune, 1);
    else unsetenv("IMGHIST_CUDA_TUNE");
}

void Bench::check_against_cub(imghist::cuda::Engine& e, const imghist::DeviceImage& v, const char* what) {
    const imghist::Result r = e.compute_device(v, rgb_request(), stream);
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

namespace {

// Copies `bytes` from src to dst on `threads` threads that are started before the clock and
// released together: the host's own fill bandwidth, without thread start-up in the figure.
// With `dma`, a copy of `bytes` from the pinned `dma_src` to the device runs at the same time,
// so the two compete for the host's memory as a staged transfer's fill and DMA do.
double fill_us(unsigned char* dst, const unsigned char* src, size_t bytes, int threads, Bench* dma,
               const void* dma_src) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> pool;
    const size_t per = (bytes / size_t(threads) + 63) / 64 * 64;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            const size_t begin = std::min(bytes, per * size_t(t)), end = std::min(bytes, begin + per);
            ready.fetch_add(1);
            while (!go.load(std::memory_order_acquire)) {
            }
            std::memcpy(dst + begin, src + begin, end - begin);
        });
    while (ready.load() < threads) {
    }
    const auto start = std::chrono::steady_clock::now();
    if (dma) CK(cudaMemcpyAsync(dma->image, dma_src, bytes, cudaMemcpyHostToDevice, dma->stream));
    go.store(true, std::memory_order_release);
    for (std::thread& t : pool) t.join();
    if (dma) CK(cudaStreamSynchronize(dma->stream));
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
}

double median_of(int runs, const std::function<double()>& f) {
    std::vector<double> v;
    f();
    for (int i = 0; i < runs; ++i) v.push_back(f());
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The staged path without its counting: what the host gives a pageable image's way to the
// device, the bound of engine->compute() on host images. Chunks of `chunk` bytes are filled
// into `stages` pinned buffers by the library's own copy pool (the engine's threads, streaming
// stores or memcpy as it picks), each sent by its own stream while the next is filled; with
// `dma` false, the fills alone. Host-timed, like the engine's calls.
struct StagedCopy {
    static constexpr int kStages = 4;
    size_t chunk;
    int threads;
    bool streaming;
    unsigned char* buffers[kStages] = {};
    void* device[kStages] = {};
    cudaStream_t streams[kStages] = {};
    cudaEvent_t sent[kStages] = {};
    imghist::gpu::CopyPool pool;

    StagedCopy(size_t chunk_bytes, int copy_threads, bool streaming_stores)
        : chunk(chunk_bytes), threads(copy_threads), streaming(streaming_stores) {
        for (int i = 0; i < kStages; ++i) {
            CK(cudaHostAlloc(reinterpret_cast<void**>(&buffers[i]), chunk, cudaHostAllocDefault));
            CK(cudaMalloc(&device[i], chunk));
            CK(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
            CK(cudaEventCreateWithFlags(&sent[i], cudaEventDisableTiming));
        }
    }
    ~StagedCopy() {
        for (int i = 0; i < kStages; ++i) {
            cudaFreeHost(buffers[i]);
            cudaFree(device[i]);
            cudaStreamDestroy(streams[i]);
            cudaEventDestroy(sent[i]);
        }
    }
    double us(const unsigned char* src, size_t bytes, bool dma) {
        const auto start = std::chrono::steady_clock::now();
        for (size_t at = 0, k = 0; at < bytes; at += chunk, ++k) {
            const int i = int(k % kStages);
            const size_t n = std::min(chunk, bytes - at);
            if (k >= size_t(kStages)) CK(cudaEventSynchronize(sent[i]));
            pool.copy(buffers[i], src + at, n, threads, streaming);
            if (!dma) continue;
            CK(cudaMemcpyAsync(device[i], buffers[i], n, cudaMemcpyHostToDevice, streams[i]));
            CK(cudaEventRecord(sent[i], streams[i]));
        }
        for (cudaStream_t st : streams) CK(cudaStreamSynchronize(st));
        return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    }
};

}  // namespace

// Host-resident images: staged through pinned buffers, against the copy bandwidth.
void host_resident_table(Bench& b, imghist::cuda::Engine& engine, const Options& o) {
    const imghist::Request rgb = rgb_request();
    cudaGetLastError();
    line("%s", "");
    line("Host-resident RGBA8 images (pageable std::vector), R,G,B, through engine->compute()");
    for (const Size& s : {Size{"8K", 7680, 4320, 10}, Size{"16384^2", 16384, 16384, o.quick ? 2 : 4}}) {
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
        const double ih = host_median_us(1, s.runs, [&] { (void)engine.compute(view, rgb); });
        const double gbs = bytes / ih / 1e3, pin = bytes / pinned_us / 1e3, page = bytes / pageable_us / 1e3;
        line("%-8s %7.1f MB: imghist %8.0f us = %5.1f GB/s; H2D pinned %5.1f GB/s (%3.0f%%), pageable %5.1f GB/s (%3.0f%%)",
             s.name, bytes / 1e6, ih, gbs, pin, 100 * gbs / pin, page, 100 * gbs / page);
        // Single calls in a row: a median hides whether only some calls are slow.
        const auto single_calls = [&] {
            std::string us;
            for (int i = 0; i < 5; ++i) {
                const auto start = std::chrono::steady_clock::now();
                (void)engine.compute(view, rgb);
                const double us_one = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
                us += " " + std::to_string(int(us_one));
            }
            return us;
        };
        line("    single calls, us:%s", single_calls().c_str());
        // The limits of a pageable image's way to the device, in the same run: the host's fill
        // of pinned memory on every core (alone, and beside a pinned DMA of the same size, as
        // staging does), and pinning the image in place (cudaHostRegister, copy, unregister).
        {
            const int threads = int(std::clamp(std::thread::hardware_concurrency(), 1u, 16u));
            void* pinned2 = nullptr;
            CK(cudaHostAlloc(&pinned2, bytes, cudaHostAllocDefault));
            std::memset(pinned2, 1, bytes);
            auto* dst = static_cast<unsigned char*>(pinned2);
            const double fill = median_of(s.runs, [&] { return fill_us(dst, host.data(), bytes, threads, nullptr, nullptr); });
            const double both = median_of(s.runs, [&] { return fill_us(dst, host.data(), bytes, threads, &b, pinned); });
            const double reg = median_of(s.runs, [&] {
                const auto start = std::chrono::steady_clock::now();
                CK(cudaHostRegister(host.data(), bytes, cudaHostRegisterDefault));
                CK(cudaMemcpyAsync(b.image, host.data(), bytes, cudaMemcpyHostToDevice, b.stream));
                CK(cudaStreamSynchronize(b.stream));
                CK(cudaHostUnregister(host.data()));
                return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
            });
            const double fill_gbs = bytes / fill / 1e3, both_gbs = bytes / both / 1e3, reg_gbs = bytes / reg / 1e3;
            // Not bounds of the staged path (its chunks stay in the cache; these fill one buffer
            // of the image's size), but what the host's memory gives a plain copy.
            line("    host: memcpy into pinned memory on %d threads %5.1f GB/s, beside a pinned DMA %5.1f GB/s; "
                 "register+copy+unregister %5.1f GB/s (%3.0f%% of pinned)",
                 threads, fill_gbs, both_gbs, reg_gbs, 100 * reg_gbs / pin);
            CK(cudaFreeHost(pinned2));
            // The bound: the staged copy alone, with the engine's default chunks, threads and
            // stores for this size (cuda_host.cpp: 8 MiB and streaming stores below 512 MiB a
            // call, 32 MiB and memcpy above).
            const bool big = bytes >= (size_t(512) << 20);
            StagedCopy staged(big ? size_t(32) << 20 : size_t(8) << 20, threads, !big);
            const double staged_fill = median_of(s.runs, [&] { return staged.us(host.data(), bytes, false); });
            const double staged_all = median_of(s.runs, [&] { return staged.us(host.data(), bytes, true); });
            const double bound_gbs = bytes / staged_all / 1e3;
            line("    bound: the staged copy alone (%zu MiB chunks, %d threads, %s): fills %5.1f GB/s, fills + DMA "
                 "%5.1f GB/s (%3.0f%% of pinned); imghist / bound %3.0f%%",
                 staged.chunk >> 20, threads, big ? "memcpy" : "streaming stores", bytes / staged_fill / 1e3, bound_gbs,
                 100 * bound_gbs / pin, 100 * gbs / bound_gbs);
            line("    single calls after the bounds, us:%s", single_calls().c_str());
        }
        if (o.tune) {
            for (const char* v : {"chunk_mb=16,copy_threads=8", "chunk_mb=64,copy_threads=16", "stream_stores=0",
                                  "stream_stores=1", "chunk_mb=8", "chunk_mb=32,stream_stores=1", "stages=2", "stages=4"}) {
                set_tune(v);
                auto e = imghist::cuda::create_engine();
                const double us = host_median_us(1, s.runs, [&] { (void)e->compute(view, rgb); });
                line("    %-30s %8.0f us = %5.1f GB/s (%3.0f%% of pinned H2D)", v, us, bytes / us / 1e3, 100 * bytes / us / 1e3 / pin);
            }
            set_tune(o.default_tune.c_str());
        }
        CK(cudaFreeHost(pinned));
    }
}

namespace {

// One host image of the sweep, in pageable memory, with its counts from the CPU backend.
struct SweepImage {
    Size size;
    std::vector<unsigned char> host;
    imghist::Result want;
};

// The sweep's tunings: (default) first, then copy_threads x stream_stores x stages x chunk.
std::vector<std::string> sweep_variants() {
    std::vector<std::string> out{""};
    for (int threads : {4, 8, 16})
        for (int streaming : {0, 1})
            for (int stages : {2, 3, 4})
                for (int chunk_mb : {0, 8, 32}) {
                    std::string v = "copy_threads=" + std::to_string(threads) + ",stream_stores=" +
                                    std::to_string(streaming) + ",stages=" + std::to_string(stages);
                    if (chunk_mb) v += ",chunk_mb=" + std::to_string(chunk_mb);
                    out.push_back(v);
                }
    return out;
}

// H2D bandwidth (GB/s) of `bytes` from `src`, event-timed median.
double h2d_gbs(Bench& b, const void* src, size_t bytes, int runs) {
    Timer t(b.stream);
    const double us = t.median_us(2, runs, [&] { CK(cudaMemcpyAsync(b.image, src, bytes, cudaMemcpyHostToDevice, b.stream)); });
    return bytes / us / 1e3;
}

}  // namespace

// --host-sweep: host images through engine->compute() under a grid of staging tunings, against
// the pinned and pageable cudaMemcpy bandwidth of the same bytes measured in the same run (and
// the pinned one again after the sweep: the host is shared). Each variant's counts are checked
// against the CPU backend's once; the best of the grid is then run with ramp=1 too. 2 sizes x
// 56 variants x 18 calls: about a minute on the H200 host (16384^2 takes ~20-40 ms a call), so
// the whole grid the issue asks for fits in the 3 minutes.
void host_sweep(Bench& b, const Options& o) {
    const imghist::Request rgb = rgb_request();
    const int runs = o.quick ? 5 : 15;
    const std::vector<std::string> variants = sweep_variants();
    std::vector<SweepImage> images;
    for (const Size& s : {Size{"8K", 7680, 4320, runs}, Size{"16384^2", 16384, 16384, runs}}) {
        SweepImage im{s, std::vector<unsigned char>(size_t(s.w) * s.h * 4), {}};
        CK(generate_rgba8(b.image, s.w, s.h, kRandom, b.stream));
        CK(cudaStreamSynchronize(b.stream));
        CK(cudaMemcpy(im.host.data(), b.image, im.host.size(), cudaMemcpyDeviceToHost));
        im.want = imghist::create_engine("cpu")->compute(
            imghist::ImageView::packed(im.host.data(), s.w, s.h, imghist::PixelFormat::rgba8), rgb);
        images.push_back(std::move(im));
    }
    line("device: %s; host: %u hardware threads; imghist tune: '%s'", b.props.name, std::thread::hardware_concurrency(),
         o.default_tune.c_str());
    line("Host-resident sweep: RGBA8 (pageable std::vector, random), R,G,B, engine->compute(); host clock, median of %d"
         " after 2 warm-ups; counts checked against the cpu backend", runs);
    // share[v][i]: variant v's % of the pinned bandwidth on image i.
    std::vector<std::vector<double>> share(variants.size(), std::vector<double>(images.size(), 0));
    for (size_t i = 0; i < images.size(); ++i) {
        const SweepImage& im = images[i];
        const size_t bytes = im.host.size();
        void* pinned = nullptr;
        CK(cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault));
        std::memcpy(pinned, im.host.data(), bytes);
        const double pin = h2d_gbs(b, pinned, bytes, runs);
        const double page = h2d_gbs(b, im.host.data(), bytes, runs);
        line("%s", "");
        line("%s %.1f MB: H2D pinned %.1f GB/s (%.2f ms), pageable %.1f GB/s (%.2f ms)", im.size.name, bytes / 1e6, pin,
             bytes / pin / 1e6, page, bytes / page / 1e6);
        line("  %-52s %8s %7s %8s", "variant", "ms", "GB/s", "%pinned");
        const auto view = imghist::ImageView::packed(im.host.data(), im.size.w, im.size.h, imghist::PixelFormat::rgba8);
        // One variant: checked once, timed, printed; its share of the pinned bandwidth.
        auto measure = [&](const std::string& variant) {
            const std::string tune = o.default_tune.empty() ? variant
                                     : variant.empty()      ? o.default_tune
                                                            : o.default_tune + "," + variant;
            set_tune(tune.c_str());
            auto e = imghist::cuda::create_engine();
            const char* name = variant.empty() ? "(default)" : variant.c_str();
            if (!e->compute(view, rgb).same_histograms(im.want)) {
                line("MISMATCH %s %s: counts differ from the cpu backend's", im.size.name, name);
                ++b.failures;
            }
            const double us = host_median_us(2, runs, [&] { (void)e->compute(view, rgb); });
            const double gbs = bytes / us / 1e3;
            line("  %-52s %8.3f %7.1f %7.0f%%", name, us / 1e3, gbs, 100 * gbs / pin);
            return 100 * gbs / pin;
        };
        size_t best = 0;
        for (size_t v = 0; v < variants.size(); ++v) {
            share[v][i] = measure(variants[v]);
            if (share[v][i] > share[best][i]) best = v;
        }
        // Ramp-up (smaller first chunks) on the best, off the grid to keep the sweep short.
        const std::string ramped = variants[best].empty() ? "ramp=1" : variants[best] + ",ramp=1";
        const double ramp_share = measure(ramped);
        set_tune(o.default_tune.c_str());
        const double pin_after = h2d_gbs(b, pinned, bytes, runs);
        line("%s best of the grid: %s, %.0f%% of pinned; with ramp=1 %.0f%% (pinned H2D re-measured after the sweep:"
             " %.1f GB/s)", im.size.name, variants[best].empty() ? "(default)" : variants[best].c_str(), share[best][i],
             ramp_share, pin_after);
        CK(cudaFreeHost(pinned));
    }
    // The tuning for every size: the highest lowest share.
    size_t best = 0;
    auto worst = [&](size_t v) { return *std::min_element(share[v].begin(), share[v].end()); };
    for (size_t v = 1; v < variants.size(); ++v)
        if (worst(v) > worst(best)) best = v;
    line("%s", "");
    line("best on every size: %s, at least %.0f%% of pinned (default: at least %.0f%%)",
         variants[best].empty() ? "(default)" : variants[best].c_str(), worst(best), worst(0));
}

namespace {

// packed/ahead: the packed fast path (8-bit, and with packed_float f16/f32); packed=0 (or
// packed_float=0 for floats): the generic tiled kernel; graph=0: launched directly instead
// of replayed from the engine's cached graph.
const char* const kVariants[] = {"", "early=0", "slot_merge=0", "early=0,slot_merge=0", "float_lut=0", "graph=0", "ahead=1",
                                 "packed=0", "block=512", "packed=0,layout=lanes16", "packed_float=0"};
const char* variant_name(const char* v) { return *v ? v : "(default)"; }

enum Sample { u8, f32, f16 };
struct Case {
    const char* name;
    uint32_t w, h;
    int dist, runs;
    imghist::Mode mode;
    Sample sample = u8;
};
const Case kCases[] = {{"1080p rnd", 1920, 1080, kRandom, 300, imghist::Mode::rgb},
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

// The case's image generated into b.image, as a device view.
imghist::DeviceImage generate_case(Bench& b, const Case& c) {
    CK(c.sample == f32   ? generate_rgba_f32(b.image, c.w, c.h, c.dist, b.stream)
       : c.sample == f16 ? generate_rgba_f16(b.image, c.w, c.h, c.dist, b.stream)
                         : generate_rgba8(b.image, c.w, c.h, c.dist, b.stream));
    CK(cudaStreamSynchronize(b.stream));
    const auto format = c.sample == f32   ? imghist::PixelFormat::rgba_f32
                        : c.sample == f16 ? imghist::PixelFormat::rgba_f16
                                          : imghist::PixelFormat::rgba8;
    return on_device(b.image, c.w, c.h, format);
}

// One column of the variants table: the floor, then every variant's time and share, each
// variant's counts checked (RGBA8 R,G,B against CUB; floats against packed_float=0).
void variants_column(Bench& b, const Options& o, const Case& c,
                     const std::vector<std::unique_ptr<imghist::cuda::Engine>>& engines, std::string& floors,
                     std::vector<std::string>& rows) {
    char buf[64];
    const uint64_t px = uint64_t(c.w) * c.h;
    const auto view = generate_case(b, c);
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
        set_tune(o.default_tune.c_str());
    }
    for (size_t i = 0; i < rows.size(); ++i) {
        const double us = b.imghist_us(*engines[i], view, req, c.runs);
        if (generic && !engines[i]->compute_device(view, req, b.stream).same_histograms(*generic)) {
            line("MISMATCH %s %s: counts differ from packed_float=0", c.name, variant_name(kVariants[i]));
            ++b.failures;
        }
        if (vs_cub)
            b.check_against_cub(*engines[i], view, (std::string(c.name) + " " + variant_name(kVariants[i])).c_str());
        std::snprintf(buf, sizeof buf, "%6.1f (%3.0f%%) ", us, 100.0 * fl / us);
        rows[i] += buf;
    }
}

}  // namespace

void kernel_variants_table(Bench& b, const Options& o) {
    line("%s", "");
    line("Kernel variants (IMGHIST_CUDA_TUNE), RGBA8 (f32/f16: RGBA float, 257 bins), us (median) and share of the floor;"
         " RGBA8 R,G,B counts checked against CUB, float counts against packed_float=0");
    std::vector<std::unique_ptr<imghist::cuda::Engine>> engines;
    for (const char* v : kVariants) {
        set_tune(v);
        engines.push_back(imghist::cuda::create_engine());
    }
    set_tune(o.default_tune.c_str());
    std::string head = "variant                   ";
    std::vector<std::string> rows(std::size(kVariants));
    for (size_t i = 0; i < rows.size(); ++i) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%-26s", variant_name(kVariants[i]));
        rows[i] = buf;
    }
    std::string floors = "floor                     ";
    for (const Case& c : kCases) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%-14s", c.name);
        head += buf;
        variants_column(b, o, c, engines, floors, rows);
    }
    line("%s", head.c_str());
    line("%s", floors.c_str());
    for (const auto& r : rows) line("%s", r.c_str());
}

}  // namespace imghist_bench
