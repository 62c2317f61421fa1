// float kernels (gray, rgb, rgba): every sample classified, any counter layout; the packed fast
// path for gray and rgba.
#include "histogram_kernels.cuh"

namespace imghist::cuda_detail::kernels {

KernelFn kernels_f32(int channels) { return pick<kF32, kAnyLayout>(channels); }
KernelFn selected_f32(int channels) { return pick_selected<kF32>(channels); }
KernelFn packed_f32(int channels, int nch, bool luma, bool select) {
    return select ? packed_float<kF32, true>(channels, nch, luma) : packed_float<kF32>(channels, nch, luma);
}

}  // namespace imghist::cuda_detail::kernels
