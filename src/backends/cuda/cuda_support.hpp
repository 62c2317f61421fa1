// The CUDA host code's small tools: checked calls, the current device for a scope, and
// buffers that only grow.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>

#include <cuda_runtime_api.h>

#include "imghist/error.hpp"

namespace imghist::cuda_detail {

inline std::string cuda_message(const char* call, cudaError_t err) {
    return std::string("CUDA ") + call + " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
           ")";
}

// Every CUDA call is checked; a failure throws DeviceError naming the call and CUDA's message.
#define IH_CHECK(call)                                                                             \
    do {                                                                                           \
        const cudaError_t ih_err_ = (call);                                                        \
        if (ih_err_ != cudaSuccess) throw ::imghist::DeviceError(::imghist::cuda_detail::cuda_message(#call, ih_err_)); \
    } while (0)

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

// Memory that only grows: on the device (cudaMalloc) or pinned on the host (cudaHostAlloc).
// Growing waits for the device first, so nothing queued can still use the old allocation.
enum class BufferKind { device, pinned };
template <typename T, BufferKind M>
struct GrowingBuffer {
    T* ptr = nullptr;
    std::size_t count = 0;
    void release() {
        if (ptr) {
            if constexpr (M == BufferKind::device) cudaFree(ptr);
            else cudaFreeHost(ptr);
        }
        ptr = nullptr;
        count = 0;
    }
    // Grows (contents lost); `zero` clears the new buffer.
    void reserve(std::size_t n, bool zero = false) {
        if (n <= count) return;
        if (ptr) IH_CHECK(cudaDeviceSynchronize());
        release();
        void** p = reinterpret_cast<void**>(&ptr);
        if constexpr (M == BufferKind::device) IH_CHECK(cudaMalloc(p, n * sizeof(T)));
        else IH_CHECK(cudaHostAlloc(p, n * sizeof(T), cudaHostAllocDefault));
        count = n;
        if (!zero) return;
        if constexpr (M == BufferKind::device) {
            IH_CHECK(cudaMemset(ptr, 0, n * sizeof(T)));
            IH_CHECK(cudaDeviceSynchronize());
        } else {
            std::memset(ptr, 0, n * sizeof(T));
        }
    }
};
template <typename T>
using DeviceBuffer = GrowingBuffer<T, BufferKind::device>;
template <typename T>
using PinnedBuffer = GrowingBuffer<T, BufferKind::pinned>;

}  // namespace imghist::cuda_detail
