/* The OpenCL kernels' selection variant (histogram.cl, which the build inlines this into). */
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
