// adapt(): a camera's exposure from frame to frame (docs/semantics.md, "Adaptation over frames").
// Every step is one fp32 operation in the contract's order, so a shader gives the same bits;
// the library is built with -ffp-contract=off, so none is fused.
#include <algorithm>
#include <cmath>
#include <string>

#include "imghist/error.hpp"
#include "imghist/exposure.hpp"

namespace imghist {

namespace {

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

// 1 / x in double, rounded once to fp32: the settings' constants that spare a shader fp32
// division, which Vulkan does not round correctly.
float reciprocal(double x) { return float(1.0 / x); }

// The curve's stops at `ev`: held flat outside its points, linear between them.
float curve_stops(const std::vector<CompensationPoint>& curve, float ev) {
    if (curve.empty()) return 0.0f;
    if (ev <= curve.front().ev) return curve.front().stops;
    if (ev >= curve.back().ev) return curve.back().stops;
    std::size_t i = 0;
    while (!(ev < curve[i + 1].ev)) ++i;
    const CompensationPoint& a = curve[i];
    const CompensationPoint& b = curve[i + 1];
    const float t = (ev - a.ev) * reciprocal(double(b.ev) - double(a.ev));
    const float rise = b.stops - a.stops;
    const float part = t * rise;
    return a.stops + part;
}

// One step of `ev` towards `target`: linear far from it, exponential within `distance`.
float step_towards(float ev, float target, const ExposureControl& control, float seconds) {
    const float delta = target - ev;
    const float speed = delta > 0 ? control.speed_up : control.speed_down;
    const float step = speed * seconds;
    const float rate = std::min(step * reciprocal(control.distance), 1.0f);
    const float move = delta * rate;
    return delta > 0 ? ev + std::min(step, move) : ev + std::max(-step, move);
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
    const float compensation = control.compensation + curve_stops(control.curve, clamped);
    const float key_ev = float(std::log2(control.metering.key));
    const float target = (key_ev - clamped) + compensation;
    next.average_ev = average;
    next.target_ev = target;
    next.ev = state.started ? step_towards(state.ev, target, control, seconds) : target;
    next.scale = std::exp2(next.ev);
    next.started = true;
    return next;
}

ExposureState adapt(const ExposureState& state, const ChannelHistogram& luminance, const ExposureControl& control,
                    float seconds) {
    return adapt(state, exposure(luminance, control.metering), control, seconds);
}

}  // namespace imghist
