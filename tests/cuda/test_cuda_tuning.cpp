// CUDA launch variants forced through IMGHIST_CUDA_TUNE: every shared-memory counter layout,
// forced flushes and bytewise loads, and the packed 8-bit and float fast paths with each of their
// knobs; bit for bit against the reference backend.
#include <gtest/gtest.h>

#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "cuda_test_support.hpp"
#include "histogram_asserts.hpp"
#include "selection_checks.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

using namespace cuda_test;
using testing::expect_same_histograms;
using testing::make_image;
using testing::Pattern;
using testing::TestImage;

// Every counter layout and loop variant the engine can pick, forced, on the host and device paths;
// and the host path's staging knobs (stages, stream_stores, copy_threads, ramp).
TEST(CudaTuning, EveryLayoutAndVariantMatchesReference) {
    REQUIRE_GPU();
    auto reference = create_engine("reference");
    const char* tunes[] = {"layout=lanes32", "layout=lanes16", "layout=copies", "layout=global",
                           "scalar=1", "flush=1,layout=lanes16", "block=1024,gpt=1", "block=64,gpt=3,chunk_mb=1",
                           "blocks_per_sm=1,block=256", "acc_stride=16,prefetch=1",
                           // host staging: buffers in flight, memcpy or streaming stores, copy threads
                           "stages=2,stream_stores=0,chunk_mb=1", "stages=4,stream_stores=1,chunk_mb=1,copy_threads=7",
                           "ramp=1,chunk_mb=1,stages=3"};
    std::uint64_t seed = 500;
    for (const char* tune : tunes) {
        TuneScope scope(tune);
        auto engine = cuda::create_engine();
        for (PixelFormat format : testing::plan_pixel_formats()) {
            const FormatInfo& fi = format_info(format);
            const TestImage img = make_image(format, 1000 + 3, 173, Pattern::specials, ++seed, 8);
            DeviceCopy d = upload(img.view, img.view.stride_bytes);
            ASSERT_NE(d.mem.ptr, nullptr);
            for (const auto& [name, request] : requests(fi)) {
                const std::string what = std::string(tune) + " " + std::string(fi.name) + " " + name;
                const Result want = reference->compute(img.view, request);
                expect_same_histograms(engine->compute(img.view, request), want, what + " (host)");
                expect_same_histograms(engine->compute_device(d.view, request), want, what + " (device)");
            }
        }
    }
}

// Images on the packed fast paths: their device copies and the reference's results, made once
// and checked under every tune.
struct PackedShape {
    std::uint32_t w, h;
    std::size_t pad, offset_pixels;
};
struct PackedCase {
    std::string where;
    TestImage img;
    DeviceCopy dev;
    NamedRequests requests;
    std::vector<Result> want;
};
using RequestsFor = NamedRequests (*)(const FormatInfo&);

// The formats of 8-bit samples, in all_pixel_formats' order.
std::vector<PixelFormat> eight_bit_formats() {
    std::vector<PixelFormat> out;
    for (PixelFormat f : all_pixel_formats)
        if (format_info(f).sample == SampleType::u8) out.push_back(f);
    return out;
}

void make_packed_cases(std::vector<PackedCase>& cases, const std::vector<PixelFormat>& formats,
                       std::initializer_list<PackedShape> shapes, std::initializer_list<Pattern> patterns,
                       RequestsFor requests_for, std::uint64_t seed) {
    auto reference = create_engine("reference");
    for (PixelFormat format : formats) {
        const FormatInfo& fi = format_info(format);
        for (const PackedShape& sh : shapes) {
            PackedCase c;
            const Pattern pattern = patterns.begin()[seed % patterns.size()];
            c.img = make_image(format, sh.w, sh.h, pattern, ++seed, sh.pad);
            c.dev = upload(c.img.view, sh.pad ? c.img.view.stride_bytes : 0, sh.offset_pixels * fi.pixel_bytes());
            ASSERT_NE(c.dev.mem.ptr, nullptr);
            c.where = std::string(fi.name) + " " + std::to_string(sh.w) + "x" + std::to_string(sh.h) + " pad " +
                      std::to_string(sh.pad) + " offset " + std::to_string(sh.offset_pixels) + " " +
                      testing::pattern_name(pattern);
            c.requests = requests_for(fi);
            for (const auto& r : c.requests) c.want.push_back(reference->compute(c.img.view, r.second));
            cases.push_back(std::move(c));
        }
    }
}

// compute_device, then compute_device_async twice (the second call reuses the engine's cached
// shape; the next request or image changes it), for every case under every tune.
void check_packed_cases(const std::vector<PackedCase>& cases, std::initializer_list<const char*> tunes) {
    for (const char* tune : tunes) {
        TuneScope scope(tune);
        auto engine = cuda::create_engine();
        for (const PackedCase& c : cases) {
            const PixelFormat format = c.img.view.format;
            for (std::size_t i = 0; i < c.requests.size(); ++i) {
                const Request& request = c.requests[i].second;
                const Result& want = c.want[i];
                const std::string what = std::string(tune) + " " + c.where + " " + c.requests[i].first;
                expect_same_histograms(engine->compute_device(c.dev.view, request), want, what);
                const std::size_t n = engine->slot_count(format, request);
                DeviceMemory out(2 * n * sizeof(std::uint64_t));
                auto* slots = static_cast<std::uint64_t*>(out.ptr);
                engine->compute_device_async(c.dev.view, request, slots, nullptr);
                engine->compute_device_async(c.dev.view, request, slots + n, nullptr);
                std::vector<std::uint64_t> back(2 * n);
                CK(cudaMemcpy(back.data(), slots, back.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
                for (int k = 0; k < 2; ++k)
                    expect_same_histograms(engine->unpack(c.dev.view, request, std::span(back.data() + k * n, n)), want,
                                           what + " async #" + std::to_string(k));
            }
        }
    }
}

// The packed 8-bit fast path (one long row of gray8, rgba8 or bgra8) and each of its knobs,
// forced: vector-even split, next step loaded ahead or not, first loads before or after the
// counters are zeroed, the per-slot merge or the last-block pass (also forced by a grid past
// kMaxArrivals blocks), flushes after every step (also with tiny blocks: many flushes), two
// blocks per SM, and the generic kernel (packed=0). Heads (start not 16-byte aligned) and tails
// (length not whole vectors), pitched, rgb8 and bgr8 images (which take the generic kernel),
// compute_device and compute_device_async with the engine's cached shape (the same request on
// another image, another request on the same image).
TEST(CudaPacked, EveryKnobMatchesReference) {
    REQUIRE_GPU();
    std::vector<PackedCase> cases;
    make_packed_cases(cases, eight_bit_formats(),
                      {{1000, 173, 0, 0}, {1000, 173, 0, 1}, {1, 1, 0, 0}, {3, 1, 0, 3}, {4099, 257, 0, 2},
                       {333, 41, 12, 0}, {2048, 1024, 0, 0}},
                      {Pattern::random, Pattern::natural, Pattern::constant, Pattern::bank_adversarial}, requests, 900);
    check_packed_cases(cases, {"", "graph=0", "ahead=1", "packed=0", "flush=1", "flush=1,ahead=1", "block=64,flush=1",
                               "block=512", "block=96,ahead=0", "acc_stride=16", "blocks_per_sm=1,block=256",
                               "early=0", "slot_merge=0", "slot_merge=0,early=0,flush=1", "blocks_per_sm=8,block=64"});
}

// Every plan a gray or RGBA float image can have, for the float packed kernels (compile-time
// channels: R,G,B; R,G,B,A; Y; A,Y; R,G,B,Y; R,G,B,A,Y; gray), with the default closed rule and
// custom ranges that give below / above counts, clamped or not; 4096 bins take the generic kernel.
NamedRequests float_requests(const FormatInfo& fi) {
    NamedRequests out = requests(fi);
    Request r;
    r.mode = Mode::rgb;
    r.count_alpha = true;
    r.bins.bins = 300;
    r.bins.range = {-0.25, 1.5};
    r.bins.clamp = true;
    out.push_back({"rgb alpha 300 bins clamp", r});
    r = Request{};
    r.mode = Mode::luma;
    r.count_alpha = true;
    r.bins.bins = 100;
    r.bins.range = {0.125, 0.75};
    out.push_back({"luma alpha 100 bins [0.125, 0.75)", r});
    r.weights = LumaWeights::rec2020();
    r.bins.clamp = true;
    out.push_back({"luma alpha rec2020 100 bins clamp", r});
    r = Request{};
    r.mode = Mode::all;
    r.bins.bins = 64;
    r.bins.range = {0.25, 0.75};
    r.bins.clamp = true;
    out.push_back({"all 64 bins clamp [0.25, 0.75)", r});
    r.count_alpha = true;
    r.mode = Mode::rgb;
    r.bins.clamp = false;
    out.push_back({"rgb alpha 64 bins [0.25, 0.75)", r});
    // Edge bins: the code table's edge hints (blocks with an edge inside [E_0, E_bins)) and the
    // blocks across the first and last edges, which are classified in full.
    r = Request{};
    r.mode = Mode::rgb;
    r.count_alpha = true;
    r.bins.edges = ev_edges(-8, 0, 32);
    r.bins.edges.insert(r.bins.edges.begin(), {-3.0, -1e-40, 0.0});
    out.push_back({"rgb alpha 259 edges: -3, -1e-40, 0, then EV -8:0:32", r});
    r.bins.clamp = true;
    out.push_back({"rgb alpha the same edges, clamp", r});
    return out;
}

// The packed float fast path (one long row of gray_f16/f32 or rgba_f16/f32) with the specials
// (NaN, +-Inf, -0, denormals, neighbours of bin edges) and random data, and the generic kernel
// (packed_float=0), with the knobs the float path shares with the 8-bit one (it ignores ahead)
// and its code table (float_lut: never, from 2^20 pixels, always);
// heads, tails, pitched images and rgb_f32 take the generic kernel or the edge code.
TEST(CudaPacked, FloatEveryKnobMatchesReference) {
    REQUIRE_GPU();
    std::vector<PackedCase> cases;
    make_packed_cases(cases, {PixelFormat::gray_f32, PixelFormat::gray_f16, PixelFormat::rgba_f32, PixelFormat::rgba_f16,
                              PixelFormat::rgb_f32},
                      {{1000, 173, 0, 0}, {1000, 173, 0, 1}, {1, 1, 0, 0}, {3, 1, 0, 3}, {4099, 257, 0, 2},
                       {333, 41, 12, 0}, {1024, 1024, 0, 0}},
                      {Pattern::specials, Pattern::specials, Pattern::random}, float_requests, 1300);
    check_packed_cases(cases, {"", "packed_float=0", "graph=0", "flush=1", "block=64,flush=1", "block=96",
                               "block=512,flush=2", "acc_stride=16", "blocks_per_sm=1,block=256", "slot_merge=0",
                               "slot_merge=0,flush=1", "blocks_per_sm=8,block=64", "float_lut=0", "float_lut=2",
                               "float_lut=2,flush=1,block=96", "float_lut=2,code_window=0",
                               "float_lut=2,code_window=2048,flush=1"});
}

// Gray pixels (v, v, v, 1) of every sample v of an rgba_f32 image: their luminance is v or a float
// beside it (the weights sum to 1), so it meets the edges and window block starts that v meets.
TestImage gray_pixels_of(const TestImage& img) {
    std::vector<float> values(img.storage.size() / 4);
    std::memcpy(values.data(), img.storage.data(), img.storage.size());
    TestImage gray;
    gray.storage.resize(values.size() * 16);
    auto* out = reinterpret_cast<float*>(gray.storage.data());
    for (std::size_t i = 0; i < values.size(); ++i) {
        out[4 * i] = out[4 * i + 1] = out[4 * i + 2] = values[i];
        out[4 * i + 3] = 1.0f;
    }
    const auto width = std::uint32_t(values.size() / 8);
    gray.view = ImageView{gray.storage.data(), width, 8, std::size_t(width) * 16, PixelFormat::rgba_f32};
    return gray;
}

// Float edge bins through the code window in shared memory (KernelParams::window_entries): every
// EV edge and the floats beside it, both sides of every window block's start, and specials, with
// the default window (blocks of 2^12 floats), coarser ones (2^16, 2^14) and a finer one (2^11),
// and the whole table (code_window=0), on the device image and its pitched copy (the generic kernel).
// Luminance (Y; R,G,B,Y) looks its own bits up in the window: counted on gray pixels of the same
// values, whose luminance lands on and beside the same edges.
TEST(CudaPacked, FloatEdgeBinsWithAndWithoutTheCodeWindow) {
    REQUIRE_GPU();
    Request r;
    r.bins.edges = ev_edges(-8, 0, 32);
    const TestImage img = testing::values_around_edges(r.bins.edges);
    const TestImage gray = gray_pixels_of(img);
    const DeviceCopy packed = upload(img.view);
    const DeviceCopy pitched = upload(img.view, img.view.stride_bytes + 64);
    const DeviceCopy gray_packed = upload(gray.view);
    const testing::Mask mask = testing::random_mask(gray.view.width, gray.view.height, 7);
    const DeviceCopy device_mask = upload(mask.view());
    auto reference = create_engine("reference");
    for (const char* tune : {"float_lut=2", "float_lut=2,code_window=2048", "float_lut=2,code_window=8192",
                             "float_lut=2,code_window=65536", "float_lut=2,code_window=0"}) {
        TuneScope scope(tune);
        auto engine = cuda::create_engine();
        for (const bool clamp : {false, true}) {
            r.bins.clamp = clamp;
            r.mode = Mode::rgb;
            r.count_alpha = clamp;
            r.weights = LumaWeights{};
            const Result want = reference->compute(img.view, r);
            const std::string what = std::string(tune) + (clamp ? " clamp" : "");
            expect_same_histograms(engine->compute_device(packed.view, r), want, what);
            expect_same_histograms(engine->compute_device(pitched.view, r), want, what + " (pitched)");
            for (const Mode mode : {Mode::luma, Mode::all}) {
                r.mode = mode;
                r.weights = clamp ? LumaWeights::rec601() : LumaWeights{};
                const std::string luma = what + (mode == Mode::luma ? " Y" : " R,G,B,Y");
                expect_same_histograms(engine->compute_device(gray_packed.view, r), reference->compute(gray.view, r), luma);
                expect_same_histograms(engine->compute_device(packed.view, r), reference->compute(img.view, r), luma + " (mixed)");
                Request masked = r, on_host = r;  // the selecting kernel's copy of the lookup
                masked.device_mask = device_mask.view;
                on_host.mask = mask.view();
                expect_same_histograms(engine->compute_device(gray_packed.view, masked), reference->compute(gray.view, on_host),
                                       luma + " (masked)");
            }
        }
    }
}

}  // namespace
}  // namespace imghist
