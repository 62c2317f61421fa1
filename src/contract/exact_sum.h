/*
 * Exact sums of float samples (docs/semantics.md, "Sample statistics"). A finite fp32 value is
 * (-1)^s * m * 2^(q - IH_SUM_EXPONENT_BIAS) with m < 2^24 an integer and q its bucket (1..254):
 * the biased exponent, or 1 for zeros and denormals (whose m has no implicit bit). Summing the
 * m of each sign per bucket in integers, and each m^2 per bucket, keeps Σv and Σv² exact in any
 * order, on any device: only integer additions. Part of the contract (contract.h).
 */
#ifndef IMGHIST_CONTRACT_EXACT_SUM_H
#define IMGHIST_CONTRACT_EXACT_SUM_H

#include "contract/lang.h"

#define IH_SUM_BUCKETS IH_U(256)
#define IH_SUM_EXPONENT_BIAS 150 /* value = m * 2^(bucket - 150): 2^-149 is bucket 1's unit */

/* The bucket of finite float bits (1..254). */
IH_FN IH_U32 ih_sum_bucket(IH_U32 bits)
{
    IH_U32 biased = (bits >> 23) & IH_U(0xFF);
    return biased == IH_U(0) ? IH_U(1) : biased;
}

/* m of finite float bits: the 23 stored bits, with the implicit bit unless denormal or zero. */
IH_FN IH_U32 ih_sum_mantissa(IH_U32 bits)
{
    IH_U32 stored = bits & IH_U(0x007FFFFF);
    return ((bits >> 23) & IH_U(0xFF)) == IH_U(0) ? stored : (stored | IH_U(0x00800000));
}

/* Whether finite float bits are negative (-0 included: its m is 0, so it adds nothing). */
IH_FN IH_U32 ih_sum_negative(IH_U32 bits)
{
    return bits >> 31;
}

/* m^2 = high * 2^24 + low with both below 2^24, in 32-bit arithmetic only (GLSL has no 64-bit
 * multiply by default): m = a * 2^12 + b, so m^2 = a^2 * 2^24 + 2ab * 2^12 + b^2. Summed in 64-bit
 * counters, each part holds 2^40 samples before it could overflow. */
IH_FN IH_U32 ih_sum_square_low(IH_U32 m)
{
    return (m * m) & IH_U(0x00FFFFFF); /* the product wraps modulo 2^32: its low 24 bits are m^2's */
}
IH_FN IH_U32 ih_sum_square_high(IH_U32 m)
{
    IH_U32 a = m >> 12, b = m & IH_U(0xFFF);
    return a * a + ((IH_U(2) * a * b + ((b * b) >> 12)) >> 12);
}

/* The device passes' layout of one channel's first-pass statistics (core/sample_stats_sums.hpp):
 * IH_STATS_SLOTS 64-bit counters. [0, IH_STATS_CODES): the count of each code (an integer sample
 * or integer luminance by value, a half sample by its bits; NaN codes included) or, for float
 * samples, of the top 16 bits of each finite sample's ih_float_key. Then, for float samples only,
 * per bucket: Σm of the positive samples, Σm of the negative ones, Σ ih_sum_square_high(m),
 * Σ ih_sum_square_low(m); and the +Inf and -Inf counts. */
#define IH_STATS_CODES IH_U(65536)
#define IH_STATS_POSITIVE IH_STATS_CODES
#define IH_STATS_NEGATIVE (IH_STATS_POSITIVE + IH_SUM_BUCKETS)
#define IH_STATS_SQUARES_HIGH (IH_STATS_NEGATIVE + IH_SUM_BUCKETS)
#define IH_STATS_SQUARES_LOW (IH_STATS_SQUARES_HIGH + IH_SUM_BUCKETS)
#define IH_STATS_POS_INF (IH_STATS_SQUARES_LOW + IH_SUM_BUCKETS)
#define IH_STATS_NEG_INF (IH_STATS_POS_INF + IH_U(1))
#define IH_STATS_SLOTS (IH_STATS_NEG_INF + IH_U(1))

#endif
