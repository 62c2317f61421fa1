// The json and jsonl reports (docs/cli.md, "JSON"): results written as they come, errors and sums after.
#include <nlohmann/json.hpp>

#include <cmath>
#include <ostream>

#include "imghist/engine.hpp"
#include "output_formats.hpp"
#include "sensor_report.hpp"
#include "sample_meaning.hpp"

namespace imghist::cli {

using json = nlohmann::ordered_json;

namespace {

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

// docs/cli.md, "JSON": the exact sums as exact decimals, every derived number rounded once.
json sample_stats_json(const ChannelHistogram& c) {
    const SampleMoments& m = *c.sample_moments;
    const SampleStats s = *c.sample_stats();
    const auto number_or_null = [](const std::optional<double>& v) { return v ? json_number(*v) : json(nullptr); };
    json j;
    j["count"] = m.count;
    j["sum"] = m.sum.to_string();
    j["sum_of_squares"] = m.sum_of_squares.to_string();
    j["mean"] = number_or_null(s.mean);
    j["variance"] = number_or_null(s.variance);
    j["sample_variance"] = number_or_null(s.sample_variance);
    j["stddev"] = number_or_null(s.stddev);
    j["sample_stddev"] = number_or_null(s.sample_stddev);
    j["min"] = number_or_null(s.min);
    j["max"] = number_or_null(s.max);
    json percentiles = json::array();
    for (const SamplePercentile& p : s.percentiles)
        percentiles.push_back({{"p", json_number(p.percent)}, {"nearest_rank", json_number(p.nearest_rank)},
                               {"linear", json_number(p.linear)}});
    j["percentiles"] = std::move(percentiles);
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
        if (c.sample_moments) j["sample_stats"] = sample_stats_json(c);
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
    if (g.camera_raw) rename_sensor_channels(s["histograms"]);
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

}  // namespace

std::unique_ptr<Report> make_json_report(std::ostream& out, bool per_file, const std::optional<ExposureSettings>& exposure) {
    return std::make_unique<JsonReport>(out, per_file, exposure);
}

std::unique_ptr<Report> make_json_lines_report(std::ostream& out, bool per_file,
                                               const std::optional<ExposureSettings>& exposure) {
    return std::make_unique<JsonLinesReport>(out, per_file, exposure);
}

}  // namespace imghist::cli
