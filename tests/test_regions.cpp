// Regions of interest and tiles (docs/semantics.md, "Regions and tiles"): the tile rule worked by
// hand, every count against a direct count of the pixels written here, and the errors.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "contract/regions.h"
#include "core/plan.hpp"
#include "imghist/imghist.hpp"

namespace imghist {
namespace {

// A gray8 image whose value at (x, y) is (x * 7 + y * 13) % 256: every bin of a small region is
// known from the position alone.
struct GrayImage {
    std::uint32_t width, height;
    std::vector<std::uint8_t> pixels;
    GrayImage(std::uint32_t w, std::uint32_t h) : width(w), height(h), pixels(std::size_t(w) * h) {
        for (std::uint32_t y = 0; y < h; ++y)
            for (std::uint32_t x = 0; x < w; ++x) pixels[std::size_t(y) * w + x] = value(x, y);
    }
    static std::uint8_t value(std::uint32_t x, std::uint32_t y) { return std::uint8_t((x * 7 + y * 13) % 256); }
    ImageView view() const { return ImageView::packed(pixels.data(), width, height, PixelFormat::gray8); }
};

// The 8-bit default bins of the pixels in `r`, counted one by one.
std::vector<std::uint64_t> direct_counts(const Region& r) {
    std::vector<std::uint64_t> counts(256, 0);
    for (std::uint32_t y = r.y; y < r.y + r.height; ++y)
        for (std::uint32_t x = r.x; x < r.x + r.width; ++x) ++counts[GrayImage::value(x, y)];
    return counts;
}

TEST(TileRule, WorkedByHand) {
    // 10 pixels in 3 tiles: 3, 3 and 4 (the last takes the remainder), starting at 0, 3, 6.
    EXPECT_EQ(ih_tile_span(10, 3), 3u);
    EXPECT_EQ(ih_tile_start(2, 10, 3), 6u);
    EXPECT_EQ(ih_tile_length(0, 10, 3), 3u);
    EXPECT_EQ(ih_tile_length(2, 10, 3), 4u);
    // 7 pixels in 4 tiles: 1, 1, 1 and 4.
    EXPECT_EQ(ih_tile_length(3, 7, 4), 4u);
    const Region t = tile_region({5, 8, 10, 7}, {3, 4}, 2, 3);
    EXPECT_EQ(t, (Region{5 + 6, 8 + 3, 4, 4}));
}

TEST(TileRule, EveryPixelInExactlyTheTileThatHoldsIt) {
    for (std::uint32_t length = 1; length <= 70; ++length)
        for (std::uint32_t tiles = 1; tiles <= length; ++tiles) {
            std::uint32_t covered = 0;
            for (std::uint32_t i = 0; i < tiles; ++i) {
                ASSERT_EQ(ih_tile_start(i, length, tiles), covered);
                ASSERT_GT(ih_tile_length(i, length, tiles), 0u);
                for (std::uint32_t p = covered; p < covered + ih_tile_length(i, length, tiles); ++p)
                    ASSERT_EQ(ih_tile_of(p, length, tiles), i) << length << " / " << tiles << " pixel " << p;
                covered += ih_tile_length(i, length, tiles);
            }
            ASSERT_EQ(covered, length);
        }
}

class Regions : public ::testing::TestWithParam<std::string> {
protected:
    std::unique_ptr<Engine> engine() const { return create_engine(GetParam()); }
};

TEST_P(Regions, RoiCountsOnlyItsPixels) {
    const GrayImage img(61, 37);
    Request r;
    r.roi = Region{9, 4, 23, 30};
    const Result got = engine()->compute(img.view(), r);
    EXPECT_EQ(got.width, 61u);
    EXPECT_EQ(got.height, 37u);
    EXPECT_EQ(got.region, *r.roi);
    ASSERT_EQ(got.channels.size(), 1u);
    EXPECT_EQ(got.channels[0].counts, direct_counts(*r.roi));
    EXPECT_TRUE(got.tiles.empty());
    // The whole image as a roi is the same as no roi.
    r.roi = Region{0, 0, 61, 37};
    EXPECT_TRUE(engine()->compute(img.view(), r).same_histograms(engine()->compute(img.view())));
}

TEST_P(Regions, TilesOfARoiAndTheirSum) {
    const GrayImage img(50, 41);
    Request r;
    r.roi = Region{3, 2, 46, 38};
    r.tiles = {4, 3};  // 11, 11, 11, 13 columns; 12, 12, 14 rows
    const Result got = engine()->compute(img.view(), r);
    EXPECT_EQ(got.region, *r.roi);
    EXPECT_EQ(got.tile_grid, r.tiles);
    ASSERT_EQ(got.tiles.size(), 12u);
    EXPECT_EQ(got.tile(3, 2).region, (Region{3 + 33, 2 + 24, 13, 14}));
    for (std::uint32_t ty = 0; ty < 3; ++ty)
        for (std::uint32_t tx = 0; tx < 4; ++tx) {
            const TileHistogram& t = got.tile(tx, ty);
            EXPECT_EQ(t.region, tile_region(*r.roi, r.tiles, tx, ty));
            ASSERT_EQ(t.channels.size(), 1u);
            EXPECT_EQ(t.channels[0].counts, direct_counts(t.region)) << "tile " << tx << "," << ty;
            EXPECT_EQ(t.channels[0].clipped_low_count, t.channels[0].counts[0]);
        }
    EXPECT_EQ(got.channels[0].counts, direct_counts(*r.roi));
}

TEST_P(Regions, TilesOfEveryChannelAndOfFloats) {
    // rgba_f32 with luminance, custom bins and clamp: each tile equals the same request over a
    // view cropped to it, and the tiles add up to the whole image.
    std::vector<float> px(std::size_t(29) * 17 * 4);
    for (std::size_t i = 0; i < px.size(); ++i) px[i] = float(int(i * 2654435761u % 1000) - 100) / 700.0f;
    const ImageView view = ImageView::packed(px.data(), 29, 17, PixelFormat::rgba_f32);
    Request r;
    r.count_alpha = true;
    r.bins.bins = 37;
    r.bins.range = {{-0.1, 1.1}};
    r.tiles = {5, 2};
    const Result got = engine()->compute(view, r);
    Request plain = r;
    plain.tiles = {};
    ASSERT_EQ(got.tiles.size(), 10u);
    Result sum;
    for (const TileHistogram& t : got.tiles) {
        const Result want = engine()->compute(view.crop(t.region), plain);
        EXPECT_EQ(t.channels, want.channels);
        if (sum.channels.empty()) sum = want; else sum.merge(want);
    }
    EXPECT_EQ(got.channels, sum.channels);
    EXPECT_EQ(got.channels, engine()->compute(view, plain).channels);
}

INSTANTIATE_TEST_SUITE_P(HostBackends, Regions, ::testing::Values("reference", "cpu"));

TEST(Regions, BadRegionsAndGridsAreRefusedByName) {
    const GrayImage img(20, 10);
    auto e = create_engine("reference");
    const auto message = [&](const Request& r) {
        try {
            e->compute(img.view(), r);
        } catch (const InvalidArgument& error) {
            return std::string(error.what());
        }
        return std::string("no error");
    };
    Request r;
    r.roi = Region{15, 0, 6, 10};  // one column past the right edge
    EXPECT_NE(message(r).find("is not inside the 20 x 10 image"), std::string::npos) << message(r);
    r.roi = Region{0, 10, 1, 1};
    EXPECT_NE(message(r).find("not inside"), std::string::npos) << message(r);
    r.roi = Region{0, 0, 0, 5};
    EXPECT_NE(message(r).find("is empty"), std::string::npos) << message(r);
    r.roi = Region{4294967295u, 0, 2, 1};  // x + w overflows 32 bits
    EXPECT_NE(message(r).find("not inside"), std::string::npos) << message(r);
    r.roi = Region{2, 2, 5, 5};
    r.tiles = {6, 1};
    EXPECT_NE(message(r).find("more than the 5 x 5 pixels"), std::string::npos) << message(r);
    r.tiles = {0, 2};
    EXPECT_NE(message(r).find("at least 1"), std::string::npos) << message(r);
    r.roi.reset();
    r.tiles = {10, 10};  // 100 tiles of 2^20 + 3 counters: 800 MiB of counts
    r.bins.bins = 1u << 20;
    EXPECT_NE(message(r).find("(512 MiB) a result may hold"), std::string::npos) << message(r);
    r.bins.bins = 1u << 16;  // 100 tiles of 2^16 + 3 fit
    EXPECT_EQ(message(r), "no error");
}

TEST(Regions, WholeImageCallsRefuseRegionsInsteadOfIgnoringThem) {
    Request r;
    r.roi = Region{0, 0, 1, 1};
    EXPECT_THROW(HistogramPlan(PixelFormat::rgba8, r), InvalidArgument);
    r = {};
    r.tiles = {2, 1};
    EXPECT_THROW(HistogramPlan(PixelFormat::rgba8, r), InvalidArgument);
}

TEST(Regions, TiledResultsMergeTileByTile) {
    const GrayImage a(30, 20), b(30, 20);
    auto e = create_engine("reference");
    Request r;
    r.tiles = {3, 2};
    Result sum = e->compute(a.view(), r);
    const Result one = sum;
    sum.merge(e->compute(b.view(), r));
    for (std::size_t t = 0; t < sum.tiles.size(); ++t)
        for (std::size_t k = 0; k < 256; ++k)
            ASSERT_EQ(sum.tiles[t].channels[0].counts[k], 2 * one.tiles[t].channels[0].counts[k]);
    r.tiles = {2, 3};
    EXPECT_FALSE(sum.can_merge(e->compute(a.view(), r)));
    EXPECT_THROW(sum.merge(e->compute(a.view(), r)), MergeError);
    EXPECT_FALSE(sum.can_merge(e->compute(a.view())));
}

}  // namespace
}  // namespace imghist
