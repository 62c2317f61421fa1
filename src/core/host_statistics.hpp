// The statistics found over the counted pixels after a backend has counted them, the same for
// every backend: value extremes (core/extremes.hpp) and sample statistics
// (core/sample_stats_pass.hpp). count_image() calls these once per counted region.
#pragma once

#include "contract/selection.h"
#include "core/extremes.hpp"
#include "core/sample_stats_pass.hpp"
#include "core/selection.hpp"

namespace imghist {

// Both, as the request asks, over a host image's pixels that `selector` lets through (all when
// null); `extremes_found` when the counting pass already found the extremes.
inline void add_host_statistics(const ImageView& image, const Request& request, const HistogramPlan& plan,
                                const PixelSelector* selector, Result& result, bool extremes_found = false) {
    if (!extremes_found) add_value_extremes(image, request, plan, selector, result);
    add_sample_stats(image, request, plan, selector, result);
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
                                 Result& result, bool extremes_found = false) {
    add_host_statistics(image, request, plan, nullptr, result, extremes_found);
}
inline void add_image_statistics(SlotCounter& counter, const DeviceImage& image, const Request& request,
                                 const HistogramPlan& plan, Result& result, bool = false) {
    add_device_statistics(counter, image, nullptr, AlphaTest{IH_ALPHA_ALL, 0}, request, plan, result);
}

}  // namespace imghist
