// The CUDA kernels' building blocks (histogram_kernels.cuh says how they count): the formats,
// the per-thread counters and their shared-memory adds, and pixels read from 16-byte vectors.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "contract/contract.h"
#include "kernel_params.hpp"

namespace imghist::cuda_detail {
namespace kernels {

constexpr int kU8 = 0, kU16 = 1, kF16 = 2, kF32 = 3;

constexpr int gcd16(int v) { return (v % 16 == 0) ? 16 : (v % 8 == 0) ? 8 : (v % 4 == 0) ? 4 : (v % 2 == 0) ? 2 : 1; }
constexpr int inverse_mod(int a, int m) {
    for (int x = 0; x < m; ++x)
        if ((a * x) % m == 1 % m) return x;
    return 0;
}

template <int Sample>
constexpr bool kIsFloatSample = Sample == kF16 || Sample == kF32;

template <int Sample, int Channels>
struct Fmt {
    static constexpr int kSample = Sample;
    static constexpr int kSampleBytes = Sample == kU8 ? 1 : (Sample == kF32 ? 4 : 2);
    static constexpr int kPixelBytes = kSampleBytes * Channels;
    static constexpr int kWords = (kPixelBytes + 3) / 4;
    static constexpr int kGroupBytes = group_bytes(kPixelBytes);
    static constexpr int kVectors = kGroupBytes / 16;
    static constexpr int kPixelsPerGroup = kGroupBytes / kPixelBytes;
    static constexpr int kMaxGpt = max_gpt(kPixelBytes);
    // A row start whose address is a multiple of kAlign reaches a 16-byte boundary at a
    // pixel boundary after head = ((bytes to the boundary) / kAlign) * kInv mod kMod pixels.
    static constexpr int kAlign = gcd16(kPixelBytes);
    static constexpr int kMod = 16 / kAlign;
    static constexpr int kInv = inverse_mod(kPixelBytes / kAlign, kMod);
    static constexpr int kEdgeMax = 2 * kPixelsPerGroup;  // head + tail pixels of a row
    static constexpr bool kValueMode = Sample == kU8;
    // Most plan channels: gray 1; rgb R, G, B, Y; rgba R, G, B, A, Y.
    static constexpr int kChannels = Channels == 1 ? 1 : Channels == 3 ? 4 : kMaxChannels;
};

template <int Words>
struct Px {
    uint32_t w[Words];
};

// Any layout chosen at run time (kAnyLayout), or one fixed at compile time for the hot 8-bit path.
constexpr int kAnyLayout = -1;

// Fire-and-forget add to a shared-memory word given by its 32-bit shared-window address.
__device__ __forceinline__ void red_shared(uint32_t addr, uint32_t value) {
    asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(addr), "r"(value));
}

// A value the compiler must keep in a register rather than recompute where it is used (it
// would otherwise re-derive shared addresses and selectors from the parameters per group).
__device__ __forceinline__ uint32_t opaque(uint32_t v) {
    asm volatile("mov.b32 %0, %1;" : "=r"(v) : "r"(v));
    return v;
}

// Where packed_kernel's shared adds go under a selection (kSelect: KernelParams::select): the
// adds of the pixels it drops go to the lane's trash word, one counter row behind the counters
// (flush never reads it), so that every pixel of a vector takes the same instructions.
template <bool kSelect>
struct Drop {
    uint32_t keep = 0;   // bit k: pixel k of the vector counts
    uint32_t trash = 0;  // the lane's trash word (shared address)
    __device__ __forceinline__ uint32_t at(int k, uint32_t addr) const {
        if constexpr (kSelect) return ((keep >> k) & 1u) != 0 ? addr : trash;
        else return addr;
    }
};

// Per-thread constants of the counting step.
template <int L>
struct Counter {
    uint32_t base;            // shared address of this thread's counter of slot 0
    unsigned long long* acc;  // this image's accumulator (kGlobal layout)
    uint32_t acc_stride;
    uint32_t byte_shift;      // log2 of the bytes between slots: 7 (kLanes*) or 2 (kCopies)
    uint32_t packed;          // 1 for kLanes16
    bool global;
    // The 8-bit hot path: per plan channel, the PRMT selector that picks its sample byte from
    // the pixel word (or the luminance from the second operand).
    uint32_t chan_sel[kMaxChannels];
    uint32_t luma_sel[3];

    __device__ __forceinline__ void bump(uint32_t slot) const {
        if constexpr (L == int(kLanes32)) {
            red_shared(base + (slot << 7), 1u);
        } else if constexpr (L == int(kLanes16)) {
            red_shared(base + ((slot >> 1) << 7), 1u << ((slot & 1u) << 4));
        } else if (global) {
            atomicAdd(acc + slot * acc_stride, 1ull);
        } else {
            red_shared(base + ((slot >> packed) << byte_shift), 1u << ((slot & packed) << 4));
        }
    }
    // Value v (0..255) of plan channel c (a compile-time constant: an immediate offset), in the
    // hot path: slot c * 256 + v.
    __device__ __forceinline__ uint32_t value_addr(int c, uint32_t v) const {  // kLanes32
        static_assert(L == int(kLanes32), "one 32-bit counter per value");
        return base + uint32_t(c) * 256u * 128u + (v << 7);
    }
    __device__ __forceinline__ void bump_value(int c, uint32_t v) const {
        if constexpr (L == int(kLanes32)) red_shared(base + uint32_t(c) * 256u * 128u + (v << 7), 1u);
        else red_shared(base + uint32_t(c) * 128u * 128u + ((v >> 1) << 7), 1u << ((v & 1u) << 4));
    }
};

template <class F>
__device__ __forceinline__ uint32_t raw_sample(const Px<F::kWords>& p, uint32_t i) {
    if constexpr (F::kSampleBytes == 1) {
        return __byte_perm(p.w[0], 0u, i | 0x4440u);  // byte i, zero-extended (one PRMT)
    } else if constexpr (F::kSampleBytes == 2) {
        uint32_t w = p.w[0];
        if constexpr (F::kWords > 1) w = (i >= 2u) ? p.w[1] : w;
        return (w >> ((i & 1u) * 16u)) & 0xFFFFu;
    } else {
        uint32_t w = p.w[0];
        if constexpr (F::kWords > 1) w = (i == 1u) ? p.w[1] : w;
        if constexpr (F::kWords > 2) w = (i == 2u) ? p.w[2] : w;
        if constexpr (F::kWords > 3) w = (i == 3u) ? p.w[3] : w;
        return w;
    }
}

// Half samples are widened by the hardware (cvt.f32.f16, one instruction where binning.h's
// ih_half_to_float_bits takes about 14): IEEE widening is exact for every half that is not a NaN,
// and turns every NaN into a NaN, so ih_classify_float gets the same value, or a NaN, as from
// ih_half_to_float_bits (tests/cuda's CudaHalf checks each of the 65536 halves).
template <class F>
__device__ __forceinline__ float float_sample(const Px<F::kWords>& p, uint32_t i) {
    const uint32_t raw = raw_sample<F>(p, i);
    if constexpr (F::kSampleBytes == 2) return __half2float(__ushort_as_half(static_cast<unsigned short>(raw)));
    else return __uint_as_float(raw);
}

template <class F, class Ctr>
__device__ __forceinline__ void count_pixel(const KernelParams& P, const Ctr& ctr,
                                            const Px<F::kWords>& p) {
    if constexpr (!kIsFloatSample<F::kSample>) {
        uint32_t luma = 0;
        if (P.has_luma)
            luma = ih_args_luma_int(raw_sample<F>(p, P.luma_src[0]), raw_sample<F>(p, P.luma_src[1]),
                                    raw_sample<F>(p, P.luma_src[2]), P.bin);
#pragma unroll
        for (int c = 0; c < F::kChannels; ++c) {
            if (c < int(P.bin.channels)) {
                const int s = P.src[c];
                const uint32_t v = s < 0 ? luma : raw_sample<F>(p, uint32_t(s));
                if constexpr (F::kValueMode) {
                    // 8-bit: count raw values; the 256 values are classified once per flush.
                    ctr.bump(uint32_t(c) * 256u + v);
                } else {
                    const uint32_t code = ih_args_classify_int(v, P.bin, P.edge_keys);
                    const uint32_t base = uint32_t(c) * P.spc;
                    ctr.bump(base + ih_code_slot(code));
                    if (ih_code_has_extra(code)) ctr.bump(base + ih_code_extra_slot(code, P.bin.bins));
                }
            }
        }
    } else {
        float luma = 0.0f;
        if (P.has_luma)
            luma = ih_args_luma_float(float_sample<F>(p, P.luma_src[0]), float_sample<F>(p, P.luma_src[1]),
                                      float_sample<F>(p, P.luma_src[2]), P.bin);
#pragma unroll
        for (int c = 0; c < F::kChannels; ++c) {
            if (c < int(P.bin.channels)) {
                const int s = P.src[c];
                const float v = s < 0 ? luma : float_sample<F>(p, uint32_t(s));
                const uint32_t code = ih_args_classify_float(v, P.bin, P.edge_keys);
                const uint32_t base = uint32_t(c) * P.spc;
                ctr.bump(base + ih_code_slot(code));
                if (ih_code_has_extra(code)) ctr.bump(base + ih_code_extra_slot(code, P.bin.bins));
            }
        }
    }
}

// Pixel k of a group of 16-byte vectors (k is a compile-time constant after unrolling).
template <class F>
__device__ __forceinline__ Px<F::kWords> group_pixel(const uint4 (&v)[F::kVectors], int k) {
    const uint32_t* gw = reinterpret_cast<const uint32_t*>(v);
    Px<F::kWords> p;
    const int o = k * F::kPixelBytes;
    if constexpr (F::kPixelBytes % 4 == 0) {
#pragma unroll
        for (int j = 0; j < F::kWords; ++j) p.w[j] = gw[o / 4 + j];
    } else {
#pragma unroll
        for (int j = 0; j < F::kWords; ++j) p.w[j] = 0;
#pragma unroll
        for (int b = 0; b < F::kPixelBytes; ++b) {
            const uint32_t byte = (gw[(o + b) >> 2] >> (((o + b) & 3) * 8)) & 0xFFu;
            p.w[b >> 2] |= byte << ((b & 3) * 8);
        }
    }
    return p;
}

// One pixel read byte by byte (row edges, and rows not aligned to whole samples).
template <class F>
__device__ __forceinline__ Px<F::kWords> load_pixel_bytes(const unsigned char* q) {
    Px<F::kWords> p;
#pragma unroll
    for (int j = 0; j < F::kWords; ++j) p.w[j] = 0;
#pragma unroll
    for (int b = 0; b < F::kPixelBytes; ++b) p.w[b >> 2] |= uint32_t(__ldg(q + b)) << ((b & 3) * 8);
    return p;
}

template <class F>
__device__ __forceinline__ void load_group(const unsigned char* q, uint4 (&v)[F::kVectors]) {
    const uint4* q4 = reinterpret_cast<const uint4*>(q);
#pragma unroll
    for (int i = 0; i < F::kVectors; ++i) v[i] = __ldg(q4 + i);
}

}  // namespace kernels
}  // namespace imghist::cuda_detail
