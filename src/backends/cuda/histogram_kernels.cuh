// imghist CUDA kernels (the templates; histogram_*.cu instantiate them, histogram.cu dispatches):
// one launch computes finished 64-bit histograms.
//
// Each block keeps private 32-bit (or packed 16-bit) counters in shared memory, laid out
// `slot * 32 + lane` so that every lane of a warp increments its own bank (no bank conflicts on
// random or bank-adversarial data; identical values of one warp never collide either). Threads
// read 16-byte vectors, several in flight per thread, over a persistent grid in which each
// block walks a contiguous range of tiles. A block flushes its counters into the 64-bit global
// accumulator (reduction adds) when it leaves an image, before a counter could overflow, and
// at the end; the last block of each image then moves the accumulator into the output and
// zeroes it, so no zeroing or summing kernel is needed.
//
// 8-bit images count raw sample values (0..255, and the integer luminance, also 0..255) and
// classify each of the 256 values once per flush; every other format classifies each sample.
// The bin math is binning.h's, never repeated here.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "imghist/binning.h"
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
    static constexpr int kChannels = Channels == 1 ? 1 : kMaxChannels;  // gray: one channel
};

template <int Words>
struct Px {
    uint32_t w[Words];
};

// Any layout chosen at run time (kAnyLayout), or one fixed at compile time for the hot 8-bit path.
constexpr int kAnyLayout = -1;

// Per-thread constants of the counting step.
template <int L>
struct Counter {
    uint32_t* sh;
    unsigned long long* acc;  // this image's accumulator (kGlobal layout)
    uint32_t lane_term;       // lane (kLanes*) or copy offset (kCopies)
    uint32_t lane_shift;      // 5 (kLanes*) or 0
    uint32_t packed;          // 1 for kLanes16
    bool global;

    __device__ __forceinline__ void bump(uint32_t slot) const {
        if constexpr (L == kLanes32) {
            atomicAdd(sh + (slot << 5) + lane_term, 1u);
        } else if constexpr (L == kLanes16) {
            atomicAdd(sh + ((slot >> 1) << 5) + lane_term, 1u << ((slot & 1u) << 4));
        } else if (global) {
            atomicAdd(acc + slot, 1ull);
        } else {
            const uint32_t word = ((slot >> packed) << lane_shift) + lane_term;
            atomicAdd(sh + word, 1u << ((slot & packed) << 4));
        }
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

template <class F>
__device__ __forceinline__ float float_sample(const Px<F::kWords>& p, uint32_t i) {
    const uint32_t raw = raw_sample<F>(p, i);
    if constexpr (F::kSampleBytes == 2) return __uint_as_float(ih_half_to_float_bits(raw));
    else return __uint_as_float(raw);
}

template <class F, class Ctr>
__device__ __forceinline__ void count_pixel(const KernelParams& P, const Ctr& ctr,
                                            const Px<F::kWords>& p) {
    if constexpr (F::kValueMode) {
        uint32_t luma = 0;
        if (P.has_luma)
            luma = ih_luma_int(raw_sample<F>(p, P.luma_src[0]), raw_sample<F>(p, P.luma_src[1]),
                               raw_sample<F>(p, P.luma_src[2]), P.weight_int[0], P.weight_int[1],
                               P.weight_int[2]);
#pragma unroll
        for (int c = 0; c < F::kChannels; ++c) {
            if (c < int(P.nch)) {
                const int s = P.src[c];
                const uint32_t v = s < 0 ? luma : raw_sample<F>(p, uint32_t(s));
                ctr.bump(uint32_t(c) * 256u + v);
            }
        }
    } else if constexpr (!kIsFloatSample<F::kSample>) {
        uint32_t luma = 0;
        if (P.has_luma)
            luma = ih_luma_int(raw_sample<F>(p, P.luma_src[0]), raw_sample<F>(p, P.luma_src[1]),
                               raw_sample<F>(p, P.luma_src[2]), P.weight_int[0], P.weight_int[1],
                               P.weight_int[2]);
#pragma unroll
        for (int c = 0; c < F::kChannels; ++c) {
            if (c < int(P.nch)) {
                const int s = P.src[c];
                const uint32_t v = s < 0 ? luma : raw_sample<F>(p, uint32_t(s));
                const uint32_t code =
                    ih_classify_int(v, P.int_mode, P.shift, P.bins, P.lo_int, P.hi_int, P.clamp);
                const uint32_t base = uint32_t(c) * P.spc;
                ctr.bump(base + (code & IH_SLOT_MASK));
                if (code >> IH_EXTRA_SHIFT) ctr.bump(base + P.bins + (code >> IH_EXTRA_SHIFT));
            }
        }
    } else {
        float luma = 0.0f;
        if (P.has_luma)
            luma = ih_luma_float(float_sample<F>(p, P.luma_src[0]), float_sample<F>(p, P.luma_src[1]),
                                 float_sample<F>(p, P.luma_src[2]), P.weight_float[0],
                                 P.weight_float[1], P.weight_float[2]);
#pragma unroll
        for (int c = 0; c < F::kChannels; ++c) {
            if (c < int(P.nch)) {
                const int s = P.src[c];
                const float v = s < 0 ? luma : float_sample<F>(p, uint32_t(s));
                const uint32_t code = ih_classify_float(v, P.bins, P.lo_float, P.scale_float, P.lo_key,
                                                        P.hi_key, P.closed_top, P.clamp);
                const uint32_t base = uint32_t(c) * P.spc;
                ctr.bump(base + (code & IH_SLOT_MASK));
                if (code >> IH_EXTRA_SHIFT) ctr.bump(base + P.bins + (code >> IH_EXTRA_SHIFT));
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

template <class F, class Ctr>
__device__ __forceinline__ void count_group(const KernelParams& P, const Ctr& ctr,
                                            const uint4 (&v)[F::kVectors]) {
#pragma unroll
    for (int k = 0; k < F::kPixelsPerGroup; ++k) count_pixel<F>(P, ctr, group_pixel<F>(v, k));
}

// The row's pixels before its first 16-byte-aligned pixel boundary, and its whole groups.
struct RowSplit {
    uint64_t head, groups;
};
template <class F>
__device__ __forceinline__ RowSplit split_row(const unsigned char* row, uint64_t row_px) {
    const uint32_t a = (0u - uint32_t(reinterpret_cast<uintptr_t>(row))) & 15u;
    uint64_t head = ((a / F::kAlign) * F::kInv) & (F::kMod - 1);
    if (head > row_px) head = row_px;
    return {head, (row_px - head) / F::kPixelsPerGroup};
}

template <class F, class Ctr>
__device__ void count_tile(const KernelParams& P, const Ctr& ctr, const ImageDesc& d, uint32_t j) {
    const uint32_t t = threadIdx.x, nt = blockDim.x;
    const uint32_t rg = j / d.segs, seg = j - rg * d.segs;
    const uint32_t row0 = rg * d.rows_per_tile;
    const uint32_t nrows = min(d.rows_per_tile, d.rows - row0);
    const uint32_t gpt = P.gpt;

    if (d.scalar) {
        // Bytewise: units are pixels.
        for (uint32_t k = 0; k < gpt; ++k) {
            uint64_t r = 0, x;
            const uint64_t u = uint64_t(seg) * gpt * nt + uint64_t(k) * nt + t;
            if (d.rows_per_tile == 1) {
                x = u;
            } else {
                r = uint32_t(u) / uint32_t(d.row_px);
                x = u - r * d.row_px;
                if (r >= nrows) continue;
            }
            if (x >= d.row_px) continue;
            const unsigned char* q = d.base + (row0 + r) * d.pitch + x * F::kPixelBytes;
            count_pixel<F>(P, ctr, load_pixel_bytes<F>(q));
        }
        return;
    }

    // Body: every thread issues all of its 16-byte loads before counting any.
    uint4 v[F::kMaxGpt][F::kVectors];
    bool ok[F::kMaxGpt];
    if (d.rows_per_tile == 1) {
        const unsigned char* row = d.base + uint64_t(row0) * d.pitch;
        const RowSplit rs = split_row<F>(row, d.row_px);
        const unsigned char* body = row + rs.head * F::kPixelBytes;
        const uint64_t u0 = uint64_t(seg) * gpt * nt + t;
#pragma unroll
        for (int k = 0; k < F::kMaxGpt; ++k) {
            const uint64_t u = u0 + uint64_t(k) * nt;
            ok[k] = uint32_t(k) < gpt && u < rs.groups;
            if (ok[k]) load_group<F>(body + u * F::kGroupBytes, v[k]);
        }
    } else {
        const uint32_t upr = uint32_t(d.units_per_row);
#pragma unroll
        for (int k = 0; k < F::kMaxGpt; ++k) {
            const uint32_t u = uint32_t(k) * nt + t;
            const uint32_t r = u / upr, x = u - r * upr;
            ok[k] = uint32_t(k) < gpt && r < nrows;
            if (ok[k]) {
                const unsigned char* row = d.base + uint64_t(row0 + r) * d.pitch;
                const RowSplit rs = split_row<F>(row, d.row_px);
                ok[k] = x < rs.groups;
                if (ok[k]) load_group<F>(row + rs.head * F::kPixelBytes + uint64_t(x) * F::kGroupBytes, v[k]);
            }
        }
    }
#pragma unroll
    for (int k = 0; k < F::kMaxGpt; ++k)
        if (ok[k]) count_group<F>(P, ctr, v[k]);

    // Edges: the pixels before the first and after the last whole group of each row.
    if (seg == 0) {
        for (uint32_t e = t; e < nrows * uint32_t(F::kEdgeMax); e += nt) {
            const uint32_t r = e / uint32_t(F::kEdgeMax), k = e - r * uint32_t(F::kEdgeMax);
            const unsigned char* row = d.base + uint64_t(row0 + r) * d.pitch;
            const RowSplit rs = split_row<F>(row, d.row_px);
            const uint64_t body_end = rs.head + rs.groups * F::kPixelsPerGroup;
            uint64_t x;
            if (k < rs.head) x = k;
            else if (body_end + (k - rs.head) < d.row_px) x = body_end + (k - rs.head);
            else continue;
            count_pixel<F>(P, ctr, load_pixel_bytes<F>(row + x * F::kPixelBytes));
        }
    }
}

// Adds the block's counters into the image's 64-bit accumulator and zeroes them.
template <class F>
__device__ void flush(const KernelParams& P, uint32_t* sh, unsigned long long* acc) {
    if (P.layout == kGlobal) return;
    __syncthreads();
    const uint32_t lane = threadIdx.x & 31u;
    for (uint32_t s = threadIdx.x; s < P.hist_slots; s += blockDim.x) {
        unsigned long long sum = 0;
        if (P.layout == kCopies) {
            for (uint32_t k = 0; k < P.copies; ++k) sum += sh[s + k * P.copy_stride];
        } else {
            const uint32_t packed = P.layout == kLanes16 ? 1u : 0u;
            const uint32_t row = (s >> packed) << 5;
            const uint32_t shift = (s & packed) << 4;
            const uint32_t mask = packed ? 0xFFFFu : 0xFFFFFFFFu;
#pragma unroll 8
            for (uint32_t j = 0; j < 32; ++j) sum += (sh[row + ((j + lane) & 31u)] >> shift) & mask;
        }
        if (sum == 0) continue;
        if constexpr (F::kValueMode) {
            const uint32_t c = s >> 8, value = s & 255u;
            const uint32_t code =
                ih_classify_int(value, P.int_mode, P.shift, P.bins, P.lo_int, P.hi_int, P.clamp);
            const uint32_t base = c * P.spc;
            atomicAdd(acc + base + (code & IH_SLOT_MASK), sum);
            if (code >> IH_EXTRA_SHIFT) atomicAdd(acc + base + P.bins + (code >> IH_EXTRA_SHIFT), sum);
        } else {
            atomicAdd(acc + s, sum);
        }
    }
    __syncthreads();
    uint4* sh4 = reinterpret_cast<uint4*>(sh);
    for (uint32_t i = threadIdx.x; i < P.smem_words / 4; i += blockDim.x) sh4[i] = make_uint4(0, 0, 0, 0);
    __syncthreads();
}

// Block b counts tiles [b*T/G, (b+1)*T/G); the block holding tile t is floor(((t+1)G - 1) / T).
static __device__ __forceinline__ uint32_t block_of_tile(uint32_t tile, uint32_t grid, uint32_t total) {
    return uint32_t(((uint64_t(tile) + 1) * grid - 1) / total);
}

// Called by every block once it has flushed its last counts of an image: the last of the
// image's blocks moves the accumulator into the output and leaves it and the ticket zeroed.
static __device__ void finish_image(const KernelParams& P, const ImageDesc& d) {
    if (!P.finalize) return;
    __shared__ uint32_t is_last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        const uint32_t first = block_of_tile(d.tile_begin, gridDim.x, P.total_tiles);
        const uint32_t last = block_of_tile(d.tile_begin + d.tiles - 1, gridDim.x, P.total_tiles);
        const uint32_t done = atomicAdd(P.tickets + d.slot_index, 1u) + 1u;
        is_last = done == last - first + 1u ? 1u : 0u;
    }
    __syncthreads();
    if (is_last) {
        __threadfence();
        unsigned long long* acc = P.acc + uint64_t(d.slot_index) * P.total_slots;
        unsigned long long* out = P.out + uint64_t(d.slot_index) * P.total_slots;
        for (uint32_t s = threadIdx.x; s < P.total_slots; s += blockDim.x) out[s] = atomicExch(acc + s, 0ull);
        if (threadIdx.x == 0) atomicExch(P.tickets + d.slot_index, 0u);
    }
}

template <int Sample, int Channels, int L>
__global__ void __launch_bounds__(kMaxBlock) histogram_kernel(const __grid_constant__ KernelParams P) {
    using F = Fmt<Sample, Channels>;
    extern __shared__ uint4 smem[];
    uint32_t* sh = reinterpret_cast<uint32_t*>(smem);
    for (uint32_t i = threadIdx.x; i < P.smem_words / 4; i += blockDim.x) smem[i] = make_uint4(0, 0, 0, 0);
    __syncthreads();

    const uint32_t tile_first = uint32_t(uint64_t(blockIdx.x) * P.total_tiles / gridDim.x);
    const uint32_t tile_end = uint32_t(uint64_t(blockIdx.x + 1) * P.total_tiles / gridDim.x);
    uint32_t i = 0;
    while (i + 1 < P.nimg && P.img[i + 1].tile_begin <= tile_first) ++i;

    Counter<L> ctr;
    ctr.sh = sh;
    ctr.global = P.layout == kGlobal;
    ctr.packed = P.layout == kLanes16 ? 1u : 0u;
    if (P.layout == kCopies) {
        ctr.lane_shift = 0;
        ctr.lane_term = ((threadIdx.x & 31u) % P.copies) * P.copy_stride;
    } else {
        ctr.lane_shift = 5;
        ctr.lane_term = threadIdx.x & 31u;
    }
    ctr.acc = P.acc + uint64_t(P.img[i].slot_index) * P.total_slots;

    uint32_t since_flush = 0;
    for (uint32_t tile = tile_first; tile < tile_end; ++tile) {
        while (tile >= P.img[i].tile_begin + P.img[i].tiles) {
            flush<F>(P, sh, ctr.acc);
            finish_image(P, P.img[i]);
            ++i;
            ctr.acc = P.acc + uint64_t(P.img[i].slot_index) * P.total_slots;
            since_flush = 0;
        }
        if (since_flush == P.flush_tiles) {
            flush<F>(P, sh, ctr.acc);
            since_flush = 0;
        }
        count_tile<F>(P, ctr, P.img[i], tile - P.img[i].tile_begin);
        ++since_flush;
    }
    flush<F>(P, sh, ctr.acc);
    finish_image(P, P.img[i]);
}

using KernelFn = void (*)(KernelParams);

// One per histogram_<sample>.cu: the kernel for `channels` samples per pixel and `layout`.
KernelFn kernels_u8(int channels, int layout);
KernelFn kernels_u16(int channels);
KernelFn kernels_f16(int channels);
KernelFn kernels_f32(int channels);

template <int Sample, int L>
KernelFn pick(int channels) {
    return channels == 1 ? histogram_kernel<Sample, 1, L> : channels == 3 ? histogram_kernel<Sample, 3, L>
                                                                            : histogram_kernel<Sample, 4, L>;
}

}  // namespace kernels
}  // namespace imghist::cuda_detail
