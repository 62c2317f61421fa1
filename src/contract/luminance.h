/*
 * Luminance (docs/semantics.md): integer weights over IH_LUMA_WEIGHT_SUM for integer samples,
 * their fp32 fractions for half and float samples. Part of the contract (contract.h).
 */
#ifndef IMGHIST_CONTRACT_LUMINANCE_H
#define IMGHIST_CONTRACT_LUMINANCE_H

#include "contract/lang.h"

/* Weights are integers that sum to this; the fp32 weight of w is float(double(w) / this). */
#define IH_LUMA_WEIGHT_SUM IH_U(10000)

/* Integer luminance: floor((wr*r + wg*g + wb*b) / 10000), exact (weights sum to IH_LUMA_WEIGHT_SUM). */
IH_FN IH_U32 ih_luma_int(IH_U32 r, IH_U32 g, IH_U32 b, IH_U32 wr, IH_U32 wg, IH_U32 wb)
{
    return (wr * r + wg * g + wb * b) / IH_LUMA_WEIGHT_SUM;
}

/* Float luminance: (wr*r + wg*g) + wb*b, every operation rounded on its own. */
IH_FN float ih_luma_float(float r, float g, float b, float wr, float wg, float wb)
{
    IH_PRECISE float pr = IH_FMUL(wr, r);
    IH_PRECISE float pg = IH_FMUL(wg, g);
    IH_PRECISE float pb = IH_FMUL(wb, b);
    IH_PRECISE float s = IH_FADD(pr, pg);
    return IH_FADD(s, pb);
}

/*
 * ih_luma_int of 8-bit samples without a division: S = wr*r + wg*g + wb*b <= 255 * 10000 < 2^22,
 * so S + 0.5 is exact in fp32. fl(1/10000) and the product each add at most 2^-24 relative
 * error, so the computed (S + 0.5) / 10000 is within 1.2e-7 * 255.00005 < 3.1e-5 of the true
 * value, whose fractional part lies in [0.00005, 0.99995]: truncation therefore gives
 * floor(S / 10000) exactly, for every S up to IH_LUMA8_MAX_SUM. SIMD loops compute exactly this
 * (the same IEEE single operations, element-wise); tests/test_reference.cpp checks it against
 * ih_luma_int's division for every S in range.
 */
#define IH_LUMA8_MAX_SUM (IH_U(255) * IH_LUMA_WEIGHT_SUM)
#define IH_LUMA8_RECIPROCAL (1.0f / 10000.0f)
IH_FN IH_U32 ih_luma8_quotient(IH_U32 sum)
{
    return IH_CAST(IH_U32, IH_FMUL(IH_FADD(IH_CAST(float, sum), 0.5f), IH_LUMA8_RECIPROCAL));
}

#endif /* IMGHIST_CONTRACT_LUMINANCE_H */
