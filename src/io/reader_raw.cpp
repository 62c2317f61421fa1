#include "reader_raw.hpp"

#include <cerrno>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include "imghist/error.hpp"
#include "reader_internal.hpp"

namespace imghist::io {

namespace {

// A decimal count of at most `max`; `what` names it in the message.
std::uint64_t parse_decimal(const std::string& text, const std::string& what, std::uint64_t max) {
    std::uint64_t v = 0;
    for (char c : text) {
        if (c < '0' || c > '9' || v > (max - std::uint64_t(c - '0')) / 10)
            throw std::invalid_argument(what + " '" + text + "' is not a number from 0 to " + std::to_string(max));
        v = v * 10 + std::uint64_t(c - '0');
    }
    if (text.empty()) throw std::invalid_argument(what + " is missing");
    return v;
}

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts(1);
    for (char c : text) {
        if (c == separator) parts.emplace_back();
        else parts.back() += c;
    }
    return parts;
}

std::string size_text(std::uint32_t width, std::uint32_t height) {
    return std::to_string(width) + " x " + std::to_string(height);
}

// The library's own rules for a view (stride of at least one row and a multiple of the sample
// size, no overflow), checked on a stand-in pointer aligned like the pixels will be.
void check_view_rules(const RawLayout& layout) {
    const auto alignment = std::uintptr_t(format_info(layout.format).bytes_per_sample);
    const ImageView shape{reinterpret_cast<const void*>(alignment), layout.width, layout.height, layout.stride_bytes,
                          layout.format};
    try {
        shape.validate();
    } catch (const InvalidArgument& e) {
        throw std::invalid_argument(e.what());
    }
}

// The file sizes a layout accepts: every row with its padding, or the last one without.
struct RawSizes {
    std::uint64_t padded, trimmed;
};

RawSizes raw_sizes(const RawLayout& layout) {
    const std::uint64_t row = std::uint64_t(layout.width) * format_info(layout.format).pixel_bytes();
    const std::uint64_t trimmed = std::uint64_t(layout.height - 1) * layout.stride_bytes + row;
    const std::uint64_t padding = layout.stride_bytes - row;
    const bool fits = trimmed <= std::numeric_limits<std::uint64_t>::max() - padding;
    return {fits ? trimmed + padding : trimmed, trimmed};
}

std::string expected_size_text(const RawLayout& layout, const RawSizes& sizes) {
    std::string text = std::to_string(layout.height) + " rows of " + std::to_string(layout.stride_bytes) +
                       " bytes = " + std::to_string(sizes.padded) + " bytes";
    if (sizes.trimmed != sizes.padded)
        text += " (or " + std::to_string(sizes.trimmed) + " without the last row's padding)";
    return text;
}

}  // namespace

std::string raw_format_names() {
    std::string out;
    for (PixelFormat f : all_pixel_formats) out += (out.empty() ? "" : ", ") + std::string(format_info(f).name);
    return out;
}

RawLayout parse_raw_layout(const std::string& text) {
    const std::vector<std::string> parts = split(text, ':');
    const std::vector<std::string> size = parts.size() >= 2 ? split(parts[1], 'x') : std::vector<std::string>{};
    if (parts.size() < 2 || parts.size() > 3 || size.size() != 2)
        throw std::invalid_argument("expected FORMAT:WIDTHxHEIGHT[:STRIDE] (e.g. rgb8:640x480), got '" + text + "'");
    const std::optional<PixelFormat> format = parse_pixel_format(parts[0]);
    if (!format)
        throw std::invalid_argument("unknown pixel format '" + parts[0] + "' (valid: " + raw_format_names() + ")");
    constexpr std::uint64_t kMaxSide = std::numeric_limits<std::uint32_t>::max();
    RawLayout layout{*format, std::uint32_t(parse_decimal(size[0], "WIDTH", kMaxSide)),
                     std::uint32_t(parse_decimal(size[1], "HEIGHT", kMaxSide)), 0};
    if (layout.width == 0 || layout.height == 0)
        throw std::invalid_argument("zero size (" + size_text(layout.width, layout.height) + " pixels)");
    const std::size_t row = std::size_t(layout.width) * format_info(layout.format).pixel_bytes();
    layout.stride_bytes = parts.size() == 3 ? std::size_t(parse_decimal(parts[2], "STRIDE", SIZE_MAX)) : row;
    check_view_rules(layout);
    return layout;
}

LoadedImage read_raw(const std::string& path, const RawLayout& layout, const ReadOptions& options) {
    const reading::FileHead head = reading::inspect(path);  // a regular file, not empty
    reading::check_size(layout.width, layout.height, options);
    const RawSizes sizes = raw_sizes(layout);
    if (head.size != sizes.padded && head.size != sizes.trimmed)
        throw ReadError("the file has " + std::to_string(head.size) + " bytes, but --raw " +
                        std::string(format_info(layout.format).name) + ":" + std::to_string(layout.width) + "x" +
                        std::to_string(layout.height) +
                        " needs " + expected_size_text(layout, sizes));
    LoadedImage out;
    out.source_type = std::string(format_info(layout.format).name);
    out.pixels = reading::heap_bytes(reading::image_bytes(head.size, 1));
    std::ifstream f(path, std::ios::binary);
    if (!f) throw ReadError("cannot open: " + reading::path_error(errno));
    if (!f.read(reinterpret_cast<char*>(out.pixels.get()), std::streamsize(head.size)))
        throw ReadError("cannot read pixels (raw): the file ended before its last pixel (it changed while read?)");
    out.view = ImageView{out.pixels.get(), layout.width, layout.height, layout.stride_bytes, layout.format};
    return out;
}

}  // namespace imghist::io
