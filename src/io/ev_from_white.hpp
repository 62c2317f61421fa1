// A camera raw file's counts on an EV axis from its white level (--ev-from-white,
// docs/semantics.md, "Camera raw files"): RawDigger's and FastRawViewer's "EV below saturation".
#pragma once

#include <cstdint>

#include "imghist/engine.hpp"
#include "imghist/io.hpp"
#include "imghist/request.hpp"
#include "imghist/result.hpp"

namespace imghist::io {

// The axis spans the 16 stops below white, enough for any 16-bit sensor (white - black < 2^16),
// so that every raw file's axis is the same and their results add up in sums.
inline constexpr std::uint32_t kEvFromWhiteStops = 16;
inline constexpr std::uint32_t kMaxEvFromWhitePerStop = 4096 / kEvFromWhiteStops;

// The request that counts a camera raw image: its samples are its colour positions (R, G1, B,
// G2), each counted alone (Mode::rgb): no luminance of them, and the fourth, which the rgba16
// view holds where alpha would be, counted like the others and never used to select pixels.
// With sensor.ev_per_stop, one bin per 16-bit value, for regroup_ev_from_white().
Request sensor_request(const Request& request, const SensorChannels& sensor);

// Regroups `counted` (sensor_request()'s one bin per value) into sensor.ev_per_stop bins per
// stop over [-16, 0) EV, in place, tiles included: a sample of channel c is in bin k when
// edge_k <= (v - black_c) < edge_k+1, edge_k = (white - black_c) * 2^(k / per_stop - 16)
// computed in double; at or below black it is `below` (no EV), at or above white `above`.
void regroup_ev_from_white(Result& counted, const SensorChannels& sensor);

// Whether `layout` is the axis regroup_ev_from_white() makes (edge bins from -16 to 0 EV, a
// whole number per stop): a report read back (imghist merge, Python's from_dict) knows its
// bins hold no integer values only from this, since the format says 16-bit.
bool is_ev_from_white_axis(const BinLayout& layout);

// A loaded image counted as histogram_files counts it: a camera raw file per sensor channel
// (sensor_request, then regroup_ev_from_white), any other image with `request`; the reader's
// notes come first in the result's. Throws what the engine throws.
Result count_loaded_image(Engine& engine, const LoadedImage& image, const Request& request);

}  // namespace imghist::io
