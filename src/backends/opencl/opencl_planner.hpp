// The opencl backend's decisions, apart from the code that launches them: from a plan, the
// pixels' layout, the device's limits and the tuning, which kernels count which channels with
// which local layout, in which tiles and launches (plan_launch). No OpenCL call is made
// here, so tests can check the decisions without a device (tests/opencl/test_opencl_planner.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backends/opencl/opencl_launch.h"
#include "backends/opencl/opencl_tuning.hpp"
#include "core/plan.hpp"
#include "gpu/launch_plan.hpp"

static_assert(sizeof(ih_bin_args) == 96, "ih_bin_args: host and OpenCL C layouts must agree");
static_assert(sizeof(ih_cl_launch) == 13 * 4, "ih_cl_launch: host and OpenCL C layouts must agree");
static_assert(sizeof(ih_cl_select) == 6 * 4, "ih_cl_select: host and OpenCL C layouts must agree");

namespace imghist::ocl {

// What the planner needs to know of the device (clGetDeviceInfo).
struct DeviceLimits {
    std::string name;
    bool gpu = false;
    unsigned compute_units = 1;
    std::uint64_t local_mem = 0, max_alloc = 0;
    std::size_t max_work_group = 1;
};

// A kernel's own limits (clGetKernelWorkGroupInfo; the same for every build of it).
struct KernelLimits {
    std::size_t work_group = 0;     // CL_KERNEL_WORK_GROUP_SIZE
    std::uint64_t local_bytes = 0;  // CL_KERNEL_LOCAL_MEM_SIZE
};
using KernelLimitsByName = std::map<std::string, KernelLimits, std::less<>>;

// The histogram kernels of histogram.cl that the planner chooses among (the tile kernels
// included).
std::vector<std::string> histogram_kernel_names();
// The program option of the kernels' selection variant (histogram.cl, IH_SELECT).
inline constexpr const char* kSelectOption = " -DIH_SELECT";

// Where the pixels come from: host memory and images are staged into a device buffer tile by
// tile, a caller's buffer is read in place.
enum class PixelSource { host, buffer, image };

struct PixelLayout {
    PixelSource source = PixelSource::host;
    std::uint32_t width = 0, height = 0;
    std::uint64_t stride_bytes = 0;  // from one row to the next
    std::uint64_t offset_bytes = 0;  // a buffer's first pixel
    // The pixels are a tile grid's area, counted in one pass by the tile kernels
    // (ih_hist_tiles_*): tiles by whole rows, 32-bit local counters, merged by global atomics.
    bool tile_grid = false;
    // A mask or an alpha threshold, counted by the kernels' selection variant (-D IH_SELECT);
    // the mask's rows are mask_stride_bytes apart (0: no mask); the alpha test's kind
    // (IH_ALPHA_*) and sample, compiled in as constants like the mask's presence.
    bool selects = false;
    std::uint64_t mask_stride_bytes = 0;
    std::uint32_t alpha_kind = 0, alpha_sample = 0;
};

// How the pixels are cut into tiles: every 32-bit result counter stays below 2^32, and a staged
// tile fits one buffer. Staged tiles and strided buffers go by whole rows; a packed buffer by
// pixel ranges (multiples of 4 pixels, so 16-byte loads stay aligned).
struct Tiling {
    bool staged = true;
    bool by_pixels = false;
    bool packed = true;                 // rows follow each other without padding
    std::uint64_t stride_samples = 0;   // row pitch, in samples
    std::uint64_t base_samples = 0;     // a buffer's first pixel, in samples
    std::uint64_t tile_rows = 0, tile_pixels = 0, tiles = 0;
};

// How one pass over the pixels counts channels [first_channel, first_channel + bins.channels).
struct PassConfig {
    unsigned first_channel = 0;
    bool global = false;  // no local memory: global atomics
    bool fast = false;    // ih_hist_u8x4
    std::size_t work_group = 0, max_groups = 0;
    std::uint64_t launch_units = 0;  // most units (pixels, or 4-pixel vectors) per launch
    ih_bin_args bins{};              // HistogramPlan::bin_args of the pass
    ih_cl_launch launch{};           // all but the per-tile fields (width, stride, packed)
    std::string kernel_name;
    std::string program_options;     // -D IH_C_* of the program the kernel comes from

    unsigned pixels_per_unit() const { return fast ? 4u : 1u; }
    std::uint64_t local_slot_count() const { return std::uint64_t(bins.channels) * launch.local_slots; }
};

struct LaunchPlan {
    Tiling tiling;
    std::vector<PassConfig> passes;
    std::string note;  // for the Result, when the histogram did not fit the local memory at once
};

// The tiles of a histogram pass (the sample statistics walk the same rows).
Tiling plan_tiles(const FormatInfo& fi, const PixelLayout& px, const DeviceLimits& device, const Tune& tune);
// A kernel name's suffix for a sample type: u8, u16, f16, f32.
std::string sample_suffix(SampleType t);

LaunchPlan plan_launch(const HistogramPlan& plan, const PixelLayout& pixels, const DeviceLimits& device,
                       const KernelLimitsByName& kernels, const Tune& tune);

// A pass's local counters in the shared vocabulary (from its ih_cl_launch::pack).
gpu::CounterLayout counter_layout(const PassConfig& pass);
// The plan in the shared vocabulary, for reports and tests.
gpu::LaunchDescription launch_description(const LaunchPlan& lp, const PixelLayout& pixels, const DeviceLimits& device);

using gpu::ceil_div;
using gpu::kMaxLaunchPixels;

}  // namespace imghist::ocl
