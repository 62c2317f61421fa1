// The opencl backend: the seed's algorithm (partial histograms in local memory with local
// atomics, several pixels per work-item, a merge of the partials) on any OpenCL 1.2 device.
// The kernels are histogram.cl; opencl_planner.cpp chooses their sizes from the device's
// limits, opencl_engine.cpp / opencl_count.cpp launch them on pixels uploaded from the host or
// read in place from the caller's cl_mem (opencl_interop.cpp). This file registers the backend.
#include "backends/opencl/opencl_devices.hpp"
#include "backends/opencl/opencl_engine.hpp"
#include "core/backend_list.hpp"

namespace imghist {
namespace {

class OpenClBackend final : public Backend {
public:
    std::string_view name() const override { return "opencl"; }
    std::string_view summary() const override {
        return "OpenCL 1.2 kernels: local-memory partial histograms (GPUs; PoCL on CPUs)";
    }
    std::vector<DeviceInfo> devices() const override {
        std::vector<DeviceInfo> out;
        try {
            std::string problem;
            for (const ocl::ClDevice& d : ocl::enumerate_devices(problem)) out.push_back(ocl::device_info(d));
            if (out.empty()) out.push_back({"", "no OpenCL device", false, false, problem});
        } catch (const std::exception& e) {
            out.push_back({"", "no OpenCL device", false, false, e.what()});
        }
        return out;
    }
    std::unique_ptr<Engine> create_engine(const EngineOptions& options) const override {
        const ocl::ClDevice d = ocl::select_device(options.device);
        try {
            return std::make_unique<ocl::OpenClEngine>(d);
        } catch (const DeviceError& e) {
            throw BackendUnavailable(std::string("opencl: cannot use ") + d.name + ": " + e.what());
        }
    }
};

}  // namespace

const Backend& opencl_backend() {
    static const OpenClBackend backend;
    return backend;
}

}  // namespace imghist
