// End-to-end tests of the imghist command line. Every test writes its input files, runs the
// built binary, parses its JSON, and checks the counts against the reference backend computing
// the same pixels.
#include <gtest/gtest.h>

#include <OpenImageIO/imageio.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cstdint>
#include <future>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "imghist/imghist.hpp"
#include "cli_support.hpp"
#include "oiio_sample_type.hpp"
#include "test_images.hpp"

namespace fs = std::filesystem;
namespace OIIO = OIIO_NAMESPACE;
using json = nlohmann::json;
using imghist::PixelFormat;

namespace {

// --- running the binary ----------------------------------------------------------------------

using imghist::cli_test::expect_matches;
using imghist::cli_test::slurp;
using Outcome = imghist::cli_test::CommandRun;

class CliTest : public imghist::cli_test::ScratchDirTest {
protected:
    // Each run pays OpenImageIO's start-up (~0.3 s), so independent runs go side by side.
    static std::vector<Outcome> run_all(const std::vector<std::vector<std::string>>& runs) {
        std::vector<std::future<Outcome>> futures;
        for (const auto& args : runs) futures.push_back(std::async(std::launch::async, [args] { return run(args); }));
        std::vector<Outcome> out;
        for (auto& f : futures) out.push_back(f.get());
        return out;
    }
};

// --- writing files ---------------------------------------------------------------------------

using imghist::cli_test::oiio_type;

void write_oiio(const std::string& file, const imghist::ImageView& v,
                const std::map<std::string, std::string>& attrs = {}) {
    const auto& fi = v.info();
    OIIO::ImageSpec spec(int(v.width), int(v.height), fi.channels, oiio_type(fi.sample));
    if (fi.channels == 4) spec.alpha_channel = 3;
    // Write the samples as given: no un-premultiplication on the way out.
    spec.attribute("oiio:UnassociatedAlpha", 1);
    for (const auto& [k, val] : attrs) spec.attribute(k, val);
    auto out = OIIO::ImageOutput::create(file);
    ASSERT_TRUE(out) << OIIO::geterror();
    ASSERT_TRUE(out->open(file, spec)) << out->geterror();
    ASSERT_TRUE(out->write_image(oiio_type(fi.sample), v.data, OIIO::AutoStride, OIIO::stride_t(v.stride_bytes)))
        << out->geterror();
    ASSERT_TRUE(out->close()) << out->geterror();
}

void write_bytes(const std::string& file, const std::string& bytes) {
    std::ofstream f(file, std::ios::binary);
    f.write(bytes.data(), std::streamsize(bytes.size()));
}

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

// --- the oracle ------------------------------------------------------------------------------

imghist::Result reference(const imghist::ImageView& v, const imghist::Request& req = {}) {
    return imghist::create_engine("reference")->compute(v, req);
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

const json* find_result(const json& doc, const std::string& file) {
    for (const auto& r : doc["results"])
        if (r["file"] == file) return &r;
    return nullptr;
}

// --- tests -----------------------------------------------------------------------------------

struct FormatCase {
    std::string name;      // file name; the extension picks the writer
    PixelFormat pixels;    // what the test generates
    std::string expected;  // the format the command must report
    bool lossless;         // the file must read back bit for bit
    imghist::testing::Pattern pattern = imghist::testing::Pattern::natural;
    std::map<std::string, std::string> attrs = {};
};

TEST_F(CliTest, EveryFormatMatchesTheReference) {
    using imghist::testing::Pattern;
    const std::vector<FormatCase> cases = {
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
    std::vector<std::string> files;
    for (const auto& c : cases) {
        const auto img = imghist::testing::make_image(c.pixels, 37, 23, c.pattern, 5);
        write_oiio(path(c.name), img.view, c.attrs);
        files.push_back(path(c.name));
    }
    // PFM (written by hand), colour and gray.
    const auto pf = imghist::testing::make_image(PixelFormat::rgb_f32, 19, 11, Pattern::specials, 6);
    write_pfm(path("rgb.pfm"), pf.view);
    const auto pfg = imghist::testing::make_image(PixelFormat::gray_f32, 19, 11, Pattern::natural, 7);
    write_pfm(path("gray.pfm"), pfg.view);
    const auto p16 = imghist::testing::make_image(PixelFormat::rgb16, 19, 11, Pattern::random, 8);
    write_ppm16(path("rgb16.ppm"), p16.view);
    files.push_back(path("rgb.pfm"));
    files.push_back(path("gray.pfm"));
    files.push_back(path("rgb16.ppm"));

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
        const json* got = find_result(doc, files[i]);
        ASSERT_TRUE(got);
        EXPECT_EQ((*got)["format"], cases[i].expected);
        EXPECT_EQ((*got)["width"], 37);
        EXPECT_EQ((*got)["height"], 23);
        EXPECT_EQ((*got)["backend"], "cpu");
        const ReadBack rb = read_back(files[i]);
        if (cases[i].lossless) {
            const auto img = imghist::testing::make_image(cases[i].pixels, 37, 23, cases[i].pattern, 5);
            EXPECT_TRUE(same_pixels(rb.view, img.view)) << "the file does not hold the written pixels";
        }
        expect_matches((*got)["histograms"], reference(rb.view, req), cases[i].name);
    }
    const std::vector<std::tuple<const imghist::testing::TestImage*, std::string, std::string>> by_hand = {
        {&pf, "rgb.pfm", "rgb_f32"}, {&pfg, "gray.pfm", "gray_f32"}, {&p16, "rgb16.ppm", "rgb16"}};
    for (const auto& [img, name, format] : by_hand) {
        SCOPED_TRACE(name);
        const json* got = find_result(doc, path(name));
        ASSERT_TRUE(got);
        EXPECT_EQ((*got)["format"], format);
        expect_matches((*got)["histograms"], reference(img->view, req), name);
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

TEST_F(CliTest, BadFilesAreReportedAndGoodOnesStillCounted) {
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 64, 48, imghist::testing::Pattern::random, 9);
    write_oiio(path("good.png"), img.view);
    write_oiio(path("big.jpg"), img.view);
    write_oiio(path("big.tif"), img.view, {{"compression", "zip"}});
    const auto fimg = imghist::testing::make_image(PixelFormat::rgb_f16, 64, 48, imghist::testing::Pattern::random, 9);
    write_oiio(path("big.exr"), fimg.view);

    std::map<std::string, std::string> bad;  // file -> a word its error must contain
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
        EXPECT_NE(msg.find(bad[file]), std::string::npos) << file << ": " << msg;
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

TEST_F(CliTest, UsageErrorsExitWithTwo) {
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 8, 8, imghist::testing::Pattern::natural, 1);
    write_oiio(path("u.png"), img.view);
    const std::string f = path("u.png");
    const std::vector<std::vector<std::string>> cases = {
        {},
        {"--no-such-option", f},
        {"--mode", "hsv", f},
        {"--bins", "0", f},
        {"--range", "5:1", f},
        {"--luma-weights", "1,2,3", f},
        {"--backend", "no-such-backend", f},
        {"--plot", "chart.jpg", f},
        {"--max-pixels", "lots", f},
    };
    const auto results = run_all(cases);
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto& args = cases[i];
        const Outcome& r = results[i];
        std::string joined;
        for (const auto& a : args) joined += a + " ";
        EXPECT_EQ(r.status, 2) << joined << "\n" << r.err;
        EXPECT_FALSE(r.err.empty()) << joined;
        EXPECT_TRUE(r.out.empty()) << joined;
    }
}

TEST_F(CliTest, HelpAndVersion) {
    const auto r = run_all({{"--help"}, {"--version"}});
    ASSERT_EQ(r[0].status, 0);
    for (const char* s : {"Exit status", "Examples", "--format", "json", "csv", "--plot", "--max-pixels", "--list-backends"})
        EXPECT_NE(r[0].out.find(s), std::string::npos) << s;
    EXPECT_EQ(r[1].status, 0);
    EXPECT_NE(r[1].out.find(std::string(imghist::version())), std::string::npos) << r[1].out;
}

TEST_F(CliTest, ListBackends) {
    const auto runs = run_all({{"--list-backends"}, {"--list-backends", "--format", "json"}});
    ASSERT_EQ(runs[0].status, 0) << runs[0].err;
    for (const imghist::Backend* b : imghist::backends())
        EXPECT_NE(runs[0].out.find(std::string(b->name())), std::string::npos);
    ASSERT_EQ(runs[1].status, 0);
    const json doc = runs[1].doc();
    ASSERT_EQ(doc["backends"].size(), imghist::backends().size());
    for (const auto& b : doc["backends"]) {
        EXPECT_TRUE(b["devices"].is_array());
        if (b["name"] == "cpu" || b["name"] == "reference") EXPECT_TRUE(b["available"].get<bool>());
    }
}

TEST_F(CliTest, ModesWeightsAndBackendsAgree) {
    const auto img = imghist::testing::make_image(PixelFormat::rgba16, 33, 17, imghist::testing::Pattern::random, 3);
    write_oiio(path("m.tif"), img.view);
    // Custom weights and a float range with values outside it (not clamped).
    const auto f = imghist::testing::make_image(PixelFormat::rgb_f32, 21, 13, imghist::testing::Pattern::specials, 4);
    write_oiio(path("f.exr"), f.view);
    const auto r = run_all({
        {"--format", "json", "--mode", "luma", "--luma-weights", "rec601", path("m.tif")},
        {"--format", "json", "--mode", "rgb", "--bins", "64", "--range", "1000:60000", "--clamp", "--backend",
         "reference", path("m.tif")},
        {"--format", "json", "--mode", "rgb", "--bins", "64", "--range", "1000:60000", "--clamp", "--backend", "auto",
         path("m.tif")},
        {"--format", "json", "--luma-weights", "3000,6000,1000", "--bins", "100", "--range=-0.5:0.5", path("f.exr")},
    });
    for (const auto& o : r) ASSERT_EQ(o.status, 0) << o.err;

    imghist::Request req;
    req.mode = imghist::Mode::luma;
    req.weights = imghist::LumaWeights::rec601();
    expect_matches(r[0].doc()["results"][0]["histograms"], reference(img.view, req), "luma rec601");
    EXPECT_EQ(r[0].doc()["results"][0]["histograms"].size(), 1u);  // Y only

    req = {};
    req.mode = imghist::Mode::rgb;
    req.bins.bins = 64;
    req.bins.range = {{1000, 60000}};
    req.bins.clamp = true;
    expect_matches(r[1].doc()["results"][0]["histograms"], reference(img.view, req), "reference backend");
    EXPECT_EQ(r[1].doc()["results"][0]["backend"], "reference");
    expect_matches(r[2].doc()["results"][0]["histograms"], reference(img.view, req), "auto backend");

    req = {};
    req.weights = imghist::LumaWeights::parse("3000,6000,1000");
    req.bins.bins = 100;
    req.bins.range = {{-0.5, 0.5}};
    const json h = r[3].doc()["results"][0]["histograms"];
    expect_matches(h, reference(f.view, req), "float custom");
    EXPECT_GT(h["R"]["below"].get<std::uint64_t>() + h["R"]["above"].get<std::uint64_t>(), 0u);
}

TEST_F(CliTest, DirectoriesAreSearchedRecursively) {
    const fs::path d = dir_ / "tree";
    fs::create_directories(d / "sub" / "deeper");
    fs::create_directories(d / ".hidden");
    std::vector<imghist::testing::TestImage> imgs;
    const std::vector<std::string> names = {"a.png", "sub/b.TIF", "sub/deeper/c.exr", "sub/deeper/d.jpg"};
    for (std::size_t i = 0; i < names.size(); ++i) {
        const PixelFormat pf = names[i].ends_with(".exr") ? PixelFormat::rgb_f16 : PixelFormat::rgb8;
        imgs.push_back(imghist::testing::make_image(pf, 16 + i, 9, imghist::testing::Pattern::natural, i));
        write_oiio((d / names[i]).string(), imgs.back().view);
    }
    write_oiio((d / ".hidden" / "e.png").string(), imgs[0].view);
    write_bytes((d / "notes.txt").string(), "not an image");
    fs::create_directories(dir_ / "empty_dir");

    const auto runs = run_all({{"--format", "json", "--threads", "1", d.string()},
                               {"--format", "json", "--threads", "3", d.string()},
                               {"--format", "json", (dir_ / "empty_dir").string()}});
    const Outcome& r = runs[0];
    ASSERT_EQ(r.status, 0) << r.err;
    const json doc = r.doc();
    ASSERT_EQ(doc["results"].size(), names.size()) << doc["results"].dump().substr(0, 400);
    std::vector<std::string> files;
    for (const auto& res : doc["results"]) files.push_back(res["file"]);
    EXPECT_TRUE(std::is_sorted(files.begin(), files.end()));
    for (std::size_t i = 0; i < names.size(); ++i) {
        const json* got = find_result(doc, (d / names[i]).string());
        ASSERT_TRUE(got) << names[i];
        if (!names[i].ends_with(".jpg")) expect_matches((*got)["histograms"], reference(imgs[i].view), names[i]);
    }
    // Parallel workers give the same answers, in the same order, as one.
    ASSERT_EQ(runs[1].status, 0);
    const json many = runs[1].doc();
    ASSERT_EQ(many["results"].size(), names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        EXPECT_EQ(doc["results"][i]["file"], many["results"][i]["file"]);
        EXPECT_EQ(doc["results"][i]["histograms"], many["results"][i]["histograms"]) << i;
    }
    // A directory without images is an error.
    EXPECT_EQ(runs[2].status, 1);
    ASSERT_EQ(runs[2].doc()["errors"].size(), 1u);
}

TEST_F(CliTest, SumMergesMatchingFiles) {
    const auto a = imghist::testing::make_image(PixelFormat::rgb8, 20, 10, imghist::testing::Pattern::random, 1);
    const auto b = imghist::testing::make_image(PixelFormat::rgb8, 7, 5, imghist::testing::Pattern::random, 2);
    const auto c = imghist::testing::make_image(PixelFormat::rgb16, 7, 5, imghist::testing::Pattern::random, 3);
    write_oiio(path("sa.png"), a.view);
    write_oiio(path("sb.bmp"), b.view);
    write_oiio(path("sc.png"), c.view);
    const Outcome r = run({"--format", "json", "--sum", path("sa.png"), path("sb.bmp"), path("sc.png")});
    ASSERT_EQ(r.status, 0) << r.err;
    const json doc = r.doc();
    // Schema 2: one sum per layout; the 16-bit file gets its own instead of being left out.
    ASSERT_TRUE(doc.contains("sums"));
    ASSERT_EQ(doc["sums"].size(), 2u);
    const json& sum = doc["sums"][0];
    EXPECT_FALSE(sum.contains("file"));
    EXPECT_EQ(sum["files"], json({path("sa.png"), path("sb.bmp")}));
    EXPECT_EQ(sum["pixels"], 20 * 10 + 7 * 5);
    EXPECT_EQ(sum["formats"], json({"rgb8"}));
    imghist::Result want = reference(a.view);
    want.merge(reference(b.view));
    expect_matches(sum["histograms"], want, "sum");
    EXPECT_EQ(doc["sums"][1]["files"], json({path("sc.png")}));
    expect_matches(doc["sums"][1]["histograms"], reference(c.view), "16-bit sum");
    EXPECT_EQ(doc["results"].size(), 3u);
}

TEST_F(CliTest, CsvAndTable) {
    const auto img = imghist::testing::make_image(PixelFormat::rgb_f32, 12, 7, imghist::testing::Pattern::specials, 8);
    write_oiio(path("t,1.exr"), img.view);  // a comma in the name must be quoted
    const auto runs = run_all({{"--format", "csv", path("t,1.exr")}, {path("t,1.exr")}});
    const Outcome& r = runs[0];
    ASSERT_EQ(r.status, 0) << r.err;
    std::istringstream lines(r.out);
    std::string line;
    std::getline(lines, line);
    EXPECT_EQ(line, "image,format,channel,kind,bin,lo,hi,count");
    std::size_t rows = 0;
    std::uint64_t r_total = 0;
    const imghist::Result want = reference(img.view);
    const std::string prefix = "\"" + path("t,1.exr") + "\",rgb_f32,R,bin,";
    while (std::getline(lines, line)) {
        ++rows;
        if (line.rfind(prefix, 0) == 0) r_total += std::stoull(line.substr(line.rfind(',') + 1));
    }
    EXPECT_EQ(rows, 4 * (257 + 3));  // R, G, B, Y
    const auto& rch = *want.find(imghist::Channel::R);
    std::uint64_t binned = 0;
    for (auto v : rch.counts) binned += v;
    EXPECT_EQ(r_total, binned);

    const Outcome& t = runs[1];
    ASSERT_EQ(t.status, 0);
    EXPECT_NE(t.out.find("257 bins"), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("NaN"), std::string::npos) << t.out;  // specials: NaN counts shown
    EXPECT_NE(t.out.find("above 1"), std::string::npos) << t.out;
}

TEST_F(CliTest, Plots) {
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 64, 32, imghist::testing::Pattern::natural, 1);
    write_oiio(path("p.png"), img.view);
    const auto fimg = imghist::testing::make_image(PixelFormat::rgba_f16, 30, 20, imghist::testing::Pattern::specials, 1);
    write_oiio(path("p.exr"), fimg.view);
    write_oiio(path("q.exr"), fimg.view);
    if (!IMGHIST_CLI_HAS_PLOT) {
        const Outcome r = run({"--plot", path("chart.png"), path("p.png")});
        EXPECT_EQ(r.status, 2);
        EXPECT_NE(r.err.find("cairo"), std::string::npos);
        GTEST_SKIP() << "built without cairo";
    }
    const auto r = run_all({
        {"--plot", path("chart.png"), path("p.png")},
        {"--plot", path("chart.svg"), "--log", "--alpha", "--bins", "1000", path("p.exr")},
        {"--plot", path("each_{}.png"), path("p.png"), path("q.exr")},
        {"--plot", path("sum.png"), "--sum", path("p.png"), path("p.png")},
        {"--plot", path("none.png"), path("missing.png")},
    });
    for (int i = 0; i < 4; ++i) ASSERT_EQ(r[i].status, 0) << i << ": " << r[i].err;
    auto in = OIIO::ImageInput::open(path("chart.png"));
    ASSERT_TRUE(in) << OIIO::geterror();
    EXPECT_GT(in->spec().width, 900);
    in.reset();
    EXPECT_NE(slurp(dir_ / "chart.svg").find("<svg"), std::string::npos);
    EXPECT_TRUE(fs::exists(dir_ / "each_p.png"));
    EXPECT_TRUE(fs::exists(dir_ / "each_q.png"));
    EXPECT_TRUE(fs::exists(dir_ / "sum.png"));
    EXPECT_EQ(r[4].status, 1);
    EXPECT_FALSE(fs::exists(dir_ / "none.png"));
}

}  // namespace
