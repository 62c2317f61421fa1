// End-to-end tests of the imghist command line on every input format it reads (files written
// with OpenImageIO, and PFM, 16-bit PPM and PNG by hand), semi-transparent and indexed PNG, and
// bad files, which are reported while the good ones are still counted. The counts are checked
// against the reference backend computing the same pixels.
#include <gtest/gtest.h>

#include <OpenImageIO/imageio.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "imghist/imghist.hpp"
#include "cli_files.hpp"
#include "cli_support.hpp"
#include "test_images.hpp"

namespace fs = std::filesystem;
namespace OIIO = OIIO_NAMESPACE;
using json = nlohmann::json;
using imghist::PixelFormat;

namespace {

using imghist::cli_test::CliTest;
using imghist::cli_test::expect_matches;
using imghist::cli_test::find_result;
using imghist::cli_test::reference;
using imghist::cli_test::slurp;
using imghist::cli_test::write_bytes;
using imghist::cli_test::write_oiio;
using Outcome = imghist::cli_test::CommandRun;

// PFM by hand (this OpenImageIO writes no PFM): little-endian floats, rows bottom to top.
void write_pfm(const std::string& file, const imghist::ImageView& v) {
    const int ch = v.info().channels;
    std::string s = std::string(ch == 3 ? "PF" : "Pf") + "\n" + std::to_string(v.width) + " " +
                    std::to_string(v.height) + "\n-1.0\n";
    for (std::uint32_t y = v.height; y-- > 0;)
        s.append(reinterpret_cast<const char*>(v.row(y)), v.row_bytes());
    write_bytes(file, s);
}

// 16-bit PPM by hand (this OpenImageIO writes PNM at 8 bits): big-endian samples.
void write_ppm16(const std::string& file, const imghist::ImageView& v) {
    std::string s = "P6\n" + std::to_string(v.width) + " " + std::to_string(v.height) + "\n65535\n";
    for (std::uint32_t y = 0; y < v.height; ++y) {
        const auto* p = reinterpret_cast<const std::uint16_t*>(v.row(y));
        for (std::size_t i = 0; i < std::size_t(v.width) * 3; ++i) {
            s += char(p[i] >> 8);
            s += char(p[i] & 0xFF);
        }
    }
    write_bytes(file, s);
}

// PNG by hand, so its bytes are known exactly: stored (uncompressed) deflate blocks.
std::uint32_t crc32(const std::string& data) {
    std::uint32_t c = 0xFFFFFFFFu;
    for (unsigned char b : data) {
        c ^= b;
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}
std::string be32(std::uint32_t v) {
    return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
}
std::string png_chunk(const std::string& tag, const std::string& data) {
    return be32(std::uint32_t(data.size())) + tag + data + be32(crc32(tag + data));
}
// colour_type: 2 RGB, 3 palette, 6 RGBA; rows are raw samples without the filter byte.
std::string make_png(std::uint32_t w, std::uint32_t h, int colour_type, const std::vector<std::string>& rows,
                     const std::string& palette = {}) {
    std::string raw;
    for (const auto& r : rows) raw += '\0' + r;
    std::string z = "\x78\x01";
    std::size_t pos = 0;
    do {
        const std::size_t n = std::min<std::size_t>(65535, raw.size() - pos);
        const bool last = pos + n == raw.size();
        z += char(last ? 1 : 0);
        z += char(n & 0xFF);
        z += char(n >> 8);
        z += char(~n & 0xFF);
        z += char((~n >> 8) & 0xFF);
        z += raw.substr(pos, n);
        pos += n;
    } while (pos < raw.size());
    std::uint32_t a = 1, b = 0;
    for (unsigned char c : raw) {
        a = (a + c) % 65521;
        b = (b + a) % 65521;
    }
    z += be32((b << 16) | a);
    std::string ihdr = be32(w) + be32(h) + std::string{8, char(colour_type), 0, 0, 0};
    std::string png = "\x89PNG\r\n\x1a\n" + png_chunk("IHDR", ihdr);
    if (!palette.empty()) png += png_chunk("PLTE", palette);
    return png + png_chunk("IDAT", z) + png_chunk("IEND", "");
}


// Reads a file back with OpenImageIO in its own sample type (as the command must).
struct ReadBack {
    std::vector<std::byte> pixels;
    imghist::ImageView view;
};
ReadBack read_back(const std::string& file) {
    OIIO::ImageSpec config;
    config.attribute("oiio:UnassociatedAlpha", 1);
    auto in = OIIO::ImageInput::open(file, &config);
    EXPECT_TRUE(in) << OIIO::geterror();
    ReadBack rb;
    if (!in) return rb;
    const auto& spec = in->spec();
    int kind = 0;
    switch (spec.format.basetype) {
        case OIIO::TypeDesc::UINT8: kind = 0; break;
        case OIIO::TypeDesc::UINT16: kind = 1; break;
        case OIIO::TypeDesc::HALF: kind = 2; break;
        default: kind = 3; break;
    }
    static constexpr PixelFormat table[4][3] = {
        {PixelFormat::gray8, PixelFormat::rgb8, PixelFormat::rgba8},
        {PixelFormat::gray16, PixelFormat::rgb16, PixelFormat::rgba16},
        {PixelFormat::gray_f16, PixelFormat::rgb_f16, PixelFormat::rgba_f16},
        {PixelFormat::gray_f32, PixelFormat::rgb_f32, PixelFormat::rgba_f32},
    };
    const PixelFormat f = table[kind][spec.nchannels == 1 ? 0 : spec.nchannels == 3 ? 1 : 2];
    const OIIO::TypeDesc t = kind == 0 ? OIIO::TypeDesc::UINT8
                             : kind == 1 ? OIIO::TypeDesc::UINT16
                             : kind == 2 ? OIIO::TypeDesc::HALF
                                         : OIIO::TypeDesc::FLOAT;
    rb.pixels.resize(std::size_t(spec.width) * spec.height * imghist::format_info(f).pixel_bytes());
    EXPECT_TRUE(in->read_image(0, 0, 0, spec.nchannels, t, rb.pixels.data())) << in->geterror();
    rb.view = imghist::ImageView::packed(rb.pixels.data(), spec.width, spec.height, f);
    return rb;
}

bool same_pixels(const imghist::ImageView& a, const imghist::ImageView& b) {
    if (a.width != b.width || a.height != b.height || a.format != b.format) return false;
    for (std::uint32_t y = 0; y < a.height; ++y)
        if (std::memcmp(a.row(y), b.row(y), a.row_bytes()) != 0) return false;
    return true;
}

struct FormatCase {
    std::string name;      // file name; the extension picks the writer
    PixelFormat pixels;    // what the test generates
    std::string expected;  // the format the command must report
    bool lossless;         // the file must read back bit for bit
    imghist::testing::Pattern pattern = imghist::testing::Pattern::natural;
    std::map<std::string, std::string> attrs = {};
    imghist::testing::TestImage image() const { return imghist::testing::make_image(pixels, 37, 23, pattern, 5); }
};

// Every format written with OpenImageIO.
std::vector<FormatCase> oiio_cases() {
    using imghist::testing::Pattern;
    return {
        {"rgb8.png", PixelFormat::rgb8, "rgb8", true, Pattern::random},
        {"rgba8.png", PixelFormat::rgba8, "rgba8", true, Pattern::random},
        {"gray8.png", PixelFormat::gray8, "gray8", true},
        {"rgb16.png", PixelFormat::rgb16, "rgb16", true, Pattern::random},
        {"gray16.png", PixelFormat::gray16, "gray16", true},
        {"rgb8.jpg", PixelFormat::rgb8, "rgb8", false},
        {"gray8.jpg", PixelFormat::gray8, "gray8", false},
        {"rgb8.tif", PixelFormat::rgb8, "rgb8", true, Pattern::random},
        {"rgba16.tif", PixelFormat::rgba16, "rgba16", true, Pattern::random},
        {"rgbf32.tif", PixelFormat::rgb_f32, "rgb_f32", true, Pattern::specials},
        {"rgbf16.exr", PixelFormat::rgb_f16, "rgb_f16", true, Pattern::specials},
        {"rgbaf32.exr", PixelFormat::rgba_f32, "rgba_f32", true, Pattern::specials},
        {"rgbf32.exr", PixelFormat::rgb_f32, "rgb_f32", true, Pattern::natural},
        {"rgb8.ppm", PixelFormat::rgb8, "rgb8", true, Pattern::random},
        {"gray8.pgm", PixelFormat::gray8, "gray8", true, Pattern::random},
        {"rgbf32.hdr", PixelFormat::rgb_f32, "rgb_f32", false},
        {"rgb8.bmp", PixelFormat::rgb8, "rgb8", true, Pattern::random},
        {"rgb8.webp", PixelFormat::rgb8, "rgb8", false},
    };
}

// The files written by hand: PFM, colour and gray, and 16-bit PPM.
struct ByHandCase {
    std::string name;
    PixelFormat pixels;
    std::string expected;  // the format the command must report
    imghist::testing::Pattern pattern;
    std::uint64_t seed;
    void (*write)(const std::string&, const imghist::ImageView&);
    imghist::testing::TestImage image() const { return imghist::testing::make_image(pixels, 19, 11, pattern, seed); }
};
const ByHandCase kByHand[] = {
    {"rgb.pfm", PixelFormat::rgb_f32, "rgb_f32", imghist::testing::Pattern::specials, 6, write_pfm},
    {"gray.pfm", PixelFormat::gray_f32, "gray_f32", imghist::testing::Pattern::natural, 7, write_pfm},
    {"rgb16.ppm", PixelFormat::rgb16, "rgb16", imghist::testing::Pattern::random, 8, write_ppm16},
};

// The command's result for `file`, written from case `c`: its format, size and backend, and
// the counts of what the file holds, which are the written pixels when the format is lossless.
void expect_oiio_result(const json& doc, const FormatCase& c, const std::string& file, const imghist::Request& req) {
    const json* got = find_result(doc, file);
    ASSERT_TRUE(got);
    EXPECT_EQ((*got)["format"], c.expected);
    EXPECT_EQ((*got)["width"], 37);
    EXPECT_EQ((*got)["height"], 23);
    EXPECT_EQ((*got)["backend"], "cpu");
    const ReadBack rb = read_back(file);
    if (c.lossless) EXPECT_TRUE(same_pixels(rb.view, c.image().view)) << "the file does not hold the written pixels";
    expect_matches((*got)["histograms"], reference(rb.view, req), c.name);
}

TEST_F(CliTest, EveryFormatMatchesTheReference) {
    const std::vector<FormatCase> cases = oiio_cases();
    std::vector<std::string> files;
    for (const auto& c : cases) {
        write_oiio(path(c.name), c.image().view, c.attrs);
        files.push_back(path(c.name));
    }
    for (const ByHandCase& b : kByHand) {
        b.write(path(b.name), b.image().view);
        files.push_back(path(b.name));
    }

    std::vector<std::string> args = {"--format", "json", "--backend", "cpu", "--alpha"};
    args.insert(args.end(), files.begin(), files.end());
    const Outcome r = run(args);
    ASSERT_EQ(r.status, 0) << r.err;
    const json doc = r.doc();
    EXPECT_TRUE(doc["errors"].empty()) << doc["errors"].dump();
    EXPECT_FALSE(doc.contains("sum"));
    ASSERT_EQ(doc["results"].size(), files.size());

    imghist::Request req;
    req.count_alpha = true;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        SCOPED_TRACE(cases[i].name);
        expect_oiio_result(doc, cases[i], files[i], req);
    }
    for (const ByHandCase& b : kByHand) {
        SCOPED_TRACE(b.name);
        const json* got = find_result(doc, path(b.name));
        ASSERT_TRUE(got);
        EXPECT_EQ((*got)["format"], b.expected);
        expect_matches((*got)["histograms"], reference(b.image().view, req), b.name);
    }
    // Float specials reach the JSON: NaN, below and above are reported.
    const json* exr = find_result(doc, path("rgbf16.exr"));
    ASSERT_TRUE(exr);
    EXPECT_GT((*exr)["histograms"]["R"]["nan"].get<std::uint64_t>(), 0u);
    EXPECT_GT((*exr)["histograms"]["R"]["above"].get<std::uint64_t>(), 0u);
    EXPECT_EQ((*exr)["histograms"]["R"]["bins"], 257);
}

TEST_F(CliTest, SemiTransparentPngIsNotPremultiplied) {
    // Every pixel is (200, 100, 50) at alpha 128, except one fully transparent (10, 250, 30).
    const std::uint32_t w = 8, h = 4;
    std::vector<std::string> rows;
    for (std::uint32_t y = 0; y < h; ++y) {
        std::string row;
        for (std::uint32_t x = 0; x < w; ++x)
            row += (x == 0 && y == 0) ? std::string{10, char(250), 30, 0} : std::string{char(200), 100, 50, char(128)};
        rows.push_back(row);
    }
    write_bytes(path("alpha.png"), make_png(w, h, 6, rows));
    const Outcome r = run({"--format", "json", "--alpha", path("alpha.png")});
    ASSERT_EQ(r.status, 0) << r.err;
    const json doc = r.doc();
    ASSERT_EQ(doc["results"].size(), 1u);
    const json& hist = doc["results"][0]["histograms"];
    EXPECT_EQ(doc["results"][0]["format"], "rgba8");
    EXPECT_EQ(hist["R"]["counts"][200], w * h - 1);
    EXPECT_EQ(hist["G"]["counts"][100], w * h - 1);
    EXPECT_EQ(hist["B"]["counts"][50], w * h - 1);
    EXPECT_EQ(hist["R"]["counts"][10], 1);
    EXPECT_EQ(hist["G"]["counts"][250], 1);
    EXPECT_EQ(hist["A"]["counts"][128], w * h - 1);
    EXPECT_EQ(hist["A"]["counts"][0], 1);
    EXPECT_EQ(hist["R"]["counts"][100], 0) << "colour was premultiplied by alpha";
}

TEST_F(CliTest, IndexedPngExpandsToRgb) {
    const std::string palette = {char(255), 0, 0, 0, char(255), 0, 0, 0, char(255), char(128), char(128), char(128)};
    std::vector<std::string> rows;
    for (int y = 0; y < 3; ++y) rows.push_back(std::string{0, 1, 2, 3, 3, 3});  // indices
    write_bytes(path("indexed.png"), make_png(6, 3, 3, rows, palette));
    const Outcome r = run({"--format", "json", path("indexed.png")});
    ASSERT_EQ(r.status, 0) << r.err;
    const json res = r.doc()["results"][0];
    EXPECT_EQ(res["format"], "rgb8");
    EXPECT_EQ(res["histograms"]["R"]["counts"][255], 3);
    EXPECT_EQ(res["histograms"]["R"]["counts"][128], 9);
    EXPECT_EQ(res["histograms"]["R"]["counts"][0], 6);
    EXPECT_EQ(res["histograms"]["G"]["counts"][255], 3);
    EXPECT_EQ(res["histograms"]["Y"]["counts"][128], 9);
}

// Damaged, empty, missing and oversized files in `dir`, made from good.png, big.jpg, big.tif and
// big.exr there: file -> a word its error must contain.
std::map<std::string, std::string> write_bad_files(const fs::path& dir) {
    std::map<std::string, std::string> bad;
    const auto path = [&](const std::string& name) { return (dir / name).string(); };
    const auto truncate = [&](const std::string& src, const std::string& dst, double keep) {
        const std::string bytes = slurp(path(src));
        write_bytes(path(dst), bytes.substr(0, std::size_t(bytes.size() * keep)));
        bad[path(dst)] = "";
    };
    truncate("good.png", "trunc.png", 0.6);
    truncate("big.jpg", "trunc.jpg", 0.5);
    truncate("big.tif", "trunc.tif", 0.5);
    truncate("big.exr", "trunc.exr", 0.6);
    {  // corrupt: PNG whose pixel data is damaged (bad CRC and garbage deflate)
        std::string bytes = slurp(path("good.png"));
        for (std::size_t i = bytes.size() / 2; i < bytes.size() / 2 + 64; ++i) bytes[i] = char(i * 37);
        write_bytes(path("corrupt.png"), bytes);
        bad[path("corrupt.png")] = "";
    }
    {  // corrupt: zip-compressed TIFF with garbage in its strips
        std::string bytes = slurp(path("big.tif"));
        for (std::size_t i = 300; i < 1300 && i < bytes.size(); ++i) bytes[i] = char(i * 131);
        write_bytes(path("corrupt.tif"), bytes);
        bad[path("corrupt.tif")] = "";
    }
    write_bytes(path("text.png"), "this is not an image\n");
    bad[path("text.png")] = "";
    write_bytes(path("empty.jpg"), "");
    bad[path("empty.jpg")] = "empty";
    bad[path("missing.png")] = "no such file";
    write_bytes(path("zero.ppm"), "P6\n0 0\n255\n");
    bad[path("zero.ppm")] = "";
    write_bytes(path("huge.ppm"), "P6\n200000 200000\n255\n");  // no pixel data at all
    bad[path("huge.ppm")] = "max-pixels";
    return bad;
}

TEST_F(CliTest, BadFilesAreReportedAndGoodOnesStillCounted) {
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 64, 48, imghist::testing::Pattern::random, 9);
    write_oiio(path("good.png"), img.view);
    write_oiio(path("big.jpg"), img.view);
    write_oiio(path("big.tif"), img.view, {{"compression", "zip"}});
    const auto fimg = imghist::testing::make_image(PixelFormat::rgb_f16, 64, 48, imghist::testing::Pattern::random, 9);
    write_oiio(path("big.exr"), fimg.view);

    const std::map<std::string, std::string> bad = write_bad_files(dir_);
    // Gray + alpha and 5-channel R,G,B,A,... files are read now (tests/cli/test_reader.cpp).

    std::vector<std::string> args = {"--format", "json", path("good.png")};
    for (const auto& [f, _] : bad) args.push_back(f);
    const auto runs = run_all({args, std::vector<std::string>(args.begin() + 2, args.end()),
                               {"--format", "json", path("trunc.exr")}});
    const Outcome& r = runs[0];
    EXPECT_EQ(r.status, 1) << r.err;
    const json doc = r.doc();
    ASSERT_EQ(doc["results"].size(), 1u) << doc["results"].dump().substr(0, 300);
    EXPECT_EQ(doc["results"][0]["file"], path("good.png"));
    expect_matches(doc["results"][0]["histograms"], reference(img.view), "good.png");
    ASSERT_EQ(doc["errors"].size(), bad.size()) << doc["errors"].dump();
    for (const auto& e : doc["errors"]) {
        const std::string file = e["file"], msg = e["error"];
        ASSERT_TRUE(bad.count(file)) << file;
        EXPECT_FALSE(msg.empty()) << file;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << file << ": " << msg;
        EXPECT_NE(msg.find(bad.at(file)), std::string::npos) << file << ": " << msg;
    }

    // The table names each failed file on stderr, one line each, and still prints the good one.
    const Outcome& t = runs[1];
    EXPECT_EQ(t.status, 1);
    EXPECT_NE(t.out.find("good.png"), std::string::npos);
    for (const auto& [f, _] : bad) EXPECT_NE(t.err.find("imghist: " + f + ": "), std::string::npos) << f << "\n" << t.err;

    // A bad file alone: exit 1, no result, one error.
    EXPECT_EQ(runs[2].status, 1);
    EXPECT_TRUE(runs[2].doc()["results"].empty());
    EXPECT_EQ(runs[2].doc()["errors"].size(), 1u);
}

TEST_F(CliTest, MaxPixelsIsCheckedFromTheHeader) {
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 40, 30, imghist::testing::Pattern::natural, 1);
    write_oiio(path("small.png"), img.view);
    const auto r = run_all({{"--format", "json", "--max-pixels", "1199", path("small.png")},
                            {"--format", "json", "--max-pixels", "1200", path("small.png"), path("small.png")}});
    EXPECT_EQ(r[0].status, 1);
    ASSERT_EQ(r[0].doc()["errors"].size(), 1u);
    EXPECT_NE(r[0].doc()["errors"][0]["error"].get<std::string>().find("1200 pixels"), std::string::npos);
    EXPECT_EQ(r[1].status, 0) << r[1].err;
}

}  // namespace
