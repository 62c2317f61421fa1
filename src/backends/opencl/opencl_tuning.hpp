// The opencl backend's tuning knobs (IMGHIST_OPENCL_TUNE), parsed once per engine. The
// defaults that they override are the planner's (opencl_planner.cpp).
#pragma once

#include <cstdint>

namespace imghist::ocl {

// Defaults come from the device; IMGHIST_OPENCL_TUNE="key=value,..." overrides them for
// measurements and tests (docs/performance.md): wg, gpc (work-groups per compute unit),
// groups (work-groups per launch, instead of gpc), layout (copies/lanes/pairs), copies,
// pack (0/1), value (0/1), loads (2/4), merge (atomic/sum), fast (0/1), spec (0/1),
// global (0/1), max_local (bytes), tile_pixels, launch_pixels, reserve (bytes of local memory
// kept for the kernel itself, instead of CL_KERNEL_LOCAL_MEM_SIZE: reserve=0 offers a layout all
// of CL_DEVICE_LOCAL_MEM_SIZE, to see whether the device runs it), swizzle (0/1: value-mode
// slots spread over the banks, ih_value_swizzle).
enum class LayoutKind { any, copies, lanes, pairs };

struct Tune {
    unsigned wg = 0, gpc = 0, groups = 0, copies = 0, loads = 0;
    LayoutKind layout = LayoutKind::any;
    int pack = -1, value = -1, merge_atomic = -1, fast = -1, spec = -1, swizzle = -1;
    bool force_global = false;
    std::uint64_t max_local = 0, tile_pixels = 0, launch_pixels = 0;
    std::int64_t reserve = -1;
};


// IMGHIST_OPENCL_TUNE, checked; throws InvalidArgument.
Tune parse_tune();

}  // namespace imghist::ocl
