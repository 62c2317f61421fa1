// How the reports show a camera raw file (docs/cli.md, "Camera raw files"): its result's four
// channels named by colour position (R, G1, B, G2), and its black and white levels, measured
// maxima and clipping beside the histograms.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

#include "imghist/io.hpp"
#include "imghist/request.hpp"

namespace imghist::cli {

// The name a channel is shown under: a camera raw result's R, G, B, A are R, G1, B, G2.
std::string shown_channel_name(Channel channel, const io::SensorChannels* sensor);

// Renames a camera raw result's "histograms" keys to R, G1, B, G2 and adds its "camera_raw"
// object to the result's JSON `j`.
void put_sensor(nlohmann::ordered_json& j, const io::SensorChannels& sensor);

// The table's lines of the sensor: pattern, levels, measured maxima and clipping.
void sensor_table(std::ostream& out, const io::SensorChannels& sensor);

}  // namespace imghist::cli
