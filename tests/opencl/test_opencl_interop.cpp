// opencl interop: the caller's cl_mem buffer (packed, strided, offset) and image, on the caller's
// context and queue, against the reference; foreign engines, contexts and short buffers refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "backends/opencl/cl_util.hpp"
#include "imghist/imghist.hpp"
#include "imghist/opencl.hpp"
#include "histogram_asserts.hpp"
#include "interop_checks.hpp"
#include "opencl_test_support.hpp"
#include "sample_stats_checks.hpp"
#include "selection_checks.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

using ocl::Mem;
using opencl_test::ScopedEnv;
using testing::expect_same_histograms;
using testing::make_image;
using testing::Pattern;

struct ClSetup {
    cl_context context = nullptr;
    cl_device_id device = nullptr;
    cl_command_queue queue = nullptr;
    ~ClSetup() {
        if (queue) clReleaseCommandQueue(queue);
        if (context) clReleaseContext(context);
    }
};

// A context and queue of our own on the device the backend would pick.
void make_setup(ClSetup& s, cl_command_queue_properties props = CL_QUEUE_PROFILING_ENABLE) {
    const auto devices = find_backend("opencl")->devices();
    std::string id;
    for (const auto& d : devices)
        if (d.available) { id = d.id; break; }
    ASSERT_FALSE(id.empty());
    const unsigned pi = unsigned(std::stoul(id.substr(0, id.find(':'))));
    const unsigned di = unsigned(std::stoul(id.substr(id.find(':') + 1)));
    cl_uint np = 0;
    ASSERT_EQ(clGetPlatformIDs(0, nullptr, &np), CL_SUCCESS);
    std::vector<cl_platform_id> platforms(np);
    clGetPlatformIDs(np, platforms.data(), nullptr);
    cl_uint nd = 0;
    clGetDeviceIDs(platforms[pi], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd);
    std::vector<cl_device_id> ids(nd);
    clGetDeviceIDs(platforms[pi], CL_DEVICE_TYPE_ALL, nd, ids.data(), nullptr);
    s.device = ids[di];
    cl_int err = CL_SUCCESS;
    s.context = clCreateContext(nullptr, 1, &s.device, nullptr, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    s.queue = clCreateCommandQueue(s.context, s.device, props, &err);
    ASSERT_EQ(err, CL_SUCCESS);
}

cl_mem upload(const ClSetup& s, const void* data, std::size_t bytes) {
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, const_cast<void*>(data), &err);
    EXPECT_EQ(err, CL_SUCCESS);
    return m;
}

TEST(OpenClInterop, CallersBuffersPackedStridedAndOffset) {
    REQUIRE_OPENCL();
    ClSetup s;
    make_setup(s);
    auto engine = opencl::create_engine(s.queue);
    EXPECT_EQ(engine->backend_name(), "opencl");
    auto reference = create_engine("reference");
    const auto host = make_image(PixelFormat::rgb16, 97, 13, Pattern::specials, 69);
    expect_same_histograms(engine->compute(host.view), reference->compute(host.view), "host view, caller's queue");
    std::uint64_t seed = 70;
    for (PixelFormat f : {PixelFormat::rgba8, PixelFormat::gray8, PixelFormat::rgb16, PixelFormat::rgba_f16,
                          PixelFormat::rgba_f32}) {
        for (std::size_t padding : {std::size_t(0), std::size_t(12)}) {
            for (std::size_t offset : {std::size_t(0), std::size_t(4), std::size_t(64)}) {
                auto img = make_image(f, 301, 23, Pattern::specials, ++seed, padding);
                // The buffer holds `offset` bytes of junk, then the rows as the view lays them out.
                std::vector<std::byte> bytes(offset, std::byte{0x5A});
                const auto* p = static_cast<const std::byte*>(img.view.data);
                bytes.insert(bytes.end(), p, p + img.view.stride_bytes * img.view.height);
                cl_mem buf = upload(s, bytes.data(), bytes.size());
                const DeviceImage src = opencl::device_image(buf, img.view.width, img.view.height, f,
                                                             padding ? img.view.stride_bytes : 0, offset);
                const std::string what = std::string(format_info(f).name) + " +" + std::to_string(padding) +
                                         "B stride, offset " + std::to_string(offset);
                // The last request: a roi and tiles of the caller's buffer (sub-views of its memory).
                const Request regions = [] { Request q; q.roi = Region{2, 1, 295, 21}; q.tiles = {3, 2}; return q; }();
                for (Request r : {Request{}, [] { Request q; q.count_alpha = true; q.bins.bins = 1000; return q; }(), regions}) {
                    try {
                        expect_same_histograms(opencl::compute(*engine, src, r), reference->compute(img.view, r), what);
                    } catch (const std::exception& e) {
                        ADD_FAILURE() << what << ": " << e.what();
                    }
                }
                const auto times = opencl::last_device_times(*engine);
                ASSERT_TRUE(times.has_value());
                EXPECT_GT(times->total_seconds, 0.0);
                EXPECT_GE(times->total_seconds, times->kernel_seconds);
                clReleaseMemObject(buf);
            }
        }
    }
}

TEST(OpenClInterop, StridedBuffersWithEachLayout) {
    REQUIRE_OPENCL();
    // Strided device buffers take the per-pixel kernel in row mode (whole rows per launch).
    ClSetup s;
    make_setup(s);
    auto reference = create_engine("reference");
    Request clamped;
    clamped.mode = Mode::all;
    clamped.bins.bins = 7;
    clamped.bins.range = {{17, 253}};
    clamped.bins.clamp = true;
    std::uint64_t seed = 80;
    for (const char* tune : {"layout=pairs,wg=256", "layout=lanes,value=0,spec=1", "layout=copies,copies=32,pack=1"}) {
        ScopedEnv env("IMGHIST_OPENCL_TUNE", tune);
        auto engine = opencl::create_engine(s.queue);
        for (PixelFormat f : {PixelFormat::rgba8, PixelFormat::gray8}) {
            auto img = make_image(f, 301, 23, Pattern::bank_adversarial, ++seed, 12);
            cl_mem buf = upload(s, img.view.data, img.view.stride_bytes * img.view.height);
            const DeviceImage src = opencl::device_image(buf, 301, 23, f, img.view.stride_bytes);
            for (const Request& r : {Request{}, clamped})
                expect_same_histograms(opencl::compute(*engine, src, r), reference->compute(img.view, r),
                                       std::string(tune) + " " + std::string(format_info(f).name));
            clReleaseMemObject(buf);
        }
    }
}

TEST(OpenClInterop, PackedBufferInTilesKeepsVectorAlignment) {
    REQUIRE_OPENCL();
    // Tiles of 1002 pixels round down to 1000: every tile of the 16-byte-load kernel starts on
    // a 4-pixel boundary of the caller's buffer.
    ScopedEnv env("IMGHIST_OPENCL_TUNE", "tile_pixels=1002,copies=32,pack=1,wg=64");
    ClSetup s;
    make_setup(s);
    auto engine = opencl::create_engine(s.queue);
    auto img = make_image(PixelFormat::rgba8, 333, 67, Pattern::random, 3);
    cl_mem buf = upload(s, img.view.data, img.view.stride_bytes * img.view.height);
    expect_same_histograms(opencl::compute(*engine, opencl::device_image(buf, 333, 67, PixelFormat::rgba8)),
                create_engine("reference")->compute(img.view), "tiled packed buffer");
    clReleaseMemObject(buf);
}

TEST(OpenClInterop, CallersImages) {
    REQUIRE_OPENCL();
    ClSetup s;
    make_setup(s);
    auto engine = opencl::create_engine(s.queue);
    auto reference = create_engine("reference");
    cl_bool images = CL_FALSE;
    clGetDeviceInfo(s.device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr);
    if (!images) GTEST_SKIP() << "device has no image support";
    cl_uint n = 0;
    clGetSupportedImageFormats(s.context, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 0, nullptr, &n);
    std::vector<cl_image_format> supported(n);
    clGetSupportedImageFormats(s.context, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, n, supported.data(), nullptr);
    int tested = 0;
    std::uint64_t seed = 90;
    for (const cl_image_format& fmt : supported) {
        const auto f = opencl::pixel_format_of(fmt);
        if (!f) continue;
        auto img = make_image(*f, 129, 31, Pattern::specials, ++seed, 0);
        cl_image_desc desc{};
        desc.image_type = CL_MEM_OBJECT_IMAGE2D;
        desc.image_width = img.view.width;
        desc.image_height = img.view.height;
        cl_int err = CL_SUCCESS;
        cl_mem image = clCreateImage(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &fmt, &desc,
                                     const_cast<void*>(img.view.data), &err);
        ASSERT_EQ(err, CL_SUCCESS);
        const std::string what = "image " + std::string(format_info(*f).name) + " order 0x" +
                                 std::to_string(fmt.image_channel_order) + " type 0x" +
                                 std::to_string(fmt.image_channel_data_type);
        try {
            const Result got = opencl::compute_image(*engine, image);
            EXPECT_EQ(got.format, *f);
            expect_same_histograms(got, reference->compute(img.view), what);
            // The sample statistics of an image's pixels, staged by rows as the histogram's.
            Request stats;
            stats.sample_stats = true;
            stats.percentiles = testing::checked_percentiles();
            expect_same_histograms(opencl::compute_image(*engine, image, stats), reference->compute(img.view, stats),
                                   what + " sample statistics");
            // A selection applies to buffers only (the kernels read the mask beside the pixels).
            Request selecting;
            selecting.alpha_threshold = 0.5;
            if (format_info(*f).alpha >= 0) EXPECT_THROW(opencl::compute_image(*engine, image, selecting), InvalidArgument);
        } catch (const std::exception& e) {
            ADD_FAILURE() << what << ": " << e.what();
        }
        clReleaseMemObject(image);
        ++tested;
    }
    EXPECT_GT(tested, 0) << "no image format of the device maps to an imghist format";
}

TEST(OpenClInterop, RejectsForeignEnginesContextsAndShortBuffers) {
    REQUIRE_OPENCL();
    ClSetup s;
    make_setup(s);
    auto img = make_image(PixelFormat::rgba8, 16, 4, Pattern::random, 1);
    cl_mem buf = upload(s, img.view.data, img.view.stride_bytes * img.view.height);
    DeviceImage src = opencl::device_image(buf, 16, 4, PixelFormat::rgba8);
    auto cpu = create_engine("cpu");
    testing::expect_wrong_engine([&] { opencl::compute(*cpu, src); }, "cpu", "opencl");
    testing::expect_wrong_engine([&] { opencl::compute_image(*cpu, buf); }, "cpu", "opencl");
    auto own = create_engine("opencl");  // its own context
    try {
        opencl::compute(*own, src);
        ADD_FAILURE() << "a buffer of another context was accepted";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("context"), std::string::npos) << e.what();
    }
    auto engine = opencl::create_engine(s.queue);
    src.height = 5;  // one row more than the buffer holds
    EXPECT_THROW(opencl::compute(*engine, src), InvalidArgument);
    src.height = 4;
    src.offset_bytes = 2;  // not a multiple of... fine for u8, but the extent no longer fits
    EXPECT_THROW(opencl::compute(*engine, src), InvalidArgument);
    src.offset_bytes = 0;
    EXPECT_NO_THROW(opencl::compute(*engine, src));
    EXPECT_FALSE(opencl::last_device_times(*cpu).has_value());
    clReleaseMemObject(buf);
}

TEST(OpenClInterop, OutOfOrderQueueAndNoProfiling) {
    REQUIRE_OPENCL();
    ClSetup s;
    make_setup(s, 0);
    auto engine = opencl::create_engine(s.queue);
    auto img = make_image(PixelFormat::rgba8, 100, 10, Pattern::random, 11);
    cl_mem buf = upload(s, img.view.data, img.view.stride_bytes * img.view.height);
    expect_same_histograms(opencl::compute(*engine, opencl::device_image(buf, 100, 10, PixelFormat::rgba8)),
                create_engine("reference")->compute(img.view), "queue without profiling");
    EXPECT_FALSE(opencl::last_device_times(*engine).has_value());
    clReleaseMemObject(buf);
}

TEST(OpenClInterop, DeviceMasksAndAlphaThresholdsCountOnlyTheSelectedPixels) {
    REQUIRE_OPENCL();
    ClSetup s;
    make_setup(s);
    // The generic program (PoCL's default) and the specialised one, with the selection's mask
    // presence, alpha kind and alpha sample compiled in (GPUs' default), over every format's alpha.
    for (const char* tune : {"", "spec=1"}) {
        SCOPED_TRACE(tune);
        ScopedEnv env("IMGHIST_OPENCL_TUNE", tune);
        auto engine = opencl::create_engine(s.queue);
        testing::expect_device_selections_match([&](const testing::SelectionCase& c) {
            const ImageView& v = c.image.view;
            // The image after 8 bytes of junk; the mask packed, in a buffer of its own.
            std::vector<std::byte> bytes(8, std::byte{0x5A});
            const auto* p = static_cast<const std::byte*>(v.data);
            bytes.insert(bytes.end(), p, p + v.stride_bytes * v.height);
            Mem image(upload(s, bytes.data(), bytes.size()));
            Mem mask(upload(s, c.mask.bytes.data(), c.mask.bytes.size()));
            Request r = c.request;
            if (c.use_mask) r.device_mask = opencl::device_image(mask.get(), v.width, v.height, PixelFormat::gray8);
            return opencl::compute(*engine, opencl::device_image(image.get(), v.width, v.height, v.format, v.stride_bytes, 8), r);
        });
    }
}

// Device buffers are read once (SlotCounter::counts_device_clipping): a result carries the
// clipping counts its histogram proves and leaves the others unknown, with a mask or without;
// Engine::compute of the same pixels knows them all. Bin 0 of the float default holds 0 (clipped)
// and 0.001 (not), so it proves nothing; bin 255 holds exactly v >= 1, so it proves the high count.
TEST(OpenClInterop, DeviceResultsCarryOnlyTheClippingCountsTheHistogramProves) {
    REQUIRE_OPENCL();
    ClSetup s;
    make_setup(s);
    auto engine = opencl::create_engine(s.queue);
    constexpr std::uint32_t w = 64, h = 8;
    std::vector<float> pixels(std::size_t(w) * h);
    for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = i % 3 == 0 ? 0.0f : i % 3 == 1 ? 0.001f : 1.0f;
    const ImageView host = ImageView::packed(pixels.data(), w, h, PixelFormat::gray_f32);
    std::vector<std::uint8_t> keep(host.pixel_count());
    for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = std::uint8_t(i % 5 != 0);
    Mem image(upload(s, pixels.data(), pixels.size() * sizeof(float)));
    Mem mask(upload(s, keep.data(), keep.size()));
    auto reference = create_engine("reference");
    for (const bool masked : {false, true}) {
        Request r;
        if (masked) r.mask = ImageView::packed(keep.data(), host.width, h, PixelFormat::gray8);
        const Result want = reference->compute(host, r);
        ASSERT_TRUE(want.channels[0].clipped_low_count && want.channels[0].clipped_high_count);
        if (masked) {
            r.mask.reset();
            r.device_mask = opencl::device_image(mask.get(), host.width, h, PixelFormat::gray8);
        }
        const Result got = opencl::compute(*engine, opencl::device_image(image.get(), host.width, h, PixelFormat::gray_f32), r);
        expect_same_histograms(got, want, masked ? "device mask" : "whole");
        EXPECT_FALSE(got.channels[0].clipped_low_count.has_value()) << masked;
        EXPECT_EQ(got.channels[0].clipped_high_count, want.channels[0].clipped_high_count) << masked;
    }
}

// A buffer holding `offset` bytes of junk, then the rows of `v`, each followed by `pad` bytes of
// junk (0: as the view lays them out); returns the device image of it.
DeviceImage upload_at(const ClSetup& s, std::vector<Mem>& keep, const ImageView& v, std::size_t offset, std::size_t pad) {
    const std::size_t pitch = pad ? v.row_bytes() + pad : v.stride_bytes;
    std::vector<std::byte> bytes(offset + pitch * v.height, std::byte{0x5A});
    for (std::uint32_t y = 0; y < v.height; ++y) std::memcpy(&bytes[offset + y * pitch], v.row(y), v.row_bytes());
    keep.emplace_back(upload(s, bytes.data(), bytes.size()));
    return opencl::device_image(keep.back().get(), v.width, v.height, v.format, pitch, offset);
}

// Every selection case (the mask, the alpha threshold, both, roi and tiles) in each layout that
// takes another path of the selection variant (histogram.cl, IH_SELECT): the RGBA8 16-byte kernel
// with mask words aligned and not, the per-pixel kernel over a packed image and mask, row mode for
// a packed image with a pitched mask and for a pitched image with a mask of another pitch; each
// against the first layout, and that against the reference of the selected pixels.
TEST(OpenClInterop, DeviceSelectionsInEveryLayoutMatchTheReference) {
    REQUIRE_OPENCL();
    ClSetup s;
    make_setup(s);
    auto engine = opencl::create_engine(s.queue);
    struct Layout {
        const char* what;
        std::size_t image_offset, image_pad, mask_offset, mask_pad;
    };
    const Layout layouts[] = {{"packed image and mask", 0, 0, 0, 0},
                              {"packed image at 16 bytes, packed mask at 3", 16, 0, 3, 0},
                              {"packed image at 4 bytes, packed mask at 1", 4, 0, 1, 0},
                              {"packed image, pitched mask", 0, 0, 0, 7},
                              {"pitched image, mask of another pitch", 8, 4, 5, 13}};
    testing::expect_device_selections_match([&](const testing::SelectionCase& c) -> Result {
        Result first;
        for (const Layout& l : layouts) {
            SCOPED_TRACE(l.what);
            std::vector<Mem> keep;
            Request r = c.request;
            if (c.use_mask) r.device_mask = upload_at(s, keep, c.mask.view(), l.mask_offset, l.mask_pad);
            const ImageView& v = c.image.view;
            Result got = opencl::compute(*engine, upload_at(s, keep, v, l.image_offset, l.image_pad), r);
            if (&l == &layouts[0]) first = got;
            else expect_same_histograms(got, first, std::string(l.what) + " against packed");
            EXPECT_EQ(got.counted_pixels, first.counted_pixels);
        }
        return first;
    });
}

// The selection variant of each launch scheme, against the reference with the mask on the host:
// global atomics, tiles of 64-bit totals (by pixels and by rows), channel passes of which only the
// first counts the selected pixels, the summing merge, classified 8-bit samples, compile-time
// constants; edge (EV) bins and clamped bins; the mask, alpha alone, both.
TEST(OpenClInterop, DeviceSelectionsInEveryLaunchSchemeMatchTheReference) {
    REQUIRE_OPENCL();
    ClSetup s;
    make_setup(s);
    auto reference = create_engine("reference");
    for (const char* tune : {"global=1", "tile_pixels=1002,launch_pixels=500", "max_local=2200,value=0", "merge=sum",
                             "value=0,fast=0", "spec=1,layout=pairs"}) {
        SCOPED_TRACE(tune);
        ScopedEnv env("IMGHIST_OPENCL_TUNE", tune);
        auto engine = opencl::create_engine(s.queue);
        std::uint32_t seed = 90;
        for (PixelFormat f : {PixelFormat::rgba8, PixelFormat::rgba16, PixelFormat::rgba_f16, PixelFormat::rgba_f32}) {
            SCOPED_TRACE(format_info(f).name);
            const bool is_float = format_info(f).is_float();
            const auto img = make_image(f, 211, 19, Pattern::specials, ++seed);
            const testing::Mask m = testing::random_mask(211, 19, ++seed);
            for (std::size_t pad : {std::size_t(0), std::size_t(8)}) {
                std::vector<Mem> keep;
                const DeviceImage image = upload_at(s, keep, img.view, 16, pad);
                const DeviceImage mask = upload_at(s, keep, m.view(), 0, pad ? 3 : 0);
                Request plain;
                plain.count_alpha = true;
                Request binned;
                binned.mode = Mode::all;
                if (is_float) {
                    binned.bins.edges = ev_edges(-8, 0, 32);
                } else {
                    binned.bins.bins = 50;
                    binned.bins.range = {{10, 200}};
                    binned.bins.clamp = true;
                }
                // The mask, an alpha threshold alone, both.
                const std::pair<bool, std::optional<double>> selections[] = {
                    {true, std::nullopt}, {false, is_float ? 0.25 : 100.0}, {true, is_float ? 0.5 : 60.0}};
                for (const Request& want : {plain, binned}) {
                    for (const auto& [masked, alpha] : selections) {
                        Request r = want, host = want;
                        r.alpha_threshold = host.alpha_threshold = alpha;
                        if (masked) r.device_mask = mask, host.mask = m.view();
                        const Result got = opencl::compute(*engine, image, r);
                        const Result expected = reference->compute(img.view, host);
                        expect_same_histograms(got, expected, std::string(tune) + (pad ? " pitched" : " packed"));
                        EXPECT_EQ(got.counted_pixels, expected.counted_pixels);
                    }
                }
            }
        }
    }
}

// Runs check(engine) with an engine whose first sample-statistics pass gathers its counters in
// local memory, and with one whose local memory is too small for them.
template <class Check>
void with_and_without_local_counters(cl_command_queue queue, Check&& check) {
    for (const char* tune : {"", "max_local=4"}) {
        SCOPED_TRACE(tune);
        ScopedEnv env("IMGHIST_OPENCL_TUNE", tune);
        check(*opencl::create_engine(queue));
    }
}

// The sample statistics of device buffers (sample_stats.cl), pitched and offset, with every
// selection case's mask, alpha threshold, roi and tiles, and every format's whole image: the
// reference's, bit for bit. Float sums wrap their counters' low words (Σm of 512 samples of 1.0
// is 2^32), so the carries into the high words are checked too; with the work-groups' local
// counters and without them (a local memory too small for them).
TEST(OpenClInterop, DeviceSampleStatisticsMatchTheReference) {
    REQUIRE_OPENCL();
    ClSetup s;
    make_setup(s);
    with_and_without_local_counters(s.queue, [&](Engine& engine) {
        testing::expect_device_sample_stats_match([&](const testing::SelectionCase& c) -> Result {
            std::vector<Mem> keep;
            Request r = c.request;
            if (c.use_mask) r.device_mask = upload_at(s, keep, c.mask.view(), 3, 5);
            return opencl::compute(engine, upload_at(s, keep, c.image.view, 8, 4), r);
        });
    });
}

// Sums far past 2^32 in one work-group's local counters and in the global ones: every sample
// is ±(2 - 2^-23), whose m is 2^24 - 1, so a bucket's Σm passes 2^32 after 257 samples. Against
// the reference, with the local counters and without them.
TEST(OpenClInterop, DeviceSampleSumsCarryPastTheirLowWords) {
    REQUIRE_OPENCL();
    ClSetup s;
    make_setup(s);
    constexpr std::uint32_t w = 512, h = 256;
    std::vector<float> pixels(std::size_t(w) * h);
    for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = (i % 7 == 0 ? -1.0f : 1.0f) * 1.99999988f;
    const ImageView host = ImageView::packed(pixels.data(), w, h, PixelFormat::gray_f32);
    Mem image(upload(s, pixels.data(), pixels.size() * sizeof(float)));
    Request r;
    r.sample_stats = true;
    r.percentiles = testing::checked_percentiles();
    const Result want = create_engine("reference")->compute(host, r);
    with_and_without_local_counters(s.queue, [&](Engine& engine) {
        expect_same_histograms(opencl::compute(engine, opencl::device_image(image.get(), w, h, PixelFormat::gray_f32), r),
                               want, "all samples ±(2 - 2^-23)");
    });
}

TEST(OpenClInterop, MasksOfTheWrongKindAreRefusedByName) {
    REQUIRE_OPENCL();
    ClSetup s;
    make_setup(s);
    auto engine = opencl::create_engine(s.queue);
    const auto img = make_image(PixelFormat::rgba8, 16, 4, Pattern::random, 1);
    const testing::Mask m = testing::random_mask(16, 4, 2);
    Mem buf(upload(s, img.view.data, img.view.stride_bytes * img.view.height));
    Mem mask(upload(s, m.bytes.data(), m.bytes.size()));
    const DeviceImage src = opencl::device_image(buf.get(), 16, 4, PixelFormat::rgba8);
    const auto message = [&](const Request& r, const DeviceImage& image) {
        try {
            opencl::compute(*engine, image, r);
        } catch (const InvalidArgument& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    Request host_mask;
    host_mask.mask = m.view();
    EXPECT_NE(message(host_mask, src).find("pass the mask as Request::device_mask"), std::string::npos);
    Request r;
    r.device_mask = opencl::device_image(mask.get(), 16, 3, PixelFormat::gray8);
    EXPECT_EQ(message(r, src), "the mask is 16 x 3 pixels, the image 16 x 4: a mask must be the image's size");
    r.device_mask = src;
    EXPECT_EQ(message(r, src), "a device mask must be gray8 (one 8-bit sample a pixel; non-zero counts), not rgba8");
    // The engine counts on after a refusal, and a host view refuses a device mask.
    r.device_mask = opencl::device_image(mask.get(), 16, 4, PixelFormat::gray8);
    EXPECT_EQ(opencl::compute(*engine, src, r).counted_pixels, std::count_if(m.bytes.begin(), m.bytes.end(), [](std::uint8_t b) { return b != 0; }));
    EXPECT_THROW(engine->compute(img.view, r), InvalidArgument);
}

}  // namespace
}  // namespace imghist
