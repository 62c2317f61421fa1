#include "imghist/error.hpp"
#include "imghist/request.hpp"

#include "contract/luminance.h"
#include "contract/regions.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace imghist {

std::optional<Mode> parse_mode(std::string_view name) {
    if (name == "rgb") return Mode::rgb;
    if (name == "luma") return Mode::luma;
    if (name == "all") return Mode::all;
    return std::nullopt;
}

std::string_view mode_name(Mode mode) {
    switch (mode) {
        case Mode::rgb: return "rgb";
        case Mode::luma: return "luma";
        case Mode::all: return "all";
    }
    return "?";
}

std::string_view channel_name(Channel channel) {
    switch (channel) {
        case Channel::R: return "R";
        case Channel::G: return "G";
        case Channel::B: return "B";
        case Channel::A: return "A";
        case Channel::Y: return "Y";
        case Channel::gray: return "gray";
    }
    return "?";
}

LumaWeights LumaWeights::parse(std::string_view text) {
    if (text == "rec709") return rec709();
    if (text == "rec601") return rec601();
    if (text == "rec2020") return rec2020();
    LumaWeights w;
    std::uint32_t* fields[] = {&w.r, &w.g, &w.b};
    std::size_t pos = 0;
    for (int i = 0; i < 3; ++i) {
        std::size_t end = text.find(',', pos);
        if ((i < 2) != (end != std::string_view::npos))
            throw InvalidArgument("luma weights must be rec709, rec601, rec2020 or WR,WG,WB; got '" +
                                  std::string(text) + "'");
        std::string_view part = text.substr(pos, end == std::string_view::npos ? end : end - pos);
        auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), *fields[i]);
        if (ec != std::errc() || ptr != part.data() + part.size() || part.empty())
            throw InvalidArgument("luma weight '" + std::string(part) +
                                  "' is not a non-negative integer");
        pos = end + 1;
    }
    w.validate();
    return w;
}

void LumaWeights::validate() const {
    if (std::uint64_t(r) + g + b != IH_LUMA_WEIGHT_SUM)
        throw InvalidArgument("luma weights are integers that must sum to " + std::to_string(IH_LUMA_WEIGHT_SUM) + " (got " +
                              std::to_string(r) + "+" + std::to_string(g) + "+" +
                              std::to_string(b) + ")");
}

namespace {

std::string range_text(const BinLayout& layout) {
    char text[128];
    std::snprintf(text, sizeof text, "range [%g, %g) with %u bins", layout.lo, layout.hi, layout.bins);
    return text;
}

// The limits of the fp32 bin sequence (docs/semantics.md, "Custom bins and range"). Within them
// every sample's k is defined, and the same on a device that flushes denormals to zero as on one
// that keeps them.
void check_float_range(const BinLayout& layout) {
    const float lo = float(layout.lo), hi = float(layout.hi);
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi))
        throw InvalidArgument("range must be distinct finite values in fp32");
    // The largest offset v - lo of a sample in range; every smaller one is finite too.
    const float widest_offset = hi - lo;
    if (!std::isfinite(widest_offset))
        throw InvalidArgument(range_text(layout) + ": HI - LO overflows fp32 (at most 3.4e38)");
    const float scale = float_bin_scale(layout);
    if (!std::isfinite(scale) || scale < std::numeric_limits<float>::min())
        throw InvalidArgument(range_text(layout) + ": the bin scale bins / (HI - LO) is not a normal fp32 number");
    // Offsets up to 2^-100 are where a flushed denormal (sample, LO or offset) can change the
    // offset; they must all land in bin 0, which scale < 2^100 guarantees. One bin is always 0.
    if (layout.bins > 1 && scale >= kMaxFloatBinScale)
        throw InvalidArgument(range_text(layout) +
                              ": bins narrower than 2^-100 (scale bins / (HI - LO) must stay below 2^100)");
}

std::string edge_text(std::size_t k, double e) {
    char text[64];
    std::snprintf(text, sizeof text, "edge %zu (%.17g)", k, e);
    return text;
}

// Edge bins (docs/semantics.md, "Edges"): float layouts keep the edges rounded to fp32, the
// values the bins compare samples with.
void resolve_edges(BinLayout& layout, const BinSpec& spec, bool is_float) {
    if (spec.bins || spec.range) throw InvalidArgument("edges exclude bins and range: the edges give both");
    const std::vector<double>& given = spec.edges;
    if (given.size() < 2 || given.size() > kMaxEdges)
        throw InvalidArgument("edges must be 2 to " + std::to_string(kMaxEdges) + " values (1 to " +
                              std::to_string(kMaxEdges - 1) + " bins); got " + std::to_string(given.size()));
    layout.edges.clear();
    for (std::size_t k = 0; k < given.size(); ++k) {
        const double e = given[k];
        if (!std::isfinite(e)) throw InvalidArgument(edge_text(k, e) + " is not finite");
        if (k > 0 && !(given[k - 1] < e))
            throw InvalidArgument("edges must be strictly increasing: " + edge_text(k, e) + " is not above " +
                                  edge_text(k - 1, given[k - 1]));
        const double counted = is_float ? double(float(e)) : e;
        if (!std::isfinite(counted)) throw InvalidArgument(edge_text(k, e) + " overflows fp32 (at most 3.4e38)");
        if (k > 0 && !(layout.edges.back() < counted))
            throw InvalidArgument(edge_text(k - 1, given[k - 1]) + " and " + edge_text(k, e) +
                                  " are one value in fp32, which float samples are compared with");
        layout.edges.push_back(counted);
    }
    layout.closed_top = false;
    layout.bins = std::uint32_t(layout.edges.size() - 1);
    layout.lo = layout.edges.front();
    layout.hi = layout.edges.back();
}

// x rounded to the nearest half-precision value (ties to even), +-Inf beyond half's largest.
double round_to_half(double x) {
    if (x == 0 || !std::isfinite(x)) return x;
    int exponent = 0;
    std::frexp(x, &exponent);  // |x| in [2^(exponent-1), 2^exponent)
    const double quantum = std::ldexp(1.0, std::max(exponent - 1, -14) - 10);  // 11 bits, subnormals from 2^-14
    const double rounded = std::nearbyint(x / quantum) * quantum;
    return std::fabs(rounded) > 65504 ? std::copysign(std::numeric_limits<double>::infinity(), x) : rounded;
}

// numpy.histogram's edges of `bins` uniform bins over [lo, hi]: numpy.linspace (lo + k * step in
// double, the last edge hi itself) in the array's float type, float64 for integer arrays. The
// fp32 rounding of float samples' edges is resolve_edges'; half samples' edges are halves.
std::vector<double> numpy_uniform_edges(std::uint32_t bins, double lo, double hi, SampleType sample) {
    if (bins == 0 || bins > kMaxEdges - 1)
        throw InvalidArgument("closed_top counts at most " + std::to_string(kMaxEdges - 1) + " bins (as edge bins); got " +
                              std::to_string(bins));
    const double step = (hi - lo) / bins;
    std::vector<double> edges(bins + 1);
    for (std::uint32_t k = 0; k < bins; ++k) edges[k] = double(k) * step + lo;
    edges[bins] = hi;
    if (sample == SampleType::f16)
        for (double& e : edges) e = round_to_half(e);
    return edges;
}

// A closed top as edge bins (docs/semantics.md, "Closed top"): the last edge moves to the
// sample type's next value above it, so that the half-open last bin holds the top itself and
// nothing above it. The kernels' edge rule is unchanged.
BinSpec closed_top_as_edges(const BinSpec& spec, SampleType sample) {
    if (spec.edges.empty() && !spec.range)
        throw InvalidArgument("closed_top needs a range or edges: the last bin closes at the range's top");
    if (!spec.edges.empty() && (spec.bins || spec.range))
        throw InvalidArgument("edges exclude bins and range: the edges give both");
    if (spec.range && !(std::isfinite(spec.range->first) && std::isfinite(spec.range->second) &&
                        spec.range->first < spec.range->second))
        throw InvalidArgument("range must be finite with LO < HI");
    BinSpec edges_spec;
    edges_spec.clamp = spec.clamp;
    edges_spec.edges = spec.edges.empty()
                           ? numpy_uniform_edges(spec.bins.value_or(256), spec.range->first, spec.range->second, sample)
                           : spec.edges;
    double& top = edges_spec.edges.back();
    if (!std::isfinite(top)) return edges_spec;  // refused as edges, with the edge named
    const bool is_float = sample == SampleType::f16 || sample == SampleType::f32;
    // Half samples too: no half lies between a half top and the next fp32 above it.
    top = is_float ? double(std::nextafter(float(top), std::numeric_limits<float>::infinity())) : std::floor(top) + 1;
    return edges_spec;
}

}  // namespace

std::vector<double> ev_edges(double lo, double hi, std::uint32_t per_stop) {
    char text[160];
    std::snprintf(text, sizeof text, "EV bins %g:%g:%u", lo, hi, per_stop);
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi))
        throw InvalidArgument(std::string(text) + ": LO and HI must be finite with LO < HI");
    if (per_stop == 0) throw InvalidArgument(std::string(text) + ": BINS_PER_STOP must be at least 1");
    const double bins = (hi - lo) * per_stop;
    const double whole = std::round(bins);
    if (std::fabs(bins - whole) > 1e-9 * std::max(1.0, whole))
        throw InvalidArgument(std::string(text) + ": (HI - LO) x BINS_PER_STOP must be a whole number of bins");
    if (whole > double(kMaxEdges - 1))
        throw InvalidArgument(std::string(text) + ": " + std::to_string(std::uint64_t(whole)) +
                              " bins, more than " + std::to_string(kMaxEdges - 1));
    std::vector<double> edges;
    for (std::uint32_t k = 0; k <= std::uint32_t(whole); ++k) {
        const float e = float(std::exp2(lo + double(k) / per_stop));
        if (!std::isnormal(e))
            throw InvalidArgument(std::string(text) + ": edge 2^" + std::to_string(lo + double(k) / per_stop) +
                                  " is not a normal fp32 number (EV must stay within -126 .. 127)");
        edges.push_back(double(e));
    }
    return edges;
}

BinLayout resolve_layout(SampleType sample, const BinSpec& spec) {
    BinLayout layout;
    layout.clamp = spec.clamp;
    switch (sample) {
        case SampleType::u8: layout.bins = 256; layout.lo = 0; layout.hi = 256; break;
        case SampleType::u16: layout.bins = 256; layout.lo = 0; layout.hi = 65536; break;
        case SampleType::f16:
        case SampleType::f32:
            layout.bins = 257; layout.lo = 0; layout.hi = 1; layout.closed_top = true;
            break;
    }
    const bool is_float = sample == SampleType::f16 || sample == SampleType::f32;
    layout.integer = !is_float;
    if (spec.closed_top) return resolve_layout(sample, closed_top_as_edges(spec, sample));
    if (!spec.edges.empty()) {
        resolve_edges(layout, spec, is_float);
        return layout;
    }
    if (!spec.bins && !spec.range) return layout;
    // Any override turns the closed [0, 1] float rule into half-open custom bins.
    layout.closed_top = false;
    layout.bins = spec.bins.value_or(256);
    if (spec.range) {
        layout.lo = spec.range->first;
        layout.hi = spec.range->second;
    }
    constexpr std::uint32_t kMaxBins = 1u << 20;
    if (layout.bins == 0 || layout.bins > kMaxBins)
        throw InvalidArgument("bins must be between 1 and " + std::to_string(kMaxBins));
    if (!std::isfinite(layout.lo) || !std::isfinite(layout.hi) || !(layout.lo < layout.hi))
        throw InvalidArgument("range must be finite with LO < HI");
    if (!is_float) {
        if (layout.lo != std::floor(layout.lo) || layout.hi != std::floor(layout.hi))
            throw InvalidArgument("the range of an integer format must have integer bounds");
        if (std::fabs(layout.lo) > 1e15 || std::fabs(layout.hi) > 1e15)
            throw InvalidArgument("range bounds are too large");
        // k = (v - lo) * bins / (hi - lo) is computed in 64 bits: the product must not wrap.
        if ((layout.hi - layout.lo) * layout.bins >= 0x1p63)
            throw InvalidArgument("range times bins must stay below 2^63 (integer bins are computed in 64 bits)");
    } else {
        check_float_range(layout);
    }
    return layout;
}

float float_bin_scale(const BinLayout& layout) {
    const double bins_below_hi = layout.closed_top ? layout.bins - 1.0 : double(layout.bins);
    return float(bins_below_hi / (layout.hi - layout.lo));
}

double bin_centre(const BinLayout& layout, std::uint32_t k) {
    if (!layout.edges.empty()) {
        const double lower = layout.edges[k], upper = layout.edges[k + 1];
        if (!layout.integer) return (lower + upper) / 2;
        // The integers of [lower, upper): ceil(lower) .. ceil(upper) - 1, when there are any.
        const double first = std::ceil(lower), end = std::ceil(upper);
        return first < end ? (first + end - 1) / 2 : (lower + upper) / 2;
    }
    if (layout.closed_top && k + 1 == layout.bins) return layout.hi;  // the closed top bin is hi
    if (!layout.integer) {
        const double steps = layout.closed_top ? layout.bins - 1.0 : double(layout.bins);
        return layout.lo + (layout.hi - layout.lo) * (k + 0.5) / steps;
    }
    // Bin k holds the integers v with floor((v - lo) * bins / range) == k: from
    // lo + ceil(k * range / bins) to lo + ceil((k + 1) * range / bins) - 1. Exact in 128 bits.
    const auto range = static_cast<unsigned __int128>(layout.hi - layout.lo);
    const auto first_offset = [&](std::uint64_t j) {
        return static_cast<std::uint64_t>((j * range + layout.bins - 1) / layout.bins);
    };
    const std::uint64_t first = first_offset(k), end = first_offset(std::uint64_t(k) + 1);
    return layout.lo + (double(first) + double(end - 1)) / 2;
}

double bin_lower_edge(const BinLayout& layout, std::uint32_t k) {
    if (!layout.edges.empty()) return layout.edges[k];
    const double steps = layout.closed_top ? double(layout.bins - 1) : double(layout.bins);
    return layout.lo + (layout.hi - layout.lo) * double(k) / steps;
}

std::vector<Channel> channels_for(PixelFormat format, const Request& request) {
    const FormatInfo& fi = format_info(format);
    std::vector<Channel> out;
    if (fi.is_gray()) return {Channel::gray};  // a gray image's luminance is itself
    if (request.mode != Mode::luma) out.insert(out.end(), {Channel::R, Channel::G, Channel::B});
    if (request.count_alpha && fi.alpha >= 0) out.push_back(Channel::A);
    if (request.mode != Mode::rgb) out.push_back(Channel::Y);
    return out;
}

Region counted_region(const Request& request, std::uint32_t width, std::uint32_t height) {
    const Region area = request.roi.value_or(Region{0, 0, width, height});
    const auto text = [](const Region& r) {
        return std::to_string(r.x) + "," + std::to_string(r.y) + "," + std::to_string(r.width) + "," +
               std::to_string(r.height);
    };
    const std::string size = std::to_string(width) + " x " + std::to_string(height);
    if (area.width == 0 || area.height == 0)
        throw InvalidArgument("the region of interest " + text(area) + " (x,y,w,h) is empty");
    if (area.x >= width || area.y >= height || area.width > width - area.x || area.height > height - area.y)
        throw InvalidArgument("the region of interest " + text(area) + " (x,y,w,h) is not inside the " + size +
                              " image");
    const TileGrid& g = request.tiles;
    if (g.x == 0 || g.y == 0)
        throw InvalidArgument("tiles " + std::to_string(g.x) + "," + std::to_string(g.y) + ": each count must be at least 1");
    if (g.x > area.width || g.y > area.height)
        throw InvalidArgument("tiles " + std::to_string(g.x) + "," + std::to_string(g.y) + " are more than the " +
                              std::to_string(area.width) + " x " + std::to_string(area.height) +
                              " pixels counted: every tile needs a pixel");
    return area;
}

Region tile_region(const Region& area, const TileGrid& grid, std::uint32_t tx, std::uint32_t ty) {
    return {area.x + ih_tile_start(tx, area.width, grid.x), area.y + ih_tile_start(ty, area.height, grid.y),
            ih_tile_length(tx, area.width, grid.x), ih_tile_length(ty, area.height, grid.y)};
}

}  // namespace imghist
