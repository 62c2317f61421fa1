// The check every backend that finds sample statistics of device images runs the same way
// (SlotCounter::accumulate_sample_sums_device): each result's statistics equal the reference's
// over the same host pixels, bit for bit, over every format, float specials, masks, alpha
// thresholds, a roi and tiles.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "selection_checks.hpp"

namespace imghist::testing {

// The percentiles every case asks for: both ends, ranks next to them, and the middle.
inline std::vector<double> checked_percentiles() { return {0, 0.1, 1, 25, 50, 62.5, 99, 99.9, 100}; }

// The device selection cases (selection_checks.hpp) and whole images of every format and
// pattern, each asking for the sample statistics.
inline std::vector<SelectionCase> device_sample_stats_cases(bool fp32_denormals = true) {
    std::vector<SelectionCase> cases = device_selection_cases(fp32_denormals);
    std::uint64_t seed = 900;
    for (PixelFormat f : {PixelFormat::rgba8, PixelFormat::gray8, PixelFormat::rgb16, PixelFormat::rgba16,
                          PixelFormat::rgba_f16, PixelFormat::rgba_f32, PixelFormat::gray_f32})
        for (Pattern p : all_patterns) {
            const FormatInfo& fi = format_info(f);
            if (!fp32_denormals && fi.sample == SampleType::f32 && p == Pattern::specials) continue;
            for (Mode mode : {Mode::rgb, Mode::luma}) {
                Request r;
                r.mode = mode;
                cases.push_back({std::string(fi.name) + " " + pattern_name(p) + (mode == Mode::luma ? ", luma" : ""),
                                 make_image(f, 517, 33, p, ++seed, 8), random_mask(517, 33, 1), false, r});
            }
        }
    for (SelectionCase& c : cases) {
        c.request.sample_stats = true;
        c.request.percentiles = checked_percentiles();
    }
    return cases;
}

// `count(c)` counts c.image with c.mask (as Request::device_mask, when c.use_mask) and
// c.request through an interop call, as for expect_device_selections_match.
template <class Count>
void expect_device_sample_stats_match(Count&& count, bool fp32_denormals = true) {
    const auto reference = create_engine("reference");
    for (const SelectionCase& c : device_sample_stats_cases(fp32_denormals)) {
        SCOPED_TRACE(c.what);
        const std::optional<Result> got = counted_case(count, c);
        if (!got) continue;
        for (const ChannelHistogram& h : got->channels) EXPECT_TRUE(h.sample_moments) << channel_name(h.channel);
        expect_same_histograms(*got, reference->compute(c.image.view, host_request(c)), c.what);
    }
}

}  // namespace imghist::testing
