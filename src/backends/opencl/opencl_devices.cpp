// OpenCL device discovery (opencl_devices.hpp).
#include "backends/opencl/opencl_devices.hpp"

#include <cctype>
#include <cstdio>
#include <cstring>

#include "core/device_select.hpp"

namespace imghist::ocl {
namespace {

// A string property of a platform or device ("" when the query fails).
template <typename Object, typename Info>
std::string info_string(cl_int (*get)(Object, Info, std::size_t, void*, std::size_t*), Object object, Info what) {
    std::size_t n = 0;
    if (get(object, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
    std::string s(n, '\0');
    if (get(object, what, n, s.data(), nullptr) != CL_SUCCESS) return {};
    s.resize(std::strlen(s.c_str()));
    return s;
}

// Device `index` of platform `pi`, with why it cannot be used where it cannot.
ClDevice describe_device(cl_platform_id platform, unsigned pi, cl_device_id id, unsigned index,
                         const std::string& platform_name) {
    ClDevice d;
    d.platform = platform;
    d.device = id;
    d.platform_index = pi;
    d.device_index = index;
    d.name = device_string(id, CL_DEVICE_NAME);
    d.platform_name = platform_name;
    cl_device_type type = 0;
    cl_bool avail = CL_FALSE, compiler = CL_FALSE;
    cl_uint cus = 0;
    cl_ulong local = 0;
    clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
    clGetDeviceInfo(id, CL_DEVICE_AVAILABLE, sizeof avail, &avail, nullptr);
    clGetDeviceInfo(id, CL_DEVICE_COMPILER_AVAILABLE, sizeof compiler, &compiler, nullptr);
    clGetDeviceInfo(id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, nullptr);
    clGetDeviceInfo(id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, nullptr);
    d.gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    d.note = platform_name + ", " + device_string(id, CL_DEVICE_VERSION) + ", " + std::to_string(cus) +
             " compute units, " + std::to_string(local / 1024) + " KiB local memory";
    if (!avail) d.note = "device reports CL_DEVICE_AVAILABLE = false; " + d.note;
    else if (!compiler) d.note = "no OpenCL C compiler (CL_DEVICE_COMPILER_AVAILABLE = false); " + d.note;
    else if (opencl_c_version(id) < 11) d.note = "needs OpenCL C 1.1 or later (local atomics); " + d.note;
    else d.available = true;
    return d;
}

}  // namespace

std::string device_string(cl_device_id d, cl_device_info what) {
    std::string s = info_string(clGetDeviceInfo, d, what);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    return s;
}

int opencl_c_version(cl_device_id d) {
    const std::string v = device_string(d, CL_DEVICE_OPENCL_C_VERSION);
    int major = 0, minor = 0;
    if (std::sscanf(v.c_str(), "OpenCL C %d.%d", &major, &minor) != 2) return 0;
    return major * 10 + minor;
}

std::vector<ClDevice> enumerate_devices(std::string& problem) {
    std::vector<ClDevice> out;
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, nullptr, &np);
    if (err != CL_SUCCESS || np == 0) {
        problem = err != CL_SUCCESS
                      ? error_message(err, "clGetPlatformIDs", "no OpenCL ICD installed or none loads")
                      : "no OpenCL platform";
        return out;
    }
    std::vector<cl_platform_id> platforms(np);
    if ((err = clGetPlatformIDs(np, platforms.data(), nullptr)) != CL_SUCCESS) {
        problem = error_message(err, "clGetPlatformIDs");
        return out;
    }
    for (unsigned pi = 0; pi < np; ++pi) {
        cl_uint nd = 0;
        err = clGetDeviceIDs(platforms[pi], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd);
        if (err != CL_SUCCESS || nd == 0) continue;
        std::vector<cl_device_id> ids(nd);
        if (clGetDeviceIDs(platforms[pi], CL_DEVICE_TYPE_ALL, nd, ids.data(), nullptr) != CL_SUCCESS)
            continue;
        const std::string pname = info_string(clGetPlatformInfo, platforms[pi], cl_platform_info(CL_PLATFORM_NAME));
        for (unsigned di = 0; di < nd; ++di) {
            out.push_back(describe_device(platforms[pi], pi, ids[di], di, pname));
            out.back().flat_index = unsigned(out.size() - 1);
        }
    }
    if (out.empty()) problem = "no OpenCL device on " + std::to_string(np) + " platform(s)";
    return out;
}

DeviceInfo device_info(const ClDevice& d) {
    return {d.id(), d.name, d.gpu, d.available, d.note};
}

ClDevice select_device(const std::string& selector) {
    std::string problem;
    const std::vector<ClDevice> all = enumerate_devices(problem);
    if (all.empty()) throw BackendUnavailable("opencl: " + problem);
    std::vector<DeviceInfo> infos;
    for (const ClDevice& d : all) infos.push_back(device_info(d));
    return all[imghist::select_device("opencl", infos, selector, "IMGHIST_OPENCL_DEVICE")];
}

}  // namespace imghist::ocl
