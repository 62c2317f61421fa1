#include "sensor_report.hpp"

#include <cstdio>
#include <limits>

#include "output.hpp"
#include "output_text.hpp"

namespace imghist::cli {

namespace {

double share(std::uint64_t part, std::uint64_t whole) { return whole ? double(part) / double(whole) : 0.0; }

}  // namespace

std::string shown_channel_name(Channel channel, bool camera_raw) {
    const int c = camera_raw ? io::sensor_channel_of(channel) : -1;
    return c >= 0 ? io::sensor_channel_name(c) : std::string(channel_name(channel));
}

std::optional<Channel> sensor_channel_named(const std::string& name) {
    for (int c = 0; c < io::SensorChannels::kChannels; ++c)
        if (name == io::sensor_channel_name(c)) return io::sensor_held_as(c);
    return std::nullopt;
}

bool camera_raw_histograms(const nlohmann::ordered_json& histograms) {
    return histograms.is_object() && (histograms.contains("G1") || histograms.contains("G2"));
}

void rename_sensor_channels(nlohmann::ordered_json& histograms) {
    nlohmann::ordered_json renamed = nlohmann::ordered_json::object();
    for (int c = 0; c < io::SensorChannels::kChannels; ++c) {
        const std::string held_as(channel_name(io::sensor_held_as(c)));
        if (histograms.contains(held_as)) renamed[io::sensor_channel_name(c)] = std::move(histograms[held_as]);
    }
    histograms = std::move(renamed);
}

void put_sensor(nlohmann::ordered_json& j, const io::SensorChannels& sensor) {
    nlohmann::ordered_json channels = nlohmann::ordered_json::object();
    rename_sensor_channels(j["histograms"]);
    for (int c = 0; c < io::SensorChannels::kChannels; ++c)
        channels[io::sensor_channel_name(c)] = {{"black_level", sensor.black[c]},
                                               {"maximum", sensor.maximum[c]},
                                               {"clipped", sensor.clipped[c]},
                                               {"underexposed", sensor.underexposed[c]}};
    j["camera_raw"] = {{"pattern", std::string(sensor.pattern)},
                       {"bits", sensor.bits},
                       {"values", sensor.black_subtracted ? "black subtracted" : "as stored"},
                       {"axis", sensor.ev_per_stop ? "EV below white" : "raw units"},
                       {"bins_per_stop", sensor.ev_per_stop},
                       {"white_level", sensor.white},
                       {"channels", std::move(channels)},
                       {"blocks", sensor.blocks},
                       {"clipped_any", sensor.clipped_any},
                       {"clipped_all", sensor.clipped_all}};
}

void sensor_table(std::ostream& out, const io::SensorChannels& sensor) {
    out << "  camera raw: " << sensor.pattern << " Bayer mosaic, " << sensor.bits
        << "-bit, one pixel per 2 x 2 block; "
        << (sensor.black_subtracted ? "counted less the black level (--subtract-black); levels in raw units\n"
                                    : "values as stored (black level not subtracted)\n");
    if (sensor.ev_per_stop)
        out << "  bins: EV below the white level (0 EV = white), " << sensor.ev_per_stop
            << " per stop; at or below black: below, at or above white: above\n";
    char line[160];
    std::snprintf(line, sizeof line, "  %-5s %9s %9s %9s %21s %23s\n", "", "black", "white", "max", "clipped (>= white)",
                  "under (< white - 8 EV)");
    out << line;
    const auto count_and_share = [&](std::uint64_t n) { return thousands(n) + " " + percent(share(n, sensor.blocks)); };
    for (int c = 0; c < io::SensorChannels::kChannels; ++c) {
        std::snprintf(line, sizeof line, "  %-5s %9u %9u %9u %21s %23s\n", io::sensor_channel_name(c), sensor.black[c],
                      sensor.white, sensor.maximum[c], count_and_share(sensor.clipped[c]).c_str(),
                      count_and_share(sensor.underexposed[c]).c_str());
        out << line;
    }
    out << "  clipped blocks: " << count_and_share(sensor.clipped_any) << " in any channel, "
        << count_and_share(sensor.clipped_all) << " in all\n";
}

void sensor_csv_rows(std::ostream& out, const std::string& lead, const io::SensorChannels& sensor) {
    const auto row = [&](const std::string& channel, const char* kind, double lo, double hi, std::uint64_t count) {
        out << lead << channel << ',' << kind << ",-1," << number(lo) << ',' << number(hi) << ',' << count << '\n';
    };
    const double inf = std::numeric_limits<double>::infinity(), white = sensor.white;
    for (int c = 0; c < io::SensorChannels::kChannels; ++c) {
        const std::string name = io::sensor_channel_name(c);
        const double black = sensor.black[c];
        row(name, "black_level", black, black, sensor.blocks);
        row(name, "white_level", white, white, sensor.blocks);
        row(name, "maximum", sensor.maximum[c], sensor.maximum[c], sensor.blocks);
        row(name, "clipped", white, inf, sensor.clipped[c]);
        row(name, "underexposed", -inf, black + (white - black) / 256, sensor.underexposed[c]);
    }
    row("any", "clipped_blocks", white, inf, sensor.clipped_any);
    row("all", "clipped_blocks", white, inf, sensor.clipped_all);
}

namespace {

// "black 512", or "black R/B 512" when other channels have another level.
void add_level_marks(std::vector<LevelMark>& marks, const char* kind, const std::uint32_t (&levels)[4],
                     const std::uint32_t (&at)[4]) {
    bool done[io::SensorChannels::kChannels] = {};
    for (int c = 0; c < io::SensorChannels::kChannels; ++c) {
        if (done[c]) continue;
        std::string names;
        int shared = 0;
        for (int d = c; d < io::SensorChannels::kChannels; ++d)
            if (!done[d] && at[d] == at[c] && levels[d] == levels[c]) {
                done[d] = true;
                names += (shared++ ? "/" : "") + std::string(io::sensor_channel_name(d));
            }
        const std::string who = shared == io::SensorChannels::kChannels ? "" : names + " ";
        marks.push_back({double(at[c]) + 0.5, std::string(kind) + " " + who + std::to_string(levels[c])});
    }
}

}  // namespace

std::vector<LevelMark> sensor_marks(const ChartAxis& axis, const BinLayout& layout, const io::SensorChannels& sensor) {
    std::vector<LevelMark> marks;
    if (on_ev_axis_from_white(layout, true)) {
        marks = {{-8.0, "8 EV below white"}, {0.0, "white " + std::to_string(sensor.white)}};
    } else {
        std::uint32_t black_at[4], white_at[4], white[4];
        for (int c = 0; c < io::SensorChannels::kChannels; ++c) {  // in the values the image holds
            black_at[c] = sensor.black_subtracted ? 0 : sensor.black[c];
            white_at[c] = sensor.black_subtracted ? sensor.white - sensor.black[c] : sensor.white;
            white[c] = sensor.white;
        }
        add_level_marks(marks, "black", sensor.black, black_at);
        add_level_marks(marks, "white", white, white_at);
    }
    std::erase_if(marks, [&](const LevelMark& m) {
        return axis.bounds.empty() || m.at < axis.bounds.front() || m.at > axis.bounds.back();
    });
    return marks;
}

std::string sensor_axis_title(const io::SensorChannels& sensor) {
    return sensor.ev_per_stop ? "EV below the white level (0 EV = white), " + std::to_string(sensor.ev_per_stop) +
                                    " bins per stop"
                              : "";
}

}  // namespace imghist::cli
