// The interop calls of imghist/opencl.hpp: the caller's queue, buffers and images, counted by
// the same count_image() as host views (through OpenClEngine::accumulate_device).
#include <cstdio>

#include "backends/opencl/opencl_engine.hpp"
#include "core/interop.hpp"
#include "imghist/opencl.hpp"

namespace imghist::opencl {
namespace {

ocl::OpenClEngine& as_opencl(Engine& engine) { return interop_engine<ocl::OpenClEngine>(engine, "opencl"); }

std::string hex(unsigned value) {
    char b[16];
    std::snprintf(b, sizeof b, "%X", value);
    return b;
}

}  // namespace

std::unique_ptr<Engine> create_engine(cl_command_queue queue) {
    return std::make_unique<ocl::OpenClEngine>(queue);
}

Result compute(Engine& engine, const DeviceImage& image, const Request& request) {
    ocl::OpenClEngine& e = as_opencl(engine);
    return count_image(e, image, request, "opencl", e.device_name());
}

std::optional<PixelFormat> pixel_format_of(const cl_image_format& f) {
    int bits;
    bool is_float = false, half = false;
    switch (f.image_channel_data_type) {
        case CL_UNORM_INT8: case CL_UNSIGNED_INT8: bits = 8; break;
        case CL_UNORM_INT16: case CL_UNSIGNED_INT16: bits = 16; break;
        case CL_HALF_FLOAT: bits = 16; is_float = half = true; break;
        case CL_FLOAT: bits = 32; is_float = true; break;
        default: return std::nullopt;
    }
    switch (f.image_channel_order) {
        case CL_R:
        case CL_LUMINANCE:
            if (is_float) return half ? PixelFormat::gray_f16 : PixelFormat::gray_f32;
            return bits == 8 ? PixelFormat::gray8 : PixelFormat::gray16;
        case CL_RGBA:
            if (is_float) return half ? PixelFormat::rgba_f16 : PixelFormat::rgba_f32;
            return bits == 8 ? PixelFormat::rgba8 : PixelFormat::rgba16;
        case CL_BGRA:
            if (bits == 8 && !is_float) return PixelFormat::bgra8;
            return std::nullopt;
        default: return std::nullopt;
    }
}

Result compute_image(Engine& engine, cl_mem image, const Request& request) {
    ocl::OpenClEngine& e = as_opencl(engine);
    if (image == nullptr) throw InvalidArgument("imghist::opencl::compute_image: null image");
    cl_mem_object_type type = 0;
    ocl::check(clGetMemObjectInfo(image, CL_MEM_TYPE, sizeof type, &type, nullptr), "clGetMemObjectInfo(CL_MEM_TYPE)");
    if (type != CL_MEM_OBJECT_IMAGE2D)
        throw InvalidArgument("imghist::opencl::compute_image: not a 2D image (use compute() for buffers)");
    cl_image_format fmt{};
    std::size_t w = 0, h = 0;
    ocl::check(clGetImageInfo(image, CL_IMAGE_FORMAT, sizeof fmt, &fmt, nullptr), "clGetImageInfo(CL_IMAGE_FORMAT)");
    ocl::check(clGetImageInfo(image, CL_IMAGE_WIDTH, sizeof w, &w, nullptr), "clGetImageInfo(CL_IMAGE_WIDTH)");
    ocl::check(clGetImageInfo(image, CL_IMAGE_HEIGHT, sizeof h, &h, nullptr), "clGetImageInfo(CL_IMAGE_HEIGHT)");
    const auto format = pixel_format_of(fmt);
    if (!format)
        throw InvalidArgument("imghist::opencl::compute_image: unsupported image format (channel order 0x" +
                              hex(fmt.image_channel_order) + ", channel type 0x" + hex(fmt.image_channel_data_type) +
                              ")");
    return count_image(e, device_image(image, std::uint32_t(w), std::uint32_t(h), *format), request, "opencl",
                       e.device_name());
}

std::optional<DeviceTimes> last_device_times(const Engine& engine) {
    const auto* e = dynamic_cast<const ocl::OpenClEngine*>(&engine);
    if (e == nullptr) return std::nullopt;
    return e->last_times();
}

}  // namespace imghist::opencl
