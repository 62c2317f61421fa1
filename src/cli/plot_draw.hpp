// What the chart's drawing files share (plot.cpp, plot_axes.cpp, plot_clipping.cpp): the
// canvas, colours and channel styles, text helpers, and the plot area with its vertical scale.
// Only with cairo (IMGHIST_CLI_WITH_CAIRO).
#pragma once

#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "chart_axis.hpp"
#include "imghist/result.hpp"

namespace imghist::cli::plotting {

// Logical canvas; PNGs are rendered at kPngScale for sharp lines on high-density screens.
constexpr double kWidth = 960, kHeight = 540, kPngScale = 2.0;
constexpr double kLeft = 76, kRight = 30, kTop = 84, kBottom = 104;

struct Rgb {
    double r, g, b;
};
constexpr Rgb kBackground{0.137, 0.137, 0.141}, kPlotBackground{0.086, 0.086, 0.090};
constexpr Rgb kGrid{0.22, 0.22, 0.23}, kAxisText{0.62, 0.62, 0.64}, kTitle{0.93, 0.93, 0.94};
constexpr Rgb kDim{0.42, 0.42, 0.44};
constexpr Rgb kLevelMark{0.80, 0.50, 1.00};  // a camera raw file's black and white levels

struct ChannelStyle {
    Rgb colour;
    double fill_alpha, line_alpha, line_width;
    bool dashed;
    const char* label;
};
// `camera_raw`: the channels are a raw file's R, G1, B, G2 (G2, held as A, drawn green, dashed).
ChannelStyle style_for(Channel c, bool camera_raw = false);
// Luminance and gray are drawn as filled areas, the colours as curves.
bool is_area(Channel c);

void set_rgb(cairo_t* cr, Rgb c, double alpha = 1.0);
void font(cairo_t* cr, double size, bool bold = false);
double text_width(cairo_t* cr, const std::string& s);
// align: 0 = left, 0.5 = centre, 1 = right (x is the anchor); y is the baseline.
void text(cairo_t* cr, double x, double y, const std::string& s, double align = 0);
// "0.1%", "<0.01%", ...: a share for the clipping rows.
std::string percent(double share);

// The plot area, its bins across (at the positions of `axis`) and its counts axis (linear, or
// log10(1 + count) with `log`) up to `top`.
struct Frame {
    double x0, y0, w, h;
    std::uint32_t bins;
    const ChartAxis* axis;
    bool log;
    double top;
    bool camera_raw = false;  // the channels are named R, G1, B, G2
    double base() const { return y0 + h; }
    // x of boundary k of the bars (fractional k: between two boundaries).
    double x_of_bin(double k) const { return x0 + w * axis->fraction_of_bin(k); }
    double x_of(double axis_units) const { return x0 + w * axis->fraction_of(axis_units); }
    double fy(double c) const { return log ? std::log10(1.0 + c) : c; }
    double y_of(double c) const { return base() - h * std::min(fy(c) / top, 1.0); }
};

// plot_axes.cpp: the grid, tick labels and axis titles.
void draw_axes(cairo_t* cr, const Frame& f);
// plot_clipping.cpp: the rows of clipped shares under the plot, at both ends.
void draw_clipping(cairo_t* cr, const Frame& f, const Result& result);

}  // namespace imghist::cli::plotting
