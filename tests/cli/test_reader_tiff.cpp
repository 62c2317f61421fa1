// The file reader on TIFF written with libtiff itself: every sample type, compression and layout
// reads as stored (integers other than uint8/uint16 as the documented floats), a reviewer's
// double TIFF, and CMYK refused.
#include <gtest/gtest.h>

#include <OpenImageIO/imageio.h>
#include <tiffio.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "cli_files.hpp"
#include "reader_support.hpp"

namespace fs = std::filesystem;
namespace OIIO = OIIO_NAMESPACE;
using imghist::PixelFormat;
using namespace imghist::reader_test;
using imghist::cli_test::write_bytes;

namespace {

// === 6. TIFF: every sample type, compression and layout ======================================

struct TiffType {
    const char* name;
    int bits, sample_format;
};
constexpr TiffType kTiffTypes[] = {
    {"uint8", 8, SAMPLEFORMAT_UINT},   {"int8", 8, SAMPLEFORMAT_INT},     {"uint16", 16, SAMPLEFORMAT_UINT},
    {"int16", 16, SAMPLEFORMAT_INT},   {"uint32", 32, SAMPLEFORMAT_UINT}, {"int32", 32, SAMPLEFORMAT_INT},
    {"half", 16, SAMPLEFORMAT_IEEEFP}, {"float", 32, SAMPLEFORMAT_IEEEFP}, {"double", 64, SAMPLEFORMAT_IEEEFP},
};

// Random samples of the type's full range, with its extremes first; raw bytes, native endian.
std::vector<unsigned char> tiff_samples(const TiffType& t, std::size_t n, std::mt19937_64& rng) {
    std::vector<unsigned char> raw(n * std::size_t(t.bits / 8));
    const auto fill = [&](auto zero, std::initializer_list<decltype(zero)> firsts, auto draw) {
        using T = decltype(zero);
        T* p = reinterpret_cast<T*>(raw.data());
        std::size_t i = 0;
        for (T v : firsts) p[i++] = v;
        for (; i < n; ++i) p[i] = draw();
    };
    const auto bits = [&] { return rng(); };
    if (t.sample_format == SAMPLEFORMAT_IEEEFP && t.bits == 64) {
        fill(0.0, {0.0, 1.0, -0.0, 1e300, std::numeric_limits<double>::quiet_NaN(), 1e-320},
             [&] { return std::uniform_real_distribution<double>(-0.25, 1.25)(rng); });
    } else if (t.sample_format == SAMPLEFORMAT_IEEEFP && t.bits == 32) {
        fill(0.f, {0.f, 1.f, -0.f, std::numeric_limits<float>::infinity()},
             [&] { return std::uniform_real_distribution<float>(-0.25f, 1.25f)(rng); });
    } else {
        // Integers and half: every bit pattern (half NaNs included).
        for (unsigned char& b : raw) b = static_cast<unsigned char>(bits());
        if (t.sample_format == SAMPLEFORMAT_INT || t.sample_format == SAMPLEFORMAT_UINT) {
            // The extremes of the type at the start: all bits clear, all set, the sign bit alone.
            const std::size_t s = std::size_t(t.bits / 8);
            std::memset(raw.data(), 0x00, s);
            std::memset(raw.data() + s, 0xFF, s);
            std::memset(raw.data() + 2 * s, 0x00, s);
            raw[2 * s + s - 1] = 0x80;  // little-endian machine: the top byte is last
            std::memset(raw.data() + 3 * s, 0xFF, s);
            raw[3 * s + s - 1] = 0x7F;
        }
    }
    return raw;
}

// The documented rule (docs/cli.md): integers other than uint8/uint16 become float as
// v / (2^N - 1) unsigned, v / (2^(N-1) - 1) signed, computed in double; double rounds to float.
template <typename T>
float documented_float(T v) {
    if constexpr (std::is_floating_point_v<T>) {
        return static_cast<float>(v);
    } else {
        return static_cast<float>(double(v) / double(std::numeric_limits<T>::max()));
    }
}

template <typename T>
std::vector<float> expected_floats(const std::vector<unsigned char>& raw) {
    std::vector<float> out(raw.size() / sizeof(T));
    for (std::size_t i = 0; i < out.size(); ++i) {
        T v;
        std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
        out[i] = documented_float(v);
    }
    return out;
}

void write_tiff(const std::string& file, int w, int h, int channels, const TiffType& t, int compression,
                bool tiled, const std::vector<unsigned char>& raw, int photometric = PHOTOMETRIC_RGB) {
    TIFF* tif = TIFFOpen(file.c_str(), "w");
    ASSERT_NE(tif, nullptr);
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, w);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, h);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, channels);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, t.bits);
    TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, t.sample_format);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, photometric);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tif, TIFFTAG_COMPRESSION, compression);
    const std::size_t pixel = std::size_t(channels) * std::size_t(t.bits / 8);
    const std::size_t row = std::size_t(w) * pixel;
    if (tiled) {
        const int tw = 16, th = 16;
        TIFFSetField(tif, TIFFTAG_TILEWIDTH, tw);
        TIFFSetField(tif, TIFFTAG_TILELENGTH, th);
        std::vector<unsigned char> tile(std::size_t(tw) * th * pixel);
        for (int ty = 0; ty < h; ty += th) {
            for (int tx = 0; tx < w; tx += tw) {
                std::fill(tile.begin(), tile.end(), 0);
                for (int y = ty; y < std::min(h, ty + th); ++y)
                    for (int x = tx; x < std::min(w, tx + tw); ++x)
                        std::memcpy(&tile[(std::size_t(y - ty) * tw + std::size_t(x - tx)) * pixel],
                                    &raw[std::size_t(y) * row + std::size_t(x) * pixel], pixel);
                ASSERT_GE(TIFFWriteTile(tif, tile.data(), std::uint32_t(tx), std::uint32_t(ty), 0, 0), 0);
            }
        }
    } else {
        TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, 5);
        for (int y = 0; y < h; ++y)
            ASSERT_EQ(TIFFWriteScanline(tif, const_cast<unsigned char*>(&raw[std::size_t(y) * row]), std::uint32_t(y), 0), 1);
    }
    TIFFClose(tif);
}

// Float samples are equal when both are NaN or their bits are.
::testing::AssertionResult same_floats(const std::vector<float>& got, const std::vector<float>& want) {
    if (got.size() != want.size()) return ::testing::AssertionFailure() << "size " << got.size() << " != " << want.size();
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(got[i]) && std::isnan(want[i])) continue;
        if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0)
            return ::testing::AssertionFailure() << "sample " << i << ": " << got[i] << " != " << want[i];
    }
    return ::testing::AssertionSuccess();
}

TEST_F(ReaderTest, EveryTiffSampleTypeCompressionAndLayoutReadsAsStored) {
    const int w = 37, h = 21, channels = 3;
    const std::size_t n = std::size_t(w) * h * channels;
    std::mt19937_64 rng(6);
    const struct {
        const char* name;
        int code;
    } compressions[] = {{"none", COMPRESSION_NONE},
                        {"lzw", COMPRESSION_LZW},
                        {"deflate", COMPRESSION_ADOBE_DEFLATE},
                        {"packbits", COMPRESSION_PACKBITS}};
    for (const TiffType& t : kTiffTypes) {
        const std::vector<unsigned char> raw = tiff_samples(t, n, rng);
        for (const auto& c : compressions) {
            for (bool tiled : {false, true}) {
                const std::string file = path(std::string("t_") + t.name + "_" + c.name + (tiled ? "_tiles" : "_strips") + ".tif");
                write_tiff(file, w, h, channels, t, c.code, tiled, raw);
                SCOPED_TRACE(file);
                const std::optional<imghist::io::LoadedImage> loaded = read_or_fail(file);
                if (!loaded) continue;
                const imghist::io::LoadedImage& image = *loaded;
                const std::string type = t.name;
                if (type == "uint8") {
                    EXPECT_EQ(image.view.format, PixelFormat::rgb8);
                    EXPECT_EQ(samples_of<std::uint8_t>(image), raw);
                } else if (type == "uint16" || type == "half") {
                    EXPECT_EQ(image.view.format, type == "half" ? PixelFormat::rgb_f16 : PixelFormat::rgb16);
                    const auto got = samples_of<std::uint16_t>(image);
                    ASSERT_EQ(got.size() * 2, raw.size());
                    EXPECT_EQ(std::memcmp(got.data(), raw.data(), raw.size()), 0);
                } else {
                    EXPECT_EQ(image.view.format, PixelFormat::rgb_f32);
                    std::vector<float> want = type == "int8"     ? expected_floats<std::int8_t>(raw)
                                              : type == "int16"  ? expected_floats<std::int16_t>(raw)
                                              : type == "uint32" ? expected_floats<std::uint32_t>(raw)
                                              : type == "int32"  ? expected_floats<std::int32_t>(raw)
                                              : type == "float"  ? expected_floats<float>(raw)
                                                                 : expected_floats<double>(raw);
                    EXPECT_TRUE(same_floats(samples_of<float>(image), want));
                    if (type != "float") EXPECT_TRUE(has_note(image, type)) << "no note names " << type;
                }
            }
        }
    }
}

TEST_F(ReaderTest, ReviewersDoubleTiffHasItsAverages) {
    // oiiotool --stats: averages 0.567, 0.453, 0.481.
    const imghist::io::LoadedImage image = imghist::io::read_image((kRepro / "double_tiff_counted_as_zeros.tif").string(), {});
    const std::vector<float> s = samples_of<float>(image);
    const double want[3] = {0.567, 0.453, 0.481};
    for (int c = 0; c < 3; ++c) {
        double sum = 0;
        for (std::size_t i = std::size_t(c); i < s.size(); i += 3) sum += s[i];
        EXPECT_NEAR(sum / double(s.size() / 3), want[c], 0.0006) << "channel " << c;
    }
}

// === 12. CMYK ===================================================================================

TEST_F(ReaderTest, CmykIsRefused) {
    EXPECT_TRUE(contains(refusal((kRepro / "cmyk_silently_converted.jpg").string()), "CMYK"));
    std::vector<unsigned char> raw(8 * 4 * 4, 100);
    write_tiff(path("cmyk.tif"), 8, 4, 4, kTiffTypes[0], COMPRESSION_NONE, false, raw, PHOTOMETRIC_SEPARATED);
    EXPECT_TRUE(contains(refusal(path("cmyk.tif")), "CMYK")) << refusal(path("cmyk.tif"));
}

}  // namespace
