// The public Engine and the backend registry: which backends are compiled in, auto's choice.
#include "imghist/engine.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <optional>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

#include "core/backend_list.hpp"
#include "core/backend_engine.hpp"

#ifndef IMGHIST_VERSION
#define IMGHIST_VERSION "0.0.0"
#endif

namespace imghist {

std::string_view version() { return IMGHIST_VERSION; }

Result Engine::compute(const ImageView& image, const Request& request) {
    image.validate();
    return compute_validated(image, request);
}

bool Backend::available() const {
    for (const DeviceInfo& d : devices())
        if (d.available) return true;
    return false;
}

std::span<const Backend* const> backends() {
    // GPU backends first: `auto` walks this list.
    static const auto list = std::to_array<const Backend*>({
#ifdef IMGHIST_WITH_CUDA
        &cuda_backend(),
#endif
#ifdef IMGHIST_WITH_OPENCL
        &opencl_backend(),
#endif
#ifdef IMGHIST_WITH_VULKAN
        &vulkan_backend(),
#endif
        &cpu_backend(),
        &reference_backend(),
    });
    return list;
}

const Backend* find_backend(std::string_view name) {
    for (const Backend* b : backends())
        if (b->name() == name) return b;
    return nullptr;
}

std::unique_ptr<Engine> create_engine(std::string_view name, const EngineOptions& options) {
    if (name == "auto") {
        for (const Backend* b : backends()) {
            for (const DeviceInfo& d : b->devices()) {
                if (d.is_gpu && d.available) return b->create_engine(options);
            }
        }
        return cpu_backend().create_engine(options);
    }
    const Backend* backend = find_backend(name);
    if (backend == nullptr) {
        std::string known;
        for (const Backend* b : backends()) known += (known.empty() ? "" : ", ") + std::string(b->name());
        throw BackendUnavailable("unknown backend '" + std::string(name) + "' (compiled in: " + known +
                                 ")");
    }
    return backend->create_engine(options);
}


}  // namespace imghist
