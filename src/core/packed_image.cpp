#include "core/packed_image.hpp"

#include <cstring>

#include "contract/formats.h"
#include "imghist/error.hpp"

namespace imghist {

DecodedImage::DecodedImage(const ImageView& packed) {
    if (packed.format != PixelFormat::b10g11r11_ufloat)
        throw InvalidArgument("no host decoding for pixel format " + std::string(packed.info().name));
    const PixelFormat decoded = counted_as(packed.format);
    const std::size_t samples = std::size_t(format_info(decoded).channels);
    samples_.resize(std::size_t(packed.pixel_count()) * samples);
    float* out = samples_.data();
    for (std::uint32_t y = 0; y < packed.height; ++y) {
        const std::byte* row = packed.row(y);
        for (std::uint32_t x = 0; x < packed.width; ++x) {
            std::uint32_t word;
            std::memcpy(&word, row + std::size_t(x) * sizeof word, sizeof word);
            for (std::uint32_t i = 0; i < samples; ++i) *out++ = ih_bits_float_(ih_b10g11r11_sample_bits(word, i));
        }
    }
    view_ = ImageView::packed(samples_.data(), packed.width, packed.height, decoded);
}

}  // namespace imghist
