// The CUDA backend: its devices and engines (the engine is cuda_engine.hpp; kernels are in
// histogram*.cu, launch decisions in cuda_shape.cpp).
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "core/backend_list.hpp"
#include "core/device_select.hpp"
#include "cuda_engine.hpp"
#include "imghist/cuda.hpp"

namespace imghist {
namespace {

using cuda_detail::cuda_message;
using cuda_detail::CudaEngine;

class CudaBackend final : public Backend {
public:
    std::string_view name() const override { return "cuda"; }
    std::string_view summary() const override {
        return "NVIDIA GPUs through the CUDA runtime: per-lane shared-memory sub-histograms, one launch";
    }

    std::vector<DeviceInfo> devices() const override {
        std::vector<DeviceInfo> out;
        int n = 0;
        const cudaError_t err = cudaGetDeviceCount(&n);
        if (err != cudaSuccess || n == 0) {
            cudaGetLastError();
            out.push_back({"0", "no CUDA device", true, false,
                           err != cudaSuccess ? cuda_message("cudaGetDeviceCount", err)
                                              : std::string("cudaGetDeviceCount found no device")});
            return out;
        }
        for (int i = 0; i < n; ++i) {
            cudaDeviceProp p{};
            DeviceInfo d;
            d.id = std::to_string(i);
            d.is_gpu = true;
            const cudaError_t e = cudaGetDeviceProperties(&p, i);
            if (e != cudaSuccess) {
                cudaGetLastError();
                d.name = "CUDA device " + d.id;
                d.note = cuda_message("cudaGetDeviceProperties", e);
            } else {
                d.name = p.name;
                d.available = p.major * 10 + p.minor >= 75;
                d.note = "compute capability " + std::to_string(p.major) + "." + std::to_string(p.minor) + ", " +
                         std::to_string(p.multiProcessorCount) + " SMs, " +
                         std::to_string(p.totalGlobalMem >> 20) + " MiB" +
                         (d.available ? "" : " (needs compute capability 7.5 or newer)");
            }
            out.push_back(std::move(d));
        }
        return out;
    }

    std::unique_ptr<Engine> create_engine(const EngineOptions& options) const override {
        // The shared rule: --device, else IMGHIST_CUDA_DEVICE; an index or a name substring.
        const std::vector<DeviceInfo> devs = devices();
        const DeviceInfo* pick = &devs[select_device("cuda", devs, options.device, "IMGHIST_CUDA_DEVICE")];
        try {
            return std::make_unique<CudaEngine>(std::stoi(pick->id));
        } catch (const DeviceError& e) {
            throw BackendUnavailable(std::string("cuda: could not set up the device: ") + e.what());
        }
    }
};

}  // namespace

const Backend& cuda_backend() {
    static const CudaBackend backend;
    return backend;
}

namespace cuda {
std::unique_ptr<Engine> create_engine(const EngineOptions& options) {
    std::unique_ptr<imghist::Engine> e = cuda_backend().create_engine(options);
    return std::unique_ptr<Engine>(static_cast<Engine*>(e.release()));
}
}  // namespace cuda

}  // namespace imghist
