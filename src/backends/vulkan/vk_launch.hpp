// The decisions of the vulkan backend, apart from the Vulkan calls that carry them out: from a
// plan, the device's limits and the tuning to the launch plan of one image (shared layout,
// channel passes, specialization constants and push constants of each pass, tiles and their
// work-group counts). Pure functions: tests run them without a device (test_launch_plan.cpp).
#pragma once

#include <compare>
#include <cstdint>
#include <vector>

#include "core/plan.hpp"
#include "core/selection.hpp"
#include "gpu/launch_plan.hpp"

namespace imghist::vk {

// Shared-memory counter layouts of histogram.comp (its LAYOUT constant; counter_layout names them).
enum class SharedLayout : std::uint32_t {
    copies = 0,  // `copies` copies of every slot
    lanes = 1,   // one 32-bit counter per slot and lane
    pairs = 2,   // two lanes' 16-bit counters per word
};

// Shader choices (docs/performance.md, "## Vulkan", has the H200 sweeps behind them); their
// keys and device families: vk_tuning.cpp.
struct Tuning {
    // Lanes and pairs take 32-48 KiB of shared memory per work-group, and NVIDIA's driver then
    // keeps fewer work-groups per SM. With 1024 invocations per work-group, pairs held 55-62% of
    // the floor on every R, G, B distribution of the H200 sweep; one copy 57-96% but 28% on
    // bank-adversarial data, and one copy with the value swizzle 57-92% on all four: that is the
    // default. A layout that does not fit the device falls back to copies.
    SharedLayout layout = SharedLayout::copies;
    bool value_mode = true;        // 8-bit samples: count raw values, classify in the merge
    std::uint32_t max_copies = 1;  // copies layout: shared copies of every slot (power of two, <= 32)
    std::uint32_t rounds = 8;      // rounds of 4 units (16 or 48 bytes each) per invocation
    // Invocations per work-group (a multiple of 32, at most the device's). 1024 measured 2-15%
    // faster than 256 on the H200 with one copy, and lets lanes/pairs keep the SM busy.
    std::uint32_t group_size = 1024;
    // Copies layout: spread slots over the banks (when copies < 32). -1 (the default): value-mode
    // passes that count a raw sample, with the two-instruction value swizzle (histogram.comp), so
    // values 32 apart do not share a bank; luminance alone (78 against 80%) and bins are left as
    // they are. 0: never; 1: every pass.
    int swizzle = -1;
    std::uint64_t max_tile_pixels = gpu::kMaxLaunchPixels;  // per dispatch (< 2^32: 32-bit counters)
    // Host images (vulkan_backend.cpp): MiB of rows per staging chunk; threads filling the
    // staging buffers (0: every core, up to 16); and whether each chunk is copied into
    // device-local memory before it is counted (-1: where the staging memory is not
    // device-local, as on discrete GPUs, whose shaders would otherwise read every pixel across
    // the bus: 8K RGBA f32 took 219-264 ms on the H200 against CUDA's 27).
    std::uint32_t chunk_mb = 16;
    std::uint32_t copy_threads = 0;
    int device_copy = -1;
    // Float edge bins: the most 16-bit entries of the code table window kept in shared memory
    // (core/plan.hpp, FloatCodeWindow; 8192 take 16 KiB), read instead of the whole table in
    // device memory. 0: the whole table only.
    std::uint32_t code_window = 8192;

    bool operator==(const Tuning&) const = default;
};

// What the launch plan needs to know of a device (VkPhysicalDeviceLimits and float controls).
struct DeviceLimits {
    std::uint32_t shared_bytes = 0;            // maxComputeSharedMemorySize
    std::uint32_t max_invocations = 0;         // per work-group, along x
    std::uint32_t max_groups_x = 0, max_groups_y = 0;
    std::uint64_t offset_alignment = 16;       // of storage-buffer bindings (at least 16)
    std::uint64_t max_range = 0;               // bytes one storage-buffer binding may span (< 2^32)
    bool denorm_preserve = false;              // fp32 shaders keep denormals (DenormPreserve)
};

// Largest bin count one channel of one copy fits in the shared memory.
std::uint32_t max_bins(const DeviceLimits& limits);

// What record_image() dispatches, for reports and the benchmark.
struct Shape {
    std::uint32_t passes = 1, channels_per_pass = 1, copies = 1, group_size = 256;
    SharedLayout layout = SharedLayout::copies;
    bool value_mode = false;
    bool strided = false;
    // Edge bins: every work-group copies the edge keys into shared memory, and for floats the
    // code window (entries == 0: none), where they fit beside the counters.
    bool shared_keys = false;
    FloatCodeWindow code_window;
};

// histogram.comp's specialization constants, in constant_id order (entry i at offset 4 i).
struct SpecConstants {
    std::uint32_t channels = 1;
    std::uint32_t sources[5] = {};  // ih_args_source of each channel
    std::uint32_t bins = 0, int_mode = 0, shift = 0, clamp = 0, closed_top = 0;
    std::uint32_t copies = 1, swizzle = 0, rounds = 1, strided = 0;
    std::uint32_t red = 0, green = 0, blue = 0;  // ih_args_red, ih_args_green, ih_args_blue
    std::uint32_t has_luma = 0, layout = 0, value_mode = 0, group_size = 256;
    std::uint32_t edges = 0;  // ih_bin_args::edges
    std::uint32_t tiles = 0;  // 1: a row of tiles of a tile grid (plan_tile_launch)
    std::uint32_t window_shift = 16, window_first = 0, window_words = 0;  // Shape::code_window
    std::uint32_t shared_keys = 0;                                        // Shape::shared_keys
    // A device selection (Selection): the mask is read, the alpha test (IH_ALPHA_ALL: none) of
    // sample alpha_sample applied, and (the first pass) the selected pixels counted.
    std::uint32_t select_mask = 0, alpha_kind = 0, alpha_sample = 0, count_selected = 0;
    auto operator<=>(const SpecConstants&) const = default;
};
inline constexpr std::uint32_t kSpecConstants = 32;
static_assert(sizeof(SpecConstants) == kSpecConstants * 4);

// One channel pass: its kernel arguments and its pipeline's constants.
struct PassLaunch {
    ih_bin_args bin;
    SpecConstants spec;
    std::uint32_t out_slot = 0;  // first work counter of the pass's channels
};

// Bytes of a buffer as one storage binding: [bind_offset, bind_offset + bind_bytes), the
// first byte wanted `base_byte` into it.
struct BufferBinding {
    std::uint64_t bind_offset = 0, bind_bytes = 0;
    std::uint32_t base_byte = 0;
};

// Pixels counted only where a device mask (a gray8 DeviceImage of the image's size, or none)
// and an alpha test select them (histogram.comp's selection constants).
struct Selection {
    const DeviceImage* mask = nullptr;
    AlphaTest alpha;
};

// One dispatch of every pass: `pixels` pixels whose first byte lies `base_byte` into the
// binding [bind_offset, bind_offset + bind_bytes) of the image's buffer; with a mask, the mask
// bytes of the same pixels in `mask`.
struct TileLaunch : BufferBinding {
    BufferBinding mask;
    std::uint32_t pixels = 0;
    std::uint32_t groups_x = 0, groups_y = 0;
    // A tile grid's dispatch (plan_tile_launch): rows of the grid's row of tiles `tile_row`,
    // each tile of it counted by `groups_per_piece` work-groups.
    std::uint32_t tile_row = 0, groups_per_piece = 0;
};

struct LaunchPlan {
    Shape shape;
    int variant = 0;  // compiled shader: sample type * 3 + (1, 3 or 4 samples)
    std::vector<PassLaunch> passes;
    std::vector<TileLaunch> tiles;
    std::uint32_t total_slots = 0;  // 32-bit work counters, and 64-bit totals
    // The totals bound from an aligned offset; the flush indexes from first_total.
    std::uint64_t totals_bind = 0, totals_bytes = 0;
    std::uint32_t first_total = 0;
    // A tile grid (plan_tile_launch): tiles per row of tiles and counters per tile (total_slots
    // covers every tile); flush_each: the work counters go to the totals after every dispatch,
    // else once after all of them (no tile can reach 2^32 pixels in between).
    std::uint32_t tiles_x = 0, tile_slots = 0;
    bool flush_each = true;
    // A selection: work counter 0 (total 0) counts the selected pixels, the plan's follow it.
    bool counts_selected = false;
};

// Where a band of rows lies in a tile grid: its area's height, the grid, and the area row of
// the band's first row.
struct GridRows {
    std::uint32_t area_height = 0, tiles_x = 0, tiles_y = 0, first_row = 0;
};

// The Shape of `plan` over `image` (memory unused).
Shape decide_shape(const HistogramPlan& plan, const DeviceImage& image, const DeviceLimits& limits,
                   const Tuning& tuning);
// Everything record_image() dispatches for `image` counted into totals at `totals_offset`, only
// the pixels `selection` selects where it is given. Throws InvalidArgument for more bins than
// max_bins(), a bad tile size or totals offset, or rows (of the image or the mask) larger than
// one binding.
LaunchPlan plan_launch(const HistogramPlan& plan, const DeviceImage& image, std::uint64_t totals_offset,
                       const DeviceLimits& limits, const Tuning& tuning, const Selection* selection = nullptr);

// The dispatches of `band` (rows of a tile grid's area, `grid.first_row` on) counted into the
// counters of the grid's tiles ([tile][plan.total_slots()]), totals at `totals_offset`: one
// dispatch per row of tiles the band crosses (more where a binding cannot hold its rows). Tile
// passes use 32-bit shared counters (no lane pairs).
LaunchPlan plan_tile_launch(const HistogramPlan& plan, const DeviceImage& band, const GridRows& grid,
                            std::uint64_t totals_offset, const DeviceLimits& limits, const Tuning& tuning);

// A shared layout in the shared vocabulary.
gpu::CounterLayout counter_layout(SharedLayout layout);
// The launch plan of `plan` over `image` in the shared vocabulary, for reports and tests.
gpu::LaunchDescription launch_description(const HistogramPlan& plan, const LaunchPlan& launch, const DeviceImage& image,
                                const DeviceLimits& limits);

}  // namespace imghist::vk
