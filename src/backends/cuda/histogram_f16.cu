// half float kernels (gray, rgb, rgba): every sample classified, any counter layout; the packed
// fast path for gray and rgba.
#include "histogram_kernels.cuh"

namespace imghist::cuda_detail::kernels {

KernelFn kernels_f16(int channels) { return pick<kF16, kAnyLayout>(channels); }
KernelFn selected_f16(int channels) { return pick_selected<kF16>(channels); }
KernelFn packed_f16(int channels, int nch, bool luma, bool select) {
    return select ? packed_float<kF16, true>(channels, nch, luma) : packed_float<kF16>(channels, nch, luma);
}

}  // namespace imghist::cuda_detail::kernels
