/*
 * Half samples are widened to float exactly (every half is a float) before anything else.
 * Part of the contract (contract.h).
 */
#ifndef IMGHIST_CONTRACT_HALF_H
#define IMGHIST_CONTRACT_HALF_H

#include "contract/lang.h"

/* IEEE half bits to float bits, exactly (every half is a float). */
IH_FN IH_U32 ih_half_to_float_bits(IH_U32 h)
{
    IH_U32 sign = (h & IH_U(0x8000)) << 16;
    IH_U32 exponent = (h >> 10) & IH_U(0x1F);
    IH_U32 mantissa = h & IH_U(0x3FF);
    if (exponent == IH_U(0x1F)) return sign | IH_U(0x7F800000) | (mantissa << 13); /* Inf / NaN */
    if (exponent != IH_U(0)) return sign | ((exponent + IH_U(112)) << 23) | (mantissa << 13);
    if (mantissa == IH_U(0)) return sign; /* +-0 */
    /* Subnormal half: normalise into a float. */
    exponent = IH_U(113);
    while ((mantissa & IH_U(0x400)) == IH_U(0)) {
        mantissa <<= 1;
        exponent -= IH_U(1);
    }
    return sign | (exponent << 23) | ((mantissa & IH_U(0x3FF)) << 13);
}

#endif /* IMGHIST_CONTRACT_HALF_H */
