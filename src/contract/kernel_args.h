/*
 * ih_bin_args: everything the bin math needs for one pass over a pixel format, filled once by
 * the host (HistogramPlan::bin_args, src/core/plan.cpp) and passed to every kernel the same way,
 * as one plain struct of 32-bit fields (OpenCL: a struct argument; Vulkan: a push-constant
 * member; CUDA: a member of the launch parameters). No backend derives any of it again.
 * Part of the contract (contract.h).
 */
#ifndef IMGHIST_CONTRACT_KERNEL_ARGS_H
#define IMGHIST_CONTRACT_KERNEL_ARGS_H

#include "contract/binning.h"
#include "contract/formats.h"
#include "contract/lang.h"
#include "contract/luminance.h"

/* A pass counts up to IH_MAX_PASS_CHANNELS channels; each names its input in 4 bits of
 * `sources`: a sample index within the pixel, or IH_SRC_LUMA. */
#define IH_MAX_PASS_CHANNELS IH_U(8)
#define IH_SRC_LUMA IH_U(15)

/* 24 words, no padding in any dialect (96 bytes: a multiple of 16). */
IH_STRUCT(ih_bin_args) {
    IH_U32 format;       /* IH_FMT_* */
    IH_U32 channels;     /* channels in this pass */
    IH_U32 sources;      /* channel c's input in bits 4c..4c+3 */
    IH_U32 luma_sources; /* sample index of red | green << 4 | blue << 8 */
    IH_U32 bins;
    IH_U32 int_mode;     /* IH_INT_SHIFT or IH_INT_GENERAL */
    IH_U32 shift;
    IH_U32 closed_top;
    IH_U32 clamp;
    IH_U32 lo_key, hi_key; /* ih_float_key of the fp32 range ends */
    IH_U32 edges;          /* 1: bins by edge keys (ih_classify_edge_key), 0: uniform bins */
    IH_U32 lo_int_low, lo_int_high, hi_int_low, hi_int_high; /* the int64 integer range ends */
    float lo_float, scale_float;
    IH_U32 weight_int_r, weight_int_g, weight_int_b;       /* over IH_LUMA_WEIGHT_SUM */
    float weight_float_r, weight_float_g, weight_float_b; /* their fp32 fractions */
} IH_END(ih_bin_args)

IH_FN IH_U32 ih_args_source(ih_bin_args a, IH_U32 c) { return (a.sources >> (IH_U(4) * c)) & IH_U(15); }
IH_FN IH_U32 ih_args_red(ih_bin_args a) { return a.luma_sources & IH_U(15); }
IH_FN IH_U32 ih_args_green(ih_bin_args a) { return (a.luma_sources >> 4) & IH_U(15); }
IH_FN IH_U32 ih_args_blue(ih_bin_args a) { return (a.luma_sources >> 8) & IH_U(15); }

IH_FN IH_I64 ih_join_i64(IH_U32 low, IH_U32 high)
{
    return IH_CAST(IH_I64, (IH_CAST(IH_U64, high) << 32) | IH_CAST(IH_U64, low));
}
IH_FN IH_I64 ih_args_lo_int(ih_bin_args a) { return ih_join_i64(a.lo_int_low, a.lo_int_high); }
IH_FN IH_I64 ih_args_hi_int(ih_bin_args a) { return ih_join_i64(a.hi_int_low, a.hi_int_high); }

/* The classify code of a sample under the pass's bins, uniform or edge bins; a kernel passes
 * the plan's edge keys (lang.h, IH_EDGES_ARG), which uniform bins never read. */
#if !defined(IH_GLSL) || defined(IH_EDGE_KEY)
IH_FN IH_U32 ih_args_classify_int(IH_U32 v, ih_bin_args a IH_EDGES_PARAM)
{
    if (a.edges != IH_U(0)) return ih_classify_edge_key(v, a.bins, a.clamp IH_EDGES_ARG(ih_edge_keys));
    return ih_classify_int(v, a.int_mode, a.shift, a.bins, ih_args_lo_int(a), ih_args_hi_int(a), a.clamp);
}
IH_FN IH_U32 ih_args_classify_float(float v, ih_bin_args a IH_EDGES_PARAM)
{
    if (a.edges != IH_U(0)) return ih_classify_float_edges(v, a.bins, a.clamp IH_EDGES_ARG(ih_edge_keys));
    return ih_classify_float(v, a.bins, a.lo_float, a.scale_float, a.lo_key, a.hi_key, a.closed_top, a.clamp);
}
#endif
IH_FN IH_U32 ih_args_luma_int(IH_U32 r, IH_U32 g, IH_U32 b, ih_bin_args a)
{
    return ih_luma_int(r, g, b, a.weight_int_r, a.weight_int_g, a.weight_int_b);
}
IH_FN float ih_args_luma_float(float r, float g, float b, ih_bin_args a)
{
    return ih_luma_float(r, g, b, a.weight_float_r, a.weight_float_g, a.weight_float_b);
}

#endif /* IMGHIST_CONTRACT_KERNEL_ARGS_H */
