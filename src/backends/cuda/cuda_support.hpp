// The CUDA host code's small tools: checked calls, the current device for a scope, and
// buffers that only grow.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>

#include <cuda_runtime_api.h>

#include "gpu/api_error.hpp"
#include "gpu/growing_buffer.hpp"
#include "imghist/error.hpp"

namespace imghist::cuda_detail {

// CUDA's name of the error and its message, in the one shape of gpu/api_error.hpp:
// "CUDA <call> failed: <name> (<code>): <string>".
inline std::string cuda_message(const char* call, cudaError_t err) {
    return gpu::api_error_message("CUDA", call, cudaGetErrorName(err), err, cudaGetErrorString(err));
}
inline void check(cudaError_t err, const char* call) {
    if (err != cudaSuccess) gpu::throw_api_error("CUDA", call, cudaGetErrorName(err), err, cudaGetErrorString(err));
}

// Every CUDA call is checked; a failure throws DeviceError naming the call and CUDA's message.
#define IH_CHECK(call) ::imghist::cuda_detail::check((call), #call)

// Makes `device` current for the scope of a call and restores the caller's device after.
class DeviceScope {
public:
    explicit DeviceScope(int device) : device_(device) {
        IH_CHECK(cudaGetDevice(&previous_));
        if (previous_ != device_) IH_CHECK(cudaSetDevice(device_));
    }
    ~DeviceScope() {
        if (previous_ != device_ && previous_ >= 0) cudaSetDevice(previous_);
    }
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;

private:
    int device_;
    int previous_ = -1;
};

// Memory that only grows (gpu/growing_buffer.hpp): on the device (cudaMalloc) or pinned on
// the host (cudaHostAlloc). Growing waits for the device first, so nothing queued can still
// use the old allocation.
enum class BufferKind { device, pinned };
template <BufferKind M>
struct CudaMemoryTraits {
    using Handle = void*;
    void* allocate(std::size_t bytes) const {
        void* p = nullptr;
        if constexpr (M == BufferKind::device) IH_CHECK(cudaMalloc(&p, bytes));
        else IH_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
        return p;
    }
    static void release(void*& p) noexcept {
        if constexpr (M == BufferKind::device) cudaFree(p);
        else cudaFreeHost(p);
    }
    void wait_before_free() const { IH_CHECK(cudaDeviceSynchronize()); }
};

// `count` elements of T. `ptr` and `count` mirror the memory for the engine to read; only
// reserve() and release() set them.
template <typename T, BufferKind M>
struct GrowingBuffer {
    T* ptr = nullptr;
    std::size_t count = 0;
    void release() {
        memory_.release();
        ptr = nullptr;
        count = 0;
    }
    // Grows (contents lost); `zero` clears the new buffer.
    void reserve(std::size_t n, bool zero = false) {
        if (n <= count) return;
        ptr = nullptr;  // a failed growth leaves no pointer to freed memory
        count = 0;
        const bool grew = memory_.ensure(n * sizeof(T));
        ptr = static_cast<T*>(memory_.get());
        count = memory_.size() / sizeof(T);
        if (!grew || !zero) return;
        if constexpr (M == BufferKind::device) {
            IH_CHECK(cudaMemset(ptr, 0, n * sizeof(T)));
            IH_CHECK(cudaDeviceSynchronize());
        } else {
            std::memset(ptr, 0, n * sizeof(T));
        }
    }

private:
    gpu::GrowingBuffer<CudaMemoryTraits<M>> memory_;
};
template <typename T>
using DeviceBuffer = GrowingBuffer<T, BufferKind::device>;
template <typename T>
using PinnedBuffer = GrowingBuffer<T, BufferKind::pinned>;

}  // namespace imghist::cuda_detail
