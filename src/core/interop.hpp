// The part the three interop APIs (imghist/opencl.hpp, cuda.hpp, vulkan.hpp) share: their
// compute() takes a public Engine, and only an engine of the API's own kind may count the
// API's device images; any other is an InvalidArgument naming both backends.
#pragma once

#include <string>
#include <string_view>

#include "imghist/engine.hpp"

namespace imghist {

// Throws the error of `engine` given to interop API `api` ("opencl", "cuda", "vulkan").
[[noreturn]] inline void reject_interop_engine(const Engine& engine, std::string_view api) {
    const std::string name(api), backend(engine.backend_name());
    if (backend == name)  // the API's backend, but an engine that cannot reach the caller's device
        throw InvalidArgument("imghist::" + name + ": this " + name + " engine was not made by " + name +
                              "::create_engine");
    throw InvalidArgument("imghist::" + name + ": the engine is a '" + backend + "' engine, not an " + name + " one");
}

// `engine` as `BackendEngine`, the engine type behind interop API `api`.
template <class BackendEngine>
BackendEngine& interop_engine(Engine& engine, std::string_view api) {
    if (auto* e = dynamic_cast<BackendEngine*>(&engine)) return *e;
    reject_interop_engine(engine, api);
}

}  // namespace imghist
