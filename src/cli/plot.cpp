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
#include <cairo.h>
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

namespace {

// Logical canvas; PNGs are rendered at kPngScale for sharp lines on high-density screens.
constexpr double kWidth = 960, kHeight = 540, kPngScale = 2.0;
constexpr double kLeft = 76, kRight = 30, kTop = 84, kBottom = 104;

struct Rgb {
    double r, g, b;
};
constexpr Rgb kBackground{0.137, 0.137, 0.141}, kPlotBackground{0.086, 0.086, 0.090};
constexpr Rgb kGrid{0.22, 0.22, 0.23}, kAxisText{0.62, 0.62, 0.64}, kTitle{0.93, 0.93, 0.94};
constexpr Rgb kDim{0.42, 0.42, 0.44};

struct ChannelStyle {
    Rgb colour;
    double fill_alpha, line_alpha, line_width;
    bool dashed;
    const char* label;
};

ChannelStyle style_for(Channel c) {
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

void set_rgb(cairo_t* cr, Rgb c, double alpha = 1.0) { cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha); }

void font(cairo_t* cr, double size, bool bold = false) {
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

double text_width(cairo_t* cr, const std::string& s) {
    cairo_text_extents_t e;
    cairo_text_extents(cr, s.c_str(), &e);
    return e.x_advance;
}

// align: 0 = left, 0.5 = centre, 1 = right (x is the anchor); y is the baseline.
void text(cairo_t* cr, double x, double y, const std::string& s, double align = 0) {
    cairo_move_to(cr, x - align * text_width(cr, s), y);
    cairo_show_text(cr, s.c_str());
}

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

std::string percent(double share) {
    char buf[32];
    if (share == 0) return "0%";
    if (share < 0.0001) return "<0.01%";
    if (share < 0.1) std::snprintf(buf, sizeof buf, "%.2f%%", share * 100);
    else std::snprintf(buf, sizeof buf, "%.1f%%", share * 100);
    return buf;
}

struct Frame {
    double x0, y0, w, h;  // plot area
    std::uint32_t bins;
    double x_of_bin(double k) const { return x0 + w * k / bins; }
};

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

void draw(cairo_t* cr, const Result& result, const PlotOptions& opt) {
    const BinLayout layout = result.channels.front().layout;
    const FormatInfo& fi = format_info(result.format);
    const bool integer = !fi.is_float();
    const Frame f{kLeft, kTop, kWidth - kLeft - kRight, kHeight - kTop - kBottom, layout.bins};
    const double base = f.y0 + f.h;

    // Order: filled areas (luminance / gray) at the back, colour curves over them.
    std::vector<const ChannelHistogram*> order;
    for (const auto& c : result.channels)
        if (is_area(c.channel)) order.push_back(&c);
    for (const auto& c : result.channels)
        if (!is_area(c.channel)) order.push_back(&c);

    // --- vertical scale ---------------------------------------------------------------------
    // Linear: scaled to the interior bins, so a spike of clipped pixels in an end bin does not
    // flatten the rest (it is drawn cut off, with a marker). Log: log10(1 + count).
    std::uint64_t interior_max = 0, all_max = 0;
    for (const auto* c : order) {
        const auto& v = c->counts;
        for (std::size_t k = 0; k < v.size(); ++k) {
            all_max = std::max(all_max, v[k]);
            if (k != 0 && k + 1 != v.size()) interior_max = std::max(interior_max, v[k]);
        }
    }
    if (interior_max == 0) interior_max = all_max;
    const auto fy = [&](double c) { return opt.log ? std::log10(1.0 + c) : c; };
    double top;
    if (opt.log) top = std::max(fy(double(all_max)) * 1.06, 1.0);
    else top = std::max(double(interior_max) * 1.08, 1.0);
    const auto y_of = [&](double c) { return base - f.h * std::min(fy(c) / top, 1.0); };

    // --- background, title --------------------------------------------------------------------
    set_rgb(cr, kBackground);
    cairo_paint(cr);
    set_rgb(cr, kPlotBackground);
    cairo_rectangle(cr, f.x0, f.y0, f.w, f.h);
    cairo_fill(cr);

    // Legend, right-aligned on the title line.
    font(cr, 12.5);
    double lx = kWidth - kRight;
    std::vector<const ChannelHistogram*> legend(result.channels.size());
    for (std::size_t i = 0; i < result.channels.size(); ++i) legend[i] = &result.channels[result.channels.size() - 1 - i];
    const double legend_y = 34;
    for (const auto* c : legend) {
        const ChannelStyle s = style_for(c->channel);
        const double tw = text_width(cr, s.label);
        lx -= tw;
        set_rgb(cr, kAxisText);
        text(cr, lx, legend_y + 4.5, s.label);
        lx -= 20;
        cairo_rectangle(cr, lx, legend_y - 6, 13, 13);
        set_rgb(cr, s.colour, is_area(c->channel) ? s.fill_alpha * 1.6 : 0.35);
        cairo_fill_preserve(cr);
        set_rgb(cr, s.colour, s.line_alpha);
        cairo_set_line_width(cr, 1.2);
        if (s.dashed) { const double d[] = {3, 2}; cairo_set_dash(cr, d, 2, 0); }
        cairo_stroke(cr);
        cairo_set_dash(cr, nullptr, 0, 0);
        lx -= 16;
    }
    font(cr, 20, true);
    set_rgb(cr, kTitle);
    text(cr, kLeft, 40, fit(cr, opt.title, std::max(100.0, lx - kLeft - 12)));
    font(cr, 12.5);
    set_rgb(cr, kAxisText);
    text(cr, kLeft, 62, fit(cr, opt.subtitle, kWidth - kLeft - kRight));

    // --- grid and axes ------------------------------------------------------------------------
    cairo_set_line_width(cr, 1.0);
    // x positions of sample values: integers sit at the centre of their bin; the float rule's
    // top bin (1.0 and above) sits right of 1.0.
    const auto x_of_value = [&](double v) {
        double t = (v - layout.lo) / (layout.hi - layout.lo);
        if (layout.closed_top) return f.x_of_bin(t * (layout.bins - 1));
        if (integer) t = (v + 0.5 - layout.lo) / (layout.hi - layout.lo);
        return f.x0 + f.w * t;
    };
    std::vector<double> xticks;
    double xstep = 1;
    if (integer && layout.lo == 0 && (layout.hi == 256 || layout.hi == 65536)) {
        const double q = layout.hi / 4;
        xticks = {0, q, 2 * q, 3 * q, layout.hi - 1};
        xstep = 1;
    } else {
        const double hi = integer ? layout.hi - 1 : layout.hi;
        xstep = nice_step(hi - layout.lo, 8);
        if (integer) xstep = std::max(1.0, std::round(xstep));
        for (double v = std::ceil(layout.lo / xstep) * xstep; v <= hi + xstep * 1e-9; v += xstep)
            xticks.push_back(std::fabs(v) < xstep * 1e-9 ? 0.0 : v);
    }
    font(cr, 11.5);
    for (double v : xticks) {
        const double x = std::round(x_of_value(v)) + 0.5;
        set_rgb(cr, kGrid);
        cairo_move_to(cr, x, f.y0);
        cairo_line_to(cr, x, base + 5);
        cairo_stroke(cr);
        set_rgb(cr, kAxisText);
        text(cr, x, base + 19, format_number(v, xstep), 0.5);
    }
    // y grid
    std::vector<std::pair<double, std::string>> yticks;  // (count, label)
    if (opt.log) {
        for (double c = 1; fy(c) <= top; c *= 10) yticks.emplace_back(c, si(c));
    } else {
        const double step = std::max(1.0, nice_step(top, 5));
        for (double c = 0; c <= top; c += step) yticks.emplace_back(c, si(c));
    }
    for (const auto& [c, label] : yticks) {
        const double y = std::round(y_of(c)) + 0.5;
        set_rgb(cr, kGrid);
        cairo_move_to(cr, f.x0 - 5, y);
        cairo_line_to(cr, f.x0 + f.w, y);
        cairo_stroke(cr);
        set_rgb(cr, kAxisText);
        text(cr, f.x0 - 9, y + 4, label, 1.0);
    }
    // axis titles
    std::string xtitle;
    if (layout.closed_top) xtitle = "value  (last bin: 1.0 and above)";
    else if (fi.sample == SampleType::u8) xtitle = "8-bit value";
    else if (fi.sample == SampleType::u16) xtitle = "16-bit value";
    else xtitle = "value";
    if (!layout.closed_top && !(layout.bins == 256 && layout.lo == 0 && integer &&
                                (layout.hi == 256 || layout.hi == 65536)))
        xtitle += "  (" + describe_layout(layout) + ")";
    font(cr, 12);
    set_rgb(cr, kAxisText);
    text(cr, f.x0 + f.w / 2, base + 40, xtitle, 0.5);
    cairo_save(cr);
    cairo_translate(cr, 20, f.y0 + f.h / 2);
    cairo_rotate(cr, -M_PI / 2);
    text(cr, 0, 0, opt.log ? "pixels per bin (log scale)" : "pixels per bin", 0.5);
    cairo_restore(cr);

    // --- curves -------------------------------------------------------------------------------
    cairo_save(cr);
    cairo_rectangle(cr, f.x0, f.y0 - 1, f.w, f.h + 1);
    cairo_clip(cr);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    const bool steps = layout.bins <= 64;
    const auto trace = [&](const ChannelHistogram& h, bool close) {
        if (steps) {
            cairo_move_to(cr, f.x_of_bin(0), close ? base : y_of(double(h.counts[0])));
            for (std::uint32_t k = 0; k < h.layout.bins; ++k) {
                cairo_line_to(cr, f.x_of_bin(k), y_of(double(h.counts[k])));
                cairo_line_to(cr, f.x_of_bin(k + 1), y_of(double(h.counts[k])));
            }
        } else {
            const auto pts = curve_points(h, f);
            cairo_move_to(cr, f.x_of_bin(0), close ? base : y_of(double(pts.front().count)));
            cairo_line_to(cr, f.x_of_bin(0), y_of(double(pts.front().count)));
            for (const Point& p : pts) cairo_line_to(cr, p.x, y_of(double(p.count)));
            cairo_line_to(cr, f.x_of_bin(h.layout.bins), y_of(double(pts.back().count)));
        }
        if (close) {
            cairo_line_to(cr, f.x_of_bin(h.layout.bins), base);
            cairo_close_path(cr);
        }
    };
    for (const auto* c : order) {
        const ChannelStyle s = style_for(c->channel);
        if (s.fill_alpha <= 0) continue;
        trace(*c, true);
        set_rgb(cr, s.colour, s.fill_alpha);
        cairo_fill(cr);
    }
    for (const auto* c : order) {
        const ChannelStyle s = style_for(c->channel);
        if (s.line_width <= 0) continue;
        trace(*c, false);
        set_rgb(cr, s.colour, s.line_alpha);
        cairo_set_line_width(cr, s.line_width);
        if (s.dashed) { const double d[] = {5, 3}; cairo_set_dash(cr, d, 2, 0); }
        cairo_stroke(cr);
        cairo_set_dash(cr, nullptr, 0, 0);
    }
    cairo_restore(cr);

    // End bins cut off by the linear scale: a small arrow at the top, in the channel's colour.
    if (!opt.log) {
        for (int end = 0; end < 2; ++end) {
            int stack = 0;
            for (const auto* c : order) {
                const std::uint64_t v = end == 0 ? c->counts.front() : c->counts.back();
                if (fy(double(v)) <= top) continue;
                const double cx = end == 0 ? f.x_of_bin(0.5) : f.x_of_bin(layout.bins - 0.5);
                const double x = std::clamp(cx, f.x0 + 6, f.x0 + f.w - 6);
                const double y = f.y0 + 3 + 9 * stack++;
                cairo_move_to(cr, x, y);
                cairo_line_to(cr, x + 5, y + 7);
                cairo_line_to(cr, x - 5, y + 7);
                cairo_close_path(cr);
                set_rgb(cr, style_for(c->channel).colour, 0.95);
                cairo_fill(cr);
            }
        }
    }

    // plot frame
    set_rgb(cr, kGrid);
    cairo_set_line_width(cr, 1.0);
    cairo_rectangle(cr, f.x0 + 0.5, f.y0 + 0.5, f.w - 1, f.h - 1);
    cairo_stroke(cr);

    // --- clipped shares at both ends ------------------------------------------------------------
    const double row = base + 66;
    for (int end = 0; end < 2; ++end) {
        // Build the pieces, then lay them out from the matching edge.
        struct Piece { std::string text; Rgb colour; bool bold; };
        std::vector<Piece> pieces;
        // The shares of the samples at the extreme values, exact whatever the bins.
        const char* extreme = !integer ? (end == 0 ? "<= 0" : ">= 1")
                                       : (end == 0 ? "0" : fi.sample == SampleType::u8 ? "255" : "65535");
        pieces.push_back({std::string(end == 0 ? "clipped low (" : "clipped high (") + extreme + ")", kAxisText, false});
        for (const auto& c : result.channels) {
            const ChannelStats s = c.stats();
            const std::optional<double> share = end == 0 ? s.clipped_low : s.clipped_high;
            const std::string name(channel_name(c.channel));
            pieces.push_back({name + " " + (share ? percent(*share) : "-"),
                              share.value_or(0) > 0 ? style_for(c.channel).colour : kDim, share.value_or(0) >= 0.01});
        }
        // Values outside a custom range that were not binned (no --clamp).
        if (!layout.clamp && !layout.closed_top) {
            double worst = 0;
            for (const auto& c : result.channels) {
                const double n = double(c.stats().count + c.below + c.above + c.nan);
                const double out = double(end == 0 ? c.below : c.above);
                if (n > 0) worst = std::max(worst, out / n);
            }
            if (worst > 0) {
                const std::string note = percent(worst) + (end == 0 ? " below the range" : " above the range") +
                                         " (not binned)";
                font(cr, 11.5);
                set_rgb(cr, Rgb{0.95, 0.75, 0.35});
                text(cr, end == 0 ? f.x0 + 18 : f.x0 + f.w - 18, row + 18, note, end == 0 ? 0.0 : 1.0);
            }
        }
        if (end == 1) std::rotate(pieces.begin(), pieces.begin() + 1, pieces.end());
        // The indicator: a triangle lit in the colour of the channels that clip (white = all).
        Rgb lit{0, 0, 0};
        bool any = false;
        for (const auto& c : result.channels) {
            const ChannelStats s = c.stats();
            if ((end == 0 ? s.clipped_low : s.clipped_high).value_or(0) <= 0) continue;
            any = true;
            if (c.channel == Channel::R) lit.r = 1;
            if (c.channel == Channel::G) lit.g = 1;
            if (c.channel == Channel::B) lit.b = 1;
            if (c.channel == Channel::gray) lit = {1, 1, 1};
        }
        if (any && lit.r + lit.g + lit.b == 0) lit = {1, 1, 1};  // only Y or A clip
        const Rgb tri = any ? Rgb{0.25 + 0.75 * lit.r, 0.25 + 0.75 * lit.g, 0.25 + 0.75 * lit.b} : kDim;
        const double tx = end == 0 ? f.x0 : f.x0 + f.w;
        const double dir = end == 0 ? 1 : -1;
        cairo_move_to(cr, tx, row - 4.5);
        cairo_line_to(cr, tx + dir * 10, row - 10);
        cairo_line_to(cr, tx + dir * 10, row + 1);
        cairo_close_path(cr);
        set_rgb(cr, tri);
        cairo_fill(cr);
        double total = 0;
        for (const auto& p : pieces) { font(cr, 12, p.bold); total += text_width(cr, p.text) + 12; }
        double x = end == 0 ? f.x0 + 18 : f.x0 + f.w - 18 - total + 12;
        for (const auto& p : pieces) {
            font(cr, 12, p.bold);
            set_rgb(cr, p.colour);
            text(cr, x, row, p.text);
            x += text_width(cr, p.text) + 12;
        }
    }
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
