// half float kernels (gray, rgb, rgba): every sample classified, any counter layout.
#include "histogram_kernels.cuh"

namespace imghist::cuda_detail::kernels {

KernelFn kernels_f16(int channels) { return pick<kF16, kAnyLayout>(channels); }

}  // namespace imghist::cuda_detail::kernels
