// The file reader on PNM: ASCII 16-bit files, maxvals other than 255 and 65535 (rescaled with a
// note), and invalid files refused.
#include <gtest/gtest.h>

#include <OpenImageIO/imageio.h>
#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "cli_files.hpp"
#include "reader_support.hpp"

namespace fs = std::filesystem;
namespace OIIO = OIIO_NAMESPACE;
using imghist::PixelFormat;
using namespace imghist::reader_test;
using imghist::cli_test::write_bytes;

namespace {

// === 11. ASCII and odd-maxval PNM ===============================================================

TEST_F(ReaderTest, Ascii16BitPnmReadsEveryValue) {
    const std::vector<std::uint16_t> gray = {0, 1, 255, 256, 32767, 32768, 32769, 40000, 65280, 65534, 65535, 12345};
    std::string p2 = "P2\n# a comment\n4 3\n65535\n";
    for (std::uint16_t v : gray) p2 += std::to_string(v) + (p2.size() % 5 ? " " : "\n");
    write_bytes(path("a16.pgm"), p2);
    const imghist::io::LoadedImage g = imghist::io::read_image(path("a16.pgm"), {});
    EXPECT_EQ(g.view.format, PixelFormat::gray16);
    EXPECT_EQ(samples_of<std::uint16_t>(g), gray);

    std::string p3 = "P3 2 2 65535\n";
    for (std::uint16_t v : gray) p3 += std::to_string(v) + "\n";
    write_bytes(path("a16.ppm"), p3);
    const imghist::io::LoadedImage c = imghist::io::read_image(path("a16.ppm"), {});
    EXPECT_EQ(c.view.format, PixelFormat::rgb16);
    EXPECT_EQ(samples_of<std::uint16_t>(c), gray);

    // The reviewer's file, against its own text.
    std::ifstream f(kRepro / "ascii16_off_by_one.pgm");
    std::string magic;
    int w = 0, h = 0, maxval = 0;
    f >> magic >> w >> h >> maxval;
    std::vector<std::uint16_t> want;
    for (int v; f >> v;) want.push_back(std::uint16_t(v));
    EXPECT_EQ(samples_of<std::uint16_t>(imghist::io::read_image((kRepro / "ascii16_off_by_one.pgm").string(), {})), want);

    const std::vector<std::uint8_t> bytes = {0, 7, 128, 255};
    write_bytes(path("a8.pgm"), "P2 2 2 255 0 7\n128 255\n");
    const imghist::io::LoadedImage g8 = imghist::io::read_image(path("a8.pgm"), {});
    EXPECT_EQ(g8.view.format, PixelFormat::gray8);
    EXPECT_EQ(samples_of<std::uint8_t>(g8), bytes);
}

TEST_F(ReaderTest, PnmWithOtherMaxvalIsRescaledWithANote) {
    // maxval 4095: 16-bit, round(v * 65535 / 4095); maxval 100: 8-bit, round(v * 255 / 100).
    const std::vector<unsigned> v12 = {0, 1, 2047, 2048, 4094, 4095};
    std::string binary = "P5 3 2 4095\n", ascii = "P2 3 2 4095\n";
    std::vector<std::uint16_t> want12;
    for (unsigned v : v12) {
        binary += char(v >> 8);
        binary += char(v & 0xFF);
        ascii += std::to_string(v) + " ";
        want12.push_back(std::uint16_t((v * 65535u + 2047u) / 4095u));
    }
    write_bytes(path("b12.pgm"), binary);
    write_bytes(path("a12.pgm"), ascii);
    for (const char* name : {"b12.pgm", "a12.pgm"}) {
        const imghist::io::LoadedImage image = imghist::io::read_image(path(name), {});
        EXPECT_EQ(image.view.format, PixelFormat::gray16) << name;
        EXPECT_EQ(samples_of<std::uint16_t>(image), want12) << name;
        EXPECT_TRUE(has_note(image, "maxval 4095")) << name;
    }
    write_bytes(path("b100.pgm"), std::string("P5 3 1 100\n") + char(0) + char(50) + char(100));
    const imghist::io::LoadedImage image = imghist::io::read_image(path("b100.pgm"), {});
    EXPECT_EQ(image.view.format, PixelFormat::gray8);
    EXPECT_EQ(samples_of<std::uint8_t>(image), (std::vector<std::uint8_t>{0, 128, 255}));
    EXPECT_TRUE(has_note(image, "maxval 100"));
}

TEST_F(ReaderTest, InvalidPnmIsRefused) {
    const std::pair<const char*, std::string> bad[] = {
        {"maxval0.pgm", std::string("P5 1 1 0\n") + char(0)},
        {"maxval70000.pgm", std::string("P5 1 1 70000\n") + char(0) + char(0)},
        {"above_maxval.pgm", "P2 2 1 100 50 101\n"},
        {"short_ascii.ppm", "P3 2 1 255 1 2 3 4 5\n"},
        {"junk_ascii.pgm", "P2 2 1 255 1 x\n"},
        {"short_binary.ppm", "P6 2 1 255\n\x01\x02\x03"},
    };
    for (const auto& [name, bytes] : bad) {
        write_bytes(path(name), bytes);
        EXPECT_NE(refusal(path(name)), "") << name;
    }
}

}  // namespace
