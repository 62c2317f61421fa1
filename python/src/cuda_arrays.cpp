// CUDA arrays (torch, cupy, anything with DLPack): counted where they live by the CUDA
// backend, on the stream their producer is working on, with no host copy of the pixels.
//
// DLPack's stream protocol: the consumer (imghist) picks the stream it will read on and passes
// it to __dlpack__(stream=...); the producer makes the data ready on that stream. We pick the
// producer's own current stream (imghist/_streams.py), so that no synchronisation is needed
// and the count is ordered after the work that made the pixels.
#include "bindings.hpp"

#include <cstring>

#ifdef IMGHIST_PYTHON_CUDA
#include "imghist/cuda.hpp"
#endif

namespace imghist::python {

namespace {

// DLPack's device types (dlpack.h, DLDeviceType).
enum DeviceType : int { kCpu = 1, kCuda = 2, kCudaHost = 3, kOpenCL = 4, kVulkan = 7, kMetal = 8, kRocm = 10,
                        kRocmHost = 11, kCudaManaged = 13, kOneApi = 14 };

std::string device_type_name(int type) {
    switch (type) {
        case kOpenCL: return "OpenCL";
        case kVulkan: return "Vulkan";
        case kMetal: return "Metal";
        case kRocm: return "ROCm";
        case kRocmHost: return "ROCm host";
        case kOneApi: return "oneAPI";
        default: return "type " + std::to_string(type);
    }
}

nb::object streams_module() {
    static nb::object* module = new nb::object(nb::module_::import_("imghist._streams"));  // lives with the interpreter
    return *module;
}


[[noreturn]] void refuse_other_device(int type) {
    throw InvalidArgument("the array lives on a DLPack device of " + device_type_name(type) +
                          ": imghist counts host arrays and CUDA arrays; copy it to the host first");
}

std::string on_device(const Placement& where) { return "the array lives on CUDA device " + std::to_string(where.device); }

}  // namespace

std::optional<Placement> cuda_placement_of(nb::handle image) {
    // numpy arrays, the common case, are on the host: skip the lookups.
    if (std::strcmp(Py_TYPE(image.ptr())->tp_name, "numpy.ndarray") == 0) return std::nullopt;
    if (!nb::hasattr(image, "__dlpack_device__") || !nb::hasattr(image, "__dlpack__")) return std::nullopt;
    nb::object reported = image.attr("__dlpack_device__")();
    if (!nb::isinstance<nb::tuple>(reported) || nb::len(reported) != 2)
        throw nb::type_error("__dlpack_device__() did not return a (device_type, device_id) tuple");
    const int type = nb::cast<int>(reported[0]);
    if (type == kCpu || type == kCudaHost) return std::nullopt;
    if (type != kCuda && type != kCudaManaged) refuse_other_device(type);
    Placement where;
    where.cuda = true;
    where.device = nb::cast<int>(reported[1]);
    return where;
}

nb::object export_cuda(nb::handle image, Placement& where, nb::handle stream) {
    nb::object got = streams_module().attr("export_cuda")(image, where.device, stream);
    where.stream = nb::cast<std::uintptr_t>(got[1]);
    return got[0];
}

void check_no_stream(nb::handle stream) {
    if (stream.is_valid() && !stream.is_none())
        throw InvalidArgument("stream= is for CUDA arrays; this array is in host memory (leave stream=None)");
}

// A DLPack capsule or another array that reached us without __dlpack_device__ but whose
// memory is a CUDA device's.
Placement placement_of_imported(const Array& array, nb::handle stream) {
    const int type = array.device_type();
    if (type == kCpu || type == kCudaHost) {
        check_no_stream(stream);
        return {};
    }
    if (type != kCuda && type != kCudaManaged) refuse_other_device(type);
    Placement where;
    where.cuda = true;
    where.device = array.device_id();
    if (!stream.is_none()) where.stream = nb::cast<std::uintptr_t>(streams_module().attr("stream_value")(stream));
    return where;
}

std::string backend_for(const Placement& where, const std::string& backend) {
    if (!where.cuda) return backend;
#ifndef IMGHIST_PYTHON_CUDA
    throw BackendUnavailable(on_device(where) + ", but this build of imghist has no CUDA backend (it is compiled in "
                             "when the CUDA toolkit is found); copy it to the host first (e.g. tensor.cpu())");
#endif
    if (backend == "auto" || backend == "cuda") return "cuda";
    throw InvalidArgument(on_device(where) + "; backend '" + backend +
                          "' counts host memory, and imghist never copies the pixels silently: use backend='cuda' "
                          "(or 'auto'), or copy it to the host yourself (e.g. tensor.cpu(), cupy.asnumpy(a))");
}

std::string device_for(const Placement& where, nb::handle device) {
    if (where.cuda && (!device.is_valid() || device.is_none())) return std::to_string(where.device);
    return device_of(device);
}

void check_engine_for(const Engine& engine, const Placement& where) {
    if (where.cuda && std::string_view(engine.backend_name()) != "cuda")
        throw InvalidArgument(on_device(where) + "; this Engine's backend '" + std::string(engine.backend_name()) +
                              "' counts host memory: use imghist.Engine('cuda'), or copy it to the host yourself "
                              "(e.g. tensor.cpu(), cupy.asnumpy(a))");
}

std::vector<Result> compute_on_cuda(Engine& engine, const std::vector<ImageView>& views, const Request& request,
                                    const Placement& where) {
#ifdef IMGHIST_PYTHON_CUDA
    auto* cuda_engine = dynamic_cast<cuda::Engine*>(&engine);
    if (cuda_engine == nullptr) throw InvalidArgument(on_device(where) + ", and this engine is not a CUDA engine");
    std::vector<DeviceImage> images;
    images.reserve(views.size());
    for (const ImageView& v : views)
        images.push_back(cuda::device_image(v.data, v.width, v.height, v.stride_bytes, v.format));
    // DLPack's 1 is the legacy default stream, which the engine calls nullptr; 2
    // (cudaStreamPerThread) and real handles are CUDA's own values.
    const auto stream = where.stream == 1 ? cuda::Stream(nullptr) : reinterpret_cast<cuda::Stream>(where.stream);
    if (images.size() == 1) return {cuda_engine->compute_device(images.front(), request, stream)};
    return cuda_engine->compute_batch(images, request, stream);
#else
    (void)engine, (void)views, (void)request;
    throw BackendUnavailable(on_device(where) + ", but this build of imghist has no CUDA backend");
#endif
}

}  // namespace imghist::python
