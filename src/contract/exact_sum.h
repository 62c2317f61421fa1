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

#endif
