#include "imghist/error.hpp"
#include "imghist/image.hpp"

#include <array>
#include <limits>
#include <string>

namespace imghist {

namespace {
constexpr std::array<FormatInfo, 13> kFormats = {{
    {"gray8", SampleType::u8, 1, 1, 0, 0, 0, -1},
    {"rgb8", SampleType::u8, 3, 1, 0, 1, 2, -1},
    {"rgba8", SampleType::u8, 4, 1, 0, 1, 2, 3},
    {"bgra8", SampleType::u8, 4, 1, 2, 1, 0, 3},
    {"gray16", SampleType::u16, 1, 2, 0, 0, 0, -1},
    {"rgb16", SampleType::u16, 3, 2, 0, 1, 2, -1},
    {"rgba16", SampleType::u16, 4, 2, 0, 1, 2, 3},
    {"gray_f16", SampleType::f16, 1, 2, 0, 0, 0, -1},
    {"rgb_f16", SampleType::f16, 3, 2, 0, 1, 2, -1},
    {"rgba_f16", SampleType::f16, 4, 2, 0, 1, 2, 3},
    {"gray_f32", SampleType::f32, 1, 4, 0, 0, 0, -1},
    {"rgb_f32", SampleType::f32, 3, 4, 0, 1, 2, -1},
    {"rgba_f32", SampleType::f32, 4, 4, 0, 1, 2, 3},
}};
}  // namespace

const FormatInfo& format_info(PixelFormat format) {
    auto index = static_cast<std::size_t>(format);
    if (index >= kFormats.size()) throw InvalidArgument("unknown pixel format");
    return kFormats[index];
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

}  // namespace imghist
