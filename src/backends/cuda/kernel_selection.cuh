// The CUDA kernels' selection of device images' pixels (KernelParams::select): masks and alpha
// thresholds, tested per pixel or per 16-byte vector, and the selected-pixel total.
#pragma once

#include "kernel_hot_paths.cuh"

namespace imghist::cuda_detail {
namespace kernels {

// Masks and alpha thresholds of device images (KernelParams::select, contract/selection.h).
// Whether pixel p's alpha passes the threshold; half alpha is widened exactly, as the contract's
// test takes fp32 bits.
template <class F>
__device__ __forceinline__ bool alpha_passes(const KernelParams& P, const Px<F::kWords>& p) {
    if (P.alpha_kind == IH_ALPHA_ALL) return true;
    uint32_t alpha = raw_sample<F>(p, P.alpha_sample);
    if constexpr (F::kSample == kF16) alpha = ih_half_to_float_bits(alpha);
    return ih_alpha_passes(P.alpha_kind, P.alpha_least, alpha) != 0;
}

// Whether pixel x of image row `row` counts.
template <class F>
__device__ __forceinline__ bool pixel_selected(const KernelParams& P, uint64_t row, uint64_t x, const Px<F::kWords>& p) {
    if (P.select_mask != nullptr && P.select_mask[row * P.select_mask_pitch + x] == 0) return false;
    return alpha_passes<F>(P, p);
}

// count_pixel for a pixel that counts only where selected; `kept` counts those that do.
template <class F, bool kSelect, class Ctr>
__device__ __forceinline__ void count_pixel_at(const KernelParams& P, const Ctr& ctr, const Px<F::kWords>& p,
                                               uint64_t row, uint64_t x, unsigned long long& kept) {
    if constexpr (kSelect) {
        if (!pixel_selected<F>(P, row, x, p)) return;
        ++kept;
    }
    count_pixel<F>(P, ctr, p);
}

// The kBytes mask bytes at m (4, 8 or 16 of them, or fewer than 4) as little-endian words: one
// load where they are aligned to their size (the same for every vector of a row).
template <int kBytes>
__device__ __forceinline__ void load_mask_words(const unsigned char* m, uint32_t (&w)[(kBytes + 3) / 4]) {
    const bool aligned = (reinterpret_cast<uintptr_t>(m) & uintptr_t(kBytes - 1)) == 0;
    if constexpr (kBytes == 16) {
        if (aligned) {
            const uint4 q = __ldg(reinterpret_cast<const uint4*>(m));
            w[0] = q.x, w[1] = q.y, w[2] = q.z, w[3] = q.w;
            return;
        }
    } else if constexpr (kBytes == 8) {
        if (aligned) {
            const uint2 q = __ldg(reinterpret_cast<const uint2*>(m));
            w[0] = q.x, w[1] = q.y;
            return;
        }
    } else if constexpr (kBytes == 4) {
        if (aligned) {
            w[0] = __ldg(reinterpret_cast<const uint32_t*>(m));
            return;
        }
    }
#pragma unroll
    for (int j = 0; j < (kBytes + 3) / 4; ++j) w[j] = 0;
#pragma unroll
    for (int b = 0; b < kBytes; ++b) w[b / 4] |= uint32_t(__ldg(m + b)) << (8 * (b % 4));
}

// The mask words of a packed row's 16-byte vector whose first pixel is `first` (load_mask_words),
// or every byte non-zero without a mask.
template <class F>
__device__ __forceinline__ void vector_mask_words(const KernelParams& P, uint64_t first,
                                                  uint32_t (&w)[(F::kPixelsPerGroup + 3) / 4]) {
    if (P.select_mask != nullptr) {
        load_mask_words<F::kPixelsPerGroup>(P.select_mask + first, w);
    } else {
#pragma unroll
        for (auto& word : w) word = 0xFFFFFFFFu;
    }
}

// Bit k: pixel k of the vector whose mask words are w has a non-zero mask byte.
template <class F>
__device__ __forceinline__ uint32_t mask_bits(const uint32_t (&w)[(F::kPixelsPerGroup + 3) / 4]) {
    uint32_t bits = 0;
#pragma unroll
    for (int k = 0; k < F::kPixelsPerGroup; ++k) bits |= uint32_t(((w[k / 4] >> (8 * (k % 4))) & 0xFFu) != 0) << k;
    return bits;
}

// `bits` (mask_bits of the 16-byte vector v) less the pixels whose alpha fails the threshold.
template <class F>
__device__ __forceinline__ uint32_t alpha_kept(const KernelParams& P, uint32_t bits, const uint4 (&v)[1]) {
    if (P.alpha_kind != IH_ALPHA_ALL) {
#pragma unroll
        for (int k = 0; k < F::kPixelsPerGroup; ++k)
            if (!alpha_passes<F>(P, group_pixel<F>(v, k))) bits &= ~(1u << k);
    }
    return bits;
}

// The selected pixels a thread counted, added to *P.selected: one add per warp (blocks are
// whole warps: cuda_tune.cpp).
__device__ __forceinline__ void add_selected(const KernelParams& P, unsigned long long kept) {
#pragma unroll
    for (int o = 16; o > 0; o /= 2) kept += __shfl_down_sync(0xffffffffu, kept, o);
    if ((threadIdx.x & 31u) == 0 && kept != 0) atomicAdd(P.selected, kept);
}

}  // namespace kernels
}  // namespace imghist::cuda_detail
