// Histogram charts (PNG or SVG) drawn with cairo: R, G, B curves over a filled luminance area.
#pragma once

#include <string>

#include "imghist/io.hpp"
#include "imghist/result.hpp"

namespace imghist::cli {

struct PlotOptions {
    std::string title;     // usually the file name
    std::string subtitle;  // size, format, backend
    bool log = false;      // log10 counts axis
    // A camera raw file's sensor: its levels marked, its channels named R, G1, B, G2 (a sum of
    // raw files: camera_raw alone, the names without the levels).
    const io::SensorChannels* sensor = nullptr;
    bool camera_raw = false;
};

// False when imghist was built without cairo.
bool plot_available();
// True for names ending in .png or .svg (case-insensitive).
bool plot_path_supported(const std::string& path);
// Draws the chart into path (.png or .svg). Throws std::runtime_error on failure.
void write_plot(const std::string& path, const Result& result, const PlotOptions& options);

}  // namespace imghist::cli
