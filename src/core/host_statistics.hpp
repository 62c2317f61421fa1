// The statistics found over the counted pixels after a backend has counted them, the same for
// every backend: value extremes (core/extremes.hpp) and sample statistics
// (core/sample_stats_pass.hpp). count_image() calls these once per counted region.
#pragma once

#include <optional>
#include <type_traits>

#include "contract/selection.h"
#include "core/backend_engine.hpp"
#include "core/extremes.hpp"
#include "core/sample_stats_pass.hpp"
#include "core/selection.hpp"

namespace imghist {

// Both, as the request asks, over a host image's pixels that `selector` lets through (all when
// null); `extremes_found` when the counting pass already found the extremes, `in_pass` where it
// took the sample statistics' first pass.
inline void add_host_statistics(const ImageView& image, const Request& request, const HistogramPlan& plan,
                                const PixelSelector* selector, Result& result, bool extremes_found = false,
                                SampleStatsInPass* in_pass = nullptr) {
    if (!extremes_found) add_value_extremes(image, request, plan, selector, result);
    add_sample_stats(image, request, plan, selector, result, in_pass);
}

// Both for a device image, over the pixels `mask` and `alpha` select: found by the backend where
// the pixels lie, or a note.
inline void add_device_statistics(SlotCounter& counter, const DeviceImage& image, const DeviceImage* mask,
                                  const AlphaTest& alpha, const Request& request, const HistogramPlan& plan,
                                  Result& result) {
    add_value_extremes(image, request, plan, nullptr, result);
    add_sample_stats(counter, image, mask, alpha, request, plan, result);
}

// Every pixel of either kind of image.
inline void add_image_statistics(SlotCounter&, const ImageView& image, const Request& request, const HistogramPlan& plan,
                                 Result& result, bool extremes_found = false, SampleStatsInPass* in_pass = nullptr) {
    add_host_statistics(image, request, plan, nullptr, result, extremes_found, in_pass);
}
inline void add_image_statistics(SlotCounter& counter, const DeviceImage& image, const Request& request,
                                 const HistogramPlan& plan, Result& result, bool = false, SampleStatsInPass* = nullptr) {
    add_device_statistics(counter, image, nullptr, AlphaTest{IH_ALPHA_ALL, 0}, request, plan, result);
}

// The sample statistics' first pass inside the counting pass of a backend that takes it
// (SlotCounter::finds_sample_stats), for a host image whose statistics need a pass over the
// pixels; none otherwise (then add_sample_stats() makes a pass of its own).
class SampleStatsInThePass {
public:
    template <class Pixels>
    SampleStatsInThePass(SlotCounter& counter, const Pixels&, const Request& request, const HistogramPlan& plan)
        : counter_(counter) {
        if (std::is_same_v<Pixels, ImageView> && request.sample_stats && !counts_are_values(plan) &&
            counter.finds_sample_stats())
            in_pass_.emplace(plan, request.percentiles);
        counter.set_sample_stats_in_pass(in_pass_ ? &*in_pass_ : nullptr);
    }
    ~SampleStatsInThePass() { end(); }
    SampleStatsInThePass(const SampleStatsInThePass&) = delete;
    SampleStatsInThePass& operator=(const SampleStatsInThePass&) = delete;
    // The counting pass is over: later passes (the clipping plan's) must not add to it.
    void end() { counter_.set_sample_stats_in_pass(nullptr); }
    SampleStatsInPass* in_pass() { return in_pass_ ? &*in_pass_ : nullptr; }

private:
    SlotCounter& counter_;
    std::optional<SampleStatsInPass> in_pass_;
};

}  // namespace imghist
