// OpenCL device discovery of the opencl backend: every device of every platform, with why it
// cannot be used, and the EngineOptions::device / IMGHIST_OPENCL_DEVICE selection.
#pragma once

#include <string>
#include <vector>

#include "backends/opencl/cl_util.hpp"
#include "imghist/engine.hpp"

namespace imghist::ocl {

struct ClDevice {
    cl_platform_id platform = nullptr;
    cl_device_id device = nullptr;
    unsigned platform_index = 0, device_index = 0, flat_index = 0;
    std::string name, platform_name;
    bool gpu = false, available = false;
    std::string note;
    std::string id() const { return std::to_string(platform_index) + ":" + std::to_string(device_index); }
};

// A device's string property, trailing blanks removed ("" when the query fails).
std::string device_string(cl_device_id d, cl_device_info what);

template <typename T>
T device_value(cl_device_id d, cl_device_info what) {
    T v{};
    check(clGetDeviceInfo(d, what, sizeof v, &v, nullptr), "clGetDeviceInfo");
    return v;
}

// OpenCL C version "OpenCL C 1.2 ..." -> 12 (0 when unknown).
int opencl_c_version(cl_device_id d);

// Every device of every platform; `problem` is set when not even the platforms could be listed.
std::vector<ClDevice> enumerate_devices(std::string& problem);

// What Backend::devices() lists and select_device() matches.
DeviceInfo device_info(const ClDevice& d);

// The device `selector` names by the shared rule (core/device_select.hpp): "P:D", a flat index
// "N", or a case-insensitive substring of the device name; throws BackendUnavailable.
ClDevice select_device(const std::string& selector);

}  // namespace imghist::ocl
