// Launch decisions of the CUDA backend: pure functions from a plan, the device's limits and the
// tuning to a launch shape and image descriptors. No CUDA call is made here (the occupancy
// calculator's answers come in through Occupancy), so tests check them without a device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/plan.hpp"
#include "cuda_tune.hpp"
#include "gpu/launch_plan.hpp"
#include "imghist/image.hpp"
#include "kernel_params.hpp"

namespace imghist::cuda_detail {

// What the decisions need to know about the device.
struct DeviceLimits {
    unsigned multiprocessors = 0;
    std::size_t dynamic_smem = 0;  // dynamic shared memory a block of any kernel may have
};

// Resident blocks per multiprocessor of one kernel (blocks_per_sm's answer, at least 1). `layout`
// is a CounterLayoutCode, or kPacked with the plan's channels and luminance.
using Occupancy = std::function<int(KernelFormat format, int layout, unsigned block, std::size_t smem, int nch,
                                    bool luma)>;

// The kernel that counts a pixel format: by sample type and samples per pixel only (the
// format's sample positions travel in the parameters).
KernelFormat kernel_format(PixelFormat format);

// How every launch of one plan is made: the kernel, its block and shared memory, the plan's
// parameters (the per-launch work fields are filled by the launch).
struct Shape {
    KernelParams params{};
    KernelFormat format{};
    unsigned block = 0;
    std::size_t smem = 0;
    unsigned grid_cap = 0;
    std::uint32_t pixel_bytes = 0, pixels_per_group = 0, align = 0, edge_rows_cap = 0;
    // The packed fast path (packed_kernel), when the plan has one.
    bool packed = false;
    unsigned packed_grid_cap = 0;
    std::uint32_t packed_flush_steps = 0;
    bool slot_merge = false;  // its last flush may merge per slot (KernelParams::slot_merge)
    bool code_lut = false;    // it may look float codes up (KernelParams::code_lut)
    unsigned code_lut_grid_cap = 0;
    std::size_t code_lut_smem = 0;  // shared bytes behind the counters: the whole table, or window and keys
    FloatCodeWindow code_window;    // float edge bins (KernelParams::window_entries)
    std::vector<std::uint32_t> edge_keys_host;  // the plan's edge keys (params.edge_keys: their device copy)
};

Shape decide_shape(const HistogramPlan& plan, const DeviceLimits& device, const Tune& tune,
                   const Occupancy& occupancy);

// One contiguous run of rows to count: an image, or a staged piece of one.
struct Piece {
    const unsigned char* base;
    std::uint64_t pitch;
    std::uint64_t row_px;
    std::uint32_t rows;
    std::uint32_t slot;
};
// The piece of a whole image: a packed image is one long row.
Piece piece_of(const ImageView& image, std::uint32_t slot);
Piece piece_of(const DeviceImage& image, std::uint32_t slot);
// Piece i of images[i], slot i.
std::vector<Piece> pieces_of(std::span<const DeviceImage> images);

// The descriptor of a piece: its tiles and how they are loaded (tile_begin left 0).
ImageDesc describe(const Shape& shape, const Piece& piece, bool force_scalar);

// Whether a piece goes to packed_kernel: the shape has it, and the piece is one pixel-aligned row.
bool takes_packed(const Shape& shape, const Piece& piece);
// packed_kernel's work fields for one piece; `lut`: it looks float codes up (code_lut is set by
// the caller). Returns the grid.
unsigned decide_packed(Shape& shape, const Piece& piece, bool lut, const Tune& tune);

// A CounterLayoutCode in the shared vocabulary.
gpu::CounterLayout counter_layout(std::uint32_t code);
// The launch of one piece in the shared vocabulary (without the code table), for reports and tests.
gpu::LaunchDescription launch_description(const Shape& shape, const Piece& piece, const DeviceLimits& device,
                                          const Tune& tune);

}  // namespace imghist::cuda_detail
