// The opencl backend's tuning (src/gpu/tuning.hpp): its fields, with a line of help each, and
// its device families are the table in opencl_tuning.cpp; IMGHIST_OPENCL_TUNE="key=value,..."
// overrides them for measurements and tests (docs/performance.md). 0 and -1 (auto) leave the
// choice to the planner (opencl_planner.cpp).
#pragma once

#include <cstdint>

#include "gpu/tuning.hpp"

namespace imghist::ocl {

enum class LayoutKind { any, copies, lanes, pairs };

struct Tune {
    unsigned wg = 0, gpc = 0, groups = 0, copies = 0, loads = 0;
    LayoutKind layout = LayoutKind::any;
    int pack = -1, value = -1, merge_atomic = -1, fast = -1, spec = -1, swizzle = -1;
    bool force_global = false;
    std::uint64_t max_local = 0, tile_pixels = 0, launch_pixels = 0;
    std::int64_t reserve = -1;

    bool operator==(const Tune&) const = default;
};

const gpu::TuningTable<Tune>& tuning_table();
// The defaults, `device`'s family and IMGHIST_OPENCL_TUNE; throws InvalidArgument.
Tune tune_for(const gpu::DeviceIdentity& device);

}  // namespace imghist::ocl
