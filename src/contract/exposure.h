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

/*
 * The exact trimmed mean EV of EV bins (docs/semantics.md, "Exact for EV bins") in 64-bit
 * integers: what a shader runs, and the host wherever its sums fit (they do while
 * T * 10000 * (2N + 2|j|) < 2^63). GLSL needs GL_EXT_shader_explicit_arithmetic_types_int64.
 */

/* Each sample is this many parts: the percentiles are whole hundredths of a percent, so the trim's
 * ends fall on whole parts (100% = 10,000). */
#define IH_EXPOSURE_PARTS_PER_SAMPLE 10000u

/* The parts of an entry whose cumulative parts run from `before` to `after` inside [from, to). */
IH_FN IH_U64 ih_exposure_kept_parts(IH_U64 before, IH_U64 after, IH_U64 from, IH_U64 to)
{
    IH_U64 lo = before > from ? before : from;
    IH_U64 hi = after < to ? after : to;
    return hi > lo ? hi - lo : IH_CAST(IH_U64, 0);
}

/*
 * The fp32 nearest to magnitude / denominator (negated when `negative` is not 0), ties to even:
 * the one rounding of the exact mean. Needs 0 < denominator < 2^63 and a quotient below 2^24;
 * the result is then 0 or a normal number, built from its bits (no fp32 arithmetic).
 */
IH_FN float ih_exposure_nearest_float(IH_U32 negative, IH_U64 magnitude, IH_U64 denominator)
{
    IH_U64 quotient = magnitude / denominator;
    IH_U64 remainder = magnitude - quotient * denominator;
    if (quotient == IH_CAST(IH_U64, 0) && remainder == IH_CAST(IH_U64, 0)) return 0.0f;
    /* One binary digit at a time until the quotient has fp32's 24 significant bits. */
    IH_I32 exponent = 0;
    while (quotient < (IH_CAST(IH_U64, 1) << 23)) {
        remainder <<= 1;
        quotient <<= 1;
        if (remainder >= denominator) {
            remainder -= denominator;
            quotient |= IH_CAST(IH_U64, 1);
        }
        exponent -= 1;
    }
    remainder <<= 1;
    IH_U32 past_half = remainder >= denominator ? IH_U(1) : IH_U(0);
    if (past_half != IH_U(0)) remainder -= denominator;
    if (past_half != IH_U(0) && (remainder != IH_CAST(IH_U64, 0) || (quotient & IH_CAST(IH_U64, 1)) != IH_CAST(IH_U64, 0)))
        quotient += IH_CAST(IH_U64, 1);
    if (quotient == (IH_CAST(IH_U64, 1) << 24)) {
        quotient >>= 1;
        exponent += 1;
    }
    IH_U32 biased = IH_CAST(IH_U32, exponent + 23 + 127);
    IH_U32 bits = (biased << 23) | (IH_CAST(IH_U32, quotient) & IH_U(0x7fffff));
    return IH_BITS_FLOAT(negative != IH_U(0) ? (bits | IH_U(0x80000000)) : bits);
}

/* L = (2 j W + S) / (2 P W) rounded once to fp32: j = LO in bins, W the kept parts (> 0), S their sum of positions. */
IH_FN float ih_exposure_average_ev(IH_I32 lo_bins, IH_U32 per_stop, IH_U64 kept, IH_U64 weighted)
{
    IH_I64 numerator = IH_CAST(IH_I64, 2) * IH_CAST(IH_I64, lo_bins) * IH_CAST(IH_I64, kept) + IH_CAST(IH_I64, weighted);
    IH_U64 denominator = IH_CAST(IH_U64, 2) * IH_CAST(IH_U64, per_stop) * kept;
    IH_U32 negative = numerator < IH_CAST(IH_I64, 0) ? IH_U(1) : IH_U(0);
    IH_U64 magnitude = IH_CAST(IH_U64, negative != IH_U(0) ? -numerator : numerator);
    return ih_exposure_nearest_float(negative, magnitude, denominator);
}

#endif
