// histogram()'s keywords as an imghist::Request and EngineOptions, with Python-shaped messages.
#include "bindings.hpp"

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <vector>

namespace imghist::python {

namespace {

std::string python_type_name(nb::handle value) { return nb::cast<std::string>(nb::str(nb::handle(Py_TYPE(value.ptr())))); }

// An integer (Python int or numpy integer, never bool or float), or InvalidArgument.
std::int64_t integer_of(nb::handle value, const std::string& what) {
    if (PyBool_Check(value.ptr()) || PyFloat_Check(value.ptr()) || !PyIndex_Check(value.ptr()))
        throw InvalidArgument(what + " must be an integer; got " + python_type_name(value));
    const long long v = PyLong_AsLongLong(nb::steal(PyNumber_Index(value.ptr())).ptr());
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        throw InvalidArgument(what + " is out of range");
    }
    return v;
}

double number_of(nb::handle value, const std::string& what) {
    if (PyBool_Check(value.ptr()) || !(PyFloat_Check(value.ptr()) || PyIndex_Check(value.ptr()) ||
                                       nb::hasattr(value, "__float__")))
        throw InvalidArgument(what + " must be a number; got " + python_type_name(value));
    const double v = PyFloat_AsDouble(value.ptr());
    if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        throw InvalidArgument(what + " is not a number");
    }
    return v;
}

LumaWeights weights_of(nb::handle weights) {
    if (weights.is_none()) return LumaWeights::rec709();
    if (nb::isinstance<nb::str>(weights)) return LumaWeights::parse(utf8_of(weights, "weights"));
    if (!nb::isinstance<nb::sequence>(weights) || nb::len(weights) != 3)
        throw InvalidArgument("weights must be 'rec709', 'rec601', 'rec2020', 'WR,WG,WB' or (wr, wg, wb); got " +
                              nb::cast<std::string>(nb::repr(weights)));
    std::uint32_t w[3];
    for (int i = 0; i < 3; ++i) {
        const std::int64_t v = integer_of(weights[i], "a luma weight");
        if (v < 0 || v > std::numeric_limits<std::uint32_t>::max())
            throw InvalidArgument("luma weights are non-negative integers over 10000; got " + std::to_string(v));
        w[i] = std::uint32_t(v);
    }
    const LumaWeights result{w[0], w[1], w[2]};
    result.validate();
    return result;
}

std::optional<std::pair<double, double>> range_of(nb::handle range) {
    if (range.is_none()) return std::nullopt;
    if (nb::isinstance<nb::str>(range) || !nb::isinstance<nb::sequence>(range) || nb::len(range) != 2)
        throw InvalidArgument("range must be None or (lo, hi); got " + nb::cast<std::string>(nb::repr(range)));
    return std::pair{number_of(range[0], "range lo"), number_of(range[1], "range hi")};
}

// `count` integers of `value` (a sequence, never a str), each >= 0 and fitting 32 bits; `shape`
// names them for the messages, e.g. "(x, y, width, height)".
std::vector<std::uint32_t> uint32s_of(nb::handle value, std::size_t count, const char* keyword,
                                      std::initializer_list<const char*> names, const char* shape) {
    const std::string usage = std::string(keyword) + " must be None or " + shape + ", " + std::to_string(count) +
                              " integers";
    if (nb::isinstance<nb::str>(value) || nb::isinstance<nb::bytes>(value) || !nb::isinstance<nb::sequence>(value))
        throw InvalidArgument(usage + "; got " + python_type_name(value));
    if (nb::len(value) != count)
        throw InvalidArgument(usage + "; got " + std::to_string(nb::len(value)) + " values " +
                              nb::cast<std::string>(nb::repr(value)));
    std::vector<std::uint32_t> out;
    std::size_t i = 0;
    for (const char* name : names) {
        const std::string what = std::string(keyword) + " " + name;
        const std::int64_t v = integer_of(value[i++], what);
        if (v < 0 || v > std::numeric_limits<std::uint32_t>::max())
            throw InvalidArgument(what + " must be a non-negative integer below 2^32; got " + std::to_string(v));
        out.push_back(std::uint32_t(v));
    }
    return out;
}

std::optional<Region> roi_of(nb::handle roi) {
    if (!roi.is_valid() || roi.is_none()) return std::nullopt;
    const auto v = uint32s_of(roi, 4, "roi", {"x", "y", "width", "height"}, "(x, y, width, height)");
    if (v[2] == 0 || v[3] == 0)
        throw InvalidArgument("roi " + nb::cast<std::string>(nb::repr(roi)) + " is empty: its width and height must be at least 1");
    return Region{v[0], v[1], v[2], v[3]};
}

TileGrid tiles_of(nb::handle tiles) {
    if (!tiles.is_valid() || tiles.is_none()) return {};
    const auto v = uint32s_of(tiles, 2, "tiles", {"x", "y"}, "(tiles_x, tiles_y)");
    if (v[0] == 0 || v[1] == 0)
        throw InvalidArgument("tiles " + nb::cast<std::string>(nb::repr(tiles)) + ": each count must be at least 1");
    return TileGrid{v[0], v[1]};
}

bool given(const nb::object& value) { return value.is_valid() && !value.is_none(); }

// alpha_threshold=: None, or a number in the alpha sample's own units. NaN is refused here, before
// any file is read (the core refuses it too, but only when it counts).
std::optional<double> alpha_threshold_of(const nb::object& threshold) {
    if (!given(threshold)) return std::nullopt;
    const double t = number_of(threshold, "alpha_threshold");
    if (std::isnan(t))
        throw InvalidArgument("alpha_threshold is NaN: give a number (pixels whose alpha is above it are counted)");
    return t;
}

// bins= as edges (numpy's bins=array habit): a 1-D sequence or array of numbers, never a str.
// Anything else with a length or more than one dimension is one too, and refused by name.
bool are_edges(nb::handle bins) {
    if (nb::isinstance<nb::str>(bins) || nb::isinstance<nb::bytes>(bins)) return false;
    if (nb::hasattr(bins, "ndim")) {  // numpy (and torch, cupy) arrays; numpy integer scalars have ndim 0
        nb::object ndim = bins.attr("ndim");
        return !(PyIndex_Check(ndim.ptr()) && nb::cast<std::int64_t>(ndim) == 0);
    }
    return PySequence_Check(bins.ptr()) != 0;
}

std::vector<double> edges_of(nb::handle bins) {
    if (nb::hasattr(bins, "ndim")) {
        const std::int64_t ndim = integer_of(bins.attr("ndim"), "bins.ndim");
        if (ndim != 1)
            throw InvalidArgument("bins edges must be one-dimensional; got an array of " + std::to_string(ndim) +
                                  " dimensions");
    }
    const std::size_t n = nb::len(bins);
    if (n < 2 || n > kMaxEdges)
        throw InvalidArgument("bins edges must be 2 to " + std::to_string(kMaxEdges) + " values (1 to " +
                              std::to_string(kMaxEdges - 1) + " bins); got " + std::to_string(n));
    std::vector<double> edges;
    edges.reserve(n);
    for (nb::handle e : bins) edges.push_back(number_of(e, "bins edge " + std::to_string(edges.size())));
    if (edges.size() != n) throw InvalidArgument("bins edges: the sequence changed length while it was read");
    return edges;
}

// ev=(lo, hi, bins_per_stop): the edges of EV bins (ev_edges, docs/semantics.md "EV bins").
std::vector<double> ev_of(nb::handle ev) {
    if (nb::isinstance<nb::str>(ev) || nb::isinstance<nb::bytes>(ev) || !nb::isinstance<nb::sequence>(ev) ||
        nb::len(ev) != 3)
        throw InvalidArgument("ev must be None or (lo, hi, bins_per_stop); got " + nb::cast<std::string>(nb::repr(ev)));
    const double lo = number_of(ev[0], "ev lo"), hi = number_of(ev[1], "ev hi");
    const std::int64_t per_stop = integer_of(ev[2], "ev bins_per_stop");
    if (per_stop < 1 || per_stop > std::numeric_limits<std::uint32_t>::max())
        throw InvalidArgument("ev bins_per_stop must be a positive integer; got " + std::to_string(per_stop));
    return ev_edges(lo, hi, std::uint32_t(per_stop));
}

// bins=, range= and ev= into `spec`: uniform bins, edges, or EV edges.
void bins_of(const RequestArgs& args, BinSpec& spec) {
    const bool has_range = given(args.range);
    if (given(args.ev)) {
        if (given(args.bins) || has_range)
            throw InvalidArgument("ev= gives the bins and their range: bins= and range= cannot come with it");
        spec.edges = ev_of(args.ev);
    } else if (given(args.bins) && are_edges(args.bins)) {
        if (has_range) throw InvalidArgument("range= cannot come with bins=edges: the edges give the range");
        spec.edges = edges_of(args.bins);
    } else if (given(args.bins)) {
        nb::handle bins = args.bins;
        if (PyBool_Check(bins.ptr()) || PyFloat_Check(bins.ptr()) || !PyIndex_Check(bins.ptr()))
            throw InvalidArgument("bins must be an integer (the number of bins) or a 1-D sequence of edges; got " +
                                  python_type_name(bins));
        const std::int64_t n = integer_of(bins, "bins");
        if (n < 1 || n > std::numeric_limits<std::uint32_t>::max())
            throw InvalidArgument("bins must be a positive integer; got " + std::to_string(n));
        spec.bins = std::uint32_t(n);
    }
    if (has_range) spec.range = range_of(args.range);
    // The edges' own rules (count, finite, increasing), checked before an engine opens or a file
    // is read; the fp32 ones of half and float samples come with the image.
    if (!spec.edges.empty()) resolve_layout(SampleType::u8, spec);
}

// sample_stats=: False, True (the default percentiles 1, 50, 99) or a sequence of percentiles.
void sample_stats_of(nb::handle stats, Request& request) {
    if (!stats.is_valid() || stats.is_none() || (PyBool_Check(stats.ptr()) && stats.ptr() == Py_False)) return;
    request.sample_stats = true;
    if (PyBool_Check(stats.ptr())) return;
    if (!PySequence_Check(stats.ptr()) || nb::isinstance<nb::str>(stats))
        throw InvalidArgument("sample_stats must be True, False or a sequence of percentiles in [0, 100]; got " +
                              python_type_name(stats));
    request.percentiles.clear();
    for (nb::handle p : stats) request.percentiles.push_back(number_of(p, "sample_stats percentile"));
    validate_percentiles(request.percentiles);
}

}  // namespace

CheckedRequest request_of(const RequestArgs& args, const Placement* image_where) {
    CheckedRequest checked;
    Request& request = checked.request;
    const auto mode = parse_mode(args.mode);
    if (!mode) throw InvalidArgument("mode must be 'all', 'rgb' or 'luma'; got '" + args.mode + "'");
    request.mode = *mode;
    request.weights = weights_of(args.weights);
    bins_of(args, request.bins);
    request.bins.clamp = args.clamp;
    request.bins.closed_top = args.closed_top;
    // Its own rules (a range or edges, at most 4096 bins), checked before a file is read.
    if (args.closed_top) resolve_layout(SampleType::u8, request.bins);
    request.count_alpha = args.alpha;
    request.roi = roi_of(args.roi);
    request.tiles = tiles_of(args.tiles);
    if (given(args.mask)) {
        checked.mask_pixels = mask_of(args.mask, image_where);
        if (checked.mask_pixels->device_view) request.device_mask = checked.mask_pixels->device_view;
        else request.mask = checked.mask_pixels->view;
    }
    request.alpha_threshold = alpha_threshold_of(args.alpha_threshold);
    request.value_extremes = args.extremes;
    sample_stats_of(args.sample_stats, request);
    return checked;
}

RequestArgs args_of(const std::string& mode, nb::object bins, nb::object range, nb::object ev, bool clamp,
                    bool closed_top, nb::object weights, bool alpha, nb::object roi, nb::object tiles, nb::object mask,
                    nb::object alpha_threshold, bool extremes, nb::object sample_stats) {
    return RequestArgs{mode,           std::move(bins), std::move(range), std::move(ev),   clamp, closed_top,
                       std::move(weights), alpha,       std::move(roi),   std::move(tiles), std::move(mask),
                       std::move(alpha_threshold), extremes, std::move(sample_stats)};
}

std::string utf8_of(nb::handle str, const std::string& what) {
    if (!nb::isinstance<nb::str>(str)) throw InvalidArgument(what + " must be a str; got " + python_type_name(str));
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(str.ptr(), &size);
    if (!text) {
        PyErr_Clear();
        throw InvalidArgument(what + " " + nb::cast<std::string>(nb::repr(str)) +
                              " is not text that UTF-8 can hold (it has a lone surrogate)");
    }
    return std::string(text, std::size_t(size));
}

std::string device_of(nb::handle device) {
    if (!device.is_valid() || device.is_none()) return {};
    if (nb::isinstance<nb::str>(device)) {
        std::string name = utf8_of(device, "device");
        if (name.empty()) throw InvalidArgument("device must be None, an index or a non-empty name");
        return name;
    }
    const std::int64_t index = integer_of(device, "device");
    if (index < 0) throw InvalidArgument("device index must be >= 0; got " + std::to_string(index));
    return std::to_string(index);
}

}  // namespace imghist::python
