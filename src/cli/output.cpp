#include "output.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <iostream>
#include <optional>
#include <ostream>

#include "imghist/engine.hpp"
#include "imghist/error.hpp"
#include "sample_meaning.hpp"
#include "sensor_report.hpp"

namespace imghist::cli {

using json = nlohmann::ordered_json;

namespace {

// Shortest text that reads back as the same double ("256", "0.00390625").
std::string number(double v) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

json json_number(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15) return std::int64_t(v);
    return v;
}

// Sets j[key] to a file name, and j[key + "_hex"] to its bytes when they are not UTF-8.
void put_name(json& j, const std::string& key, const std::string& name) {
    j[key] = utf8_or_replaced(name);
    if (!is_utf8(name)) j[key + "_hex"] = hex_bytes(name);
}

// A message (error, note, device name) in JSON: escaped like the terminal's, so one line.
json message_json(const std::string& text) { return display_text(text); }

// A statistic's JSON: null when it is empty.
template <class T>
json to_json(const std::optional<T>& v) {
    return v ? json(*v) : json(nullptr);
}
json to_json(std::uint64_t v) { return json(v); }

// docs/cli.md, "JSON": bin-unit statistics under their old names, value-unit ones with a
// `_value` suffix, the exact clipping counts and their shares of the non-NaN samples.
json stats_json(const ChannelHistogram& c) {
    json j;
    visit_stats(c, [&j](const char* name, const auto& value) { j[name] = to_json(value); });
    return j;
}

json histograms_json(const std::vector<ChannelHistogram>& channels) {
    json h = json::object();
    for (const ChannelHistogram& c : channels) {
        json j;
        j["bins"] = c.layout.bins;
        j["range"] = json::array({json_number(c.layout.lo), json_number(c.layout.hi)});
        if (!c.layout.edges.empty()) {  // edge bins: the edges compared (fp32 ones for floats)
            json edges = json::array();
            for (double e : c.layout.edges) edges.push_back(json_number(e));
            j["edges"] = std::move(edges);
        }
        j["closed_top"] = c.layout.closed_top;
        j["clamp"] = c.layout.clamp;
        j["counts"] = c.counts;
        j["nan"] = c.nan;
        j["below"] = c.below;
        j["above"] = c.above;
        if (c.positive_infinities) {  // value extremes (docs/semantics.md); null: no finite sample
            j["finite_min"] = c.finite_min ? json_number(*c.finite_min) : json(nullptr);
            j["finite_max"] = c.finite_max ? json_number(*c.finite_max) : json(nullptr);
            j["positive_infinities"] = *c.positive_infinities;
            j["negative_infinities"] = c.negative_infinities.value_or(0);
        }
        j["stats"] = stats_json(c);
        h[std::string(channel_name(c.channel))] = std::move(j);
    }
    return h;
}

// "exposure" with --exposure: docs/semantics.md, "Auto-exposure"; null when there is none.
void put_exposure(json& j, const Result& r, const std::optional<ExposureSettings>& settings) {
    if (!settings) return;
    const ChannelHistogram* y = r.luminance();
    const std::optional<Exposure> e = y ? exposure(*y, *settings) : std::nullopt;
    if (!e) {
        j["exposure"] = nullptr;
        return;
    }
    j["exposure"] = {{"channel", std::string(channel_name(y->channel))},
                     {"low_percent", settings->low_percent},
                     {"high_percent", settings->high_percent},
                     {"average_ev", e->average_ev},
                     {"key", e->key},
                     {"exposure_ev", e->exposure_ev},
                     {"samples", e->samples}};
    if (const auto caveat = exposure_caveat(r.format)) j["exposure"]["note"] = *caveat;
}

json region_json(const Region& r) { return {{"x", r.x}, {"y", r.y}, {"width", r.width}, {"height", r.height}}; }

// "region" when the counted pixels are not the whole image or there are tiles; "tile_grid" and
// "tiles" (row by row) when there are tiles.
// "counted_pixels" in the result and each tile when a mask or an alpha threshold selected them.
void put_regions(json& j, const Result& r) {
    if (r.counted_pixels) j["counted_pixels"] = *r.counted_pixels;
    if (r.tiles.empty() && r.region == Region{0, 0, r.width, r.height}) return;
    j["region"] = region_json(r.region);
    if (r.tiles.empty()) return;
    j["tile_grid"] = {{"x", r.tile_grid.x}, {"y", r.tile_grid.y}};
    json tiles = json::array();
    for (const TileHistogram& t : r.tiles) {
        json tile = {{"region", region_json(t.region)}};
        if (t.counted_pixels) tile["counted_pixels"] = *t.counted_pixels;
        tile["histograms"] = histograms_json(t.channels);
        tiles.push_back(std::move(tile));
    }
    j["tiles"] = std::move(tiles);
}

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

// One row per bin, then one each for the samples below and above the range and the NaNs;
// every row has numbers in bin, lo, hi and count (docs/cli.md, "CSV").
void csv_rows(std::ostream& out, const std::string& image, const std::string& format, const Result& r) {
    const std::string lead = csv_field(display_text(image)) + ',' + format + ',';
    const std::string inf = number(std::numeric_limits<double>::infinity());
    const std::string nan = number(std::numeric_limits<double>::quiet_NaN());
    for (const ChannelHistogram& c : r.channels) {
        const std::string row = lead + std::string(channel_name(c.channel)) + ',';
        for (std::uint32_t k = 0; k < c.layout.bins; ++k) {
            const double lo = bin_lower_edge(c.layout, k);
            const double hi = (c.layout.closed_top && k + 1 == c.layout.bins)
                                  ? c.layout.hi
                                  : bin_lower_edge(c.layout, k + 1);
            out << row << "bin," << k << ',' << number(lo) << ',' << number(hi) << ',' << c.counts[k] << '\n';
        }
        out << row << "below,-1,-" << inf << ',' << number(c.layout.lo) << ',' << c.below << '\n';
        out << row << "above,-1," << number(c.layout.hi) << ',' << inf << ',' << c.above << '\n';
        out << row << "nans,-1," << nan << ',' << nan << ',' << c.nan << '\n';
    }
}

const char* unit_hint(const Result& r, const BinLayout& layout) {
    const FormatInfo& fi = format_info(r.format);
    if (layout.closed_top) return "bin k = [k/256, (k+1)/256), bin 256 = 1.0 and above";
    if (fi.sample == SampleType::u8 && layout.bins == 256 && layout.lo == 0 && layout.hi == 256)
        return "bin = 8-bit value";
    if (fi.sample == SampleType::u16 && layout.bins == 256 && layout.lo == 0 && layout.hi == 65536)
        return "bin = 16-bit value >> 8";
    return nullptr;
}

std::string or_dash(const std::optional<double>& v, int decimals) { return v ? fixed(*v, decimals) : "-"; }
std::string or_dash(const std::optional<std::uint32_t>& v) { return v ? std::to_string(*v) : "-"; }
// Value-unit numbers: six significant digits fit 16-bit values and float fractions alike.
std::string or_dash(const std::optional<double>& v) {
    if (!v) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", *v);
    return buf;
}
std::string share_or_dash(const std::optional<double>& v) { return v ? percent(*v) : "-"; }

// "R: finite values from 0.0012 to 37.5; 3 +Inf", and where they pass the bins, how far and the
// share piled into the end bin: the data's own ends, to choose --range from.
void value_extremes_line(std::ostream& out, const ChannelHistogram& c) {
    if (!c.positive_infinities) return;
    out << "  " << channel_name(c.channel) << ": ";
    // Nine significant digits name every float (the JSON has them exactly).
    const auto value = [](double v) {
        char text[32];
        std::snprintf(text, sizeof text, "%.9g", v);
        return std::string(text);
    };
    if (c.finite_min) out << "finite values from " << value(*c.finite_min) << " to " << value(*c.finite_max);
    else out << "no finite value";
    if (*c.positive_infinities) out << "; " << thousands(*c.positive_infinities) << " +Inf";
    if (c.negative_infinities.value_or(0)) out << "; " << thousands(*c.negative_infinities) << " -Inf";
    const std::uint64_t samples = c.samples();
    if (c.finite_max && *c.finite_max > c.layout.hi && samples && (c.layout.closed_top || c.layout.clamp))
        out << "; past " << number(c.layout.hi) << ": the last bin holds "
            << percent(double(c.counts.back()) / double(samples)) << " (--range LO:HI widens the bins)";
    out << '\n';
}

// A sum's "files:" line: the first few names, then how many more (the JSON lists every one).
std::string files_named(const std::vector<SumMember>& members) {
    constexpr std::size_t kNamed = 8;
    std::string files;
    for (std::size_t i = 0; i < std::min(kNamed, members.size()); ++i)
        files += (i ? ", " : "") + display_text(members[i].file);
    if (members.size() > kNamed)
        files += ", and " + thousands(members.size() - kNamed) + " more (--format json lists them all)";
    return files;
}

void table_block(std::ostream& out, const std::string& heading, const Result& r, const std::vector<std::string>& notes,
                 const std::optional<ExposureSettings>& exposure_settings, const io::SensorChannels* sensor = nullptr) {
    out << heading << '\n';
    // Channels of one result share their layout unless a format mixes sample types (never).
    const BinLayout& layout = r.channels.front().layout;
    const ClipColumns clip = clip_columns(r.format);
    out << "  " << describe_layout(layout);
    if (const char* hint = unit_hint(r, layout)) out << "; " << hint;
    // Where every bin is one value (8-bit default bins) the value row would repeat the bin row.
    const bool bin_is_value = format_info(r.format).sample == SampleType::u8 && layout.bins == 256 &&
                              layout.lo == 0 && layout.hi == 256;
    if (!(r.region == Region{0, 0, r.width, r.height}))
        out << "\n  region: " << r.region.width << " x " << r.region.height << " pixels from column " << r.region.x
            << ", row " << r.region.y;
    if (r.counted_pixels)
        out << "\n  counted: " << thousands(*r.counted_pixels)
            << " pixels, those the mask and the alpha threshold let through";
    out << (bin_is_value ? "\n  statistics per channel (bin = value)"
                         : "\n  statistics per channel in bins, then in values (bin centres)")
        << "; " << clip.meaning << "\n";
    char line[320];
    std::snprintf(line, sizeof line, "  %-5s %-6s %12s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "", "", "pixels",
                  "mean", "stddev", "median", "p1", "p99", "min", "max", clip.low, clip.high);
    out << line;
    for (const ChannelHistogram& c : r.channels) {
        const ChannelStats s = c.stats();
        std::snprintf(line, sizeof line, "  %-5s %-6s %12s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n",
                      shown_channel_name(c.channel, sensor).c_str(), bin_is_value ? "" : "bins", thousands(s.count).c_str(),
                      or_dash(s.mean, 2).c_str(), or_dash(s.stddev, 2).c_str(), or_dash(s.median).c_str(),
                      or_dash(s.p1).c_str(), or_dash(s.p99).c_str(), or_dash(s.min_bin).c_str(),
                      or_dash(s.max_bin).c_str(), share_or_dash(s.clipped_low).c_str(),
                      share_or_dash(s.clipped_high).c_str());
        out << line;
        if (bin_is_value) continue;
        std::snprintf(line, sizeof line, "  %-5s %-6s %12s %9s %9s %9s %9s %9s %9s %9s\n", "", "values", "",
                      or_dash(s.mean_value).c_str(), or_dash(s.stddev_value).c_str(),
                      or_dash(s.median_value).c_str(), or_dash(s.p1_value).c_str(), or_dash(s.p99_value).c_str(),
                      or_dash(s.min_value).c_str(), or_dash(s.max_value).c_str());
        out << line;
    }
    if (!r.tiles.empty()) {
        out << "  tiles: " << r.tile_grid.x << " x " << r.tile_grid.y
            << " (the last column and row take the remainder); mean per channel in bins, all counts in --format json\n";
        std::string header = "  tile     column,row   width x height";
        for (const ChannelHistogram& c : r.channels) {
            std::snprintf(line, sizeof line, " %9s", std::string(channel_name(c.channel)).c_str());
            header += line;
        }
        out << header << '\n';
        for (std::uint32_t ty = 0; ty < r.tile_grid.y; ++ty)
            for (std::uint32_t tx = 0; tx < r.tile_grid.x; ++tx) {
                const TileHistogram& t = r.tile(tx, ty);
                const std::string id = std::to_string(tx) + "," + std::to_string(ty);
                const std::string at = std::to_string(t.region.x) + "," + std::to_string(t.region.y);
                const std::string size = std::to_string(t.region.width) + " x " + std::to_string(t.region.height);
                std::snprintf(line, sizeof line, "  %-8s %-12s %-14s", id.c_str(), at.c_str(), size.c_str());
                out << line;
                for (const ChannelHistogram& c : t.channels) {
                    std::snprintf(line, sizeof line, " %9s", or_dash(c.stats().mean, 2).c_str());
                    out << line;
                }
                out << '\n';
            }
    }
    for (const ChannelHistogram& c : r.channels) value_extremes_line(out, c);
    for (const ChannelHistogram& c : r.channels) {
        if (c.nan == 0 && c.below == 0 && c.above == 0) continue;
        const bool binned = c.layout.clamp || c.layout.closed_top;
        out << "  " << channel_name(c.channel) << ":";
        const char* sep = " ";
        if (c.nan) { out << sep << thousands(c.nan) << " NaN (not binned)"; sep = ", "; }
        if (c.below) {
            out << sep << thousands(c.below) << " below " << number(c.layout.lo)
                << (binned ? " (counted in the first bin)" : " (not binned)");
            sep = ", ";
        }
        if (c.above) {
            out << sep << thousands(c.above) << " above " << number(c.layout.hi)
                << (binned ? " (counted in the last bin)" : " (not binned)");
        }
        out << '\n';
    }
    if (exposure_settings) {
        const ChannelHistogram* y = r.luminance();
        const std::optional<Exposure> e = y ? exposure(*y, *exposure_settings) : std::nullopt;
        out << "  exposure: ";
        if (!e) {
            out << "none (needs a luminance channel with samples in EV bins, --ev)\n";
        } else {
            std::snprintf(line, sizeof line,
                          "%+.3f EV (average %.3f EV over the %g-%g%% samples of %s, key %g)\n", e->exposure_ev,
                          e->average_ev, exposure_settings->low_percent, exposure_settings->high_percent,
                          std::string(channel_name(y->channel)).c_str(), e->key);
            out << line;
            if (const auto caveat = exposure_caveat(r.format)) out << "  note: " << *caveat << '\n';
        }
    }
    if (sensor) sensor_table(out, *sensor);
    for (const std::string& n : notes) out << "  note: " << display_text(n) << '\n';
}

}  // namespace

std::string describe_layout(const BinLayout& layout) {
    std::string s = std::to_string(layout.bins) + (layout.edges.empty() ? "" : " edge") + " bins over [" +
                    number(layout.lo) + ", " +
                    number(layout.hi) + (layout.closed_top ? "]" : ")");
    if (layout.clamp) s += ", clamped";
    return s;
}

void SumGroups::add(const Result& r, std::vector<SumMember> members, std::uint64_t pixels,
                    const std::vector<PixelFormat>& formats) {
    // Result::can_merge is the one rule of what may be summed: the first group it accepts.
    auto group = std::find_if(groups_.begin(), groups_.end(), [&](const SumGroup& g) { return g.result.can_merge(r); });
    if (group == groups_.end()) group = groups_.insert(groups_.end(), SumGroup{r, {}, 0, {}});
    else group->result.merge(r);
    for (SumMember& m : members) group->members.push_back(std::move(m));
    group->pixels += pixels;
    for (PixelFormat f : formats)
        if (std::find(group->formats.begin(), group->formats.end(), f) == group->formats.end())
            group->formats.push_back(f);
}

void SumGroups::add(const FileOutcome& o, std::size_t result_index) {
    const Result& r = *o.result;
    add(r, {SumMember{o.file, result_index}}, std::uint64_t(r.width) * r.height, {r.format});
}

std::string formats_label(const SumGroup& group) {
    std::string label;
    for (PixelFormat f : group.formats) label += (label.empty() ? "" : "+") + std::string(format_info(f).name);
    return label;
}

namespace {

// Dumps strictly (invalid UTF-8 throws), so a string that escaped put_name / display_text is
// found; the caller then reports that one entry instead of losing the document.
std::optional<std::string> try_dump(const json& j, std::string& why) {
    try {
        return j.dump();
    } catch (const json::exception& e) {
        why = e.what();
        return std::nullopt;
    }
}

// Cannot throw: every string in an error entry has been escaped, and any byte that was not
// would be replaced rather than lose the document.
std::string dump_always(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json error_json(const std::string& file, const std::string& error) {
    json e;
    put_name(e, "file", file);
    e["error"] = message_json(error);
    return e;
}

json result_json(const FileOutcome& o, const std::optional<ExposureSettings>& exposure_settings) {
    const Result& r = *o.result;
    json j;
    put_name(j, "file", o.file);
    j["width"] = r.width;
    j["height"] = r.height;
    j["format"] = std::string(format_info(r.format).name);
    j["backend"] = message_json(r.backend);
    j["device"] = message_json(r.device);
    j["histograms"] = histograms_json(r.channels);
    if (o.sensor) put_sensor(j, *o.sensor);
    put_regions(j, r);
    put_exposure(j, r, exposure_settings);
    json notes = json::array();
    for (const std::string& n : o.notes) notes.push_back(message_json(n));
    j["notes"] = std::move(notes);
    if (!o.decoder.empty()) j["decoder"] = o.decoder;
    if (!o.gpu_fallback.empty()) j["gpu_fallback"] = message_json(o.gpu_fallback);
    return j;
}

// `indexed`: the report lists the per-file results, so "result_index" can point into them.
json sum_json(const SumGroup& g, bool indexed, const std::optional<ExposureSettings>& exposure_settings) {
    json s, files = json::array(), index = json::array(), formats = json::array();
    for (const SumMember& m : g.members) {
        files.push_back(utf8_or_replaced(m.file));
        index.push_back(m.result_index == kNoResult ? json(nullptr) : json(m.result_index));
    }
    for (PixelFormat f : g.formats) formats.push_back(std::string(format_info(f).name));
    s["files"] = std::move(files);
    if (indexed) s["result_index"] = std::move(index);
    s["pixels"] = g.pixels;
    if (g.result.counted_pixels) s["counted_pixels"] = *g.result.counted_pixels;
    s["formats"] = std::move(formats);
    s["backend"] = message_json(g.result.backend);
    s["device"] = message_json(g.result.device);
    s["histograms"] = histograms_json(g.result.channels);
    put_exposure(s, g.result, exposure_settings);
    return s;
}

// The JSON entry of one outcome: its result, or its error (also when the result cannot be
// encoded: then `encoded` is false).
std::string outcome_text(const FileOutcome& o, bool& encoded, const std::optional<ExposureSettings>& exposure_settings) {
    encoded = true;
    if (!o.result) return dump_always(error_json(o.file, o.error));
    std::string why;
    if (auto text = try_dump(result_json(o, exposure_settings), why)) return std::move(*text);
    encoded = false;
    return dump_always(error_json(o.file, "the result could not be encoded: " + why));
}

// The JSON entries of the sums; a sum that cannot be encoded becomes an entry of `errors`.
std::vector<std::string> sum_texts(const std::vector<SumGroup>& sums, bool indexed,
                                   std::vector<std::string>& errors, bool& all_encoded,
                                   const std::optional<ExposureSettings>& exposure_settings) {
    std::vector<std::string> texts;
    for (const SumGroup& g : sums) {
        std::string why;
        if (auto text = try_dump(sum_json(g, indexed, exposure_settings), why)) {
            texts.push_back(std::move(*text));
        } else {
            all_encoded = false;
            errors.push_back(dump_always(error_json("(sum)", "a sum could not be encoded: " + why)));
        }
    }
    return texts;
}

void json_array(std::ostream& out, const char* key, const std::vector<std::string>& items) {
    out << ",\"" << key << "\":[";
    for (std::size_t i = 0; i < items.size(); ++i) out << (i ? "," : "") << items[i];
    out << ']';
}

// One document; the results are written as they come, the errors (short) kept for after them.
class JsonReport final : public Report {
public:
    JsonReport(std::ostream& out, bool per_file, std::optional<ExposureSettings> exposure)
        : out_(out), per_file_(per_file), exposure_(exposure) {
        out_ << "{\"schema\":" << kJsonSchema << ",\"imghist\":" << dump_always(std::string(imghist::version()))
             << ",\"results\":[";
    }
    std::size_t add(const FileOutcome& o) override {
        if (!o.result || per_file_) {
            bool encoded = true;
            std::string text = outcome_text(o, encoded, exposure_);
            all_encoded_ = all_encoded_ && encoded;
            if (o.result && encoded) {
                out_ << (results_ ? "," : "") << text;
                return results_++;
            }
            errors_.push_back(std::move(text));
        }
        return kNoResult;
    }
    bool finish(const std::vector<SumGroup>* sums, const Interruption* interruption) override {
        std::vector<std::string> groups;
        if (sums) groups = sum_texts(*sums, per_file_, errors_, all_encoded_, exposure_);
        out_ << ']';
        json_array(out_, "errors", errors_);
        if (sums) json_array(out_, "sums", groups);
        if (interruption) out_ << ",\"interrupted\":" << interruption_json(*interruption);
        out_ << "}\n";
        return all_encoded_;
    }

private:
    std::ostream& out_;
    bool per_file_, all_encoded_ = true;
    std::optional<ExposureSettings> exposure_;
    std::size_t results_ = 0;
    std::vector<std::string> errors_;
};

// JSON Lines: one entry per line as it comes (a result, or an error with "error"), then one line
// {"sum": ...} per sum.
class JsonLinesReport final : public Report {
public:
    JsonLinesReport(std::ostream& out, bool per_file, std::optional<ExposureSettings> exposure)
        : out_(out), per_file_(per_file), exposure_(exposure) {}
    std::size_t add(const FileOutcome& o) override {
        if (o.result && !per_file_) return kNoResult;
        bool encoded = true;
        out_ << outcome_text(o, encoded, exposure_) << '\n';
        all_encoded_ = all_encoded_ && encoded;
        return o.result && encoded ? results_++ : kNoResult;
    }
    bool finish(const std::vector<SumGroup>* sums, const Interruption* interruption) override {
        std::vector<std::string> errors;
        if (sums)
            for (const std::string& text : sum_texts(*sums, per_file_, errors, all_encoded_, exposure_))
                out_ << "{\"sum\":" << text << "}\n";
        for (const std::string& e : errors) out_ << e << '\n';
        if (interruption) out_ << "{\"interrupted\":" << interruption_json(*interruption) << "}\n";
        return all_encoded_;
    }

private:
    std::ostream& out_;
    bool per_file_, all_encoded_ = true;
    std::optional<ExposureSettings> exposure_;
    std::size_t results_ = 0;
};

// Table and CSV: errors on stderr as they come.
class TextReport : public Report {
public:
    TextReport(std::ostream& out, bool per_file) : out_(out), per_file_(per_file) {}
    std::size_t add(const FileOutcome& o) override {
        if (!o.result) {
            std::cerr << "imghist: " << display_text(o.file) << ": " << display_text(o.error) << '\n';
            return kNoResult;
        }
        if (!per_file_) return kNoResult;
        write(o);
        return results_++;
    }

protected:
    virtual void write(const FileOutcome& o) = 0;
    std::ostream& out_;
    bool per_file_;
    std::size_t results_ = 0;
};

class CsvReport final : public TextReport {
public:
    CsvReport(std::ostream& out, bool per_file) : TextReport(out, per_file) {
        out_ << "image,format,channel,kind,bin,lo,hi,count\n";
    }
    bool finish(const std::vector<SumGroup>* sums, const Interruption*) override {
        if (sums)
            for (std::size_t k = 0; k < sums->size(); ++k)  // one image name per sum, as a group key
                csv_rows(out_, "(sum " + std::to_string(k + 1) + ")", formats_label((*sums)[k]), (*sums)[k].result);
        return true;
    }

private:
    void write(const FileOutcome& o) override {
        csv_rows(out_, o.file, std::string(format_info(o.result->format).name), *o.result);
    }
};

class TableReport final : public TextReport {
public:
    TableReport(std::ostream& out, bool per_file, std::optional<ExposureSettings> exposure)
        : TextReport(out, per_file), exposure_(exposure) {}
    bool finish(const std::vector<SumGroup>* sums, const Interruption*) override {
        if (!sums) return true;
        for (const SumGroup& g : *sums) {
            if (blocks_++) out_ << '\n';
            // The heading's second line names the files, so each sum says what it holds.
            const std::string heading = "sum of " + std::to_string(g.members.size()) + " file" +
                                        (g.members.size() == 1 ? "" : "s") + "  " + thousands(g.pixels) +
                                        " pixels  " + formats_label(g) + "\n  files: " + files_named(g.members);
            table_block(out_, heading, g.result, {}, exposure_);
        }
        return true;
    }

private:
    void write(const FileOutcome& o) override {
        const Result& r = *o.result;
        if (blocks_++) out_ << '\n';
        const std::string heading = display_text(o.file) + "  " + std::to_string(r.width) + " x " +
                                    std::to_string(r.height) + "  " +
                                    std::string(format_info(r.format).name) + "  " +
                                    display_text(r.backend) + " on " + display_text(r.device);
        table_block(out_, heading, r, o.notes, exposure_, o.sensor ? &*o.sensor : nullptr);
    }
    std::optional<ExposureSettings> exposure_;
    std::size_t blocks_ = 0;
};

}  // namespace

std::unique_ptr<Report> make_report(const std::string& format, std::ostream& out, bool per_file,
                                    const std::optional<ExposureSettings>& exposure) {
    if (format == "json") return std::make_unique<JsonReport>(out, per_file, exposure);
    if (format == "jsonl") return std::make_unique<JsonLinesReport>(out, per_file, exposure);
    if (format == "csv") return std::make_unique<CsvReport>(out, per_file);
    return std::make_unique<TableReport>(out, per_file, exposure);
}

}  // namespace imghist::cli
