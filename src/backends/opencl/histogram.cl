/*
 * imghist OpenCL kernels (OpenCL C 1.2). The build inlines the contract (src/contract/) here
 * (cmake/embed_file.cmake, INLINE_INCLUDES), so every bin decision is the contract's, and this
 * file's parts: the helpers (histogram_counting.cl) and the selection variant (histogram_select.cl).
 *
 * The algorithm is the seed's (Listings 14.2-14.5): each work-group counts its share of the
 * pixels into partial histograms in local memory with local atomics, several pixels per
 * work-item, then merges them into one 32-bit result per launch, either
 *   - by global atomics of its non-zero bins (merge = 1, as in the GLSL seed), or
 *   - by writing a partial histogram per work-group that ih_sum_partials adds up (14.3).
 * The host accumulates the 32-bit results of launches into 64-bit totals (ih_accumulate64),
 * so no 32-bit counter ever sees 2^32 samples.
 *
 * Local layout: `copies` sub-histograms (a power of two up to 32), interleaved word by word.
 *   pack = 0: work-item `lid` counts into copy `lid % copies`, 32-bit counters. With 32 copies
 *             every lane of a warp owns its own memory bank (per-lane 32-bit).
 *   pack = 1: two 16-bit counters of neighbouring slots share a word (half the memory, but a
 *             shift/select per sample).
 *   pack = 2: "lane pairs": work-items 2j and 2j + 1 share copy j % copies, each owning one
 *             16-bit half of every word; the increment is a per-work-item constant, so a sample
 *             costs one address computation and one atomic. With 16 copies at most 2 lanes of
 *             a warp share a bank (4 with 8 copies), and 3 x 256 slots take exactly 48 KiB.
 * The host bounds the pixels per launch so that no 16-bit counter can reach 65536.
 *
 * Value mode (8-bit samples): each channel counts the raw value 0..255 (or the integer
 * luminance, also 0..255) into 256 local slots; the merge classifies each value once
 * (ih_add_counts), so every request runs the same hot loop with no per-sample classification.
 *
 * Every kernel takes two struct arguments: the contract's ih_bin_args (the bin math, filled by
 * HistogramPlan::bin_args) and the backend's ih_cl_launch (src/backends/opencl/opencl_launch.h,
 * in the source string the host puts before this file). A program built with -D IH_C_<NAME>=value
 * options (the host does this on GPUs, and for VALUE, SWIZZLE and LOADS everywhere) turns the
 * matching field into a compile-time constant (ih_specialised_*); the code is the same either way.
 *
 * A program built with -D IH_SELECT is the selection variant (masks and alpha thresholds of
 * device buffers, contract/selection.h): the histogram kernels take four more arguments
 * (IH_SELECT_PARAMS) and count only the pixels the mask byte and the alpha sample select; the
 * others are skipped before any count, NaN included. Each work-item counts the pixels it kept,
 * each work-group adds them with one global atomic into counter sel.count_slot of the launch's
 * 32-bit result, which the host adds into 64-bit totals like any slot. Programs without it are
 * the plain kernels, unchanged.
 *
 * Pixels are read from plain buffers, never through samplers: NVIDIA's driver returns zeros
 * for the seed's inline-sampler read_imagef, and unorm-to-float conversion loses the integer.
 */
#include "contract/contract.h"
#include "backends/opencl/histogram_counting.cl"
#include "backends/opencl/histogram_select.cl"

/* ---- any format, any layout: one pixel per step, `count` pixels per launch ---------------- */
#define IH_HIST_LOCAL(NAME, ST)                                                                  \
    kernel void NAME(global const uchar* data, ulong base, ulong first, uint count, IH_KERNEL_ARGS, \
                     local uint* h, global uint* out IH_SELECT_PARAMS)                           \
    {                                                                                            \
        IH_SELECT_BEGIN;                                                                         \
        IH_LOCAL_BEGIN;                                                                          \
        for (uint i = get_global_id(0); i < count; i += get_global_size(0)) {                  \
            const uint4 px = ih_load_pixel(data, ih_sample_index(base, first, i, IH_ARGS),       \
                                           ln.pixel_samples, ST);                                \
            if (IH_SELECTED(ih_pixel_index(mask_base, first, i, sel.mask_pitch, 1u, IH_ARGS), px, ST)) \
                ih_count_pixel(h, px, k, inc, IH_ARGS, ST);                                      \
        }                                                                                        \
        ih_local_flush(h, out, IH_ARGS);                                                         \
        IH_SELECT_END;                                                                           \
    }

IH_HIST_LOCAL(ih_hist_u8, IH_T_U8)
IH_HIST_LOCAL(ih_hist_u16, IH_T_U16)
IH_HIST_LOCAL(ih_hist_f16, IH_T_F16)
IH_HIST_LOCAL(ih_hist_f32, IH_T_F32)

/* The RGBA8 pixel in one 32-bit word. */
IH_INLINE uint4 ih_unpack_u8x4(uint v)
{
    return (uint4)(v & 0xFFu, (v >> 8) & 0xFFu, (v >> 16) & 0xFFu, v >> 24);
}

/* Counts the four RGBA8 pixels of one 16-byte vector. */
IH_INLINE void ih_count_u8x4(local uint* h, uint4 v, uint k, uint inc, IH_PARAMS)
{
    ih_count_pixel(h, ih_unpack_u8x4(v.x), k, inc, IH_ARGS, IH_T_U8);
    ih_count_pixel(h, ih_unpack_u8x4(v.y), k, inc, IH_ARGS, IH_T_U8);
    ih_count_pixel(h, ih_unpack_u8x4(v.z), k, inc, IH_ARGS, IH_T_U8);
    ih_count_pixel(h, ih_unpack_u8x4(v.w), k, inc, IH_ARGS, IH_T_U8);
}

#ifdef IH_SELECT
/* The selected pixels of the vector v whose mask bytes are `mask4` (ih_mask_bytes4); returns how many. */
IH_INLINE uint ih_count_u8x4_selected(local uint* h, uint4 v, uint mask4, uint k, uint inc,
                                      const ih_cl_select sel, IH_PARAMS)
{
    const uint w[4] = {v.x, v.y, v.z, v.w};
    uint kept = 0u;
    for (uint j = 0u; j < 4u; ++j) {
        const uint4 px = ih_unpack_u8x4(w[j]);
        if (ih_tally(ih_selected((mask4 >> (8u * j)) & 0xFFu, px, sel, IH_T_U8), &kept) != 0u)
            ih_count_pixel(h, px, k, inc, IH_ARGS, IH_T_U8);
    }
    return kept;
}
/* The mask bytes of vector i of the launch (pixels first + 4i ...), loaded beside its pixels;
 * IH_COUNT_U8X4 counts a vector V whose mask bytes are M. */
#define IH_MASK4(I) ih_mask_bytes4(mask, mask_base + first + 4ul * (I), sel)
#define IH_COUNT_U8X4(V, M) kept += ih_count_u8x4_selected(h, V, M, k, inc, sel, IH_ARGS)
#else
#define IH_MASK4(I) 0u
#define IH_COUNT_U8X4(V, M) ih_count_u8x4(h, V, k, inc, IH_ARGS)
#endif

/* ---- 8-bit, 4 samples per pixel, packed rows, 16-byte aligned: 4 pixels per load ----------
 * `first` is a multiple of 4 pixels; vbase is the buffer offset in 16-byte units. */
kernel void ih_hist_u8x4(global const uint4* data, ulong vbase, ulong first, uint count,
                         IH_KERNEL_ARGS, local uint* h, global uint* out IH_SELECT_PARAMS)
{
    IH_SELECT_BEGIN;
    IH_LOCAL_BEGIN;
    const uint nvec = count >> 2;
    global const uint4* d = data + vbase + (first >> 2);
    const uint gsize = get_global_size(0);
    const uint loads = ln.loads;
    uint i = get_global_id(0);
    /* `loads` (2 or 4) 16-byte loads in flight before their local atomics. */
    for (; i + (loads - 1u) * gsize < nvec; i += loads * gsize) {
        const uint4 v0 = d[i];
        const uint4 v1 = d[i + gsize];
        const uint m0 = IH_MASK4(i), m1 = IH_MASK4(i + gsize);
        uint4 v2 = (uint4)(0u), v3 = (uint4)(0u);
        uint m2 = 0u, m3 = 0u;
        if (loads == 4u) {
            v2 = d[i + 2u * gsize];
            v3 = d[i + 3u * gsize];
            m2 = IH_MASK4(i + 2u * gsize);
            m3 = IH_MASK4(i + 3u * gsize);
        }
        IH_COUNT_U8X4(v0, m0);
        IH_COUNT_U8X4(v1, m1);
        if (loads == 4u) {
            IH_COUNT_U8X4(v2, m2);
            IH_COUNT_U8X4(v3, m3);
        }
    }
    for (; i < nvec; i += gsize) IH_COUNT_U8X4(d[i], IH_MASK4(i));
    /* The last count % 4 pixels, one per work-item. */
    const uint gid = get_global_id(0);
    if (gid < (count & 3u)) {
        const uint4 px = ih_unpack_u8x4(((global const uint*)(d + nvec))[gid]);
        if (IH_SELECTED(mask_base + first + 4ul * nvec + gid, px, IH_T_U8)) ih_count_pixel(h, px, k, inc, IH_ARGS, IH_T_U8);
    }
    ih_local_flush(h, out, IH_ARGS);
    IH_SELECT_END;
}

/* ---- no local memory (bins x channels larger than the device's local memory) --------------
 * Counts straight into the launch's 32-bit result with global atomics. Slow, but exact. */
#define IH_HIST_GLOBAL(NAME, ST)                                                                 \
    kernel void NAME(global const uchar* data, ulong base, ulong first, uint count, IH_KERNEL_ARGS, \
                     global uint* out IH_SELECT_PARAMS)                                          \
    {                                                                                            \
        IH_SELECT_BEGIN;                                                                         \
        IH_SPECIALISE;                                                                           \
        for (uint i = get_global_id(0); i < count; i += get_global_size(0)) {                  \
            const uint4 px = ih_load_pixel(data, ih_sample_index(base, first, i, IH_ARGS),       \
                                           ln.pixel_samples, ST);                                \
            if (!IH_SELECTED(ih_pixel_index(mask_base, first, i, sel.mask_pitch, 1u, IH_ARGS), px, ST)) continue; \
            for (uint c = 0u; c < a.channels; ++c) {                                             \
                const uint code = ih_code(px, ih_args_source(a, c), IH_ARGS, ST);                \
                ih_add_code(out + ln.first_slot + c * (a.bins + IH_EXTRA_SLOTS), code, 1u, IH_ARGS); \
            }                                                                                    \
        }                                                                                        \
        IH_SELECT_END;                                                                           \
    }

IH_HIST_GLOBAL(ih_hist_global_u8, IH_T_U8)
IH_HIST_GLOBAL(ih_hist_global_u16, IH_T_U16)
IH_HIST_GLOBAL(ih_hist_global_f16, IH_T_F16)
IH_HIST_GLOBAL(ih_hist_global_f32, IH_T_F32)

/* ---- a tile grid in one launch: one piece (a tile's columns of the launch's rows) per
 * `groups_per_piece` work-groups, counted into that tile's counters by global atomics (merge
 * is 1 in these passes). `base` is the sample index of the launch's first row. */
#define IH_HIST_TILES(NAME, ST)                                                                         \
    kernel void NAME(global const uchar* data, ulong base, const ih_cl_tiles tl, IH_KERNEL_ARGS,           \
                     local uint* h, global uint* out)                                                      \
    {                                                                                                      \
        IH_LOCAL_BEGIN;                                                                                    \
        const uint piece = get_group_id(0) / tl.groups_per_piece;                                          \
        const uint part = get_group_id(0) - piece * tl.groups_per_piece;                                   \
        const uint ty = tl.first_tile_row + piece / tl.tiles_x;                                            \
        const uint tx = piece - (piece / tl.tiles_x) * tl.tiles_x;                                         \
        const uint top = ih_tile_start(ty, tl.area_height, tl.tiles_y);                                    \
        const uint bottom = top + ih_tile_length(ty, tl.area_height, tl.tiles_y);                          \
        const uint y0 = max(top, tl.first_row);                                                            \
        const uint y1 = min(bottom, tl.first_row + tl.rows);                                               \
        const uint x0 = ih_tile_start(tx, ln.width, tl.tiles_x);                                           \
        const uint w = ih_tile_length(tx, ln.width, tl.tiles_x);                                           \
        const uint rows = y1 > y0 ? y1 - y0 : 0u;                                                          \
        /* Pixel i of the piece is row i / w, column i % w: stepped without a division. */                 \
        const uint step = tl.groups_per_piece * get_local_size(0);                                         \
        const uint i0 = part * get_local_size(0) + get_local_id(0);                                        \
        const uint dr = step / w, dx = step - dr * w;                                                      \
        uint r = i0 / w, x = i0 - r * w;                                                                   \
        while (r < rows) {                                                                                 \
            const ulong s = base + (ulong)(y0 - tl.first_row + r) * (ulong)ln.stride +                     \
                            (ulong)(x0 + x) * (ulong)ln.pixel_samples;                                     \
            ih_count_pixel(h, ih_load_pixel(data, s, ln.pixel_samples, ST), k, inc, IH_ARGS, ST);          \
            x += dx;                                                                                       \
            r += dr;                                                                                       \
            if (x >= w) {                                                                                  \
                x -= w;                                                                                    \
                r += 1u;                                                                                   \
            }                                                                                              \
        }                                                                                                  \
        ih_local_flush(h, out + (ulong)(ty * tl.tiles_x + tx) * (ulong)tl.tile_slots, IH_ARGS);          \
    }

IH_HIST_TILES(ih_hist_tiles_u8, IH_T_U8)
IH_HIST_TILES(ih_hist_tiles_u16, IH_T_U16)
IH_HIST_TILES(ih_hist_tiles_f16, IH_T_F16)
IH_HIST_TILES(ih_hist_tiles_f32, IH_T_F32)

/* ---- merging ------------------------------------------------------------------------------
 * The seed's summing kernel (Listing 14.3), with its 14.6 defects fixed: one work-item per
 * local slot, adding that slot over every work-group's partial histogram. */
kernel void ih_sum_partials(global const uint* partials, uint groups, IH_KERNEL_ARGS, global uint* out)
{
    IH_SPECIALISE;
    const uint s = get_global_id(0);
    const uint nslots = a.channels * ln.local_slots;
    if (s >= nslots) return;
    uint sum = 0u;
    for (uint g = 0u; g < groups; ++g) sum += partials[g * nslots + s];
    /* Atomic: in value mode several values land in one bin. */
    if (sum != 0u) ih_add_counts(out, s, sum, IH_ARGS);
}

/* 64-bit totals across launches; clears the 32-bit result for the next one. */
kernel void ih_accumulate64(global uint* result, global ulong* totals, uint n)
{
    const uint i = get_global_id(0);
    if (i >= n) return;
    totals[i] += (ulong)result[i];
    result[i] = 0u;
}
