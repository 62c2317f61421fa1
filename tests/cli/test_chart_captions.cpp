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

}  // namespace
}  // namespace imghist::cli
