// The rows under the chart: at each end, the share of each channel's samples at the extreme
// value, a triangle lit in the colours that clip, and the share outside a custom range.
#ifdef IMGHIST_CLI_WITH_CAIRO

#include <optional>
#include <vector>

#include "plot_draw.hpp"
#include "sample_meaning.hpp"
#include "sensor_report.hpp"

namespace imghist::cli::plotting {

namespace {

struct Piece {
    std::string text;
    Rgb colour;
    bool bold;
};

// The label and each channel's share at this end (0 = low, 1 = high), exact whatever the bins.
std::vector<Piece> clipping_pieces(const Result& result, int end, bool camera_raw) {
    std::vector<Piece> pieces;
    pieces.push_back({clip_caption(result.format, end, camera_raw), kAxisText, false});
    for (const auto& c : result.channels) {
        const ChannelStats s = c.stats();
        const std::optional<double> share = end == 0 ? s.clipped_low : s.clipped_high;
        const std::string name = shown_channel_name(c.channel, camera_raw);
        pieces.push_back({name + " " + (share ? percent(*share) : "-"),
                          share.value_or(0) > 0 ? style_for(c.channel, camera_raw).colour : kDim, share.value_or(0) >= 0.01});
    }
    if (end == 1) std::rotate(pieces.begin(), pieces.begin() + 1, pieces.end());
    return pieces;
}

// Values outside a custom range that were not binned (no --clamp): the largest share, noted.
void draw_outside_note(cairo_t* cr, const Frame& f, const Result& result, int end, double row) {
    const BinLayout layout = result.channels.front().layout;
    if (layout.clamp || layout.closed_top) return;
    double worst = 0;
    for (const auto& c : result.channels) {
        const double n = double(c.stats().count + c.below + c.above + c.nan);
        const double out = double(end == 0 ? c.below : c.above);
        if (n > 0) worst = std::max(worst, out / n);
    }
    if (worst <= 0) return;
    const std::string note = percent(worst) + (end == 0 ? " below the range" : " above the range") + " (not binned)";
    font(cr, 11.5);
    set_rgb(cr, Rgb{0.95, 0.75, 0.35});
    text(cr, end == 0 ? f.x0 + 18 : f.x0 + f.w - 18, row + 18, note, end == 0 ? 0.0 : 1.0);
}

// The indicator's colour: the channels that clip at this end lit (white = all, or only Y or A).
Rgb indicator_colour(const Result& result, int end) {
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
    return any ? Rgb{0.25 + 0.75 * lit.r, 0.25 + 0.75 * lit.g, 0.25 + 0.75 * lit.b} : kDim;
}

void draw_indicator(cairo_t* cr, const Frame& f, Rgb colour, int end, double row) {
    const double tx = end == 0 ? f.x0 : f.x0 + f.w;
    const double dir = end == 0 ? 1 : -1;
    cairo_move_to(cr, tx, row - 4.5);
    cairo_line_to(cr, tx + dir * 10, row - 10);
    cairo_line_to(cr, tx + dir * 10, row + 1);
    cairo_close_path(cr);
    set_rgb(cr, colour);
    cairo_fill(cr);
}

// The pieces in a row from the matching edge.
void draw_pieces(cairo_t* cr, const Frame& f, const std::vector<Piece>& pieces, int end, double row) {
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

}  // namespace

void draw_clipping(cairo_t* cr, const Frame& f, const Result& result) {
    const double row = f.base() + 66;
    for (int end = 0; end < 2; ++end) {
        const std::vector<Piece> pieces = clipping_pieces(result, end, f.camera_raw);
        draw_outside_note(cr, f, result, end, row);
        draw_indicator(cr, f, indicator_colour(result, end), end, row);
        draw_pieces(cr, f, pieces, end, row);
    }
}

}  // namespace imghist::cli::plotting

#endif  // IMGHIST_CLI_WITH_CAIRO
