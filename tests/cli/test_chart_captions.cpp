// The chart's captions of the shares at each end (src/cli/plot_clipping.cpp draws clip_caption):
// for float images the table's own column words, since 1.0 is display white and scene-referred
// light past it is not clipped; integer images keep "clipped" and their extreme code value.
#include <gtest/gtest.h>

#include <string>

#include "sample_meaning.hpp"

namespace imghist::cli {
namespace {

TEST(ChartCaptions, FloatSharesUseTheTableWordsNotClipping) {
    for (PixelFormat format : {PixelFormat::gray_f16, PixelFormat::rgb_f32, PixelFormat::rgba_f32}) {
        const ClipColumns table = clip_columns(format);
        EXPECT_EQ(clip_caption(format, 0), table.low) << format_info(format).name;
        EXPECT_EQ(clip_caption(format, 1), table.high) << format_info(format).name;
        EXPECT_EQ(clip_caption(format, 1).find("clipped"), std::string::npos) << format_info(format).name;
    }
}

TEST(ChartCaptions, IntegerSharesAreClippedAtTheExtremeCodes) {
    EXPECT_EQ(clip_caption(PixelFormat::rgb8, 0), "clipped low (0)");
    EXPECT_EQ(clip_caption(PixelFormat::rgba8, 1), "clipped high (255)");
    EXPECT_EQ(clip_caption(PixelFormat::gray16, 1), "clipped high (65535)");
}

// A raw file's 16-bit container is not its sensor's range: the shares at 0 and 65535 are named
// as raw values, never as the camera's clipping (which is at its white level).
TEST(ChartCaptions, CameraRawSharesAreRawValuesNotClipping) {
    for (int end : {0, 1}) {
        EXPECT_EQ(clip_caption(PixelFormat::rgba16, end, true).find("clipped"), std::string::npos);
        EXPECT_NE(clip_caption(PixelFormat::rgba16, end, true).find(end == 0 ? "0" : "65535"), std::string::npos);
    }
    const ClipColumns table = clip_columns(PixelFormat::rgba16, true);
    EXPECT_EQ(std::string(table.meaning).find("clip ="), std::string::npos);
    EXPECT_NE(std::string(table.meaning).find("white level"), std::string::npos);
}

}  // namespace
}  // namespace imghist::cli
