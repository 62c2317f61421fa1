/* The OpenCL kernels' helpers (histogram.cl, which the build inlines this into): the arguments
 * specialised, sample codes, the local sub-histograms and their merge, pixel indices. */
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

/* The `ps` samples (1, 3 or 4) of type T from sample s of `data` into px, as 32-bit values. */
#define IH_LOAD_SAMPLES(T, T3)                                    \
    do {                                                          \
        global const T* at = (global const T*)data + s;           \
        if (ps == 4u) {                                           \
            px = convert_uint4(vload4(0, at));                    \
        } else if (ps == 3u) {                                    \
            const T3 t = vload3(0, at);                           \
            px = (uint4)(t.x, t.y, t.z, 0u);                      \
        } else {                                                  \
            px.x = at[0];                                         \
        }                                                         \
    } while (0)

/* The samples of one pixel as raw 32-bit values (integers, half bits or float bits). */
IH_INLINE uint4 ih_load_pixel(global const uchar* data, ulong s, uint ps, const uint st)
{
    uint4 px = (uint4)(0u);
    if (st == IH_T_U8) IH_LOAD_SAMPLES(uchar, uchar3);
    else if (st == IH_T_U16 || st == IH_T_F16) IH_LOAD_SAMPLES(ushort, ushort3);
    else IH_LOAD_SAMPLES(uint, uint3);
    return px;
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

/* The float value of one channel of one float pixel: a sample widened, or the float luminance. */
IH_INLINE float ih_float_value(uint4 px, uint src, IH_PARAMS, const uint st)
{
    if (src != IH_SRC_LUMA) return ih_as_float(ih_pick(px, src), st);
    return ih_args_luma_float(ih_as_float(ih_pick(px, ih_args_red(a)), st),
                              ih_as_float(ih_pick(px, ih_args_green(a)), st),
                              ih_as_float(ih_pick(px, ih_args_blue(a)), st), a);
}

/* The classify code (contract/binning.h) of one channel of one pixel. */
IH_INLINE uint ih_code(uint4 px, uint src, IH_PARAMS, const uint st)
{
    if (st == IH_T_F16 || st == IH_T_F32) {
        const float v = ih_float_value(px, src, IH_ARGS, st);
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
