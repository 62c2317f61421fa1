// imghist.Histogram (an imghist::Result) and imghist.ChannelHistogram: numpy views of the
// counts (copies: a result is small), statistics, exact merge, dict and pickle round trips.
#include "bindings.hpp"

#include <cstdio>
#include <limits>

namespace imghist::python {

namespace {

// edges[k] is bin k's lower edge, edges[bins] the top of the range (bin_lower_edge, request.hpp);
// for edge bins, the edges as counted (BinLayout::edges: rounded to fp32 for float samples).
nb::object edges_of(const BinLayout& layout) {
    std::vector<double> edges(layout.bins + 1);
    for (std::uint32_t k = 0; k < layout.bins; ++k) edges[k] = bin_lower_edge(layout, k);
    edges[layout.bins] = layout.hi;
    return numpy_array(std::move(edges), {std::size_t(layout.bins) + 1});
}

const ChannelHistogram& first_channel(const Result& r) {
    if (r.channels.empty()) throw InvalidArgument("the histogram has no channels");
    return r.channels.front();
}

// One number per channel; `pick` reads it.
template <class Pick>
nb::object per_channel(const Result& r, Pick pick) {
    std::vector<std::uint64_t> values;
    for (const ChannelHistogram& c : r.channels) values.push_back(pick(c));
    return numpy_array(std::move(values), {r.channels.size()});
}

// A count per channel, or None when any channel's is unknown: clipping (interop results), the
// infinities (value extremes not asked for or not found).
nb::object known_counts(const Result& r, std::optional<std::uint64_t> ChannelHistogram::*count) {
    for (const ChannelHistogram& c : r.channels)
        if (!(c.*count)) return nb::none();
    return per_channel(r, [&](const ChannelHistogram& c) { return *(c.*count); });
}

// finite_min or finite_max per channel (float64), NaN for a channel without a finite sample;
// None unless every channel's extremes are known (they are where its infinity counts are).
nb::object finite_extreme(const Result& r, std::optional<double> ChannelHistogram::*value) {
    std::vector<double> values;
    for (const ChannelHistogram& c : r.channels) {
        if (!c.positive_infinities) return nb::none();
        values.push_back((c.*value).value_or(std::numeric_limits<double>::quiet_NaN()));
    }
    return numpy_array(std::move(values), {r.channels.size()});
}

}  // namespace

nb::object counts_of(const Result& r) {
    const std::size_t bins = first_channel(r).layout.bins;
    std::vector<std::uint64_t> counts;
    counts.reserve(r.channels.size() * bins);
    for (const ChannelHistogram& c : r.channels) counts.insert(counts.end(), c.counts.begin(), c.counts.end());
    return numpy_array(std::move(counts), {r.channels.size(), bins});
}

namespace {

const ChannelHistogram& channel_named(const Result& r, const std::string& name) {
    for (const ChannelHistogram& c : r.channels)
        if (channel_name(c.channel) == name) return c;
    std::string have;
    for (const ChannelHistogram& c : r.channels) have += (have.empty() ? "" : ", ") + std::string(channel_name(c.channel));
    throw nb::key_error(("no channel '" + name + "' in this histogram (it has " + have + ")").c_str());
}

std::string layout_text(const BinLayout& l) {
    char text[160];
    std::snprintf(text, sizeof text, "bins=%u range=[%g, %g%s%s%s", l.bins, l.lo, l.hi, l.closed_top ? "]" : ")",
                  l.edges.empty() ? "" : " edges", l.clamp ? " clamped" : "");
    return text;
}

// The luminance of a result, as the command line's --exposure takes it: Y, else a gray image's
// channel; KeyError naming the channels when there is neither.
const ChannelHistogram& luminance_of(const Result& r) {
    if (const ChannelHistogram* y = r.luminance()) return *y;
    std::string have;
    for (const ChannelHistogram& c : r.channels) have += (have.empty() ? "" : ", ") + std::string(channel_name(c.channel));
    throw nb::key_error(("exposure: no luminance channel (Y or gray) in this histogram (it has " + have +
                         "); name one with channel=")
                            .c_str());
}

// The command line's "exposure" object (docs/cli.md, "JSON") of one channel, or None where
// imghist::exposure has none (no non-NaN sample, or bins that are not edges over positive values).
nb::object exposure_dict(const ChannelHistogram& c, double low, double high, double key) {
    const ExposureSettings settings{low, high, key};
    const std::optional<Exposure> e = exposure(c, settings);  // InvalidArgument for bad settings
    if (!e) return nb::none();
    nb::dict d;
    d["channel"] = std::string(channel_name(c.channel));
    d["low_percent"] = settings.low_percent;
    d["high_percent"] = settings.high_percent;
    d["average_ev"] = e->average_ev;
    d["key"] = e->key;
    d["exposure_ev"] = e->exposure_ev;
    d["samples"] = e->samples;
    return d;
}

constexpr const char* kExposureDoc = R"(Auto-exposure of a luminance histogram in EV bins (docs/semantics.md, "Auto-exposure").

Needs edge bins over positive values, normally EV bins: histogram(..., ev=(-16, 16, 8)). The
samples between the low and high percentiles of the non-NaN ones (below standing for the first
edge's EV, each bin for its middle EV, above for the last edge's) are averaged in EV, and the
exposure log2(key) - average brings that average to the key value (0.18: mid grey). From the
exact counts, so every backend gives the same numbers: for EV bins the exact mean rounded once
to fp32, for other edges computed in double.

Returns the command line's "exposure" object: {channel, low_percent, high_percent, average_ev,
key, exposure_ev, samples} (samples: the trimmed samples averaged, a fraction where a bin
straddles a percentile), or None when the bins are not edges over positive values or there is
no non-NaN sample. Raises InvalidArgument unless 0 <= low < high <= 100, each a whole number of
hundredths of a percent, and key is positive.)";
// Histogram.exposure's: the same and the channel (nanobind copies docstrings).
std::string histogram_exposure_doc() {
    return std::string(kExposureDoc) + R"(

channel  None: the luminance (Y, or a gray image's channel; KeyError without one), as the
         command line's --exposure takes it; else a channel name.)";
}


nb::tuple region_tuple(const Region& g) { return nb::make_tuple(g.x, g.y, g.width, g.height); }

// Counts of every tile (uint64, shape (tiles_y, tiles_x, channels, bins)); a result without
// tiles is its own single tile.
nb::object tile_counts_of(const Result& r) {
    if (r.tiles.empty()) {
        const std::size_t bins = first_channel(r).layout.bins;
        std::vector<std::uint64_t> counts;
        counts.reserve(r.channels.size() * bins);
        for (const ChannelHistogram& c : r.channels) counts.insert(counts.end(), c.counts.begin(), c.counts.end());
        return numpy_array(std::move(counts), {1, 1, r.channels.size(), bins});
    }
    const std::size_t bins = first_channel(r).layout.bins;
    std::vector<std::uint64_t> counts;
    counts.reserve(r.tiles.size() * r.channels.size() * bins);
    for (const TileHistogram& t : r.tiles)
        for (const ChannelHistogram& c : t.channels) counts.insert(counts.end(), c.counts.begin(), c.counts.end());
    return numpy_array(std::move(counts), {r.tile_grid.y, r.tile_grid.x, r.channels.size(), bins});
}

// Counted pixels of every tile (uint64, shape (tiles_y, tiles_x)); None without a mask or an
// alpha threshold, and a result without tiles is its own single tile (as tile_counts). A tile
// without a count of its own counted its whole region (Result::merge's rule).
nb::object tile_counted_pixels_of(const Result& r) {
    if (!r.counted_pixels) return nb::none();
    if (r.tiles.empty()) return numpy_array(std::vector<std::uint64_t>{*r.counted_pixels}, {1, 1});
    std::vector<std::uint64_t> counted;
    counted.reserve(r.tiles.size());
    for (const TileHistogram& t : r.tiles) counted.push_back(t.counted_pixels.value_or(t.region.pixel_count()));
    return numpy_array(std::move(counted), {r.tile_grid.y, r.tile_grid.x});
}

// Tile (tx, ty) as a Histogram of its own: its channels, region and counted pixels, the parent's
// size, format, backend, device and notes, no tiles.
Result tile_of(const Result& r, std::int64_t tx, std::int64_t ty) {
    const std::int64_t nx = r.tiles.empty() ? 1 : r.tile_grid.x, ny = r.tiles.empty() ? 1 : r.tile_grid.y;
    if (tx < 0 || ty < 0 || tx >= nx || ty >= ny)
        throw nb::index_error(("tile (" + std::to_string(tx) + ", " + std::to_string(ty) + ") is outside the " +
                               std::to_string(nx) + " x " + std::to_string(ny) +
                               " tile grid (tx in [0, tiles_x), ty in [0, tiles_y))")
                                  .c_str());
    Result t;
    t.width = r.width;
    t.height = r.height;
    t.format = r.format;
    t.backend = r.backend;
    t.device = r.device;
    t.notes = r.notes;
    if (r.tiles.empty()) {
        t.region = region_of(r);
        t.channels = r.channels;
        t.counted_pixels = r.counted_pixels;
    } else {
        const TileHistogram& tile = r.tile(std::uint32_t(tx), std::uint32_t(ty));
        t.region = tile.region;
        t.channels = tile.channels;
        t.counted_pixels = tile.counted_pixels;
    }
    return t;
}

// " region=x,y,wxh tiles=TXxTY" where the result counted less than its image or has tiles;
// " counted=N" where a mask or an alpha threshold selected the pixels.
std::string region_text(const Result& r) {
    const Region g = region_of(r);
    std::string text;
    if (!is_sum(r) && (!(g == Region{0, 0, r.width, r.height}) || !r.tiles.empty()))
        text += " region=" + std::to_string(g.x) + "," + std::to_string(g.y) + "," + std::to_string(g.width) + "x" +
                std::to_string(g.height);
    if (!r.tiles.empty()) text += " tiles=" + std::to_string(r.tile_grid.x) + "x" + std::to_string(r.tile_grid.y);
    if (r.counted_pixels) text += " counted=" + std::to_string(*r.counted_pixels);
    return text;
}

std::string repr_of(const Result& r) {
    std::string channels;
    for (const ChannelHistogram& c : r.channels) channels += (channels.empty() ? "" : ",") + std::string(channel_name(c.channel));
    const std::string format(format_info(r.format).name);
    const std::string what =
        is_sum(r) ? "sum of " + format : format + " " + std::to_string(r.width) + "x" + std::to_string(r.height);
    return "<imghist.Histogram " + what + " channels=" + channels + " " +
           (r.channels.empty() ? std::string() : layout_text(r.channels.front().layout)) + region_text(r) +
           " backend=" + r.backend + ">";
}

void bind_channel(nb::module_& m) {
    using CH = ChannelHistogram;
    nb::class_<CH>(m, "ChannelHistogram",
                   "One channel of a Histogram: its counts, its out-of-range counters and statistics.")
        .def_prop_ro("name", [](const CH& c) { return std::string(channel_name(c.channel)); },
                     "Channel name: 'R', 'G', 'B', 'A', 'Y' or 'gray'.")
        .def_prop_ro("counts", [](const CH& c) { return numpy_array(c.counts, {c.counts.size()}); },
                     "Counts per bin (uint64, shape (bins,)).")
        .def_prop_ro("edges", [](const CH& c) { return edges_of(c.layout); },
                     "Bin edges (float64, bins + 1); for edge bins the edges counted (fp32-rounded for floats).")
        .def_prop_ro("bins", [](const CH& c) { return c.layout.bins; }, "Number of bins.")
        .def_ro("nan", &CH::nan, "NaN samples (never binned).")
        .def_ro("below", &CH::below, "Samples below the range (in bin 0 when clamped).")
        .def_ro("above", &CH::above, "Samples above the range (in the last bin when clamped).")
        .def_ro("clipped_low", &CH::clipped_low_count,
                "Samples at the lowest value (0; <= 0 for floats), whatever the bins; None if unknown.")
        .def_ro("clipped_high", &CH::clipped_high_count,
                "Samples at the highest value (255, 65535; >= 1 for floats); None if unknown.")
        .def_ro("finite_min", &CH::finite_min,
                "histogram(..., extremes=True), half and float images: the smallest finite sample (the "
                "luminance for Y), exact, -0 as 0.0 (float); None when no sample is finite or the extremes "
                "are unknown (not asked for, integer images, CUDA arrays: positive_infinities is None then).")
        .def_ro("finite_max", &CH::finite_max, "The largest finite sample, as finite_min.")
        .def_ro("positive_infinities", &CH::positive_infinities,
                "histogram(..., extremes=True), half and float images: how many samples are +Inf (int); None "
                "when the extremes are unknown.")
        .def_ro("negative_infinities", &CH::negative_infinities, "How many samples are -Inf, as positive_infinities.")
        .def("stats", &stats_dict, "Statistics: the command line's JSON 'stats' keys; None where empty.")
        .def("sample_stats", nb::overload_cast<const CH&>(&sample_stats_of),
             "With sample_stats=True: the statistics of the samples themselves, exact (docs/semantics.md): "
             "count, sum and sum_of_squares (fractions.Fraction), mean, variance, sample_variance, stddev, "
             "sample_stddev, min, max (float, rounded once), median and percentiles ({p: value}, numpy's "
             "linear rule), nearest_rank ({p: value}); None without them.")
        .def("exposure", &exposure_dict, nb::kw_only(), nb::arg("low") = 50.0, nb::arg("high") = 95.0,
             nb::arg("key") = 0.18, kExposureDoc)
        .def("__repr__", [](const CH& c) {
            return "<imghist.ChannelHistogram " + std::string(channel_name(c.channel)) + " " + layout_text(c.layout) + ">";
        });
}

constexpr const char* kHistogramDoc = R"(Exact 64-bit histograms of one image, one per channel.

Every channel of one histogram has the same bins. ``counts`` is a uint64 array of shape
(channels, bins); ``edges`` are the bin edges as ``np.histogram`` returns them: edges[k] is bin
k's lower edge and edges[bins] the top of the range. The default float rule (257 bins over
[0, 1]) has a closed top bin holding exactly 1.0 (and, unclamped, nothing above): its edges are
edges[256] = edges[257] = 1.0. With edge bins (histogram(..., bins=[e_0, ..., e_N]) or
ev=...) ``edges`` are the edges the samples were compared with: as given for integer samples,
rounded to fp32 for half and float ones; ``exposure()`` is the auto-exposure of EV bins.
``h["Y"]`` is one channel; iterating gives the channels in order;
``h + other`` and ``h += other`` merge exactly (MergeError if channels or bins differ).
With histogram(..., roi=..., tiles=...): ``region`` is the pixels counted, ``tile_counts`` has
shape (tiles_y, tiles_x, channels, bins) and ``tile(tx, ty)`` is one tile's Histogram; the
channels stay those of the whole region. Tiled histograms merge tile by tile (same grid).
With histogram(..., mask=..., alpha_threshold=...): ``counted_pixels`` is how many pixels of
the region they let through (None without them: every pixel of ``region`` was counted), and
``tile_counted_pixels`` the same per tile, shape (tiles_y, tiles_x).
With histogram(..., extremes=True) of a half or float image in host memory: ``finite_min`` and
``finite_max`` (float64 per channel, NaN where a channel has no finite sample) are the exact
smallest and largest finite samples, ``positive_infinities`` and ``negative_infinities``
(uint64 per channel) the +-Inf counts; each ChannelHistogram and tile(tx, ty) has its own.
None where they are unknown; a sum keeps the smaller minimum and larger maximum and adds the
counts, and is unknown where either side is.)";

// The per-channel arrays and the layout, size and origin of the counts.
void bind_histogram_properties(nb::class_<Result>& histogram) {
    histogram
        .def_prop_ro("channels", [](const Result& r) {
            nb::list names;
            for (const ChannelHistogram& c : r.channels) names.append(std::string(channel_name(c.channel)));
            return nb::tuple(names);
        }, "Channel names in order, e.g. ('R', 'G', 'B', 'Y').")
        .def_prop_ro("counts", &counts_of, "Counts (uint64, shape (channels, bins)).")
        .def_prop_ro("nan", [](const Result& r) { return per_channel(r, [](const ChannelHistogram& c) { return c.nan; }); },
                     "NaN samples per channel (uint64, shape (channels,)).")
        .def_prop_ro("below", [](const Result& r) { return per_channel(r, [](const ChannelHistogram& c) { return c.below; }); },
                     "Samples below the range per channel (uint64); in bin 0 when clamped.")
        .def_prop_ro("above", [](const Result& r) { return per_channel(r, [](const ChannelHistogram& c) { return c.above; }); },
                     "Samples above the range per channel (uint64); in the last bin when clamped.")
        .def_prop_ro("clipped_low", [](const Result& r) { return known_counts(r, &ChannelHistogram::clipped_low_count); },
                     "Samples at the lowest value per channel (uint64), exact and independent of the bins.")
        .def_prop_ro("clipped_high", [](const Result& r) { return known_counts(r, &ChannelHistogram::clipped_high_count); },
                     "Samples at the highest value per channel (uint64), exact and independent of the bins.")
        .def_prop_ro("finite_min", [](const Result& r) { return finite_extreme(r, &ChannelHistogram::finite_min); },
                     "With extremes=True: the smallest finite sample per channel (float64), NaN for a channel "
                     "without one; None when the extremes are unknown (not asked for, integer images, CUDA arrays).")
        .def_prop_ro("finite_max", [](const Result& r) { return finite_extreme(r, &ChannelHistogram::finite_max); },
                     "With extremes=True: the largest finite sample per channel (float64), as finite_min.")
        .def_prop_ro("positive_infinities", [](const Result& r) {
            return known_counts(r, &ChannelHistogram::positive_infinities);
        }, "With extremes=True: +Inf samples per channel (uint64); None when the extremes are unknown.")
        .def_prop_ro("negative_infinities", [](const Result& r) {
            return known_counts(r, &ChannelHistogram::negative_infinities);
        }, "With extremes=True: -Inf samples per channel (uint64); None when the extremes are unknown.")
        .def_prop_ro("edges", [](const Result& r) { return edges_of(first_channel(r).layout); },
                     "Bin edges (float64, bins + 1); see the class docstring for the closed top bin and edge bins.")
        .def_prop_ro("bins", [](const Result& r) { return first_channel(r).layout.bins; }, "Number of bins.")
        .def_prop_ro("range", [](const Result& r) {
            const BinLayout& l = first_channel(r).layout;
            return nb::make_tuple(l.lo, l.hi);
        }, "(lo, hi) of the bins: [lo, hi), or [lo, hi] when closed_top.")
        .def_prop_ro("closed_top", [](const Result& r) { return first_channel(r).layout.closed_top; },
                     "True for the default float rule: the last bin holds exactly hi.")
        .def_prop_ro("clamp", [](const Result& r) { return first_channel(r).layout.clamp; },
                     "True when out-of-range samples were counted in the end bins.")
        .def_ro("width", &Result::width, "Image width in pixels; 0 for a sum of files, which has no size.")
        .def_ro("height", &Result::height, "Image height in pixels; 0 for a sum of files.")
        .def_prop_ro("format", [](const Result& r) { return std::string(format_info(r.format).name); },
                     "Pixel format name, e.g. 'rgba8', 'gray_f32'.")
        .def_prop_ro("region", [](const Result& r) { return region_tuple(region_of(r)); },
                     "(x, y, width, height) of the pixels counted: the roi, else the whole image.")
        .def_prop_ro("tile_grid", [](const Result& r) {
            return r.tiles.empty() ? nb::make_tuple(1, 1) : nb::make_tuple(r.tile_grid.x, r.tile_grid.y);
        }, "(tiles_x, tiles_y) of the tiles= grid; (1, 1) without tiles.")
        .def_prop_ro("tile_counts", &tile_counts_of,
                     "Counts of every tile (uint64, shape (tiles_y, tiles_x, channels, bins)): tile_counts[ty, tx] "
                     "is tile (tx, ty)'s; their sum over the tiles is counts. Without tiles: counts, shape "
                     "(1, 1, channels, bins).")
        .def_prop_ro("tile_regions", [](const Result& r) {
            nb::list regions;
            if (r.tiles.empty()) regions.append(region_tuple(region_of(r)));
            for (const TileHistogram& t : r.tiles) regions.append(region_tuple(t.region));
            return regions;
        }, "(x, y, width, height) of every tile, row by row (tile (tx, ty) at ty * tiles_x + tx).")
        .def_ro("counted_pixels", &Result::counted_pixels,
                "With mask= or alpha_threshold=: the pixels of region they let through (every channel counted "
                "those); None without them (every pixel of region was counted). Sums add it up.")
        .def_prop_ro("tile_counted_pixels", &tile_counted_pixels_of,
                     "With mask= or alpha_threshold=: counted_pixels of every tile (uint64, shape (tiles_y, "
                     "tiles_x)), tile_counted_pixels[ty, tx] being tile (tx, ty)'s; their sum is counted_pixels. "
                     "Without tiles: shape (1, 1). None without a mask or an alpha threshold.")
        .def("tile", &tile_of, nb::arg("tx"), nb::arg("ty"),
             "Tile (tx, ty) as a Histogram: its channels, region = the tile's pixels, no tiles (the "
             "image's width, height, format and backend). IndexError outside the grid; without tiles, "
             "tile(0, 0) is the whole region.")
        .def_ro("backend", &Result::backend, "Backend that counted ('mixed' after merging different ones).")
        .def_ro("device", &Result::device, "Device that counted.")
        .def_ro("notes", &Result::notes, "What the backend did that the caller should know (list of str).");
}

// Mapping, numpy, arithmetic, dict and pickle protocols.
void bind_histogram_protocols(nb::class_<Result>& histogram) {
    histogram
        .def("__getitem__", [](const Result& r, const std::string& name) { return channel_named(r, name); },
             "The ChannelHistogram of that name; KeyError if absent.")
        .def("__contains__", [](const Result& r, nb::handle name) {
            if (!nb::isinstance<nb::str>(name)) return false;
            for (const ChannelHistogram& c : r.channels)  // compared as str: any str is an answer
                if (nb::str(std::string(channel_name(c.channel)).c_str()).equal(name)) return true;
            return false;
        }, nb::arg("name").none())  // any object, None too, is simply not a channel's name
        .def("__len__", [](const Result& r) { return r.channels.size(); })
        .def("__iter__", [](const Result& r) { return nb::iter(nb::cast(r.channels)); },
             "Iterates over the ChannelHistograms in order.")
        .def("stats", [](const Result& r) {
            nb::dict d;
            for (const ChannelHistogram& c : r.channels) d[std::string(channel_name(c.channel)).c_str()] = stats_dict(c);
            return d;
        }, "Statistics per channel: {name: {count, min, max, mean, ..., clipped_high}}, None where empty.")
        .def("sample_stats", nb::overload_cast<const Result&>(&sample_stats_of),
             "With sample_stats=True: {channel: ChannelHistogram.sample_stats()}; exact for sums of files too.")
        .def("normalize", &normalize_of, nb::kw_only(), nb::arg("scale") = nb::none(),
             "With sample_stats=True: {'mean': (...), 'std': (...)} of the colour channels (R, G, B, or gray) "
             "in units of value / scale (default 255 for 8-bit, 65535 for 16-bit, 1 for float: what "
             "torchvision's ToTensor gives), the pooled population statistics of every counted sample, each "
             "rounded once from the exact sums: torchvision.transforms.Normalize(**h.normalize()).")
        .def("exposure", [](const Result& r, double low, double high, double key, std::optional<std::string> channel) {
            return exposure_dict(channel ? channel_named(r, *channel) : luminance_of(r), low, high, key);
        }, nb::kw_only(), nb::arg("low") = 50.0, nb::arg("high") = 95.0, nb::arg("key") = 0.18,
           nb::arg("channel") = nb::none(), histogram_exposure_doc().c_str())
        .def("__array__", [](const Result& r, nb::handle dtype, nb::handle) {
            nb::object counts = counts_of(r);
            return dtype.is_none() ? counts : counts.attr("astype")(dtype);
        }, nb::arg("dtype") = nb::none(), nb::arg("copy") = nb::none(), "The counts, for np.asarray(h).")
        .def("__add__", [](const Result& a, const Result& b) {
            Result sum = a;
            sum.merge(b);
            return sum;
        }, "Exact sum of two histograms of the same channels and bins (MergeError otherwise).")
        .def("can_merge", &Result::can_merge, nb::arg("other"),
             "Whether other may be added to this histogram: the same channels and bins (the rule of +).")
        .def("__iadd__", [](nb::handle self, const Result& b) {
            nb::cast<Result&>(self).merge(b);
            return nb::borrow(self);
        })
        .def("__eq__", [](const Result& a, const Result& b) { return a == b; })
        .def("to_dict", &result_to_dict, "The command line's JSON schema for one result (without 'file').")
        .def_static("from_dict", &result_from_dict, nb::arg("d"), "A Histogram from to_dict()'s output or the CLI's JSON.")
        .def("__getstate__", &result_to_dict)
        .def("__setstate__", [](Result& self, nb::handle state) { new (&self) Result(result_from_dict(state)); })
        .def("__repr__", &repr_of);
}

}  // namespace

void bind_result(nb::module_& m) {
    bind_channel(m);
    nb::class_<Result> histogram(m, "Histogram", kHistogramDoc);
    bind_histogram_properties(histogram);
    bind_histogram_protocols(histogram);
}

}  // namespace imghist::python
