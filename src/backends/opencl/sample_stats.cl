/*
 * imghist OpenCL sample-statistics kernels (OpenCL C 1.2), the device side of
 * SlotCounter::accumulate_sample_sums_device and accumulate_key_lows_device
 * (src/core/device_sample_stats.cpp, opencl_sample_stats.cpp). The build inlines the contract
 * and the histogram kernels' helpers here (cmake/embed_file.cmake, INLINE_INCLUDES), so the
 * pixels, the mask and alpha test, the codes, the luminance and the exact-sum rules are the
 * ones the histogram and the host pass use (contract/exact_sum.h, binning.h, luminance.h).
 * The host builds this program with -D IH_SELECT (histogram_select.cl's helpers); without a
 * mask or an alpha threshold the selection's arguments select every pixel.
 *
 * Counters are 64-bit, each two 32-bit words (low, then high) of global memory: OpenCL 1.2 has
 * no 64-bit atomics without an extension. ih_add64 adds to the low word atomically and carries
 * into the high word when that add wrapped: each add sees its own old value, so the carries
 * counted are exactly the wraps, in any order. No counter therefore overflows before 2^64,
 * whatever the image's size.
 *
 * The first pass gathers what few counters take most adds in the work-group's local memory
 * (`local_words` > 0; the host passes 0 where they do not fit): the 256 codes of each 8-bit
 * channel as 32-bit counters, which cannot wrap (a launch has fewer than 2^31 pixels,
 * plan_tiles), and a float channel's bucket sums and infinities as 64-bit pairs carried as in
 * global memory (Σm of one bucket passes 2^32 after 512 samples of 1.0). Each work-group adds
 * its non-zero local counters to the global ones at its end. 16-bit and half codes and the
 * top-16 key counts (65,536 a channel) stay in global memory.
 *
 * Each launch counts `count` pixels of rows (launch_args.width pixels, launch_args.stride
 * samples apart) from sample `base`; its mask bytes from `mask_base`, rows sel.mask_pitch apart.
 */
#include "contract/contract.h"
#include "backends/opencl/histogram_counting.cl"
#include "backends/opencl/histogram_select.cl"

IH_INLINE void ih_add64(global uint* counter, uint v)
{
    if (v == 0u) return;
    const uint old = atomic_add(counter, v);
    if (old + v < old) atomic_inc(counter + 1);
}

IH_INLINE void ih_add64_local(local uint* counter, uint v)
{
    if (v == 0u) return;
    const uint old = atomic_add(counter, v);
    if (old + v < old) atomic_inc(counter + 1);
}

/* Adds the 64-bit value high * 2^32 + low to a global counter. */
IH_INLINE void ih_add64_pair(global uint* counter, uint low, uint high)
{
    const uint old = low != 0u ? atomic_add(counter, low) : 0u;
    const uint carry = old + low < old ? 1u : 0u;
    if (high + carry != 0u) atomic_add(counter + 1, high + carry);
}


/* Counter `slot` of a channel's IH_STATS_SLOTS. */
IH_INLINE void ih_stats_add(global uint* channel, uint slot, uint v)
{
    ih_add64(channel + 2u * slot, v);
}

/* A float channel's bucket-sum or infinity slot: in local memory `h` (the channel's words) when
 * `in_local`, else in global memory. A flag, not a null `h`: local memory may start at address 0. */
IH_INLINE void ih_stats_add_sum(global uint* channel, local uint* h, uint in_local, uint slot, uint v)
{
    if (in_local != 0u) ih_add64_local(h + 2u * (slot - IH_STATS_POSITIVE), v);
    else ih_stats_add(channel, slot, v);
}

/* Whether channel `src` of a pixel is counted by its code (integer samples and integer
 * luminance by value, half samples by their bits) rather than summed as fp32 bits. */
IH_INLINE uint ih_stats_by_code(uint src, const uint st)
{
    return st == IH_T_U8 || st == IH_T_U16 || (st == IH_T_F16 && src != IH_SRC_LUMA);
}

/* One sample's first-pass counters (contract/exact_sum.h's layout; core/sample_stats_sums.cpp,
 * FloatSums::add, is the host's rule). NaN adds nothing to the sums. */
IH_INLINE void ih_stats_count(global uint* channel, local uint* h, uint in_local, uint4 px, uint src, IH_PARAMS,
                              const uint st)
{
    if (ih_stats_by_code(src, st)) {
        const uint code = st == IH_T_F16 ? ih_pick(px, src) : ih_int_value(px, src, IH_ARGS);
        if (st == IH_T_U8 && in_local != 0u) atomic_inc(h + code);
        else ih_stats_add(channel, code, 1u);
        return;
    }
    const uint bits = as_uint(ih_float_value(px, src, IH_ARGS, st));
    if (ih_is_finite_bits(bits) == 0u) {
        if (bits == IH_POS_INF_BITS) ih_stats_add_sum(channel, h, in_local, IH_STATS_POS_INF, 1u);
        if (bits == IH_NEG_INF_BITS) ih_stats_add_sum(channel, h, in_local, IH_STATS_NEG_INF, 1u);
        return;
    }
    const uint bucket = ih_sum_bucket(bits), m = ih_sum_mantissa(bits);
    ih_stats_add(channel, ih_float_key(bits) >> 16, 1u);
    ih_stats_add_sum(channel, h, in_local, (ih_sum_negative(bits) != 0u ? IH_STATS_NEGATIVE : IH_STATS_POSITIVE) + bucket, m);
    ih_stats_add_sum(channel, h, in_local, IH_STATS_SQUARES_HIGH + bucket, ih_sum_square_high(m));
    ih_stats_add_sum(channel, h, in_local, IH_STATS_SQUARES_LOW + bucket, ih_sum_square_low(m));
}

/* Clears the work-group's local counters (`words` of them, 0: none). */
IH_INLINE void ih_stats_local_clear(local uint* h, uint words)
{
    for (uint w = get_local_id(0); w < words; w += get_local_size(0)) h[w] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Adds the work-group's non-zero local counters of every channel to the global ones. */
IH_INLINE void ih_stats_local_flush(global uint* sums, local uint* h, uint channels, const uint st)
{
    const uint per_channel = ih_stats_local_words(st);
    if (per_channel == 0u) return;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint entries = st == IH_T_U8 ? per_channel : per_channel / 2u;
    for (uint e = get_local_id(0); e < channels * entries; e += get_local_size(0)) {
        const uint c = e / entries, j = e - c * entries;
        global uint* channel = sums + 2u * c * IH_STATS_SLOTS;
        local const uint* w = h + c * per_channel;
        if (st == IH_T_U8) ih_stats_add(channel, j, w[j]);
        else if ((w[2u * j] | w[2u * j + 1u]) != 0u) ih_add64_pair(channel + 2u * (IH_STATS_POSITIVE + j), w[2u * j], w[2u * j + 1u]);
    }
}

/* The index of `top` in the ascending targets[begin, end), or end when it is not one. */
IH_INLINE uint ih_find_target(global const uint* targets, uint begin, uint end, uint top)
{
    uint lo = begin, hi = end;
    while (lo < hi) {
        const uint mid = (lo + hi) >> 1;
        if (targets[mid] < top) lo = mid + 1u;
        else hi = mid;
    }
    return lo < end && targets[lo] == top ? lo : end;
}

/* One sample's second-pass counter: the low 16 key bits of a finite float sample whose top 16
 * bits are one of its channel's targets. `targets` holds the channels' first target indices
 * (channels + 1 of them), then the targets; target t's 65,536 counters start at t * 65536. */
IH_INLINE void ih_lows_count(global uint* lows, global const uint* targets, uint c, uint4 px, uint src, IH_PARAMS,
                             const uint st)
{
    const uint begin = targets[c], end = targets[c + 1u];
    if (begin == end) return;
    const uint bits = as_uint(ih_float_value(px, src, IH_ARGS, st));
    if (ih_is_finite_bits(bits) == 0u) return;
    const uint key = ih_float_key(bits);
    const uint t = ih_find_target(targets + a.channels + 1u, begin, end, key >> 16);
    if (t != end) ih_add64(lows + 2u * (t * 65536u + (key & 0xFFFFu)), 1u);
}

/* The walk both passes share: every selected pixel of the launch, each plan channel counted by
 * COUNT_CHANNEL(c, px). */
#define IH_STATS_WALK(ST, COUNT_CHANNEL)                                                          \
    IH_SPECIALISE;                                                                                \
    const ih_cl_select sel = ih_specialised_select(select_args);                                 \
    for (uint i = get_global_id(0); i < count; i += get_global_size(0)) {                        \
        const uint4 px = ih_load_pixel(data, ih_sample_index(base, 0ul, i, IH_ARGS), ln.pixel_samples, ST); \
        const ulong mask_at = ih_pixel_index(mask_base, 0ul, i, sel.mask_pitch, 1u, IH_ARGS);      \
        if (ih_selected(ih_mask_byte(mask, mask_at, sel), px, sel, ST) == 0u) continue;          \
        for (uint c = 0u; c < a.channels; ++c) COUNT_CHANNEL(c, px);                             \
    }

#define IH_STATS_PARAMS                                                                           \
    global const uchar *data, ulong base, uint count, IH_KERNEL_ARGS, global const uchar *mask,  \
        ulong mask_base, const ih_cl_select select_args

#define IH_SUMS_CHANNEL(C, PX)                                                                 \
    ih_stats_count(sums + 2u * (C) * IH_STATS_SLOTS, h + (C) * ih_stats_local_words(ST), in_local, PX, \
                   ih_args_source(a, C), IH_ARGS, ST)
#define IH_LOWS_CHANNEL(C, PX) ih_lows_count(lows, targets, C, PX, ih_args_source(a, C), IH_ARGS, ST)

#define IH_STATS_KERNELS(SUFFIX, TYPE)                                                            \
    kernel void ih_stats_sums_##SUFFIX(IH_STATS_PARAMS, global uint* sums, local uint* local_counters, \
                                       uint local_words)                                          \
    {                                                                                             \
        const uint ST = TYPE;                                                                     \
        local uint* h = local_counters;                                                           \
        const uint in_local = local_words != 0u;                                                  \
        ih_stats_local_clear(local_counters, local_words);                                       \
        IH_STATS_WALK(ST, IH_SUMS_CHANNEL)                                                        \
        if (in_local != 0u) ih_stats_local_flush(sums, h, a.channels, ST);                        \
    }                                                                                             \
    kernel void ih_stats_lows_##SUFFIX(IH_STATS_PARAMS, global const uint* targets, global uint* lows) \
    {                                                                                             \
        const uint ST = TYPE;                                                                     \
        IH_STATS_WALK(ST, IH_LOWS_CHANNEL)                                                        \
    }

IH_STATS_KERNELS(u8, IH_T_U8)
IH_STATS_KERNELS(u16, IH_T_U16)
IH_STATS_KERNELS(f16, IH_T_F16)
IH_STATS_KERNELS(f32, IH_T_F32)
