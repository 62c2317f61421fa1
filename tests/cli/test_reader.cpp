// Tests of the file reader (src/cli/reader.cpp): which readers it trusts, what it refuses, and
// that the pixels it returns are the ones the file stores. Files are written here from known
// data (TIFF with libtiff itself, the rest with OpenImageIO or by hand) and read back through
// imghist::cli::read_image; a few tests run the built binary to see that one bad file does not
// hide the others.
#include <gtest/gtest.h>

#include <Imath/half.h>
#include <OpenImageIO/imageio.h>
#include <nlohmann/json.hpp>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <tiffio.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "cli_support.hpp"
#include "reader.hpp"

namespace fs = std::filesystem;
namespace OIIO = OIIO_NAMESPACE;
using imghist::PixelFormat;
using imghist::cli::LoadedImage;
using imghist::cli::ReadError;
using imghist::cli::ReadOptions;
using imghist::cli::read_image;

namespace {

const fs::path kRepro = fs::path(IMGHIST_SOURCE_DIR) / "tests/data/repro";
const fs::path kSamplePng = fs::path(IMGHIST_SOURCE_DIR) / "examples/sample.png";

using imghist::cli_test::CommandRun;

class ReaderTest : public imghist::cli_test::ScratchDirTest {
protected:
    // Runs imghist --format json ARGS; status 124 when it ran past 30 s (it blocked on a file).
    static CommandRun run_json(const std::vector<std::string>& args) {
        std::vector<std::string> all = {"--format", "json"};
        all.insert(all.end(), args.begin(), args.end());
        return run(all, {.timeout_seconds = 30});
    }

    // The ReadError message, or "" when the file was read.
    static std::string refusal(const std::string& file, const ReadOptions& options = {}) {
        try {
            (void)read_image(file, options);
            return "";
        } catch (const ReadError& e) {
            return e.what();
        }
    }
};

void write_bytes(const std::string& file, const std::string& bytes) {
    std::ofstream(file, std::ios::binary) << bytes;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

bool has_note(const LoadedImage& image, const std::string& part) {
    for (const std::string& n : image.notes)
        if (contains(n, part)) return true;
    return false;
}

// The image, or nullopt after a test failure that names the ReadError.
std::optional<LoadedImage> read_or_fail(const std::string& file) {
    try {
        return read_image(file, {});
    } catch (const ReadError& e) {
        ADD_FAILURE() << e.what();
        return std::nullopt;
    }
}

template <typename T>
std::vector<T> samples_of(const LoadedImage& image) {
    const auto& fi = image.view.info();
    EXPECT_EQ(sizeof(T), std::size_t(fi.bytes_per_sample));
    const std::size_t n = std::size_t(image.view.width) * image.view.height * fi.channels;
    std::vector<T> out(n);
    const std::size_t row = std::size_t(image.view.width) * fi.channels;
    for (std::uint32_t y = 0; y < image.view.height; ++y)
        std::memcpy(out.data() + y * row, image.view.row(y),
                    row * sizeof(T));
    return out;
}

// Writes with OpenImageIO; `names` become the channel names.
void write_oiio(const std::string& file, int width, int height, const std::vector<std::string>& names,
                OIIO::TypeDesc type, const void* data, int alpha_channel = -1,
                const std::string& compression = "") {
    OIIO::ImageSpec spec(width, height, int(names.size()), type);
    spec.channelnames = names;
    spec.alpha_channel = alpha_channel;
    spec.attribute("oiio:UnassociatedAlpha", 1);
    if (!compression.empty()) spec.attribute("compression", compression);
    auto out = OIIO::ImageOutput::create(file);
    ASSERT_TRUE(out) << OIIO::geterror();
    ASSERT_TRUE(out->open(file, spec)) << out->geterror();
    ASSERT_TRUE(out->write_image(type, data)) << out->geterror();
    ASSERT_TRUE(out->close());
}

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
    EXPECT_NE(refusal(path("x.null"), ReadOptions{0, true}), "");
}

TEST_F(ReaderTest, ContentPicksTheReaderAndTheFlagOpensTheOthers) {
    // A PNG under a TGA or IFF name is read as PNG: the content decides.
    fs::copy_file(kSamplePng, path("really_png.iff"));
    const LoadedImage png = read_image(path("really_png.iff"), {});
    EXPECT_EQ(png.view.format, PixelFormat::rgb8);
    // A valid TGA needs the flag, and then reads as written.
    const std::vector<std::uint8_t> rgb = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120};
    write_oiio(path("ok.tga"), 2, 2, {"R", "G", "B"}, OIIO::TypeDesc::UINT8, rgb.data());
    EXPECT_TRUE(contains(refusal(path("ok.tga")), "targa"));
    const LoadedImage tga = read_image(path("ok.tga"), ReadOptions{0, true});
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
    ASSERT_EQ(plain.status, 0) << plain.err;
    ASSERT_EQ(plain.doc()["results"].size(), 1u);
    EXPECT_EQ(plain.doc()["results"][0]["file"], (walk / "a.png").string());
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
                const LoadedImage image = read_image(file, {});
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
    const std::string unlimited = refusal(path("wide.pgm"), ReadOptions{0, false});
    EXPECT_TRUE(contains(unlimited, "ends before its last pixel")) << unlimited;
}

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
                const std::optional<LoadedImage> loaded = read_or_fail(file);
                if (!loaded) continue;
                const LoadedImage& image = *loaded;
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
    const LoadedImage image = read_image((kRepro / "double_tiff_counted_as_zeros.tif").string(), {});
    const std::vector<float> s = samples_of<float>(image);
    const double want[3] = {0.567, 0.453, 0.481};
    for (int c = 0; c < 3; ++c) {
        double sum = 0;
        for (std::size_t i = std::size_t(c); i < s.size(); i += 3) sum += s[i];
        EXPECT_NEAR(sum / double(s.size() / 3), want[c], 0.0006) << "channel " << c;
    }
}

// === 11. ASCII and odd-maxval PNM ===============================================================

TEST_F(ReaderTest, Ascii16BitPnmReadsEveryValue) {
    const std::vector<std::uint16_t> gray = {0, 1, 255, 256, 32767, 32768, 32769, 40000, 65280, 65534, 65535, 12345};
    std::string p2 = "P2\n# a comment\n4 3\n65535\n";
    for (std::uint16_t v : gray) p2 += std::to_string(v) + (p2.size() % 5 ? " " : "\n");
    write_bytes(path("a16.pgm"), p2);
    const LoadedImage g = read_image(path("a16.pgm"), {});
    EXPECT_EQ(g.view.format, PixelFormat::gray16);
    EXPECT_EQ(samples_of<std::uint16_t>(g), gray);

    std::string p3 = "P3 2 2 65535\n";
    for (std::uint16_t v : gray) p3 += std::to_string(v) + "\n";
    write_bytes(path("a16.ppm"), p3);
    const LoadedImage c = read_image(path("a16.ppm"), {});
    EXPECT_EQ(c.view.format, PixelFormat::rgb16);
    EXPECT_EQ(samples_of<std::uint16_t>(c), gray);

    // The reviewer's file, against its own text.
    std::ifstream f(kRepro / "ascii16_off_by_one.pgm");
    std::string magic;
    int w = 0, h = 0, maxval = 0;
    f >> magic >> w >> h >> maxval;
    std::vector<std::uint16_t> want;
    for (int v; f >> v;) want.push_back(std::uint16_t(v));
    EXPECT_EQ(samples_of<std::uint16_t>(read_image((kRepro / "ascii16_off_by_one.pgm").string(), {})), want);

    const std::vector<std::uint8_t> bytes = {0, 7, 128, 255};
    write_bytes(path("a8.pgm"), "P2 2 2 255 0 7\n128 255\n");
    const LoadedImage g8 = read_image(path("a8.pgm"), {});
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
        const LoadedImage image = read_image(path(name), {});
        EXPECT_EQ(image.view.format, PixelFormat::gray16) << name;
        EXPECT_EQ(samples_of<std::uint16_t>(image), want12) << name;
        EXPECT_TRUE(has_note(image, "maxval 4095")) << name;
    }
    write_bytes(path("b100.pgm"), std::string("P5 3 1 100\n") + char(0) + char(50) + char(100));
    const LoadedImage image = read_image(path("b100.pgm"), {});
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

// === 12. CMYK ===================================================================================

TEST_F(ReaderTest, CmykIsRefused) {
    EXPECT_TRUE(contains(refusal((kRepro / "cmyk_silently_converted.jpg").string()), "CMYK"));
    std::vector<unsigned char> raw(8 * 4 * 4, 100);
    write_tiff(path("cmyk.tif"), 8, 4, 4, kTiffTypes[0], COMPRESSION_NONE, false, raw, PHOTOMETRIC_SEPARATED);
    EXPECT_TRUE(contains(refusal(path("cmyk.tif")), "CMYK")) << refusal(path("cmyk.tif"));
}

// === 13. Colour channels by name ================================================================

TEST_F(ReaderTest, ExrColourChannelsAreReadByName) {
    const int w = 5, h = 3;
    std::mt19937 rng(13);
    const auto make = [&](std::size_t channels) {
        std::vector<float> v(std::size_t(w) * h * channels);
        for (float& x : v) x = std::uniform_real_distribution<float>(0.f, 1.f)(rng);
        return v;
    };
    // R,G,B plus Z (the usual render output), and R,G,B,A plus two AOVs.
    const struct {
        std::vector<std::string> names;
        int alpha;
        std::vector<std::string> want;  // channels expected, in order
        PixelFormat format;
    } cases[] = {
        {{"R", "G", "B", "Z"}, -1, {"R", "G", "B"}, PixelFormat::rgb_f32},
        {{"R", "G", "B", "A", "Z", "N.x"}, 3, {"R", "G", "B", "A"}, PixelFormat::rgba_f32},
        {{"AO", "B", "G", "R", "depth"}, -1, {"R", "G", "B"}, PixelFormat::rgb_f32},
        {{"Y"}, -1, {"Y"}, PixelFormat::gray_f32},
        {{"Y", "A"}, 1, {"Y"}, PixelFormat::gray_f32},
    };
    int index = 0;
    for (const auto& c : cases) {
        const std::string file = path("names" + std::to_string(index++) + ".exr");
        const std::vector<float> data = make(c.names.size());
        write_oiio(file, w, h, c.names, OIIO::TypeDesc::FLOAT, data.data(), c.alpha, "zip");
        SCOPED_TRACE(file);
        // What the file holds, channel by channel, as OpenImageIO's own header names them.
        auto in = OIIO::ImageInput::open(file);
        ASSERT_TRUE(in);
        const OIIO::ImageSpec spec = in->spec();
        std::vector<float> all(std::size_t(w) * h * spec.nchannels);
        ASSERT_TRUE(in->read_image(0, 0, 0, spec.nchannels, OIIO::TypeDesc::FLOAT, all.data()));
        std::vector<float> want;
        for (int p = 0; p < w * h; ++p)
            for (const std::string& name : c.want) {
                const auto it = std::find(spec.channelnames.begin(), spec.channelnames.end(), name);
                ASSERT_NE(it, spec.channelnames.end());
                want.push_back(all[std::size_t(p) * spec.nchannels + std::size_t(it - spec.channelnames.begin())]);
            }
        const std::optional<LoadedImage> loaded = read_or_fail(file);
        if (!loaded) continue;
        const LoadedImage& image = *loaded;
        EXPECT_EQ(image.view.format, c.format);
        EXPECT_EQ(samples_of<float>(image), want);
        for (const std::string& name : c.names) {
            if (std::find(c.want.begin(), c.want.end(), name) != c.want.end()) continue;
            EXPECT_TRUE(has_note(image, name)) << "no note names the ignored channel " << name;
        }
    }
}

TEST_F(ReaderTest, ChannelsWithoutColourNamesAreRefused) {
    const std::vector<float> data(2 * 2 * 5, 0.5f);
    write_oiio(path("five.exr"), 2, 2, {"u", "v", "w", "x", "y"}, OIIO::TypeDesc::FLOAT, data.data());
    EXPECT_TRUE(contains(refusal(path("five.exr")), "5 channels")) << refusal(path("five.exr"));
}

TEST_F(ReaderTest, GrayAlphaPngCountsTheGrayChannel) {
    const std::vector<std::uint8_t> ga8 = {0, 255, 10, 128, 200, 0, 255, 7};
    write_oiio(path("ga8.png"), 2, 2, {"Y", "A"}, OIIO::TypeDesc::UINT8, ga8.data(), 1);
    const LoadedImage g8 = read_image(path("ga8.png"), {});
    EXPECT_EQ(g8.view.format, PixelFormat::gray8);
    EXPECT_EQ(samples_of<std::uint8_t>(g8), (std::vector<std::uint8_t>{0, 10, 200, 255}));
    EXPECT_TRUE(has_note(g8, "alpha"));
    const std::vector<std::uint16_t> ga16 = {0, 65535, 1000, 32768, 65535, 0, 300, 9};
    write_oiio(path("ga16.png"), 2, 2, {"Y", "A"}, OIIO::TypeDesc::UINT16, ga16.data(), 1);
    const LoadedImage g16 = read_image(path("ga16.png"), {});
    EXPECT_EQ(g16.view.format, PixelFormat::gray16);
    EXPECT_EQ(samples_of<std::uint16_t>(g16), (std::vector<std::uint16_t>{0, 1000, 65535, 300}));
}

}  // namespace
