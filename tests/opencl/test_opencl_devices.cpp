// opencl device selection (ids, names, IMGHIST_OPENCL_DEVICE, auto) and error messages.
#include <gtest/gtest.h>

#include <string>

#include "backends/opencl/cl_util.hpp"
#include "imghist/imghist.hpp"
#include "imghist/opencl.hpp"
#include "histogram_asserts.hpp"
#include "opencl_test_support.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

using opencl_test::ScopedEnv;
using testing::expect_same_histograms;
using testing::make_image;
using testing::Pattern;

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
