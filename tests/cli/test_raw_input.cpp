// --raw FORMAT:WIDTHxHEIGHT[:STRIDE]: for every pixel format of the library (imghist::
// all_pixel_formats, so a new format is covered as soon as it is added), generated pixels are
// written as a raw file, counted by the command, and its JSON checked bit for bit against the
// reference backend on the same pixels. Then the errors: unknown format, bad layout, a file of
// the wrong size (the other files still counted), a directory.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "imghist/imghist.hpp"
#include "test_images.hpp"

namespace {

using imghist::PixelFormat;
using imghist::cli_test::CommandRun;
using imghist::cli_test::expect_matches;
using imghist::testing::Pattern;
using imghist::testing::TestImage;

constexpr std::uint32_t kWidth = 37, kHeight = 19;  // odd sizes: no row is a multiple of 4 or 16

std::string format_name(PixelFormat f) { return std::string(imghist::format_info(f).name); }

imghist::Result reference(const imghist::ImageView& v, const imghist::Request& req) {
    return imghist::create_engine("reference")->compute(v, req);
}

// Writes the view's rows, `stride_bytes` apart; the last row's padding only if `last_padding`.
void write_raw(const std::string& path, const imghist::ImageView& v, bool last_padding = true) {
    std::ofstream f(path, std::ios::binary);
    for (std::uint32_t y = 0; y < v.height; ++y) {
        const bool padded = last_padding || y + 1 < v.height;
        f.write(reinterpret_cast<const char*>(v.row(y)), std::streamsize(padded ? v.stride_bytes : v.row_bytes()));
    }
    ASSERT_TRUE(f.good()) << path;
}

std::string raw_spec(const imghist::ImageView& v) {
    std::string spec = format_name(v.format) + ":" + std::to_string(v.width) + "x" + std::to_string(v.height);
    if (v.stride_bytes != v.row_bytes()) spec += ":" + std::to_string(v.stride_bytes);
    return spec;
}

class CliRaw : public imghist::cli_test::ScratchDirTest {};

// The command's options and the Request the library is given for them.
struct RequestCase {
    std::string name;
    std::vector<std::string> args;
    imghist::Request request;
};

std::vector<RequestCase> request_cases() {
    imghist::Request custom;
    custom.count_alpha = true;
    custom.weights = imghist::LumaWeights::parse("rec601");
    custom.bins.bins = 100;
    custom.bins.range = std::pair{-4.0, 300.0};  // integer bounds: valid for every format
    return {{"default", {}, {}},
            {"alpha, rec601, 100 bins over [-4, 300)",
             {"--alpha", "--luma-weights", "rec601", "--bins", "100", "--range=-4:300"}, custom}};
}

class CliRawFormat : public CliRaw, public ::testing::WithParamInterface<PixelFormat> {};

TEST_P(CliRawFormat, CountsEqualTheLibrary) {
    const PixelFormat format = GetParam();
    const std::size_t sample = std::size_t(imghist::format_info(format).bytes_per_sample);
    struct Layout {
        std::string name;
        std::size_t padding;
        bool last_padding;
        Pattern pattern;
    };
    const std::vector<Layout> layouts = {{"packed", 0, true, Pattern::specials},
                                         {"padded", 3 * sample, true, Pattern::random},
                                         {"padded, last row trimmed", 5 * sample, false, Pattern::natural}};
    for (const Layout& layout : layouts) {
        const TestImage img = imghist::testing::make_image(format, kWidth, kHeight, layout.pattern, 7, layout.padding);
        const std::string file = path(format_name(format) + "-" + std::to_string(layout.padding) + ".raw");
        write_raw(file, img.view, layout.last_padding);
        for (const RequestCase& rc : request_cases()) {
            const std::string what = format_name(format) + ", " + layout.name + ", " + rc.name;
            std::vector<std::string> args = {"--raw", raw_spec(img.view), "--format", "json"};
            args.insert(args.end(), rc.args.begin(), rc.args.end());
            args.push_back(file);
            const CommandRun r = run(args);
            ASSERT_EQ(r.status, 0) << what << "\n" << r.err;
            const nlohmann::json doc = r.doc();
            ASSERT_EQ(doc["results"].size(), 1u) << what << "\n" << r.out;
            const nlohmann::json& result = doc["results"][0];
            EXPECT_EQ(result["format"], format_name(format)) << what;
            EXPECT_EQ(result["width"], kWidth) << what;
            EXPECT_EQ(result["height"], kHeight) << what;
            expect_matches(result["histograms"], reference(img.view, rc.request), what);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, CliRawFormat, ::testing::ValuesIn(imghist::all_pixel_formats),
                         [](const auto& info) { return format_name(info.param); });

TEST_F(CliRaw, HelpListsEveryFormat) {
    const CommandRun r = run({"--help"});
    ASSERT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("--raw FORMAT:WIDTHxHEIGHT[:STRIDE]"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("no decoder"), std::string::npos) << r.out;
    std::string names;
    for (PixelFormat f : imghist::all_pixel_formats) names += (names.empty() ? "" : ", ") + format_name(f);
    EXPECT_NE(r.out.find(names), std::string::npos) << names << "\n" << r.out;
}

TEST_F(CliRaw, UnknownFormatListsTheValidOnes) {
    write_raw(path("any.raw"), imghist::testing::make_image(PixelFormat::rgb8, 4, 4, Pattern::random).view);
    const CommandRun r = run({"--raw", "yuv420:4x4", path("any.raw")});
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("unknown pixel format 'yuv420'"), std::string::npos) << r.err;
    for (PixelFormat f : imghist::all_pixel_formats)
        EXPECT_NE(r.err.find(format_name(f)), std::string::npos) << format_name(f) << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(CliRaw, BadLayoutsAreUsageErrors) {
    write_raw(path("any.raw"), imghist::testing::make_image(PixelFormat::rgb16, 4, 4, Pattern::random).view);
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"rgb16:0x4", "zero size (0 x 4 pixels)"},
        {"rgb16:4x0", "zero size (4 x 0 pixels)"},
        {"rgb16", "expected FORMAT:WIDTHxHEIGHT[:STRIDE]"},
        {"rgb16:4by4", "expected FORMAT:WIDTHxHEIGHT[:STRIDE]"},
        {"rgb16:4x4:8:9", "expected FORMAT:WIDTHxHEIGHT[:STRIDE]"},
        {"rgb16:-4x4", "WIDTH '-4' is not a number"},
        {"rgb16:4x99999999999", "HEIGHT '99999999999' is not a number"},
        {"rgb16:4x4:", "STRIDE is missing"},
        {"rgb16:4x4:23", "smaller than one row (24 bytes)"},
        {"rgb16:4x4:25", "multiple of the sample size"},
    };
    for (const auto& [spec, message] : cases) {
        const CommandRun r = run({"--raw", spec, path("any.raw")});
        EXPECT_EQ(r.status, 2) << spec << "\n" << r.err;
        EXPECT_NE(r.err.find("--raw: "), std::string::npos) << spec << "\n" << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << spec << "\n" << r.err;
    }
}

TEST_F(CliRaw, WrongSizeCostsOnlyThatFile) {
    const TestImage img = imghist::testing::make_image(PixelFormat::rgba8, 8, 5, Pattern::random, 3);
    write_raw(path("good1.raw"), img.view);
    write_raw(path("good2.raw"), img.view);
    const TestImage small = imghist::testing::make_image(PixelFormat::rgba8, 8, 4, Pattern::random, 3);
    write_raw(path("short.raw"), small.view);
    std::ofstream(path("long.raw"), std::ios::binary) << std::string(8 * 5 * 4 + 1, 'x');
    const CommandRun r = run({"--raw", "rgba8:8x5", "--format", "json", path("good1.raw"), path("short.raw"),
                              path("long.raw"), path("good2.raw"), path("missing.raw"), dir_.string()});
    EXPECT_EQ(r.status, 1) << r.err;
    const nlohmann::json doc = r.doc();
    ASSERT_EQ(doc["results"].size(), 2u) << r.out;
    const imghist::Result want = reference(img.view, {});
    expect_matches(doc["results"][0]["histograms"], want, "good1");
    expect_matches(doc["results"][1]["histograms"], want, "good2");
    const std::string errors = doc["errors"].dump();
    EXPECT_NE(errors.find("the file has 128 bytes, but --raw rgba8:8x5 needs 5 rows of 32 bytes = 160 bytes"),
              std::string::npos) << errors;
    EXPECT_NE(errors.find("the file has 161 bytes"), std::string::npos) << errors;
    EXPECT_NE(errors.find("no such file"), std::string::npos) << errors;
    EXPECT_NE(errors.find("is a directory"), std::string::npos) << "directories are not searched\n" << errors;
    EXPECT_EQ(doc["errors"].size(), 4u) << errors;
}

TEST_F(CliRaw, WrongSizeWithStrideNamesBothSizes) {
    const TestImage img = imghist::testing::make_image(PixelFormat::gray16, 3, 2, Pattern::random, 1, 4);
    std::ofstream(path("odd.raw"), std::ios::binary) << std::string(11, 'x');
    const CommandRun r = run({"--raw", raw_spec(img.view), path("odd.raw")});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("needs 2 rows of 10 bytes = 20 bytes (or 16 without the last row's padding)"),
              std::string::npos) << r.err;
}

TEST_F(CliRaw, EmptyFileIsAnError) {
    std::ofstream(path("empty.raw"), std::ios::binary).flush();
    const CommandRun r = run({"--raw", "gray8:1x1", path("empty.raw")});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("empty file (0 bytes)"), std::string::npos) << r.err;
}

TEST_F(CliRaw, MaxPixelsApplies) {
    write_raw(path("big.raw"), imghist::testing::make_image(PixelFormat::gray8, 10, 10, Pattern::random).view);
    const CommandRun r = run({"--raw", "gray8:10x10", "--max-pixels", "99", path("big.raw")});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("exceeds the limit of 99"), std::string::npos) << r.err;
}

}  // namespace
