/*
 * imghist OpenCL kernels (OpenCL C 1.2). The build inlines the contract (src/contract/) here
 * (cmake/embed_file.cmake, INLINE_INCLUDES), so every bin decision is the contract's.
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

/* Helpers take both argument structs, already specialised; IH_ARGS passes them on. They are
 * always inlined: with struct arguments, clang's inliner would otherwise keep the per-vector
 * counting as calls, and the specialised fields would not fold into the hot loop. */
#define IH_INLINE inline __attribute__((always_inline))
#define IH_PARAMS const ih_bin_args a, const ih_cl_launch ln, global const uint* edge_keys
#define IH_ARGS a, ln, edge_keys

/* The arguments with the compile-time fields in place. Each kernel copies its arguments
 * through these once, so every later use of a specialised field is a constant. */
IH_INLINE ih_bin_args ih_specialised_bins(ih_bin_args a)
{
#ifdef IH_C_NCH
    a.channels = IH_C_NCH;
#endif
#ifdef IH_C_SOURCES
    a.sources = IH_C_SOURCES;
#endif
#ifdef IH_C_BINS
    a.bins = IH_C_BINS;
#endif
#ifdef IH_C_INT_MODE
    a.int_mode = IH_C_INT_MODE;
#endif
#ifdef IH_C_SHIFT
    a.shift = IH_C_SHIFT;
#endif
#ifdef IH_C_EDGES
    a.edges = IH_C_EDGES;
#endif
#ifdef IH_C_RGB
    a.luma_sources = IH_C_RGB;
#endif
    return a;
}

IH_INLINE ih_cl_launch ih_specialised_launch(ih_cl_launch ln)
{
#ifdef IH_C_LSPC
    ln.local_slots = IH_C_LSPC;
#endif
#ifdef IH_C_COPIES
    ln.copies = IH_C_COPIES;
#endif
#ifdef IH_C_PACK
    ln.pack = IH_C_PACK;
#endif
#ifdef IH_C_MERGE
    ln.merge = IH_C_MERGE;
#endif
#ifdef IH_C_VALUE
    ln.value = IH_C_VALUE;
#endif
#ifdef IH_C_SWIZZLE
    ln.swizzle = IH_C_SWIZZLE;
#endif
#ifdef IH_C_LOADS
    ln.loads = IH_C_LOADS;
#endif
    return ln;
}

/* The kernels' argument list, and its specialised copies a and ln. edge_keys: the plan's edge
 * keys when a.edges (contract/binning.h, ih_classify_edge_key), then for float samples their
 * code table (ih_code16_table_word; core/plan.hpp, edge_key_words); else one unread word. */
#define IH_KERNEL_ARGS const ih_bin_args bin_args, const ih_cl_launch launch_args, global const uint* edge_keys
#define IH_SPECIALISE                                              \
    const ih_bin_args a = ih_specialised_bins(bin_args);           \
    const ih_cl_launch ln = ih_specialised_launch(launch_args)

/* The start of every kernel that counts into local memory: the specialised arguments, the
 * cleared local histogram, and this work-item's copy (k) and increment (inc). */
#define IH_LOCAL_BEGIN                                      \
    IH_SPECIALISE;                                          \
    ih_local_clear(h, IH_ARGS);                             \
    const uint k = ih_copy(get_local_id(0), IH_ARGS);       \
    const uint inc = ih_lane_inc(get_local_id(0), IH_ARGS)

IH_INLINE uint ih_pick(uint4 px, uint i)
{
    return (i == 0u) ? px.x : (i == 1u) ? px.y : (i == 2u) ? px.z : px.w;
}

/* A sample as float: f16 samples widened exactly, f32 samples as they are. */
IH_INLINE float ih_as_float(uint raw, const uint st)
{
    return as_float(ih_sample_float_bits(raw, st));
}

/* The integer value of one channel of one pixel: a sample, or the integer luminance. */
IH_INLINE uint ih_int_value(uint4 px, uint src, IH_PARAMS)
{
    if (src != IH_SRC_LUMA) return ih_pick(px, src);
    return ih_args_luma_int(ih_pick(px, ih_args_red(a)), ih_pick(px, ih_args_green(a)),
                            ih_pick(px, ih_args_blue(a)), a);
}

/* The classify code (contract/binning.h) of one channel of one pixel. */
IH_INLINE uint ih_code(uint4 px, uint src, IH_PARAMS, const uint st)
{
    if (st == IH_T_F16 || st == IH_T_F32) {
        float v;
        if (src == IH_SRC_LUMA) {
            v = ih_args_luma_float(ih_as_float(ih_pick(px, ih_args_red(a)), st),
                                   ih_as_float(ih_pick(px, ih_args_green(a)), st),
                                   ih_as_float(ih_pick(px, ih_args_blue(a)), st), a);
        } else {
            v = ih_as_float(ih_pick(px, src), st);
        }
        if (a.edges != 0u) {  /* the code table after the keys; most samples need no search */
            const uint bits = as_uint(v);
            return ih_classify_float_code16(v, ih_code16_table_entry(edge_keys[ih_code16_table_word(bits, a.bins)], bits),
                                            a.bins, a.clamp, edge_keys);
        }
        return ih_args_classify_float(v, a, edge_keys);
    }
    return ih_args_classify_int(ih_int_value(px, src, IH_ARGS), a, edge_keys);
}

/* Where work-item `lid` counts: its copy (k) and, for lane pairs, its half of the word (inc). */
IH_INLINE uint ih_copy(uint lid, IH_PARAMS)
{
    return ((ln.pack == 2u) ? (lid >> 1) : lid) & (ln.copies - 1u);
}
IH_INLINE uint ih_lane_inc(uint lid, IH_PARAMS)
{
    return (ln.pack == 2u) ? (1u << ((lid & 1u) << 4)) : 1u;
}

/* One count into local slot `slot` of copy `k`; `inc` is ih_lane_inc's. */
IH_INLINE void ih_local_add(local uint* h, uint slot, uint k, uint inc, IH_PARAMS)
{
    const uint word = (ln.pack == 1u) ? (slot >> 1) : slot;
    atomic_add(&h[word * ln.copies + k], (ln.pack == 1u) ? (1u << ((slot & 1u) << 4)) : inc);
}

/* Value mode: the local slot of value v within its channel (ih_value_swizzle spreads values
 * 32 apart over the banks; the merge maps a slot back to its value the same way). */
IH_INLINE uint ih_value_slot(uint v, IH_PARAMS)
{
    return (ln.swizzle != 0u) ? ih_value_swizzle(v) : v;
}

/* Counts every channel of this pass for one pixel, by the contract's code -> count rule. */
IH_INLINE void ih_count_pixel(local uint* h, uint4 px, uint k, uint inc, IH_PARAMS, const uint st)
{
    if (st == IH_T_U8 && ln.value != 0u) {
        for (uint c = 0u; c < a.channels; ++c)
            ih_local_add(h, c * IH_VALUE_SLOTS + ih_value_slot(ih_int_value(px, ih_args_source(a, c), IH_ARGS), IH_ARGS),
                         k, inc, IH_ARGS);
        return;
    }
    for (uint c = 0u; c < a.channels; ++c) {
        const uint code = ih_code(px, ih_args_source(a, c), IH_ARGS, st);
        const uint base = c * ln.local_slots;
        ih_local_add(h, base + ih_code_slot(code), k, inc, IH_ARGS);
        if (ih_code_has_extra(code) != 0u) ih_local_add(h, base + ih_code_extra_slot(code, a.bins), k, inc, IH_ARGS);
    }
}

IH_INLINE void ih_local_clear(local uint* h, IH_PARAMS)
{
    const uint total = ln.words * ln.copies;
    for (uint i = get_local_id(0); i < total; i += get_local_size(0)) h[i] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Adds n counts of a classify code to one channel's slots (o: its bin 0), by the code -> count rule. */
IH_INLINE void ih_add_code(global uint* o, uint code, uint n, IH_PARAMS)
{
    atomic_add(&o[ih_code_slot(code)], n);
    if (ih_code_has_extra(code) != 0u) atomic_add(&o[ih_code_extra_slot(code, a.bins)], n);
}

/* Adds n counts of local slot s to this pass's slots of the global layout (bins + 3 per
 * channel). In value mode s is channel * 256 + value, and the value is classified here. */
IH_INLINE void ih_add_counts(global uint* out, uint s, uint n, IH_PARAMS)
{
    const uint c = s / ln.local_slots;
    global uint* o = out + ln.first_slot + c * (a.bins + IH_EXTRA_SLOTS);
    const uint local_slot = s - c * ln.local_slots;
    const uint code = (ln.value != 0u) ? ih_args_classify_int(ih_value_slot(local_slot, IH_ARGS), a, edge_keys) : local_slot;
    ih_add_code(o, code, n, IH_ARGS);
}

IH_INLINE void ih_emit(global uint* out, uint s, uint v, IH_PARAMS)
{
    if (ln.merge != 0u) {
        if (v != 0u) ih_add_counts(out, s, v, IH_ARGS);
    } else {
        out[get_group_id(0) * (a.channels * ln.local_slots) + s] = v;
    }
}

/* Sums the copies of every local slot and hands the work-group's counts on. */
IH_INLINE void ih_local_flush(local uint* h, global uint* out, IH_PARAMS)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint nslots = a.channels * ln.local_slots;
    const uint nwords = ln.words;
    const uint copies = ln.copies;
    for (uint w = get_local_id(0); w < nwords; w += get_local_size(0)) {
        uint lo = 0u, hi = 0u;
        local const uint* row = h + w * copies;
        for (uint j = 0u; j < copies; ++j) {
            /* Rotated start: neighbouring work-items read different banks. */
            const uint v = row[(j + w) & (copies - 1u)];
            if (ln.pack != 0u) {
                lo += v & 0xFFFFu;
                hi += v >> 16;
            } else {
                lo += v;
            }
        }
        if (ln.pack == 1u) {
            ih_emit(out, 2u * w, lo, IH_ARGS);
            if (2u * w + 1u < nslots) ih_emit(out, 2u * w + 1u, hi, IH_ARGS);
        } else {
            /* Lane pairs: both halves count slot w. */
            ih_emit(out, w, lo + hi, IH_ARGS);
        }
    }
}

/* The index of pixel i of a launch in an array of `step` elements a pixel: packed pixels from
 * pixel `first`, or rows of `width` pixels, `pitch` elements apart, from row `first`. */
IH_INLINE ulong ih_pixel_index(ulong base, ulong first, uint i, uint pitch, uint step, IH_PARAMS)
{
    if (ln.packed != 0u) return base + (first + (ulong)i) * (ulong)step;
    const uint y = i / ln.width;
    const uint x = i - y * ln.width;
    return base + (first + (ulong)y) * (ulong)pitch + (ulong)x * (ulong)step;
}

/* The sample index of pixel i of a launch (rows `stride` samples apart). */
IH_INLINE ulong ih_sample_index(ulong base, ulong first, uint i, IH_PARAMS)
{
    return ih_pixel_index(base, first, i, ln.stride, ln.pixel_samples, IH_ARGS);
}

/* ---- the selection variant (-D IH_SELECT) -------------------------------------------------
 * IH_SELECT_PARAMS: the mask (sel.has_mask), `mask_base` its byte of the launch's pixel or row
 * 0, rows sel.mask_pitch bytes apart (packed when the image is), and `counts`, the launch's
 * 32-bit result, where sel.count_slot takes the selected pixels. In the kernels:
 *   IH_SELECT_BEGIN      the work-item's and the work-group's selected counts;
 *   IH_SELECTED(...)     whether pixel px (mask byte at MASK_AT) counts, tallied in `kept`;
 *   IH_SELECT_END        the work-group's count added to the result.
 * Without IH_SELECT, IH_SELECTED is 1 and the others are empty. */
#ifdef IH_SELECT
/* The selection with its compile-time fields in place (-D IH_C_HAS_MASK, IH_C_ALPHA_KIND,
 * IH_C_ALPHA_SAMPLE, which the host sets with the others): as arguments, the alpha test was decided
 * per pixel, and an alpha threshold cost NVIDIA's RGBA8 kernel 1.38x the whole image (1.00x as
 * constants; H100, docs/performance.md). */
IH_INLINE ih_cl_select ih_specialised_select(ih_cl_select sel)
{
#ifdef IH_C_HAS_MASK
    sel.has_mask = IH_C_HAS_MASK;
#endif
#ifdef IH_C_ALPHA_KIND
    sel.alpha_kind = IH_C_ALPHA_KIND;
#endif
#ifdef IH_C_ALPHA_SAMPLE
    sel.alpha_sample = IH_C_ALPHA_SAMPLE;
#endif
    return sel;
}

#define IH_SELECT_PARAMS , global const uchar *mask, ulong mask_base, const ih_cl_select select_args, global uint *counts
#define IH_SELECT_BEGIN                                   \
    const ih_cl_select sel = ih_specialised_select(select_args); \
    local uint group_kept;                                \
    uint kept = 0u;                                       \
    if (get_local_id(0) == 0u) group_kept = 0u;           \
    barrier(CLK_LOCAL_MEM_FENCE)
#define IH_SELECTED(MASK_AT, PX, ST) ih_tally(ih_selected(ih_mask_byte(mask, MASK_AT, sel), PX, sel, ST), &kept)
#define IH_SELECT_END ih_add_selected(&group_kept, kept, sel, counts)

/* 1 when a pixel with mask byte `mask_byte` and samples px counts (contract/selection.h);
 * the alpha is the pixel's own sample, f16 widened to the fp32 bits the test takes. */
IH_INLINE uint ih_selected(uint mask_byte, uint4 px, const ih_cl_select sel, const uint st)
{
    if (mask_byte == 0u) return 0u;
    if (sel.alpha_kind == IH_ALPHA_ALL) return 1u;
    const uint alpha = ih_pick(px, sel.alpha_sample);
    return ih_alpha_passes(sel.alpha_kind, sel.alpha_least, st == IH_T_F16 ? ih_half_to_float_bits(alpha) : alpha);
}

/* The mask byte at `at` (non-zero without a mask). */
IH_INLINE uint ih_mask_byte(global const uchar* mask, ulong at, const ih_cl_select sel)
{
    return sel.has_mask != 0u ? (uint)mask[at] : 1u;
}

/* The mask bytes of 4 pixels from `at`, byte j for pixel j: one 32-bit load where aligned (the
 * same for every vector of a launch), else one 4-byte vector load. */
IH_INLINE uint ih_mask_bytes4(global const uchar* mask, ulong at, const ih_cl_select sel)
{
    if (sel.has_mask == 0u) return 0x01010101u;
    if ((at & 3ul) == 0ul) return *(global const uint*)(mask + at);
    return as_uint(vload4(0, mask + at));
}

IH_INLINE uint ih_tally(uint selected, uint* kept)
{
    *kept += selected;
    return selected;
}

IH_INLINE void ih_add_selected(local uint* group_kept, uint kept, const ih_cl_select sel, global uint* counts)
{
    if (kept != 0u) atomic_add(group_kept, kept);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0u && *group_kept != 0u && sel.count_slot != IH_CL_NO_COUNT)
        atomic_add(&counts[sel.count_slot], *group_kept);
}
#else
#define IH_SELECT_PARAMS
#define IH_SELECT_BEGIN
#define IH_SELECTED(MASK_AT, PX, ST) 1u
#define IH_SELECT_END
#endif

/* The samples of one pixel as raw 32-bit values (integers, half bits or float bits). */
IH_INLINE uint4 ih_load_pixel(global const uchar* data, ulong s, uint ps, const uint st)
{
    uint4 px = (uint4)(0u);
    if (st == IH_T_U8) {
        global const uchar* a = data + s;
        if (ps == 4u) {
            px = convert_uint4(vload4(0, a));
        } else if (ps == 3u) {
            const uchar3 t = vload3(0, a);
            px = (uint4)(t.x, t.y, t.z, 0u);
        } else {
            px.x = a[0];
        }
    } else if (st == IH_T_U16 || st == IH_T_F16) {
        global const ushort* a = (global const ushort*)data + s;
        if (ps == 4u) {
            px = convert_uint4(vload4(0, a));
        } else if (ps == 3u) {
            const ushort3 t = vload3(0, a);
            px = (uint4)(t.x, t.y, t.z, 0u);
        } else {
            px.x = a[0];
        }
    } else {
        global const uint* a = (global const uint*)data + s;
        if (ps == 4u) {
            px = vload4(0, a);
        } else if (ps == 3u) {
            const uint3 t = vload3(0, a);
            px = (uint4)(t.x, t.y, t.z, 0u);
        } else {
            px.x = a[0];
        }
    }
    return px;
}

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
