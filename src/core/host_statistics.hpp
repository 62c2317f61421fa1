// The statistics the host finds over the counted pixels after a backend has counted them, the
// same for every backend: value extremes (core/extremes.hpp) and sample statistics
// (core/sample_stats_pass.hpp). count_image() calls this once per counted region.
#pragma once

#include "core/extremes.hpp"
#include "core/sample_stats_pass.hpp"

namespace imghist {

// Both, as the request asks; `extremes_found` when the counting pass already found the extremes.
template <class Pixels>
void add_host_statistics(const Pixels& image, const Request& request, const HistogramPlan& plan,
                         const PixelSelector* selector, Result& result, bool extremes_found = false) {
    if (!extremes_found) add_value_extremes(image, request, plan, selector, result);
    add_sample_stats(image, request, plan, selector, result);
}

}  // namespace imghist
