// The csv report (docs/cli.md, "CSV"): one row per bin, then the samples outside the bins.
#include <limits>
#include <optional>
#include <ostream>

#include "output_formats.hpp"
#include "output_text.hpp"
#include "sensor_report.hpp"

namespace imghist::cli {

namespace {

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

// The sample statistics, a row each: kind "mean", "p50", ...; the number in lo and
// hi, the finite samples it describes in count (docs/cli.md, "CSV").
void sample_stat_rows(std::ostream& out, const std::string& row, const ChannelHistogram& c) {
    const std::optional<SampleStats> s = c.sample_stats();
    if (!s) return;
    const auto put = [&](const std::string& name, const std::optional<double>& v) {
        if (v) out << row << name << ",-1," << number(*v) << ',' << number(*v) << ',' << s->count << '\n';
    };
    put("mean", s->mean);
    put("stddev", s->stddev);
    put("sample_stddev", s->sample_stddev);
    put("min", s->min);
    put("max", s->max);
    for (const SamplePercentile& p : s->percentiles) put("p" + number(p.percent), p.linear);
}

// One row per bin, then one each for the samples below and above the range and the NaNs;
// every row has numbers in bin, lo, hi and count (docs/cli.md, "CSV"). A camera raw result's
// channels are named R, G1, B, G2, and a file's sensor rows follow.
void csv_rows(std::ostream& out, const std::string& image, const std::string& format, const Result& r,
              bool camera_raw, const io::SensorChannels* sensor = nullptr) {
    const std::string lead = csv_field(display_text(image)) + ',' + format + ',';
    const std::string inf = number(std::numeric_limits<double>::infinity());
    const std::string nan = number(std::numeric_limits<double>::quiet_NaN());
    for (const ChannelHistogram& c : r.channels) {
        const std::string row = lead + shown_channel_name(c.channel, camera_raw) + ',';
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
        sample_stat_rows(out, row, c);
    }
    if (sensor) sensor_csv_rows(out, lead, *sensor);
}

class CsvReport final : public TextReport {
public:
    CsvReport(std::ostream& out, bool per_file) : TextReport(out, per_file) {
        out_ << "image,format,channel,kind,bin,lo,hi,count\n";
    }
    bool finish(const std::vector<SumGroup>* sums, const Interruption*) override {
        if (sums)
            for (std::size_t k = 0; k < sums->size(); ++k)  // one image name per sum, as a group key
                csv_rows(out_, "(sum " + std::to_string(k + 1) + ")", formats_label((*sums)[k]), (*sums)[k].result,
                         (*sums)[k].camera_raw);
        return true;
    }

private:
    void write(const FileOutcome& o) override {
        const std::string format(format_info(o.result->format).name);
        csv_rows(out_, o.file, o.sensor ? camera_raw_label(format) : format, *o.result, o.sensor.has_value(),
                 o.sensor ? &*o.sensor : nullptr);
    }
};

}  // namespace

std::unique_ptr<Report> make_csv_report(std::ostream& out, bool per_file) {
    return std::make_unique<CsvReport>(out, per_file);
}

}  // namespace imghist::cli
