// OpenCL host helpers of the opencl backend: error names, checked calls, owning handles.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "gpu/api_error.hpp"
#include "imghist/error.hpp"

namespace imghist::ocl {

// "CL_OUT_OF_RESOURCES" for -5, etc.; "CL error -1234" for codes it does not know.
std::string error_name(cl_int code);

// "OpenCL <call> failed: <error name> (<code>)[: detail]", the shape of gpu/api_error.hpp.
inline std::string error_message(cl_int code, const char* call, std::string_view detail = {}) {
    return gpu::api_error_message("OpenCL", call, error_name(code), code, detail);
}

// Throws DeviceError(error_message(...)) unless code is CL_SUCCESS.
inline void check(cl_int code, const char* call, std::string_view detail = {}) {
    if (code != CL_SUCCESS) gpu::throw_api_error("OpenCL", call, error_name(code), code, detail);
}

// Sets kernel argument i to v (a scalar, a struct or a cl_mem).
template <typename T>
void set_arg(cl_kernel k, cl_uint i, const T& v) {
    check(clSetKernelArg(k, i, sizeof(T), &v), "clSetKernelArg");
}

// The cl_mem a DeviceImage's `memory` holds.
inline cl_mem as_cl_mem(std::uint64_t memory) { return reinterpret_cast<cl_mem>(static_cast<std::uintptr_t>(memory)); }

// An owning handle of one OpenCL object type (retain/release through the given functions).
template <typename T, cl_int (*Release)(T), cl_int (*Retain)(T)>
class Handle {
public:
    Handle() = default;
    explicit Handle(T h) : h_(h) {}  // takes ownership of one reference
    Handle(const Handle& o) : h_(o.h_) { if (h_) Retain(h_); }
    Handle(Handle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
    Handle& operator=(Handle o) noexcept { std::swap(h_, o.h_); return *this; }
    ~Handle() { if (h_) Release(h_); }
    T get() const { return h_; }
    explicit operator bool() const { return h_ != nullptr; }
    static Handle retain(T h) { if (h) Retain(h); return Handle(h); }

private:
    T h_ = nullptr;
};

using Context = Handle<cl_context, clReleaseContext, clRetainContext>;
using Queue = Handle<cl_command_queue, clReleaseCommandQueue, clRetainCommandQueue>;
using Program = Handle<cl_program, clReleaseProgram, clRetainProgram>;
using Kernel = Handle<cl_kernel, clReleaseKernel, clRetainKernel>;
using Mem = Handle<cl_mem, clReleaseMemObject, clRetainMemObject>;
using Event = Handle<cl_event, clReleaseEvent, clRetainEvent>;

}  // namespace imghist::ocl
