// The CUDA kernels' hot paths over a group of pixels: 8-bit samples by PRMT, float samples by
// their binning rule or by the shared-memory code table, and a row split into its groups.
#pragma once

#include "kernel_pixels.cuh"

namespace imghist::cuda_detail {
namespace kernels {

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

}  // namespace kernels
}  // namespace imghist::cuda_detail
