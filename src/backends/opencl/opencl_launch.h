/*
 * ih_cl_launch: the opencl backend's own kernel argument beside the contract's ih_bin_args
 * (how the pixels of one launch are laid out and how the work-group counts them). Written in
 * the contract's dialect (contract/lang.h) so that the host (opencl_planner.cpp fills it) and
 * histogram.cl read one declaration: the build embeds this file and the host passes it to
 * clCreateProgramWithSource before histogram.cl. Every field is 32-bit, so the layouts agree.
 */
#ifndef IMGHIST_OPENCL_LAUNCH_H
#define IMGHIST_OPENCL_LAUNCH_H

#include "contract/exact_sum.h"
#include "contract/formats.h"
#include "contract/lang.h"

IH_STRUCT(ih_cl_launch) {
    IH_U32 width;         /* row mode: pixels per row */
    IH_U32 stride;        /* row mode: samples from one row to the next */
    IH_U32 packed;        /* 1: pixels follow each other from `first`; 0: rows from row `first` */
    IH_U32 pixel_samples; /* samples per pixel */
    IH_U32 local_slots;   /* local slots per channel */
    IH_U32 first_slot;    /* this pass's first slot of the global result */
    IH_U32 copies;        /* local sub-histograms, a power of two up to 32 */
    IH_U32 pack;          /* 0: 32-bit counters, 1: two slots per word, 2: lane pairs */
    IH_U32 merge;         /* 1: merge by global atomics, 0: partials summed by ih_sum_partials */
    IH_U32 words;         /* local words per copy */
    IH_U32 value;         /* 8-bit value mode (contract/value_mode.h) */
    IH_U32 loads;         /* 16-byte loads in flight (ih_hist_u8x4): 2 or 4 */
    IH_U32 swizzle;       /* value mode: slots swizzled over the banks (ih_value_swizzle) */
} IH_END(ih_cl_launch)

/* A tile grid counted in one launch (ih_hist_tiles_*): the launch's rows of the grid's area,
 * cut into pieces (a tile's columns of those rows, one per tile the rows cross), each counted
 * by `groups_per_piece` work-groups into its tile's counters. The area's width is the launch's
 * `width`; tiles follow the contract's rule (contract/regions.h). */
IH_STRUCT(ih_cl_tiles) {
    IH_U32 tiles_x, tiles_y; /* the grid */
    IH_U32 area_height;      /* rows of the grid's area */
    IH_U32 first_row;        /* the launch's first row, within the area */
    IH_U32 rows;             /* rows in this launch */
    IH_U32 first_tile_row;   /* the grid row of first_row (ih_tile_of) */
    IH_U32 tile_slots;       /* global counters from one tile to the next */
    IH_U32 groups_per_piece;
} IH_END(ih_cl_tiles)

/* A mask and an alpha threshold (contract/selection.h) counted by the selection variant of the
 * histogram kernels (-D IH_SELECT, histogram.cl). */
IH_STRUCT(ih_cl_select) {
    IH_U32 has_mask;      /* 0: every mask byte counts as non-zero */
    IH_U32 mask_pitch;    /* row mode: mask bytes from one row to the next */
    IH_U32 alpha_kind;    /* IH_ALPHA_* */
    IH_U32 alpha_least;
    IH_U32 alpha_sample;  /* the alpha's sample index within the pixel */
    IH_U32 count_slot;    /* the result counter that takes the selected pixels, or IH_CL_NO_COUNT */
} IH_END(ih_cl_select)

/* A pass that leaves the selected count to the launch pass of the first channels. */
#define IH_CL_NO_COUNT IH_U(0xFFFFFFFF)

/* The local words of one channel of sample_stats.cl's first pass, for samples of type st: the
 * 256 codes of an 8-bit channel, or a float channel's bucket sums and infinities (the slots from
 * IH_STATS_POSITIVE on) as 64-bit pairs; none for 16-bit samples, whose codes stay global. Half
 * images reserve the float words for every channel (only their luminance uses them). */
IH_FN IH_U32 ih_stats_local_words(IH_U32 st)
{
    return st == IH_T_U8 ? IH_U(256) : st == IH_T_U16 ? IH_U(0) : IH_U(2) * (IH_STATS_SLOTS - IH_STATS_POSITIVE);
}

#endif /* IMGHIST_OPENCL_LAUNCH_H */
