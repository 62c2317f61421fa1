// Masks and alpha thresholds on device images (CudaEngine::gather_device): the selected pixels
// packed into one row, which the engine then counts like any device image. A block takes
// kGatherSteps strips of kGatherBlock pixels; each warp numbers its selected pixels of a strip by
// ballot, and the block reserves the place of all of them in the output with one atomic (one per
// pixel, or per strip, serialised on a single counter, cost more than the rest of the gather).
#include "contract/contract.h"
#include "kernel_params.hpp"

namespace imghist::cuda_detail {
namespace {

constexpr unsigned kGatherBlock = 256;  // a multiple of the warp: every lane takes part in the ballot
constexpr unsigned kGatherWarps = kGatherBlock / 32;
constexpr unsigned kGatherSteps = 16;   // strips a block takes (a bit each in a thread's keep mask)

// Pixel i's first byte, and whether the mask and the alpha test keep it.
__device__ bool selected(const GatherParams& p, std::uint64_t i, const unsigned char** from) {
    if (i >= std::uint64_t(p.width) * p.rows) return false;
    const std::uint64_t y = i / p.width, x = i - y * p.width;
    *from = p.image + y * p.image_pitch + x * p.pixel_bytes;
    if (p.mask != nullptr && p.mask[y * p.mask_pitch + x] == 0) return false;
    if (p.alpha_kind == IH_ALPHA_ALL) return true;
    const unsigned char* a = *from + p.alpha_at;
    std::uint32_t alpha = a[0];
    if (p.alpha_type != IH_T_U8) alpha |= std::uint32_t(a[1]) << 8;
    if (p.alpha_type == IH_T_F32) alpha |= (std::uint32_t(a[2]) << 16) | (std::uint32_t(a[3]) << 24);
    if (p.alpha_type == IH_T_F16) alpha = ih_half_to_float_bits(alpha);
    return ih_alpha_passes(p.alpha_kind, p.alpha_least, alpha) != 0;
}

__device__ void copy_pixel(const unsigned char* from, unsigned char* to, std::uint32_t bytes) {
    if (bytes == 16 && (reinterpret_cast<std::uintptr_t>(from) & 15) == 0) {
        *reinterpret_cast<uint4*>(to) = *reinterpret_cast<const uint4*>(from);
    } else if ((bytes & 3) == 0 && (reinterpret_cast<std::uintptr_t>(from) & 3) == 0) {
        for (std::uint32_t b = 0; b < bytes; b += 4)
            *reinterpret_cast<std::uint32_t*>(to + b) = *reinterpret_cast<const std::uint32_t*>(from + b);
    } else {
        for (std::uint32_t b = 0; b < bytes; ++b) to[b] = from[b];
    }
}

__global__ void gather_selected(GatherParams p) {
    __shared__ unsigned int ballots[kGatherSteps][kGatherWarps];  // then each warp's first place
    __shared__ unsigned int block_base;
    const unsigned int lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const std::uint64_t first = std::uint64_t(blockIdx.x) * kGatherSteps * kGatherBlock + threadIdx.x;
    unsigned int keep = 0, mine[kGatherSteps];
    for (unsigned s = 0; s < kGatherSteps; ++s) {
        const unsigned char* from = nullptr;
        const bool k = selected(p, first + std::uint64_t(s) * kGatherBlock, &from);
        const unsigned int ballot = __ballot_sync(0xffffffffu, k);
        if (lane == 0) ballots[s][warp] = ballot;
        mine[s] = ballot;
        keep |= unsigned(k) << s;
    }
    __syncthreads();
    if (threadIdx.x == 0) {  // places in strip order, warp by warp: one atomic for the block
        unsigned int total = 0;
        for (unsigned s = 0; s < kGatherSteps; ++s)
            for (unsigned w = 0; w < kGatherWarps; ++w) {
                const unsigned int n = unsigned(__popc(ballots[s][w]));
                ballots[s][w] = total;
                total += n;
            }
        block_base = total != 0 ? atomicAdd(p.selected, total) : 0u;
    }
    __syncthreads();
    const unsigned int below = (1u << lane) - 1u;
    for (unsigned s = 0; s < kGatherSteps; ++s) {
        if (((keep >> s) & 1u) == 0) continue;
        const std::uint64_t i = first + std::uint64_t(s) * kGatherBlock;
        const std::uint64_t y = i / p.width, x = i - y * p.width;
        const unsigned int place = block_base + ballots[s][warp] + unsigned(__popc(mine[s] & below));
        copy_pixel(p.image + y * p.image_pitch + x * p.pixel_bytes, p.out + std::uint64_t(place) * p.pixel_bytes,
                   p.pixel_bytes);
    }
}

}  // namespace

cudaError_t launch_gather_selected(const GatherParams& params, cudaStream_t stream) {
    const std::uint64_t pixels = std::uint64_t(params.width) * params.rows;
    constexpr std::uint64_t per_block = std::uint64_t(kGatherSteps) * kGatherBlock;
    const auto blocks = unsigned((pixels + per_block - 1) / per_block);
    gather_selected<<<blocks, kGatherBlock, 0, stream>>>(params);
    return cudaGetLastError();
}

}  // namespace imghist::cuda_detail
