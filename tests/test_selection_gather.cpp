// The gather of selected pixels (src/core/selection.cpp, selection_gather.cpp) at every instruction
// set this CPU has: for every format, masks of every shape (whole rows, none, random pixels, long
// and short runs around the 64-pixel windows) and alpha thresholds on, between and around the
// alpha values (NaN, infinities and -0 for floats), the packed pixels must be exactly those a
// plain loop here selects, in order; runs handed over to be counted in place must be kept pixels
// of at least the asked length; and nothing may be written past the row's room.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/cpu_isa.hpp"
#include "core/selection.hpp"
#include "imghist/imghist.hpp"
#include "selection_checks.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

using testing::Mask;

// Alpha samples cycling through values a threshold may fall on, between or around.
void write_alphas(testing::TestImage& img, std::uint32_t seed) {
    const ImageView& v = img.view;
    const FormatInfo& fi = v.info();
    if (fi.alpha < 0) return;
    const float floats[] = {-INFINITY, -1.0f, -0.0f, 0.0f, 1e-40f, 0.25f, std::nextafter(0.5f, 0.0f), 0.5f,
                            std::nextafter(0.5f, 1.0f), 1.0f, 70000.0f, INFINITY, NAN, -NAN};
    std::mt19937 rng(seed);
    for (std::uint32_t y = 0; y < v.height; ++y)
        for (std::uint32_t x = 0; x < v.width; ++x) {
            auto* a = const_cast<std::byte*>(v.row(y)) + std::size_t(x) * fi.pixel_bytes() +
                      std::size_t(fi.alpha) * fi.bytes_per_sample;
            const std::uint32_t r = rng();
            switch (fi.sample) {
                case SampleType::u8: *a = std::byte(r % 5 == 0 ? 127 + r % 3 : r); break;
                case SampleType::u16: {
                    const std::uint16_t s = r % 5 == 0 ? std::uint16_t(29999 + r % 3) : std::uint16_t(r);
                    std::memcpy(a, &s, 2);
                    break;
                }
                case SampleType::f16: {
                    const std::uint16_t h = testing::float_to_half(floats[r % std::size(floats)]);
                    std::memcpy(a, &h, 2);
                    break;
                }
                case SampleType::f32: std::memcpy(a, &floats[r % std::size(floats)], 4); break;
            }
        }
}

// Row by row: all kept, none, random pixels, then runs whose starts and lengths straddle the
// windows (63, 64, 65, 128, 255, 256, 257 ... pixels), two runs in one row, and random again.
Mask shaped_mask(std::uint32_t width, std::uint32_t height) {
    Mask m = testing::random_mask(width, height, 3);
    const std::uint32_t lengths[] = {63, 64, 65, 127, 128, 191, 255, 256, 257, 320, 511, 640};
    for (std::uint32_t y = 0; y < height; ++y) {
        std::uint8_t* row = m.bytes.data() + std::size_t(y) * width;
        const std::uint32_t shape = y % 8;
        if (shape == 0) std::fill(row, row + width, std::uint8_t(200));
        if (shape == 1) std::fill(row, row + width, std::uint8_t(0));
        if (shape >= 3 && shape <= 6) {
            std::fill(row, row + width, std::uint8_t(0));
            const std::uint32_t len = std::min(width, lengths[(y / 8 + shape) % std::size(lengths)]);
            const std::uint32_t start = std::min(width - len, (y * 29) % 67);
            for (std::uint32_t x = start; x < start + len; ++x) row[x] = std::uint8_t(1 + x % 255);
            if (shape == 6)
                for (std::uint32_t x = std::min(width, start + len + 64); x < std::min(width, start + len + 64 + 256); ++x)
                    row[x] = 1;
        }
    }
    return m;
}

struct Case {
    std::string what;
    bool use_mask;
    std::optional<double> threshold;
};

std::vector<Case> cases_for(const FormatInfo& fi) {
    std::vector<Case> c{{"mask", true, std::nullopt}};
    if (fi.alpha < 0) return c;
    std::vector<double> thresholds;
    if (fi.sample == SampleType::u8) thresholds = {127.5, 127, 128, -1, 0, 254.5};
    if (fi.sample == SampleType::u16) thresholds = {30000, 29999.5, 65534, -3};
    if (fi.is_float()) thresholds = {0.5, 0, -0.0, -INFINITY, 1, 0.49999, 1e300};
    for (const double t : thresholds) {
        c.push_back({"alpha > " + std::to_string(t), false, t});
        c.push_back({"mask and alpha > " + std::to_string(t), true, t});
    }
    return c;
}

class GatherFormats : public ::testing::TestWithParam<PixelFormat> {};

TEST_P(GatherFormats, EveryInstructionSetPacksExactlyTheSelectedPixels) {
    const PixelFormat format = GetParam();
    const FormatInfo& fi = format_info(format);
    const std::size_t pb = fi.pixel_bytes();
    constexpr std::size_t kCanary = 64;
    for (const std::uint32_t width : {1u, 63u, 64u, 65u, 200u, 777u}) {
        const std::uint32_t height = 40;
        auto img = testing::make_image(format, width, height, testing::Pattern::random, width, 8);
        write_alphas(img, width);
        const Mask mask = shaped_mask(width, height);
        for (const Case& c : cases_for(fi)) {
            Request request;
            if (c.use_mask) request.mask = mask.view();
            request.alpha_threshold = c.threshold;
            for (const cpu::Isa level : cpu::kAllIsas) {
                if (level > cpu::best_isa()) continue;
                cpu::force_isa(level);
                const PixelSelector selector(img.view, request);
                cpu::force_isa(std::nullopt);
                SCOPED_TRACE(std::string(fi.name) + ", width " + std::to_string(width) + ", " + c.what + ", " +
                             cpu::isa_name(level));
                std::uint64_t counted_in_place = 0;
                for (const std::uint32_t min_run : {0u, 64u, 256u}) {
                    for (std::uint32_t y = 0; y < height; ++y) {
                        // The plain loop's choice for this row.
                        std::vector<bool> kept(width);
                        for (std::uint32_t x = 0; x < width; ++x)
                            kept[x] = (!c.use_mask || mask.on(x, y)) &&
                                      (!c.threshold || testing::alpha_of(img.view, x, y) > *c.threshold);
                        std::vector<std::byte> out(width * pb + kCanary, std::byte{0xA5});
                        std::vector<bool> in_place(width, false);
                        std::size_t n;
                        if (min_run == 0) {
                            n = selector.gather_row(y, out.data());
                        } else {
                            n = selector.gather_row(y, out.data(), min_run, [&](std::uint32_t x, std::uint32_t len) {
                                ASSERT_GE(len, min_run);
                                ASSERT_LE(x + len, width);
                                for (std::uint32_t i = x; i < x + len; ++i) {
                                    ASSERT_TRUE(kept[i]) << "pixel " << i << " counted in place but not selected";
                                    ASSERT_FALSE(in_place[i]) << "pixel " << i << " counted in place twice";
                                    in_place[i] = true;
                                }
                                counted_in_place += len;
                            });
                        }
                        std::vector<std::byte> want;
                        for (std::uint32_t x = 0; x < width; ++x)
                            if (kept[x] && !in_place[x]) {
                                const std::byte* p = img.view.row(y) + std::size_t(x) * pb;
                                want.insert(want.end(), p, p + pb);
                            }
                        ASSERT_EQ(n * pb, want.size()) << "row " << y << ", min_run " << min_run;
                        ASSERT_EQ(std::memcmp(out.data(), want.data(), want.size()), 0) << "row " << y;
                        for (std::size_t i = width * pb; i < out.size(); ++i)
                            ASSERT_EQ(out[i], std::byte{0xA5}) << "written past the row's room, row " << y;
                    }
                }
                // Rows kept whole hand runs over (a mask alone: at every level).
                if (width >= 256 && c.use_mask && !c.threshold) EXPECT_GT(counted_in_place, 0u);
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Formats, GatherFormats, ::testing::ValuesIn(all_pixel_formats),
                         [](const auto& info) { return std::string(format_info(info.param).name); });

}  // namespace
}  // namespace imghist
