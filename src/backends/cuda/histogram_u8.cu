// 8-bit kernels (gray8, rgb8, rgba8/bgra8): the hot path, specialised on the counter layout.
#include "histogram_kernels.cuh"

namespace imghist::cuda_detail::kernels {

KernelFn kernels_u8(int channels, int layout) {
    switch (layout) {
        case kLanes32: return pick<kU8, kLanes32>(channels);
        case kLanes16: return pick<kU8, kLanes16>(channels);
        default: return pick<kU8, kAnyLayout>(channels);
    }
}

KernelFn selected_u8(int channels) { return pick_selected<kU8>(channels); }

namespace {
template <int Channels, int NCH, bool kSelect>
KernelFn packed_for(bool luma) {
    if constexpr (Channels == 1) return luma ? nullptr : packed_kernel<kU8, 1, NCH, 0, kSelect>;  // gray: no luminance
    else return luma ? packed_kernel<kU8, Channels, NCH, 1, kSelect> : packed_kernel<kU8, Channels, NCH, 0, kSelect>;
}

template <bool kSelect>
KernelFn packed_u8_of(int channels, int nch, bool luma) {
    if (channels == 1) return nch == 1 ? packed_for<1, 1, kSelect>(luma) : nullptr;
    if (channels != 4) return nullptr;
    switch (nch) {
        case 1: return packed_for<4, 1, kSelect>(luma);
        case 2: return packed_for<4, 2, kSelect>(luma);
        case 3: return packed_for<4, 3, kSelect>(luma);
        case 4: return packed_for<4, 4, kSelect>(luma);
        case 5: return packed_for<4, 5, kSelect>(luma);
        default: return nullptr;
    }
}
}  // namespace

KernelFn packed_u8(int channels, int nch, bool luma, bool select) {
    return select ? packed_u8_of<true>(channels, nch, luma) : packed_u8_of<false>(channels, nch, luma);
}

}  // namespace imghist::cuda_detail::kernels
