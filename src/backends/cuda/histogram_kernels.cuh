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
// zeroes it, so no zeroing or summing kernel is needed. (packed_kernel merges per slot instead:
// see merge_slot.)
//
// 8-bit images count raw sample values (0..255, and the integer luminance, also 0..255) and
// classify each of the 256 values once per flush; every other format classifies each sample.
// The bin math is binning.h's, never repeated here.
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

// The 8-bit samples of pixel k of a group as bytes 0.. of one word (bytes above are junk).
template <class F>
__device__ __forceinline__ uint32_t u8_pixel(const uint32_t* gw, int k) {
    constexpr int pb = F::kPixelBytes;
    const int o = k * pb;
    if constexpr (pb == 4) {
        return gw[k];
    } else {
        if ((o & 3) + pb <= 4) return gw[o >> 2] >> ((o & 3) * 8);
        const int b = o & 3;  // straddles two words: one PRMT
        return __byte_perm(gw[o >> 2], gw[(o >> 2) + 1], b | ((b + 1) << 4) | ((b + 2) << 8) | ((b + 3) << 12));
    }
}

// The 8-bit hot path over kPixels pixels whose words are gw: per sample one PRMT (the channel's
// byte, or the luminance from its second operand), one address computation and one shared add;
// four pixels at a time keep the registers down. NCH >= 0 and LUMA >= 0 fix the number of
// counted channels and the luminance at compile time; -1 reads them from P.
template <class F, int NCH, int LUMA, int kPixels, class Ctr, bool kSelect = false>
__device__ __forceinline__ void count_values(const KernelParams& P, const Ctr& ctr, const uint32_t* gw,
                                             const Drop<kSelect>& drop = {}) {
    constexpr int kChunk = kPixels < 4 ? kPixels : 4;
    constexpr int kCh = NCH < 0 ? F::kChannels : NCH;
#pragma unroll
    for (int k0 = 0; k0 < kPixels; k0 += kChunk) {
        uint32_t px[kChunk], lu[kChunk];
#pragma unroll
        for (int k = 0; k < kChunk; ++k) {
            px[k] = u8_pixel<F>(gw, k0 + k);
            lu[k] = 0;
        }
        if constexpr (F::kChannels > 1 && LUMA != 0) {
            if (LUMA > 0 || P.has_luma) {
#pragma unroll
                for (int k = 0; k < kChunk; ++k)
                    lu[k] = ih_args_luma_int(__byte_perm(px[k], 0u, ctr.luma_sel[0]), __byte_perm(px[k], 0u, ctr.luma_sel[1]),
                                             __byte_perm(px[k], 0u, ctr.luma_sel[2]), P.bin);
            }
        }
#pragma unroll
        for (int c = 0; c < kCh; ++c) {
            if (NCH >= 0 || c < int(P.bin.channels)) {
#pragma unroll
                for (int k = 0; k < kChunk; ++k) {
                    const uint32_t v = __byte_perm(px[k], lu[k], ctr.chan_sel[c]);
                    if constexpr (kSelect) red_shared(drop.at(k0 + k, ctr.value_addr(c, v)), 1u);
                    else ctr.bump_value(c, v);
                }
            }
        }
    }
}

// The float hot path (packed_kernel) over the pixels of one 16-byte vector: per sample one
// classification (binning.h) and one shared add at slot0[c] + slot * 128, a second one only for
// clipped values counted as below / above. Channel sources and the luminance are compile-time
// (packed_float_source), and so is the rule (RULE: kRuleOpen / kRuleClosed for uniform bins,
// P.bin.closed_top; kRuleEdges for edge bins; the caller branches once per step); slot0 holds each
// channel's slot-0 address of this lane.
constexpr int kRuleOpen = 0, kRuleClosed = 1, kRuleEdges = 2;
// The packed float kernels' luminance: from samples 0, 1 and 2 (packed_float_source).
template <class F>
__device__ __forceinline__ float packed_luma(const KernelParams& P, const Px<F::kWords>& p) {
    return ih_luma_float(float_sample<F>(p, 0), float_sample<F>(p, 1), float_sample<F>(p, 2), P.bin.weight_float_r,
                         P.bin.weight_float_g, P.bin.weight_float_b);
}
template <class F, int NCH, int LUMA, int RULE, bool kSelect = false>
__device__ __forceinline__ void count_floats(const KernelParams& P, const uint32_t (&slot0)[NCH],
                                             const uint4 (&v)[1], const Drop<kSelect>& drop = {}) {
    constexpr int kSamples = F::kPixelBytes / F::kSampleBytes;
#pragma unroll
    for (int k = 0; k < F::kPixelsPerGroup; ++k) {
        const Px<F::kWords> p = group_pixel<F>(v, k);
        float luma = 0.0f;
        if constexpr (LUMA != 0) luma = packed_luma<F>(P, p);
#pragma unroll
        for (int c = 0; c < NCH; ++c) {
            const int s = packed_float_source(kSamples, NCH, LUMA, c);
            const float x = s < 0 ? luma : float_sample<F>(p, uint32_t(s));
            uint32_t code;
            if constexpr (RULE == kRuleEdges)
                code = ih_classify_float_edges(x, P.bin.bins, P.bin.clamp, P.edge_keys);
            else
                code = ih_classify_float(x, P.bin.bins, P.bin.lo_float, P.bin.scale_float, P.bin.lo_key, P.bin.hi_key,
                                         uint32_t(RULE), P.bin.clamp);
            red_shared(drop.at(k, slot0[c] + (ih_code_slot(code) << 7)), 1u);
            if (ih_code_has_extra(code)) red_shared(drop.at(k, slot0[c] + (ih_code_extra_slot(code, P.bin.bins) << 7)), 1u);
        }
    }
}

// The float hot path with P.code_lut: each sample's code is looked up in the shared-memory copy
// of the table by the half's bits or the float's top 16 bits, or for float edge bins in the shared
// code window (P.window_entries; outside it, in the whole table in device memory); a float whose
// block is unresolved is classified, one with an edge hint walks the edge keys `keys`
// (binning.h). Then the same shared adds as count_floats.
// kWindow: P.window_entries != 0, decided once per step rather than per sample.
// LUMA: float luminance is looked up by its own bits like a sample, so only float samples with
// the window take it (a half image's table is by half bits; cuda_shape.cpp decides).
template <class F, int NCH, int LUMA, bool kWindow, bool kSelect = false>
__device__ __forceinline__ void count_floats_lut(const KernelParams& P, const uint32_t (&slot0)[NCH],
                                                 const uint4 (&v)[1], const unsigned short* lut,
                                                 const uint32_t* keys, const Drop<kSelect>& drop = {}) {
    static_assert(LUMA == 0 || (F::kSampleBytes == 4 && kWindow), "luminance: float samples in the window");
    constexpr int kSamples = F::kPixelBytes / F::kSampleBytes;
#pragma unroll
    for (int k = 0; k < F::kPixelsPerGroup; ++k) {
        const Px<F::kWords> p = group_pixel<F>(v, k);
        uint32_t luma = 0;
        if constexpr (LUMA != 0) luma = __float_as_uint(packed_luma<F>(P, p));
        // The pixel's entries first, all loads at once, so that their latencies overlap: a float
        // outside the window reads entry 0 here and its own entry from the whole table below.
        uint32_t raw[NCH], e[NCH];
        bool outside = false;
#pragma unroll
        for (int c = 0; c < NCH; ++c) {
            const int s = packed_float_source(kSamples, NCH, LUMA, c);
            raw[c] = s < 0 ? luma : raw_sample<F>(p, uint32_t(s));
            if constexpr (F::kSampleBytes == 4 && kWindow) {
                const uint32_t w = (raw[c] >> P.window_shift) - P.window_first;  // negative floats wrap past it
                outside |= w >= P.window_entries;
                e[c] = lut[w < P.window_entries ? w : 0u];
            } else {
                e[c] = lut[F::kSampleBytes == 2 ? raw[c] : raw[c] >> 16];
            }
        }
        if constexpr (F::kSampleBytes == 4 && kWindow) {
            if (outside) {
#pragma unroll
                for (int c = 0; c < NCH; ++c)
                    if ((raw[c] >> P.window_shift) - P.window_first >= P.window_entries)
                        e[c] = __ldg(P.code_lut + (raw[c] >> 16));
            }
        }
#pragma unroll
        for (int c = 0; c < NCH; ++c) {
            if (e[c] < 0x4000u) {  // a bin's slot with no extra (ih_code_from_16): one add
                red_shared(drop.at(k, slot0[c] + (e[c] << 7)), 1u);
                continue;
            }
            uint32_t code = ih_code_from_16(e[c]);
            if (F::kSampleBytes == 4 && (e[c] >> 14) == 3u)  // unresolved, or an edge hint (binning.h)
                code = e[c] == IH_CODE16_UNRESOLVED ? ih_args_classify_float(__uint_as_float(raw[c]), P.bin, keys)
                                                    : ih_edge_walk_from(ih_float_key(raw[c]), e[c] & 0x3FFFu, keys);
            red_shared(drop.at(k, slot0[c] + (ih_code_slot(code) << 7)), 1u);
            if (ih_code_has_extra(code)) red_shared(drop.at(k, slot0[c] + (ih_code_extra_slot(code, P.bin.bins) << 7)), 1u);
        }
    }
}

template <class F, class Ctr>
__device__ __forceinline__ void count_group(const KernelParams& P, const Ctr& ctr,
                                            const uint4 (&v)[F::kVectors]) {
    if constexpr (F::kValueMode && !std::is_same_v<Ctr, Counter<kAnyLayout>>) {
        count_values<F, -1, -1, F::kPixelsPerGroup>(P, ctr, reinterpret_cast<const uint32_t*>(v));
    } else {
#pragma unroll
        for (int k = 0; k < F::kPixelsPerGroup; ++k) count_pixel<F>(P, ctr, group_pixel<F>(v, k));
    }
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

// kSelect: only the selected pixels count (the tile's groups pixel by pixel), and `kept` counts them.
template <class F, class Ctr, bool kSelect = false>
__device__ void count_tile(const KernelParams& P, const Ctr& ctr, const ImageDesc& d, uint32_t j,
                           unsigned long long& kept) {
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
            count_pixel_at<F, kSelect>(P, ctr, load_pixel_bytes<F>(q), row0 + r, x, kept);
        }
        return;
    }

    // Body: every thread issues all of its 16-byte loads before counting any.
    uint4 v[F::kMaxGpt][F::kVectors];
    bool ok[F::kMaxGpt];
    uint32_t group_row[F::kMaxGpt];  // kSelect: each group's row and first pixel
    uint64_t group_x[F::kMaxGpt];
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
            group_row[k] = row0;
            group_x[k] = rs.head + u * F::kPixelsPerGroup;
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
                group_row[k] = row0 + r;
                group_x[k] = rs.head + uint64_t(x) * F::kPixelsPerGroup;
            }
        }
    }
#pragma unroll
    for (int k = 0; k < F::kMaxGpt; ++k) {
        if (!ok[k]) continue;
        if constexpr (kSelect) {
#pragma unroll
            for (int px = 0; px < F::kPixelsPerGroup; ++px)
                count_pixel_at<F, true>(P, ctr, group_pixel<F>(v[k], px), group_row[k], group_x[k] + px, kept);
        } else {
            count_group<F>(P, ctr, v[k]);
        }
    }

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
            count_pixel_at<F, kSelect>(P, ctr, load_pixel_bytes<F>(row + x * F::kPixelBytes), row0 + r, x, kept);
        }
    }
}

// The per-slot merge (P.slot_merge, packed_kernel only): the block's last counts for `slot` go
// into acc with one arrival; the block whose add brings the grid's last arrival holds the
// slot's total, writes it to the same slot of out and leaves the acc word zeroed for the next call.
// Unlike finish_image this needs no fence, ticket or last-block pass: the add's return value
// is the only wait.
__device__ __forceinline__ void merge_slot(const KernelParams& P, unsigned long long* acc, uint32_t slot,
                                           unsigned long long sum) {
    unsigned long long* word = acc + uint64_t(slot) * P.acc_stride;
    const unsigned long long before = atomicAdd(word, sum + (1ull << kArrivalShift));
    if ((before >> kArrivalShift) == gridDim.x - 1u) {
        P.out[slot] = (before + sum) & ((1ull << kArrivalShift) - 1u);
        *word = 0;  // every block has arrived: no other add to this word is left in this launch
    }
}

// Adds the block's counters into the image's 64-bit accumulator and zeroes them (`last`: the
// block's final flush, after which they are not used again).
template <class F>
__device__ void flush(const KernelParams& P, uint32_t* sh, unsigned long long* acc, bool last = false) {
    if (P.layout == kGlobal) return;
    __syncthreads();
    const bool merge = last && P.slot_merge;
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
        if (merge) {  // every slot, zero or not, brings this block's arrival (8-bit: values are bins)
            merge_slot(P, acc, F::kValueMode ? (s >> 8) * P.spc + (s & 255u) : s, sum);
            continue;
        }
        if (sum == 0) continue;
        if constexpr (F::kValueMode) {
            const uint32_t c = s >> 8, value = s & 255u;
            const uint32_t code = ih_args_classify_int(value, P.bin, P.edge_keys);
            const uint32_t base = c * P.spc;
            atomicAdd(acc + uint64_t(base + ih_code_slot(code)) * P.acc_stride, sum);
            if (ih_code_has_extra(code))
                atomicAdd(acc + uint64_t(base + ih_code_extra_slot(code, P.bin.bins)) * P.acc_stride, sum);
        } else {
            atomicAdd(acc + uint64_t(s) * P.acc_stride, sum);
        }
    }
    if (last) return;  // the block is done: nothing will count into these again
    __syncthreads();
    uint4* sh4 = reinterpret_cast<uint4*>(sh);
    for (uint32_t i = threadIdx.x; i < P.smem_words / 4; i += blockDim.x) sh4[i] = make_uint4(0, 0, 0, 0);
    __syncthreads();
}

// Asks L2 to fetch a byte range (16-byte aligned, a multiple of 16 bytes) without holding any
// registers for it (Hopper's bulk prefetch; nothing on older GPUs).
__device__ __forceinline__ void prefetch_l2(const unsigned char* p, uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes) : "memory");
#else
    (void)p;
    (void)bytes;
#endif
}

// Thread 0 prefetches the body of a tile of a long row into L2 ahead of the block's loads,
// so that DRAM stays busy while the block counts (tiles of several short rows are left alone).
// Off by default: on the H200 it cost about 4% at 16384^2 (IMGHIST_CUDA_TUNE=prefetch=1).
template <class F>
__device__ __forceinline__ void prefetch_tile(const KernelParams& P, const ImageDesc* img, uint32_t i,
                                              uint32_t tile, uint32_t tile_end) {
    if (tile >= tile_end) return;
    while (tile >= img[i].tile_begin + img[i].tiles) ++i;
    const ImageDesc& d = img[i];
    if (d.scalar || d.rows_per_tile != 1) return;
    const uint32_t j = tile - d.tile_begin;
    const uint32_t row = j / d.segs, seg = j - row * d.segs;
    const unsigned char* r = d.base + uint64_t(row) * d.pitch;
    const RowSplit rs = split_row<F>(r, d.row_px);
    const uint64_t units = uint64_t(blockDim.x) * P.gpt;
    const uint64_t first = uint64_t(seg) * units;
    if (first >= rs.groups) return;
    const uint64_t n = min(units, rs.groups - first);
    prefetch_l2(r + rs.head * F::kPixelBytes + first * F::kGroupBytes, uint32_t(n * F::kGroupBytes));
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
        unsigned long long* acc = P.acc + uint64_t(d.slot_index) * P.total_slots * P.acc_stride;
        unsigned long long* out = P.out + uint64_t(d.slot_index) * P.total_slots;
        for (uint32_t s = threadIdx.x; s < P.total_slots; s += blockDim.x)
            out[s] = atomicExch(acc + uint64_t(s) * P.acc_stride, 0ull);
        if (threadIdx.x == 0) atomicExch(P.tickets + d.slot_index, 0u);
    }
}

// Per-thread counter constants (the image's accumulator is set by the caller).
template <int L>
__device__ __forceinline__ Counter<L> make_counter(const KernelParams& P, uint32_t* sh) {
    Counter<L> ctr;
    const uint32_t lane = threadIdx.x & 31u;
    const uint32_t sh_addr = uint32_t(__cvta_generic_to_shared(sh));
    ctr.global = P.layout == kGlobal;
    ctr.acc_stride = P.acc_stride;
    ctr.packed = P.layout == kLanes16 ? 1u : 0u;
    if (P.layout == kCopies) {
        ctr.byte_shift = 2;
        ctr.base = sh_addr + (lane % P.copies) * P.copy_stride * 4u;
    } else {
        ctr.byte_shift = 7;
        ctr.base = sh_addr + lane * 4u;
    }
#pragma unroll
    for (int c = 0; c < kMaxChannels; ++c) {
        const int s = P.src[c];
        ctr.chan_sel[c] = opaque(0x5550u | (s < 0 ? 4u : uint32_t(s)));  // luma: byte 0 of the 2nd operand
    }
#pragma unroll
    for (int k = 0; k < 3; ++k) ctr.luma_sel[k] = opaque(0x4440u | P.luma_src[k]);
    ctr.base = opaque(ctr.base);
    return ctr;
}

// kSelect: masks and alpha thresholds of one device image (KernelParams::select), L kAnyLayout.
template <int Sample, int Channels, int L, bool kSelect = false>
__global__ void __launch_bounds__(kMaxBlock) histogram_kernel(const __grid_constant__ KernelParams P) {
    using F = Fmt<Sample, Channels>;
    extern __shared__ uint4 smem[];
    uint32_t* sh = reinterpret_cast<uint32_t*>(smem);

    const uint32_t tile_first = uint32_t(uint64_t(blockIdx.x) * P.total_tiles / gridDim.x);
    const uint32_t tile_end = uint32_t(uint64_t(blockIdx.x + 1) * P.total_tiles / gridDim.x);
    uint32_t i = 0;
    const ImageDesc* img = P.img_dev != nullptr ? P.img_dev : P.img;
    if (P.nimg > 1) {  // the image holding this block's first tile
        uint32_t lo = 0, hi = P.nimg - 1;
        while (lo < hi) {
            const uint32_t mid = (lo + hi + 1) / 2;
            if (img[mid].tile_begin <= tile_first) lo = mid;
            else hi = mid - 1;
        }
        i = lo;
    }

    Counter<L> ctr = make_counter<L>(P, sh);
    ctr.acc = P.acc + uint64_t(img[i].slot_index) * P.total_slots * P.acc_stride;

    constexpr uint32_t kAhead = 2;  // tiles prefetched ahead of the one being counted
    if (P.prefetch && threadIdx.x == 0)
        for (uint32_t k = 0; k < kAhead; ++k) prefetch_tile<F>(P, img, i, tile_first + k, tile_end);
    // Zero the counters while the first tiles are on their way.
    for (uint32_t k = threadIdx.x; k < P.smem_words / 4; k += blockDim.x) smem[k] = make_uint4(0, 0, 0, 0);
    __syncthreads();
    uint32_t since_flush = 0;
    unsigned long long kept = 0;  // kSelect: the pixels this thread counted
    for (uint32_t tile = tile_first; tile < tile_end; ++tile) {
        if (P.prefetch && threadIdx.x == 0) prefetch_tile<F>(P, img, i, tile + kAhead, tile_end);
        while (tile >= img[i].tile_begin + img[i].tiles) {
            flush<F>(P, sh, ctr.acc);
            finish_image(P, img[i]);
            ++i;
            ctr.acc = P.acc + uint64_t(img[i].slot_index) * P.total_slots * P.acc_stride;
            since_flush = 0;
        }
        if (since_flush == P.flush_tiles) {
            flush<F>(P, sh, ctr.acc);
            since_flush = 0;
        }
        count_tile<F, Counter<L>, kSelect>(P, ctr, img[i], tile - img[i].tile_begin, kept);
        ++since_flush;
    }
    flush<F>(P, sh, ctr.acc, true);
    finish_image(P, img[i]);
    if constexpr (kSelect) add_selected(P, kept);
}

// The packed fast path: one image that is one long row (packed), gray or 4-sample pixels of
// 8-bit, half or float samples, per-lane 32-bit counters. Its 16-byte vectors are split evenly
// over the blocks (to the vector, so no block has a whole extra tile); a step is kSteps vectors
// per thread, loaded coalesced; with P.ahead (8-bit only) a thread loads its next step before
// counting the current one, and with P.early (8-bit) its first loads go out before the counters
// are zeroed. The last block counts the row's head and tail pixels. With P.slot_merge the blocks'
// last flushes merge per slot (merge_slot), else the last block moves acc into out
// (finish_image). NCH and LUMA as in count_values (8-bit) or count_floats (half, float: both
// fixed, NCH >= 1, LUMA 0 or 1). The host sets P.flush_tiles to the steps between flushes and
// P.total_tiles = gridDim.x.
// kSelect: a mask (of the same long row: pixel i's byte at select_mask + i) and an alpha
// threshold (KernelParams::select): each vector's dropped pixels count into the trash (Drop).
// Float luminance alone (kF32, NCH 1, LUMA 1): at least one block an SM, so that ptxas may take
// 64 registers; left to itself it took 32 and spilled 52 bytes (ptxas -v; 55 registers and no
// spill with the bound). H100, 8K RGBA f32 Y, imghist_cuda_bench --edges, two runs: 256 uniform
// bins 251-253 -> 186 us, 256 EV bins 266-270 -> 226-230; R,G,B unchanged (202). The 8-bit and
// half kernels keep ptxas's choice (not measured with the bound).
template <int Sample>
constexpr int packed_min_blocks(int nch, int luma) { return Sample == kF32 && nch == 1 && luma == 1 ? 1 : 0; }
template <int Sample, int Channels, int NCH, int LUMA, bool kSelect = false>
__global__ void __launch_bounds__(kMaxBlock, packed_min_blocks<Sample>(NCH, LUMA))
    packed_kernel(const __grid_constant__ KernelParams P) {
    using F = Fmt<Sample, Channels>;
    static_assert(F::kGroupBytes == 16, "one group is one 16-byte vector");
    static_assert(F::kValueMode || (NCH >= 1 && (LUMA == 0 || LUMA == 1)), "float: fixed channels");
    constexpr int kSteps = kPackedSteps;
    constexpr int kPx = F::kPixelsPerGroup;
    constexpr int kBases = F::kValueMode ? 1 : NCH;
    extern __shared__ uint4 smem[];
    uint32_t* sh = reinterpret_cast<uint32_t*>(smem);
    const ImageDesc& d = P.img[0];
    Counter<kLanes32> ctr = make_counter<kLanes32>(P, sh);
    ctr.acc = P.acc + uint64_t(d.slot_index) * P.total_slots * P.acc_stride;
    // Float samples: this lane's address of slot 0 of each channel, kept in registers.
    uint32_t slot0[kBases] = {};
    if constexpr (!F::kValueMode) {
#pragma unroll
        for (int c = 0; c < kBases; ++c) slot0[c] = opaque(ctr.base + uint32_t(c) * P.spc * 128u);
    }

    const RowSplit rs = split_row<F>(d.base, d.row_px);
    const uint64_t nvec = rs.groups;
    const uint64_t vb = nvec * blockIdx.x / gridDim.x, ve = nvec * (blockIdx.x + 1) / gridDim.x;
    const uint32_t nt = blockDim.x, t = threadIdx.x;
    const uint64_t step = uint64_t(nt) * kSteps;
    const uint64_t full = (ve - vb) / step;
    const uint4* const body = reinterpret_cast<const uint4*>(d.base + rs.head * F::kPixelBytes);
    const uint4* q = body + vb + t;

    // kSelect: the mask words of vector k of the step at q. Where a vector's mask is one word
    // (4 pixels or fewer), they are loaded with the step's vectors (step_mask), so that counting
    // never waits for them (H100, 8K R,G,B through a mask, two calls: rgba8 90-99 -> 84-97 us,
    // RGBA f32 257-272 -> 232-242); wider vectors' (gray8: 16 bytes) as each vector is counted,
    // which holds no registers across the step.
    constexpr int kMaskWords = (kPx + 3) / 4;
    constexpr bool kMaskWithStep = kSelect && kMaskWords == 1;
    uint32_t step_mask[kMaskWithStep ? kSteps : 1];
    auto first_pixel = [&](const uint4* at, int k) { return rs.head + uint64_t(at + k * nt - body) * kPx; };
    auto load_mask = [&](const uint4* at, int k) {
        if constexpr (kMaskWithStep)
            vector_mask_words<F>(P, first_pixel(at, k), reinterpret_cast<uint32_t(&)[1]>(step_mask[k]));
    };
    auto load = [&](const uint4* at, uint4 (&v)[kSteps]) {
#pragma unroll
        for (int k = 0; k < kSteps; ++k) v[k] = __ldg(at + k * nt);
#pragma unroll
        for (int k = 0; k < kSteps; ++k) load_mask(at, k);
    };
    // kSelect: which pixels of the step's vector k (at q + k * nt, loaded as v) count, and the
    // lane's trash word.
    unsigned long long kept = 0;
    const uint32_t trash = ctr.base + P.hist_slots * 128u;
    auto drop_of = [&](int k, const uint4& v) {
        Drop<kSelect> drop;
        if constexpr (kSelect) {
            uint32_t words[kMaskWords];
            if constexpr (kMaskWithStep) words[0] = step_mask[k];
            else vector_mask_words<F>(P, first_pixel(q, k), words);
            const uint32_t bits = mask_bits<F>(words);
            drop.keep = alpha_kept<F>(P, bits, reinterpret_cast<const uint4(&)[1]>(v));
            drop.trash = trash;
            kept += uint32_t(__popc(drop.keep));
        }
        return drop;
    };
    // The step's vector k; `rule` is count_floats' RULE as a compile-time constant (floats only).
    auto count_vector = [&](const uint4& v, auto rule, int k) {
        const Drop<kSelect> drop = drop_of(k, v);
        if constexpr (F::kValueMode)
            count_values<F, NCH, LUMA, kPx, Counter<kLanes32>, kSelect>(P, ctr, reinterpret_cast<const uint32_t*>(&v), drop);
        else
            count_floats<F, NCH, LUMA, decltype(rule)::value, kSelect>(P, slot0, reinterpret_cast<const uint4(&)[1]>(v), drop);
    };
    using Closed = std::integral_constant<int, kRuleClosed>;
    using Open = std::integral_constant<int, kRuleOpen>;
    using Edges = std::integral_constant<int, kRuleEdges>;
    auto count = [&](const uint4 (&v)[kSteps]) {  // 8-bit, loaded at q
#pragma unroll
        for (int k = 0; k < kSteps; ++k) count_vector(v[k], Open{}, k);
    };
    // The code table's shared-memory copy, behind the counters (P.code_lut: floats), or the code
    // window and then the edge keys (float edge bins; with luminance, only these).
    constexpr bool kLutKernel = !F::kValueMode && (LUMA == 0 || F::kSampleBytes == 4);
    const unsigned short* lut = reinterpret_cast<const unsigned short*>(sh + P.smem_words);
    uint32_t* const shared_keys = sh + P.smem_words + P.window_entries / 2;
    // Floats: the vectors of a step that were loaded, by table or with the rule fixed once per step.
    auto count_some = [&](const uint4 (&v)[kSteps], const bool (&ok)[kSteps]) {
        if constexpr (kLutKernel) {
            // With the window the keys are in shared memory, and the walks read them as such.
            auto run_lut = [&](auto window, const uint32_t* keys) {
#pragma unroll
                for (int k = 0; k < kSteps; ++k)
                    if (ok[k])
                        count_floats_lut<F, NCH, LUMA, decltype(window)::value, kSelect>(
                            P, slot0, reinterpret_cast<const uint4(&)[1]>(v[k]), lut, keys, drop_of(k, v[k]));
            };
            if constexpr (F::kSampleBytes == 4) {
                if (P.code_lut != nullptr && P.window_entries != 0) {
                    run_lut(std::true_type{}, shared_keys);
                    return;
                }
            }
            if constexpr (LUMA == 0) {
                if (P.code_lut != nullptr) {
                    run_lut(std::false_type{}, P.edge_keys);
                    return;
                }
            }
        }
        auto run = [&](auto closed) {
#pragma unroll
            for (int k = 0; k < kSteps; ++k)
                if (ok[k]) count_vector(v[k], closed, k);
        };
        if (P.bin.edges) run(Edges{});
        else if (P.bin.closed_top) run(Closed{});
        else run(Open{});
    };
    uint32_t since_flush = 0;
    auto counted = [&] {
        if (++since_flush == P.flush_tiles) {
            flush<F>(P, sh, ctr.acc);
            since_flush = 0;
        }
    };
    auto zero = [&] {  // and copy the code table in, where there is one
        for (uint32_t k = t; k < P.smem_words / 4; k += nt) smem[k] = make_uint4(0, 0, 0, 0);
        if constexpr (kLutKernel) {
            if (P.code_lut != nullptr && P.window_entries != 0) {
                const uint4* from = reinterpret_cast<const uint4*>(P.code_lut + kCodeLutEntries);
                for (uint32_t k = t; k < P.window_entries / 8; k += nt) smem[P.smem_words / 4 + k] = __ldg(from + k);
                for (uint32_t k = t; k <= P.bin.bins; k += nt) shared_keys[k] = __ldg(P.edge_keys + k);
            } else if (P.code_lut != nullptr) {
                const uint4* from = reinterpret_cast<const uint4*>(P.code_lut);
                for (uint32_t k = t; k < kCodeLutBytes / 16; k += nt) smem[P.smem_words / 4 + k] = __ldg(from + k);
            }
        }
        __syncthreads();
    };

    // The block's last vectors: fewer than one step (so `left` and `lim` fit in 32 bits).
    const uint32_t left = uint32_t(ve - vb - full * step);
    auto load_rest = [&](uint4 (&r)[kSteps], bool (&ok)[kSteps], uint32_t lim) {
#pragma unroll
        for (int k = 0; k < kSteps; ++k) {
            ok[k] = uint32_t(k) * nt + t < lim;
            if (ok[k]) r[k] = __ldg(q + k * nt);
            if (ok[k]) load_mask(q, k);
        }
    };
    auto count_rest = [&](const uint4 (&r)[kSteps], const bool (&ok)[kSteps]) {  // 8-bit, loaded at q
#pragma unroll
        for (int k = 0; k < kSteps; ++k)
            if (ok[k]) count_vector(r[k], Open{}, k);
    };

    uint4 rest[kSteps];
    bool ok[kSteps];
    if constexpr (!F::kValueMode) {
        // Floats: the full steps and the last partial one share one copy of the counting code per
        // rule (half the code, and compile time, of a separate partial step; one compare per vector).
        zero();
        for (uint64_t s = 0; s <= full; ++s, q += step) {
            load_rest(rest, ok, s < full ? uint32_t(step) : left);
            count_some(rest, ok);
            counted();
        }
    } else if (full == 0) {
        // A small image: all of the block's vectors are on their way while the counters are zeroed.
        load_rest(rest, ok, left);
        zero();
        count_rest(rest, ok);
    } else if (!kSelect && P.ahead) {  // (a selection's drops need the registers of the second buffer)
        // Two register buffers: the loads of step s + 1 are in flight while step s is counted,
        // and the first loads while the counters are zeroed. 8-bit only: with float samples the
        // two buffers spilled registers (ptxas, 64 per thread), so floats ignore P.ahead.
        uint4 a[kSteps], b[kSteps];
        load(q, a);
        zero();
        for (uint64_t s = 0; s < full;) {
            if (s + 1 < full) load(q + step, b);
            count(a);
            counted();
            ++s;
            q += step;
            if (s == full) break;
            if (s + 1 < full) load(q + step, a);
            count(b);
            counted();
            ++s;
            q += step;
        }
        load_rest(rest, ok, left);
        count_rest(rest, ok);
    } else if (!kSelect && P.early) {
        // The first step's loads are in flight while the counters are zeroed.
        uint4 a[kSteps];
        load(q, a);
        zero();
        for (uint64_t s = 0;;) {
            count(a);
            counted();
            q += step;
            if (++s == full) break;
            load(q, a);
        }
        load_rest(rest, ok, left);
        count_rest(rest, ok);
    } else {
        zero();
        for (uint64_t s = 0; s < full; ++s, q += step) {
            uint4 a[kSteps];
            load(q, a);
            count(a);
            counted();
        }
        load_rest(rest, ok, left);
        count_rest(rest, ok);
    }
    if (blockIdx.x == gridDim.x - 1) {
        // The pixels before the first and after the last whole vector.
        const uint64_t tail = rs.head + nvec * kPx;
        const uint32_t edges = uint32_t(rs.head + (d.row_px - tail));
        for (uint32_t e = t; e < edges; e += nt) {
            const uint64_t x = e < rs.head ? e : tail + (e - rs.head);
            count_pixel_at<F, kSelect>(P, ctr, load_pixel_bytes<F>(d.base + x * F::kPixelBytes), 0, x, kept);
        }
    }
    if constexpr (kSelect) add_selected(P, kept);
    flush<F>(P, sh, ctr.acc, true);
    if (!P.slot_merge) {
        finish_image(P, d);
    } else if (F::kValueMode && blockIdx.x == 0) {
        // 8-bit values that are their own bins never reach nan, below or above: zero in out.
        for (uint32_t e = t; e < P.bin.channels * IH_EXTRA_SLOTS; e += nt)
            P.out[(e / IH_EXTRA_SLOTS) * P.spc + P.bin.bins + e % IH_EXTRA_SLOTS] = 0;
    }
}

using KernelFn = void (*)(KernelParams);

// One per histogram_<sample>.cu: the kernel for `channels` samples per pixel and `layout`.
KernelFn kernels_u8(int channels, int layout);
KernelFn kernels_u16(int channels);
KernelFn kernels_f16(int channels);
KernelFn kernels_f32(int channels);
// The packed fast path (packed_kernel): channels 1 or 4; nch 1..kMaxChannels; luma 0/1; nullptr
// where there is none. 8-bit in histogram_u8.cu, half and float from packed_float<Sample>.
// `select`: the kSelect variant (KernelParams::select).
KernelFn packed_u8(int channels, int nch, bool luma, bool select);
KernelFn packed_f16(int channels, int nch, bool luma, bool select);
KernelFn packed_f32(int channels, int nch, bool luma, bool select);

// The float kernels exist for the plans a gray or RGBA image can have (packed_float_source):
// gray; R,G,B; R,G,B,A; Y; A,Y; R,G,B,Y; R,G,B,A,Y.
template <int Sample, bool kSelect = false>
KernelFn packed_float(int channels, int nch, bool luma) {
    if (channels == 1) return nch == 1 && !luma ? packed_kernel<Sample, 1, 1, 0, kSelect> : nullptr;
    if (channels != 4) return nullptr;
    if (!luma)
        return nch == 3 ? packed_kernel<Sample, 4, 3, 0, kSelect> : nch == 4 ? packed_kernel<Sample, 4, 4, 0, kSelect> : nullptr;
    switch (nch) {
        case 1: return packed_kernel<Sample, 4, 1, 1, kSelect>;
        case 2: return packed_kernel<Sample, 4, 2, 1, kSelect>;
        case 4: return packed_kernel<Sample, 4, 4, 1, kSelect>;
        case 5: return packed_kernel<Sample, 4, 5, 1, kSelect>;
        default: return nullptr;
    }
}

// The kSelect kernels (KernelParams::select), one per sample type in histogram_<sample>.cu.
KernelFn selected_u8(int channels);
KernelFn selected_u16(int channels);
KernelFn selected_f16(int channels);
KernelFn selected_f32(int channels);
template <int Sample>
KernelFn pick_selected(int channels) {
    return channels == 1   ? histogram_kernel<Sample, 1, kAnyLayout, true>
           : channels == 3 ? histogram_kernel<Sample, 3, kAnyLayout, true>
                           : histogram_kernel<Sample, 4, kAnyLayout, true>;
}

template <int Sample, int L>
KernelFn pick(int channels) {
    return channels == 1 ? histogram_kernel<Sample, 1, L> : channels == 3 ? histogram_kernel<Sample, 3, L>
                                                                            : histogram_kernel<Sample, 4, L>;
}

}  // namespace kernels
}  // namespace imghist::cuda_detail
