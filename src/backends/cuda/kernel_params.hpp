// The CUDA histogram kernel's arguments, shared by the host code (compiled by the C++ compiler)
// and the kernels (histogram*.cu, compiled by nvcc). Plain data only: the bin math's arguments
// are the contract's ih_bin_args (HistogramPlan::bin_args), nothing is derived here.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "contract/kernel_args.h"

namespace imghist::cuda_detail {

inline constexpr int kMaxChannels = 5;  // R, G, B, A, Y
inline constexpr int kParamImages = 2;     // descriptors passed in the kernel's parameters
inline constexpr int kMaxLaunchImages = 1 << 16;  // more go to device memory, up to this many
inline constexpr int kMaxBlock = 1024;
// The per-slot merge (KernelParams::slot_merge): a block adds its last counts to an acc word
// together with one arrival in bits kArrivalShift and up, so the block whose add brings the
// last arrival knows the slot's total. Counts stay below 2^54 (no image has that many pixels)
// and at most kMaxArrivals blocks take part.
inline constexpr int kArrivalShift = 54;
inline constexpr std::uint32_t kMaxArrivals = (1u << (64 - kArrivalShift)) - 1;
// KernelParams::code_lut: the contract's 16-bit codes (ih_code_to_16; IH_CODE16_UNRESOLVED marks
// a float block whose values must be classified one by one).
inline constexpr std::uint32_t kCodeLutEntries = 65536;
inline constexpr std::uint32_t kCodeLutBytes = kCodeLutEntries * 2;
// packed_kernel under a selection: one more row of 32 lane counters behind the counters, where
// dropped pixels count (Drop, the trash row).
inline constexpr std::uint32_t kTrashRowBytes = 32 * 4;

// One kernel per sample type and samples per pixel (ih_format_sample_type, ih_format_samples:
// bgra8 runs as rgba8 and bgr8 as rgb8, with the sample positions of their format); the 8-bit
// ones also per counter layout (kLanes32, kLanes16, any other).
enum KernelFormat : int {
    kGray8, kRgb8, kRgba8,
    kGray16, kRgb16, kRgba16,
    kGrayF16, kRgbF16, kRgbaF16,
    kGrayF32, kRgbF32, kRgbaF32,
    kKernelFormats
};

// Where the shared-memory counters live and how they are laid out: the kernels' numbers of the
// shared gpu::CounterLayout (cuda_shape.cpp, counter_layout, maps them).
enum CounterLayoutCode : std::uint32_t {
    kLanes32 = 0,  // word = slot * 32 + lane: every lane on its own bank, 32-bit counters
    kLanes16 = 1,  // word = (slot / 2) * 32 + lane, two 16-bit counters per word
    kCopies = 2,   // `copies` plain copies of the histogram, 32-bit counters
    kGlobal = 3,   // no shared memory: 64-bit atomics straight into the global accumulator
};

// One image (or one staged piece of one) of a launch. A row is `row_px` pixels at
// base + row * pitch; a packed image is one long row. Work is cut into tiles: a tile is
// `rows_per_tile` whole rows, or (rows_per_tile == 1) one of `segs` pieces of a long row.
struct ImageDesc {
    const unsigned char* base;
    std::uint64_t pitch;
    std::uint64_t row_px;
    std::uint64_t units_per_row;  // vector groups per row (nominal), or pixels when scalar
    std::uint32_t rows;
    std::uint32_t rows_per_tile;
    std::uint32_t segs;
    std::uint32_t tile_begin;  // first tile of this image within the launch
    std::uint32_t tiles;
    std::uint32_t scalar;      // 1: rows are not aligned to whole pixels of 16 bytes: bytewise loads
    std::uint32_t slot_index;  // which accumulator / output / ticket this image counts into
    std::uint32_t reserved;
};

struct KernelParams {
    ih_bin_args bin;  // the bin math's arguments (HistogramPlan::bin_args); bin.channels counted
    std::uint32_t spc, total_slots;  // slots per channel and per image (HistogramPlan)
    // bin's sources unpacked by the host (ih_args_source, ih_args_red/green/blue), so that the
    // per-pixel code reads one parameter word per sample index.
    std::int32_t src[kMaxChannels];  // sample index, or -1 for luminance
    std::uint32_t has_luma;
    std::uint32_t luma_src[3];       // sample indices of red, green, blue

    // Shared-memory counters.
    std::uint32_t value_mode;   // 8-bit samples: count raw values 0..255, classify at the merge
    std::uint32_t hist_slots;   // counters per copy: value_mode ? nch * 256 : total_slots
    std::uint32_t layout;       // CounterLayoutCode
    std::uint32_t copies;       // kCopies: number of copies
    std::uint32_t copy_stride;  // kCopies: words between copies
    std::uint32_t smem_words;   // dynamic shared memory in 32-bit words (multiple of 4)
    std::uint32_t flush_tiles;  // tiles a block may count before its counters must be flushed
    std::uint32_t gpt;          // vector groups (or pixels) per thread per tile
    std::uint32_t finalize;     // 1: the last block of each image moves acc into out, zeroes acc
    std::uint32_t acc_stride;   // counters between two slots of acc (>1 spreads atomics over lines)
    std::uint32_t prefetch;     // 1: thread 0 bulk-prefetches the next tiles into L2
    // The packed fast path (packed_kernel): one image that is one long row of gray or 4-sample
    // pixels (8-bit, half or float), kLanes32; flush_tiles then counts steps, total_tiles == grid.
    std::uint32_t packed;       // 1: launch packed_kernel
    std::uint32_t ahead;        // packed: load a thread's next step before counting the current
    std::uint32_t early;        // packed, 8-bit: a thread's first loads go out before the counters are zeroed
    // packed: merge per slot (see kArrivalShift) instead of the last-block pass. Every acc slot
    // then maps to out slot s (floats) or c * spc + value (8-bit values that classify to
    // themselves), and gridDim.x <= kMaxArrivals.
    std::uint32_t slot_merge;
    // packed, half and float samples (with luminance only in float edge bins with the window,
    // where the luminance's float bits are looked up too): classify codes by table (kCodeLutEntries
    // codes in 16 bits, ih_code_to_16; indexed by a half's bits or a float's top 16 bits),
    // copied into shared memory behind the counters; nullptr: every sample is classified.
    // Float edge bins: window_entries != 0 puts the code window (core/plan.hpp, FloatCodeWindow:
    // its entries follow the whole table in code_lut) and then the bins + 1 edge keys into shared
    // memory instead of the whole table; samples outside the window read the table in device
    // memory.
    const std::uint16_t* code_lut;
    std::uint32_t window_shift, window_first, window_entries;
    // Edge bins (bin.edges): the plan's bins + 1 edge keys in device memory (edge_keys()).
    const std::uint32_t* edge_keys;

    // Masks and alpha thresholds of a device image (select = 1: histogram_kernel's kSelect
    // variant, one image per launch, any layout): a pixel counts only where select_mask (a gray8
    // image of the same rows, or null) is non-zero and its sample alpha_sample passes the alpha
    // test (contract/selection.h); the pixels counted are added to *selected.
    std::uint32_t select;
    std::uint32_t alpha_kind, alpha_least, alpha_sample;
    const unsigned char* select_mask;
    std::uint64_t select_mask_pitch;
    unsigned long long* selected;

    // Work.
    std::uint32_t nimg, total_tiles;
    unsigned long long* acc;   // [slot_index][total_slots * acc_stride], zero between calls
    unsigned long long* out;   // [slot_index][total_slots], written when finalize
    std::uint32_t* tickets;    // [slot_index], zero between calls
    // Descriptors: in device memory for batches (img_dev), else in the parameters (kept small,
    // since every launch copies them).
    const ImageDesc* img_dev;
    ImageDesc img[kParamImages];
};

// Bytes per pixel group that one thread loads with 16-byte loads: 16, or 48 for 3-sample
// pixels of 1, 2 or 4 bytes (16 pixels of rgb8, 8 of rgb16/rgb_f16, 4 of rgb_f32).
constexpr int group_bytes(int pixel_bytes) { return pixel_bytes % 3 == 0 ? 48 : 16; }
// Most groups one thread has in flight per tile (rgb8: one 48-byte group of 16 pixels, which
// is already three 16-byte loads, and keeps its hot loop within 64 registers).
constexpr int max_gpt(int pixel_bytes) {
    return group_bytes(pixel_bytes) == 16 ? 4 : pixel_bytes == 3 ? 1 : 2;
}

// One histogram launch kept as an instantiated single-node CUDA graph. Replaying it costs the
// host less than a kernel launch (H200, one resident 1080p image: 10.9 us launch to finished
// result from a graph, 14.4 us launched directly), so single-image calls go through it; the
// node's parameters are rewritten only when they change, and a changed kernel rebuilds it.
struct LaunchGraph {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    cudaGraphNode_t node = nullptr;
    const void* fn = nullptr;
    unsigned grid = 0, block = 0;
    std::size_t smem = 0;
    KernelParams params{};

    LaunchGraph() = default;
    LaunchGraph(const LaunchGraph&) = delete;
    LaunchGraph& operator=(const LaunchGraph&) = delete;
    ~LaunchGraph() { reset(); }
    void reset();
};

// Implemented in histogram.cu. With `graph`, the launch goes through it (unless `stream` is
// being captured into the caller's own graph: then it is launched directly).
cudaError_t launch_histogram(KernelFormat format, const KernelParams& params, unsigned grid,
                             unsigned block, std::size_t smem_bytes, cudaStream_t stream,
                             LaunchGraph* graph = nullptr);
// Raises the kernels' dynamic shared-memory limit to what a block may have; lowers
// *dynamic_limit to the smallest such limit (block_limit less the static shared memory).
cudaError_t allow_shared_memory(KernelFormat format, int block_limit, int* dynamic_limit);
cudaError_t blocks_per_sm(KernelFormat format, int layout, int block, std::size_t smem_bytes, int* blocks,
                          int nch = 0, bool luma = false);
cudaError_t kernel_registers(KernelFormat format, int layout, int* registers, int nch = 0, bool luma = false);
// The packed fast path (packed_kernel) exists for gray and 4-sample pixels of every sample type
// but 16-bit; `layout` kPacked in blocks_per_sm / kernel_registers means it
// (with the plan's channels and luminance). Not every (nch, luma) has a kernel: has_packed_kernel.
inline constexpr int kPacked = 4;
// `layout` kSelected in blocks_per_sm / kernel_registers: the kSelect kernel (KernelParams::select).
inline constexpr int kSelected = 5;
inline constexpr int kPackedSteps = 4;  // packed_kernel: 16-byte vectors per thread per step
inline constexpr bool has_packed(KernelFormat f) {
    return f == kGray8 || f == kRgba8 || f == kGrayF16 || f == kRgbaF16 || f == kGrayF32 || f == kRgbaF32;
}
bool has_packed_kernel(KernelFormat f, int nch, bool luma);  // histogram.cu
// The float packed kernels read each channel's sample from a position fixed at compile time by
// (samples per pixel, nch, luma), following the plan's channel order R, G, B, [A], [Y]: gray
// sample 0; RGBA: channel c is sample c when R, G, B are counted, else the one non-luminance
// channel is alpha (3); luminance (-1, from samples 0, 1, 2) is last. The host takes them only
// for plans whose sources are exactly these.
__host__ __device__ constexpr int packed_float_source(int channels, int nch, int luma, int c) {
    if (luma != 0 && c == nch - 1) return -1;
    if (channels == 1) return 0;
    return nch - luma == 1 ? 3 : c;
}

}  // namespace imghist::cuda_detail
