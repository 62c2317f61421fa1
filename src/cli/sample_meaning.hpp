// What a file's sample values mean to the report: integer files hold display-encoded values
// (0 and the top code are the ends of the display's range), float files may hold scene-referred
// light that goes past 1 without clipping (docs/cli.md, "table").
#pragma once

#include <optional>
#include <string>

#include "imghist/image.hpp"

namespace imghist::cli {

// The table's two share columns and the sentence that says what they count.
struct ClipColumns {
    const char* low;
    const char* high;
    const char* meaning;
};
// `camera_raw`: the channels are a raw file's sensor values (R, G1, B, G2).
ClipColumns clip_columns(PixelFormat format, bool camera_raw = false);
// The chart's caption of one end's shares (end 0 low, 1 high): "clipped low (0)", "clipped high
// (255)" for integer formats; the table's column words for float ones; "raw value 0" and "raw
// value 65535" for a camera raw file's sensor values.
std::string clip_caption(PixelFormat format, int end, bool camera_raw = false);

// Why --exposure's EV is not the scene's for this format (display-encoded integer values read
// as linear light), and how to linearise; none for float files.
std::optional<std::string> exposure_caveat(PixelFormat format);

}  // namespace imghist::cli
