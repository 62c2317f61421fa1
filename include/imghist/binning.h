/*
 * imghist bin math: the one definition of which slot every sample goes to.
 *
 * Written in the common subset of C, C++, CUDA, OpenCL C and GLSL so that every backend
 * compiles the same text (OpenCL inlines it at build time, GLSL gets it via `glslc -I`).
 * Everything a kernel needs is a scalar argument; the host derives those scalars once, in
 * src/core/plan.cpp, from the request.
 *
 * Slot layout of one channel (shared by every backend's device buffers):
 *   [0, bins)   the bins
 *   bins + 0    nan
 *   bins + 1    below
 *   bins + 2    above
 * A classify function returns a code: bits 0..29 hold the primary slot, bits 30..31 an
 * optional secondary counter (1 = below, 2 = above) for values that were clipped into an end
 * bin *and* must be reported as clipped. A kernel therefore does:
 *   code = ih_classify_...(v, ...);
 *   hist[code & IH_SLOT_MASK] += 1;
 *   if (code >> IH_EXTRA_SHIFT) hist[bins + (code >> IH_EXTRA_SHIFT)] += 1;
 */
#ifndef IMGHIST_BINNING_H
#define IMGHIST_BINNING_H

#if defined(VULKAN) || defined(GL_core_profile)
/* GLSL: needs GL_EXT_shader_explicit_arithmetic_types_int64 for the general integer path. */
#define IH_FN
#define IH_U32 uint
#define IH_I64 int64_t
#define IH_U64 uint64_t
#define IH_PRECISE precise
#define IH_FLOAT_BITS(x) floatBitsToUint(x)
#define IH_U(x) uint(x)
#define IH_CAST(T, x) T(x)
#elif defined(__OPENCL_C_VERSION__)
#pragma OPENCL FP_CONTRACT OFF
#define IH_FN inline
#define IH_U32 uint
#define IH_I64 long
#define IH_U64 ulong
#define IH_PRECISE
#define IH_FLOAT_BITS(x) as_uint(x)
#define IH_U(x) x##u
#define IH_CAST(T, x) ((T)(x))
#elif defined(__CUDACC__)
#include <stdint.h>
#define IH_FN static __device__ __forceinline__
#define IH_U32 uint32_t
#define IH_I64 int64_t
#define IH_U64 uint64_t
#define IH_PRECISE
#define IH_FLOAT_BITS(x) __float_as_uint(x)
#define IH_U(x) x##u
#define IH_CAST(T, x) ((T)(x))
#else /* C / C++: build with -ffp-contract=off */
#include <stdint.h>
#include <string.h>
static inline uint32_t ih_float_bits_(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
#define IH_FN static inline
#define IH_U32 uint32_t
#define IH_I64 int64_t
#define IH_U64 uint64_t
#define IH_PRECISE
#define IH_FLOAT_BITS(x) ih_float_bits_(x)
#define IH_U(x) x##u
#define IH_CAST(T, x) ((T)(x))
#endif

/* Products and sums that must not be contracted into an FMA. */
#if defined(__CUDACC__)
#define IH_FMUL(a, b) __fmul_rn((a), (b))
#define IH_FADD(a, b) __fadd_rn((a), (b))
#define IH_FSUB(a, b) __fsub_rn((a), (b))
#else
#define IH_FMUL(a, b) ((a) * (b))
#define IH_FADD(a, b) ((a) + (b))
#define IH_FSUB(a, b) ((a) - (b))
#endif

#define IH_SLOT_MASK IH_U(0x3FFFFFFF)
#define IH_EXTRA_SHIFT 30
#define IH_EXTRA_BELOW IH_U(0x40000000)
#define IH_EXTRA_ABOVE IH_U(0x80000000)
/* Extra slots after the bins of a channel. */
#define IH_SLOT_NAN IH_U(0)
#define IH_SLOT_BELOW IH_U(1)
#define IH_SLOT_ABOVE IH_U(2)
#define IH_EXTRA_SLOTS IH_U(3)

/* Integer binning modes, chosen by the host once per request. */
#define IH_INT_SHIFT 0   /* bin = v >> shift (lo = 0, range and bins powers of two) */
#define IH_INT_GENERAL 1 /* bin = floor((v - lo) * bins / (hi - lo)), exact in 64 bits */

/*
 * Total order on float bit patterns, with -0 folded onto +0. Comparing keys instead of floats
 * keeps comparisons exact on devices that flush denormals.
 */
IH_FN IH_U32 ih_float_key(IH_U32 bits)
{
    if (bits == IH_U(0x80000000)) bits = IH_U(0);
    return ((bits & IH_U(0x80000000)) != IH_U(0)) ? ~bits : (bits | IH_U(0x80000000));
}

IH_FN IH_U32 ih_is_nan_bits(IH_U32 bits)
{
    return ((bits & IH_U(0x7FFFFFFF)) > IH_U(0x7F800000)) ? IH_U(1) : IH_U(0);
}

/*
 * Integer samples (8- and 16-bit values, and integer luminance).
 * mode IH_INT_SHIFT: bin = v >> shift; never out of range.
 * mode IH_INT_GENERAL: v < lo is below, v >= hi is above; both fold into the end bins when
 * clamp is set; otherwise k = floor((v - lo) * bins / (hi - lo)).
 */
IH_FN IH_U32 ih_classify_int(IH_U32 v, IH_U32 mode, IH_U32 shift, IH_U32 bins, IH_I64 lo,
                             IH_I64 hi, IH_U32 clamp_flag)
{
    if (mode == IH_INT_SHIFT) return v >> shift;
    IH_I64 sv = IH_CAST(IH_I64, v);
    if (sv < lo) return (clamp_flag != IH_U(0)) ? (IH_U(0) | IH_EXTRA_BELOW) : (bins + IH_SLOT_BELOW);
    if (sv >= hi)
        return (clamp_flag != IH_U(0)) ? ((bins - IH_U(1)) | IH_EXTRA_ABOVE) : (bins + IH_SLOT_ABOVE);
    return IH_CAST(IH_U32, (IH_CAST(IH_U64, sv - lo) * IH_CAST(IH_U64, bins)) / IH_CAST(IH_U64, hi - lo));
}

/*
 * Float samples (half samples are widened to float exactly first).
 * lo_key / hi_key are ih_float_key() of float(lo) and float(hi); scale = float(bins' / (hi - lo))
 * computed in double, where bins' is the number of bins below hi.
 * closed_top = 1 is the default float rule (257 bins over [0, 1], 1.0 inclusive): v <= lo and
 * v >= hi are binned in the end bins, and only v < lo and v > hi count as below / above.
 * closed_top = 0 is a custom range [lo, hi): v < lo is below, v >= hi is above, and they are
 * binned only when clamp is set.
 * Otherwise k = floor((v - lo) * scale) in fp32, capped at the last bin. resolve_layout refuses
 * ranges where this is not the same on every device (src/core/request.cpp, check_float_range).
 */
IH_FN IH_U32 ih_classify_float(float v, IH_U32 bins, float lo, float scale, IH_U32 lo_key, IH_U32 hi_key,
                               IH_U32 closed_top, IH_U32 clamp_flag)
{
    IH_U32 bits = IH_FLOAT_BITS(v);
    if (ih_is_nan_bits(bits) != IH_U(0)) return bins + IH_SLOT_NAN;
    IH_U32 key = ih_float_key(bits);
    IH_U32 last = bins - IH_U(1);
    if (closed_top != IH_U(0)) {
        if (key <= lo_key) return (key < lo_key) ? (IH_U(0) | IH_EXTRA_BELOW) : IH_U(0);
        if (key >= hi_key) return (key > hi_key) ? (last | IH_EXTRA_ABOVE) : last;
    } else {
        if (key < lo_key) return (clamp_flag != IH_U(0)) ? (IH_U(0) | IH_EXTRA_BELOW) : (bins + IH_SLOT_BELOW);
        if (key >= hi_key) return (clamp_flag != IH_U(0)) ? (last | IH_EXTRA_ABOVE) : (bins + IH_SLOT_ABOVE);
    }
    IH_PRECISE float offset = IH_FSUB(v, lo);
    IH_PRECISE float scaled = IH_FMUL(offset, scale);
    /* Compared before the conversion, which is defined only below 2^32. scaled >= 0, so
     * truncation is floor; bins <= 2^20 is exact in fp32. */
    return (scaled < IH_CAST(float, bins)) ? IH_CAST(IH_U32, scaled) : last;
}

/* Integer luminance: floor((wr*r + wg*g + wb*b) / 10000), exact (weights sum to 10000). */
IH_FN IH_U32 ih_luma_int(IH_U32 r, IH_U32 g, IH_U32 b, IH_U32 wr, IH_U32 wg, IH_U32 wb)
{
    return (wr * r + wg * g + wb * b) / IH_U(10000);
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

#endif /* IMGHIST_BINNING_H */
