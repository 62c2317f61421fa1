#include "output.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "imghist/engine.hpp"
#include "imghist/error.hpp"

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

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string percent(double share) {
    if (share == 0) return "0%";
    if (share < 0.0001) return "<0.01%";
    return fixed(share * 100.0, 2) + "%";
}

std::string thousands(std::uint64_t v) {
    std::string s = std::to_string(v), out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i && (s.size() - i) % 3 == 0) out += ',';
        out += s[i];
    }
    return out;
}

template <class T>
json optional_json(const std::optional<T>& v) {
    return v ? json(*v) : json(nullptr);
}

// docs/cli.md, "JSON": bin-unit statistics under their old names, value-unit ones with a
// `_value` suffix, the exact clipping counts and their shares of the non-NaN samples.
json stats_json(const ChannelHistogram& c) {
    const ChannelStats s = c.stats();
    json j;
    j["count"] = s.count;
    j["min"] = optional_json(s.min_bin);
    j["max"] = optional_json(s.max_bin);
    j["mean"] = optional_json(s.mean);
    j["stddev"] = optional_json(s.stddev);
    j["median"] = optional_json(s.median);
    j["p1"] = optional_json(s.p1);
    j["p99"] = optional_json(s.p99);
    j["min_value"] = optional_json(s.min_value);
    j["max_value"] = optional_json(s.max_value);
    j["mean_value"] = optional_json(s.mean_value);
    j["stddev_value"] = optional_json(s.stddev_value);
    j["median_value"] = optional_json(s.median_value);
    j["p1_value"] = optional_json(s.p1_value);
    j["p99_value"] = optional_json(s.p99_value);
    j["samples"] = s.samples;
    j["clipped_low_count"] = optional_json(c.clipped_low_count);
    j["clipped_high_count"] = optional_json(c.clipped_high_count);
    j["clipped_low"] = optional_json(s.clipped_low);
    j["clipped_high"] = optional_json(s.clipped_high);
    return j;
}

json histograms_json(const Result& r) {
    json h = json::object();
    for (const ChannelHistogram& c : r.channels) {
        json j;
        j["bins"] = c.layout.bins;
        j["range"] = json::array({json_number(c.layout.lo), json_number(c.layout.hi)});
        j["closed_top"] = c.layout.closed_top;
        j["clamp"] = c.layout.clamp;
        j["counts"] = c.counts;
        j["nan"] = c.nan;
        j["below"] = c.below;
        j["above"] = c.above;
        j["stats"] = stats_json(c);
        h[std::string(channel_name(c.channel))] = std::move(j);
    }
    return h;
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

void csv_rows(std::ostream& out, const std::string& file, const Result& r) {
    const std::string f = csv_field(file);
    for (const ChannelHistogram& c : r.channels) {
        const std::string ch(channel_name(c.channel));
        for (std::uint32_t k = 0; k < c.layout.bins; ++k) {
            const double lo = bin_lower_edge(c.layout, k);
            const double hi = (c.layout.closed_top && k + 1 == c.layout.bins)
                                  ? c.layout.hi
                                  : bin_lower_edge(c.layout, k + 1);
            out << f << ',' << ch << ',' << k << ',' << number(lo) << ',' << number(hi) << ','
                << c.counts[k] << '\n';
        }
        out << f << ',' << ch << ",nan,,," << c.nan << '\n';
        out << f << ',' << ch << ",below,,," << c.below << '\n';
        out << f << ',' << ch << ",above,,," << c.above << '\n';
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

// The extreme values that "clip" means for a format (docs/semantics.md, "Statistics").
const char* clipped_values(const Result& r) {
    switch (format_info(r.format).sample) {
        case SampleType::u8: return "value 0 / 255";
        case SampleType::u16: return "value 0 / 65535";
        case SampleType::f16:
        case SampleType::f32: break;
    }
    return "<= 0 / >= 1";
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

void table_block(std::ostream& out, const std::string& heading, const Result& r,
                 const std::vector<std::string>& notes) {
    out << heading << '\n';
    // Channels of one result share their layout unless a format mixes sample types (never).
    const BinLayout& layout = r.channels.front().layout;
    out << "  " << describe_layout(layout);
    if (const char* hint = unit_hint(r, layout)) out << "; " << hint;
    out << "\n  statistics per channel in bins, then in values (bin centres); clip = share of samples at "
        << clipped_values(r) << "\n";
    char line[320];
    std::snprintf(line, sizeof line, "  %-5s %-6s %12s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "", "", "pixels",
                  "mean", "stddev", "median", "p1", "p99", "min", "max", "clip low", "clip high");
    out << line;
    for (const ChannelHistogram& c : r.channels) {
        const ChannelStats s = c.stats();
        std::snprintf(line, sizeof line, "  %-5s %-6s %12s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n",
                      std::string(channel_name(c.channel)).c_str(), "bins", thousands(s.count).c_str(),
                      or_dash(s.mean, 2).c_str(), or_dash(s.stddev, 2).c_str(), or_dash(s.median).c_str(),
                      or_dash(s.p1).c_str(), or_dash(s.p99).c_str(), or_dash(s.min_bin).c_str(),
                      or_dash(s.max_bin).c_str(), share_or_dash(s.clipped_low).c_str(),
                      share_or_dash(s.clipped_high).c_str());
        out << line;
        std::snprintf(line, sizeof line, "  %-5s %-6s %12s %9s %9s %9s %9s %9s %9s %9s\n", "", "values", "",
                      or_dash(s.mean_value).c_str(), or_dash(s.stddev_value).c_str(),
                      or_dash(s.median_value).c_str(), or_dash(s.p1_value).c_str(), or_dash(s.p99_value).c_str(),
                      or_dash(s.min_value).c_str(), or_dash(s.max_value).c_str());
        out << line;
    }
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
    for (const std::string& n : notes) out << "  note: " << n << '\n';
}

}  // namespace

double bin_lower_edge(const BinLayout& layout, std::uint32_t k) {
    const double steps = layout.closed_top ? double(layout.bins - 1) : double(layout.bins);
    return layout.lo + (layout.hi - layout.lo) * double(k) / steps;
}

std::string describe_layout(const BinLayout& layout) {
    std::string s = std::to_string(layout.bins) + " bins over [" + number(layout.lo) + ", " +
                    number(layout.hi) + (layout.closed_top ? "]" : ")");
    if (layout.clamp) s += ", clamped";
    return s;
}

SumOutcome sum_outcomes(const std::vector<FileOutcome>& outcomes) {
    SumOutcome sum;
    for (const FileOutcome& o : outcomes) {
        if (!o.result) continue;
        const Result& r = *o.result;
        if (!sum.result) {
            sum.result = r;
            sum.format = std::string(format_info(r.format).name);
        } else {
            try {
                sum.result->merge(r);
            } catch (const MergeError&) {
                const BinLayout& mine = r.channels.front().layout;
                const BinLayout& theirs = sum.result->channels.front().layout;
                std::string names, sum_names;
                for (const auto& c : r.channels) names += std::string(names.empty() ? "" : ",") + std::string(channel_name(c.channel));
                for (const auto& c : sum.result->channels) sum_names += std::string(sum_names.empty() ? "" : ",") + std::string(channel_name(c.channel));
                std::string why = std::string(format_info(r.format).name) + " ";
                if (names != sum_names) why += "channels " + names + " differ from the sum's " + sum_names;
                else why += "bins (" + describe_layout(mine) + ") differ from the sum's (" + describe_layout(theirs) + ")";
                sum.excluded.emplace_back(o.file, why);
                continue;
            }
            if (format_info(r.format).name != sum.format) sum.format = "mixed";
        }
        sum.files += 1;
        sum.pixels += std::uint64_t(r.width) * r.height;
    }
    return sum;
}

void write_json(std::ostream& out, const std::vector<FileOutcome>& outcomes, const SumOutcome* sum) {
    json doc;
    doc["imghist"] = std::string(imghist::version());
    json results = json::array(), errors = json::array();
    for (const FileOutcome& o : outcomes) {
        if (!o.result) {
            errors.push_back(json{{"file", o.file}, {"error", o.error}});
            continue;
        }
        const Result& r = *o.result;
        json j;
        j["file"] = o.file;
        j["width"] = r.width;
        j["height"] = r.height;
        j["format"] = std::string(format_info(r.format).name);
        j["backend"] = r.backend;
        j["device"] = r.device;
        j["histograms"] = histograms_json(r);
        j["notes"] = o.notes;
        results.push_back(std::move(j));
    }
    doc["results"] = std::move(results);
    doc["errors"] = std::move(errors);
    if (sum) {
        json s;
        s["files"] = sum->files;
        s["pixels"] = sum->pixels;
        if (sum->result) {
            s["format"] = sum->format;
            s["backend"] = sum->result->backend;
            s["device"] = sum->result->device;
            s["histograms"] = histograms_json(*sum->result);
        } else {
            s["format"] = nullptr;
            s["histograms"] = json::object();
        }
        json ex = json::array();
        for (const auto& [file, why] : sum->excluded) ex.push_back(json{{"file", file}, {"reason", why}});
        s["excluded"] = std::move(ex);
        doc["sum"] = std::move(s);
    }
    out << doc.dump() << '\n';
}

void write_csv(std::ostream& out, const std::vector<FileOutcome>& outcomes, const SumOutcome* sum) {
    out << "file,channel,bin,lo,hi,count\n";
    for (const FileOutcome& o : outcomes)
        if (o.result) csv_rows(out, o.file, *o.result);
    if (sum && sum->result) csv_rows(out, "(sum)", *sum->result);
}

void write_table(std::ostream& out, const std::vector<FileOutcome>& outcomes, const SumOutcome* sum) {
    bool first = true;
    for (const FileOutcome& o : outcomes) {
        if (!o.result) continue;
        const Result& r = *o.result;
        if (!first) out << '\n';
        first = false;
        const std::string heading = o.file + "  " + std::to_string(r.width) + " x " +
                                    std::to_string(r.height) + "  " +
                                    std::string(format_info(r.format).name) + "  " + r.backend +
                                    " on " + r.device;
        table_block(out, heading, r, o.notes);
    }
    if (sum && sum->result) {
        if (!first) out << '\n';
        const std::string heading = "sum of " + std::to_string(sum->files) + " file" +
                                    (sum->files == 1 ? "" : "s") + "  " + thousands(sum->pixels) +
                                    " pixels  " + sum->format;
        std::vector<std::string> notes;
        for (const auto& [file, why] : sum->excluded) notes.push_back("not in the sum: " + file + ": " + why);
        table_block(out, heading, *sum->result, notes);
    }
}

}  // namespace imghist::cli
