// 16-bit unorm kernels (gray, rgb, rgba): every sample classified, any counter layout.
#include "histogram_kernels.cuh"

namespace imghist::cuda_detail::kernels {

KernelFn kernels_u16(int channels) { return pick<kU16, kAnyLayout>(channels); }
KernelFn selected_u16(int channels) { return pick_selected<kU16>(channels); }

}  // namespace imghist::cuda_detail::kernels
