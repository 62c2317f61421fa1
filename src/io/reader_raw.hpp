// Raw pixel input (--raw FORMAT:WIDTHxHEIGHT[:STRIDE]): headerless native-endian pixels of any
// imghist pixel format, read by imghist itself in the calling process (there is no decoder to
// isolate). The formats are the library's own list, so a new format reaches the command as is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "imghist/io.hpp"

namespace imghist::io {

// How every raw input is laid out: `height` rows of `width` pixels, `stride_bytes` apart.
struct RawLayout {
    PixelFormat format;
    std::uint32_t width = 0, height = 0;
    std::size_t stride_bytes = 0;  // at least one row; equal to it when packed
};

// "FORMAT:WIDTHxHEIGHT" or "FORMAT:WIDTHxHEIGHT:STRIDE", FORMAT a name of parse_pixel_format.
// Throws std::invalid_argument with a message that does not repeat the option's name.
RawLayout parse_raw_layout(const std::string& text);

// "gray8, rgb8, ...": every pixel format of the library, in its order.
std::string raw_format_names();

// Reads one raw file. Its size must be height * stride bytes, or that without the last row's
// padding; anything else (and a file that is not a regular file) is a ReadError.
LoadedImage read_raw(const std::string& path, const RawLayout& layout, const ReadOptions& options);

}  // namespace imghist::io
