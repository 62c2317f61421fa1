// The chart's grid, tick labels and axis titles (the ticks and the x title: chart_axis.cpp).
#ifdef IMGHIST_CLI_WITH_CAIRO

#include <cstdio>
#include <utility>
#include <vector>

#include "plot_draw.hpp"

namespace imghist::cli::plotting {

namespace {

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

void draw_x_ticks(cairo_t* cr, const Frame& f) {
    font(cr, 11.5);
    for (const AxisTick& t : f.axis->ticks) {
        const double x = std::round(f.x_of(t.at)) + 0.5;
        set_rgb(cr, kGrid);
        cairo_move_to(cr, x, f.y0);
        cairo_line_to(cr, x, f.base() + 5);
        cairo_stroke(cr);
        set_rgb(cr, kAxisText);
        text(cr, x, f.base() + 19, t.label, 0.5);
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

void draw_axis_titles(cairo_t* cr, const Frame& f) {
    font(cr, 12);
    set_rgb(cr, kAxisText);
    text(cr, f.x0 + f.w / 2, f.base() + 40, f.axis->title, 0.5);
    cairo_save(cr);
    cairo_translate(cr, 20, f.y0 + f.h / 2);
    cairo_rotate(cr, -M_PI / 2);
    text(cr, 0, 0, f.log ? "pixels per bin (log scale)" : "pixels per bin", 0.5);
    cairo_restore(cr);
}

}  // namespace

void draw_axes(cairo_t* cr, const Frame& f) {
    cairo_set_line_width(cr, 1.0);
    draw_x_ticks(cr, f);
    draw_y_ticks(cr, f);
    draw_axis_titles(cr, f);
}

}  // namespace imghist::cli::plotting

#endif  // IMGHIST_CLI_WITH_CAIRO
