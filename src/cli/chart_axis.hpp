// The x axis of a histogram chart, for any bins: where each bin's bar spans and which ticks
// label it. Bins are drawn at their true positions, on a value axis, or on an EV (log2) axis
// with ticks at whole stops when the edges are EV bins (evenly spaced in log2, as --ev makes).
// python/imghist/_plot.py (chart_axis) follows the same rule, so plot() and --plot agree.
#pragma once

#include <string>
#include <vector>

#include "imghist/result.hpp"

namespace imghist::cli {

enum class AxisKind { value, ev };

struct AxisTick {
    double at;  // in axis units
    std::string label;
};

struct ChartAxis {
    AxisKind kind = AxisKind::value;
    // The bins + 1 boundaries of the bars, in axis units: values, or EV (log2 of the value).
    // The closed top bin of the float rule (1.0 and above) is one bin wide, right of 1.0.
    std::vector<double> bounds;
    std::vector<AxisTick> ticks;
    std::string title;
    // Where axis unit `at` lies across the plot, 0 at the first bound and 1 at the last.
    double fraction_of(double at) const;
    // The same for boundary k of the bars (k may be fractional: between bounds, linearly).
    double fraction_of_bin(double k) const;
};

// A round step (1, 2, 2.5 or 5 times a power of ten) giving about `target` ticks over `span`.
double nice_step(double span, int target);

// The axis of a histogram of `sample` values counted into `layout`.
ChartAxis chart_axis(const BinLayout& layout, SampleType sample);

}  // namespace imghist::cli
