#include "merge_entry.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "io/ev_from_white.hpp"
#include "merge.hpp"
#include "sensor_report.hpp"

namespace imghist::cli {

namespace {

using json = ReportJson;

const json& member(const json& obj, const std::string& where, const char* key) {
    if (!obj.is_object()) fail(where, "not a JSON object");
    const auto it = obj.find(key);
    if (it == obj.end()) fail(where, std::string("no \"") + key + "\" field");
    return *it;
}

std::string field(const std::string& where, const char* key) { return where + "." + key; }

// A value in a message: short, whatever the input held.
std::string value_excerpt(const json& j) {
    if (j.is_string()) return excerpt(j.get_ref<const json::string_t&>(), 64, "\"");
    if (j.is_array()) return "an array of " + std::to_string(j.size()) + " values";
    if (j.is_object()) return "an object";
    return excerpt(j.dump(-1, ' ', false, json::error_handler_t::replace));
}

std::uint64_t to_u64(const json& j, const std::string& where) {
    if (!j.is_number_unsigned()) fail(where, "not an unsigned 64-bit integer: " + value_excerpt(j));
    return j.get<std::uint64_t>();
}
std::uint64_t u64(const json& obj, const std::string& where, const char* key) {
    return to_u64(member(obj, where, key), field(where, key));
}
std::optional<std::uint64_t> u64_or_null(const json& obj, const std::string& where, const char* key) {
    const json& j = member(obj, where, key);
    if (j.is_null()) return std::nullopt;
    return to_u64(j, field(where, key));
}
bool boolean(const json& obj, const std::string& where, const char* key) {
    const json& j = member(obj, where, key);
    if (!j.is_boolean()) fail(field(where, key), "not true or false");
    return j.get<bool>();
}
std::string text(const json& obj, const std::string& where, const char* key) {
    const json& j = member(obj, where, key);
    if (!j.is_string()) fail(field(where, key), "not a string");
    return j.get<std::string>();
}
double finite(const json& j, const std::string& where) {
    if (!j.is_number()) fail(where, "not a number");
    const double v = j.get<double>();
    if (!std::isfinite(v)) fail(where, "not a finite number");
    return v;
}

std::optional<Channel> channel_named(const std::string& name) {
    for (Channel c : {Channel::R, Channel::G, Channel::B, Channel::A, Channel::Y, Channel::gray})
        if (channel_name(c) == name) return c;
    return std::nullopt;
}

PixelFormat format_named(const json& j, const std::string& where) {
    if (!j.is_string()) fail(where, "not a string");
    const auto f = parse_pixel_format(j.get<std::string>());
    if (!f) fail(where, "unknown pixel format " + value_excerpt(j));
    return *f;
}

// A file name as the report wrote it: "file", or its exact bytes from "file_hex".
std::string file_name(const json& entry, const std::string& where) {
    if (!entry.contains("file_hex")) return text(entry, where, "file");
    const std::string hex = text(entry, where, "file_hex");
    auto digit = [&](char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        fail(field(where, "file_hex"), "not lower-case hex digits");
    };
    if (hex.size() % 2) fail(field(where, "file_hex"), "an odd number of hex digits");
    std::string bytes;
    for (std::size_t i = 0; i < hex.size(); i += 2) bytes += char(digit(hex[i]) * 16 + digit(hex[i + 1]));
    return bytes;
}

// Uniform bins over "range", or the bins between "edges".
BinLayout layout_from(const json& j, const std::string& where, bool integer) {
    BinLayout layout;
    const std::uint64_t bins = u64(j, where, "bins");
    if (bins == 0 || bins > (1u << 20)) fail(field(where, "bins"), "not between 1 and 1048576");
    layout.bins = std::uint32_t(bins);
    const json& range = member(j, where, "range");
    if (!range.is_array() || range.size() != 2) fail(field(where, "range"), "not [lo, hi]");
    layout.lo = finite(range[0], field(where, "range[0]"));
    layout.hi = finite(range[1], field(where, "range[1]"));
    if (!(layout.lo < layout.hi)) fail(field(where, "range"), "lo is not below hi");
    layout.closed_top = boolean(j, where, "closed_top");
    layout.clamp = boolean(j, where, "clamp");
    if (j.contains("edges")) {  // edge bins: bins + 1 increasing edges from lo to hi
        const json& edges = j["edges"];
        const std::string at = field(where, "edges");
        if (!edges.is_array() || edges.size() != bins + 1) fail(at, "not bins + 1 edges");
        for (std::size_t k = 0; k < edges.size(); ++k) {
            layout.edges.push_back(finite(edges[k], at + "[" + std::to_string(k) + "]"));
            if (k > 0 && !(layout.edges[k - 1] < layout.edges[k])) fail(at, "not strictly increasing");
        }
        if (layout.edges.front() != layout.lo || layout.edges.back() != layout.hi)
            fail(at, "does not start at range[0] and end at range[1]");
    }
    layout.integer = integer;  // not in the report: the sample type's, as resolve_layout sets it
    return layout;
}

// A channel's "sample_stats": what adds up exactly (count, the exact sums, min and max); the
// derived numbers are computed again from them.
SampleMoments sample_moments_from(const json& j, const std::string& where) {
    SampleMoments m;
    m.count = u64(j, where, "count");
    const auto exact = [&](const char* key) {
        const std::optional<ExactNumber> v = ExactNumber::parse(text(j, where, key));
        if (!v) fail(field(where, key), "not an exact decimal of a sum of samples");
        return *v;
    };
    m.sum = exact("sum");
    m.sum_of_squares = exact("sum_of_squares");
    const auto extreme = [&](const char* key) -> std::optional<double> {
        const json& v = member(j, where, key);
        if (v.is_null()) return std::nullopt;
        return finite(v, field(where, key));
    };
    m.min = extreme("min");
    m.max = extreme("max");
    if ((m.count == 0) != !m.min || !m.min != !m.max || (m.min && *m.min > *m.max) || m.sum_of_squares.negative() ||
        (m.count == 0 && (!m.sum.is_zero() || !m.sum_of_squares.is_zero())))
        fail(where, "count, sums, min and max do not agree");
    return m;
}

// A channel's sample percentiles as the report gives them: a sum of entries recomputes them
// from the counts where every bin holds one value, and drops them elsewhere (Result::merge).
std::vector<SamplePercentile> sample_percentiles_from(const json& j, const std::string& where) {
    const json& list = member(j, where, "percentiles");
    const std::string at = field(where, "percentiles");
    if (!list.is_array() || list.size() > kMaxPercentiles) fail(at, "not an array of at most 100 percentiles");
    std::vector<SamplePercentile> out;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string item = at + "[" + std::to_string(i) + "]";
        SamplePercentile p{finite(member(list[i], item, "p"), field(item, "p")),
                           finite(member(list[i], item, "nearest_rank"), field(item, "nearest_rank")),
                           finite(member(list[i], item, "linear"), field(item, "linear"))};
        if (!(p.percent >= 0 && p.percent <= 100)) fail(field(item, "p"), "not in [0, 100]");
        out.push_back(p);
    }
    return out;
}

ChannelHistogram channel_from(const json& j, const std::string& where, Channel channel, bool integer) {
    ChannelHistogram c;
    c.channel = channel;
    c.layout = layout_from(j, where, integer);
    const json& counts = member(j, where, "counts");
    const std::string counts_at = field(where, "counts");
    if (!counts.is_array()) fail(counts_at, "not an array");
    if (counts.size() != c.layout.bins)
        fail(counts_at, std::to_string(counts.size()) + " entries for " + std::to_string(c.layout.bins) + " bins");
    c.counts.reserve(c.layout.bins);
    for (std::size_t k = 0; k < counts.size(); ++k) c.counts.push_back(to_u64(counts[k], counts_at + "[" + std::to_string(k) + "]"));
    c.nan = u64(j, where, "nan");
    c.below = u64(j, where, "below");
    c.above = u64(j, where, "above");
    if (j.contains("positive_infinities")) {  // value extremes; null finite_min / max: none finite
        c.positive_infinities = u64(j, where, "positive_infinities");
        c.negative_infinities = u64(j, where, "negative_infinities");
        const auto extreme = [&](const char* key) -> std::optional<double> {
            const json& v = member(j, where, key);
            if (v.is_null()) return std::nullopt;
            return finite(v, field(where, key));
        };
        c.finite_min = extreme("finite_min");
        c.finite_max = extreme("finite_max");
    }
    if (j.contains("sample_stats")) {
        const json& stats = member(j, where, "sample_stats");
        c.sample_moments = sample_moments_from(stats, field(where, "sample_stats"));
        c.sample_percentiles = sample_percentiles_from(stats, field(where, "sample_stats"));
    }
    // The clipped counts and the sample sums are the only stored statistics read: they do not
    // follow from the bins.
    const json& stats = member(j, where, "stats");
    c.clipped_low_count = u64_or_null(stats, field(where, "stats"), "clipped_low_count");
    c.clipped_high_count = u64_or_null(stats, field(where, "stats"), "clipped_high_count");
    return c;
}

// The histograms of a result or a sum, in the report's order; `format` gives the sample type.
Result result_from(const json& entry, const std::string& where, PixelFormat format) {
    Result r;
    r.format = format;
    r.backend = text(entry, where, "backend");
    r.device = text(entry, where, "device");
    const std::string at = field(where, "histograms");
    const json& histograms = member(entry, where, "histograms");
    if (!histograms.is_object() || histograms.empty()) fail(at, "not an object of channels");
    const bool integer = !format_info(format).is_float(), camera_raw = camera_raw_histograms(histograms);
    for (const auto& [name, j] : histograms.items()) {
        const auto channel = camera_raw ? sensor_channel_named(name) : channel_named(name);
        if (!channel) fail(at, "unknown channel " + excerpt(name, 64, "\""));
        r.channels.push_back(channel_from(j, at + "." + name, *channel, integer));
        // A raw file's EV axis from white holds no integer values, whatever the 16-bit format.
        if (camera_raw && io::is_ev_from_white_axis(r.channels.back().layout)) r.channels.back().layout.integer = false;
    }
    // In imghist's order (R, G, B, A, Y), whatever order a tool that rewrote the report gave them.
    std::stable_sort(r.channels.begin(), r.channels.end(),
                     [](const ChannelHistogram& a, const ChannelHistogram& b) { return a.channel < b.channel; });
    if (entry.contains("counted_pixels")) r.counted_pixels = u64(entry, where, "counted_pixels");
    return r;
}

// The pixels a result counted: its "region" (inside the image), else the whole image; then
// "counted_pixels" of those when a mask or an alpha threshold chose them.
EntryPixels result_pixels(const json& entry, const std::string& where, const Result& r, std::uint64_t width,
                          std::uint64_t height) {
    std::uint64_t area = width * height;
    if (entry.contains("region")) {
        const json& region = entry["region"];
        const std::string at = field(where, "region");
        const std::uint64_t x = u64(region, at, "x"), y = u64(region, at, "y");
        const std::uint64_t w = u64(region, at, "width"), h = u64(region, at, "height");
        if (x > width || w > width - x || y > height || h > height - y) fail(at, "not inside the image");
        area = w * h;
    }
    if (r.counted_pixels && *r.counted_pixels > area)
        fail(field(where, "counted_pixels"), "more than the " + std::to_string(area) + " pixels of the counted region");
    return {r.counted_pixels.value_or(area), true};
}

}  // namespace

void fail(const std::string& where, const std::string& what) { throw MergeInputError(where + ": " + what); }

std::string excerpt(std::string_view text, std::size_t max, const char* quote) {
    if (text.size() <= max) return quote + display_text(text) + quote;
    return quote + display_text(text.substr(0, max)) + "..." + quote + " (" + std::to_string(text.size()) + " bytes)";
}

MergeEntry result_entry(const json& entry, const std::string& where) {
    MergeEntry e;
    e.where = where;
    e.formats = {format_named(member(entry, where, "format"), field(where, "format"))};
    e.result = result_from(entry, where, e.formats.front());
    e.camera_raw = camera_raw_histograms(entry["histograms"]);
    const std::uint64_t width = u64(entry, where, "width"), height = u64(entry, where, "height");
    if (width > UINT32_MAX || height > UINT32_MAX) fail(where, "width or height above 2^32 - 1");
    e.pixels = width * height;
    e.counted = result_pixels(entry, where, e.result, width, height);
    e.files = {file_name(entry, where)};
    return e;
}

MergeEntry sum_entry(const json& entry, const std::string& where) {
    MergeEntry e;
    e.where = where;
    const json& formats = member(entry, where, "formats");
    if (!formats.is_array() || formats.empty()) fail(field(where, "formats"), "not a list of pixel formats");
    for (std::size_t i = 0; i < formats.size(); ++i)
        e.formats.push_back(format_named(formats[i], field(where, "formats") + "[" + std::to_string(i) + "]"));
    e.result = result_from(entry, where, e.formats.front());
    e.camera_raw = camera_raw_histograms(entry["histograms"]);
    const json& files = member(entry, where, "files");
    if (!files.is_array()) fail(field(where, "files"), "not an array");
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (!files[i].is_string()) fail(field(where, "files") + "[" + std::to_string(i) + "]", "not a string");
        e.files.push_back(files[i].get<std::string>());
    }
    e.pixels = u64(entry, where, "pixels");
    // A sum does not say which regions its files counted: without counted_pixels only a bound.
    if (e.result.counted_pixels && *e.result.counted_pixels > e.pixels)
        fail(field(where, "counted_pixels"), "more than the " + std::to_string(e.pixels) + " pixels of the images");
    e.counted = {e.result.counted_pixels.value_or(e.pixels), e.result.counted_pixels.has_value()};
    return e;
}

FileOutcome error_entry(const json& entry, const std::string& where, const std::string& input) {
    FileOutcome o;
    o.file = file_name(entry, where);
    o.error = text(entry, where, "error") + " (reported in " + input + ")";
    return o;
}

}  // namespace imghist::cli
