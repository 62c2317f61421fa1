// opencl backend: what the generic parity suite cannot reach.
//  - the GPU configurations (32 bank-private copies, 16-bit packed counters, lane pairs,
//    8-bit value mode, the summing merge, compile-time specialisation, global-atomic
//    fallback, channel passes, tiles and split launches) forced on whatever device runs the
//    tests (PoCL in CI), against the reference;
//  - the interop API: the caller's cl_mem buffer (packed, strided, offset) and image;
//  - device selection and error messages.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "backends/opencl/cl_util.hpp"
#include "imghist/imghist.hpp"
#include "imghist/opencl.hpp"
#include "histogram_asserts.hpp"
#include "interop_checks.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

using testing::make_image;
using testing::Pattern;

// Sets an environment variable for one scope.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const std::string& value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (old_) setenv(name_, old_->c_str(), 1);
        else unsetenv(name_);
    }

private:
    const char* name_;
    std::optional<std::string> old_;
};

bool opencl_available() {
    const Backend* b = find_backend("opencl");
    return b != nullptr && b->available();
}

#define REQUIRE_OPENCL()                                                            \
    do {                                                                            \
        if (!opencl_available()) GTEST_SKIP() << "no usable OpenCL device here";    \
    } while (0)

using testing::expect_same_histograms;


struct Variant {
    const char* name;
    const char* tune;
    std::vector<PixelFormat> formats;
};

// Each variant is a configuration the host would choose on some device.
const Variant kVariants[] = {
    {"gpu", "copies=32,pack=1,spec=1,wg=256,gpc=2",
     {PixelFormat::rgba8, PixelFormat::gray16, PixelFormat::rgba_f16}},
    {"gpu-generic", "copies=32,pack=1,spec=0,wg=256,gpc=2",
     {PixelFormat::gray8, PixelFormat::rgb8, PixelFormat::bgr8, PixelFormat::rgba8, PixelFormat::bgra8, PixelFormat::rgba16,
      PixelFormat::rgb_f16, PixelFormat::gray_f32, PixelFormat::rgba_f32}},
    {"sum-merge", "copies=16,pack=1,merge=sum,wg=128", {PixelFormat::rgba8, PixelFormat::rgb16, PixelFormat::rgba_f32}},
    {"no-fast", "fast=0,copies=8,pack=0", {PixelFormat::rgba8, PixelFormat::bgra8}},
    {"global-atomics", "global=1", {PixelFormat::rgba8, PixelFormat::gray_f16, PixelFormat::rgb16}},
    // 4096 bins x 4 channels do not fit 20000 bytes: one channel per pass (bins <= 256 fit;
    // value mode, 256 slots per channel, would fit all at once).
    {"channel-passes", "max_local=20000,pack=0,copies=1,value=0", {PixelFormat::rgba8, PixelFormat::rgba_f32}},
    // Tiles of 1000 pixels (64-bit accumulation on the device) and launches of 300.
    {"tiles", "tile_pixels=1000,launch_pixels=300,copies=4,pack=1", {PixelFormat::rgba8, PixelFormat::rgb_f16}},
};

TEST(OpenClVariants, MatchReferenceBitForBit) {
    REQUIRE_OPENCL();
    auto reference = create_engine("reference");
    for (const Variant& v : kVariants) {
        SCOPED_TRACE(std::string("IMGHIST_OPENCL_TUNE=") + v.tune);
        ScopedEnv env("IMGHIST_OPENCL_TUNE", v.tune);
        auto engine = create_engine("opencl");
        std::uint64_t seed = 1;
        for (PixelFormat f : v.formats) {
            for (Pattern pattern : {Pattern::random, Pattern::bank_adversarial, Pattern::specials}) {
                // 331 x 7 = 2317 pixels: not a multiple of 4, of the work-group size or of a row.
                auto img = make_image(f, 331, 7, pattern, ++seed, 8);
                for (const auto& [name, request] : testing::parity_requests(format_info(f))) {
                    const std::string what = std::string(v.name) + " " + std::string(format_info(f).name) + " " +
                                             testing::pattern_name(pattern) + " " + name;
                    Result got;
                    try {
                        got = engine->compute(img.view, request);
                    } catch (const std::exception& e) {
                        ADD_FAILURE() << what << ": threw " << e.what();
                        continue;
                    }
                    expect_same_histograms(got, reference->compute(img.view, request), what);
                }
            }
        }
    }
}

TEST(OpenClVariants, ChannelPassesAndGlobalFallbackAreNoted) {
    REQUIRE_OPENCL();
    auto img = make_image(PixelFormat::rgba8, 64, 3, Pattern::random, 5);
    Request r;
    r.bins.bins = 4096;
    r.bins.range = {{0.0, 256.0}};
    {
        ScopedEnv env("IMGHIST_OPENCL_TUNE", "max_local=20000,pack=0,copies=1,value=0");
        const Result res = create_engine("opencl")->compute(img.view, r);
        ASSERT_EQ(res.notes.size(), 1u);
        EXPECT_NE(res.notes[0].find("passes"), std::string::npos) << res.notes[0];
    }
    {
        ScopedEnv env("IMGHIST_OPENCL_TUNE", "max_local=1000,value=0");
        const Result res = create_engine("opencl")->compute(img.view, r);
        ASSERT_EQ(res.notes.size(), 1u);
        EXPECT_NE(res.notes[0].find("global atomics"), std::string::npos) << res.notes[0];
        expect_same_histograms(res, create_engine("reference")->compute(img.view, r), "global fallback");
    }
    // The normal path says nothing.
    EXPECT_TRUE(create_engine("opencl")->compute(img.view).notes.empty());
}

TEST(OpenClSizes, NotMultiplesOfTheWorkGroup) {
    REQUIRE_OPENCL();
    ScopedEnv env("IMGHIST_OPENCL_TUNE", "copies=32,pack=1,wg=256,gpc=1");
    auto engine = create_engine("opencl");
    auto reference = create_engine("reference");
    std::uint64_t seed = 50;
    for (auto [w, h] : {std::pair{1u, 1u}, {3u, 1u}, {5u, 3u}, {255u, 1u}, {257u, 1u}, {1023u, 1u},
                        {4099u, 1u}, {1u, 1025u}, {97u, 89u}}) {
        for (PixelFormat f : {PixelFormat::rgba8, PixelFormat::rgb8, PixelFormat::gray_f32}) {
            auto img = make_image(f, w, h, Pattern::random, ++seed, 0);
            const std::string what = std::to_string(w) + "x" + std::to_string(h) + " " + std::string(format_info(f).name);
            expect_same_histograms(engine->compute(img.view), reference->compute(img.view), what);
        }
    }
}

// ---- local layouts and value mode ----------------------------------------------------------

// Every local layout of the 8-bit kernels, value mode on and off (with and without the value
// swizzle), 2 and 4 loads in flight, generic and specialised builds, GPU and CPU work-group sizes.
const char* const kLayoutTunes[] = {
    "layout=pairs,value=1,spec=1,wg=256",
    "layout=pairs,value=0,wg=64",
    "layout=pairs,value=1,loads=4,wg=128",
    "layout=pairs,copies=8,value=1,spec=1,wg=256",
    "layout=lanes,value=1,spec=1,wg=256,loads=4",
    "layout=lanes,value=0,wg=64",
    "layout=copies,copies=1,pack=0,value=1,spec=1",
    "layout=copies,copies=1,pack=0,value=0,loads=4",
    "layout=copies,copies=32,pack=1,value=1,wg=128",
    "layout=pairs,value=1,merge=sum,wg=64",
    "layout=copies,copies=1,pack=0,value=1,swizzle=1,spec=1",
    "layout=copies,copies=8,pack=0,value=1,swizzle=1,merge=sum,wg=128",
};

TEST(OpenClLayouts, MatchReferenceBitForBit) {
    REQUIRE_OPENCL();
    auto reference = create_engine("reference");
    for (const char* tune : kLayoutTunes) {
        SCOPED_TRACE(std::string("IMGHIST_OPENCL_TUNE=") + tune);
        ScopedEnv env("IMGHIST_OPENCL_TUNE", tune);
        auto engine = create_engine("opencl");
        std::uint64_t seed = 200;
        // RGBA8/BGRA8 take the 16-byte kernel, gray8/rgb8/bgr8 the per-pixel one.
        for (PixelFormat f : {PixelFormat::rgba8, PixelFormat::bgra8, PixelFormat::gray8, PixelFormat::rgb8, PixelFormat::bgr8}) {
            for (Pattern pattern : {Pattern::random, Pattern::constant, Pattern::bank_adversarial, Pattern::specials}) {
                // 2317 pixels: not a multiple of 4 or of any work-group size; padded rows.
                auto img = make_image(f, 331, 7, pattern, ++seed, 12);
                for (const auto& [name, request] : testing::parity_requests(format_info(f))) {
                    const std::string what = std::string(format_info(f).name) + " " +
                                             testing::pattern_name(pattern) + " " + name;
                    try {
                        expect_same_histograms(engine->compute(img.view, request),
                                               reference->compute(img.view, request), what);
                    } catch (const std::exception& e) {
                        ADD_FAILURE() << what << ": threw " << e.what();
                    }
                }
            }
        }
    }
}

TEST(OpenClLayouts, SixteenBitCountersNearTheirBound) {
    REQUIRE_OPENCL();
    // On a constant image every pixel of a work-item hits the same counter. One work-group per
    // launch puts each 16-bit counter at the host's bound: lane pairs with wg 32 (one
    // work-item per half) give every work-item 16383 vectors = 65532 pixels per launch, so
    // 1500 x 1500 pixels take two launches (two flushes); the others take more.
    auto img = make_image(PixelFormat::rgba8, 1500, 1500, Pattern::constant, 9);
    auto reference = create_engine("reference");
    std::vector<std::pair<std::string, Request>> requests;
    requests.push_back({"default", Request{}});
    Request luma;
    luma.mode = Mode::luma;
    luma.weights = LumaWeights::parse("3333,3334,3333");
    requests.push_back({"luma", luma});
    Request all;
    all.mode = Mode::all;
    all.bins.bins = 7;
    all.bins.range = {{17, 253}};
    all.bins.clamp = true;
    requests.push_back({"all, 7 bins clamp", all});
    for (const char* tune : {"layout=pairs,wg=32,groups=1", "layout=pairs,value=0,wg=64,groups=1,loads=4",
                             "layout=pairs,copies=8,wg=64,groups=1",
                             "layout=copies,copies=32,pack=1,wg=64,groups=1",
                             "layout=copies,copies=1,pack=1,wg=32,groups=1"}) {
        ScopedEnv env("IMGHIST_OPENCL_TUNE", tune);
        auto engine = create_engine("opencl");
        for (const auto& [name, request] : requests)
            expect_same_histograms(engine->compute(img.view, request), reference->compute(img.view, request),
                                   std::string(tune) + " " + name);
    }
}

// ---- interop --------------------------------------------------------------------------------

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
                for (Request r : {Request{}, [] { Request q; q.count_alpha = true; q.bins.bins = 1000; return q; }()}) {
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

// ---- device selection -----------------------------------------------------------------------

TEST(OpenClDevices, ListedWithIdsAndSelectable) {
    REQUIRE_OPENCL();
    const auto devices = find_backend("opencl")->devices();
    ASSERT_FALSE(devices.empty());
    const DeviceInfo* usable = nullptr;
    for (const auto& d : devices) {
        EXPECT_NE(d.id.find(':'), std::string::npos) << d.id;
        EXPECT_FALSE(d.note.empty());
        if (d.available && usable == nullptr) usable = &d;
    }
    ASSERT_NE(usable, nullptr);
    EngineOptions o;
    o.device = usable->id;
    EXPECT_EQ(create_engine("opencl", o)->device_name(), usable->name);
    // A case-insensitive name substring.
    std::string part = usable->name.substr(0, std::min<std::size_t>(6, usable->name.size()));
    for (char& c : part) c = char(std::toupper(static_cast<unsigned char>(c)));
    o.device = part;
    EXPECT_EQ(create_engine("opencl", o)->device_name(), usable->name);
    // The environment variable, when the option is empty.
    {
        ScopedEnv env("IMGHIST_OPENCL_DEVICE", usable->id);
        EXPECT_EQ(create_engine("opencl")->device_name(), usable->name);
    }
    {
        ScopedEnv env("IMGHIST_OPENCL_DEVICE", "no-such-device-xyz");
        try {
            create_engine("opencl");
            ADD_FAILURE() << "an unknown device was accepted";
        } catch (const BackendUnavailable& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find("no-such-device-xyz"), std::string::npos) << msg;
            EXPECT_NE(msg.find("IMGHIST_OPENCL_DEVICE"), std::string::npos) << msg;
            EXPECT_NE(msg.find(usable->id), std::string::npos) << "lists the devices: " << msg;
        }
    }
    o.device = "99:0";
    EXPECT_THROW(create_engine("opencl", o), BackendUnavailable);
    o.device = "1234";
    EXPECT_THROW(create_engine("opencl", o), BackendUnavailable);
}

TEST(OpenClDevices, AutoPrefersAGpu) {
    bool any_gpu = false;
    if (const Backend* b = find_backend("opencl"))
        for (const auto& d : b->devices()) any_gpu = any_gpu || (d.is_gpu && d.available);
    auto engine = create_engine("auto");
    if (any_gpu) EXPECT_NE(engine->backend_name(), "cpu");
    else EXPECT_EQ(engine->backend_name(), "cpu") << "a CPU OpenCL device (PoCL) must not win auto";
}

// ---- errors ---------------------------------------------------------------------------------

TEST(OpenClErrors, NamesTheCallAndTheCode) {
    EXPECT_EQ(ocl::error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
    EXPECT_EQ(ocl::error_name(CL_DEVICE_NOT_AVAILABLE), "CL_DEVICE_NOT_AVAILABLE");
    EXPECT_EQ(ocl::error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
    EXPECT_EQ(ocl::error_name(-9999), "CL error -9999");
    try {
        ocl::check(CL_OUT_OF_RESOURCES, "clEnqueueNDRangeKernel");
        ADD_FAILURE();
    } catch (const DeviceError& e) {
        EXPECT_STREQ(e.what(), "OpenCL clEnqueueNDRangeKernel failed: CL_OUT_OF_RESOURCES (-5)");
    }
}

TEST(OpenClErrors, BuildFailureCarriesTheLogAndTheEngineRecovers) {
    REQUIRE_OPENCL();
    auto img = make_image(PixelFormat::rgba8, 10, 10, Pattern::random, 1);
    auto engine = create_engine("opencl");
    {
        ScopedEnv env("IMGHIST_OPENCL_BUILD_OPTIONS", "-DIH_C_BINS=+*");
        try {
            engine->compute(img.view);
            ADD_FAILURE() << "a broken build did not throw";
        } catch (const DeviceError& e) {
            const std::string msg = e.what();
            EXPECT_EQ(msg.rfind("OpenCL clBuildProgram failed: CL_", 0), 0u) << msg;
            EXPECT_NE(msg.find("histogram.cl"), std::string::npos) << msg;
        }
    }
    expect_same_histograms(engine->compute(img.view), create_engine("reference")->compute(img.view), "after the failure");
}

TEST(OpenClErrors, BadTuningIsAnInvalidArgument) {
    REQUIRE_OPENCL();
    ScopedEnv env("IMGHIST_OPENCL_TUNE", "copies=3");
    EXPECT_THROW(create_engine("opencl"), InvalidArgument);
}

}  // namespace
}  // namespace imghist
