/*
 * imghist OpenCL kernels (OpenCL C 1.2). The build inlines imghist/binning.h here
 * (cmake/embed_file.cmake, INLINE_INCLUDES), so every bin decision is binning.h's.
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
 * Every parameter is a kernel argument. A program built with -D IH_C_<NAME>=value options
 * (the host does this on GPUs, and for VALUE, SWIZZLE and LOADS everywhere) turns the matching
 * parameter into a compile-time constant; the code is the same text either way.
 *
 * Pixels are read from plain buffers, never through samplers: NVIDIA's driver returns zeros
 * for the seed's inline-sampler read_imagef, and unorm-to-float conversion loses the integer.
 */
#include "contract/contract.h"

#define IH_T_U8 0u
#define IH_T_U16 1u
#define IH_T_F16 2u
#define IH_T_F32 3u
#define IH_SRC_LUMA 15u

/* ---- parameters ------------------------------------------------------------------------
 * p (uint16), filled by the host (opencl_backend.cpp, pack_params):
 *   s0 width (pixels per row, row mode)   s1 row stride in samples   s2 packed rows (0/1)
 *   s3 samples per pixel                  s4 channels in this pass   s5 sources, 4 bits each
 *   s6 bins   s7 int_mode   s8 shift   s9 lo_key   sa hi_key   sb closed_top   sc clamp
 *   sd lo (float bits)   se scale (float bits)   sf red | green << 4 | blue << 8
 * q (uint8): s0..s2 integer luma weights, s3..s5 float luma weights (bits),
 *   s6 local slots per channel, s7 first global slot of this pass
 * l (uint8): s0 copies, s1 pack (0, 1, 2: see above), s2 merge by atomics (1) or partials (0),
 *   s3 local words per copy, s4 value mode (0/1), s5 16-byte loads in flight (2 or 4),
 *   s6 value swizzle (0/1)
 * range (long2): lo_int, hi_int
 */
#define IH_PARAMS uint16 p, uint8 q, uint8 l, long2 range

#ifdef IH_C_NCH
#define IH_NCH IH_C_NCH
#else
#define IH_NCH p.s4
#endif
#ifdef IH_C_SOURCES
#define IH_SOURCES IH_C_SOURCES
#else
#define IH_SOURCES p.s5
#endif
#ifdef IH_C_BINS
#define IH_BINS IH_C_BINS
#else
#define IH_BINS p.s6
#endif
#ifdef IH_C_INT_MODE
#define IH_INT_MODE IH_C_INT_MODE
#else
#define IH_INT_MODE p.s7
#endif
#ifdef IH_C_SHIFT
#define IH_SHIFT IH_C_SHIFT
#else
#define IH_SHIFT p.s8
#endif
#ifdef IH_C_RGB
#define IH_RGB IH_C_RGB
#else
#define IH_RGB p.sf
#endif
#ifdef IH_C_LSPC
#define IH_LSPC IH_C_LSPC
#else
#define IH_LSPC q.s6
#endif
#ifdef IH_C_COPIES
#define IH_COPIES IH_C_COPIES
#else
#define IH_COPIES l.s0
#endif
#ifdef IH_C_PACK
#define IH_PACK IH_C_PACK
#else
#define IH_PACK l.s1
#endif
#ifdef IH_C_MERGE
#define IH_MERGE IH_C_MERGE
#else
#define IH_MERGE l.s2
#endif
#ifdef IH_C_VALUE
#define IH_VALUE IH_C_VALUE
#else
#define IH_VALUE l.s4
#endif
#ifdef IH_C_SWIZZLE
#define IH_SWIZZLE IH_C_SWIZZLE
#else
#define IH_SWIZZLE l.s6
#endif
#ifdef IH_C_LOADS
#define IH_LOADS IH_C_LOADS
#else
#define IH_LOADS l.s5
#endif

inline uint ih_pick(uint4 px, uint i)
{
    return (i == 0u) ? px.x : (i == 1u) ? px.y : (i == 2u) ? px.z : px.w;
}

/* A sample as float: f32 samples hold their bits, f16 samples their half bits. */
inline float ih_as_float(uint raw, const uint st)
{
    return as_float(st == IH_T_F16 ? ih_half_to_float_bits(raw) : raw);
}

/* The integer value of one channel of one pixel: a sample, or the integer luminance. */
inline uint ih_int_value(uint4 px, uint src, IH_PARAMS)
{
    if (src != IH_SRC_LUMA) return ih_pick(px, src);
    const uint rgb = IH_RGB;
    return ih_luma_int(ih_pick(px, rgb & 15u), ih_pick(px, (rgb >> 4) & 15u),
                       ih_pick(px, (rgb >> 8) & 15u), q.s0, q.s1, q.s2);
}

/* The classify code (binning.h) of one channel of one pixel. */
inline uint ih_code(uint4 px, uint src, IH_PARAMS, const uint st)
{
    if (st == IH_T_F16 || st == IH_T_F32) {
        float v;
        if (src == IH_SRC_LUMA) {
            const uint rgb = IH_RGB;
            v = ih_luma_float(ih_as_float(ih_pick(px, rgb & 15u), st),
                              ih_as_float(ih_pick(px, (rgb >> 4) & 15u), st),
                              ih_as_float(ih_pick(px, (rgb >> 8) & 15u), st), as_float(q.s3),
                              as_float(q.s4), as_float(q.s5));
        } else {
            v = ih_as_float(ih_pick(px, src), st);
        }
        return ih_classify_float(v, IH_BINS, as_float(p.sd), as_float(p.se), p.s9, p.sa, p.sb,
                                 p.sc);
    }
    return ih_classify_int(ih_int_value(px, src, p, q, l, range), IH_INT_MODE, IH_SHIFT, IH_BINS,
                           range.x, range.y, p.sc);
}

/* Where work-item `lid` counts: its copy (k) and, for lane pairs, its half of the word (inc). */
inline uint ih_copy(uint lid, IH_PARAMS)
{
    return ((IH_PACK == 2u) ? (lid >> 1) : lid) & (IH_COPIES - 1u);
}
inline uint ih_lane_inc(uint lid, IH_PARAMS)
{
    return (IH_PACK == 2u) ? (1u << ((lid & 1u) << 4)) : 1u;
}

/* One count into local slot `slot` of copy `k`; `inc` is ih_lane_inc's. */
inline void ih_local_add(local uint* h, uint slot, uint k, uint inc, IH_PARAMS)
{
    const uint word = (IH_PACK == 1u) ? (slot >> 1) : slot;
    atomic_add(&h[word * IH_COPIES + k], (IH_PACK == 1u) ? (1u << ((slot & 1u) << 4)) : inc);
}

/* Value mode: the local slot of value v within its channel. With the swizzle, the low three
 * bits are XOR-ed with the top three, so values 32 apart (b, b + 32, ..., b + 224, which would
 * put every lane of a warp on one bank of one copy) land on 8 banks. It is its own inverse:
 * the merge maps a slot back to its value the same way. */
inline uint ih_value_slot(uint v, IH_PARAMS)
{
    return (IH_SWIZZLE != 0u) ? (v ^ (v >> 5)) : v;
}

/* Counts every channel of this pass for one pixel. */
inline void ih_count_pixel(local uint* h, uint4 px, uint k, uint inc, IH_PARAMS, const uint st)
{
    const uint sources = IH_SOURCES;
    if (st == IH_T_U8 && IH_VALUE != 0u) {
        for (uint c = 0u; c < IH_NCH; ++c)
            ih_local_add(h, c * 256u + ih_value_slot(ih_int_value(px, (sources >> (4u * c)) & 15u, p, q, l, range),
                                                      p, q, l, range),
                         k, inc, p, q, l, range);
        return;
    }
    for (uint c = 0u; c < IH_NCH; ++c) {
        const uint code = ih_code(px, (sources >> (4u * c)) & 15u, p, q, l, range, st);
        const uint base = c * IH_LSPC;
        ih_local_add(h, base + (code & IH_SLOT_MASK), k, inc, p, q, l, range);
        const uint extra = code >> IH_EXTRA_SHIFT;
        if (extra != 0u) ih_local_add(h, base + IH_BINS + extra, k, inc, p, q, l, range);
    }
}

inline void ih_local_clear(local uint* h, IH_PARAMS)
{
    const uint total = l.w * IH_COPIES;
    for (uint i = get_local_id(0); i < total; i += get_local_size(0)) h[i] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Adds n counts of a classify code to one channel's slots (o: its bin 0), by binning.h's rule. */
inline void ih_add_code(global uint* o, uint code, uint n, IH_PARAMS)
{
    atomic_add(&o[code & IH_SLOT_MASK], n);
    const uint extra = code >> IH_EXTRA_SHIFT;
    if (extra != 0u) atomic_add(&o[IH_BINS + extra], n);
}

/* Adds n counts of local slot s to this pass's slots of the global layout (bins + 3 per
 * channel). In value mode s is channel * 256 + value, and the value is classified here. */
inline void ih_add_counts(global uint* out, uint s, uint n, IH_PARAMS)
{
    const uint c = s / IH_LSPC;
    global uint* o = out + q.s7 + c * (IH_BINS + IH_EXTRA_SLOTS);
    const uint code = (IH_VALUE != 0u) ? ih_classify_int(ih_value_slot(s - c * IH_LSPC, p, q, l, range), IH_INT_MODE,
                                                         IH_SHIFT, IH_BINS, range.x, range.y, p.sc)
                                       : s - c * IH_LSPC;
    ih_add_code(o, code, n, p, q, l, range);
}

inline void ih_emit(global uint* out, uint s, uint v, IH_PARAMS)
{
    if (IH_MERGE != 0u) {
        if (v != 0u) ih_add_counts(out, s, v, p, q, l, range);
    } else {
        out[get_group_id(0) * (IH_NCH * IH_LSPC) + s] = v;
    }
}

/* Sums the copies of every local slot and hands the work-group's counts on. */
inline void ih_local_flush(local uint* h, global uint* out, IH_PARAMS)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint nslots = IH_NCH * IH_LSPC;
    const uint nwords = l.w;
    const uint copies = IH_COPIES;
    for (uint w = get_local_id(0); w < nwords; w += get_local_size(0)) {
        uint lo = 0u, hi = 0u;
        local const uint* row = h + w * copies;
        for (uint j = 0u; j < copies; ++j) {
            /* Rotated start: neighbouring work-items read different banks. */
            const uint v = row[(j + w) & (copies - 1u)];
            if (IH_PACK != 0u) {
                lo += v & 0xFFFFu;
                hi += v >> 16;
            } else {
                lo += v;
            }
        }
        if (IH_PACK == 1u) {
            ih_emit(out, 2u * w, lo, p, q, l, range);
            if (2u * w + 1u < nslots) ih_emit(out, 2u * w + 1u, hi, p, q, l, range);
        } else {
            /* Lane pairs: both halves count slot w. */
            ih_emit(out, w, lo + hi, p, q, l, range);
        }
    }
}

/* The sample index of pixel i of a launch: packed pixels from pixel `first`, or rows of
 * `width` pixels, `stride` samples apart, from row `first`. */
inline ulong ih_sample_index(ulong base, ulong first, uint i, IH_PARAMS)
{
    if (p.s2 != 0u) return base + (first + (ulong)i) * (ulong)p.s3;
    const uint y = i / p.s0;
    const uint x = i - y * p.s0;
    return base + (first + (ulong)y) * (ulong)p.s1 + (ulong)x * (ulong)p.s3;
}

/* The samples of one pixel as raw 32-bit values (integers, half bits or float bits). */
inline uint4 ih_load_pixel(global const uchar* data, ulong s, uint ps, const uint st)
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
    kernel void NAME(global const uchar* data, ulong base, ulong first, uint count, IH_PARAMS, \
                     local uint* h, global uint* out)                                            \
    {                                                                                            \
        ih_local_clear(h, p, q, l, range);                                                       \
        const uint k = ih_copy(get_local_id(0), p, q, l, range);                                 \
        const uint inc = ih_lane_inc(get_local_id(0), p, q, l, range);                           \
        for (uint i = get_global_id(0); i < count; i += get_global_size(0)) {                  \
            const uint4 px = ih_load_pixel(data, ih_sample_index(base, first, i, p, q, l, range), \
                                           p.s3, ST);                                            \
            ih_count_pixel(h, px, k, inc, p, q, l, range, ST);                                   \
        }                                                                                        \
        ih_local_flush(h, out, p, q, l, range);                                                  \
    }

IH_HIST_LOCAL(ih_hist_u8, IH_T_U8)
IH_HIST_LOCAL(ih_hist_u16, IH_T_U16)
IH_HIST_LOCAL(ih_hist_f16, IH_T_F16)
IH_HIST_LOCAL(ih_hist_f32, IH_T_F32)

/* The RGBA8 pixel in one 32-bit word. */
inline uint4 ih_unpack_u8x4(uint v)
{
    return (uint4)(v & 0xFFu, (v >> 8) & 0xFFu, (v >> 16) & 0xFFu, v >> 24);
}

/* Counts the four RGBA8 pixels of one 16-byte vector. */
inline void ih_count_u8x4(local uint* h, uint4 v, uint k, uint inc, IH_PARAMS)
{
    ih_count_pixel(h, ih_unpack_u8x4(v.x), k, inc, p, q, l, range, IH_T_U8);
    ih_count_pixel(h, ih_unpack_u8x4(v.y), k, inc, p, q, l, range, IH_T_U8);
    ih_count_pixel(h, ih_unpack_u8x4(v.z), k, inc, p, q, l, range, IH_T_U8);
    ih_count_pixel(h, ih_unpack_u8x4(v.w), k, inc, p, q, l, range, IH_T_U8);
}

/* ---- 8-bit, 4 samples per pixel, packed rows, 16-byte aligned: 4 pixels per load ----------
 * `first` is a multiple of 4 pixels; vbase is the buffer offset in 16-byte units. */
kernel void ih_hist_u8x4(global const uint4* data, ulong vbase, ulong first, uint count,
                         IH_PARAMS, local uint* h, global uint* out)
{
    ih_local_clear(h, p, q, l, range);
    const uint k = ih_copy(get_local_id(0), p, q, l, range);
    const uint inc = ih_lane_inc(get_local_id(0), p, q, l, range);
    const uint nvec = count >> 2;
    global const uint4* d = data + vbase + (first >> 2);
    const uint gsize = get_global_size(0);
    const uint loads = IH_LOADS;
    uint i = get_global_id(0);
    /* `loads` (2 or 4) 16-byte loads in flight before their local atomics. */
    for (; i + (loads - 1u) * gsize < nvec; i += loads * gsize) {
        const uint4 a = d[i];
        const uint4 b = d[i + gsize];
        uint4 c = (uint4)(0u), e = (uint4)(0u);
        if (loads == 4u) {
            c = d[i + 2u * gsize];
            e = d[i + 3u * gsize];
        }
        ih_count_u8x4(h, a, k, inc, p, q, l, range);
        ih_count_u8x4(h, b, k, inc, p, q, l, range);
        if (loads == 4u) {
            ih_count_u8x4(h, c, k, inc, p, q, l, range);
            ih_count_u8x4(h, e, k, inc, p, q, l, range);
        }
    }
    for (; i < nvec; i += gsize) ih_count_u8x4(h, d[i], k, inc, p, q, l, range);
    /* The last count % 4 pixels, one per work-item. */
    const uint gid = get_global_id(0);
    if (gid < (count & 3u)) {
        const uint v = ((global const uint*)(d + nvec))[gid];
        ih_count_pixel(h, ih_unpack_u8x4(v), k, inc, p, q, l, range, IH_T_U8);
    }
    ih_local_flush(h, out, p, q, l, range);
}

/* ---- no local memory (bins x channels larger than the device's local memory) --------------
 * Counts straight into the launch's 32-bit result with global atomics. Slow, but exact. */
#define IH_HIST_GLOBAL(NAME, ST)                                                                 \
    kernel void NAME(global const uchar* data, ulong base, ulong first, uint count, IH_PARAMS, \
                     global uint* out)                                                           \
    {                                                                                            \
        const uint sources = IH_SOURCES;                                                         \
        for (uint i = get_global_id(0); i < count; i += get_global_size(0)) {                  \
            const uint4 px = ih_load_pixel(data, ih_sample_index(base, first, i, p, q, l, range), \
                                           p.s3, ST);                                            \
            for (uint c = 0u; c < IH_NCH; ++c) {                                                 \
                const uint code = ih_code(px, (sources >> (4u * c)) & 15u, p, q, l, range, ST);  \
                ih_add_code(out + q.s7 + c * (IH_BINS + IH_EXTRA_SLOTS), code, 1u, p, q, l, range); \
            }                                                                                    \
        }                                                                                        \
    }

IH_HIST_GLOBAL(ih_hist_global_u8, IH_T_U8)
IH_HIST_GLOBAL(ih_hist_global_u16, IH_T_U16)
IH_HIST_GLOBAL(ih_hist_global_f16, IH_T_F16)
IH_HIST_GLOBAL(ih_hist_global_f32, IH_T_F32)

/* ---- merging ------------------------------------------------------------------------------
 * The seed's summing kernel (Listing 14.3), with its 14.6 defects fixed: one work-item per
 * local slot, adding that slot over every work-group's partial histogram. */
kernel void ih_sum_partials(global const uint* partials, uint groups, IH_PARAMS, global uint* out)
{
    const uint s = get_global_id(0);
    const uint nslots = IH_NCH * IH_LSPC;
    if (s >= nslots) return;
    uint sum = 0u;
    for (uint g = 0u; g < groups; ++g) sum += partials[g * nslots + s];
    /* Atomic: in value mode several values land in one bin. */
    if (sum != 0u) ih_add_counts(out, s, sum, p, q, l, range);
}

/* 64-bit totals across launches; clears the 32-bit result for the next one. */
kernel void ih_accumulate64(global uint* result, global ulong* totals, uint n)
{
    const uint i = get_global_id(0);
    if (i >= n) return;
    totals[i] += (ulong)result[i];
    result[i] = 0u;
}
