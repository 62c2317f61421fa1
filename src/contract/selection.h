/*
 * Masks and alpha thresholds (docs/semantics.md, "Masks and alpha"): whether one pixel is
 * counted. A pixel counts when its mask sample (if any) is non-zero and its alpha passes.
 *
 * "Alpha strictly above T" is resolved once on the host into a test on the sample's bits
 * (alpha_test_of in src/core/selection.cpp), so that every device decides it exactly and alike:
 *   IH_ALPHA_ALL      no threshold: every pixel passes;
 *   IH_ALPHA_NOTHING  no sample can be above T;
 *   IH_ALPHA_INT      8- and 16-bit samples: a >= least (least = floor(T) + 1, or 0);
 *   IH_ALPHA_KEY      half and float samples, widened to fp32 bits: not NaN, and
 *                     ih_float_key(a) >= least, the key of the smallest fp32 above T.
 * Part of the contract (contract.h).
 */
#ifndef IMGHIST_CONTRACT_SELECTION_H
#define IMGHIST_CONTRACT_SELECTION_H

#include "contract/binning.h"
#include "contract/lang.h"

#define IH_ALPHA_ALL IH_U(0)
#define IH_ALPHA_NOTHING IH_U(1)
#define IH_ALPHA_INT IH_U(2)
#define IH_ALPHA_KEY IH_U(3)

/* 1 when an alpha sample (the integer, or the fp32 bits of a half or float) passes the test. */
IH_FN IH_U32 ih_alpha_passes(IH_U32 kind, IH_U32 least, IH_U32 alpha)
{
    if (kind == IH_ALPHA_INT) return alpha >= least ? IH_U(1) : IH_U(0);
    if (kind == IH_ALPHA_KEY) return (ih_is_nan_bits(alpha) == IH_U(0) && ih_float_key(alpha) >= least) ? IH_U(1) : IH_U(0);
    return kind == IH_ALPHA_ALL ? IH_U(1) : IH_U(0);
}

#endif /* IMGHIST_CONTRACT_SELECTION_H */
