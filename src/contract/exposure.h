/*
 * The exposure's adaptation from frame to frame (docs/semantics.md, "Adaptation over frames"):
 * one fp32 addition, multiplication, min or max a step, in the contract's order, and no
 * division (Vulkan allows a shader's fp32 division 2.5 ulp): the reciprocals are fp32 constants
 * the host computes once in double. The host's adapt() runs these; a shader includes them as they are.
 */
#ifndef IMGHIST_CONTRACT_EXPOSURE_H
#define IMGHIST_CONTRACT_EXPOSURE_H

#include "contract/lang.h"

/* The compensation curve between (ev0, stops0) and (ev0 + width, stops1), inverse_width = 1 / width. */
IH_FN float ih_exposure_curve_segment(float x, float ev0, float stops0, float inverse_width, float stops1)
{
    IH_PRECISE float t = IH_FMUL(IH_FADD(x, -ev0), inverse_width);
    IH_PRECISE float part = IH_FMUL(t, IH_FADD(stops1, -stops0));
    return IH_FADD(stops0, part);
}

/* The exposure a frame asks for: (key_ev - clamped average) + (compensation + curve). */
IH_FN float ih_exposure_target(float key_ev, float clamped, float compensation, float curve)
{
    IH_PRECISE float lift = IH_FADD(key_ev, -clamped);
    IH_PRECISE float extra = IH_FADD(compensation, curve);
    return IH_FADD(lift, extra);
}

/*
 * One frame from ev towards target over `seconds`: at most speed * seconds stops (linear), and
 * within the distance that fraction of what is left (exponential), never past the target.
 */
IH_FN float ih_exposure_step(float ev, float target, float speed_up, float speed_down, float inverse_distance,
                             float seconds)
{
    IH_PRECISE float delta = IH_FADD(target, -ev);
    float speed = delta > 0.0f ? speed_up : speed_down;
    IH_PRECISE float step = IH_FMUL(speed, seconds);
    IH_PRECISE float scaled = IH_FMUL(step, inverse_distance);
    float rate = scaled < 1.0f ? scaled : 1.0f;
    IH_PRECISE float move = IH_FMUL(delta, rate);
    float taken = delta > 0.0f ? (move < step ? move : step) : (move > -step ? move : -step);
    return IH_FADD(ev, taken);
}

#endif
