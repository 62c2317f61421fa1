// What the CUDA backend's test files share: the skip-or-fail rule without a GPU, device memory
// and uploads of host test images, the requests every format is checked with, and the
// IMGHIST_CUDA_TUNE scope.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "imghist/cuda.hpp"
#include "imghist/imghist.hpp"

namespace imghist::cuda_test {

// IMGHIST_REQUIRE_BACKENDS lists cuda: a missing GPU is a failure, not a skip.
bool cuda_required();
// Each CUDA device's name and note, for the skip or failure message.
std::string device_notes();

#define REQUIRE_GPU()                                                                          \
    do {                                                                                        \
        const Backend* b_ = find_backend("cuda");                                               \
        if (b_ == nullptr || !b_->available()) {                                                \
            if (cuda_test::cuda_required())                                                     \
                FAIL() << "cuda is required but unusable: " << cuda_test::device_notes();       \
            GTEST_SKIP() << "no usable CUDA device: " << cuda_test::device_notes();             \
        }                                                                                       \
    } while (0)

#define CK(call) ASSERT_EQ((call), cudaSuccess) << #call

// Owns device memory.
struct DeviceMemory {
    void* ptr = nullptr;
    DeviceMemory() = default;
    explicit DeviceMemory(std::size_t bytes) {
        if (cudaMalloc(&ptr, bytes) != cudaSuccess) ptr = nullptr;
    }
    ~DeviceMemory() {
        if (ptr) cudaFree(ptr);
    }
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;
    DeviceMemory(DeviceMemory&& o) noexcept : ptr(o.ptr) { o.ptr = nullptr; }
    DeviceMemory& operator=(DeviceMemory&& o) noexcept {
        std::swap(ptr, o.ptr);
        return *this;
    }
};

// A copy of a host test image in device memory: `offset` bytes into the allocation, rows
// `pitch` bytes apart (0: packed).
struct DeviceCopy {
    DeviceMemory mem;
    DeviceImage view;
};
DeviceCopy upload(const ImageView& host, std::size_t pitch = 0, std::size_t offset = 0);

using NamedRequests = std::vector<std::pair<std::string, Request>>;
// default, rgb, luma Rec. 601, 4096 clamped bins with alpha, 100 bins.
NamedRequests requests(const FormatInfo& fi);

// Sets IMGHIST_CUDA_TUNE for the engines created in its lifetime.
struct TuneScope {
    explicit TuneScope(const std::string& tune) {
        if (tune.empty()) unsetenv("IMGHIST_CUDA_TUNE");
        else setenv("IMGHIST_CUDA_TUNE", tune.c_str(), 1);
    }
    ~TuneScope() { unsetenv("IMGHIST_CUDA_TUNE"); }
};

}  // namespace imghist::cuda_test
