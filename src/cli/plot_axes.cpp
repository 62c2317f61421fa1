// The chart's grid, tick labels and axis titles.
#ifdef IMGHIST_CLI_WITH_CAIRO

#include <cstdio>
#include <utility>
#include <vector>

#include "output.hpp"
#include "plot_draw.hpp"

namespace imghist::cli::plotting {

namespace {

std::string format_number(double v, double step) {
    char buf[64];
    int decimals = 0;
    while (decimals < 6 && std::fabs(step * std::pow(10.0, decimals) -
                                     std::round(step * std::pow(10.0, decimals))) > 1e-9)
        ++decimals;
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string si(double v) {
    char buf[64];
    const char* suffix = "";
    double scaled = v;
    if (v >= 1e9) { scaled = v / 1e9; suffix = "G"; }
    else if (v >= 1e6) { scaled = v / 1e6; suffix = "M"; }
    else if (v >= 1e3) { scaled = v / 1e3; suffix = "k"; }
    if (std::fabs(scaled - std::round(scaled)) < 1e-9) std::snprintf(buf, sizeof buf, "%.0f%s", scaled, suffix);
    else std::snprintf(buf, sizeof buf, "%.3g%s", scaled, suffix);
    return buf;
}

double nice_step(double span, int target) {
    const double raw = span / std::max(1, target);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * mag >= raw) return m * mag;
    return 10 * mag;
}

// The default bins of 8- and 16-bit samples: ticks at quarters, no layout in the axis title.
bool default_integer_bins(const BinLayout& layout, bool integer) {
    return integer && layout.lo == 0 && (layout.hi == 256 || layout.hi == 65536);
}

// x positions of sample values: integers sit at the centre of their bin; the float rule's
// top bin (1.0 and above) sits right of 1.0.
double x_of_value(const Frame& f, const BinLayout& layout, bool integer, double v) {
    double t = (v - layout.lo) / (layout.hi - layout.lo);
    if (layout.closed_top) return f.x_of_bin(t * (layout.bins - 1));
    if (integer) t = (v + 0.5 - layout.lo) / (layout.hi - layout.lo);
    return f.x0 + f.w * t;
}

void draw_x_ticks(cairo_t* cr, const Frame& f, const BinLayout& layout, bool integer) {
    std::vector<double> xticks;
    double xstep = 1;
    if (default_integer_bins(layout, integer)) {
        const double q = layout.hi / 4;
        xticks = {0, q, 2 * q, 3 * q, layout.hi - 1};
    } else {
        const double hi = integer ? layout.hi - 1 : layout.hi;
        xstep = nice_step(hi - layout.lo, 8);
        if (integer) xstep = std::max(1.0, std::round(xstep));
        for (double v = std::ceil(layout.lo / xstep) * xstep; v <= hi + xstep * 1e-9; v += xstep)
            xticks.push_back(std::fabs(v) < xstep * 1e-9 ? 0.0 : v);
    }
    font(cr, 11.5);
    for (double v : xticks) {
        const double x = std::round(x_of_value(f, layout, integer, v)) + 0.5;
        set_rgb(cr, kGrid);
        cairo_move_to(cr, x, f.y0);
        cairo_line_to(cr, x, f.base() + 5);
        cairo_stroke(cr);
        set_rgb(cr, kAxisText);
        text(cr, x, f.base() + 19, format_number(v, xstep), 0.5);
    }
}

void draw_y_ticks(cairo_t* cr, const Frame& f) {
    std::vector<std::pair<double, std::string>> yticks;  // (count, label)
    if (f.log) {
        for (double c = 1; f.fy(c) <= f.top; c *= 10) yticks.emplace_back(c, si(c));
    } else {
        const double step = std::max(1.0, nice_step(f.top, 5));
        for (double c = 0; c <= f.top; c += step) yticks.emplace_back(c, si(c));
    }
    for (const auto& [c, label] : yticks) {
        const double y = std::round(f.y_of(c)) + 0.5;
        set_rgb(cr, kGrid);
        cairo_move_to(cr, f.x0 - 5, y);
        cairo_line_to(cr, f.x0 + f.w, y);
        cairo_stroke(cr);
        set_rgb(cr, kAxisText);
        text(cr, f.x0 - 9, y + 4, label, 1.0);
    }
}

void draw_axis_titles(cairo_t* cr, const Frame& f, const BinLayout& layout, const FormatInfo& fi) {
    const bool integer = !fi.is_float();
    std::string xtitle;
    if (layout.closed_top) xtitle = "value  (last bin: 1.0 and above)";
    else if (fi.sample == SampleType::u8) xtitle = "8-bit value";
    else if (fi.sample == SampleType::u16) xtitle = "16-bit value";
    else xtitle = "value";
    if (!layout.closed_top && !(layout.bins == 256 && default_integer_bins(layout, integer)))
        xtitle += "  (" + describe_layout(layout) + ")";
    font(cr, 12);
    set_rgb(cr, kAxisText);
    text(cr, f.x0 + f.w / 2, f.base() + 40, xtitle, 0.5);
    cairo_save(cr);
    cairo_translate(cr, 20, f.y0 + f.h / 2);
    cairo_rotate(cr, -M_PI / 2);
    text(cr, 0, 0, f.log ? "pixels per bin (log scale)" : "pixels per bin", 0.5);
    cairo_restore(cr);
}

}  // namespace

void draw_axes(cairo_t* cr, const Frame& f, const BinLayout& layout, const FormatInfo& fi) {
    cairo_set_line_width(cr, 1.0);
    draw_x_ticks(cr, f, layout, !fi.is_float());
    draw_y_ticks(cr, f);
    draw_axis_titles(cr, f, layout, fi);
}

}  // namespace imghist::cli::plotting

#endif  // IMGHIST_CLI_WITH_CAIRO
