// adapt(): a camera's exposure from frame to frame (docs/semantics.md, "Adaptation over frames").
// The fp32 steps are the contract's (src/contract/exposure.h), written to compile as GLSL too;
// the library is built with -ffp-contract=off, so none is fused.
#include <algorithm>
#include <cmath>
#include <string>

#include "contract/exposure.h"
#include "core/exposure/metering.hpp"
#include "imghist/error.hpp"
#include "imghist/exposure.hpp"

namespace imghist {

namespace {

using metering::reciprocal;

void require_positive(float value, const char* name) {
    if (!(value > 0) || !std::isfinite(value))
        throw InvalidArgument(std::string("exposure adaptation: ") + name + " must be positive and finite (got " +
                              std::to_string(value) + ")");
}

void validate_curve(const std::vector<CompensationPoint>& curve) {
    if (curve.size() > kMaxCompensationPoints)
        throw InvalidArgument("exposure compensation curve: " + std::to_string(curve.size()) + " points, more than " +
                              std::to_string(kMaxCompensationPoints));
    for (std::size_t i = 0; i < curve.size(); ++i) {
        if (!std::isfinite(curve[i].ev) || !std::isfinite(curve[i].stops))
            throw InvalidArgument("exposure compensation curve: point " + std::to_string(i) + " is not finite");
        if (i > 0 && !(curve[i - 1].ev < curve[i].ev))
            throw InvalidArgument("exposure compensation curve: the EVs must be strictly increasing (point " +
                                  std::to_string(i) + ")");
    }
}

// The curve's stops at `ev`: held flat outside its points, linear between them.
float curve_stops(const std::vector<CompensationPoint>& curve, float ev) {
    if (curve.empty()) return 0.0f;
    if (ev <= curve.front().ev) return curve.front().stops;
    if (ev >= curve.back().ev) return curve.back().stops;
    std::size_t i = 0;
    while (!(ev < curve[i + 1].ev)) ++i;
    const float inverse_width = reciprocal(double(curve[i + 1].ev) - double(curve[i].ev));
    return ih_exposure_curve_segment(ev, curve[i].ev, curve[i].stops, inverse_width, curve[i + 1].stops);
}

}  // namespace

void ExposureControl::validate() const {
    metering.validate();
    if (!std::isfinite(min_ev) || !std::isfinite(max_ev) || !(min_ev < max_ev))
        throw InvalidArgument("exposure adaptation: min_ev must be below max_ev, both finite (got " +
                              std::to_string(min_ev) + " and " + std::to_string(max_ev) + ")");
    if (!std::isfinite(compensation))
        throw InvalidArgument("exposure adaptation: the compensation must be finite");
    validate_curve(curve);
    require_positive(speed_up, "speed_up");
    require_positive(speed_down, "speed_down");
    require_positive(distance, "distance");
}

ExposureState adapt(const ExposureState& state, const std::optional<Exposure>& metered, const ExposureControl& control,
                    float seconds) {
    control.validate();
    if (!(seconds >= 0) || !std::isfinite(seconds))
        throw InvalidArgument("exposure adaptation: the frame's time must be finite and >= 0 seconds (got " +
                              std::to_string(seconds) + ")");
    ExposureState next = state;
    next.metered = bool(metered);
    if (!metered) return next;
    const float average = float(metered->average_ev);
    if (!std::isfinite(average))
        throw InvalidArgument("exposure adaptation: the metered average EV must be finite (got " +
                              std::to_string(metered->average_ev) + ")");
    const float clamped = std::min(std::max(average, control.min_ev), control.max_ev);
    const float key_ev = metering::key_ev(control.metering.key);
    const float target = ih_exposure_target(key_ev, clamped, control.compensation, curve_stops(control.curve, clamped));
    next.average_ev = average;
    next.target_ev = target;
    next.ev = state.started ? ih_exposure_step(state.ev, target, control.speed_up, control.speed_down,
                                               reciprocal(control.distance), seconds)
                            : target;
    next.scale = std::exp2(next.ev);
    next.started = true;
    return next;
}

ExposureState adapt(const ExposureState& state, const ChannelHistogram& luminance, const ExposureControl& control,
                    float seconds) {
    return adapt(state, exposure(luminance, control.metering), control, seconds);
}

}  // namespace imghist
