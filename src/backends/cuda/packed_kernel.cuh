// The packed CUDA kernel (packed_kernel): one image as one long row, its vectors split evenly
// over the blocks, and its counts merged slot by slot.
#pragma once

#include "kernel_tiles.cuh"

namespace imghist::cuda_detail {
namespace kernels {

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

}  // namespace kernels
}  // namespace imghist::cuda_detail
