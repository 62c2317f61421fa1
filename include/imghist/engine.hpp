// Backends, engines and the registry.
//
// A Backend is a stateless description of one implementation (reference, cpu, opencl, ...);
// the registry lists those compiled in. An Engine holds a backend's device state (contexts,
// queues, compiled programs, buffers) and is owned by the caller: nothing lives in static
// storage.
//
// Thread safety: the registry and Backend objects may be used from any thread. One Engine must
// not be used by two threads at the same time; give each thread its own Engine (engines of the
// same backend may run concurrently). compute() leaves the engine usable after an error.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "imghist/error.hpp"
#include "imghist/image.hpp"
#include "imghist/request.hpp"
#include "imghist/result.hpp"

namespace imghist {

struct EngineOptions {
    // Backend-specific device selector: an index ("0", or "1:0" for platform:device) or a
    // case-insensitive name substring. Empty picks the backend's default (its env variable,
    // e.g. IMGHIST_OPENCL_DEVICE, else the best device).
    std::string device;
    unsigned threads = 0;  // CPU worker threads; 0 = hardware concurrency
    bool operator==(const EngineOptions&) const = default;
};

struct DeviceInfo {
    std::string id;    // what EngineOptions::device accepts to pick exactly this device
    std::string name;
    bool is_gpu = false;
    bool available = false;
    std::string note;  // why it is unavailable, or extra detail
    bool operator==(const DeviceInfo&) const = default;
};

class Engine {
public:
    virtual ~Engine() = default;
    virtual std::string_view backend_name() const = 0;
    virtual std::string device_name() const = 0;

    // Validates the view and request, then counts every pixel. Throws InvalidArgument for bad
    // input and DeviceError when the device fails; never returns a partial histogram. The
    // clipping counts are always known: read off the histogram where its end bins prove them
    // (8-bit default bins), else counted in the same pass where the backend can, else by a
    // second pass over the pixels.
    Result compute(const ImageView& image, const Request& request = {});

private:
    // The backend's part of compute(), given a validated view. Engines are made by the
    // library's backends only, which implement this once for all (src/core/backend_engine.hpp).
    virtual Result compute_validated(const ImageView& image, const Request& request) = 0;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string_view name() const = 0;
    virtual std::string_view summary() const = 0;
    // Every device this backend can see; never throws (problems go into DeviceInfo::note).
    virtual std::vector<DeviceInfo> devices() const = 0;
    // Throws BackendUnavailable when no usable device matches the options.
    virtual std::unique_ptr<Engine> create_engine(const EngineOptions& options) const = 0;

    bool available() const;
};

// Compiled-in backends, in `auto` preference order.
std::span<const Backend* const> backends();
// nullptr if no backend of that name is compiled in.
const Backend* find_backend(std::string_view name);
// "auto" takes the first backend with an available GPU, else "cpu". A named backend that is
// unknown or unavailable throws BackendUnavailable; there is no silent fallback.
std::unique_ptr<Engine> create_engine(std::string_view name = "auto",
                                      const EngineOptions& options = {});

std::string_view version();

}  // namespace imghist
