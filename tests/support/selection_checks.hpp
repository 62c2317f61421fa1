// Masks and alpha thresholds as the tests see them: random masks, this test code's own reading
// of each format's alpha, the pixels a mask and a threshold select (a plain loop, independent of
// src/core/selection.cpp), and the check every interop API runs with masks in device memory.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "histogram_asserts.hpp"
#include "imghist/imghist.hpp"
#include "test_images.hpp"

namespace imghist::testing {

struct Mask {
    std::uint32_t width, height;
    std::vector<std::uint8_t> bytes;
    ImageView view() const { return ImageView::packed(bytes.data(), width, height, PixelFormat::gray8); }
    bool on(std::uint32_t x, std::uint32_t y) const { return bytes[std::size_t(y) * width + x] != 0; }
};

// About half the pixels on, in runs and alone, with every non-zero byte value.
Mask random_mask(std::uint32_t width, std::uint32_t height, std::uint32_t seed);

// The alpha sample of pixel (x, y), as a double.
double alpha_of(const ImageView& v, std::uint32_t x, std::uint32_t y);

// The pixels a mask and a threshold select, copied one by one into one packed row.
struct Selected {
    std::vector<std::byte> bytes;
    std::uint64_t count = 0;
};
Selected select(const ImageView& v, const Mask* mask, std::optional<double> threshold);

// What the reference counts over the selected pixels alone, as one image.
Result reference_of_selected(const ImageView& v, const Selected& s, Request plain);

// A mask or a threshold with the image they apply to, as an interop test uploads them.
struct SelectionCase {
    std::string what;
    TestImage image;
    Mask mask;
    bool use_mask = true;
    Request request;  // its alpha_threshold, roi and tiles apply; the mask is `mask`
};
// Every format with and without a padded stride; masks, thresholds on and between the alpha
// values (NaN and infinite alpha included), both together, and a roi with tiles. Float specials
// (denormals included) in every float image, except fp32 ones without `fp32_denormals`: those
// are natural images, for a device that flushes fp32 denormals (vulkan.hpp's known gap).
std::vector<SelectionCase> device_selection_cases(bool fp32_denormals = true);

// `count(c)` counts c.image with c.mask (uploaded into device memory as Request::device_mask
// when c.use_mask) and c.request through an interop call; each result must equal the
// reference's count of the pixels select() picks, and name how many it counted.
// count(c), or a failure naming what it threw.
template <class Count>
std::optional<Result> counted_case(Count&& count, const SelectionCase& c) {
    try {
        return count(c);
    } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
        return std::nullopt;
    }
}

// The host request of a case: its request with the mask as a host image.
inline Request host_request(const SelectionCase& c) {
    Request host = c.request;
    if (c.use_mask) host.mask = c.mask.view();
    return host;
}

template <class Count>
void expect_device_selections_match(Count&& count, bool fp32_denormals = true) {
    const auto reference = create_engine("reference");
    for (const SelectionCase& c : device_selection_cases(fp32_denormals)) {
        SCOPED_TRACE(c.what);
        const std::optional<Result> counted = counted_case(count, c);
        if (!counted) continue;
        const Result& got = *counted;
        const Request host = host_request(c);
        if (c.request.roi || c.request.tiles.count() > 1) {
            // Regions: against the reference's host mask, itself checked against select() in
            // test_masks.cpp (RoiAndTilesSeeTheMaskAtTheirOwnCoordinates).
            expect_same_histograms(got, reference->compute(c.image.view, host), c.what);
            continue;
        }
        const Selected s = select(c.image.view, c.use_mask ? &c.mask : nullptr, c.request.alpha_threshold);
        expect_same_channels(got.channels, reference_of_selected(c.image.view, s, c.request).channels);
        EXPECT_EQ(got.counted_pixels, s.count);
    }
}

}  // namespace imghist::testing
