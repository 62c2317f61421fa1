// JPEG files through TurboJPEG (src/io/reader_jpeg.cpp) against OpenImageIO's JPEG reader, the
// path every JPEG took before: the same pixels byte for byte, with the same format, sample type
// and notes. Where TurboJPEG leaves a file to OpenImageIO (damaged data, CMYK and YCCK, sampling
// it has no name for, a file too large to hold), read_image() gives OpenImageIO's answer, pixels
// or error. Files are written by OpenImageIO and, for what its writer cannot make (arithmetic
// coding, restart markers, 4:4:0, YCCK, stored RGB), by libjpeg (libjpeg-dev comes with
// libtiff-dev). Built where imghist::io has TurboJPEG.
#include <gtest/gtest.h>

#include <OpenImageIO/imageio.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <jpeglib.h>

#include "cli_files.hpp"
#include "io/reader_internal.hpp"
#include "reader_support.hpp"
#include "test_images.hpp"

namespace OIIO = OIIO_NAMESPACE;
using imghist::PixelFormat;
using imghist::cli_test::slurp;
using imghist::cli_test::write_bytes;
using imghist::testing::Pattern;
using namespace imghist::reader_test;
namespace reading = imghist::io::reading;

namespace {

// --- writing JPEGs ---------------------------------------------------------------------------

// What libjpeg is asked for (its defaults otherwise: quality 75, 4:2:0, Huffman, no restarts).
struct Libjpeg {
    J_COLOR_SPACE input = JCS_RGB, stored = JCS_YCbCr;
    std::vector<std::pair<int, int>> factors;  // per component (h, v); empty: libjpeg's
    bool arithmetic = false, progressive = false;
    std::vector<jpeg_scan_info> scans;  // a progressive scan script of one's own
    unsigned restart_mcus = 0;
    int restart_rows = 0;
    int quality = 75;
};

// libjpeg's own error handler prints its message and exits: a failing write fails the test.
void write_libjpeg(const std::string& file, const imghist::ImageView& v, const Libjpeg& s) {
    jpeg_compress_struct c{};
    jpeg_error_mgr err{};
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    std::FILE* f = std::fopen(file.c_str(), "wb");
    ASSERT_NE(f, nullptr) << file;
    jpeg_stdio_dest(&c, f);
    c.image_width = v.width;
    c.image_height = v.height;
    c.input_components = int(v.info().channels);
    c.in_color_space = s.input;
    jpeg_set_defaults(&c);
    jpeg_set_colorspace(&c, s.stored);
    jpeg_set_quality(&c, s.quality, TRUE);
    for (std::size_t i = 0; i < s.factors.size(); ++i) {
        c.comp_info[i].h_samp_factor = s.factors[i].first;
        c.comp_info[i].v_samp_factor = s.factors[i].second;
    }
    c.arith_code = s.arithmetic ? TRUE : FALSE;
    c.restart_interval = s.restart_mcus;
    c.restart_in_rows = s.restart_rows;
    if (s.progressive) jpeg_simple_progression(&c);
    if (!s.scans.empty()) {
        c.scan_info = s.scans.data();
        c.num_scans = int(s.scans.size());
    }
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = const_cast<JSAMPROW>(reinterpret_cast<const JSAMPLE*>(v.row(c.next_scanline)));
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    std::fclose(f);
}

// --- reading the frame header back, so each case is what it claims -----------------------------

inline int byte_at(const std::string& b, std::size_t i) { return i < b.size() ? static_cast<unsigned char>(b[i]) : -1; }

// The markers of the header segments before the first scan, with their offsets.
std::vector<std::pair<int, std::size_t>> header_segments(const std::string& b) {
    std::vector<std::pair<int, std::size_t>> out;
    for (std::size_t i = 2; byte_at(b, i) == 0xFF && i + 4 <= b.size();) {
        out.emplace_back(byte_at(b, i + 1), i);
        if (byte_at(b, i + 1) == 0xDA) break;
        i += 2 + std::size_t(byte_at(b, i + 2) << 8 | byte_at(b, i + 3));
    }
    return out;
}

bool is_sof(int marker) { return marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC; }

std::size_t segment_at(const std::string& b, bool (*which)(int)) {
    for (const auto& [m, at] : header_segments(b))
        if (which(m)) return at;
    ADD_FAILURE() << "no such segment in the file";
    return 0;
}
std::size_t sof_at(const std::string& b) { return segment_at(b, is_sof); }
std::size_t sos_at(const std::string& b) { return segment_at(b, [](int m) { return m == 0xDA; }); }

struct Frame {
    int marker = 0;
    std::vector<std::pair<int, int>> factors;
    bool restarts = false;
    bool operator==(const Frame&) const = default;
};
Frame frame_of(const std::string& b) {
    Frame f;
    const std::size_t at = sof_at(b);
    f.marker = byte_at(b, at + 1);
    for (int c = 0; c < byte_at(b, at + 9); ++c) {
        const int hv = byte_at(b, at + 11 + 3 * std::size_t(c));
        f.factors.emplace_back(hv >> 4, hv & 15);
    }
    for (const auto& [m, _] : header_segments(b)) f.restarts = f.restarts || m == 0xDD;
    return f;
}

std::string describe(const Frame& f) {
    char marker[8];
    std::snprintf(marker, sizeof marker, "0x%02X", f.marker);
    std::string s = std::string("SOF ") + marker + (f.restarts ? " DRI" : "");
    for (auto [h, v] : f.factors) s += " " + std::to_string(h) + "x" + std::to_string(v);
    return s;
}

// --- the three ways to read --------------------------------------------------------------------

// An image, or the ReadError's message.
struct Read {
    std::optional<imghist::io::LoadedImage> image;
    std::string error;
};
template <typename F>
Read attempt(F&& read) {
    try {
        return {read(), ""};
    } catch (const ReadError& e) {
        return {std::nullopt, e.what()};
    }
}
Read by_oiio(const std::string& file, const ReadOptions& options = {}) {
    return attempt([&] { return reading::read_with_oiio(file, "jpeg", options, imghist::io::allocate_on_heap); });
}
Read by_read_image(const std::string& file, const ReadOptions& options = {}) {
    return attempt([&] { return read_image(file, options); });
}
std::optional<LoadedImage> by_turbojpeg(const std::string& file, const ReadOptions& options = {}) {
    return reading::read_jpeg(file, fs::file_size(file), options, imghist::io::allocate_on_heap);
}

std::size_t differing_bytes(const LoadedImage& a, const LoadedImage& b) {
    const std::size_t n = std::size_t(a.view.row_bytes()) * a.view.height;
    const auto* p = reinterpret_cast<const unsigned char*>(a.view.data);
    const auto* q = reinterpret_cast<const unsigned char*>(b.view.data);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < n; ++i) differ += p[i] != q[i];
    return differ;
}

// The same outcome: the same error, or images alike in every field and byte.
void expect_same(const Read& got, const Read& want, const std::string& what) {
    ASSERT_EQ(got.image.has_value(), want.image.has_value()) << what << ": '" << got.error << "' against '" << want.error << "'";
    EXPECT_EQ(got.error, want.error) << what;
    if (!want.image) return;
    const LoadedImage &a = *got.image, &b = *want.image;
    ASSERT_EQ(a.view.format, b.view.format) << what;
    ASSERT_EQ(a.view.width, b.view.width) << what;
    ASSERT_EQ(a.view.height, b.view.height) << what;
    EXPECT_EQ(a.view.stride_bytes, b.view.stride_bytes) << what;
    EXPECT_EQ(a.source_type, b.source_type) << what;
    EXPECT_EQ(a.notes, b.notes) << what;
    EXPECT_EQ(differing_bytes(a, b), 0u) << what;
}

class JpegTest : public ReaderTest {};

// --- clean files: TurboJPEG decodes them, and gives OpenImageIO's pixels -----------------------

struct JpegCase {
    std::string name;
    PixelFormat pixels;
    std::uint32_t width, height;
    Pattern pattern;
    std::map<std::string, std::string> oiio;  // OpenImageIO's writer with these attributes
    std::optional<Libjpeg> libjpeg;           // or libjpeg with these settings
    Frame frame;                              // what the file must hold
};

std::vector<JpegCase> clean_cases() {
    const std::vector<std::pair<int, int>> s420 = {{2, 2}, {1, 1}, {1, 1}}, s444 = {{1, 1}, {1, 1}, {1, 1}};
    const auto q = [](int quality, const char* sampling) {
        return std::map<std::string, std::string>{{"compression", "jpeg:" + std::to_string(quality)},
                                                  {"jpeg:subsampling", sampling}};
    };
    auto progressive = q(85, "4:2:0");
    progressive["jpeg:progressive"] = "1";
    auto progressive444 = q(95, "4:4:4");
    progressive444["jpeg:progressive"] = "1";
    const std::map<std::string, std::string> gray_progressive = {{"jpeg:progressive", "1"}};
    Libjpeg arith, arith_progressive, restart, restart_rows, s440, stored_rgb, gray_arith, odd422;
    arith.arithmetic = true;
    arith_progressive.arithmetic = arith_progressive.progressive = true;
    arith_progressive.factors = s444;
    restart.restart_mcus = 1;
    restart_rows.restart_rows = 1;
    restart_rows.progressive = true;
    s440.factors = {{1, 2}, {1, 1}, {1, 1}};
    stored_rgb.stored = JCS_RGB;
    gray_arith.input = gray_arith.stored = JCS_GRAYSCALE;
    gray_arith.arithmetic = true;
    gray_arith.restart_mcus = 3;
    odd422.factors = {{2, 2}, {1, 2}, {1, 2}};  // 4:2:2 written with both luma factors 2
    using P = PixelFormat;
    return {
        {"q90_420_natural", P::rgb8, 37, 23, Pattern::natural, q(90, "4:2:0"), {}, {0xC0, s420}},
        {"q90_422_random", P::rgb8, 61, 33, Pattern::random, q(90, "4:2:2"), {}, {0xC0, {{2, 1}, {1, 1}, {1, 1}}}},
        {"q100_444_random", P::rgb8, 17, 9, Pattern::random, q(100, "4:4:4"), {}, {0xC0, s444}},
        {"q75_411_natural", P::rgb8, 203, 7, Pattern::natural, q(75, "4:1:1"), {}, {0xC0, {{4, 1}, {1, 1}, {1, 1}}}},
        {"q30_420_smooth", P::rgb8, 96, 64, Pattern::constant, q(30, "4:2:0"), {}, {0xC0, s420}},
        {"1x1", P::rgb8, 1, 1, Pattern::random, q(90, "4:2:0"), {}, {0xC0, s420}},
        {"1x17", P::rgb8, 1, 17, Pattern::random, q(90, "4:2:2"), {}, {0xC0, {{2, 1}, {1, 1}, {1, 1}}}},
        {"17x1", P::rgb8, 17, 1, Pattern::natural, q(90, "4:2:0"), {}, {0xC0, s420}},
        {"writer_defaults", P::rgb8, 130, 97, Pattern::natural, {}, {}, {0xC0, s420}},
        {"progressive_420", P::rgb8, 64, 48, Pattern::random, progressive, {}, {0xC2, s420}},
        {"progressive_444", P::rgb8, 33, 65, Pattern::natural, progressive444, {}, {0xC2, s444}},
        {"gray", P::gray8, 45, 31, Pattern::natural, q(90, "4:2:0"), {}, {0xC0, {{1, 1}}}},
        {"gray_progressive", P::gray8, 30, 21, Pattern::random, gray_progressive, {}, {0xC2, {{1, 1}}}},
        {"arithmetic_420", P::rgb8, 50, 30, Pattern::natural, {}, arith, {0xC9, s420}},
        {"arithmetic_progressive_444", P::rgb8, 41, 19, Pattern::random, {}, arith_progressive, {0xCA, s444}},
        {"restart_every_mcu", P::rgb8, 70, 35, Pattern::random, {}, restart, {0xC0, s420, true}},
        {"restart_every_row_progressive", P::rgb8, 70, 35, Pattern::natural, {}, restart_rows, {0xC2, s420, true}},
        {"440", P::rgb8, 39, 41, Pattern::natural, {}, s440, {0xC0, {{1, 2}, {1, 1}, {1, 1}}}},
        {"422_with_luma_2x2", P::rgb8, 39, 41, Pattern::random, {}, odd422, {0xC0, {{2, 2}, {1, 2}, {1, 2}}}},
        {"stored_rgb", P::rgb8, 29, 13, Pattern::random, {}, stored_rgb, {0xC0, s444}},
        {"gray_arithmetic_restarts", P::gray8, 27, 40, Pattern::natural, {}, gray_arith, {0xC9, {{1, 1}}, true}},
    };
}

std::string write_case(const std::string& file, const JpegCase& c) {
    const auto image = imghist::testing::make_image(c.pixels, c.width, c.height, c.pattern, 11);
    if (c.libjpeg) write_libjpeg(file, image.view, *c.libjpeg);
    else imghist::cli_test::write_oiio(file, image.view, c.oiio);
    return slurp(file);
}

TEST_F(JpegTest, TurboJpegGivesOpenImageIosPixelsByteForByte) {
    for (const JpegCase& c : clean_cases()) {
        const std::string file = path(c.name + ".jpg");
        const Frame frame = frame_of(write_case(file, c));
        EXPECT_EQ(frame, c.frame) << c.name << ": the file holds " << describe(frame);
        const Read oiio = by_oiio(file);
        ASSERT_TRUE(oiio.image) << c.name << ": " << oiio.error;
        EXPECT_EQ(oiio.image->view.format, c.pixels) << c.name;
        const Read turbo{by_turbojpeg(file), ""};
        ASSERT_TRUE(turbo.image) << c.name << ": TurboJPEG left the file to OpenImageIO";
        expect_same(turbo, oiio, c.name + " (TurboJPEG)");
        expect_same(by_read_image(file), oiio, c.name + " (read_image)");
    }
}

// EXIF orientation, an ICC profile and a comment change nothing: both give the stored pixels.
TEST_F(JpegTest, MetadataLeavesTheStoredPixels) {
    const auto image = imghist::testing::make_image(PixelFormat::rgb8, 40, 24, Pattern::natural, 3);
    OIIO::ImageSpec spec(40, 24, 3, OIIO::TypeDesc::UINT8);
    spec.attribute("Orientation", 6);
    const std::vector<unsigned char> icc(300, 7);  // not a valid profile: OpenImageIO keeps the bytes
    spec.attribute("ICCProfile", OIIO::TypeDesc(OIIO::TypeDesc::UINT8, int(icc.size())), icc.data());
    spec.attribute("ImageDescription", "a comment");
    const std::string file = path("metadata.jpg");
    auto out = OIIO::ImageOutput::create(file);
    ASSERT_TRUE(out && out->open(file, spec)) << OIIO::geterror();
    ASSERT_TRUE(out->write_image(OIIO::TypeDesc::UINT8, image.view.data));
    ASSERT_TRUE(out->close());
    const std::string bytes = slurp(file);
    EXPECT_TRUE(contains(bytes, std::string("Exif\0\0", 6)) && contains(bytes, "ICC_PROFILE")) << "metadata not written";
    const Read oiio = by_oiio(file);
    ASSERT_TRUE(oiio.image) << oiio.error;
    const Read turbo{by_turbojpeg(file), ""};
    ASSERT_TRUE(turbo.image);
    expect_same(turbo, oiio, "metadata");
}

TEST_F(JpegTest, TheReaderVersionNamesTurboJpeg) {
    EXPECT_TRUE(contains(imghist::io::reader_version(), "TurboJPEG")) << imghist::io::reader_version();
}

// The pixels go straight into the allocator's memory, which is asked for once.
TEST_F(JpegTest, DecodesIntoTheAllocatorsMemory) {
    const std::string file = path("alloc.jpg");
    write_case(file, clean_cases()[0]);
    int calls = 0;
    const std::byte* given = nullptr;
    const LoadedImage image = read_image(file, {}, [&](std::size_t bytes) {
        ++calls;
        auto p = imghist::io::allocate_on_heap(bytes);
        given = p.get();
        return p;
    });
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(image.view.data, given);
    EXPECT_EQ(image.pixels.get(), given);
}

// Decoders run on many threads, each with its own TurboJPEG handle.
TEST_F(JpegTest, ThreadsDecodeAlike) {
    const std::vector<JpegCase> cases = clean_cases();
    std::vector<std::string> files;
    std::vector<Read> want;
    for (std::size_t i = 0; i < cases.size(); i += 4) {
        files.push_back(path("threads_" + cases[i].name + ".jpg"));
        write_case(files.back(), cases[i]);
        want.push_back(by_oiio(files.back()));
    }
    std::atomic<int> differ{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int round = 0; round < 10; ++round)
                for (std::size_t i = 0; i < files.size(); ++i) {
                    const Read got = by_read_image(files[(i + std::size_t(t)) % files.size()]);
                    const Read& w = want[(i + std::size_t(t)) % files.size()];
                    if (!got.image || !w.image || differing_bytes(*got.image, *w.image) != 0) ++differ;
                }
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(differ.load(), 0);
}

// --- what TurboJPEG leaves to OpenImageIO ------------------------------------------------------

// Where TurboJPEG stops, read_image() gives exactly OpenImageIO's answer.
void expect_left_to_oiio(const std::string& file, const std::string& what, const ReadOptions& options = {}) {
    EXPECT_FALSE(by_turbojpeg(file, options).has_value()) << what << ": TurboJPEG decoded it";
    expect_same(by_read_image(file, options), by_oiio(file, options), what);
}

TEST_F(JpegTest, CmykAndYcckAreLeftToOpenImageIo) {
    const auto image = imghist::testing::make_image(PixelFormat::rgba8, 24, 16, Pattern::natural, 5);
    for (J_COLOR_SPACE stored : {JCS_CMYK, JCS_YCCK}) {
        const std::string file = path(stored == JCS_CMYK ? "cmyk.jpg" : "ycck.jpg");
        write_libjpeg(file, image.view, {.input = JCS_CMYK, .stored = stored});
        expect_left_to_oiio(file, file);
    }
    const std::string repro = (kRepro / "cmyk_silently_converted.jpg").string();
    expect_left_to_oiio(repro, repro);
    EXPECT_TRUE(contains(by_read_image(repro).error, "CMYK"));
}

// Sampling factors TurboJPEG has no name for (luma 3 x 1) are OpenImageIO's to decode.
TEST_F(JpegTest, UnnamedSamplingIsLeftToOpenImageIo) {
    const auto image = imghist::testing::make_image(PixelFormat::rgb8, 31, 9, Pattern::natural, 6);
    const std::string file = path("sampling_3x1.jpg");
    write_libjpeg(file, image.view, {.factors = {{3, 1}, {1, 1}, {1, 1}}});
    EXPECT_EQ(frame_of(slurp(file)).factors[0], (std::pair<int, int>{3, 1}));
    expect_left_to_oiio(file, "3x1");
    EXPECT_TRUE(by_read_image(file).image.has_value());
}

// A progressive file of more than 500 scans: TurboJPEG stops at the 501st (TJFLAG_LIMITSCANS)
// and OpenImageIO decodes it. Here 568: the DC, then each AC coefficient of each component
// alone, in three steps of successive approximation.
TEST_F(JpegTest, FilesOfMoreThan500ScansAreLeftToOpenImageIo) {
    Libjpeg many;
    many.factors = {{1, 1}, {1, 1}, {1, 1}};
    many.scans.push_back({3, {0, 1, 2, 0}, 0, 0, 0, 0});
    for (int component = 0; component < 3; ++component)
        for (int k = 1; k < 64; ++k)
            for (auto [ah, al] : {std::pair{0, 2}, {2, 1}, {1, 0}}) many.scans.push_back({1, {component}, k, k, ah, al});
    const auto image = imghist::testing::make_image(PixelFormat::rgb8, 16, 16, Pattern::random, 8);
    write_libjpeg(path("568_scans.jpg"), image.view, many);
    const std::string bytes = slurp(path("568_scans.jpg"));
    std::size_t scans = 0;  // entropy-coded data never holds FF DA: its FF bytes are stuffed
    for (std::size_t at = 0; (at = bytes.find("\xFF\xDA", at)) != std::string::npos; ++at) ++scans;
    EXPECT_EQ(scans, 568u);
    expect_left_to_oiio(path("568_scans.jpg"), "568 scans");
    EXPECT_TRUE(by_read_image(path("568_scans.jpg")).image.has_value());
}

// Truncated and corrupt files: TurboJPEG warns or fails, and OpenImageIO's error is the answer.
TEST_F(JpegTest, TruncatedAndCorruptFilesGiveOpenImageIosError) {
    const std::string good = write_case(path("good.jpg"), clean_cases()[1]);
    const std::string progressive = write_case(path("good_progressive.jpg"), clean_cases()[9]);
    const auto write = [&](const std::string& name, const std::string& bytes) {
        write_bytes(path(name), bytes);
        return path(name);
    };
    std::vector<std::string> errors;  // files that must be errors
    for (double keep : {0.1, 0.5, 0.9}) {
        errors.push_back(write("trunc_" + std::to_string(int(keep * 100)) + ".jpg", good.substr(0, std::size_t(keep * good.size()))));
        errors.push_back(write("trunc_progressive_" + std::to_string(int(keep * 100)) + ".jpg",
                               progressive.substr(0, std::size_t(keep * progressive.size()))));
    }
    errors.push_back(write("header_only.jpg", good.substr(0, sos_at(good))));
    {  // a restart marker inside the scan of a file that has no restart interval
        const std::size_t mid = (sos_at(good) + good.size()) / 2;
        errors.push_back(write("stray_rst.jpg", good.substr(0, mid) + "\xFF\xD3" + good.substr(mid)));
    }
    {  // a zero-width frame
        std::string b = good;
        b[sof_at(b) + 7] = b[sof_at(b) + 8] = 0;
        errors.push_back(write("zero_width.jpg", b));
    }
    {  // 12-bit samples: the 8-bit libjpeg-turbo refuses them
        std::string b = good;
        b[sof_at(b) + 4] = 12;
        errors.push_back(write("12bit.jpg", b));
    }
    {  // lossless (SOF3), which libjpeg-turbo 2 does not decode
        std::string b = good;
        b[sof_at(b) + 1] = char(0xC3);
        errors.push_back(write("lossless.jpg", b));
    }
    for (const std::string& file : errors) {
        expect_left_to_oiio(file, file);
        EXPECT_NE(by_read_image(file).error, "") << file << " was read";
    }
    // Damage OpenImageIO may or may not notice: whatever it says, read_image() says too.
    for (const auto& [name, bytes] : std::vector<std::pair<std::string, std::string>>{
             {"no_end_marker.jpg", good.substr(0, good.size() - 2)},
             {"one_byte_short.jpg", good.substr(0, good.size() - 1)},
             {"garbage_after_end.jpg", good + "garbage"}}) {
        const std::string file = write(name, bytes);
        expect_same(by_read_image(file), by_oiio(file), name);
    }
}

// A failure leaves the thread's next file unharmed: TurboJPEG 2.1 keeps a handle that failed in
// a header mid-header, and would refuse every later file with it.
TEST_F(JpegTest, AFailureDoesNotHarmTheNextFile) {
    const std::string good = write_case(path("next_good.jpg"), clean_cases()[0]);
    write_bytes(path("next_header_only.jpg"), good.substr(0, sos_at(good)));
    write_bytes(path("next_truncated.jpg"), good.substr(0, good.size() / 2));
    for (const char* bad : {"next_header_only.jpg", "next_truncated.jpg"}) {
        EXPECT_FALSE(by_turbojpeg(path(bad)).has_value()) << bad;
        EXPECT_TRUE(by_turbojpeg(path("next_good.jpg")).has_value()) << "after " << bad;
    }
}

// --- the size guard and the memory bound -------------------------------------------------------

TEST_F(JpegTest, MaxPixelsIsCheckedFromTheHeaderBeforeDecoding) {
    const std::string good = write_case(path("limit.jpg"), clean_cases()[0]);  // 37 x 23
    const ReadOptions limit{37 * 23 - 1};
    int calls = 0;
    const auto counting = [&](std::size_t bytes) {
        ++calls;
        return imghist::io::allocate_on_heap(bytes);
    };
    const std::string want = by_oiio(path("limit.jpg"), limit).error;
    EXPECT_TRUE(contains(want, "exceeds the limit")) << want;
    EXPECT_EQ(attempt([&] { return reading::read_jpeg(path("limit.jpg"), good.size(), limit, counting); }).error, want);
    EXPECT_EQ(attempt([&] { return read_image(path("limit.jpg"), limit, counting); }).error, want);
    EXPECT_EQ(calls, 0);
    EXPECT_TRUE(by_turbojpeg(path("limit.jpg"), ReadOptions{37 * 23}).has_value());
    // A header that claims 65000 x 65000 in a file of a few hundred bytes.
    std::string huge = good;
    const std::size_t sof = sof_at(huge);
    huge[sof + 5] = huge[sof + 7] = char(0xFD);
    huge[sof + 6] = huge[sof + 8] = char(0xE8);
    write_bytes(path("huge.jpg"), huge);
    const std::string refused =
        attempt([&] { return reading::read_jpeg(path("huge.jpg"), huge.size(), ReadOptions{1u << 28}, counting); }).error;
    EXPECT_TRUE(contains(refused, "65000 x 65000")) << refused;
    EXPECT_EQ(calls, 0);
}

// A file larger than the pixels the limit allows (4 bytes a pixel, plus 4 MiB) is not held in
// memory: OpenImageIO streams it. Here 80 markers of 64 KiB ahead of a 37 x 23 image.
TEST_F(JpegTest, FilesLargerThanTheLimitAllowsStreamThroughOpenImageIo) {
    const std::string good = write_case(path("small.jpg"), clean_cases()[0]);
    std::string padded = good.substr(0, 2);
    const std::string segment = std::string("\xFF\xEF\xFF\xFF", 4) + std::string(0xFFFF - 2, 'x');
    for (int i = 0; i < 80; ++i) padded += segment;
    padded += good.substr(2);
    write_bytes(path("padded.jpg"), padded);
    ASSERT_GT(padded.size(), std::size_t(5) << 20);
    expect_left_to_oiio(path("padded.jpg"), "padded, limit 10,000 pixels", ReadOptions{10000});
    const Read turbo{by_turbojpeg(path("padded.jpg"), ReadOptions{0}), ""};
    ASSERT_TRUE(turbo.image) << "without a limit the file is held in memory";
    expect_same(turbo, by_oiio(path("padded.jpg")), "padded, no limit");
}

}  // namespace
