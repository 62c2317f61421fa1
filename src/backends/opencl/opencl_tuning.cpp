// The opencl backend's tuning table and device families (opencl_tuning.hpp). Plain C++: built on
// every configuration, so tests/gpu/test_tuning.cpp prints it.
#include "backends/opencl/opencl_tuning.hpp"

namespace imghist::ocl {
namespace {

using gpu::Range;

// copies or pack without a layout mean the copies layout (as before layouts had names);
// layout=pairs takes copies too.
void finish(Tune& t) {
    if (t.layout == LayoutKind::any && (t.copies != 0 || t.pack >= 0)) t.layout = LayoutKind::copies;
}

gpu::TuningTable<Tune> make_table() {
    return {"IMGHIST_OPENCL_TUNE",
            {
                gpu::number("wg", &Tune::wg, "work-items per work-group (auto: 256 on GPUs, 64 elsewhere)",
                            Range{.power_of_two = true, .automatic = 0}),
                gpu::number("gpc", &Tune::gpc, "work-groups (partial histograms) per compute unit (auto: 4)",
                            Range{.automatic = 0}),
                gpu::number("groups", &Tune::groups, "work-groups per launch, instead of gpc", Range{.automatic = 0}),
                gpu::number("copies", &Tune::copies, "local copies of every slot, copies and pairs layouts (auto: 1, pairs 16)",
                            Range{.max = 32, .power_of_two = true, .automatic = 0}),
                gpu::tristate("pack", &Tune::pack, "copies layout: two 16-bit slots per word (auto: unpacked, then packed)"),
                gpu::tristate("value", &Tune::value, "8-bit samples: count raw values, bin them at the merge (auto: on)"),
                gpu::number("loads", &Tune::loads, "16-byte loads in flight per work-item (auto: 4 on GPUs, 2 elsewhere)",
                            Range{.min = 2, .max = 4, .power_of_two = true, .automatic = 0}),
                gpu::choice("layout", &Tune::layout,
                            {{"copies", LayoutKind::copies}, {"lanes", LayoutKind::lanes}, {"pairs", LayoutKind::pairs},
                             {"auto", LayoutKind::any}},
                            "local layout: copies, lanes (a counter per lane), pairs (two lanes per word)"),
                gpu::choice("merge", &Tune::merge_atomic, {{"atomic", 1}, {"sum", 0}, {"auto", -1}},
                            "work-groups merge into the result with atomics, or by a sum (auto: atomic)"),
                gpu::tristate("fast", &Tune::fast, "RGBA8: the 16-byte kernel ih_hist_u8x4 where it fits (auto: on)"),
                gpu::tristate("spec", &Tune::spec, "compile the pass's fields as constants, -D IH_C_* (auto: on)"),
                gpu::flag("global", &Tune::force_global, "count with global atomics, no local histogram"),
                gpu::number("max_local", &Tune::max_local, "bytes of local memory a layout may take (0: no cap)"),
                gpu::number("tile_pixels", &Tune::tile_pixels, "pixels per tile at most (0: 2^31)"),
                gpu::number("launch_pixels", &Tune::launch_pixels, "pixels per launch at most (0: no cap)"),
                gpu::number("reserve", &Tune::reserve,
                            "bytes of local memory kept for the kernel itself (auto: CL_KERNEL_LOCAL_MEM_SIZE; 0 offers "
                            "a layout all of CL_DEVICE_LOCAL_MEM_SIZE, to see whether the device runs it)",
                            Range{.automatic = -1}),
                gpu::tristate("swizzle", &Tune::swizzle,
                              "value mode: slots spread over the banks, ih_value_swizzle (auto: passes that count a "
                              "raw sample)"),
            },
            {
                // PoCL and other devices that are not GPUs: the value swizzle spreads a warp's
                // counters over GPU banks, and the -D IH_C_* program is what GPUs were measured
                // with; the generic program keeps value mode, swizzle and loads as constants.
                {"cpu", {.type = gpu::DeviceMatch::Type::not_gpu}, "spec=0,swizzle=0"},
            },
            finish};
}

}  // namespace

const gpu::TuningTable<Tune>& tuning_table() {
    static const gpu::TuningTable<Tune> table = make_table();
    return table;
}

Tune tune_for(const gpu::DeviceIdentity& device) { return gpu::resolve(tuning_table(), device); }

}  // namespace imghist::ocl
