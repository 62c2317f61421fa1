// Camera raw files built on TIFF are never counted as their preview or as a gray image of their
// mosaic: the reviewer's DNG (tests/data/repro) is read through LibRaw (refused without it),
// under raw extensions too; DNG-like files written here with libtiff in every byte order and in
// BigTIFF are refused. An ordinary TIFF is still read.
#include <gtest/gtest.h>

#include <tiffio.h>

#include <cstdint>
#include <string>
#include <vector>

#include "reader_support.hpp"

using namespace imghist::reader_test;

namespace {

class CameraRawTest : public ReaderTest {};

// What the first directory of the file written by write_tiff() says.
struct FirstImage {
    std::uint16_t photometric = PHOTOMETRIC_MINISBLACK;
    std::uint32_t subfile_type = 0;  // FILETYPE_REDUCEDIMAGE marks a preview
    bool dng_version = false;
};

// A 16 x 8 gray16 TIFF (mode: libtiff's, "wl", "wb", "w8l" ...) whose first directory is `first`.
void write_tiff(const std::string& file, const char* mode, const FirstImage& first) {
    TIFF* tif = TIFFOpen(file.c_str(), mode);
    ASSERT_NE(tif, nullptr);
    constexpr int kWidth = 16, kHeight = 8;
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, kWidth);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, kHeight);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 16);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, first.photometric);
    TIFFSetField(tif, TIFFTAG_SUBFILETYPE, first.subfile_type);
    if (first.dng_version) {
        static const std::uint8_t version[4] = {1, 4, 0, 0};
        TIFFSetField(tif, TIFFTAG_DNGVERSION, version);
    }
    std::vector<std::uint16_t> row(kWidth);
    for (int y = 0; y < kHeight; ++y) {
        for (int x = 0; x < kWidth; ++x) row[std::size_t(x)] = std::uint16_t(1000 * y + x);
        ASSERT_EQ(TIFFWriteScanline(tif, row.data(), std::uint32_t(y)), 1);
    }
    TIFFClose(tif);
}

}  // namespace

#if IMGHIST_IO_LIBRAW
// The reviewer's DNG: its first image is a 150 x 100 RGB preview, the 600 x 400 mosaic is in a
// sub-IFD. OpenImageIO's TIFF reader counted the preview ("150 x 100 rgb8"); LibRaw reads the
// mosaic, one rgba16 pixel per 2 x 2 block, and the preview is only noted.
TEST_F(CameraRawTest, DngWhosePreviewComesFirstIsReadAsItsMosaic) {
    const std::string dng = (kRepro / "raw_preview_counted_as_photo.dng").string();
    ReadOptions options;
    options.camera_raw = true;
    std::optional<LoadedImage> image;
    ASSERT_NO_THROW(image = read_image(dng, options));
    EXPECT_EQ(image->view.format, imghist::PixelFormat::rgba16);
    EXPECT_EQ(image->view.width, 300u);
    EXPECT_EQ(image->view.height, 200u);
    ASSERT_TRUE(image->sensor);
    EXPECT_STREQ(image->sensor->pattern, "RGGB");
    EXPECT_TRUE(has_note(*image, "150 x 100 preview was not counted"));
    // A caller that does not count per channel (the Python package's file functions) is refused.
    EXPECT_TRUE(contains(refusal(dng), "counted per colour filter channel by the imghist command")) << refusal(dng);
}

// The reader is chosen by content, so a raw extension changes nothing, with or without
// --untrusted-readers: the command counts the mosaic and reports it as camera raw.
TEST_F(CameraRawTest, RawExtensionsAreReadByTheCommand) {
    const fs::path dng = kRepro / "raw_preview_counted_as_photo.dng";
    for (const char* name : {"photo.CR2", "photo.NEF", "photo.dng"}) {
        fs::copy_file(dng, path(name), fs::copy_options::overwrite_existing);
        for (const bool untrusted : {false, true}) {
            std::vector<std::string> args = {path(name)};
            if (untrusted) args.insert(args.begin(), "--untrusted-readers");
            const CommandRun r = run_json(args);
            EXPECT_EQ(r.status, 0) << name << " " << r.out << r.err;
            EXPECT_TRUE(contains(r.out, "\"camera_raw\"")) << name << " " << r.out;
            EXPECT_TRUE(contains(r.out, "\"G2\"")) << name << " " << r.out;
        }
    }
}
#else
// Without LibRaw the reviewer's DNG is refused, never counted as its 150 x 100 preview.
TEST_F(CameraRawTest, DngWhosePreviewComesFirstIsRefused) {
    const std::string why = refusal((kRepro / "raw_preview_counted_as_photo.dng").string());
    EXPECT_TRUE(contains(why, "camera raw file")) << why;
    EXPECT_TRUE(contains(why, "DNG tags")) << why;
    EXPECT_TRUE(contains(why, "reduced-resolution preview")) << why;
}
#endif

// A bare CFA DNG was counted as gray16 of the mosaic; a preview first is refused without DNG
// tags too (NEF and others keep one there); both byte orders, classic TIFF and BigTIFF. These
// files lack the tags of a real raw (the colour pattern), so LibRaw refuses them too.
TEST_F(CameraRawTest, MosaicAndPreviewFirstAreNeverCountedAsGray) {
    const struct {
        FirstImage first;
        const char* says;
    } cases[] = {
        {{PHOTOMETRIC_CFA, 0, true}, "colour filter array mosaic"},
        {{PHOTOMETRIC_CFA, 0, false}, "colour filter array mosaic"},
        {{34892 /* LinearRaw */, 0, true}, "linear raw"},
        {{PHOTOMETRIC_MINISBLACK, FILETYPE_REDUCEDIMAGE, false}, "reduced-resolution preview"},
        {{PHOTOMETRIC_MINISBLACK, 0, true}, "DNG tags"},
    };
    for (const char* mode : {"wl", "wb", "w8l", "w8b"}) {
        for (const auto& c : cases) {
            const std::string file = path("first.tif");
            write_tiff(file, mode, c.first);
            const std::string why = refusal(file);
            EXPECT_TRUE(contains(why, "camera raw file")) << mode << ": " << why;
            if (!IMGHIST_IO_LIBRAW) EXPECT_TRUE(contains(why, c.says)) << mode << ": " << why;
        }
    }
}

// The same layouts as ordinary TIFFs are read, every sample as written.
TEST_F(CameraRawTest, OrdinaryTiffIsStillRead) {
    for (const char* mode : {"wl", "wb", "w8l", "w8b"}) {
        const std::string file = path("ordinary.tif");
        write_tiff(file, mode, {});
        const auto image = read_or_fail(file);
        ASSERT_TRUE(image) << mode;
        ASSERT_EQ(image->view.format, imghist::PixelFormat::gray16) << mode;
        const std::vector<std::uint16_t> samples = samples_of<std::uint16_t>(*image);
        ASSERT_EQ(samples.size(), 16u * 8u) << mode;
        for (std::size_t i = 0; i < samples.size(); ++i)
            ASSERT_EQ(samples[i], std::uint16_t(1000 * (i / 16) + i % 16)) << mode << " sample " << i;
    }
}
