// The sample statistics' kernels (sample_stats_kernels.hpp): the contract's first-pass counters
// (contract/exact_sum.h) and the float channels' second pass, over the pixels of a device image
// that its mask and alpha threshold select. Every rule is the contract's: the code of a sample,
// the luminance, the bucket, mantissa and square parts of a float, its total-order key.
//
// Each thread walks pixels over a grid-stride loop. Counters that fit a block's shared memory
// (8-bit codes: 256 a channel; a float channel's bucket sums and infinities: 1,026) are kept
// there per block, in 64 bits, so that no partial can overflow (a block would need 2^40 samples),
// and added to the global counters once when the block ends. The 65,536 codes of 16-bit and half
// samples and the top-16 key counts go straight to global memory, with equal codes of a warp
// added once (add_code).
#include "contract/binning.h"
#include "contract/exact_sum.h"
#include "contract/half.h"
#include "contract/luminance.h"
#include "contract/selection.h"
#include "sample_stats_kernels.hpp"

namespace imghist::cuda_detail {

namespace {
enum : int { kU8, kU16, kF16, kF32 };  // SampleType's order
constexpr unsigned kStatsThreads = 256;
constexpr std::uint32_t kNoCode = 0xFFFFFFFFu;  // no code a lane counts (codes are below 2^31)

// The counters of a channel kept in shared memory, and the first of its global slots they stand for.
__host__ __device__ std::uint32_t local_slots(std::uint32_t kind, int sample) {
    if (kind == kStatsFloatValues) return IH_STATS_SLOTS - IH_STATS_POSITIVE;
    return kind == kStatsIntegerCodes && sample == kU8 ? 256u : 0u;
}
__host__ __device__ std::uint32_t local_first_slot(std::uint32_t kind) {
    return kind == kStatsFloatValues ? IH_STATS_POSITIVE : 0u;
}

template <int Sample>
__device__ __forceinline__ std::uint32_t load_sample(const unsigned char* pixel, std::uint32_t i) {
    if constexpr (Sample == kU8) return __ldg(pixel + i);
    else if constexpr (Sample == kF32) return __ldg(reinterpret_cast<const std::uint32_t*>(pixel) + i);
    else return __ldg(reinterpret_cast<const std::uint16_t*>(pixel) + i);
}

template <int Sample>
__device__ __forceinline__ float widened(std::uint32_t sample) {
    return __uint_as_float(Sample == kF16 ? ih_half_to_float_bits(sample) : sample);
}

// What channel c counts of a pixel: an integer sample or luminance, a half's bits, or fp32 bits
// (a float sample, or the luminance of half and float pixels).
template <int Sample>
__device__ __forceinline__ std::uint32_t channel_value(const StatsParams& P, const unsigned char* pixel, std::uint32_t c) {
    if (P.source[c] >= 0) return load_sample<Sample>(pixel, std::uint32_t(P.source[c]));
    const std::uint32_t r = load_sample<Sample>(pixel, P.rgb[0]), g = load_sample<Sample>(pixel, P.rgb[1]),
                        b = load_sample<Sample>(pixel, P.rgb[2]);
    if constexpr (Sample == kU8 || Sample == kU16) {
        return ih_luma_int(r, g, b, P.weight_int[0], P.weight_int[1], P.weight_int[2]);
    } else {
        return __float_as_uint(ih_luma_float(widened<Sample>(r), widened<Sample>(g), widened<Sample>(b),
                                             P.weight_float[0], P.weight_float[1], P.weight_float[2]));
    }
}

// Whether the pixel at (x, y) counts: its mask byte, then its alpha (half alpha widened exactly).
template <int Sample>
__device__ __forceinline__ bool pixel_selected(const StatsParams& P, const unsigned char* pixel, std::uint32_t x,
                                               std::uint32_t y) {
    if (P.mask != nullptr && __ldg(P.mask + std::uint64_t(y) * P.mask_pitch + x) == 0) return false;
    if (P.alpha_kind == IH_ALPHA_ALL) return true;
    std::uint32_t alpha = load_sample<Sample>(pixel, P.alpha_sample);
    if constexpr (Sample == kF16) alpha = ih_half_to_float_bits(alpha);
    return ih_alpha_passes(P.alpha_kind, P.alpha_least, alpha) != 0;
}

// counters[code] += 1 for each lane whose code is not kNoCode: one atomic per distinct code of
// the warp, so that smooth or constant images do not serialise on one address. Called by all 32
// lanes together (for_each_pixel).
__device__ __forceinline__ void add_code(unsigned long long* counters, std::uint32_t code) {
    const unsigned peers = __match_any_sync(0xFFFFFFFFu, code);
    if (code == kNoCode) return;
    if ((threadIdx.x & 31u) == unsigned(__ffs(peers) - 1)) atomicAdd(counters + code, (unsigned long long)__popc(peers));
}

// A float channel's finite sample or infinity into its bucket sums (local: its 1,026 shared
// counters, from IH_STATS_POSITIVE on) and its top-16 key count (global).
__device__ __forceinline__ void add_float(unsigned long long* local, unsigned long long* global, std::uint32_t bits,
                                          bool counts) {
    const bool finite = counts && ih_is_finite_bits(bits) != 0;
    add_code(global, finite ? ih_float_key(bits) >> 16 : kNoCode);
    if (!counts) return;
    if (!finite) {
        if (bits == IH_POS_INF_BITS) atomicAdd(local + (IH_STATS_POS_INF - IH_STATS_POSITIVE), 1ull);
        if (bits == IH_NEG_INF_BITS) atomicAdd(local + (IH_STATS_NEG_INF - IH_STATS_POSITIVE), 1ull);
        return;
    }
    const std::uint32_t bucket = ih_sum_bucket(bits), m = ih_sum_mantissa(bits);
    const std::uint32_t sum_slot = (ih_sum_negative(bits) ? IH_STATS_NEGATIVE : IH_STATS_POSITIVE) - IH_STATS_POSITIVE;
    if (m != 0) atomicAdd(local + sum_slot + bucket, (unsigned long long)m);
    if (m != 0) atomicAdd(local + (IH_STATS_SQUARES_HIGH - IH_STATS_POSITIVE) + bucket, (unsigned long long)ih_sum_square_high(m));
    const std::uint32_t low = ih_sum_square_low(m);
    if (low != 0) atomicAdd(local + (IH_STATS_SQUARES_LOW - IH_STATS_POSITIVE) + bucket, (unsigned long long)low);
}

// Calls visit(pixel, selected) for every pixel of the image, over the whole grid. Every lane of
// a warp makes the same number of calls (lanes past the last pixel visit the first one, not
// selected), so that add_code's warp-wide match sees all 32 lanes.
template <int Sample, class Visit>
__device__ __forceinline__ void for_each_pixel(const StatsParams& P, const Visit& visit) {
    const std::uint64_t n = std::uint64_t(P.width) * P.height;
    const std::uint64_t pixel_bytes = std::uint64_t(P.samples_per_pixel) * (Sample == kU8 ? 1 : Sample == kF32 ? 4 : 2);
    const std::uint64_t lane = threadIdx.x & 31u;
    for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i - lane < n;
         i += std::uint64_t(gridDim.x) * blockDim.x) {
        const bool in_image = i < n;
        const std::uint64_t p = in_image ? i : 0;
        const auto y = std::uint32_t(p / P.width), x = std::uint32_t(p - std::uint64_t(y) * P.width);
        const unsigned char* pixel = P.pixels + std::uint64_t(y) * P.pitch + x * pixel_bytes;
        visit(pixel, in_image && pixel_selected<Sample>(P, pixel, x, y));
    }
}

template <int Sample>
__global__ void __launch_bounds__(kStatsThreads) sample_sums_kernel(StatsParams P) {
    extern __shared__ unsigned long long local[];
    std::uint32_t local_total = 0;
    for (std::uint32_t c = 0; c < P.channels; ++c) local_total += local_slots(P.kind[c], Sample);
    for (std::uint32_t i = threadIdx.x; i < local_total; i += blockDim.x) local[i] = 0;
    __syncthreads();
    for_each_pixel<Sample>(P, [&](const unsigned char* pixel, bool selected) {
        unsigned long long* channel_local = local;
        for (std::uint32_t c = 0; c < P.channels; ++c) {
            const std::uint32_t v = channel_value<Sample>(P, pixel, c);
            unsigned long long* global = P.sums + std::uint64_t(c) * IH_STATS_SLOTS;
            if (P.kind[c] == kStatsFloatValues) add_float(channel_local, global, v, selected);
            else add_code(local_slots(P.kind[c], Sample) != 0 ? channel_local : global, selected ? v : kNoCode);
            channel_local += local_slots(P.kind[c], Sample);
        }
    });
    __syncthreads();
    const unsigned long long* channel_local = local;
    for (std::uint32_t c = 0; c < P.channels; ++c) {
        unsigned long long* global = P.sums + std::uint64_t(c) * IH_STATS_SLOTS + local_first_slot(P.kind[c]);
        const std::uint32_t slots = local_slots(P.kind[c], Sample);
        for (std::uint32_t i = threadIdx.x; i < slots; i += blockDim.x)
            if (channel_local[i] != 0) atomicAdd(global + i, channel_local[i]);
        channel_local += slots;
    }
}

// The index in P.targets of `top` among channel c's targets, or -1 (a binary search: a channel
// has a few targets, sorted).
__device__ __forceinline__ int find_target(const StatsParams& P, std::uint32_t c, std::uint32_t top) {
    std::uint32_t lo = P.target_first[c], hi = P.target_first[c + 1];
    while (lo < hi) {
        const std::uint32_t mid = (lo + hi) / 2;
        const std::uint32_t t = __ldg(P.targets + mid);
        if (t == top) return int(mid);
        if (t < top) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

template <int Sample>
__global__ void __launch_bounds__(kStatsThreads) key_lows_kernel(StatsParams P) {
    for_each_pixel<Sample>(P, [&](const unsigned char* pixel, bool selected) {
        for (std::uint32_t c = 0; c < P.channels; ++c) {
            if (P.target_first[c] == P.target_first[c + 1]) continue;
            const std::uint32_t bits = channel_value<Sample>(P, pixel, c);
            const std::uint32_t key = ih_float_key(bits);
            const int t = selected && ih_is_finite_bits(bits) ? find_target(P, c, key >> 16) : -1;
            add_code(P.lows, t < 0 ? kNoCode : std::uint32_t(t) * 65536u + (key & 0xFFFFu));
        }
    });
}

// Both kernels of a sample type.
struct StatsKernels {
    void (*sums)(StatsParams);
    void (*lows)(StatsParams);
};
StatsKernels kernels_for(std::uint32_t sample) {
    switch (sample) {
        case kU8: return {sample_sums_kernel<kU8>, key_lows_kernel<kU8>};
        case kU16: return {sample_sums_kernel<kU16>, key_lows_kernel<kU16>};
        case kF16: return {sample_sums_kernel<kF16>, key_lows_kernel<kF16>};
        default: return {sample_sums_kernel<kF32>, key_lows_kernel<kF32>};
    }
}
}  // namespace

void launch_sample_sums(const StatsParams& p, int blocks, cudaStream_t stream) {
    std::size_t local_total = 0;
    for (std::uint32_t c = 0; c < p.channels; ++c) local_total += local_slots(p.kind[c], int(p.sample));
    kernels_for(p.sample).sums<<<unsigned(blocks), kStatsThreads, local_total * sizeof(unsigned long long), stream>>>(p);
}

void launch_key_lows(const StatsParams& p, int blocks, cudaStream_t stream) {
    kernels_for(p.sample).lows<<<unsigned(blocks), kStatsThreads, 0, stream>>>(p);
}

}  // namespace imghist::cuda_detail
