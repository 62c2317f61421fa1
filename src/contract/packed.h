/*
 * Packed pixels: one 32-bit word of bit fields per pixel, decoded into the samples that are
 * counted (docs/semantics.md, "Images"). B10G11R11_UFLOAT holds R in bits 0..10 and G in bits
 * 11..21 as 11-bit unsigned floats (5-bit exponent, 6-bit mantissa) and B in bits 22..31 as a
 * 10-bit unsigned float (5-bit exponent, 5-bit mantissa). Both have the exponent bias, the
 * subnormals, the infinity and the NaNs of an IEEE half without its sign, and fewer mantissa
 * bits: shifted into a half's bit positions they are that half, which widens to fp32 exactly
 * (half.h). Part of the contract (contract.h).
 */
#ifndef IMGHIST_CONTRACT_PACKED_H
#define IMGHIST_CONTRACT_PACKED_H

#include "contract/half.h"
#include "contract/lang.h"

/* An unsigned float of 5 exponent bits and `mantissa_bits` mantissa bits, as fp32 bits. */
IH_FN IH_U32 ih_ufloat_to_float_bits(IH_U32 code, IH_U32 mantissa_bits)
{
    return ih_half_to_float_bits(code << (IH_U(10) - mantissa_bits));
}

/* Sample i (0 = R, 1 = G, 2 = B) of a B10G11R11_UFLOAT word, as fp32 bits. */
IH_FN IH_U32 ih_b10g11r11_sample_bits(IH_U32 word, IH_U32 i)
{
    if (i == IH_U(2)) return ih_ufloat_to_float_bits(word >> 22, IH_U(5));
    return ih_ufloat_to_float_bits((word >> (IH_U(11) * i)) & IH_U(0x7FF), IH_U(6));
}

#endif /* IMGHIST_CONTRACT_PACKED_H */
