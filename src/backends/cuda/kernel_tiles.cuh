// The general CUDA kernel (histogram_kernel): tiles of image rows counted by each block, its
// counters flushed into the 64-bit accumulators, and the last block's finished image.
#pragma once

#include "kernel_selection.cuh"

namespace imghist::cuda_detail {
namespace kernels {

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

}  // namespace kernels
}  // namespace imghist::cuda_detail
