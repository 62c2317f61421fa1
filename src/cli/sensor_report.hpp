// How the reports show a camera raw file (docs/cli.md, "Camera raw files"): its result's four
// channels named by colour position (R, G1, B, G2), and its black and white levels, measured
// maxima and clipping beside the histograms.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "chart_axis.hpp"
#include "imghist/io.hpp"
#include "imghist/request.hpp"

namespace imghist::cli {

// The name a channel is shown under: a camera raw result's R, G, B, A are R, G1, B, G2.
std::string shown_channel_name(Channel channel, bool camera_raw);

// The channel a camera raw result's histogram `name` (R, G1, B, G2) is held in; and whether a
// report's "histograms" object is a camera raw result's (keyed G1 and G2).
std::optional<Channel> sensor_channel_named(const std::string& name);
bool camera_raw_histograms(const nlohmann::ordered_json& histograms);

// Whether a camera raw result was counted on the EV axis from white (--ev-from-white): the
// only layout of a raw file's integer samples that is not integer.
inline bool on_ev_axis_from_white(const BinLayout& layout, bool camera_raw) { return camera_raw && !layout.integer; }

// Renames a camera raw result's (or sum's) "histograms" keys to R, G1, B, G2.
void rename_sensor_channels(nlohmann::ordered_json& histograms);

// Renames a camera raw result's "histograms" keys and adds its "camera_raw" object to the
// result's JSON `j`.
void put_sensor(nlohmann::ordered_json& j, const io::SensorChannels& sensor);

// A level marked on a camera raw file's chart: where on its x axis (axis units) and its label.
struct LevelMark {
    double at;
    std::string label;
    bool operator==(const LevelMark&) const = default;
};
// The levels a raw file's chart marks (docs/cli.md, "Charts"): on raw units each channel's black
// level and the white level, at the value's centre, channels of one position marked once; on the
// EV axis from white (--ev-from-white) the white level at 0 EV and the under-exposure limit,
// 8 EV below. Marks outside the axis are left out.
std::vector<LevelMark> sensor_marks(const ChartAxis& axis, const BinLayout& layout, const io::SensorChannels& sensor);
// The x axis title of a raw file's chart on the EV axis from white; empty on raw units.
std::string sensor_axis_title(const io::SensorChannels& sensor);

// The CSV rows of the sensor (docs/cli.md, "CSV"), each starting with `lead` (image,format,).
void sensor_csv_rows(std::ostream& out, const std::string& lead, const io::SensorChannels& sensor);

// The table's lines of the sensor: pattern, levels, measured maxima and clipping.
void sensor_table(std::ostream& out, const io::SensorChannels& sensor);

}  // namespace imghist::cli
