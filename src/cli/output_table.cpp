// The table report: a block per file and per sum, its statistics, tiles, extremes and notes.
#include <algorithm>
#include <cstdio>
#include <ostream>

#include "output_formats.hpp"
#include "output_text.hpp"
#include "sample_meaning.hpp"
#include "sensor_report.hpp"

namespace imghist::cli {

namespace {

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

// Whether the result carries sample statistics (the table then shows them instead of the bins').
bool has_sample_stats(const Result& r) {
    return std::any_of(r.channels.begin(), r.channels.end(), [](const ChannelHistogram& c) { return c.sample_moments.has_value(); });
}

// A sum whose percentiles were dropped: moments but no percentiles in a channel with samples.
bool percentiles_dropped(const Result& r) {
    return std::any_of(r.channels.begin(), r.channels.end(), [](const ChannelHistogram& c) {
        return c.sample_moments && c.sample_moments->count > 0 && c.sample_percentiles.empty();
    });
}

// Every bin is one value (8-bit default bins): the value row would repeat the bin row.
bool bin_is_value(const Result& r, const BinLayout& layout) {
    return format_info(r.format).sample == SampleType::u8 && layout.bins == 256 && layout.lo == 0 && layout.hi == 256;
}

// The block's opening lines: the bins, the region and counted pixels, what the columns hold.
void layout_lines(std::ostream& out, const Result& r, const BinLayout& layout, const ClipColumns& clip) {
    out << "  " << describe_layout(layout);
    if (const char* hint = unit_hint(r, layout)) out << "; " << hint;
    if (!(r.region == Region{0, 0, r.width, r.height}))
        out << "\n  region: " << r.region.width << " x " << r.region.height << " pixels from column " << r.region.x
            << ", row " << r.region.y;
    if (r.counted_pixels)
        out << "\n  counted: " << thousands(*r.counted_pixels)
            << " pixels, those the mask and the alpha threshold let through";
    if (has_sample_stats(r))
        out << "\n  statistics of the samples: exact, shown to 6 digits (every digit: --format json)";
    else
        out << (bin_is_value(r, layout) ? "\n  statistics per channel (bin = value)"
                                        : "\n  statistics per channel in bins, then in values (bin centres)");
    out << "; " << clip.meaning << "\n";
}

// The linear percentile p of a channel's sample statistics, if asked for.
std::optional<double> linear_percentile(const SampleStats& s, double p) {
    for (const SamplePercentile& q : s.percentiles)
        if (q.percent == p) return q.linear;
    return std::nullopt;
}

// The sample statistics: per channel one row of the samples' own numbers, then a line for any
// percentile beyond the median, p1 and p99 the columns show.
void sample_rows(std::ostream& out, const Result& r, const ClipColumns& clip, bool camera_raw) {
    char line[320];
    std::snprintf(line, sizeof line, "  %-5s %12s %10s %10s %10s %10s %10s %10s %10s %9s %9s\n", "", "samples", "mean",
                  "stddev", "median", "p1", "p99", "min", "max", clip.low, clip.high);
    out << line;
    std::string more;
    for (const ChannelHistogram& c : r.channels) {
        const ChannelStats bins = c.stats();
        const std::optional<SampleStats> s = c.sample_stats();
        if (!s) continue;
        std::snprintf(line, sizeof line, "  %-5s %12s %10s %10s %10s %10s %10s %10s %10s %9s %9s\n",
                      shown_channel_name(c.channel, camera_raw).c_str(), thousands(s->count).c_str(), or_dash(s->mean).c_str(),
                      or_dash(s->stddev).c_str(), or_dash(linear_percentile(*s, 50)).c_str(),
                      or_dash(linear_percentile(*s, 1)).c_str(), or_dash(linear_percentile(*s, 99)).c_str(),
                      or_dash(s->min).c_str(), or_dash(s->max).c_str(), share_or_dash(bins.clipped_low).c_str(),
                      share_or_dash(bins.clipped_high).c_str());
        out << line;
        std::string others;
        for (const SamplePercentile& q : s->percentiles)
            if (q.percent != 50 && q.percent != 1 && q.percent != 99)
                others += (others.empty() ? "" : ", ") + ("p" + number(q.percent)) + " " + or_dash(std::optional(q.linear));
        if (!others.empty()) more += "  " + shown_channel_name(c.channel, camera_raw) + ": " + others + "\n";
    }
    out << more;
    if (percentiles_dropped(r))
        out << "  percentiles: a sum has them only where every bin holds one value (8-bit default bins; "
               "--bins 65536 for 16-bit files): they do not add up\n";
}

// The statistics: a header, then per channel a row in bins and (unless bins are values) one in values.
void statistics_rows(std::ostream& out, const Result& r, const ClipColumns& clip, bool values_are_bins,
                     bool camera_raw) {
    char line[320];
    std::snprintf(line, sizeof line, "  %-5s %-6s %12s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "", "", "pixels",
                  "mean", "stddev", "median", "p1", "p99", "min", "max", clip.low, clip.high);
    out << line;
    for (const ChannelHistogram& c : r.channels) {
        const ChannelStats s = c.stats();
        std::snprintf(line, sizeof line, "  %-5s %-6s %12s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n",
                      shown_channel_name(c.channel, camera_raw).c_str(), values_are_bins ? "" : "bins", thousands(s.count).c_str(),
                      or_dash(s.mean, 2).c_str(), or_dash(s.stddev, 2).c_str(), or_dash(s.median).c_str(),
                      or_dash(s.p1).c_str(), or_dash(s.p99).c_str(), or_dash(s.min_bin).c_str(),
                      or_dash(s.max_bin).c_str(), share_or_dash(s.clipped_low).c_str(),
                      share_or_dash(s.clipped_high).c_str());
        out << line;
        if (values_are_bins) continue;
        std::snprintf(line, sizeof line, "  %-5s %-6s %12s %9s %9s %9s %9s %9s %9s %9s\n", "", "values", "",
                      or_dash(s.mean_value).c_str(), or_dash(s.stddev_value).c_str(),
                      or_dash(s.median_value).c_str(), or_dash(s.p1_value).c_str(), or_dash(s.p99_value).c_str(),
                      or_dash(s.min_value).c_str(), or_dash(s.max_value).c_str());
        out << line;
    }
}

// With tiles: one row per tile, row by row, with its mean per channel.
void tile_rows(std::ostream& out, const Result& r) {
    if (r.tiles.empty()) return;
    out << "  tiles: " << r.tile_grid.x << " x " << r.tile_grid.y
        << " (the last column and row take the remainder); mean per channel in bins, all counts in --format json\n";
    char line[320];
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

// "R: 3 NaN (not binned), 12 below 0 (counted in the first bin)": nothing when every sample was binned.
// A camera raw file on the EV axis from white has no EV at or below black, and is clipped at white.
void outside_line(std::ostream& out, const ChannelHistogram& c, bool camera_raw) {
    if (c.nan == 0 && c.below == 0 && c.above == 0) return;
    const bool binned = c.layout.clamp || c.layout.closed_top, from_white = on_ev_axis_from_white(c.layout, camera_raw);
    out << "  " << shown_channel_name(c.channel, camera_raw) << ":";
    const char* sep = " ";
    if (c.nan) { out << sep << thousands(c.nan) << " NaN (not binned)"; sep = ", "; }
    if (c.below) {
        out << sep << thousands(c.below)
            << (from_white ? " at or below black (no EV)" : " below " + number(c.layout.lo))
            << (binned ? " (counted in the first bin)" : " (not binned)");
        sep = ", ";
    }
    if (c.above) {
        out << sep << thousands(c.above) << (from_white ? " at or above white (clipped)" : " above " + number(c.layout.hi))
            << (binned ? " (counted in the last bin)" : " (not binned)");
    }
    out << '\n';
}

// --exposure: the exposure of the luminance, or why there is none.
void exposure_line(std::ostream& out, const Result& r, const ExposureSettings& settings) {
    const ChannelHistogram* y = r.luminance();
    const std::optional<Exposure> e = y ? exposure(*y, settings) : std::nullopt;
    out << "  exposure: ";
    if (!e) {
        out << "none (needs a luminance channel with samples in EV bins, --ev)\n";
        return;
    }
    char line[320];
    std::snprintf(line, sizeof line, "%+.3f EV (average %.3f EV over the %g-%g%% samples of %s, key %g)\n",
                  e->exposure_ev, e->average_ev, settings.low_percent, settings.high_percent,
                  std::string(channel_name(y->channel)).c_str(), e->key);
    out << line;
    if (const auto caveat = exposure_caveat(r.format)) out << "  note: " << *caveat << '\n';
}

// `camera_raw`: the result's channels are a camera raw file's R, G1, B, G2 (a file's, with its
// `sensor`, or a sum's, without).
void table_block(std::ostream& out, const std::string& heading, const Result& r, const std::vector<std::string>& notes,
                 const std::optional<ExposureSettings>& exposure_settings, const io::SensorChannels* sensor = nullptr,
                 bool camera_raw = false) {
    camera_raw = camera_raw || sensor;
    out << heading << '\n';
    // Channels of one result share their layout unless a format mixes sample types (never).
    const BinLayout& layout = r.channels.front().layout;
    const ClipColumns clip = clip_columns(r.format, camera_raw);
    layout_lines(out, r, layout, clip);
    if (has_sample_stats(r)) sample_rows(out, r, clip, camera_raw);
    else statistics_rows(out, r, clip, bin_is_value(r, layout), camera_raw);
    tile_rows(out, r);
    for (const ChannelHistogram& c : r.channels) value_extremes_line(out, c);
    for (const ChannelHistogram& c : r.channels) outside_line(out, c, camera_raw);
    if (exposure_settings) exposure_line(out, r, *exposure_settings);
    if (sensor) sensor_table(out, *sensor);
    for (const std::string& n : notes) out << "  note: " << display_text(n) << '\n';
}

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
            table_block(out_, heading, g.result, {}, exposure_, nullptr, g.camera_raw);
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

std::unique_ptr<Report> make_table_report(std::ostream& out, bool per_file,
                                          const std::optional<ExposureSettings>& exposure) {
    return std::make_unique<TableReport>(out, per_file, exposure);
}

}  // namespace imghist::cli
