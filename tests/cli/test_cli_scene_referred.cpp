// What the report says a file's values mean: for float files 1.0 is display white, not a limit
// (an HDR render with values up to 50 is not "61% clipped"), and --exposure on 8- or 16-bit
// files reads display-encoded values as linear light, which the report must say.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cli_files.hpp"
#include "imghist/imghist.hpp"
#include "test_images.hpp"

namespace imghist::cli_test {
namespace {

using testing::Pattern;

class CliSceneReferredTest : public CliTest {};

// An RGB float image whose every third sample is scene light up to 50, the others below 1.
std::vector<float> hdr_samples(std::uint32_t width, std::uint32_t height) {
    std::vector<float> v(std::size_t(width) * height * 3);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = i % 3 == 0 ? 1.0f + float(i % 50) : float(i % 97) / 97.0f;
    return v;
}

TEST_F(CliSceneReferredTest, FloatSharesAtOneAreNotCalledClipping) {
    const std::vector<float> samples = hdr_samples(20, 10);
    const ImageView view = ImageView::packed(samples.data(), 20, 10, PixelFormat::rgb_f32);
    write_oiio(path("hdr.exr"), view);
    const std::vector<CommandRun> runs = run_all({{path("hdr.exr")}, {"--format", "json", path("hdr.exr")}});
    ASSERT_EQ(runs[0].status, 0) << runs[0].err;
    const std::string& table = runs[0].out;
    EXPECT_EQ(table.find("clip high"), std::string::npos) << table;
    EXPECT_NE(table.find("scene-referred (HDR) data goes past 1 unclipped"), std::string::npos) << table;
    EXPECT_NE(table.find("    <= 0      >= 1\n"), std::string::npos) << table;
    // The JSON's share is still that of the samples at or above 1, counted here independently.
    std::size_t red_at_one = 0;
    for (std::size_t i = 0; i < samples.size(); i += 3) red_at_one += samples[i] >= 1.0f;
    const nlohmann::json doc = runs[1].doc();
    EXPECT_EQ(doc["results"][0]["histograms"]["R"]["stats"]["clipped_high_count"].get<std::uint64_t>(), red_at_one);
}

TEST_F(CliSceneReferredTest, IntegerFilesKeepTheirClipColumns) {
    write_oiio(path("clip8.png"), testing::make_image(PixelFormat::rgb8, 6, 4, Pattern::random, 5).view);
    const CommandRun r = run({path("clip8.png")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("clip = share of samples at value 0 / 255"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" clip low clip high\n"), std::string::npos) << r.out;
}

TEST_F(CliSceneReferredTest, ExposureOfDisplayEncodedFilesSaysHowToLinearise) {
    write_oiio(path("photo8.png"), testing::make_image(PixelFormat::rgb8, 16, 8, Pattern::random, 6).view);
    write_oiio(path("photo16.png"), testing::make_image(PixelFormat::rgb16, 16, 8, Pattern::random, 7).view);
    const std::vector<float> samples = hdr_samples(16, 8);
    write_oiio(path("linear.exr"), ImageView::packed(samples.data(), 16, 8, PixelFormat::rgb_f32));
    const std::vector<CommandRun> runs =
        run_all({{"--exposure", path("photo8.png")},
                 {"--exposure", "--format", "json", path("photo8.png"), path("photo16.png"), path("linear.exr")}});
    ASSERT_EQ(runs[0].status, 0) << runs[0].err;
    EXPECT_NE(runs[0].out.find("note: --exposure reads sample values as linear light, but 8-bit files"),
              std::string::npos)
        << runs[0].out;
    EXPECT_NE(runs[0].out.find("--colorconvert sRGB linear"), std::string::npos) << runs[0].out;
    const nlohmann::json doc = runs[1].doc();
    ASSERT_EQ(doc["results"].size(), 3u) << runs[1].err;
    for (int i = 0; i < 2; ++i) {
        const nlohmann::json& e = doc["results"][i]["exposure"];
        ASSERT_TRUE(e.is_object()) << e;
        EXPECT_NE(e.value("note", "").find(i == 0 ? "8-bit" : "16-bit"), std::string::npos) << e;
    }
    EXPECT_FALSE(doc["results"][2]["exposure"].contains("note")) << "a float file's values are taken as linear";
}

}  // namespace
}  // namespace imghist::cli_test
