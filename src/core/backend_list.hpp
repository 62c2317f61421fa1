// One accessor per compiled-in backend. Each returns a stateless descriptor; device state
// lives only in the engines they create. Add a backend here and in backends() (engine.cpp).
#pragma once

#include "imghist/engine.hpp"

namespace imghist {
const Backend& reference_backend();
const Backend& cpu_backend();
#ifdef IMGHIST_WITH_OPENCL
const Backend& opencl_backend();
#endif
#ifdef IMGHIST_WITH_VULKAN
const Backend& vulkan_backend();
#endif
#ifdef IMGHIST_WITH_CUDA
const Backend& cuda_backend();
#endif
}  // namespace imghist
