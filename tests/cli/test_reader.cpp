// Tests of the file reader (imghist::io, src/io/reader*.cpp): which readers it trusts, what it refuses (EXR
// pixels the decoder did not write, what is not a regular file, path errors), read back through
// imghist::io::read_image; a few tests run the built binary to see that one bad file does not
// hide the others. TIFF: test_reader_tiff.cpp; PNM: test_reader_pnm.cpp; channels by name:
// test_reader_channels.cpp.
#include <gtest/gtest.h>

#include <OpenImageIO/imageio.h>
#include <Imath/half.h>
#include <nlohmann/json.hpp>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cli_files.hpp"
#include "reader_support.hpp"

namespace fs = std::filesystem;
namespace OIIO = OIIO_NAMESPACE;
using imghist::PixelFormat;
using namespace imghist::reader_test;
using imghist::cli_test::write_bytes;

namespace {

// === 1. Reader trust policy =====================================================================

TEST_F(ReaderTest, UntrustedReadersAreRefusedByDefault) {
    for (const char* name : {"oiio_iff_rle_heap_overflow.iff", "oiio_tga2_uninitialised_strlen.tga"}) {
        const std::string why = refusal((kRepro / name).string());
        EXPECT_TRUE(contains(why, "--untrusted-readers")) << name << ": " << why;
        EXPECT_TRUE(contains(why, "PNG, JPEG, TIFF, OpenEXR")) << name << ": " << why;
    }
    // A 1-byte file named .null is no image (OpenImageIO's null reader invents 1024 x 1024).
    write_bytes(path("x.null"), "x");
    EXPECT_TRUE(contains(refusal(path("x.null")), "--untrusted-readers"));
    EXPECT_NE(refusal(path("x.null"), imghist::io::ReadOptions{0, true}), "");
}

TEST_F(ReaderTest, ContentPicksTheReaderAndTheFlagOpensTheOthers) {
    // A PNG under a TGA or IFF name is read as PNG: the content decides.
    fs::copy_file(kSamplePng, path("really_png.iff"));
    const imghist::io::LoadedImage png = imghist::io::read_image(path("really_png.iff"), {});
    EXPECT_EQ(png.view.format, PixelFormat::rgb8);
    // A valid TGA needs the flag, and then reads as written.
    const std::vector<std::uint8_t> rgb = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120};
    write_oiio(path("ok.tga"), 2, 2, {"R", "G", "B"}, OIIO::TypeDesc::UINT8, rgb.data());
    EXPECT_TRUE(contains(refusal(path("ok.tga")), "targa"));
    const imghist::io::LoadedImage tga = imghist::io::read_image(path("ok.tga"), imghist::io::ReadOptions{0, true});
    EXPECT_EQ(samples_of<std::uint8_t>(tga), rgb);
}

TEST_F(ReaderTest, ZeroFilledPngIsRejectedAtOnce) {
    const std::string big = path("zeros.png");
    {
        std::ofstream f(big, std::ios::binary);
        const std::vector<char> zeros(1 << 20, 0);
        for (int i = 0; i < 256; ++i) f.write(zeros.data(), std::streamsize(zeros.size()));
    }
    const auto t0 = std::chrono::steady_clock::now();
    const std::string why = refusal(big);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_NE(why, "");
    EXPECT_LT(seconds, 0.5) << why;
    fs::remove(big);
}

TEST_F(ReaderTest, BadFilesOnTheCommandLineDoNotHideTheGoodOnes) {
    const CommandRun r = run_json({kSamplePng.string(), (kRepro / "oiio_iff_rle_heap_overflow.iff").string(),
                                  (kRepro / "oiio_tga2_uninitialised_strlen.tga").string(), kSamplePng.string()});
    ASSERT_EQ(r.status, 1) << r.err;
    const nlohmann::json doc = r.doc();
    ASSERT_TRUE(doc.is_object()) << r.err;
    EXPECT_EQ(doc["results"].size(), 2u);
    ASSERT_EQ(doc["errors"].size(), 2u);
    for (const auto& e : doc["errors"]) EXPECT_TRUE(contains(e["error"], "--untrusted-readers")) << e;
}

TEST_F(ReaderTest, DirectoryWalksTakeTrustedExtensionsUnlessAsked) {
    const fs::path walk = dir_ / "walk";
    fs::create_directories(walk);
    fs::copy_file(kSamplePng, walk / "a.png");
    const std::vector<std::uint8_t> rgb(12, 7);
    write_oiio((walk / "b.tga").string(), 2, 2, {"R", "G", "B"}, OIIO::TypeDesc::UINT8, rgb.data());
    const CommandRun plain = run_json({walk.string()});
    ASSERT_EQ(plain.status, 1) << plain.err;  // the TGA is listed, not dropped
    ASSERT_EQ(plain.doc()["results"].size(), 1u);
    EXPECT_EQ(plain.doc()["results"][0]["file"], (walk / "a.png").string());
    ASSERT_EQ(plain.doc()["errors"].size(), 1u);
    EXPECT_EQ(plain.doc()["errors"][0]["file"], (walk / "b.tga").string());
    EXPECT_TRUE(contains(plain.doc()["errors"][0]["error"], "TGA needs --untrusted-readers")) << plain.doc()["errors"];
    const CommandRun flagged = run_json({"--untrusted-readers", walk.string()});
    ASSERT_EQ(flagged.status, 0) << flagged.err;
    EXPECT_EQ(flagged.doc()["results"].size(), 2u);
}

TEST_F(ReaderTest, HelpNamesTheFlagAndWhyItIsOptIn) {
    const CommandRun help = run({"--help"});
    ASSERT_EQ(help.status, 0) << help.err;
    EXPECT_TRUE(contains(help.out, "--untrusted-readers"));
    EXPECT_TRUE(contains(help.out, "less safe"));
}

// === 3. EXR pixels the decoder did not write ====================================================

TEST_F(ReaderTest, ExrWithUnwrittenPixelsIsRefused) {
    // OpenImageIO's classic OpenEXR path returns these "successfully", with whatever the
    // decompression buffer held (oiiotool --stats gives a different average on every run).
    for (const char* name : {"exr_uninitialised_pixels_1x1.exr", "exr_piz_uninitialised_pixels.exr"}) {
        const std::string why = refusal((kRepro / name).string());
        EXPECT_TRUE(contains(why, "corrupt")) << name << ": '" << why << "'";
    }
}

TEST_F(ReaderTest, ValidExrOfEveryLosslessCompressionReadsExactly) {
    const int w = 37, h = 21;
    std::mt19937 rng(11);
    std::vector<float> f32(std::size_t(w) * h * 3);
    for (float& v : f32) v = std::uniform_real_distribution<float>(-0.5f, 2.f)(rng);
    std::vector<std::uint16_t> f16(f32.size());
    for (std::size_t i = 0; i < f32.size(); ++i) f16[i] = Imath::half(f32[i]).bits();
    for (const char* compression : {"none", "rle", "zips", "zip", "piz", "pxr24"}) {
        for (bool tiled : {false, true}) {
            for (bool half : {false, true}) {
                if (!half && std::string(compression) == "pxr24") continue;  // lossy for float
                const std::string file = path(std::string("v_") + compression + (tiled ? "_t" : "_s") +
                                              (half ? "_h" : "_f") + ".exr");
                OIIO::ImageSpec spec(w, h, 3, half ? OIIO::TypeDesc::HALF : OIIO::TypeDesc::FLOAT);
                spec.x = 5;
                spec.y = -3;
                spec.attribute("compression", compression);
                if (tiled) spec.tile_width = spec.tile_height = 16;
                auto out = OIIO::ImageOutput::create(file);
                ASSERT_TRUE(out->open(file, spec));
                ASSERT_TRUE(out->write_image(spec.format, half ? static_cast<const void*>(f16.data()) : f32.data()));
                out->close();
                const imghist::io::LoadedImage image = imghist::io::read_image(file, {});
                if (half) {
                    EXPECT_EQ(image.view.format, PixelFormat::rgb_f16) << file;
                    EXPECT_EQ(samples_of<std::uint16_t>(image), f16) << file;
                } else {
                    EXPECT_EQ(image.view.format, PixelFormat::rgb_f32) << file;
                    EXPECT_EQ(samples_of<float>(image), f32) << file;
                }
            }
        }
    }
}

float value_of_half(std::uint16_t bits) {
    Imath::half h;
    h.setBits(bits);
    return float(h);
}

// Reads the file the way OpenImageIO does by default, with OpenEXR's classic library: the
// reference decoder for the lossy compressions, independent of the reader under test.
std::vector<std::byte> read_with_classic_openexr(const std::string& file, OIIO::TypeDesc type) {
    OIIO::attribute("openexr:core", 0);
    auto in = OIIO::ImageInput::open(file);
    OIIO::attribute("openexr:core", 1);
    std::vector<std::byte> pixels;
    if (!in) return pixels;
    const OIIO::ImageSpec& spec = in->spec();
    pixels.resize(std::size_t(spec.width) * spec.height * spec.nchannels * type.size());
    if (!in->read_image(0, 0, 0, spec.nchannels, type, pixels.data())) pixels.clear();
    return pixels;
}

TEST_F(ReaderTest, LossyExrReadsAsOpenExrsReferenceDecoderReadsIt) {
    // DWAA and DWAB (Nuke's and Blender's default) failed in OpenEXR 3.1's core library on every
    // file; imghist reads them with the classic library. Every lossy compression must read as the
    // classic decoder reads it. DWA stores alpha losslessly, so there it must also come back
    // exactly as written, and colour within the codec's loss.
    const int w = 83, h = 300;  // more than one 256-row DWAB chunk, and a partial last one
    std::mt19937 rng(5);
    std::vector<float> f32(std::size_t(w) * h * 4);
    for (float& v : f32) v = std::exp(std::uniform_real_distribution<float>(-6.f, 8.f)(rng));
    std::vector<std::uint16_t> f16(f32.size());
    for (std::size_t i = 0; i < f32.size(); ++i) f16[i] = Imath::half(f32[i]).bits();
    for (const char* compression : {"dwaa", "dwab", "b44", "b44a", "pxr24"}) {
        for (bool tiled : {false, true}) {
            for (bool half : {false, true}) {
                const std::string name = std::string(compression) + (tiled ? "_t" : "_s") + (half ? "_h" : "_f");
                if (!half && name.rfind("b44", 0) == 0) continue;  // B44 leaves float channels lossless
                const std::string file = path("lossy_" + name + ".exr");
                const OIIO::TypeDesc type = half ? OIIO::TypeDesc::HALF : OIIO::TypeDesc::FLOAT;
                OIIO::ImageSpec spec(w, h, 4, type);
                spec.attribute("compression", compression);
                if (tiled) spec.tile_width = spec.tile_height = 64;
                auto out = OIIO::ImageOutput::create(file);
                ASSERT_TRUE(out->open(file, spec));
                ASSERT_TRUE(out->write_image(type, half ? static_cast<const void*>(f16.data()) : f32.data()));
                out->close();

                imghist::io::LoadedImage image;
                ASSERT_NO_THROW(image = imghist::io::read_image(file, {})) << name;
                ASSERT_EQ(image.view.format, half ? PixelFormat::rgba_f16 : PixelFormat::rgba_f32) << name;
                std::vector<float> read(f32.size());
                std::vector<std::byte> read_bytes;
                if (half) {
                    const auto bits = samples_of<std::uint16_t>(image);
                    for (std::size_t i = 0; i < read.size(); ++i) read[i] = value_of_half(bits[i]);
                    read_bytes.resize(bits.size() * 2);
                    std::memcpy(read_bytes.data(), bits.data(), read_bytes.size());
                } else {
                    read = samples_of<float>(image);
                    read_bytes.resize(read.size() * 4);
                    std::memcpy(read_bytes.data(), read.data(), read_bytes.size());
                }
                EXPECT_TRUE(read_bytes == read_with_classic_openexr(file, type)) << name;
                std::size_t alpha_exact = 0, colour_close = 0;
                for (std::size_t i = 0; i < read.size(); ++i) {
                    const float written = half ? value_of_half(f16[i]) : f32[i];
                    if (i % 4 == 3) alpha_exact += read[i] == written;
                    else colour_close += std::abs(read[i] - written) <= 0.05f * std::max(1.f, std::abs(written));
                }
                if (name.rfind("dwa", 0) != 0) continue;  // B44 and PXR24 are lossy in alpha too
                EXPECT_EQ(alpha_exact, read.size() / 4) << name;
                EXPECT_GE(double(colour_close), 0.99 * double(read.size() / 4 * 3)) << name;
            }
        }
    }
}

// === 4. What is not a regular file, and path errors =============================================

TEST_F(ReaderTest, NonRegularFilesAreRefusedWithoutBlocking) {
    ASSERT_EQ(::mkfifo(path("pipe.png").c_str(), 0644), 0);
    const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::string sock_path = path("sock.png");
    ASSERT_LT(sock_path.size(), sizeof(addr.sun_path));
    std::strcpy(addr.sun_path, sock_path.c_str());
    ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    const CommandRun r = run_json({kSamplePng.string(), path("pipe.png"), "/dev/zero", "/dev/urandom", sock_path,
                                  kSamplePng.string()});
    ::close(sock);
    ASSERT_EQ(r.status, 1) << "status " << r.status << " (124: it blocked)\n" << r.err;
    const nlohmann::json doc = r.doc();
    EXPECT_EQ(doc["results"].size(), 2u);
    ASSERT_EQ(doc["errors"].size(), 4u);
    EXPECT_TRUE(contains(doc["errors"][0]["error"], "FIFO")) << doc["errors"][0];
    EXPECT_TRUE(contains(doc["errors"][1]["error"], "character device")) << doc["errors"][1];
    EXPECT_TRUE(contains(doc["errors"][2]["error"], "character device")) << doc["errors"][2];
    EXPECT_TRUE(contains(doc["errors"][3]["error"], "socket")) << doc["errors"][3];
}

TEST_F(ReaderTest, PathErrorsSayWhatIsWrong) {
    fs::create_symlink(path("loop_b.png"), path("loop_a.png"));
    fs::create_symlink(path("loop_a.png"), path("loop_b.png"));
    EXPECT_TRUE(contains(refusal(path("loop_a.png")), "symbolic links")) << refusal(path("loop_a.png"));
    const std::string long_name = path(std::string(300, 'n') + ".png");
    EXPECT_TRUE(contains(refusal(long_name), "name too long")) << refusal(long_name);
    fs::copy_file(kSamplePng, path("plain.png"));
    EXPECT_TRUE(contains(refusal(path("plain.png") + "/x.png"), "not a directory"))
        << refusal(path("plain.png") + "/x.png");
    EXPECT_EQ(refusal(path("missing.png")), "no such file");
}

TEST_F(ReaderTest, PermissionDeniedIsSaidSo) {
    // The tests may run as root, who may read anything: the check runs as nobody in a child.
    fs::copy_file(kSamplePng, path("locked.png"));
    fs::permissions(path("locked.png"), fs::perms::none);
    int pipe_fd[2];
    ASSERT_EQ(::pipe(pipe_fd), 0);
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(pipe_fd[0]);
        if (::getuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(3);
        const std::string why = refusal(path("locked.png"));
        (void)!::write(pipe_fd[1], why.data(), why.size());
        ::_exit(0);
    }
    ::close(pipe_fd[1]);
    std::string why;
    char buf[256];
    for (ssize_t n; (n = ::read(pipe_fd[0], buf, sizeof buf)) > 0;) why.append(buf, std::size_t(n));
    ::close(pipe_fd[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child could not drop to nobody";
    EXPECT_TRUE(contains(why, "permission denied")) << why;
}

TEST_F(ReaderTest, SizesOf2To31AndMoreAreNotPrintedNegative) {
    write_bytes(path("wide.pgm"), "P5\n2147483648 2\n255\n\x01\x02");
    const std::string why = refusal(path("wide.pgm"));
    EXPECT_TRUE(contains(why, "2147483648 x 2")) << why;
    EXPECT_FALSE(contains(why, "-2147483648")) << why;
    // Without the pixel limit, the file is refused from its size before any allocation.
    const std::string unlimited = refusal(path("wide.pgm"), imghist::io::ReadOptions{0, false});
    EXPECT_TRUE(contains(unlimited, "ends before its last pixel")) << unlimited;
}

}  // namespace
