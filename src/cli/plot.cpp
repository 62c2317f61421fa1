#include "plot.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "output.hpp"

#ifdef IMGHIST_CLI_WITH_CAIRO
#include <cairo-svg.h>

#include "plot_draw.hpp"
#include "sensor_report.hpp"
#endif

namespace imghist::cli {

namespace {

bool ends_with_icase(const std::string& s, const std::string& suffix) {
    if (s.size() < suffix.size()) return false;
    for (std::size_t i = 0; i < suffix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i])
            return false;
    return true;
}

}  // namespace

bool plot_path_supported(const std::string& path) {
    return ends_with_icase(path, ".png") || ends_with_icase(path, ".svg");
}

#ifndef IMGHIST_CLI_WITH_CAIRO

bool plot_available() { return false; }

void write_plot(const std::string&, const Result&, const PlotOptions&) {
    throw std::runtime_error("this imghist was built without cairo, so --plot is not available "
                             "(install libcairo2-dev and rebuild)");
}

#else

bool plot_available() { return true; }

namespace plotting {

ChannelStyle style_for(Channel c, bool camera_raw) {
    if (camera_raw && c == Channel::A) return {{0.62, 0.95, 0.45}, 0.00, 0.90, 1.4, true, "G2"};
    if (camera_raw && c != Channel::Y && c != Channel::gray) {
        ChannelStyle s = style_for(c);
        s.label = io::sensor_channel_name(io::sensor_channel_of(c));
        return s;
    }
    switch (c) {
        case Channel::R: return {{1.00, 0.32, 0.30}, 0.07, 0.95, 1.5, false, "Red"};
        case Channel::G: return {{0.32, 0.86, 0.38}, 0.07, 0.95, 1.5, false, "Green"};
        case Channel::B: return {{0.34, 0.58, 1.00}, 0.08, 0.95, 1.5, false, "Blue"};
        case Channel::A: return {{0.95, 0.82, 0.45}, 0.00, 0.90, 1.4, true, "Alpha"};
        case Channel::Y: return {{0.78, 0.78, 0.80}, 0.34, 0.35, 1.0, false, "Luminance"};
        case Channel::gray: return {{0.80, 0.80, 0.82}, 0.38, 0.85, 1.2, false, "Gray"};
    }
    return {{1, 1, 1}, 0.2, 0.9, 1.5, false, "?"};
}

bool is_area(Channel c) { return c == Channel::Y || c == Channel::gray; }

void set_rgb(cairo_t* cr, Rgb c, double alpha) { cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha); }

void font(cairo_t* cr, double size, bool bold) {
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

double text_width(cairo_t* cr, const std::string& s) {
    cairo_text_extents_t e;
    cairo_text_extents(cr, s.c_str(), &e);
    return e.x_advance;
}

void text(cairo_t* cr, double x, double y, const std::string& s, double align) {
    cairo_move_to(cr, x - align * text_width(cr, s), y);
    cairo_show_text(cr, s.c_str());
}

std::string percent(double share) {
    char buf[32];
    if (share == 0) return "0%";
    if (share < 0.0001) return "<0.01%";
    if (share < 0.1) std::snprintf(buf, sizeof buf, "%.2f%%", share * 100);
    else std::snprintf(buf, sizeof buf, "%.1f%%", share * 100);
    return buf;
}

}  // namespace plotting

using namespace plotting;

namespace {

std::string fit(cairo_t* cr, std::string s, double width) {
    if (text_width(cr, s) <= width) return s;
    const std::string ellipsis = "\u2026";
    // Keep the end of long paths (the file name) visible.
    while (s.size() > 1 && text_width(cr, ellipsis + s) > width) {
        std::size_t cut = 1;
        while (cut < s.size() && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) ++cut;
        s.erase(0, cut);
    }
    return ellipsis + s;
}

// Points (x, count) of one channel's curve: one per bin, or the maximum over a group of bins
// when there are more bins than pixels (the end bins always stay on their own).
struct Point {
    double x;
    std::uint64_t count;
};

std::vector<Point> curve_points(const ChannelHistogram& h, const Frame& f) {
    std::vector<Point> pts;
    const std::uint32_t n = h.layout.bins;
    const std::uint32_t group = std::max<std::uint32_t>(1, std::uint32_t(std::ceil(n / (f.w * 1.0))));
    if (group == 1 || n <= 3) {
        for (std::uint32_t k = 0; k < n; ++k) pts.push_back({f.x_of_bin(k + 0.5), h.counts[k]});
        return pts;
    }
    pts.push_back({f.x_of_bin(0.5), h.counts[0]});
    for (std::uint32_t k = 1; k + 1 < n; k += group) {
        const std::uint32_t end = std::min(n - 1, k + group);
        std::uint64_t m = 0;
        for (std::uint32_t i = k; i < end; ++i) m = std::max(m, h.counts[i]);
        pts.push_back({f.x_of_bin((k + end) / 2.0), m});
    }
    pts.push_back({f.x_of_bin(n - 0.5), h.counts[n - 1]});
    return pts;
}

// Filled areas (luminance / gray) at the back, colour curves over them.
std::vector<const ChannelHistogram*> drawing_order(const Result& result) {
    std::vector<const ChannelHistogram*> order;
    for (const auto& c : result.channels)
        if (is_area(c.channel)) order.push_back(&c);
    for (const auto& c : result.channels)
        if (!is_area(c.channel)) order.push_back(&c);
    return order;
}

// The top of the counts axis. Linear: scaled to the interior bins, so a spike of clipped pixels
// in an end bin does not flatten the rest (it is drawn cut off, with a marker). Log: log10(1 + count).
double counts_top(const std::vector<const ChannelHistogram*>& order, bool log) {
    std::uint64_t interior_max = 0, all_max = 0;
    for (const auto* c : order) {
        const auto& v = c->counts;
        for (std::size_t k = 0; k < v.size(); ++k) {
            all_max = std::max(all_max, v[k]);
            if (k != 0 && k + 1 != v.size()) interior_max = std::max(interior_max, v[k]);
        }
    }
    if (interior_max == 0) interior_max = all_max;
    if (log) return std::max(std::log10(1.0 + double(all_max)) * 1.06, 1.0);
    return std::max(double(interior_max) * 1.08, 1.0);
}

void draw_background(cairo_t* cr, const Frame& f) {
    set_rgb(cr, kBackground);
    cairo_paint(cr);
    set_rgb(cr, kPlotBackground);
    cairo_rectangle(cr, f.x0, f.y0, f.w, f.h);
    cairo_fill(cr);
}

// The legend, right-aligned on the title line, last channel rightmost; returns its left edge.
double draw_legend(cairo_t* cr, const Result& result, bool camera_raw) {
    font(cr, 12.5);
    double lx = kWidth - kRight;
    const double legend_y = 34;
    for (auto it = result.channels.rbegin(); it != result.channels.rend(); ++it) {
        const ChannelStyle s = style_for(it->channel, camera_raw);
        lx -= text_width(cr, s.label);
        set_rgb(cr, kAxisText);
        text(cr, lx, legend_y + 4.5, s.label);
        lx -= 20;
        cairo_rectangle(cr, lx, legend_y - 6, 13, 13);
        set_rgb(cr, s.colour, is_area(it->channel) ? s.fill_alpha * 1.6 : 0.35);
        cairo_fill_preserve(cr);
        set_rgb(cr, s.colour, s.line_alpha);
        cairo_set_line_width(cr, 1.2);
        if (s.dashed) { const double d[] = {3, 2}; cairo_set_dash(cr, d, 2, 0); }
        cairo_stroke(cr);
        cairo_set_dash(cr, nullptr, 0, 0);
        lx -= 16;
    }
    return lx;
}

void draw_titles(cairo_t* cr, const PlotOptions& opt, double legend_left) {
    font(cr, 20, true);
    set_rgb(cr, kTitle);
    text(cr, kLeft, 40, fit(cr, opt.title, std::max(100.0, legend_left - kLeft - 12)));
    font(cr, 12.5);
    set_rgb(cr, kAxisText);
    text(cr, kLeft, 62, fit(cr, opt.subtitle, kWidth - kLeft - kRight));
}

// One channel's outline: steps for few bins, else its curve points; `close` makes it an area.
void trace(cairo_t* cr, const Frame& f, const ChannelHistogram& h, bool close) {
    const double base = f.base();
    if (f.bins <= 64) {
        cairo_move_to(cr, f.x_of_bin(0), close ? base : f.y_of(double(h.counts[0])));
        for (std::uint32_t k = 0; k < h.layout.bins; ++k) {
            cairo_line_to(cr, f.x_of_bin(k), f.y_of(double(h.counts[k])));
            cairo_line_to(cr, f.x_of_bin(k + 1), f.y_of(double(h.counts[k])));
        }
    } else {
        const auto pts = curve_points(h, f);
        cairo_move_to(cr, f.x_of_bin(0), close ? base : f.y_of(double(pts.front().count)));
        cairo_line_to(cr, f.x_of_bin(0), f.y_of(double(pts.front().count)));
        for (const Point& p : pts) cairo_line_to(cr, p.x, f.y_of(double(p.count)));
        cairo_line_to(cr, f.x_of_bin(h.layout.bins), f.y_of(double(pts.back().count)));
    }
    if (close) {
        cairo_line_to(cr, f.x_of_bin(h.layout.bins), base);
        cairo_close_path(cr);
    }
}

void draw_curves(cairo_t* cr, const Frame& f, const std::vector<const ChannelHistogram*>& order) {
    cairo_save(cr);
    cairo_rectangle(cr, f.x0, f.y0 - 1, f.w, f.h + 1);
    cairo_clip(cr);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    for (const auto* c : order) {
        const ChannelStyle s = style_for(c->channel, f.camera_raw);
        if (s.fill_alpha <= 0) continue;
        trace(cr, f, *c, true);
        set_rgb(cr, s.colour, s.fill_alpha);
        cairo_fill(cr);
    }
    for (const auto* c : order) {
        const ChannelStyle s = style_for(c->channel, f.camera_raw);
        if (s.line_width <= 0) continue;
        trace(cr, f, *c, false);
        set_rgb(cr, s.colour, s.line_alpha);
        cairo_set_line_width(cr, s.line_width);
        if (s.dashed) { const double d[] = {5, 3}; cairo_set_dash(cr, d, 2, 0); }
        cairo_stroke(cr);
        cairo_set_dash(cr, nullptr, 0, 0);
    }
    cairo_restore(cr);
}

// End bins cut off by the linear scale: a small arrow at the top, in the channel's colour.
void draw_cut_markers(cairo_t* cr, const Frame& f, const std::vector<const ChannelHistogram*>& order) {
    if (f.log) return;
    for (int end = 0; end < 2; ++end) {
        int stack = 0;
        for (const auto* c : order) {
            const std::uint64_t v = end == 0 ? c->counts.front() : c->counts.back();
            if (f.fy(double(v)) <= f.top) continue;
            const double cx = end == 0 ? f.x_of_bin(0.5) : f.x_of_bin(f.bins - 0.5);
            const double x = std::clamp(cx, f.x0 + 6, f.x0 + f.w - 6);
            const double y = f.y0 + 3 + 9 * stack++;
            cairo_move_to(cr, x, y);
            cairo_line_to(cr, x + 5, y + 7);
            cairo_line_to(cr, x - 5, y + 7);
            cairo_close_path(cr);
            set_rgb(cr, style_for(c->channel, f.camera_raw).colour, 0.95);
            cairo_fill(cr);
        }
    }
}

void draw_frame(cairo_t* cr, const Frame& f) {
    set_rgb(cr, kGrid);
    cairo_set_line_width(cr, 1.0);
    cairo_rectangle(cr, f.x0 + 0.5, f.y0 + 0.5, f.w - 1, f.h - 1);
    cairo_stroke(cr);
}

// A camera raw file's levels (sensor_marks): a dashed vertical line each, labelled at the top,
// the labels of the right half left of their line.
void draw_level_marks(cairo_t* cr, const Frame& f, const std::vector<LevelMark>& marks) {
    font(cr, 11);
    set_rgb(cr, kLevelMark);
    cairo_set_line_width(cr, 1.2);
    for (std::size_t i = 0; i < marks.size(); ++i) {
        const double x = std::round(f.x_of(marks[i].at)) + 0.5;
        const double dash[] = {4, 3};
        cairo_set_dash(cr, dash, 2, 0);
        cairo_move_to(cr, x, f.y0);
        cairo_line_to(cr, x, f.base());
        cairo_stroke(cr);
        cairo_set_dash(cr, nullptr, 0, 0);
        const bool right_half = x > f.x0 + f.w / 2;
        // A row of its own below every earlier label near it: four channels' black levels a few
        // raw units apart would otherwise print over one another.
        int row = 0;
        for (std::size_t j = 0; j < i; ++j)
            if (std::fabs(f.x_of(marks[j].at) - f.x_of(marks[i].at)) < 160) ++row;
        text(cr, right_half ? x - 4 : x + 4, f.y0 + 14 + 13 * double(row), marks[i].label, right_half ? 1.0 : 0.0);
    }
}

void draw(cairo_t* cr, const Result& result, const PlotOptions& opt) {
    const BinLayout layout = result.channels.front().layout;
    const std::vector<const ChannelHistogram*> order = drawing_order(result);
    ChartAxis axis = chart_axis(layout, format_info(result.format).sample);
    if (opt.sensor && opt.sensor->ev_per_stop) axis.title = sensor_axis_title(*opt.sensor);
    const bool camera_raw = opt.camera_raw || opt.sensor;
    const Frame f{kLeft, kTop, kWidth - kLeft - kRight, kHeight - kTop - kBottom, layout.bins,
                  &axis, opt.log, counts_top(order, opt.log), camera_raw};
    draw_background(cr, f);
    draw_titles(cr, opt, draw_legend(cr, result, camera_raw));
    draw_axes(cr, f);
    draw_curves(cr, f, order);
    draw_cut_markers(cr, f, order);
    if (opt.sensor) draw_level_marks(cr, f, sensor_marks(axis, layout, *opt.sensor));
    draw_frame(cr, f);
    draw_clipping(cr, f, result);
}

void check(cairo_status_t status, const std::string& what) {
    if (status != CAIRO_STATUS_SUCCESS)
        throw std::runtime_error(what + ": " + cairo_status_to_string(status));
}

}  // namespace

void write_plot(const std::string& path, const Result& result, const PlotOptions& options) {
    if (result.channels.empty()) throw std::runtime_error("nothing to plot");
    if (ends_with_icase(path, ".svg")) {
        cairo_surface_t* surface = cairo_svg_surface_create(path.c_str(), kWidth, kHeight);
        cairo_t* cr = cairo_create(surface);
        draw(cr, result, options);
        const cairo_status_t drawn = cairo_status(cr);
        cairo_destroy(cr);
        cairo_surface_finish(surface);
        const cairo_status_t written = cairo_surface_status(surface);
        cairo_surface_destroy(surface);
        check(drawn, "cannot draw the plot");
        check(written, "cannot write " + path);
        return;
    }
    if (!ends_with_icase(path, ".png"))
        throw std::runtime_error("the plot file must end in .png or .svg: " + path);
    cairo_surface_t* surface = cairo_image_surface_create(
        CAIRO_FORMAT_RGB24, int(kWidth * kPngScale), int(kHeight * kPngScale));
    cairo_t* cr = cairo_create(surface);
    cairo_scale(cr, kPngScale, kPngScale);
    draw(cr, result, options);
    const cairo_status_t drawn = cairo_status(cr);
    cairo_destroy(cr);
    cairo_status_t written = CAIRO_STATUS_SUCCESS;
    if (drawn == CAIRO_STATUS_SUCCESS) written = cairo_surface_write_to_png(surface, path.c_str());
    cairo_surface_destroy(surface);
    check(drawn, "cannot draw the plot");
    check(written, "cannot write " + path);
}

#endif  // IMGHIST_CLI_WITH_CAIRO

}  // namespace imghist::cli
