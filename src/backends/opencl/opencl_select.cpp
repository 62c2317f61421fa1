// Masks and alpha thresholds on device buffers (SlotCounter::gather_device): the selected pixels
// packed into one row by ih_gather_selected (histogram.cl), then counted like any buffer.
#include <limits>

#include "backends/opencl/opencl_engine.hpp"
#include "core/selection.hpp"

namespace imghist::ocl {
namespace {

// Work-items per group: each group takes one global atomic for its selected pixels.
constexpr std::size_t kGatherGroup = 64;

}  // namespace

std::optional<DeviceImage> OpenClEngine::gather_device(const DeviceImage& rows, const DeviceImage* mask,
                                                       const AlphaTest& alpha) {
    const cl_mem image_mem = as_cl_mem(rows.memory);
    const PixelLayout image_layout = device_layout(image_mem, rows);
    PixelLayout mask_layout;
    if (mask) mask_layout = device_layout(as_cl_mem(mask->memory), *mask);
    if (image_layout.source != PixelSource::buffer || (mask && mask_layout.source != PixelSource::buffer))
        throw InvalidArgument("opencl: a mask or an alpha threshold applies to buffers, not to 2D images "
                              "(copy the image into a buffer, or count it without one)");
    const std::uint64_t pixels = rows.pixel_count();
    if (pixels >= (std::uint64_t(1) << 31))
        throw InvalidArgument("opencl: a row of 2^31 pixels or more cannot take a mask or an alpha threshold");
    const FormatInfo& info = rows.info();
    const cl_mem out = ensure(gathered_, std::size_t(pixels) * info.pixel_bytes());
    const cl_mem count = ensure(gathered_count_, sizeof(cl_uint));
    const cl_uint zero = 0;
    check(clEnqueueFillBuffer(queue_.get(), count, &zero, sizeof zero, 0, sizeof zero, 0, nullptr, nullptr),
          "clEnqueueFillBuffer");

    const cl_kernel k = kernel("", "ih_gather_selected");
    cl_uint ai = 0;
    set_arg(k, ai++, image_mem);
    set_arg(k, ai++, cl_ulong(image_layout.offset_bytes));
    set_arg(k, ai++, cl_ulong(image_layout.stride_bytes));
    set_arg(k, ai++, cl_uint(rows.width));
    set_arg(k, ai++, cl_uint(rows.height));
    set_arg(k, ai++, cl_uint(info.pixel_bytes()));
    set_arg(k, ai++, mask ? as_cl_mem(mask->memory) : cl_mem(nullptr));
    set_arg(k, ai++, cl_ulong(mask ? mask_layout.offset_bytes : 0));
    set_arg(k, ai++, cl_ulong(mask ? mask_layout.stride_bytes : 0));
    set_arg(k, ai++, cl_uint(mask ? 1 : 0));
    set_arg(k, ai++, cl_uint(alpha.kind));
    set_arg(k, ai++, cl_uint(alpha.least));
    set_arg(k, ai++, cl_uint(info.alpha < 0 ? 0 : info.alpha * info.bytes_per_sample));
    set_arg(k, ai++, cl_uint(info.sample));
    set_arg(k, ai++, out);
    set_arg(k, ai++, count);
    const std::size_t global = (std::size_t(pixels) + kGatherGroup - 1) / kGatherGroup * kGatherGroup;
    enqueue(k, global, kGatherGroup, "ih_gather_selected");

    cl_uint selected = 0;
    check(clEnqueueReadBuffer(queue_.get(), count, CL_TRUE, 0, sizeof selected, &selected, 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
    if (selected == 0) return std::nullopt;
    DeviceImage packed;
    packed.memory = std::uint64_t(reinterpret_cast<std::uintptr_t>(out));
    packed.width = selected;
    packed.height = 1;
    packed.format = rows.format;
    return packed;
}

}  // namespace imghist::ocl
