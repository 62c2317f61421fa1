#include "imghist/error.hpp"
#include "imghist/image.hpp"

#include "contract/formats.h"

#include <array>
#include <iterator>
#include <limits>
#include <string>

namespace imghist {

namespace {
// The format table is the contract's (src/contract/formats.h); only the names live here.
constexpr std::string_view kNames[] = {"gray8",    "rgb8",    "rgba8",    "bgra8",    "gray16",
                                       "rgb16",    "rgba16",  "gray_f16", "rgb_f16",  "rgba_f16",
                                       "gray_f32", "rgb_f32", "rgba_f32", "bgr8",
                                       "rgba8_srgb", "bgra8_srgb", "b10g11r11_ufloat"};
static_assert(std::size(kNames) == IH_FORMATS && std::size(all_pixel_formats) == IH_FORMATS);
static_assert(unsigned(PixelFormat::gray8) == IH_FMT_GRAY8 && unsigned(PixelFormat::bgra8) == IH_FMT_BGRA8 &&
              unsigned(PixelFormat::gray16) == IH_FMT_GRAY16 && unsigned(PixelFormat::gray_f16) == IH_FMT_GRAY_F16 &&
              unsigned(PixelFormat::gray_f32) == IH_FMT_GRAY_F32 && unsigned(PixelFormat::rgba_f32) == IH_FMT_RGBA_F32 &&
              unsigned(PixelFormat::bgr8) == IH_FMT_BGR8 && unsigned(PixelFormat::rgba8_srgb) == IH_FMT_RGBA8_SRGB &&
              unsigned(PixelFormat::bgra8_srgb) == IH_FMT_BGRA8_SRGB &&
              unsigned(PixelFormat::b10g11r11_ufloat) == IH_FMT_B10G11R11_UFLOAT);

FormatInfo make_info(std::uint32_t f) {
    const std::uint32_t type = ih_format_sample_type(f);
    const std::uint32_t alpha = ih_format_alpha(f);
    const bool packed = ih_format_packed(f) != 0;
    return {kNames[f],
            SampleType(type),
            int(ih_format_samples(f)),
            packed ? int(ih_format_pixel_bytes(f)) : int(ih_sample_bytes(type)),
            int(ih_format_red(f)),
            int(ih_format_green(f)),
            int(ih_format_blue(f)),
            alpha == IH_NO_SAMPLE ? -1 : int(alpha),
            packed};
}

const std::array<FormatInfo, IH_FORMATS> kFormats = [] {
    std::array<FormatInfo, IH_FORMATS> table{};
    for (std::uint32_t f = 0; f < IH_FORMATS; ++f) table[f] = make_info(f);
    return table;
}();
static_assert(unsigned(SampleType::u8) == IH_T_U8 && unsigned(SampleType::u16) == IH_T_U16 &&
              unsigned(SampleType::f16) == IH_T_F16 && unsigned(SampleType::f32) == IH_T_F32);
}  // namespace

const FormatInfo& format_info(PixelFormat format) {
    auto index = static_cast<std::size_t>(format);
    if (index >= kFormats.size()) throw InvalidArgument("unknown pixel format");
    return kFormats[index];
}

PixelFormat counted_as(PixelFormat format) {
    (void)format_info(format);  // throws on an unknown format
    return PixelFormat(ih_format_counted_as(std::uint32_t(format)));
}

std::optional<PixelFormat> parse_pixel_format(std::string_view name) {
    for (PixelFormat f : all_pixel_formats)
        if (format_info(f).name == name) return f;
    return std::nullopt;
}

ImageView ImageView::packed(const void* data, std::uint32_t width, std::uint32_t height,
                            PixelFormat format) {
    return {data, width, height, std::size_t(width) * format_info(format).pixel_bytes(), format};
}

void ImageView::validate() const {
    const FormatInfo& fi = info();  // throws on an unknown format
    if (data == nullptr) throw InvalidArgument("image view has null data");
    if (width == 0 || height == 0)
        throw InvalidArgument("image view has zero size (" + std::to_string(width) + "x" +
                              std::to_string(height) + ")");
    constexpr auto kMax = std::numeric_limits<std::size_t>::max();
    if (width > kMax / fi.pixel_bytes()) throw InvalidArgument("image row size overflows");
    std::size_t row = std::size_t(width) * fi.pixel_bytes();
    if (stride_bytes < row)
        throw InvalidArgument("image stride " + std::to_string(stride_bytes) +
                              " bytes is smaller than one row (" + std::to_string(row) + " bytes)");
    if (height > 1 && stride_bytes > (kMax - row) / (height - 1))
        throw InvalidArgument("image byte extent overflows");
    if (stride_bytes % std::size_t(fi.bytes_per_sample) != 0)
        throw InvalidArgument("image stride must be a multiple of the sample size");
    if (reinterpret_cast<std::uintptr_t>(data) % std::uintptr_t(fi.bytes_per_sample) != 0)
        throw InvalidArgument("image data is not aligned to its sample size");
}

ImageView ImageView::rows(std::uint32_t first, std::uint32_t count) const {
    ImageView v = *this;
    v.data = row(first);
    v.height = count;
    return v;
}

ImageView ImageView::crop(const Region& region) const {
    ImageView v = *this;
    v.data = row(region.y) + std::size_t(region.x) * info().pixel_bytes();
    v.width = region.width;
    v.height = region.height;
    return v;
}

DeviceImage DeviceImage::crop(const Region& region) const {
    DeviceImage d = *this;
    d.stride_bytes = pitch();  // 0 meant "packed rows of the full width"
    d.offset_bytes = offset_bytes + region.y * pitch() + std::uint64_t(region.x) * info().pixel_bytes();
    d.width = region.width;
    d.height = region.height;
    return d;
}

void DeviceImage::validate() const {
    if (memory == 0) throw InvalidArgument("device image has null memory");
    if (format_info(format).packed)
        throw InvalidArgument("pixel format " + std::string(format_info(format).name) +
                              " is not read from device memory: count the image in host memory with compute()");
    // The shape rules are ImageView's: a view at the same alignment stands in for the memory.
    const std::size_t alignment = std::size_t(format_info(format).bytes_per_sample);
    const ImageView shape{reinterpret_cast<const void*>(std::uintptr_t(alignment) + offset_bytes % alignment),
                          width, height, std::size_t(pitch()), format};
    shape.validate();
}

}  // namespace imghist
