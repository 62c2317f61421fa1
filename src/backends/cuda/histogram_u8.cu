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

}  // namespace imghist::cuda_detail::kernels
