// PNG through libpng directly (src/io/reader_png.cpp) against OpenImageIO's PNG reader, on files
// written with libpng from known samples: every layout read here gives OpenImageIO's samples,
// format, sample type and notes, and the samples written; every other file (palettes, fewer bits,
// tRNS, damaged data) is left to OpenImageIO.
#include <gtest/gtest.h>

#include <png.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "imghist/io.hpp"
#include "io/reader_internal.hpp"

namespace fs = std::filesystem;
namespace reading = imghist::io::reading;
using imghist::io::LoadedImage;
using imghist::io::ReadError;

namespace {

constexpr png_uint_32 kWidth = 7, kHeight = 5;

struct PngFile {
    int color_type = PNG_COLOR_TYPE_RGB;
    int bit_depth = 8;
    bool interlaced = false;
    bool transparency = false;  // a tRNS chunk
    bool gamma = false;         // a gAMA chunk of 1/2.2
};

int samples_per_pixel(int color_type) {
    switch (color_type) {
        case PNG_COLOR_TYPE_GRAY:
        case PNG_COLOR_TYPE_PALETTE: return 1;
        case PNG_COLOR_TYPE_GRAY_ALPHA: return 2;
        case PNG_COLOR_TYPE_RGB: return 3;
        default: return 4;
    }
}

// The file's samples as stored (big-endian 16-bit), each differing from its neighbours.
std::vector<png_byte> stored_rows(const PngFile& f) {
    const std::size_t bits_per_row = std::size_t(kWidth) * samples_per_pixel(f.color_type) * f.bit_depth;
    std::vector<png_byte> out((bits_per_row + 7) / 8 * kHeight);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = png_byte(i * 151 + 7);
    return out;
}

void write_png(const std::string& file, const PngFile& f) {
    std::FILE* out = std::fopen(file.c_str(), "wb");
    ASSERT_NE(out, nullptr);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png_create_info_struct(png);
    png_init_io(png, out);
    png_set_IHDR(png, info, kWidth, kHeight, f.bit_depth, f.color_type,
                 f.interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    std::vector<png_color> palette(256);
    for (int i = 0; i < 256; ++i) palette[i] = {png_byte(i), png_byte(255 - i), png_byte(i * 3)};
    if (f.color_type == PNG_COLOR_TYPE_PALETTE) png_set_PLTE(png, info, palette.data(), 1 << f.bit_depth);
    png_byte alphas[4] = {0, 80, 160, 255};
    png_color_16 transparent_colour{0, 7, 7, 7, 7};
    if (f.transparency) png_set_tRNS(png, info, alphas, 4, &transparent_colour);
    if (f.gamma) png_set_gAMA(png, info, 1 / 2.2);
    png_write_info(png, info);
    std::vector<png_byte> rows = stored_rows(f);
    std::vector<png_bytep> pointers;
    for (png_uint_32 y = 0; y < kHeight; ++y) pointers.push_back(rows.data() + y * (rows.size() / kHeight));
    png_write_image(png, pointers.data());
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    std::fclose(out);
}

std::string describe(const PngFile& f) {
    return "color type " + std::to_string(f.color_type) + ", " + std::to_string(f.bit_depth) + " bits" +
           (f.interlaced ? ", interlaced" : "") + (f.transparency ? ", tRNS" : "") + (f.gamma ? ", gAMA" : "");
}

std::optional<LoadedImage> by_libpng(const std::string& file) {
    return reading::read_png(file, {}, imghist::io::allocate_on_heap);
}
LoadedImage by_oiio(const std::string& file) {
    return reading::read_with_oiio(file, "png", {}, imghist::io::allocate_on_heap);
}

bool same_pixels(const LoadedImage& a, const LoadedImage& b) {
    return a.view.format == b.view.format && a.view.width == b.view.width && a.view.height == b.view.height &&
           std::memcmp(a.view.data, b.view.data, std::size_t(a.view.row_bytes()) * a.view.height) == 0;
}

class PngReaderTest : public imghist::cli_test::ScratchDirTest {};

TEST_F(PngReaderTest, EveryLayoutReadHereGivesOpenImageIOsSamplesAndNotes) {
    std::vector<PngFile> files;
    for (int type : {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA})
        for (int bits : {8, 16})
            for (bool interlaced : {false, true}) files.push_back({type, bits, interlaced});
    files.push_back({PNG_COLOR_TYPE_RGB_ALPHA, 8, false, false, true});  // gAMA: no conversion either way
    files.push_back({PNG_COLOR_TYPE_GRAY_ALPHA, 16, false, false, true});
    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string file = path("layout" + std::to_string(i) + ".png");
        write_png(file, files[i]);
        const std::optional<LoadedImage> here = by_libpng(file);
        ASSERT_TRUE(here) << describe(files[i]);
        const LoadedImage oiio = by_oiio(file);
        EXPECT_TRUE(same_pixels(*here, oiio)) << describe(files[i]);
        EXPECT_EQ(here->source_type, oiio.source_type) << describe(files[i]);
        EXPECT_EQ(here->notes, oiio.notes) << describe(files[i]);
    }
}

// The samples written, independently of either reader: 16-bit ones in the machine's order.
TEST_F(PngReaderTest, SamplesAreTheOnesWritten) {
    for (const PngFile f : {PngFile{PNG_COLOR_TYPE_RGB, 8}, PngFile{PNG_COLOR_TYPE_RGB_ALPHA, 16, true}}) {
        const std::string file = path("written.png");
        write_png(file, f);
        const std::optional<LoadedImage> image = by_libpng(file);
        ASSERT_TRUE(image) << describe(f);
        const std::vector<png_byte> stored = stored_rows(f);
        std::vector<png_byte> want = stored;
        if (f.bit_depth == 16)
            for (std::size_t i = 0; i + 1 < want.size(); i += 2) {
                const std::uint16_t v = std::uint16_t(stored[i] << 8 | stored[i + 1]);
                std::memcpy(&want[i], &v, 2);
            }
        ASSERT_EQ(std::size_t(image->view.row_bytes()) * image->view.height, want.size()) << describe(f);
        EXPECT_EQ(std::memcmp(image->view.data, want.data(), want.size()), 0) << describe(f);
    }
}

TEST_F(PngReaderTest, OtherLayoutsAndDamagedFilesAreLeftToOpenImageIO) {
    const std::vector<PngFile> others = {
        {PNG_COLOR_TYPE_PALETTE, 8}, {PNG_COLOR_TYPE_PALETTE, 4}, {PNG_COLOR_TYPE_GRAY, 4},
        {PNG_COLOR_TYPE_GRAY, 1},    {PNG_COLOR_TYPE_RGB, 8, false, true}, {PNG_COLOR_TYPE_PALETTE, 8, false, true}};
    for (std::size_t i = 0; i < others.size(); ++i) {
        const std::string file = path("other" + std::to_string(i) + ".png");
        write_png(file, others[i]);
        EXPECT_FALSE(by_libpng(file)) << describe(others[i]);
        EXPECT_NO_THROW(by_oiio(file)) << describe(others[i]);
    }
    // Truncated inside the pixels, and a flipped bit in a CRC.
    write_png(path("whole.png"), {PNG_COLOR_TYPE_RGB, 8});
    const std::string whole = imghist::cli_test::slurp(path("whole.png"));
    std::FILE* cut = std::fopen(path("cut.png").c_str(), "wb");
    std::fwrite(whole.data(), 1, whole.size() - 30, cut);
    std::fclose(cut);
    EXPECT_FALSE(by_libpng(path("cut.png")));
    EXPECT_THROW(by_oiio(path("cut.png")), ReadError);
    std::string flipped = whole;
    flipped[whole.size() - 13] = char(flipped[whole.size() - 13] ^ 1);  // the IDAT chunk's CRC, before IEND
    std::FILE* bad = std::fopen(path("crc.png").c_str(), "wb");
    std::fwrite(flipped.data(), 1, flipped.size(), bad);
    std::fclose(bad);
    EXPECT_FALSE(by_libpng(path("crc.png")));
}

TEST_F(PngReaderTest, TheSizeLimitRefusesFromTheHeader) {
    write_png(path("limit.png"), {PNG_COLOR_TYPE_RGB, 8});
    imghist::io::ReadOptions options;
    options.max_pixels = kWidth * kHeight - 1;
    std::string here, oiio;
    try {
        (void)reading::read_png(path("limit.png"), options, imghist::io::allocate_on_heap);
    } catch (const ReadError& e) {
        here = e.what();
    }
    try {
        (void)reading::read_with_oiio(path("limit.png"), "png", options, imghist::io::allocate_on_heap);
    } catch (const ReadError& e) {
        oiio = e.what();
    }
    EXPECT_FALSE(here.empty());
    EXPECT_EQ(here, oiio);
}

}  // namespace
