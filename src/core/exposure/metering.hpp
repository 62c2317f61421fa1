// The two ways exposure() meters a histogram (docs/semantics.md, "Auto-exposure"): exactly in
// integers for EV bins, in double for other edges.
#pragma once

#include <cstdint>
#include <optional>

#include "imghist/exposure.hpp"

namespace imghist::metering {

// A percentile in hundredths of a percent (5000 for 50%); the settings are validated first.
std::uint32_t hundredths(double percent);

// The fp32 nearest to ±magnitude / denominator, ties to even: the one rounding of the exact
// mean. Needs denominator > 0 and a quotient below 2^24.
float nearest_float(bool negative, unsigned __int128 magnitude, unsigned __int128 denominator);

// The exact trimmed mean of EV bins on `grid`, rounded once to fp32.
std::optional<Exposure> exact_exposure(const ChannelHistogram& luminance, const EvGrid& grid,
                                       const ExposureSettings& settings);
// The same steps in double, for edges that are not EV bins.
std::optional<Exposure> double_exposure(const ChannelHistogram& luminance, const ExposureSettings& settings);

}  // namespace imghist::metering
