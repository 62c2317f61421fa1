// Masks and alpha thresholds on device images (CudaEngine::gather_device): the selected pixels
// packed into one row, which the engine then counts like any device image. Each warp numbers its
// selected pixels by ballot, each block reserves their place in the output with one atomic.
#include "contract/contract.h"
#include "kernel_params.hpp"

namespace imghist::cuda_detail {
namespace {

constexpr unsigned kGatherBlock = 256;  // a multiple of the warp: every lane takes part in the ballot

__global__ void gather_selected(GatherParams p) {
    __shared__ unsigned int block_count, block_base;
    if (threadIdx.x == 0) block_count = 0;
    __syncthreads();
    const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    bool keep = false;
    const unsigned char* from = nullptr;
    if (i < std::uint64_t(p.width) * p.rows) {
        const std::uint64_t y = i / p.width, x = i - y * p.width;
        from = p.image + y * p.image_pitch + x * p.pixel_bytes;
        keep = p.mask == nullptr || p.mask[y * p.mask_pitch + x] != 0;
        if (keep && p.alpha_kind != IH_ALPHA_ALL) {
            const unsigned char* a = from + p.alpha_at;
            std::uint32_t alpha = a[0];
            if (p.alpha_type != IH_T_U8) alpha |= std::uint32_t(a[1]) << 8;
            if (p.alpha_type == IH_T_F32) alpha |= (std::uint32_t(a[2]) << 16) | (std::uint32_t(a[3]) << 24);
            if (p.alpha_type == IH_T_F16) alpha = ih_half_to_float_bits(alpha);
            keep = ih_alpha_passes(p.alpha_kind, p.alpha_least, alpha) != 0;
        }
    }
    // Warp-aggregated: one shared atomic per warp, each lane's place from the ballot below it.
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int ballot = __ballot_sync(0xffffffffu, keep);
    unsigned int warp_first = 0;
    if (lane == 0 && ballot != 0) warp_first = atomicAdd(&block_count, unsigned(__popc(ballot)));
    warp_first = __shfl_sync(0xffffffffu, warp_first, 0);
    const unsigned int place = warp_first + unsigned(__popc(ballot & ((1u << lane) - 1u)));
    __syncthreads();
    if (threadIdx.x == 0) block_base = block_count != 0 ? atomicAdd(p.selected, block_count) : 0u;
    __syncthreads();
    if (keep) {
        unsigned char* to = p.out + std::uint64_t(block_base + place) * p.pixel_bytes;
        if (p.pixel_bytes == 16 && (reinterpret_cast<std::uintptr_t>(from) & 15) == 0) {
            *reinterpret_cast<uint4*>(to) = *reinterpret_cast<const uint4*>(from);
        } else if ((p.pixel_bytes & 3) == 0 && (reinterpret_cast<std::uintptr_t>(from) & 3) == 0) {
            for (std::uint32_t b = 0; b < p.pixel_bytes; b += 4)
                *reinterpret_cast<std::uint32_t*>(to + b) = *reinterpret_cast<const std::uint32_t*>(from + b);
        } else {
            for (std::uint32_t b = 0; b < p.pixel_bytes; ++b) to[b] = from[b];
        }
    }
}

}  // namespace

cudaError_t launch_gather_selected(const GatherParams& params, cudaStream_t stream) {
    const std::uint64_t pixels = std::uint64_t(params.width) * params.rows;
    const auto blocks = unsigned((pixels + kGatherBlock - 1) / kGatherBlock);
    gather_selected<<<blocks, kGatherBlock, 0, stream>>>(params);
    return cudaGetLastError();
}

}  // namespace imghist::cuda_detail
