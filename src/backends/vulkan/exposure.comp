#version 450
// One frame's auto-exposure from the luminance counters record() wrote (docs/semantics.md,
// "Auto-exposure"): the exact trimmed mean EV of EV bins, then the adaptation step, into the
// caller's state. One invocation: a few hundred integer steps, far below a dispatch's cost.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "contract/exposure.h"

layout(local_size_x = 1) in;

const uint kMaxCurvePoints = 16;  // kMaxCompensationPoints

// The luminance channel's bins + 3 uint64 slots (the bins, then nan, below, above) from `first_slot`.
layout(std430, binding = 0) readonly buffer Counters { uint64_t slots[]; };

// vk_exposure.hpp, ExposureControlBlock: the settings as the host validated and rounded them.
layout(std430, binding = 1) readonly buffer Control {
    int lo_bins;
    uint per_stop;
    uint bins;
    uint from_hundredths;  // the percentiles in hundredths of a percent
    uint to_hundredths;
    uint meter_below;      // BelowRange::meter
    uint count_ends;       // below and above are counted outside the bins (not clamp)
    uint curve_points;
    float key_ev;
    float min_ev;
    float max_ev;
    float compensation;
    float speed_up;
    float speed_down;
    float inverse_distance;
    float unused;
    vec4 curve[kMaxCurvePoints];  // ev, stops, 1 / (next ev - ev), 0
} control;

// vulkan.hpp, GpuExposureState: 6 words from `state_word`.
layout(std430, binding = 2) buffer State { uint state_words[]; };

layout(push_constant) uniform Params {
    uint first_slot;
    uint state_word;
    float seconds;
} params;

uint64_t slot(uint i) { return slots[params.first_slot + i]; }

// The population in value order: below (u = 0), bin k (u = 2k + 1), above (u = 2N).
uint entries() { return control.bins + (control.count_ends != 0u ? 2u : 0u); }
uint64_t entry_count(uint e) {
    if (control.count_ends == 0u) return slot(e);
    if (e == 0u) return control.meter_below != 0u ? slot(control.bins + 1u) : 0ul;
    return e <= control.bins ? slot(e - 1u) : slot(control.bins + 2u);
}
uint entry_position(uint e) {
    if (control.count_ends == 0u) return 2u * e + 1u;
    return e == 0u ? 0u : (e <= control.bins ? 2u * e - 1u : 2u * control.bins);
}

// The host's curve_stops (src/core/exposure/adapt.cpp): flat outside the points, linear between.
float curve_stops(float ev) {
    uint n = control.curve_points;
    if (n == 0u) return 0.0;
    if (ev <= control.curve[0].x) return control.curve[0].y;
    if (ev >= control.curve[n - 1u].x) return control.curve[n - 1u].y;
    uint i = 0u;
    while (!(ev < control.curve[i + 1u].x)) ++i;
    return ih_exposure_curve_segment(ev, control.curve[i].x, control.curve[i].y, control.curve[i].z,
                                     control.curve[i + 1u].y);
}

void main() {
    uint n = entries();
    uint64_t total = 0ul;
    for (uint e = 0u; e < n; ++e) total += entry_count(e);
    uint base = params.state_word;
    if (total == 0ul) {  // nothing to meter: the state is kept
        state_words[base + 5u] = 0u;
        return;
    }
    uint64_t from = total * uint64_t(control.from_hundredths), to = total * uint64_t(control.to_hundredths);
    uint64_t kept = 0ul, weighted = 0ul, before = 0ul;
    for (uint e = 0u; e < n; ++e) {
        uint64_t after = before + uint64_t(IH_EXPOSURE_PARTS_PER_SAMPLE) * entry_count(e);
        uint64_t parts = ih_exposure_kept_parts(before, after, from, to);
        kept += parts;
        weighted += parts * uint64_t(entry_position(e));
        before = after;
    }
    float average = ih_exposure_average_ev(control.lo_bins, control.per_stop, kept, weighted);
    float clamped = min(max(average, control.min_ev), control.max_ev);
    float target = ih_exposure_target(control.key_ev, clamped, control.compensation, curve_stops(clamped));
    bool started = state_words[base + 4u] != 0u;
    float previous = uintBitsToFloat(state_words[base]);
    float ev = started ? ih_exposure_step(previous, target, control.speed_up, control.speed_down,
                                          control.inverse_distance, params.seconds)
                       : target;
    state_words[base] = floatBitsToUint(ev);
    state_words[base + 1u] = floatBitsToUint(exp2(ev));
    state_words[base + 2u] = floatBitsToUint(average);
    state_words[base + 3u] = floatBitsToUint(target);
    state_words[base + 4u] = 1u;
    state_words[base + 5u] = 1u;
}
