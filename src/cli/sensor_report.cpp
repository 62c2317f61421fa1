#include "sensor_report.hpp"

#include <cstdio>

#include "output.hpp"
#include "output_text.hpp"

namespace imghist::cli {

namespace {

double share(std::uint64_t part, std::uint64_t whole) { return whole ? double(part) / double(whole) : 0.0; }

}  // namespace

std::string shown_channel_name(Channel channel, const io::SensorChannels* sensor) {
    const int c = sensor ? io::sensor_channel_of(channel) : -1;
    return c >= 0 ? io::sensor_channel_name(c) : std::string(channel_name(channel));
}

void put_sensor(nlohmann::ordered_json& j, const io::SensorChannels& sensor) {
    nlohmann::ordered_json renamed = nlohmann::ordered_json::object(), channels = nlohmann::ordered_json::object();
    for (int c = 0; c < io::SensorChannels::kChannels; ++c) {
        const std::string held_as(channel_name(io::sensor_held_as(c)));
        if (j["histograms"].contains(held_as)) renamed[io::sensor_channel_name(c)] = std::move(j["histograms"][held_as]);
        channels[io::sensor_channel_name(c)] = {{"black_level", sensor.black[c]},
                                               {"maximum", sensor.maximum[c]},
                                               {"clipped", sensor.clipped[c]},
                                               {"underexposed", sensor.underexposed[c]}};
    }
    j["histograms"] = std::move(renamed);
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

}  // namespace imghist::cli
