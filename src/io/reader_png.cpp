// PNG through libpng directly (built where IMGHIST_IO_LIBPNG is 1), the same libpng and the same
// samples as OpenImageIO's PNG reader gives with unassociated alpha (the tests compare the two),
// without loading OpenImageIO: a small PNG then costs milliseconds where OpenImageIO's start-up
// costs 0.3 s. Only 8- and 16-bit gray, gray + alpha, RGB and RGBA files without a tRNS chunk
// are read here; anything else (palettes, fewer bits, tRNS), and any file libpng fails on or
// warns about, is left to OpenImageIO, whose answer (its pixels or its error) stands.
#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <memory>
#include <vector>

#include "reader_internal.hpp"

namespace imghist::io::reading {

namespace {

// libpng's state; its error handler long-jumps back to the read below.
struct PngState {
    png_structp png = nullptr;
    png_infop info = nullptr;
    bool complained = false;  // an error or a warning: OpenImageIO decides
};

void on_png_error(png_structp png, png_const_charp) {
    static_cast<PngState*>(png_get_error_ptr(png))->complained = true;
    png_longjmp(png, 1);
}

void on_png_warning(png_structp png, png_const_charp) {
    static_cast<PngState*>(png_get_error_ptr(png))->complained = true;
}

struct PngHeader {
    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0;
    bool transparency = false;          // a tRNS chunk
    png_uint_32 icc_bytes = 0;
};

// The header, with the transformations OpenImageIO asks for (samples in the machine's byte
// order) and the alpha of gray + alpha dropped. Nothing with a destructor lives in this frame
// (libpng long-jumps out of its calls).
bool read_png_header(PngState& s, std::FILE* file, PngHeader& h) {
    if (setjmp(png_jmpbuf(s.png))) return false;
    png_init_io(s.png, file);
    png_read_info(s.png, s.info);
    png_get_IHDR(s.png, s.info, &h.width, &h.height, &h.bit_depth, &h.color_type, nullptr, nullptr, nullptr);
    h.transparency = png_get_valid(s.png, s.info, PNG_INFO_tRNS) != 0;
    if (png_get_valid(s.png, s.info, PNG_INFO_iCCP)) {
        png_charp name = nullptr;
        png_bytep profile = nullptr;
        int compression = 0;
        png_get_iCCP(s.png, s.info, &name, &compression, &profile, &h.icc_bytes);
        if (!profile) h.icc_bytes = 0;
    }
    if (h.bit_depth == 16) png_set_swap(s.png);
    if (h.color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_strip_alpha(s.png);
    (void)png_set_interlace_handling(s.png);
    png_read_update_info(s.png, s.info);
    return true;
}

bool read_png_rows(PngState& s, png_bytep* rows) {
    if (setjmp(png_jmpbuf(s.png))) return false;
    png_read_image(s.png, rows);
    png_read_end(s.png, nullptr);
    return true;
}

int channels_of(int color_type) {
    switch (color_type) {
        case PNG_COLOR_TYPE_GRAY:
        case PNG_COLOR_TYPE_GRAY_ALPHA: return 1;  // alpha stripped
        case PNG_COLOR_TYPE_RGB: return 3;
        case PNG_COLOR_TYPE_RGB_ALPHA: return 4;
        default: return 0;
    }
}

}  // namespace

std::optional<LoadedImage> read_png(const std::string& path, const ReadOptions& options,
                                    const PixelAllocator& allocate_pixels) {
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
    if (!file) return std::nullopt;  // OpenImageIO says why
    PngState s;
    s.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &s, on_png_error, on_png_warning);
    if (!s.png) return std::nullopt;
    s.info = png_create_info_struct(s.png);
    const std::unique_ptr<PngState, void (*)(PngState*)> cleanup(
        &s, [](PngState* p) { png_destroy_read_struct(&p->png, p->info ? &p->info : nullptr, nullptr); });
    PngHeader h;
    if (!s.info || !read_png_header(s, file.get(), h) || s.complained) return std::nullopt;
    const int channels = channels_of(h.color_type);
    if (channels == 0 || (h.bit_depth != 8 && h.bit_depth != 16) || h.transparency) return std::nullopt;
    check_size(h.width, h.height, options);
    const SampleType sample = h.bit_depth == 16 ? SampleType::u16 : SampleType::u8;
    const PixelFormat format = format_for(sample, channels);
    const std::size_t row_bytes = std::size_t(h.width) * format_info(format).pixel_bytes();
    if (png_get_rowbytes(s.png, s.info) != row_bytes) return std::nullopt;
    LoadedImage out;
    out.pixels = allocate_pixels(image_bytes(std::uint64_t(h.width) * h.height, format_info(format).pixel_bytes()));
    std::vector<png_bytep> rows(h.height);
    for (png_uint_32 y = 0; y < h.height; ++y)
        rows[y] = reinterpret_cast<png_bytep>(out.pixels.get()) + std::size_t(y) * row_bytes;
    if (!read_png_rows(s, rows.data()) || s.complained) return std::nullopt;
    out.source_type = h.bit_depth == 16 ? "uint16" : "uint8";
    if (h.color_type == PNG_COLOR_TYPE_GRAY_ALPHA) out.notes.push_back(kGrayAlphaNote);
    if (h.icc_bytes > 0) out.notes.push_back(icc_profile_note(h.icc_bytes));
    out.view = ImageView::packed(out.pixels.get(), h.width, h.height, format);
    return out;
}

}  // namespace imghist::io::reading
