// float kernels (gray, rgb, rgba): every sample classified, any counter layout.
#include "histogram_kernels.cuh"

namespace imghist::cuda_detail::kernels {

KernelFn kernels_f32(int channels) { return pick<kF32, kAnyLayout>(channels); }

}  // namespace imghist::cuda_detail::kernels
