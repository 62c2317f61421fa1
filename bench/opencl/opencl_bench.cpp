// OpenCL benchmark: imghist's opencl backend against the read-only floor and the seed's own
// kernels (Listings 14.2 and 14.5 with the 14.3 summing kernel, ported to buffers), all on
// pixels already on the device, timed with OpenCL profiling events after a warm-up (median).
//
// Usage: imghist_opencl_bench [--quick] [--runs N] [--sweep] [--masks] [--out FILE]
//   --quick  small images (for a CPU device such as PoCL: checks the program, not the speed)
//   --masks  only the device masks and alpha thresholds table (masks_table)
//   --sweep  also time the backend's tuning variants (IMGHIST_OPENCL_TUNE, kSweep*) on 8K and
//            16384^2 random and bank-adversarial RGBA8 (R, G, B) and on 8K luminance and R G B + Y,
//            each checked against the cpu backend
// The device is IMGHIST_OPENCL_DEVICE (as for the backend), else the first GPU.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "imghist/imghist.hpp"
#include "imghist/opencl.hpp"

#include "bench_common.hpp"
#include "result_checks.hpp"

extern const unsigned char imghist_opencl_bench_kernels[];
extern const unsigned long long imghist_opencl_bench_kernels_size;

namespace {

using namespace imghist;
using bench::Dist;
using bench::dist_name;

void check(cl_int err, const char* what) {
    if (err != CL_SUCCESS) {
        std::fprintf(stderr, "%s failed: %d\n", what, err);
        std::exit(2);
    }
}

// ---- images ------------------------------------------------------------------------------

std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull; x ^= x >> 33;
    return x;
}

// Samples in [0, 1] (float) or [0, 255] (8-bit), the distributions of tests/support.
std::vector<std::byte> make_pixels(std::uint32_t w, std::uint32_t h, bool is_float, Dist dist, std::uint64_t seed) {
    const std::size_t bytes = std::size_t(w) * h * 4 * (is_float ? 4 : 1);
    std::vector<std::byte> out(bytes);
    const int bank_base = int(mix(seed) % 32);
    std::vector<float> wave(std::size_t(w) * 4);
    for (std::uint32_t x = 0; x < w; ++x)
        for (int c = 0; c < 4; ++c) wave[std::size_t(x) * 4 + c] = float(0.1 * std::sin(0.05 * x + c));
    bench::on_every_core([&](unsigned t, unsigned nt) {
        for (std::uint32_t y = t; y < h; y += nt) {
            std::uint64_t s = mix(seed ^ (std::uint64_t(y) << 20));
            for (std::uint32_t x = 0; x < w; ++x) {
                for (int c = 0; c < 4; ++c) {
                    s = s * 6364136223846793005ull + 1442695040888963407ull;
                    const std::uint32_t r = std::uint32_t(s >> 32);
                    float u;
                    int b;
                    switch (dist) {
                        case Dist::random: u = float(r) * (1.0f / 4294967296.0f); b = int(r >> 24); break;
                        case Dist::constant: u = 0.4f; b = 102; break;
                        case Dist::bank: b = bank_base + 32 * int(r >> 29); u = (float(b) + 0.5f) / 256.0f; break;
                        default: {
                            const float noise = (float((r >> 16) & 0xFFFF) + float(r & 0xFFFF)) / 65536.0f - 1.0f;
                            u = 0.45f * float(x) / float(std::max(1u, w - 1)) + 0.35f * float(y) / float(std::max(1u, h - 1)) +
                                wave[std::size_t(x) * 4 + c] + 0.1f + 0.05f * noise;
                            u = std::clamp(u, 0.0f, 1.0f);
                            b = int(std::lround(u * 255.0f));
                        }
                    }
                    const std::size_t i = (std::size_t(y) * w + x) * 4 + c;
                    if (is_float) std::memcpy(&out[i * 4], &u, 4);
                    else out[i] = std::byte(b);
                }
            }
        }
    });
    return out;
}

// ---- timing ------------------------------------------------------------------------------

double event_span(cl_event first, cl_event last) {
    cl_ulong s = 0, e = 0;
    check(clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof s, &s, nullptr), "profiling");
    check(clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof e, &e, nullptr), "profiling");
    return double(e - s) * 1e-9;
}

struct Cl {
    cl_device_id device = nullptr;
    cl_context context = nullptr;
    cl_command_queue queue = nullptr;
    cl_program program = nullptr;
    std::string name;
    cl_uint cus = 1;
};

Cl open_device() {
    // The backend's own selection rules, through a throwaway engine: same device, same id.
    std::string want;
    if (const char* env = std::getenv("IMGHIST_OPENCL_DEVICE")) want = env;
    std::string id;
    const auto devices = find_backend("opencl")->devices();
    for (const auto& d : devices) {
        std::cout << "  opencl device " << d.id << ": " << d.name << (d.is_gpu ? " (GPU)" : "")
                  << (d.available ? "" : " [unusable]") << " - " << d.note << "\n";
    }
    const std::string chosen = create_engine("opencl")->device_name();
    for (const auto& d : devices)
        if (d.available && d.name == chosen && id.empty()) id = d.id;
    Cl cl;
    const unsigned pi = unsigned(std::stoul(id.substr(0, id.find(':'))));
    const unsigned di = unsigned(std::stoul(id.substr(id.find(':') + 1)));
    cl_uint np = 0;
    check(clGetPlatformIDs(0, nullptr, &np), "clGetPlatformIDs");
    std::vector<cl_platform_id> ps(np);
    clGetPlatformIDs(np, ps.data(), nullptr);
    cl_uint nd = 0;
    clGetDeviceIDs(ps[pi], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd);
    std::vector<cl_device_id> ds(nd);
    clGetDeviceIDs(ps[pi], CL_DEVICE_TYPE_ALL, nd, ds.data(), nullptr);
    cl.device = ds[di];
    cl.name = chosen;
    clGetDeviceInfo(cl.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cl.cus, &cl.cus, nullptr);
    cl_int err = CL_SUCCESS;
    cl.context = clCreateContext(nullptr, 1, &cl.device, nullptr, nullptr, &err);
    check(err, "clCreateContext");
    cl.queue = clCreateCommandQueue(cl.context, cl.device, CL_QUEUE_PROFILING_ENABLE, &err);
    check(err, "clCreateCommandQueue");
    const char* src = reinterpret_cast<const char*>(imghist_opencl_bench_kernels);
    const std::size_t len = std::size_t(imghist_opencl_bench_kernels_size);
    cl.program = clCreateProgramWithSource(cl.context, 1, &src, &len, &err);
    check(err, "clCreateProgramWithSource");
    if (clBuildProgram(cl.program, 1, &cl.device, "-cl-std=CL1.2", nullptr, nullptr) != CL_SUCCESS) {
        char log[8192] = {};
        clGetProgramBuildInfo(cl.program, cl.device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, nullptr);
        std::fprintf(stderr, "bench kernels failed to build:\n%s\n", log);
        std::exit(2);
    }
    return cl;
}

cl_kernel make_kernel(const Cl& cl, const char* name) {
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(cl.program, name, &err);
    check(err, name);
    return k;
}

template <typename T>
void arg(cl_kernel k, cl_uint i, const T& v) {
    check(clSetKernelArg(k, i, sizeof(T), &v), "clSetKernelArg");
}

struct Options {
    bool quick = false, sweep = false, masks = false;
    int runs = 30;
    std::string out;
};

// Median seconds of `body` (which returns one run's device seconds), after warm-up runs and
// kGpuWarmMs of them (bench::keep_busy: the GPU's clocks up).
template <typename F>
double time_median(const Options& o, F&& body) {
    for (int i = 0; i < 3; ++i) body();
    bench::keep_busy(bench::kGpuWarmMs, body);
    return bench::median_of(o.runs, body);
}

double time_floor(const Cl& cl, const Options& o, cl_mem img, std::size_t bytes, cl_mem scratch) {
    cl_kernel k = make_kernel(cl, "read_floor");
    const cl_ulong n = bytes / 16;
    arg(k, 0, img);
    arg(k, 1, n);
    arg(k, 2, scratch);
    double best = 1e30;
    for (std::size_t per_cu : {4, 8, 16, 32}) {
        const std::size_t local = 256, global = cl.cus * per_cu * local;
        best = std::min(best, time_median(o, [&] {
            cl_event e;
            check(clEnqueueNDRangeKernel(cl.queue, k, 1, nullptr, &global, &local, 0, nullptr, &e), "read_floor");
            clWaitForEvents(1, &e);
            const double s = event_span(e, e);
            clReleaseEvent(e);
            return s;
        }));
    }
    clReleaseKernel(k);
    return best;
}

// The seed's two-kernel algorithm; returns median seconds and the R, G, B counts of one run.
double time_seed(const Cl& cl, const Options& o, cl_mem img, std::uint32_t w, std::uint32_t h, int ppw,
                 std::vector<std::uint32_t>& counts) {
    cl_kernel part = make_kernel(cl, ppw == 1 ? "seed_partial_14_2" : "seed_partial_14_5");
    cl_kernel sum = make_kernel(cl, "seed_sum_14_3");
    // Listing 14.4's work-group shape from the kernel's limit.
    std::size_t wgs = 0;
    clGetKernelWorkGroupInfo(part, cl.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wgs, &wgs, nullptr);
    std::size_t gsize[2];
    if (wgs <= 256) { gsize[0] = 16; gsize[1] = wgs / 16; }
    else if (wgs <= 1024) { gsize[0] = wgs / 16; gsize[1] = 16; }
    else { gsize[0] = wgs / 32; gsize[1] = 32; }
    const std::size_t items_x = (std::size_t(w) + ppw - 1) / ppw;
    std::size_t global[2] = {(items_x + gsize[0] - 1) / gsize[0], (std::size_t(h) + gsize[1] - 1) / gsize[1]};
    const std::size_t groups = global[0] * global[1];
    global[0] *= gsize[0];
    global[1] *= gsize[1];
    cl_int err = CL_SUCCESS;
    cl_mem partials = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, groups * 768 * 4, nullptr, &err);
    check(err, "partials");
    cl_mem result = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, 768 * 4, nullptr, &err);
    check(err, "result");
    cl_uint ai = 0;
    arg(part, ai++, img);
    arg(part, ai++, cl_int(w));
    arg(part, ai++, cl_int(h));
    if (ppw != 1) arg(part, ai++, cl_int(ppw));
    arg(part, ai++, partials);
    arg(sum, 0, partials);
    arg(sum, 1, cl_int(groups));
    arg(sum, 2, result);
    std::size_t sum_wgs = 0;
    clGetKernelWorkGroupInfo(sum, cl.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof sum_wgs, &sum_wgs, nullptr);
    const std::size_t sum_global = 768, sum_local = std::min<std::size_t>(256, sum_wgs);
    const double t = time_median(o, [&] {
        cl_event a, b;
        check(clEnqueueNDRangeKernel(cl.queue, part, 2, nullptr, global, gsize, 0, nullptr, &a), "seed partial");
        check(clEnqueueNDRangeKernel(cl.queue, sum, 1, nullptr, &sum_global, &sum_local, 0, nullptr, &b), "seed sum");
        clWaitForEvents(1, &b);
        const double s = event_span(a, b);
        clReleaseEvent(a);
        clReleaseEvent(b);
        return s;
    });
    counts.assign(768, 0);
    check(clEnqueueReadBuffer(cl.queue, result, CL_TRUE, 0, 768 * 4, counts.data(), 0, nullptr, nullptr), "read");
    clReleaseMemObject(partials);
    clReleaseMemObject(result);
    clReleaseKernel(part);
    clReleaseKernel(sum);
    return t;
}

struct ImghistTime {
    double kernel = 0, total = 0;
    Result result;
};

ImghistTime time_imghist(const Cl& cl, const Options& o, cl_mem img, std::uint32_t w, std::uint32_t h,
                         PixelFormat f, const Request& r) {
    auto engine = opencl::create_engine(cl.queue);
    const DeviceImage src = opencl::device_image(img, w, h, f);
    ImghistTime out;
    std::vector<double> totals;
    out.kernel = time_median(o, [&] {
        out.result = opencl::compute(*engine, src, r);
        const auto t = opencl::last_device_times(*engine);
        totals.push_back(t ? t->total_seconds : 0);
        return t ? t->kernel_seconds : 0;
    });
    out.total = bench::median(totals);
    return out;
}

std::string us(double s) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", s * 1e6);
    return b;
}

std::string fixed(double v, int digits) {
    char b[32];
    std::snprintf(b, sizeof b, "%.*f", digits, v);
    return b;
}

// The --sweep configurations: the 8-bit layouts (histogram.cl), value mode, loads in flight,
// work-groups per CU. (NVIDIA reports 48 KiB of local memory but refuses a 48 KiB layout.)
const std::vector<const char*> kSweepRgb = {
    "layout=pairs,copies=8",                 // lane pairs, 8 copies (24 KiB for R, G, B)
    "layout=copies,copies=16,pack=1,swizzle=0",  // the previous default: 16 packed copies
    "layout=copies,copies=16,pack=1,gpc=8",  // 8 work-groups per CU
    "layout=copies,copies=1,pack=0,swizzle=0",  // one copy, value mode, no swizzle
    "layout=copies,copies=8,pack=0,loads=4",  // 8 plain 32-bit copies (24 KiB for R, G, B)
    "layout=copies,copies=4,pack=0,loads=4",  // 4 plain 32-bit copies (12 KiB)
    // All 48 KiB of local memory for R, G, B: 32 per-lane 16-bit copies. NVIDIA reports 48 KiB
    // but refuses to launch it (CL_OUT_OF_RESOURCES), which this line records.
    "layout=copies,copies=32,pack=1,reserve=0",
    // Value slots XOR-swizzled over the banks (histogram.cl, ih_value_slot; one copy is the default).
    "layout=copies,copies=2,pack=0,swizzle=1",
    "layout=copies,copies=4,pack=0,swizzle=1",
    "layout=copies,copies=8,pack=0,swizzle=1",
    "layout=copies,copies=16,pack=1,swizzle=1",
};
// Luminance alone (GPU default: one copy, value mode, not swizzled).
const std::vector<const char*> kSweepLuma = {"layout=pairs,copies=8", "layout=copies,copies=16,pack=1",
                                             "layout=copies,copies=1,pack=0,swizzle=1"};
// R G B + Y (the default: one copy with the value swizzle).
const std::vector<const char*> kSweepAll = {"swizzle=0", "layout=pairs,copies=8", "layout=pairs,copies=8,swizzle=0",
                                            "layout=copies,copies=8,pack=1"};

bool same_rgb(const Result& r, const std::vector<std::uint32_t>& seed) {
    for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 256; ++k)
            if (r.channels[c].counts[k] != seed[c * 256 + k]) return false;
    return true;
}

struct Case {
    std::string label;
    std::uint32_t w, h;
    bool is_float;
    Dist dist;
    Mode mode;
    bool seeds;  // time the seed kernels too (RGBA8 R, G, B)
    std::vector<const char*> sweep = {};  // tunings timed with --sweep
    std::vector<double> edges = {};       // edge bins instead of the default bins (issue 17)
};

// The table's rows, in order (--quick: smaller images, same cases).
std::vector<Case> make_cases(const Options& o) {
    const std::uint32_t W8 = o.quick ? 960 : 7680, H8 = o.quick ? 540 : 4320, S16 = o.quick ? 2048 : 16384;
    const std::string L8 = o.quick ? "960x540" : "8K", L16 = std::to_string(S16) + "^2";
    auto swept = [&](const std::vector<const char*>& tunings) {
        return o.sweep ? tunings : std::vector<const char*>{};
    };
    std::vector<Case> cases;
    for (Dist d : bench::kDists)
        cases.push_back({L8 + " rgba8 " + dist_name(d), W8, H8, false, d, Mode::rgb, true, swept(kSweepRgb)});
    for (Dist d : bench::kDists)
        cases.push_back({L16 + " rgba8 " + dist_name(d), S16, S16, false, d, Mode::rgb, true, swept(kSweepRgb)});
    cases.push_back({L8 + " rgba8 random, luma", W8, H8, false, Dist::random, Mode::luma, false, swept(kSweepLuma)});
    cases.push_back({L8 + " rgba8 random, R G B + Y", W8, H8, false, Dist::random, Mode::all, false, swept(kSweepAll)});
    cases.push_back({L8 + " rgba8 bank-adversarial, R G B + Y", W8, H8, false, Dist::bank, Mode::all, false,
                     swept(kSweepAll)});
    cases.push_back({L8 + " rgba_f32 random", W8, H8, true, Dist::random, Mode::rgb, false});
    cases.push_back({L8 + " rgba_f32 natural", W8, H8, true, Dist::natural, Mode::rgb, false});
    // Edge bins against the rows above: 256 EV bins (ev_edges(-8, 0, 32)) of R, G, B and of Y.
    const std::vector<double> ev = imghist::ev_edges(-8, 0, 32);
    for (Dist d : {Dist::random, Dist::natural})
        cases.push_back({L8 + " rgba_f32 " + dist_name(d) + ", 256 EV bins", W8, H8, true, d, Mode::rgb, false, {}, ev});
    cases.push_back({L8 + " rgba_f32 random, Y in 256 EV bins", W8, H8, true, Dist::random, Mode::luma, false, {}, ev});
    return cases;
}

// One case's image on the device, with what every measurement of it needs.
struct CaseImage {
    const Case& c;
    const std::vector<std::byte>& pixels;
    PixelFormat format;
    cl_mem img;
    Request request;
    Result want;  // the cpu backend's counts
};

// The seed columns of a row ("| 14.2 µs | 14.5 µs | × vs 14.5 "), dashes where not timed.
std::string seed_columns(const Cl& cl, const Options& o, const CaseImage& ci, double imghist_kernel) {
    if (!ci.c.seeds) return "| — | — | — ";
    std::vector<std::uint32_t> h2, h5;
    const double t2 = time_seed(cl, o, ci.img, ci.c.w, ci.c.h, 1, h2);
    const double t5 = time_seed(cl, o, ci.img, ci.c.w, ci.c.h, 32, h5);
    const bool seeds_ok = same_rgb(ci.want, h2) && same_rgb(ci.want, h5);
    if (!seeds_ok) std::cout << "  note: a seed kernel's counts differ from the reference on " << ci.c.label << "\n";
    return "| " + us(t2) + " | " + us(t5) + " | " + fixed(t5 / imghist_kernel, 1) + "× ";
}

// The --sweep lines of a case: each tuning over the defaults, checked against the cpu backend.
bool sweep_case(const Cl& cl, const Options& o, const CaseImage& ci, double floor, std::ostringstream& table) {
    bool all_ok = true;
    table << "\nsweep on " << ci.c.label << " (IMGHIST_OPENCL_TUNE over the defaults; floor " << us(floor) << " µs):\n";
    for (const char* tune : ci.c.sweep) {
        setenv("IMGHIST_OPENCL_TUNE", tune, 1);
        ImghistTime t;
        try {
            t = time_imghist(cl, o, ci.img, ci.c.w, ci.c.h, ci.format, ci.request);
        } catch (const std::exception& e) {
            // A variant the device cannot run (say, a layout over its local memory).
            unsetenv("IMGHIST_OPENCL_TUNE");
            table << "  " << tune << ": failed: " << e.what() << "\n";
            continue;
        }
        unsetenv("IMGHIST_OPENCL_TUNE");
        const bool tok = bench::same_histograms_as_device(t.result, ci.want);
        all_ok = all_ok && tok;
        table << "  " << tune << ": " << us(t.kernel) << " µs (" << fixed(100.0 * floor / t.kernel, 0)
              << "% of floor), +clear/read " << us(t.total) << " µs" << (tok ? "" : " MISMATCH") << "\n";
    }
    table << "\n";
    return all_ok;
}

// One row of the table (and its sweep): floor, imghist, the cpu reference, the seeds.
bool run_case(const Cl& cl, const Options& o, Engine& cpu, const Case& c, std::uint64_t seed, cl_mem scratch,
              std::ostringstream& table) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<std::byte> pixels = make_pixels(c.w, c.h, c.is_float, c.dist, seed);
    const PixelFormat f = c.is_float ? PixelFormat::rgba_f32 : PixelFormat::rgba8;
    cl_int err = CL_SUCCESS;
    cl_mem img = clCreateBuffer(cl.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, pixels.size(),
                                const_cast<std::byte*>(pixels.data()), &err);
    check(err, "image buffer");
    Request r;
    r.mode = c.mode;
    r.bins.edges = c.edges;
    const double floor = time_floor(cl, o, img, pixels.size(), scratch);
    const ImghistTime ih = time_imghist(cl, o, img, c.w, c.h, f, r);
    const CaseImage ci{c, pixels, f, img, r, cpu.compute(ImageView::packed(pixels.data(), c.w, c.h, f), r)};
    bool ok = bench::same_histograms_as_device(ih.result, ci.want);
    const std::string seeds = seed_columns(cl, o, ci, ih.kernel);
    table << "| " << c.label << " | " << us(floor) << " | " << us(ih.kernel) << " | "
          << fixed(100.0 * floor / ih.kernel, 0) << "% | " << us(ih.total) << " " << seeds << "| "
          << (ok ? "= cpu" : "MISMATCH") << " |\n";
    std::cout << "  " << c.label << ": floor " << us(floor) << " µs, imghist " << us(ih.kernel) << " µs ("
              << us(ih.total) << " µs with clear/read) " << (ok ? "ok" : "MISMATCH") << " ["
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s]\n";
    if (!c.sweep.empty()) ok = sweep_case(cl, o, ci, floor, table) && ok;
    clReleaseMemObject(img);
    return ok;
}

// 8K natural RGBA8 and RGBA f32, R, G, B: the whole image against device masks (every pixel, a
// centred disc, noise: bench_mask_bytes) and alpha above one half, each checked against the cpu
// backend's host mask; the mask's read-only floor is what a selection may add at most.
bool masks_table(const Cl& cl, const Options& o, Engine& cpu, cl_mem scratch, std::ostringstream& table) {
    const std::uint32_t w = o.quick ? 960 : 7680, h = o.quick ? 540 : 4320;
    const std::size_t px = std::size_t(w) * h;
    cl_int err = CL_SUCCESS;
    cl_mem mask = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, px, nullptr, &err);
    check(err, "mask buffer");
    const double mask_floor = time_floor(cl, o, mask, px, scratch);
    table << "device masks and alpha thresholds, " << w << "x" << h << " natural, R, G, B; mask floor (a read of its "
          << px << " bytes) " << us(mask_floor) << " µs\n";
    table << "| input | imghist µs | × whole | +clear/read µs | check |\n|---|---|---|---|---|\n";
    bool all_ok = true;
    for (const bool is_float : {false, true}) {
        const std::vector<std::byte> pixels = make_pixels(w, h, is_float, Dist::natural, 7);
        const PixelFormat f = is_float ? PixelFormat::rgba_f32 : PixelFormat::rgba8;
        cl_mem img = clCreateBuffer(cl.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, pixels.size(),
                                    const_cast<std::byte*>(pixels.data()), &err);
        check(err, "image buffer");
        const ImageView view = ImageView::packed(pixels.data(), w, h, f);
        const std::string name = is_float ? "RGBA f32 R,G,B " : "RGBA8 R,G,B ";
        double whole = 0;
        // host: the same request with the mask in host memory, for the cpu backend's check.
        const auto row = [&](const std::string& what, const Request& r, const Request& host) {
            const ImghistTime t = time_imghist(cl, o, img, w, h, f, r);
            if (whole == 0) whole = t.kernel;
            const bool ok = bench::same_histograms_as_device(t.result, cpu.compute(view, host));
            all_ok = all_ok && ok;
            table << "| " << name << what << " | " << us(t.kernel) << " | " << fixed(t.kernel / whole, 2) << " | "
                  << us(t.total) << " | " << (ok ? "= cpu" : "MISMATCH") << " |\n";
            std::cout << "  " << name << what << ": " << us(t.kernel) << " µs " << (ok ? "ok" : "MISMATCH") << "\n";
        };
        Request r;
        r.mode = Mode::rgb;
        row("whole", r, r);
        for (const char* kind : {"all", "disc", "noise"}) {
            const std::vector<std::uint8_t> bytes = bench::bench_mask_bytes(kind, w, h);
            check(clEnqueueWriteBuffer(cl.queue, mask, CL_TRUE, 0, px, bytes.data(), 0, nullptr, nullptr), "mask");
            Request device = r, host = r;
            device.device_mask = opencl::device_image(mask, w, h, PixelFormat::gray8);
            host.mask = ImageView::packed(bytes.data(), w, h, PixelFormat::gray8);
            row(std::string("mask ") + kind, device, host);
        }
        Request alpha = r;
        alpha.alpha_threshold = is_float ? 0.5 : 127.5;
        row("alpha above half", alpha, alpha);
        clReleaseMemObject(img);
    }
    clReleaseMemObject(mask);
    return all_ok;
}

bool parse_options(int argc, char** argv, Options& o) {
    return bench::parse_args(argc, argv, {{"--quick", &o.quick}, {"--sweep", &o.sweep}, {"--masks", &o.masks}},
                             {{"--runs", [&](const char* v) { o.runs = std::atoi(v); }},
                              {"--out", [&](const char* v) { o.out = v; }}});
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parse_options(argc, argv, o)) {
        std::cerr << "usage: imghist_opencl_bench [--quick] [--sweep] [--masks] [--runs N] [--out FILE]\n";
        return 2;
    }
    if (const char* t = std::getenv("IMGHIST_OPENCL_TUNE")) std::cout << "IMGHIST_OPENCL_TUNE=" << t << "\n";
    Cl cl = open_device();
    std::cout << "device: " << cl.name << " (" << cl.cus << " compute units)\n";
    auto cpu = create_engine("cpu");
    const std::vector<Case> cases = make_cases(o);

    std::ostringstream table;
    table << "device: " << cl.name << "; OpenCL profiling events, " << o.runs
          << " runs after 3 warm-ups, median; pixels already on the device\n";
    table << "imghist = the backend's kernels (first histogram kernel start -> last merge kernel end);\n"
             "  +clear/read = the whole compute on the device (zeroing the counters ... reading them back)\n";
    bool all_ok = true;
    cl_int err = CL_SUCCESS;
    cl_mem scratch = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, 64, nullptr, &err);
    check(err, "scratch");
    if (o.masks) {
        all_ok = masks_table(cl, o, *cpu, scratch, table);
    } else {
        table << "| image | floor µs | imghist µs | % of floor | imghist +clear/read µs | seed 14.2 µs | seed 14.5 µs | "
                 "× vs 14.5 | check |\n|---|---|---|---|---|---|---|---|---|\n";
        std::uint64_t seed = 1;
        for (const Case& c : cases) all_ok = run_case(cl, o, *cpu, c, ++seed, scratch, table) && all_ok;
    }
    clReleaseMemObject(scratch);
    std::cout << "\n" << table.str();
    if (!o.out.empty()) std::ofstream(o.out) << table.str();
    return all_ok ? 0 : 1;
}
