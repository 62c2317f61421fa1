// The two ways exposure() meters a histogram (docs/semantics.md, "Auto-exposure"): exactly in
// integers for EV bins, in double for other edges.
#pragma once

#include <cstdint>
#include <optional>

#include "imghist/exposure.hpp"

namespace imghist::metering {

// A percentile in hundredths of a percent (5000 for 50%); the settings are validated first.
std::uint32_t hundredths(double percent);

// log2(key) in double rounded once to fp32: the key value in stops.
float key_ev(double key);
// 1 / x in double rounded once to fp32: the settings' constants that spare a shader fp32
// division, which Vulkan does not round correctly.
float reciprocal(double x);

// The fp32 nearest to ±magnitude / denominator, ties to even: the one rounding of the exact
// mean. Needs denominator > 0 and a quotient below 2^24.
float nearest_float(bool negative, unsigned __int128 magnitude, unsigned __int128 denominator);

// The exact trimmed mean of EV bins on `grid`, rounded once to fp32.
std::optional<Exposure> exact_exposure(const ChannelHistogram& luminance, const EvGrid& grid,
                                       const ExposureSettings& settings);
// The same steps in double, for edges that are not EV bins.
std::optional<Exposure> double_exposure(const ChannelHistogram& luminance, const ExposureSettings& settings);

}  // namespace imghist::metering
