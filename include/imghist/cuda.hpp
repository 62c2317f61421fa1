// CUDA interop: histograms of images already in device memory, on the caller's stream, and of
// many images in one call. Available when imghist was built with the CUDA backend
// (IMGHIST_BACKENDS contains "cuda"); link imghist::imghist as usual.
//
//   auto engine = imghist::cuda::create_engine();            // --device / IMGHIST_CUDA_DEVICE
//   auto img = imghist::cuda::device_image(d_pixels, width, height, pitch, imghist::PixelFormat::rgba8);
//   imghist::Result r = imghist::cuda::compute(*engine, img, {}, stream);   // d_pixels: device memory
//
// device_image / create_engine / compute are the call shape of every interop API (opencl.hpp,
// vulkan.hpp); the members of cuda::Engine add the asynchronous and batched calls.
//
// The plain Engine::compute() of this engine takes host memory and stages it through pinned
// buffers, overlapping the copies with counting.
//
// Results are bit-identical to the reference backend. Counts are 64-bit everywhere.
// Clipping: results of these calls (all but Engine::compute and compute_batch of host images)
// carry the exact clipping counts only where the histogram proves them; elsewhere
// ChannelHistogram::clipped_low_count / clipped_high_count are empty, meaning unknown
// (docs/semantics.md, "Statistics").
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "imghist/engine.hpp"
#include "imghist/image.hpp"

struct CUstream_st;

namespace imghist::cuda {

// The same type as cudaStream_t; nullptr is the legacy default stream.
using Stream = CUstream_st*;

// The one device-image type (imghist::DeviceImage) for a CUDA pointer: `memory` is the
// pointer's value (to 256 bytes; the rest is offset_bytes, which validate() checks against the
// sample size). `pitch` 0: packed rows.
inline DeviceImage device_image(const void* pixels, std::uint32_t width, std::uint32_t height, std::size_t pitch,
                                PixelFormat format) {
    const auto address = std::uint64_t(reinterpret_cast<std::uintptr_t>(pixels));
    return DeviceImage{address / 256 * 256, address % 256, width, height, std::uint64_t(pitch), format};
}

class Engine : public imghist::Engine {
public:
    // `image.memory` is device memory (cudaMalloc, cudaMallocPitch, managed, or mapped pinned
    // host memory; see device_image()) and `image.stride_bytes` its pitch. The work is enqueued
    // on `stream` behind whatever the caller queued there; the call returns when the result is
    // ready. No host copy of the pixels is made.
    virtual Result compute_device(const DeviceImage& image, const Request& request = {},
                                  Stream stream = nullptr) = 0;

    // Enqueues the histogram on `stream` and returns at once. When the stream reaches that
    // point, `device_slots` (device memory, slot_count(image.format, request) counters) holds
    // the counts: per channel, bins, then nan, below, above (see unpack()). Nothing else has
    // to be zeroed or synchronised. The engine must outlive the work it enqueued.
    virtual void compute_device_async(const DeviceImage& image, const Request& request,
                                      std::uint64_t* device_slots, Stream stream) = 0;

    // Many images of one pixel format (sizes and strides may differ) counted in as few
    // launches as possible, so that small frames are not launch-bound. One Result per image,
    // in order. Host images are packed into pinned staging buffers; device images are read in
    // place on `stream`. Clipping counts as the single-image calls give them: every one for host
    // images (as compute(): one more batched run where the bins do not prove them), those the
    // bins prove for device images (as compute_device). A roi, tiles, a mask or an alpha
    // threshold is refused (InvalidArgument): count those image by image.
    virtual std::vector<Result> compute_batch(std::span<const ImageView> images, const Request& request = {}) = 0;
    virtual std::vector<Result> compute_batch(std::span<const DeviceImage> images, const Request& request = {},
                                              Stream stream = nullptr) = 0;

    // Device images, asynchronous: image i's counts go to device_slots + i * slot_count().
    virtual void compute_batch_device_async(std::span<const DeviceImage> images, const Request& request,
                                            std::uint64_t* device_slots, Stream stream) = 0;

    // Counters per image in the asynchronous outputs.
    virtual std::size_t slot_count(PixelFormat format, const Request& request) const = 0;
    // A Result from counters copied back from an asynchronous output.
    virtual Result unpack(const DeviceImage& image, const Request& request,
                          std::span<const std::uint64_t> slots) const = 0;
};

// Throws BackendUnavailable when the library has no CUDA backend or no usable device matches
// options.device (else IMGHIST_CUDA_DEVICE, else device 0): an index or a name substring.
std::unique_ptr<Engine> create_engine(const EngineOptions& options = {});

// engine.compute_device(image, request, stream), for `engine` made by create_engine(); an engine
// of another backend throws InvalidArgument.
Result compute(imghist::Engine& engine, const DeviceImage& image, const Request& request = {},
               Stream stream = nullptr);

}  // namespace imghist::cuda
