/*
 * imghist bin math: the one definition of which slot every sample goes to.
 *
 * Part of the contract (src/contract/, see contract.h): written in the common subset of C,
 * C++, CUDA, OpenCL C and GLSL so that every backend compiles the same text (OpenCL inlines
 * it at build time, GLSL gets it via `glslc -I`). Everything a kernel needs is in
 * ih_bin_args (kernel_args.h); the host derives it once, in src/core/plan.cpp, from the request.
 *
 * Slot layout of one channel (shared by every backend's device buffers):
 *   [0, bins)   the bins
 *   bins + 0    nan
 *   bins + 1    below
 *   bins + 2    above
 * A classify function returns a code: bits 0..29 hold the primary slot, bits 30..31 an
 * optional secondary counter (1 = below, 2 = above) for values that were clipped into an end
 * bin *and* must be reported as clipped. A kernel therefore does (the code -> count rule, ih_code_slot and ih_code_extra_slot below):
 *   code = ih_classify_...(v, ...);
 *   hist[ih_code_slot(code)] += 1;
 *   if (ih_code_has_extra(code)) hist[ih_code_extra_slot(code, bins)] += 1;
 */
#ifndef IMGHIST_BINNING_H
#define IMGHIST_BINNING_H

#include "contract/lang.h"

#define IH_SLOT_MASK IH_U(0x3FFFFFFF)
#define IH_EXTRA_SHIFT 30
#define IH_EXTRA_BELOW IH_U(0x40000000)
#define IH_EXTRA_ABOVE IH_U(0x80000000)
/* Extra slots after the bins of a channel. */
#define IH_SLOT_NAN IH_U(0)
#define IH_SLOT_BELOW IH_U(1)
#define IH_SLOT_ABOVE IH_U(2)
#define IH_EXTRA_SLOTS IH_U(3)

/* The code -> count rule: a code counts once in ih_code_slot(code) of its channel and, when
 * ih_code_has_extra(code), once more in ih_code_extra_slot(code, bins). */
IH_FN IH_U32 ih_code_slot(IH_U32 code) { return code & IH_SLOT_MASK; }
IH_FN IH_U32 ih_code_has_extra(IH_U32 code) { return code >> IH_EXTRA_SHIFT; }
IH_FN IH_U32 ih_code_extra_slot(IH_U32 code, IH_U32 bins) { return bins + (code >> IH_EXTRA_SHIFT); }

/* A code in 16 bits, for code tables: the slot in bits 0..13, the extra counter in bits 14..15
 * (bins + extra slots < 2^14). IH_CODE16_UNRESOLVED (extra 3, which no code has) marks a table
 * entry whose values must be classified one by one. */
#define IH_CODE16_UNRESOLVED IH_U(0xFFFF)
/* A code table's entry for a block of floats (no NaN among them) that spans an edge of edge bins
 * and lies inside [E_0, E_bins): extra 3 with the index of the last edge at or below the block's
 * smallest key, where ih_edge_walk_from starts. Bins < 2^14 - 1, so never 0xFFFF. */
#define IH_CODE16_EDGE_HINT IH_U(0xC000)
IH_FN IH_U32 ih_code_to_16(IH_U32 code) { return (code & IH_SLOT_MASK) | ((code >> IH_EXTRA_SHIFT) << 14); }
IH_FN IH_U32 ih_code_from_16(IH_U32 c16) { return (c16 & IH_U(0x3FFF)) | ((c16 >> 14) << IH_EXTRA_SHIFT); }

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

/* The float bits a key stands for: ih_float_key's inverse (the folded -0 comes back as +0). */
IH_FN IH_U32 ih_float_bits_of_key(IH_U32 key)
{
    return ((key & IH_U(0x80000000)) != IH_U(0)) ? (key & IH_U(0x7FFFFFFF)) : ~key;
}

IH_FN IH_U32 ih_is_nan_bits(IH_U32 bits)
{
    return ((bits & IH_U(0x7FFFFFFF)) > IH_U(0x7F800000)) ? IH_U(1) : IH_U(0);
}

/* Finite (neither NaN nor an infinity), and the two infinities: the value extremes' classes. */
#define IH_POS_INF_BITS IH_U(0x7F800000)
#define IH_NEG_INF_BITS IH_U(0xFF800000)
IH_FN IH_U32 ih_is_finite_bits(IH_U32 bits)
{
    return ((bits & IH_U(0x7FFFFFFF)) < IH_U(0x7F800000)) ? IH_U(1) : IH_U(0);
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

/*
 * Edge bins (docs/semantics.md, "Edges"): bins + 1 keys that never decrease; bin k holds the keys
 * in [E_k, E_k+1), keys below E_0 are below and keys from E_bins on above, both folded into the
 * end bins when clamp is set. The host derives the keys once (HistogramPlan):
 *   integer samples: the key is the value, E_k = ceil(edge k) clamped to [0, 65536];
 *   float samples: the key is ih_float_key of the fp32 sample, E_k that of edge k rounded to fp32.
 * Comparisons of integers only, so no device's division, log2 or denormal handling takes part.
 * Equal neighbouring keys (integer edges clamped together) make empty bins, which the search
 * below skips: it ends at the one k with E_k <= key < E_k+1.
 */
#if !defined(IH_GLSL) || defined(IH_EDGE_KEY)
IH_FN IH_U32 ih_classify_edge_key(IH_U32 key, IH_U32 bins, IH_U32 clamp_flag IH_EDGES_PARAM)
{
    if (key < IH_EDGE_KEY(0))
        return (clamp_flag != IH_U(0)) ? (IH_U(0) | IH_EXTRA_BELOW) : (bins + IH_SLOT_BELOW);
    if (key >= IH_EDGE_KEY(bins))
        return (clamp_flag != IH_U(0)) ? ((bins - IH_U(1)) | IH_EXTRA_ABOVE) : (bins + IH_SLOT_ABOVE);
    IH_U32 lo = IH_U(0);
    IH_U32 hi = bins; /* E_lo <= key < E_hi */
    while (hi - lo > IH_U(1)) {
        IH_U32 mid = (lo + hi) >> 1;
        if (key >= IH_EDGE_KEY(mid)) lo = mid;
        else hi = mid;
    }
    return lo;
}

/*
 * The edge search from a known start, for a key inside [E_0, E_bins) (a code table's hint for a
 * block of floats, IH_CODE16_EDGE_HINT): `first` is an edge index with E_first <= key. Walks up
 * from it, one edge key read per edge between E_first and the key; ih_classify_edge_key's code.
 */
IH_FN IH_U32 ih_edge_walk_from(IH_U32 key, IH_U32 first IH_EDGES_PARAM)
{
    IH_U32 k = first;
    while (key >= IH_EDGE_KEY(k + IH_U(1))) k = k + IH_U(1);
    return k;
}

/* A float sample in edge bins: NaN has its slot, every other value its key's bin. */
IH_FN IH_U32 ih_classify_float_edges(float v, IH_U32 bins, IH_U32 clamp_flag IH_EDGES_PARAM)
{
    IH_U32 bits = IH_FLOAT_BITS(v);
    if (ih_is_nan_bits(bits) != IH_U(0)) return bins + IH_SLOT_NAN;
    return ih_classify_edge_key(ih_float_key(bits), bins, clamp_flag IH_EDGES_ARG(ih_edge_keys));
}

/* Float edge bins by code table (core/plan.hpp, edge_key_words): after the bins + 1 edge keys,
 * one 16-bit entry (ih_code_to_16) per block of floats by their top 16 bits, two to a word, the
 * low half first. The word of float bits `bits`, and its entry in that word: */
IH_FN IH_U32 ih_code16_table_word(IH_U32 bits, IH_U32 bins) { return bins + IH_U(1) + (bits >> 17); }
IH_FN IH_U32 ih_code16_table_entry(IH_U32 word, IH_U32 bits) { return (word >> ((bits >> 12) & IH_U(16))) & IH_U(0xFFFF); }
/* The code of float v from its block's entry `entry` (the table's or a finer window's): the
 * block's code, or the walk from its edge hint, or (IH_CODE16_UNRESOLVED) the full search. */
IH_FN IH_U32 ih_classify_float_code16(float v, IH_U32 entry, IH_U32 bins, IH_U32 clamp_flag IH_EDGES_PARAM)
{
    if ((entry >> 14) != IH_U(3)) return ih_code_from_16(entry);
    if (entry == IH_CODE16_UNRESOLVED) return ih_classify_float_edges(v, bins, clamp_flag IH_EDGES_ARG(ih_edge_keys));
    return ih_edge_walk_from(ih_float_key(IH_FLOAT_BITS(v)), entry & IH_U(0x3FFF) IH_EDGES_ARG(ih_edge_keys));
}
#endif

#endif /* IMGHIST_BINNING_H */
