// Pixel formats and the non-owning image view every backend reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace imghist {

enum class PixelFormat {
    gray8, rgb8, rgba8, bgra8,
    gray16, rgb16, rgba16,
    gray_f16, rgb_f16, rgba_f16,
    gray_f32, rgb_f32, rgba_f32,
    bgr8,  // OpenCV's native order: samples B, G, R
    // Vulkan's R8G8B8A8_SRGB and B8G8R8A8_SRGB: counted as their stored 8-bit codes, exactly
    // as rgba8 and bgra8 (no sRGB decoding).
    rgba8_srgb, bgra8_srgb,
    // Vulkan's B10G11R11_UFLOAT_PACK32: one 32-bit word per pixel, R and G 11-bit and B 10-bit
    // unsigned floats, each widened exactly to fp32 and counted as rgb_f32.
    b10g11r11_ufloat,
};

enum class SampleType { u8, u16, f16, f32 };

// Where each colour sits inside one pixel; -1 when the format has no such channel.
struct FormatInfo {
    std::string_view name;
    SampleType sample;
    int channels;          // samples per pixel
    int bytes_per_sample;
    int red, green, blue, alpha;  // sample index of each colour, or -1
    // One 32-bit word of bit fields per pixel (bytes_per_sample is the word's 4), decoded
    // before it is counted; `sample`, `channels` and the colour indices describe the samples
    // it decodes to (counted_as).
    bool packed = false;
    bool is_gray() const { return channels == 1; }
    bool is_float() const { return sample == SampleType::f16 || sample == SampleType::f32; }
    std::size_t pixel_bytes() const {
        return packed ? std::size_t(bytes_per_sample) : std::size_t(channels) * std::size_t(bytes_per_sample);
    }
    bool operator==(const FormatInfo&) const = default;
};

const FormatInfo& format_info(PixelFormat format);
// The format whose samples `format`'s pixels are counted as: itself, the UNORM twin of an sRGB
// format, or what a packed format decodes to (b10g11r11_ufloat: rgb_f32).
PixelFormat counted_as(PixelFormat format);
std::optional<PixelFormat> parse_pixel_format(std::string_view name);
inline constexpr PixelFormat all_pixel_formats[] = {
    PixelFormat::gray8,    PixelFormat::rgb8,    PixelFormat::rgba8,    PixelFormat::bgra8,
    PixelFormat::gray16,   PixelFormat::rgb16,   PixelFormat::rgba16,   PixelFormat::gray_f16,
    PixelFormat::rgb_f16,  PixelFormat::rgba_f16, PixelFormat::gray_f32, PixelFormat::rgb_f32,
    PixelFormat::rgba_f32, PixelFormat::bgr8,    PixelFormat::rgba8_srgb, PixelFormat::bgra8_srgb,
    PixelFormat::b10g11r11_ufloat,
};

// A rectangle of pixels: columns [x, x + width) of rows [y, y + height).
struct Region {
    std::uint32_t x = 0, y = 0, width = 0, height = 0;
    std::uint64_t pixel_count() const { return std::uint64_t(width) * height; }
    bool operator==(const Region&) const = default;
};

// A view of pixels someone else owns: rows of `width` pixels, `stride_bytes` apart.
// Samples are native-endian. Construct it directly or with packed(); validate() (called by
// every Engine::compute) rejects null data, zero size, a stride below one row, and sizes
// whose byte extent overflows.
struct ImageView {
    const void* data = nullptr;
    std::uint32_t width = 0;
    std::uint32_t height = 0;
    std::size_t stride_bytes = 0;
    PixelFormat format = PixelFormat::rgba8;

    static ImageView packed(const void* data, std::uint32_t width, std::uint32_t height,
                            PixelFormat format);

    void validate() const;  // throws InvalidArgument
    const FormatInfo& info() const { return format_info(format); }
    std::uint64_t pixel_count() const { return std::uint64_t(width) * height; }
    std::size_t row_bytes() const { return width * info().pixel_bytes(); }
    const std::byte* row(std::uint32_t y) const {
        return static_cast<const std::byte*>(data) + std::size_t(y) * stride_bytes;
    }
    // A view of rows [first, first + count).
    ImageView rows(std::uint32_t first, std::uint32_t count) const;
    // A view of the pixels of `region`, which must lie inside this view (unchecked).
    ImageView crop(const Region& region) const;
    // The same pixels: data, size, stride and format.
    bool operator==(const ImageView&) const = default;
};

// Pixels in GPU memory, for the interop calls of cuda.hpp, opencl.hpp and vulkan.hpp: one type
// for every API. `memory` is the API's object: a CUDA device pointer, a cl_mem, or a VkBuffer
// (each as its 64-bit value; the API headers convert). Rows of `width` pixels start at
// memory + offset_bytes, `stride_bytes` apart (0: packed rows). validate() (called by every
// interop call) applies ImageView's rules to the shape.
struct DeviceImage {
    std::uint64_t memory = 0;
    std::uint64_t offset_bytes = 0;
    std::uint32_t width = 0;
    std::uint32_t height = 0;
    std::uint64_t stride_bytes = 0;
    PixelFormat format = PixelFormat::rgba8;

    const FormatInfo& info() const { return format_info(format); }
    std::uint64_t pixel_count() const { return std::uint64_t(width) * height; }
    std::uint64_t row_bytes() const { return width * info().pixel_bytes(); }
    std::uint64_t pitch() const { return stride_bytes != 0 ? stride_bytes : row_bytes(); }
    // Bytes from the first pixel to the end of the last row.
    std::uint64_t extent_bytes() const { return (height - 1) * pitch() + row_bytes(); }
    void validate() const;  // throws InvalidArgument: null memory, and ImageView::validate()'s rules
    // The same memory seen through `region`, which must lie inside this image (unchecked).
    DeviceImage crop(const Region& region) const;
    bool operator==(const DeviceImage&) const = default;
};

}  // namespace imghist
