// OpenCL interop: histograms of pixels that already live on an OpenCL device.
//
// Available when imghist was built with the opencl backend (IMGHIST_WITH_OPENCL / the CMake
// option IMGHIST_OPENCL). Include <CL/cl.h> yourself first to choose the OpenCL version;
// otherwise this header targets OpenCL 1.2.
//
//   cl_command_queue queue = ...;            // yours: its context holds your buffers
//   auto engine = imghist::opencl::create_engine(queue);
//   imghist::DeviceImage src = imghist::opencl::device_image(buffer, width, height, imghist::PixelFormat::rgba8);
//   imghist::Result r = imghist::opencl::compute(*engine, src);
//
// device_image / create_engine / compute are the call shape of every interop API (cuda.hpp,
// vulkan.hpp); compute_image and last_device_times are OpenCL's own.
//
// Nothing is copied to the host: the kernels read your buffer in place (an image is first
// copied into a device buffer, row tiles at a time, with clEnqueueCopyImageToBuffer). The
// engine enqueues on your queue (on an in-order queue it waits for work you enqueued before;
// an out-of-order queue is drained with clFinish first) and returns when the counts are read.
// Results are bit-identical to every other backend.
// Clipping: results of these calls (all but Engine::compute) carry the exact clipping counts
// only where the histogram proves them; elsewhere ChannelHistogram::clipped_low_count /
// clipped_high_count are empty, meaning unknown (docs/semantics.md, "Statistics").
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "imghist/engine.hpp"
#include "imghist/image.hpp"

namespace imghist::opencl {

// An engine of the opencl backend that runs on `queue` (and so on its context and device).
// The engine retains the queue. Throws DeviceError if the queue is not usable.
std::unique_ptr<Engine> create_engine(cl_command_queue queue);

// The device image of pixels in an OpenCL buffer (imghist::DeviceImage, image.hpp, with the
// cl_mem as its memory): `height` rows of `width` pixels, the first at `offset_bytes`, rows
// `stride_bytes` apart (0 = packed rows). Offset and stride must be multiples of the sample size.
inline DeviceImage device_image(cl_mem buffer, std::uint32_t width, std::uint32_t height, PixelFormat format,
                                std::uint64_t stride_bytes = 0, std::uint64_t offset_bytes = 0) {
    DeviceImage image;
    image.memory = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(buffer));
    image.offset_bytes = offset_bytes;
    image.width = width;
    image.height = height;
    image.stride_bytes = stride_bytes;
    image.format = format;
    return image;
}

// Histograms of a device image whose memory is a cl_mem buffer (device_image()). `engine` must
// be an opencl engine on the buffer's context (else InvalidArgument); OpenCL failures throw
// DeviceError.
Result compute(Engine& engine, const DeviceImage& image, const Request& request = {});

// Histograms of a 2D image (cl_mem of type CL_MEM_OBJECT_IMAGE2D). The pixel format comes
// from the image format: channel order CL_R, CL_LUMINANCE (gray), CL_RGBA or CL_BGRA (8-bit
// only); channel type CL_UNORM_INT8 / CL_UNSIGNED_INT8, CL_UNORM_INT16 / CL_UNSIGNED_INT16,
// CL_HALF_FLOAT or CL_FLOAT. Samples are counted as stored (no unorm-to-float conversion).
Result compute_image(Engine& engine, cl_mem image, const Request& request = {});

// The imghist format of an OpenCL image format, if it has one.
std::optional<PixelFormat> pixel_format_of(const cl_image_format& format);

// Device time of the engine's last compute, read from profiling events:
//   total_seconds  from the start of its first command (clearing the counters, uploading or
//                  copying pixels) to the end of its last (reading the counts back);
//   kernel_seconds from the start of its first histogram kernel to the end of its last
//                  merging kernel.
// nullopt when the queue lacks CL_QUEUE_PROFILING_ENABLE (the backend's own engines have it)
// or `engine` is not an opencl engine.
struct DeviceTimes {
    double total_seconds = 0;
    double kernel_seconds = 0;
};
std::optional<DeviceTimes> last_device_times(const Engine& engine);

}  // namespace imghist::opencl
