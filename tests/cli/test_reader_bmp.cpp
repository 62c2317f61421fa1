// BMP headers: OpenImageIO 2.4's BMP reader fills its DIB header only for the sizes it knows and
// went on with fields it never set for any other (the reviewer's 168-byte header took the size
// of the BMP read before it). Such files are refused from the header; the known sizes read the
// pixels written here byte for byte.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cli_files.hpp"
#include "reader_support.hpp"

using namespace imghist::reader_test;

namespace {

class BmpHeaderTest : public ReaderTest {};

constexpr int kWidth = 5, kHeight = 3;

// The blue, green, red byte of pixel (x, y), y from the top.
unsigned char stored(int x, int y, int c) { return static_cast<unsigned char>(17 * x + 61 * y + 89 * c + 3); }

// A 24-bit bottom-up BMP of kWidth x kHeight whose DIB header is `dib_size` bytes (an OS/2 1.x
// header for 12, the Windows fields padded with zeros for the others, 24 bytes or more).
std::string bmp_bytes(std::uint32_t dib_size) {
    std::string out;
    const auto put = [&out](std::uint32_t v, int bytes) {
        for (int i = 0; i < bytes; ++i) out.push_back(char((v >> (8 * i)) & 0xFF));
    };
    const std::uint32_t row = (kWidth * 3 + 3) & ~3u, offset = 14 + dib_size;
    out += "BM";
    put(offset + row * kHeight, 4);
    put(0, 4);
    put(offset, 4);
    put(dib_size, 4);
    if (dib_size == 12) {
        put(kWidth, 2), put(kHeight, 2), put(1, 2), put(24, 2);
    } else {
        put(kWidth, 4), put(kHeight, 4), put(1, 2), put(24, 2), put(0, 4), put(row * kHeight, 4);
        out.append(dib_size - 24, '\0');
    }
    for (int y = kHeight - 1; y >= 0; --y) {
        for (int x = 0; x < kWidth; ++x)
            for (int c = 0; c < 3; ++c) out.push_back(char(stored(x, y, c)));
        out.append(row - kWidth * 3, '\0');
    }
    return out;
}

}  // namespace

// Alone, the reviewer's file was refused with a different "Invalid image size" on each run.
TEST_F(BmpHeaderTest, ReviewersHeaderOf168BytesIsRefusedFromItsSize) {
    const std::string why = refusal((kRepro / "bmp_header_size_168_uninitialised.bmp").string());
    EXPECT_TRUE(contains(why, "DIB header is 168 bytes")) << why;
}

TEST_F(BmpHeaderTest, SizesTheReaderDoesNotFillAreRefused) {
    for (const std::uint32_t size : {44u, 48u, 60u, 64u, 100u, 112u, 128u, 168u}) {
        const std::string file = path("size" + std::to_string(size) + ".bmp");
        imghist::cli_test::write_bytes(file, bmp_bytes(size));
        const std::string why = refusal(file);
        EXPECT_TRUE(contains(why, "DIB header is " + std::to_string(size) + " bytes")) << size << ": " << why;
    }
}

TEST_F(BmpHeaderTest, SizesTheReaderFillsReadEveryPixel) {
    for (const std::uint32_t size : {12u, 40u, 52u, 56u, 108u, 124u}) {
        const std::string file = path("size" + std::to_string(size) + ".bmp");
        imghist::cli_test::write_bytes(file, bmp_bytes(size));
        const auto image = read_or_fail(file);
        ASSERT_TRUE(image) << size;
        ASSERT_EQ(image->view.format, imghist::PixelFormat::rgb8) << size;
        const std::vector<std::uint8_t> samples = samples_of<std::uint8_t>(*image);
        ASSERT_EQ(samples.size(), std::size_t(kWidth * kHeight * 3)) << size;
        for (int y = 0; y < kHeight; ++y)
            for (int x = 0; x < kWidth; ++x)
                for (int c = 0; c < 3; ++c)  // stored B, G, R; read R, G, B
                    ASSERT_EQ(samples[std::size_t((y * kWidth + x) * 3 + c)], stored(x, y, 2 - c))
                        << size << " at " << x << "," << y;
    }
}
