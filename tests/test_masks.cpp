// Masks and alpha thresholds (docs/semantics.md, "Masks and alpha"): counts worked by hand, every
// backend against the reference counting the selected pixels gathered here by a plain loop, and
// the errors. BackendParity.MasksAndAlpha (test_parity.cpp) checks each backend against the
// reference with the same mask.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "contract/half.h"
#include "core/plan.hpp"
#include "histogram_asserts.hpp"
#include "imghist/imghist.hpp"
#include "selection_checks.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

using testing::make_image;
using testing::Pattern;

using testing::Mask;
using testing::random_mask;
using testing::reference_of_selected;
using testing::select;
using testing::Selected;

std::vector<std::string> available_backends() { return testing::available_backend_names(); }

TEST(Masks, WorkedByHand) {
    // gray8 4 x 2:  10 20 30 40 / 50 60 70 80, mask 1 0 255 0 / 0 0 7 1: 10, 30, 70 and 80 count.
    const std::uint8_t pixels[] = {10, 20, 30, 40, 50, 60, 70, 80};
    const std::uint8_t mask[] = {1, 0, 255, 0, 0, 0, 7, 1};
    Request r;
    r.mask = ImageView::packed(mask, 4, 2, PixelFormat::gray8);
    for (const std::string& name : available_backends()) {
        const Result got = create_engine(name)->compute(ImageView::packed(pixels, 4, 2, PixelFormat::gray8), r);
        ASSERT_EQ(got.channels.size(), 1u);
        std::vector<std::uint64_t> want(256, 0);
        want[10] = want[30] = want[70] = want[80] = 1;
        EXPECT_EQ(got.channels[0].counts, want) << name;
        EXPECT_EQ(got.counted_pixels, 4u) << name;
        EXPECT_EQ(got.region, (Region{0, 0, 4, 2})) << name;
        EXPECT_EQ(got.width, 4u);
        EXPECT_EQ(got.channels[0].clipped_low_count, 0u) << name;   // the 0 is not in the image at all
        EXPECT_EQ(got.channels[0].clipped_high_count, 0u) << name;
    }
    // Without a mask nothing says how many pixels were counted: all of them.
    EXPECT_FALSE(create_engine("cpu")->compute(ImageView::packed(pixels, 4, 2, PixelFormat::gray8), {}).counted_pixels);
}

TEST(Masks, MaskedOutNanInfAndClippingCountNowhere) {
    // rgba_f32 2 x 1: pixel 0 is NaN, +Inf, -1, 2 (masked out), pixel 1 is 0.5 everywhere.
    const float pixels[] = {NAN, INFINITY, -1.0f, 2.0f, 0.5f, 0.5f, 0.5f, 0.5f};
    const std::uint8_t mask[] = {0, 1};
    Request r;
    r.mask = ImageView::packed(mask, 2, 1, PixelFormat::gray8);
    r.count_alpha = true;
    for (const std::string& name : available_backends()) {
        const Result got = create_engine(name)->compute(ImageView::packed(pixels, 2, 1, PixelFormat::rgba_f32), r);
        for (const ChannelHistogram& c : got.channels) {
            EXPECT_EQ(c.nan, 0u) << name;
            EXPECT_EQ(c.above, 0u) << name;
            EXPECT_EQ(c.below, 0u) << name;
            EXPECT_EQ(c.clipped_low_count, 0u) << name;
            EXPECT_EQ(c.clipped_high_count, 0u) << name;
            EXPECT_EQ(c.counts[128], 1u) << name << " " << channel_name(c.channel);  // 0.5 * 256
        }
    }
}

TEST(Masks, EverythingMaskedOutCountsZeroEverywhere) {
    const auto img = make_image(PixelFormat::rgba16, 40, 9, Pattern::specials, 3, 8);
    const Mask none{40, 9, std::vector<std::uint8_t>(360, 0)};
    Request r;
    r.mask = none.view();
    r.tiles = {3, 2};
    for (const std::string& name : available_backends()) {
        const Result got = create_engine(name)->compute(img.view, r);
        EXPECT_EQ(got.counted_pixels, 0u) << name;
        ASSERT_EQ(got.tiles.size(), 6u);
        for (const TileHistogram& t : got.tiles) EXPECT_EQ(t.counted_pixels, 0u) << name;
        for (const ChannelHistogram& c : got.channels) {
            EXPECT_EQ(c.samples(), 0u) << name;
            EXPECT_EQ(c.nan, 0u);
            EXPECT_EQ(c.clipped_low_count, 0u) << name;
            EXPECT_EQ(c.clipped_high_count, 0u) << name;
            EXPECT_FALSE(c.stats().mean) << name;
        }
    }
}

class MaskedFormats : public ::testing::TestWithParam<PixelFormat> {};

TEST_P(MaskedFormats, EveryBackendCountsExactlyTheSelectedPixels) {
    const PixelFormat format = GetParam();
    const FormatInfo& fi = format_info(format);
    const auto img = make_image(format, 333, 67, Pattern::specials, 17, 12);
    const Mask mask = random_mask(333, 67, 5);
    std::vector<std::pair<std::string, Request>> cases;
    Request r;
    r.count_alpha = true;
    r.mask = mask.view();
    cases.emplace_back("mask", r);
    r.bins.bins = 100;
    r.bins.clamp = true;
    cases.emplace_back("mask, 100 bins, clamp", r);
    if (fi.alpha >= 0) {
        Request a;
        a.mode = Mode::luma;
        a.alpha_threshold = fi.is_float() ? 0.5 : (fi.sample == SampleType::u8 ? 127.5 : 30000.0);
        cases.emplace_back("alpha threshold", a);
        a.mask = mask.view();
        cases.emplace_back("mask and alpha threshold", a);
    }
    for (const std::string& name : available_backends()) {
        const auto engine = create_engine(name);
        for (const auto& [what, request] : cases) {
            const Selected s = select(img.view, request.mask ? &mask : nullptr, request.alpha_threshold);
            ASSERT_GT(s.count, 0u);
            ASSERT_LT(s.count, img.view.pixel_count());
            const Result got = engine->compute(img.view, request);
            SCOPED_TRACE(name + ", " + what);
            testing::expect_same_channels(got.channels, reference_of_selected(img.view, s, request).channels);
            EXPECT_EQ(got.counted_pixels, s.count) << name << ", " << what;
            for (const ChannelHistogram& c : got.channels)
                EXPECT_TRUE(c.clipped_low_count && c.clipped_high_count) << name << ", " << what;
        }
    }
}

TEST_P(MaskedFormats, RoiAndTilesSeeTheMaskAtTheirOwnCoordinates) {
    const PixelFormat format = GetParam();
    const auto img = make_image(format, 101, 43, Pattern::random, 23, 4);
    const Mask mask = random_mask(101, 43, 9);
    Request r;
    r.mask = mask.view();
    r.roi = Region{7, 3, 90, 37};
    r.tiles = {4, 3};
    const auto crop_of = [&](const Region& g) {
        Mask m{g.width, g.height, {}};
        for (std::uint32_t y = g.y; y < g.y + g.height; ++y)
            for (std::uint32_t x = g.x; x < g.x + g.width; ++x) m.bytes.push_back(mask.bytes[std::size_t(y) * 101 + x]);
        return m;
    };
    for (const std::string& name : available_backends()) {
        const Result got = create_engine(name)->compute(img.view, r);
        SCOPED_TRACE(name);
        const Mask whole = crop_of(*r.roi);
        const Selected all = select(img.view.crop(*r.roi), &whole, std::nullopt);
        testing::expect_same_channels(got.channels, reference_of_selected(img.view, all, Request{}).channels);
        EXPECT_EQ(got.counted_pixels, all.count) << name;
        ASSERT_EQ(got.tiles.size(), 12u);
        for (const TileHistogram& t : got.tiles) {
            const Mask m = crop_of(t.region);
            const Selected s = select(img.view.crop(t.region), &m, std::nullopt);
            EXPECT_EQ(t.counted_pixels, s.count) << name;
            testing::expect_same_channels(t.channels, reference_of_selected(img.view, s, Request{}).channels);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Formats, MaskedFormats, ::testing::ValuesIn(all_pixel_formats),
                         [](const auto& info) { return std::string(format_info(info.param).name); });

TEST(AlphaThreshold, AboveMeansStrictlyAboveInTheSamplesOwnUnits) {
    // rgba8 with every alpha value once: T = 127.5 keeps 128..255, T = 128 keeps 129..255.
    std::vector<std::uint8_t> px(256 * 4);
    for (int a = 0; a < 256; ++a) px[4 * a + 3] = std::uint8_t(a);
    const ImageView v8 = ImageView::packed(px.data(), 256, 1, PixelFormat::rgba8);
    std::vector<std::uint16_t> px16(256 * 4);
    for (int a = 0; a < 256; ++a) px16[4 * a + 3] = std::uint16_t(a * 257);  // 0, 257, ..., 65535
    const ImageView v16 = ImageView::packed(px16.data(), 256, 1, PixelFormat::rgba16);
    const float specials[] = {-INFINITY, -1.0f, -0.0f, 0.0f, 0.25f, std::nextafter(0.5f, 0.0f), 0.5f,
                              std::nextafter(0.5f, 1.0f), 1.0f, 2.0f, INFINITY, NAN};
    std::vector<float> pxf;
    std::vector<std::uint16_t> pxh;
    for (float a : specials) {
        pxf.insert(pxf.end(), {0.1f, 0.2f, 0.3f, a});
        for (float s : {0.1f, 0.2f, 0.3f, a}) pxh.push_back(testing::float_to_half(s));
    }
    const ImageView vf = ImageView::packed(pxf.data(), 12, 1, PixelFormat::rgba_f32);
    const ImageView vh = ImageView::packed(pxh.data(), 12, 1, PixelFormat::rgba_f16);
    struct Case {
        ImageView view;
        double threshold;
        std::uint64_t counted;
    };
    const Case cases[] = {
        {v8, 127.5, 128}, {v8, 128, 127}, {v8, -1, 256}, {v8, 0, 255}, {v8, 254.9, 1}, {v8, 255, 0}, {v8, 1e300, 0},
        {v8, -INFINITY, 256}, {v16, 32767.5, 128}, {v16, 65534, 1}, {v16, 65535, 0},
        // 0.5 itself is not above 0.5; -0 is not above 0; NaN is never above anything.
        {vf, 0.5, 4}, {vf, 0, 7}, {vf, -0.0, 7}, {vf, -INFINITY, 10}, {vf, 1, 2}, {vh, -INFINITY, 10},
        // In half, 0.5 plus or minus a float ulp is 0.5 itself.
        {vh, 0.5, 3},
    };
    for (const std::string& name : available_backends())
        for (const Case& c : cases) {
            Request r;
            r.alpha_threshold = c.threshold;
            r.mode = Mode::rgb;
            const Result got = create_engine(name)->compute(c.view, r);
            EXPECT_EQ(got.counted_pixels, c.counted) << name << " " << c.view.info().name << " T=" << c.threshold;
            EXPECT_EQ(got.channels[0].samples(), c.counted) << name << " " << c.view.info().name << " T=" << c.threshold;
        }
}

TEST(Masks, ManyChunksAddUp) {
    // More selected bytes than one gathered round (64 MiB), gathered by several threads into
    // packed rows of millions of pixels: every backend's parts must add up.
    const std::uint32_t w = 9001, h = 8000;
    std::vector<std::uint8_t> px(std::size_t(w) * h), m(std::size_t(w) * h);
    std::vector<std::uint64_t> want(256, 0);
    std::uint64_t on = 0;
    for (std::size_t i = 0; i < px.size(); ++i) {
        px[i] = std::uint8_t(i * 2654435761u >> 24);
        m[i] = (i % 7) != 3;
        if (m[i]) ++want[px[i]], ++on;
    }
    Request r;
    r.mask = ImageView::packed(m.data(), w, h, PixelFormat::gray8);
    for (const std::string& name : available_backends()) {
        const Result got = create_engine(name)->compute(ImageView::packed(px.data(), w, h, PixelFormat::gray8), r);
        EXPECT_EQ(got.channels[0].counts, want) << name;
        EXPECT_EQ(got.counted_pixels, on) << name;
    }
}

// Painted masks: each row one run of kept pixels (non-zero bytes of every value) whose start and
// length vary around 8-pixel groups and around the length that a backend may count in place
// instead of copying (cpu: 256), plus rows kept whole, rows with two runs, and a roi and tiles
// that cut the runs. Against the reference over the pixels the test selects itself.
TEST_P(MaskedFormats, LongRunsOfAPaintedMask) {
    const PixelFormat format = GetParam();
    const std::uint32_t w = 1100, h = 48;
    const auto img = make_image(format, w, h, Pattern::specials, 23, 4);
    Mask mask{w, h, std::vector<std::uint8_t>(std::size_t(w) * h, 0)};
    const std::uint32_t lengths[] = {0, 7, 8, 248, 255, 256, 257, 263, 264, 265, 512, 1000, 1093, w};
    for (std::uint32_t y = 0; y < h; ++y) {
        const std::uint32_t len = lengths[y % std::size(lengths)];
        const std::uint32_t start = std::min<std::uint32_t>(w - len, (y * 37) % 19);
        for (std::uint32_t x = start; x < start + len; ++x) mask.bytes[std::size_t(y) * w + x] = std::uint8_t(1 + (x * 7 + y) % 255);
        if (y % 5 == 4)  // a second run further on
            for (std::uint32_t x = std::min(w, start + len + 9); x < std::min(w, start + len + 9 + 300); ++x)
                mask.bytes[std::size_t(y) * w + x] = 255;
    }
    const auto grids = {std::pair{std::optional<Region>{}, TileGrid{}},
                        std::pair{std::optional<Region>{Region{3, 2, 1090, 44}}, TileGrid{3, 2}}};
    for (const std::string& name : available_backends()) {
        const auto engine = create_engine(name);
        for (const auto& [roi, tiles] : grids) {
            Request r;
            r.count_alpha = true;
            r.mask = mask.view();
            r.roi = roi;
            r.tiles = tiles;
            const Result got = engine->compute(img.view, r);
            SCOPED_TRACE(name + (roi ? ", roi and tiles" : ""));
            const Region area = roi.value_or(Region{0, 0, w, h});
            const std::vector<Region> parts = tiles.count() > 1 ? [&] {
                std::vector<Region> v;
                for (std::uint32_t ty = 0; ty < tiles.y; ++ty)
                    for (std::uint32_t tx = 0; tx < tiles.x; ++tx) v.push_back(tile_region(area, tiles, tx, ty));
                return v;
            }() : std::vector<Region>{area};
            std::uint64_t total = 0;
            for (std::size_t i = 0; i < parts.size(); ++i) {
                const ImageView part = img.view.crop(parts[i]);
                Mask part_mask{parts[i].width, parts[i].height, {}};
                for (std::uint32_t y = 0; y < parts[i].height; ++y)
                    for (std::uint32_t x = 0; x < parts[i].width; ++x)
                        part_mask.bytes.push_back(mask.bytes[std::size_t(parts[i].y + y) * w + parts[i].x + x]);
                const Selected s = select(part, &part_mask, std::nullopt);
                Request plain;
                plain.count_alpha = true;
                const Result want = reference_of_selected(part, s, plain);
                const auto& channels = parts.size() > 1 ? got.tiles[i].channels : got.channels;
                testing::expect_same_channels(channels, want.channels);
                total += s.count;
            }
            EXPECT_EQ(got.counted_pixels, total);
        }
    }
}

TEST(Masks, BadMasksAndThresholdsAreRefusedByName) {
    const auto img = make_image(PixelFormat::rgb8, 20, 10, Pattern::random, 1);
    const Mask small = random_mask(20, 9, 1);
    const auto engine = create_engine("cpu");
    const auto message = [&](const Request& r) {
        try {
            (void)engine->compute(img.view, r);
        } catch (const InvalidArgument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    Request r;
    r.mask = small.view();
    EXPECT_EQ(message(r), "the mask is 20 x 9 pixels, the image 20 x 10: a mask must be the image's size");
    r.mask = img.view;
    EXPECT_EQ(message(r), "a mask must be gray8 (one 8-bit sample a pixel; non-zero counts), not rgb8");
    r.mask.reset();
    r.alpha_threshold = 3;
    EXPECT_EQ(message(r), "an alpha threshold needs a format with alpha; rgb8 has none");
    r.alpha_threshold = NAN;
    EXPECT_EQ(message(r), "the alpha threshold is NaN");
    // The calls that count whole images (batches, recorded interop calls) refuse them by name.
    Request m;
    m.alpha_threshold = 1;
    EXPECT_THROW(HistogramPlan(PixelFormat::rgba8, m), InvalidArgument);
}

}  // namespace
}  // namespace imghist
