#include "chart_axis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "output.hpp"

namespace imghist::cli {

namespace {

constexpr int kTargetTicks = 8;

// v with as many decimals as the step needs.
std::string format_number(double v, double step) {
    char buf[64];
    int decimals = 0;
    while (decimals < 6 && std::fabs(step * std::pow(10.0, decimals) - std::round(step * std::pow(10.0, decimals))) > 1e-9)
        ++decimals;
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

// EV bins: edge bins, all above zero, evenly spaced in log2 (to the fp32 rounding of the edges).
bool ev_bins(const BinLayout& layout) {
    const std::vector<double>& e = layout.edges;
    if (e.size() < 3 || e.front() <= 0) return false;
    const double step = (std::log2(e.back()) - std::log2(e.front())) / double(e.size() - 1);
    for (std::size_t k = 1; k < e.size(); ++k)
        if (std::fabs(std::log2(e[k]) - std::log2(e[k - 1]) - step) > 1e-4 * step + 1e-6) return false;
    return true;
}

// The default bins of 8- and 16-bit samples: ticks at quarters, no layout in the axis title.
bool default_integer_bins(const BinLayout& layout) {
    return layout.integer && layout.lo == 0 && (layout.hi == 256 || layout.hi == 65536);
}

// Ticks at whole stops, every 1, 2, 4, 8 ... stops for about kTargetTicks; labelled in EV.
std::vector<AxisTick> ev_ticks(double first, double last) {
    double step = 1;
    while ((last - first) / step > kTargetTicks) step *= 2;
    std::vector<AxisTick> ticks;
    for (double ev = std::ceil(first / step - 1e-9) * step; ev <= last + 1e-9; ev += step)
        ticks.push_back({ev, format_number(ev == 0 ? 0.0 : ev, 1)});
    return ticks;
}

// Round values over the layout; an integer value sits at the centre of its unit, [v, v + 1).
std::vector<AxisTick> value_ticks(const BinLayout& layout) {
    const double centre = layout.integer ? 0.5 : 0.0;
    std::vector<double> values;
    double step = 1;
    if (default_integer_bins(layout)) {
        const double q = layout.hi / 4;
        values = {0, q, 2 * q, 3 * q, layout.hi - 1};
    } else {
        const double hi = layout.integer ? layout.hi - 1 : layout.hi;
        step = nice_step(hi - layout.lo, kTargetTicks);
        if (layout.integer) step = std::max(1.0, std::round(step));
        for (double v = std::ceil(layout.lo / step) * step; v <= hi + step * 1e-9; v += step)
            values.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
    }
    std::vector<AxisTick> ticks;
    for (double v : values) ticks.push_back({v + centre, format_number(v, step)});
    return ticks;
}

std::string value_title(const BinLayout& layout, SampleType sample) {
    if (layout.closed_top) return "value  (last bin: 1.0 and above)";
    std::string title = sample == SampleType::u8 ? "8-bit value" : sample == SampleType::u16 ? "16-bit value" : "value";
    if (!(layout.bins == 256 && default_integer_bins(layout))) title += "  (" + describe_layout(layout) + ")";
    return title;
}

}  // namespace

double nice_step(double span, int target) {
    const double raw = span / std::max(1, target);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * mag >= raw) return m * mag;
    return 10 * mag;
}

double ChartAxis::fraction_of(double at) const { return (at - bounds.front()) / (bounds.back() - bounds.front()); }

double ChartAxis::fraction_of_bin(double k) const {
    const double bins = double(bounds.size() - 1);
    k = std::clamp(k, 0.0, bins);
    const auto i = std::size_t(std::min(std::floor(k), bins - 1));
    return fraction_of(bounds[i] + (k - double(i)) * (bounds[i + 1] - bounds[i]));
}

ChartAxis chart_axis(const BinLayout& layout, SampleType sample) {
    ChartAxis axis;
    for (std::uint32_t k = 0; k <= layout.bins; ++k) axis.bounds.push_back(bin_lower_edge(layout, k));
    if (ev_bins(layout)) {
        axis.kind = AxisKind::ev;
        for (double& b : axis.bounds) b = std::log2(b);
        axis.ticks = ev_ticks(axis.bounds.front(), axis.bounds.back());
        axis.title = "EV  (log2 of the value, 0 = 1.0;  " + describe_layout(layout) + ")";
        return axis;
    }
    axis.ticks = value_ticks(layout);
    axis.title = value_title(layout, sample);
    return axis;
}

}  // namespace imghist::cli
