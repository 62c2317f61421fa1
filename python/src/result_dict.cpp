// Histogram.to_dict() / from_dict(): one result in the imghist command's JSON schema
// (src/cli/output.cpp, docs/cli.md): the same keys, in the same order, with the same types.
#include "bindings.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

namespace imghist::python {

// Integral range bounds are ints, as the command line writes them (its json_number).
nb::object json_number(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15) return nb::int_(std::int64_t(v));
    return nb::float_(v);
}

namespace {

// A statistic as Python sees it: None when it is empty.
template <class T>
nb::object stat_object(const std::optional<T>& v) {
    return v ? nb::cast(*v) : nb::none();
}
nb::object stat_object(std::uint64_t v) { return nb::cast(v); }


nb::dict channel_dict(const ChannelHistogram& c) {
    nb::dict d;
    d["bins"] = c.layout.bins;
    nb::list range;
    range.append(json_number(c.layout.lo));
    range.append(json_number(c.layout.hi));
    d["range"] = range;
    if (!c.layout.edges.empty()) {  // edge bins: the edges compared (fp32 ones for floats), as the CLI
        nb::list edges;
        for (double e : c.layout.edges) edges.append(json_number(e));
        d["edges"] = edges;
    }
    d["closed_top"] = c.layout.closed_top;
    d["clamp"] = c.layout.clamp;
    nb::list counts;
    for (std::uint64_t n : c.counts) counts.append(n);
    d["counts"] = counts;
    d["nan"] = c.nan;
    d["below"] = c.below;
    d["above"] = c.above;
    if (c.positive_infinities) {  // value extremes, where known, as the CLI; null: no finite sample
        d["finite_min"] = c.finite_min ? json_number(*c.finite_min) : nb::object(nb::none());
        d["finite_max"] = c.finite_max ? json_number(*c.finite_max) : nb::object(nb::none());
        d["positive_infinities"] = *c.positive_infinities;
        d["negative_infinities"] = c.negative_infinities.value_or(0);
    }
    d["stats"] = stats_dict(c);
    put_sample_stats(d, c);
    return d;
}

[[noreturn]] void bad(const std::string& what) { throw InvalidArgument("Histogram.from_dict: " + what); }

nb::handle member(nb::handle d, const char* key) {
    if (!nb::isinstance<nb::dict>(d)) bad(std::string("expected a dict holding '") + key + "'");
    PyObject* v = PyDict_GetItemString(d.ptr(), key);  // borrowed
    if (!v) bad(std::string("missing key '") + key + "'");
    return v;
}

template <class T>
T member_as(nb::handle d, const char* key) {
    nb::handle v = member(d, key);
    if constexpr (std::is_same_v<T, bool>) {
        if (!PyBool_Check(v.ptr())) bad(std::string("'") + key + "' must be a bool");
    }
    T out{};
    if (!nb::try_cast(v, out, /*convert=*/!std::is_same_v<T, std::uint64_t> && !std::is_same_v<T, std::uint32_t>))
        bad(std::string("'") + key + "' has the wrong type");
    return out;
}

// `stats` may be absent (null): then, as for null, the count is unknown.
std::optional<std::uint64_t> optional_count(nb::handle stats, const char* key) {
    if (!stats.is_valid() || !nb::isinstance<nb::dict>(stats)) return std::nullopt;
    PyObject* v = PyDict_GetItemString(stats.ptr(), key);
    if (!v || v == Py_None) return std::nullopt;
    return member_as<std::uint64_t>(stats, key);
}

// "edges" of edge bins (absent for uniform bins): bins + 1 finite, strictly increasing numbers
// from range[0] to range[1], as the command line's merge reads them (src/cli/merge.cpp).
std::vector<double> edges_from(nb::handle edges, const BinLayout& layout, const std::string& name) {
    std::vector<double> e;
    const std::string at = "channel " + name + ": 'edges' ";
    if (!nb::isinstance<nb::list>(edges) && !nb::isinstance<nb::tuple>(edges)) bad(at + "must be a list");
    for (nb::handle v : edges) {
        double x = 0;
        if (PyBool_Check(v.ptr()) || !nb::try_cast(v, x)) bad(at + "must hold numbers");
        if (!std::isfinite(x)) bad(at + "must be finite");
        if (!e.empty() && !(e.back() < x)) bad(at + "are not strictly increasing");
        e.push_back(x);
    }
    if (e.size() != std::size_t(layout.bins) + 1)
        bad(at + "has " + std::to_string(e.size()) + " values for " + std::to_string(layout.bins) + " bins");
    if (e.front() != layout.lo || e.back() != layout.hi) bad(at + "do not run from range[0] to range[1]");
    return e;
}

// "finite_min", "finite_max" (a finite number, or null: no finite sample), "positive_infinities"
// and "negative_infinities", as the command line's merge reads them (src/cli/merge.cpp): present
// together where the extremes are known; absent (older documents, extremes off): unknown.
void extremes_from(nb::handle d, ChannelHistogram& c, const std::string& name) {
    if (!PyDict_GetItemString(d.ptr(), "positive_infinities")) return;
    c.positive_infinities = member_as<std::uint64_t>(d, "positive_infinities");
    c.negative_infinities = member_as<std::uint64_t>(d, "negative_infinities");
    const auto extreme = [&](const char* key) -> std::optional<double> {
        nb::handle v = member(d, key);
        if (v.is_none()) return std::nullopt;
        double x = 0;
        if (PyBool_Check(v.ptr()) || !nb::try_cast(v, x) || !std::isfinite(x))
            bad("channel " + name + ": '" + key + "' must be a finite number or null");
        return x;
    };
    c.finite_min = extreme("finite_min");
    c.finite_max = extreme("finite_max");
    if (c.finite_min.has_value() != c.finite_max.has_value() || (c.finite_min && !(*c.finite_min <= *c.finite_max)))
        bad("channel " + name + ": 'finite_min' and 'finite_max' must both be null or numbers with min <= max");
}

std::optional<Channel> parse_channel(const std::string& name) {
    for (Channel c : {Channel::R, Channel::G, Channel::B, Channel::A, Channel::Y, Channel::gray})
        if (channel_name(c) == name) return c;
    return std::nullopt;
}

ChannelHistogram channel_from(const std::string& name, nb::handle d, bool integer) {
    ChannelHistogram c;
    const auto channel = parse_channel(name);
    if (!channel) bad("unknown channel '" + name + "'");
    c.channel = *channel;
    c.layout.bins = member_as<std::uint32_t>(d, "bins");
    nb::handle range = member(d, "range");
    if (!nb::isinstance<nb::sequence>(range) || nb::len(range) != 2) bad("'range' must be [lo, hi]");
    if (!nb::try_cast(range[0], c.layout.lo) || !nb::try_cast(range[1], c.layout.hi)) bad("'range' must hold numbers");
    // As every layout an engine makes, and as the command line's merge reads them.
    if (!std::isfinite(c.layout.lo) || !std::isfinite(c.layout.hi) || !(c.layout.lo < c.layout.hi))
        bad("channel " + name + ": 'range' must be finite with lo < hi");
    if (PyObject* edges = PyDict_GetItemString(d.ptr(), "edges")) c.layout.edges = edges_from(edges, c.layout, name);
    c.layout.closed_top = member_as<bool>(d, "closed_top");
    c.layout.clamp = member_as<bool>(d, "clamp");
    c.layout.integer = integer;
    c.counts = member_as<std::vector<std::uint64_t>>(d, "counts");
    if (c.counts.size() != c.layout.bins || c.layout.bins == 0)
        bad("channel " + name + " has " + std::to_string(c.counts.size()) + " counts for " +
            std::to_string(c.layout.bins) + " bins");
    c.nan = member_as<std::uint64_t>(d, "nan");
    c.below = member_as<std::uint64_t>(d, "below");
    c.above = member_as<std::uint64_t>(d, "above");
    extremes_from(d, c, name);
    sample_stats_from(d, c, name);
    PyObject* stats = PyDict_GetItemString(d.ptr(), "stats");
    c.clipped_low_count = optional_count(stats, "clipped_low_count");
    c.clipped_high_count = optional_count(stats, "clipped_high_count");
    return c;
}

nb::dict region_dict(const Region& g) {
    nb::dict d;
    d["x"] = g.x;
    d["y"] = g.y;
    d["width"] = g.width;
    d["height"] = g.height;
    return d;
}

Region region_from(nb::handle d, const std::string& where) {
    if (!nb::isinstance<nb::dict>(d)) bad("'" + where + "' must be a dict {x, y, width, height}");
    return Region{member_as<std::uint32_t>(d, "x"), member_as<std::uint32_t>(d, "y"),
                  member_as<std::uint32_t>(d, "width"), member_as<std::uint32_t>(d, "height")};
}

nb::dict histograms_dict(const std::vector<ChannelHistogram>& channels) {
    nb::dict histograms;
    for (const ChannelHistogram& c : channels) histograms[std::string(channel_name(c.channel)).c_str()] = channel_dict(c);
    return histograms;
}

std::vector<ChannelHistogram> channels_from(nb::handle histograms, bool integer, const std::string& where) {
    if (!nb::isinstance<nb::dict>(histograms) || nb::len(histograms) == 0) bad("'" + where + "' must be a non-empty dict");
    std::vector<ChannelHistogram> channels;
    for (auto [name, channel] : nb::borrow<nb::dict>(histograms))
        channels.push_back(channel_from(utf8_of(name, "Histogram.from_dict: the channel name"), channel, integer));
    for (const ChannelHistogram& c : channels)
        if (!(c.layout == channels.front().layout)) bad("the channels have different bin layouts");
    return channels;
}

bool same_channels(const std::vector<ChannelHistogram>& a, const std::vector<ChannelHistogram>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].channel != b[i].channel || !(a[i].layout == b[i].layout)) return false;
    return true;
}

// "counted_pixels" of a result or a tile: present only where a mask or an alpha threshold
// selected the pixels (absent from older documents too).
std::optional<std::uint64_t> counted_from(nb::handle d) {
    if (!PyDict_GetItemString(d.ptr(), "counted_pixels")) return std::nullopt;
    return member_as<std::uint64_t>(d, "counted_pixels");
}

// "region", "tile_grid" and "tiles" (absent from documents written before regions existed).
void regions_from(nb::handle d, Result& r, bool integer) {
    r.region = Region{0, 0, r.width, r.height};
    if (PyObject* region = PyDict_GetItemString(d.ptr(), "region")) r.region = region_from(region, "region");
    PyObject* grid = PyDict_GetItemString(d.ptr(), "tile_grid");
    PyObject* tiles = PyDict_GetItemString(d.ptr(), "tiles");
    if (!grid && !tiles) return;
    if (!grid || !tiles) bad("'tile_grid' and 'tiles' come together");
    if (!nb::isinstance<nb::dict>(nb::handle(grid))) bad("'tile_grid' must be a dict {x, y}");
    r.tile_grid = TileGrid{member_as<std::uint32_t>(grid, "x"), member_as<std::uint32_t>(grid, "y")};
    if (!nb::isinstance<nb::list>(nb::handle(tiles))) bad("'tiles' must be a list");
    if (r.tile_grid.x == 0 || r.tile_grid.y == 0 || nb::len(nb::handle(tiles)) != r.tile_grid.count())
        bad("'tiles' has " + std::to_string(nb::len(nb::handle(tiles))) + " tiles for a tile_grid of " +
            std::to_string(r.tile_grid.x) + " x " + std::to_string(r.tile_grid.y));
    std::size_t i = 0;
    for (nb::handle tile : nb::borrow<nb::list>(tiles)) {
        const std::string where = "tiles[" + std::to_string(i++) + "]";
        if (!nb::isinstance<nb::dict>(tile)) bad("'" + where + "' must be a dict {region, histograms}");
        TileHistogram t;
        t.region = region_from(member(tile, "region"), where + ".region");
        t.counted_pixels = counted_from(tile);
        t.channels = channels_from(member(tile, "histograms"), integer, where + ".histograms");
        if (!same_channels(t.channels, r.channels)) bad("'" + where + "' has other channels or bins than 'histograms'");
        r.tiles.push_back(std::move(t));
    }
    if (r.tiles.size() == 1) {  // a 1 x 1 grid is no tiling (Result::tiles is empty then)
        r.tiles.clear();
        r.tile_grid = {};
    }
}

PixelFormat format_from(nb::handle name, const char* key) {
    std::string text;
    if (!nb::try_cast(name, text)) bad(std::string("'") + key + "': a format name must be a str");
    const auto format = parse_pixel_format(text);
    if (!format) bad("unknown format '" + text + "'");
    return *format;
}

// A result has its image's size and format. An entry of the command line's "sums" has
// "formats" (in order of appearance) and "pixels" instead: it has no size, as the sums of
// histogram_files(), and its first format stands for them all (they share the bins).
void size_and_format_from(nb::handle d, Result& r) {
    if (!nb::isinstance<nb::dict>(d)) bad("expected a dict (a result, or an entry of the command line's 'sums')");
    if (!PyDict_GetItemString(d.ptr(), "width") && PyDict_GetItemString(d.ptr(), "formats")) {
        nb::handle formats = member(d, "formats");
        if (!nb::isinstance<nb::list>(formats) || nb::len(formats) == 0) bad("'formats' must be a non-empty list");
        r.format = format_from(formats[0], "formats");
        return;
    }
    r.width = member_as<std::uint32_t>(d, "width");
    r.height = member_as<std::uint32_t>(d, "height");
    r.format = format_from(member(d, "format"), "format");
}

}  // namespace

nb::dict stats_dict(const ChannelHistogram& c) {
    nb::dict d;
    visit_stats(c, [&d](const char* name, const auto& value) { d[name] = stat_object(value); });
    return d;
}

nb::dict result_to_dict(const Result& r) {
    nb::dict d;
    d["width"] = r.width;
    d["height"] = r.height;
    d["format"] = std::string(format_info(r.format).name);
    d["backend"] = r.backend;
    d["device"] = r.device;
    d["histograms"] = histograms_dict(r.channels);
    // As the command line writes them (src/cli/output.cpp, put_regions): the counted pixels of a
    // mask or alpha threshold, the region where it is not the whole image or there are tiles,
    // then the tile grid and the tiles row by row (each with its counted pixels).
    if (r.counted_pixels) d["counted_pixels"] = *r.counted_pixels;
    const Region region = region_of(r);
    if (!(region == Region{0, 0, r.width, r.height}) || !r.tiles.empty()) d["region"] = region_dict(region);
    if (!r.tiles.empty()) {
        nb::dict grid;
        grid["x"] = r.tile_grid.x;
        grid["y"] = r.tile_grid.y;
        d["tile_grid"] = grid;
        nb::list tiles;
        for (const TileHistogram& t : r.tiles) {
            nb::dict tile;
            tile["region"] = region_dict(t.region);
            if (t.counted_pixels) tile["counted_pixels"] = *t.counted_pixels;
            tile["histograms"] = histograms_dict(t.channels);
            tiles.append(tile);
        }
        d["tiles"] = tiles;
    }
    nb::list notes;
    for (const std::string& n : r.notes) notes.append(n);
    d["notes"] = notes;
    return d;
}

Result result_from_dict(nb::handle d) {
    Result r;
    size_and_format_from(d, r);
    r.backend = member_as<std::string>(d, "backend");
    r.device = member_as<std::string>(d, "device");
    const bool integer = !format_info(r.format).is_float();
    r.channels = channels_from(member(d, "histograms"), integer, "histograms");
    r.counted_pixels = counted_from(d);
    regions_from(d, r, integer);
    if (PyObject* notes = PyDict_GetItemString(d.ptr(), "notes"))
        if (!nb::try_cast(nb::handle(notes), r.notes)) bad("'notes' must be a list of str");
    return r;
}

// A Result made by hand has no region: it counted the whole image.
Region region_of(const Result& r) {
    if (r.region.width == 0 || r.region.height == 0) return Region{0, 0, r.width, r.height};
    return r.region;
}

}  // namespace imghist::python
