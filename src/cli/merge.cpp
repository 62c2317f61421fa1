#include "merge.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "imghist/imghist.hpp"

namespace imghist::cli {

namespace {

// Ordered: the channels are merged in the order the report lists them (R, G, B, A, Y).
using json = nlohmann::ordered_json;

// The first error names the input, the entry and the field: "p1.json: sums[0].histograms.R.counts[3]: ...".
[[noreturn]] void fail(const std::string& where, const std::string& what) { throw MergeInputError(where + ": " + what); }

const json& member(const json& obj, const std::string& where, const char* key) {
    if (!obj.is_object()) fail(where, "not a JSON object");
    const auto it = obj.find(key);
    if (it == obj.end()) fail(where, std::string("no \"") + key + "\" field");
    return *it;
}

std::string field(const std::string& where, const char* key) { return where + "." + key; }

std::uint64_t to_u64(const json& j, const std::string& where) {
    if (!j.is_number_unsigned()) fail(where, "not an unsigned 64-bit integer: " + j.dump(-1, ' ', false, json::error_handler_t::replace).substr(0, 40));
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
    if (!f) fail(where, "unknown pixel format \"" + display_text(j.get<std::string>()) + "\"");
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

ChannelHistogram channel_from(const json& j, const std::string& where, Channel channel, bool integer) {
    ChannelHistogram c;
    c.channel = channel;
    const std::uint64_t bins = u64(j, where, "bins");
    if (bins == 0 || bins > (1u << 20)) fail(field(where, "bins"), "not between 1 and 1048576");
    c.layout.bins = std::uint32_t(bins);
    const json& range = member(j, where, "range");
    if (!range.is_array() || range.size() != 2) fail(field(where, "range"), "not [lo, hi]");
    c.layout.lo = finite(range[0], field(where, "range[0]"));
    c.layout.hi = finite(range[1], field(where, "range[1]"));
    if (!(c.layout.lo < c.layout.hi)) fail(field(where, "range"), "lo is not below hi");
    c.layout.closed_top = boolean(j, where, "closed_top");
    c.layout.clamp = boolean(j, where, "clamp");
    if (j.contains("edges")) {  // edge bins: bins + 1 increasing edges from lo to hi
        const json& edges = j["edges"];
        const std::string at = field(where, "edges");
        if (!edges.is_array() || edges.size() != bins + 1) fail(at, "not bins + 1 edges");
        for (std::size_t k = 0; k < edges.size(); ++k) {
            c.layout.edges.push_back(finite(edges[k], at + "[" + std::to_string(k) + "]"));
            if (k > 0 && !(c.layout.edges[k - 1] < c.layout.edges[k])) fail(at, "not strictly increasing");
        }
        if (c.layout.edges.front() != c.layout.lo || c.layout.edges.back() != c.layout.hi)
            fail(at, "does not start at range[0] and end at range[1]");
    }
    c.layout.integer = integer;  // not in the report: the sample type's, as resolve_layout sets it
    const json& counts = member(j, where, "counts");
    const std::string counts_at = field(where, "counts");
    if (!counts.is_array()) fail(counts_at, "not an array");
    if (counts.size() != bins) fail(counts_at, std::to_string(counts.size()) + " entries for " + std::to_string(bins) + " bins");
    c.counts.reserve(bins);
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
    // The clipped counts are the only stored statistics read: they do not follow from the bins.
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
    const bool integer = !format_info(format).is_float();
    for (const auto& [name, j] : histograms.items()) {
        const auto channel = channel_named(name);
        if (!channel) fail(at, "unknown channel \"" + display_text(name) + "\"");
        r.channels.push_back(channel_from(j, at + "." + name, *channel, integer));
    }
    if (entry.contains("counted_pixels")) r.counted_pixels = u64(entry, where, "counted_pixels");
    return r;
}

// Adds every count of `r` (and `pixels`) to `total`, which fits 64 bits only if every sum does.
void add_total(unsigned __int128& total, const Result& r, std::uint64_t pixels) {
    total += pixels;
    for (const ChannelHistogram& c : r.channels) {
        for (std::uint64_t n : c.counts) total += n;
        total += c.nan + (unsigned __int128)c.below + c.above + c.clipped_low_count.value_or(0) +
                 c.clipped_high_count.value_or(0);
    }
}

class Reader {
public:
    explicit Reader(MergedInputs& merged) : merged_(merged) {}

    void read(const std::string& file) {
        ++index_;
        input_ = display_text(file);
        inputs_.push_back(input_);
        std::ifstream in(file, std::ios::binary);
        if (!in) fail(input_, "cannot open");
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (in.bad()) fail(input_, "cannot read");
        if (bytes.find_first_not_of(" \t\r\n") == std::string::npos) fail(input_, "empty: not an imghist report");
        json doc = json::parse(bytes, nullptr, false);
        if (!doc.is_discarded() && doc.is_object() && doc.contains("schema")) return document(doc);
        const bool one_line = bytes.find('\n') == std::string::npos || bytes.find('\n') + 1 >= bytes.size();
        if (!doc.is_discarded() && !(one_line && doc.is_object()))
            fail(input_, "not an imghist report: a JSON document without \"schema\"");
        if (doc.is_discarded() && bytes.rfind("{\"schema\"", 0) == 0) {
            try {
                [[maybe_unused]] const json again = json::parse(bytes);
            } catch (const json::exception& e) {
                fail(input_, std::string("malformed JSON document: ") + display_text(e.what()));
            }
        }
        lines(bytes);
    }

private:
    void document(const json& doc) {
        const json& schema = doc["schema"];
        if (!schema.is_number_integer() || schema.get<std::int64_t>() != kJsonSchema)
            fail(input_ + ": schema", "schema " + schema.dump() + " is not read (imghist merge reads schema " +
                                          std::to_string(kJsonSchema) + ")");
        (void)text(doc, input_, "imghist");
        const json& errors = member(doc, input_, "errors");
        if (!errors.is_array()) fail(input_ + ": errors", "not an array");
        for (std::size_t i = 0; i < errors.size(); ++i) error(errors[i], input_ + ": errors[" + std::to_string(i) + "]");
        if (doc.contains("interrupted")) interrupted(doc["interrupted"]);
        const bool has_sums = doc.contains("sums");
        const json& entries = member(doc, input_, has_sums ? "sums" : "results");
        const std::string name = has_sums ? "sums" : "results";
        if (!entries.is_array()) fail(input_ + ": " + name, "not an array");
        for (std::size_t i = 0; i < entries.size(); ++i) {
            const std::string where = input_ + ": " + name + "[" + std::to_string(i) + "]";
            has_sums ? sum(entries[i], where) : result(entries[i], where);
        }
    }

    // JSON Lines: the sum lines when there are any, else the result lines; the error lines always.
    void lines(const std::string& bytes) {
        std::vector<std::pair<json, std::string>> results, sums;
        std::size_t number = 0;
        for (std::size_t start = 0; start < bytes.size();) {
            std::size_t end = bytes.find('\n', start);
            if (end == std::string::npos) end = bytes.size();
            const std::string line = bytes.substr(start, end - start);
            start = end + 1;
            const std::string where = input_ + ": line " + std::to_string(++number);
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            json j = json::parse(line, nullptr, false);
            if (j.is_discarded()) fail(where, "not JSON (neither a JSON document nor JSON Lines)");
            if (!j.is_object()) fail(where, "not a JSON object");
            if (j.contains("sum")) sums.emplace_back(std::move(j["sum"]), where + ": sum");
            else if (j.contains("error")) error(j, where);
            else if (j.contains("histograms")) results.emplace_back(std::move(j), where);
            else if (j.contains("interrupted")) interrupted(j["interrupted"]);
            else fail(where, "not an imghist entry (no \"histograms\", \"error\" or \"sum\" field)");
        }
        if (sums.empty())
            for (const auto& [j, where] : results) result(j, where);
        for (const auto& [j, where] : sums) sum(j, where);
    }

    // A run a signal ended: its report is merged, and the merge says it holds part of that run.
    void interrupted(const json& note) {
        const bool counts = note.is_object() && note.value("reported", json()).is_number_unsigned() &&
                            note.value("inputs", json()).is_number_unsigned();
        merged_.warnings.push_back(
            input_ + " is the report of an interrupted run" +
            (counts ? " (" + note["reported"].dump() + " of its " + note["inputs"].dump() + " inputs)" : "") +
            ": only the inputs it reports are merged");
    }

    void error(const json& entry, const std::string& where) {
        FileOutcome o;
        o.file = file_name(entry, where);
        o.error = text(entry, where, "error") + " (reported in " + input_ + ")";
        merged_.errors.push_back(std::move(o));
    }

    void result(const json& entry, const std::string& where) {
        const PixelFormat format = format_named(member(entry, where, "format"), field(where, "format"));
        Result r = result_from(entry, where, format);
        const std::uint64_t width = u64(entry, where, "width"), height = u64(entry, where, "height");
        if (width > UINT32_MAX || height > UINT32_MAX) fail(where, "width or height above 2^32 - 1");
        const std::uint64_t pixels = width * height;
        add(r, {file_name(entry, where)}, pixels, {format}, where);
    }

    void sum(const json& entry, const std::string& where) {
        const json& formats = member(entry, where, "formats");
        if (!formats.is_array() || formats.empty()) fail(field(where, "formats"), "not a list of pixel formats");
        std::vector<PixelFormat> listed;
        for (std::size_t i = 0; i < formats.size(); ++i)
            listed.push_back(format_named(formats[i], field(where, "formats") + "[" + std::to_string(i) + "]"));
        Result r = result_from(entry, where, listed.front());
        const json& files = member(entry, where, "files");
        if (!files.is_array()) fail(field(where, "files"), "not an array");
        std::vector<std::string> names;
        for (std::size_t i = 0; i < files.size(); ++i) {
            if (!files[i].is_string()) fail(field(where, "files") + "[" + std::to_string(i) + "]", "not a string");
            names.push_back(files[i].get<std::string>());
        }
        add(r, std::move(names), u64(entry, where, "pixels"), listed, where);
    }

    void add(const Result& r, std::vector<std::string> names, std::uint64_t pixels,
             const std::vector<PixelFormat>& formats, const std::string& where) {
        add_total(total_, r, pixels);
        if (total_ >> 64) fail(where, "the counts of the inputs add up to more than 64 bits hold");
        std::vector<SumMember> members;
        for (std::string& name : names) {
            const auto [it, first] = seen_.try_emplace(name, index_);
            if (!first && it->second != index_) repeated(name, inputs_[it->second]);
            members.push_back(SumMember{std::move(name), kNoResult});
        }
        merged_.sums.add(r, std::move(members), pixels, formats);
    }

    void repeated(const std::string& name, const std::string& earlier) {
        constexpr std::size_t kMaxWarnings = 20;
        if (++repeats_ <= kMaxWarnings)
            merged_.warnings.push_back(display_text(name) + " is in " + earlier + " and in input " +
                                       std::to_string(index_ + 1) + " (" + input_ + "): counted in both");
        else if (repeats_ == kMaxWarnings + 1)
            merged_.warnings.push_back("more files are in several inputs (only the first " +
                                       std::to_string(kMaxWarnings) + " are named)");
    }

    MergedInputs& merged_;
    std::string input_;                   // the input being read, for messages
    std::vector<std::string> inputs_;     // every input so far (the same one may be given twice)
    std::size_t index_ = std::size_t(-1);  // the input being read, in inputs_
    std::unordered_map<std::string, std::size_t> seen_;  // file name -> the first input naming it
    unsigned __int128 total_ = 0;
    std::size_t repeats_ = 0;
};

}  // namespace

MergedInputs read_merge_inputs(const std::vector<std::string>& files) {
    MergedInputs merged;
    Reader reader(merged);
    for (const std::string& f : files) reader.read(f);
    return merged;
}

}  // namespace imghist::cli
