// HEIC/HEIF and AVIF through libheif (built where IMGHIST_IO_LIBHEIF is 1). OpenImageIO 2.4's
// HEIF reader gives every image as 8-bit, so a phone's 10-bit HEIC would be rescaled; libheif
// decodes it to RGB with its own bit depth kept: 8-bit images as rgb8 / rgba8, deeper ones as
// rgb16 / rgba16 holding the values as they are (0 .. 1023 for 10-bit), never scaled to 16 bits.
#include <libheif/heif.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "reader_internal.hpp"

namespace imghist::io::reading {

namespace {

struct ContextFree {
    void operator()(heif_context* c) const { heif_context_free(c); }
};
struct HandleRelease {
    void operator()(heif_image_handle* h) const { heif_image_handle_release(h); }
};
struct ImageRelease {
    void operator()(heif_image* i) const { heif_image_release(i); }
};

void check(const heif_error& error, const char* step) {
    if (error.code != heif_error_Ok)
        throw ReadError(std::string("HEIF/AVIF file that libheif cannot ") + step + ": " +
                        one_line(error.message ? error.message : "no reason given"));
}

// What the file says of its colour, for a note: an ICC profile means its values are not sRGB's.
void note_colour_profile(const heif_image_handle* handle, std::vector<std::string>& notes) {
    const heif_color_profile_type type = heif_image_handle_get_color_profile_type(handle);
    if (type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC)
        notes.push_back(icc_profile_note(heif_image_handle_get_raw_color_profile_size(handle)));
}

}  // namespace

LoadedImage read_heif(const std::string& path, const ReadOptions& options, const PixelAllocator& allocate_pixels) {
    const std::unique_ptr<heif_context, ContextFree> context(heif_context_alloc());
    if (!context) throw ReadError("out of memory");
    if (options.max_pixels > 0) {  // libheif's own guard, for the tiles of a grid image too
        const double side = std::ceil(std::sqrt(double(options.max_pixels)));
        heif_context_set_maximum_image_size_limit(context.get(), int(std::min(side, double(std::numeric_limits<int>::max()))));
    }
    check(heif_context_read_from_file(context.get(), path.c_str(), nullptr), "open");
    heif_image_handle* raw_handle = nullptr;
    check(heif_context_get_primary_image_handle(context.get(), &raw_handle), "find the primary image of");
    const std::unique_ptr<heif_image_handle, HandleRelease> handle(raw_handle);
    check_size(std::uint64_t(std::max(0, heif_image_handle_get_width(raw_handle))),
               std::uint64_t(std::max(0, heif_image_handle_get_height(raw_handle))), options);
    const int bits = heif_image_handle_get_luma_bits_per_pixel(raw_handle);
    const bool alpha = heif_image_handle_has_alpha_channel(raw_handle) != 0;
    const bool deep = bits > 8;
    const heif_chroma chroma = deep ? (alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
                                    : (alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB);
    heif_image* raw_image = nullptr;
    check(heif_decode_image(raw_handle, &raw_image, heif_colorspace_RGB, chroma, nullptr), "decode");
    const std::unique_ptr<heif_image, ImageRelease> image(raw_image);
    const int width = heif_image_get_width(raw_image, heif_channel_interleaved);
    const int height = heif_image_get_height(raw_image, heif_channel_interleaved);
    int stride = 0;
    const std::uint8_t* plane = heif_image_get_plane_readonly(raw_image, heif_channel_interleaved, &stride);
    if (!plane || width <= 0 || height <= 0) throw ReadError("HEIF/AVIF file whose decoded image libheif gives no pixels of");
    check_size(std::uint64_t(width), std::uint64_t(height), options);
    LoadedImage out;
    const PixelFormat format = format_for(deep ? SampleType::u16 : SampleType::u8, alpha ? 4 : 3);
    const std::size_t row_bytes = std::size_t(width) * format_info(format).pixel_bytes();
    if (std::size_t(stride) < row_bytes) throw ReadError("HEIF/AVIF file whose decoded rows libheif gives short");
    out.pixels = allocate_pixels(image_bytes(std::uint64_t(width) * std::uint64_t(height), format_info(format).pixel_bytes()));
    for (int y = 0; y < height; ++y)  // little-endian 16-bit samples: this machine's order (x86, arm)
        std::memcpy(out.pixels.get() + std::size_t(y) * row_bytes, plane + std::size_t(y) * std::size_t(stride), row_bytes);
    out.source_type = deep ? "uint" + std::to_string(bits) : "uint8";
    if (deep)
        out.notes.push_back(std::to_string(bits) + "-bit samples, counted as their values (0 to " +
                            std::to_string((1u << bits) - 1) + ") in 16-bit samples, not scaled");
    note_colour_profile(raw_handle, out.notes);
    out.view = ImageView::packed(out.pixels.get(), std::uint32_t(width), std::uint32_t(height), format);
    return out;
}

}  // namespace imghist::io::reading
