// Auto-exposure from a luminance histogram, and its adaptation from frame to frame
// (docs/semantics.md, "Auto-exposure"). Exact for EV bins: every backend, the host and a GPU
// following the contract give the same fp32 bits.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "imghist/result.hpp"

namespace imghist {

// What the samples under the bins (`below`: darker than 2^LO, zero, negative) do to the metering.
enum class BelowRange {
    meter,   // they stand for the EV of the first edge and take part in the percentiles
    ignore,  // they are left out: a dark frame meters what is in range only
};

// The metering of one histogram: the samples between two percentiles, their count-weighted mean
// EV, and the exposure that brings it to the key value.
struct ExposureSettings {
    double low_percent = 50, high_percent = 95;  // whole hundredths of a percent, 0 <= low < high <= 100
    double key = 0.18;                           // the value the trimmed average should land on
    BelowRange below = BelowRange::meter;
    void validate() const;                       // throws InvalidArgument
    bool operator==(const ExposureSettings&) const = default;
};
struct Exposure {
    double average_ev = 0;   // L: mean log2 of the trimmed samples (an fp32 value for EV bins)
    double key = 0.18;
    double exposure_ev = 0;  // log2(key) - L: multiply the image by 2^exposure_ev
    double samples = 0;      // the trimmed samples averaged (fractions of a straddling bin count)
    bool operator==(const Exposure&) const = default;
};
// Empty when the channel has no sample to meter, or its bins are not edge bins over positive
// values (BinLayout::edges with e_0 > 0). Throws InvalidArgument for bad settings.
std::optional<Exposure> exposure(const ChannelHistogram& luminance, const ExposureSettings& settings = {});

// EV bins whose LO is a whole number of bins: LO = lo_bins / per_stop, bin k's EV
// LO + (k + 1/2) / per_stop. The grid a GPU's exposure is computed on.
struct EvGrid {
    std::int32_t lo_bins = 0;
    std::uint32_t per_stop = 1;
    std::uint32_t bins = 1;
    bool operator==(const EvGrid&) const = default;
};
// The grid of edges that ev_edges(lo_bins / per_stop, ..., per_stop) makes, with the smallest
// such per_stop; empty for any other edges (they are metered in double).
std::optional<EvGrid> ev_grid(const std::vector<double>& edges);

// A point of the compensation curve: `stops` added to the exposure where the clamped average is `ev`.
struct CompensationPoint {
    float ev = 0, stops = 0;
    bool operator==(const CompensationPoint&) const = default;
};
inline constexpr std::size_t kMaxCompensationPoints = 16;

// How a camera's exposure follows the metered one (docs/semantics.md, "Adaptation over frames").
struct ExposureControl {
    ExposureSettings metering;
    float min_ev = -126, max_ev = 128;          // the average EV is clamped to [min_ev, max_ev]
    float compensation = 0;                     // stops added to every target
    std::vector<CompensationPoint> curve;       // ev strictly increasing, at most 16 points
    float speed_up = 3, speed_down = 1;         // stops per second, brightening and darkening
    float distance = 1.5f;                      // stops from the target where the speed turns exponential
    void validate() const;                      // throws InvalidArgument
    bool operator==(const ExposureControl&) const = default;
};

// A camera's exposure after a frame: what its tonemapping multiplies by.
struct ExposureState {
    float ev = 0;          // the exposure applied, in stops
    float scale = 1;       // 2^ev (the device's exp2 on a GPU: the one value that is not exact)
    float average_ev = 0;  // the last metered frame's average EV, before the clamp
    float target_ev = 0;   // the exposure that frame asked for
    bool started = false;  // a frame has been metered: the next one adapts from `ev`
    bool metered = false;  // this frame had an exposure; without one the state is kept
    bool operator==(const ExposureState&) const = default;
};

// One frame: moves `state` towards the metered exposure over `seconds` (finite, >= 0). Throws
// InvalidArgument for bad settings or time.
ExposureState adapt(const ExposureState& state, const std::optional<Exposure>& metered,
                    const ExposureControl& control, float seconds);
// The same, metering `luminance` with control.metering.
ExposureState adapt(const ExposureState& state, const ChannelHistogram& luminance,
                    const ExposureControl& control, float seconds);

}  // namespace imghist
