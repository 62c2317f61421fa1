// The file reader on colour channels by name: EXR channels picked by their names (the others
// noted), channels without colour names refused, gray + alpha PNG.
#include <gtest/gtest.h>

#include <OpenImageIO/imageio.h>
#include <algorithm>
#include <cstdint>
#include <optional>
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
        const std::optional<imghist::io::LoadedImage> loaded = read_or_fail(file);
        if (!loaded) continue;
        const imghist::io::LoadedImage& image = *loaded;
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
    const imghist::io::LoadedImage g8 = imghist::io::read_image(path("ga8.png"), {});
    EXPECT_EQ(g8.view.format, PixelFormat::gray8);
    EXPECT_EQ(samples_of<std::uint8_t>(g8), (std::vector<std::uint8_t>{0, 10, 200, 255}));
    EXPECT_TRUE(has_note(g8, "alpha"));
    const std::vector<std::uint16_t> ga16 = {0, 65535, 1000, 32768, 65535, 0, 300, 9};
    write_oiio(path("ga16.png"), 2, 2, {"Y", "A"}, OIIO::TypeDesc::UINT16, ga16.data(), 1);
    const imghist::io::LoadedImage g16 = imghist::io::read_image(path("ga16.png"), {});
    EXPECT_EQ(g16.view.format, PixelFormat::gray16);
    EXPECT_EQ(samples_of<std::uint16_t>(g16), (std::vector<std::uint16_t>{0, 1000, 65535, 300}));
}

}  // namespace
