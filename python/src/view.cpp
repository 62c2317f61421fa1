// numpy arrays (and anything with the buffer protocol or DLPack, on the host or a CUDA device) as
// ImageViews, without a copy.
#include "bindings.hpp"

#include <cstdint>
#include <limits>
#include <string_view>

namespace imghist::python {

namespace {

constexpr const char* kAcceptedDtypes = "uint8, uint16, float16 or float32";

std::string dtype_name(nb::dlpack::dtype t) {
    using nb::dlpack::dtype_code;
    const std::string bits = std::to_string(t.bits);
    switch (dtype_code(t.code)) {
        case dtype_code::Int: return "int" + bits;
        case dtype_code::UInt: return "uint" + bits;
        case dtype_code::Float: return "float" + bits;
        case dtype_code::Bfloat: return "bfloat" + bits;
        case dtype_code::Complex: return "complex" + bits;
        case dtype_code::Bool: return "bool";
        default: return "DLPack type code " + std::to_string(t.code) + " of " + bits + " bits";
    }
}

SampleType sample_of(nb::dlpack::dtype t) {
    using nb::dlpack::dtype_code;
    if (t.lanes == 1) {
        if (t.code == std::uint8_t(dtype_code::UInt) && t.bits == 8) return SampleType::u8;
        if (t.code == std::uint8_t(dtype_code::UInt) && t.bits == 16) return SampleType::u16;
        if (t.code == std::uint8_t(dtype_code::Float) && t.bits == 16) return SampleType::f16;
        if (t.code == std::uint8_t(dtype_code::Float) && t.bits == 32) return SampleType::f32;
    }
    throw nb::type_error(("image dtype " + dtype_name(t) + " is not supported: imghist counts " +
                          kAcceptedDtypes + " samples and never converts (use a.astype(...) to choose)")
                             .c_str());
}


// layout=None or the natural order's name keeps it; "bgr"/"bgra" are 8-bit only.
PixelFormat format_of(SampleType sample, std::size_t channels, const std::optional<std::string>& layout) {
    const PixelFormat natural = natural_format(sample, channels);
    if (!layout) return natural;
    const std::string_view name = *layout;
    const std::string c = std::to_string(channels);
    const auto need = [&](std::size_t wanted) {
        if (channels != wanted)
            throw InvalidArgument("layout '" + *layout + "' needs " + std::to_string(wanted) +
                                  " channels; the array has " + c);
    };
    if (name == "gray") return need(1), natural;
    if (name == "rgb") return need(3), natural;
    if (name == "rgba") return need(4), natural;
    if (name == "bgr" || name == "bgra") {
        need(name == "bgr" ? 3 : 4);
        if (sample != SampleType::u8)
            throw InvalidArgument("layout '" + *layout + "' exists for uint8 arrays only");
        return name == "bgr" ? PixelFormat::bgr8 : PixelFormat::bgra8;
    }
    throw InvalidArgument("layout must be None, 'gray', 'rgb', 'rgba', 'bgr', 'bgra' or 'chw'; got '" + *layout + "'");
}

std::string shape_text(const Array& a) {
    std::string s = "(";
    for (std::size_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
    return s + (a.ndim() == 1 ? ",)" : ")");
}

std::uint32_t dimension(const Array& a, std::size_t axis, const char* what) {
    if (a.shape(axis) > std::numeric_limits<std::uint32_t>::max())
        throw InvalidArgument(std::string("image ") + what + " " + std::to_string(a.shape(axis)) +
                              " is above 2^32 - 1");
    return std::uint32_t(a.shape(axis));
}

// Bytes between rows: the array's own row stride (a slice keeps its parent's), checked here so
// that the messages speak of arrays rather than of views.
std::size_t row_stride_bytes(const Array& a, std::size_t samples_per_row) {
    if (a.shape(0) == 1) return samples_per_row * a.itemsize();  // one row: its stride is never read
    const std::int64_t rows = a.stride(0);
    if (rows <= 0 || std::uint64_t(rows) < samples_per_row)
        throw InvalidArgument("image rows overlap or run backwards (row stride " + std::to_string(rows) +
                              " samples): pass np.ascontiguousarray(image)");
    return std::size_t(rows) * a.itemsize();
}

std::string text_of(nb::handle value) { return nb::cast<std::string>(nb::steal<nb::str>(PyObject_Str(value.ptr()))); }

// A numpy dtype we count, so that a failed import is about the strides, not the dtype.
bool accepted_native_dtype(nb::handle dtype) {
    if (!nb::hasattr(dtype, "name") || !nb::hasattr(dtype, "isnative") || !nb::bool_(dtype.attr("isnative")))
        return false;
    const std::string name = text_of(dtype.attr("name"));
    return name == "uint8" || name == "uint16" || name == "float16" || name == "float32";
}

bool is_mask_dtype(nb::dlpack::dtype t) {
    using nb::dlpack::dtype_code;
    return t.lanes == 1 && t.bits == 8 &&
           (t.code == std::uint8_t(dtype_code::UInt) || t.code == std::uint8_t(dtype_code::Bool));
}

constexpr const char* kMaskUsage =
    "a mask is a 2-D uint8 or bool array of the image's (height, width), non-zero (True) where a pixel counts";

// What every mask array must be: one byte a sample, 2-D, not empty, each side below 2^32.
void check_mask_array(const Array& array) {
    if (!is_mask_dtype(array.dtype()))
        throw InvalidArgument("mask dtype " + dtype_name(array.dtype()) + " is not supported: " + kMaskUsage +
                              " (e.g. mask != 0)");
    if (array.ndim() != 2) throw InvalidArgument("mask shape " + shape_text(array) + " is not 2-D: " + kMaskUsage);
    if (array.shape(0) == 0 || array.shape(1) == 0)
        throw InvalidArgument("mask shape " + shape_text(array) + " is empty: " + kMaskUsage);
    for (std::size_t axis = 0; axis < 2; ++axis)
        if (array.shape(axis) > std::numeric_limits<std::uint32_t>::max())
            throw InvalidArgument("mask shape " + shape_text(array) + " is above 2^32 - 1 pixels along a side");
}

// Whether a 2-D mask array's rows are packed: one byte a pixel, each row after the one before.
bool rows_packed(const Array& a) {
    return (a.shape(1) <= 1 || a.stride(1) == 1) && (a.shape(0) <= 1 || a.stride(0) >= std::int64_t(a.shape(1)));
}

// A host mask's array, imported without a copy.
Array host_mask_array_of(nb::handle mask) {
    Array array;
    if (!nb::try_cast(mask, array, /*convert=*/false)) {
        PyErr_Clear();  // as in array_of: the exporter's error may be left set
        if (nb::hasattr(mask, "dtype") && nb::hasattr(mask, "shape"))
            throw InvalidArgument("mask dtype " + text_of(mask.attr("dtype")) + " is not supported: " + kMaskUsage +
                                  " (e.g. mask != 0)");
        throw InvalidArgument(std::string("mask must be None or an array (numpy, or anything with the buffer protocol "
                                          "or DLPack); got ") + text_of(nb::handle(Py_TYPE(mask.ptr()))));
    }
    const int device = array.device_type();
    if (device != nb::device::cpu::value && device != nb::device::cuda_host::value)
        throw InvalidArgument("mask: the array is not in host memory (DLPack device type " + std::to_string(device) +
                              "); a mask must be a host array");
    check_mask_array(array);
    return array;
}

// A CUDA mask for CUDA images at `image_where`: exported for the images' stream (its producer
// makes it ready there) and read in place as Request::device_mask.
std::shared_ptr<const MaskPixels> cuda_mask_of(nb::handle mask, const Placement& image_where) {
    auto pixels = std::make_shared<MaskPixels>();
    Placement where = image_where;
    nb::object capsule = export_cuda(mask, where, nb::int_(image_where.stream));
    if (!nb::try_cast(capsule, pixels->array, /*convert=*/false)) {
        PyErr_Clear();
        throw nb::type_error("mask: the array's __dlpack__() did not give a DLPack tensor that imghist can read");
    }
    const Array& a = pixels->array;
    check_mask_array(a);
    const auto height = std::uint32_t(a.shape(0)), width = std::uint32_t(a.shape(1));
    if (!rows_packed(a))
        throw InvalidArgument("mask: a CUDA mask's rows must be contiguous, one byte a pixel, first row first "
                              "(e.g. mask.contiguous())");
    DeviceImage view;
    view.memory = std::uint64_t(reinterpret_cast<std::uintptr_t>(a.data()));
    view.width = width;
    view.height = height;
    view.stride_bytes = height > 1 ? std::uint64_t(a.stride(0)) : 0;
    view.format = PixelFormat::gray8;
    pixels->device_view = view;
    return pixels;
}

}  // namespace

std::shared_ptr<const MaskPixels> mask_of(nb::handle mask, const Placement* image_where) {
    std::optional<Placement> cuda;
    try {
        cuda = cuda_placement_of(mask);
    } catch (const InvalidArgument& e) {
        throw InvalidArgument(std::string("mask: ") + e.what());
    }
    const bool image_on_cuda = image_where != nullptr && image_where->cuda;
    if (cuda && !image_on_cuda)
        throw InvalidArgument("mask: the array lives on CUDA device " + std::to_string(cuda->device) +
                              " but the image in host memory: a host image takes a host mask (e.g. numpy, "
                              "tensor.cpu())");
    if (cuda && cuda->device != image_where->device)
        throw InvalidArgument("mask: the array lives on CUDA device " + std::to_string(cuda->device) +
                              ", the image on CUDA device " + std::to_string(image_where->device) +
                              ": give the mask on the image's device");
    if (cuda) return cuda_mask_of(mask, *image_where);
    if (image_on_cuda)
        throw InvalidArgument("mask: the image lives on CUDA device " + std::to_string(image_where->device) +
                              " but the mask in host memory: give the mask on the same device (e.g. "
                              "torch.from_numpy(m).cuda()), or count a host copy of the image");
    auto pixels = std::make_shared<MaskPixels>();
    pixels->array = host_mask_array_of(mask);
    const Array& a = pixels->array;
    const auto height = std::uint32_t(a.shape(0)), width = std::uint32_t(a.shape(1));
    const auto* first = static_cast<const std::uint8_t*>(a.data());
    // bool is one byte, non-zero where True, so both dtypes read as gray8 samples.
    if (rows_packed(a)) {
        pixels->view = ImageView::packed(first, width, height, PixelFormat::gray8);
        if (height > 1) pixels->view.stride_bytes = std::size_t(a.stride(0));
        return pixels;
    }
    // A column slice, one channel of an image, or rows running backwards: one byte a pixel, so a
    // packed copy costs little and keeps the core's view simple.
    pixels->packed.resize(std::size_t(width) * height);
    std::uint8_t* out = pixels->packed.data();
    for (std::uint32_t y = 0; y < height; ++y)
        for (std::uint32_t x = 0; x < width; ++x)
            *out++ = first[std::int64_t(y) * a.stride(0) + std::int64_t(x) * a.stride(1)];
    pixels->view = ImageView::packed(pixels->packed.data(), width, height, PixelFormat::gray8);
    return pixels;
}

PixelFormat natural_format(SampleType sample, std::size_t channels) {
    static constexpr PixelFormat kByChannels[4][3] = {
        {PixelFormat::gray8, PixelFormat::rgb8, PixelFormat::rgba8},
        {PixelFormat::gray16, PixelFormat::rgb16, PixelFormat::rgba16},
        {PixelFormat::gray_f16, PixelFormat::rgb_f16, PixelFormat::rgba_f16},
        {PixelFormat::gray_f32, PixelFormat::rgb_f32, PixelFormat::rgba_f32},
    };
    return kByChannels[int(sample)][channels == 1 ? 0 : channels == 3 ? 1 : 2];
}

Array array_of(nb::handle image, nb::handle stream, Placement& where) {
    Array array;
    if (const std::optional<Placement> cuda = cuda_placement_of(image)) {
        where = *cuda;
        // The producer makes the pixels ready on the stream we count on (cuda_arrays.cpp).
        nb::object capsule = export_cuda(image, where, stream);
        if (!nb::try_cast(capsule, array, /*convert=*/false)) {
            PyErr_Clear();
            throw nb::type_error("the array's __dlpack__() did not give a DLPack tensor that imghist can read");
        }
        return array;
    }
    // No conversion: nanobind would otherwise cast a float64 array to whatever we asked for.
    if (!nb::try_cast(image, array, /*convert=*/false)) {
        PyErr_Clear();  // a failed import may leave the exporter's error (numpy's BufferError) set
        if (nb::hasattr(image, "dtype") && accepted_native_dtype(image.attr("dtype")))
            throw InvalidArgument("the array's strides are not whole samples, so it cannot be read without a copy: "
                                  "pass np.ascontiguousarray(image)");
        if (nb::hasattr(image, "dtype"))
            throw nb::type_error(("image dtype " + text_of(image.attr("dtype")) +
                                  " is not supported: imghist counts " + kAcceptedDtypes +
                                  " samples in native byte order, and never converts (use a.astype(...) to choose)")
                                     .c_str());
        throw nb::type_error(("image must be an array (buffer protocol or DLPack, e.g. a numpy array or a torch "
                              "or cupy tensor) of " + std::string(kAcceptedDtypes) + "; got " +
                              text_of(nb::handle(Py_TYPE(image.ptr()))))
                                 .c_str());
    }
    where = placement_of_imported(array, stream);
    return array;
}

Pixels pixels_of(nb::handle image, nb::handle stream, const std::optional<std::string>& layout) {
    Pixels p;
    p.array = array_of(image, stream, p.where);
    p.view = view_of(p.array, layout);
    return p;
}

ImageView view_of(const Array& a, const std::optional<std::string>& layout) {
    const SampleType sample = sample_of(a.dtype());
    if (a.ndim() != 2 && a.ndim() != 3)
        throw InvalidArgument("image shape " + shape_text(a) + " is not (H, W) or (H, W, C) with C in 1, 3, 4");
    const std::size_t channels = a.ndim() == 2 ? 1 : a.shape(2);
    if (channels != 1 && channels != 3 && channels != 4)
        throw InvalidArgument("image shape " + shape_text(a) + " has " + std::to_string(channels) +
                              " channels; imghist counts 1 (gray), 3 (RGB) or 4 (RGBA)" +
                              (a.shape(0) == 1 || a.shape(0) == 3 || a.shape(0) == 4
                                   ? " (a channel-first (C, H, W) array takes layout='chw')" : ""));
    const std::uint32_t height = dimension(a, 0, "height"), width = dimension(a, 1, "width");
    if (height == 0 || width == 0) throw InvalidArgument("image shape " + shape_text(a) + " is empty");
    if (channels > 1 && a.stride(2) != 1)
        throw InvalidArgument("the samples of a pixel are not packed (sample stride " +
                              std::to_string(a.stride(2)) + "): pass np.ascontiguousarray(image)");
    if (width > 1 && a.stride(1) != std::int64_t(channels))
        throw InvalidArgument("the pixels of a row are not packed (pixel stride " + std::to_string(a.stride(1)) +
                              " samples, " + std::to_string(channels) + " expected): pass np.ascontiguousarray(image)");
    ImageView view;
    view.data = a.data();
    view.width = width;
    view.height = height;
    view.stride_bytes = row_stride_bytes(a, std::size_t(width) * channels);
    view.format = format_of(sample, channels, layout);
    return view;
}

}  // namespace imghist::python
