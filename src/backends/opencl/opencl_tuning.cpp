// IMGHIST_OPENCL_TUNE (opencl_tuning.hpp).
#include "backends/opencl/opencl_tuning.hpp"

#include <bit>
#include <string>

#include "core/tune.hpp"
#include "imghist/error.hpp"

namespace imghist::ocl {

Tune parse_tune() {
    Tune t;
    for (const TuneKnob& k : tune_knobs("IMGHIST_OPENCL_TUNE")) {
        const std::string& key = k.key;
        const std::string& val = k.value;
        if (key == "wg") t.wg = unsigned(k.number());
        else if (key == "gpc") t.gpc = unsigned(k.number());
        else if (key == "groups") t.groups = unsigned(k.number());
        else if (key == "copies") t.copies = unsigned(k.number());
        else if (key == "pack") t.pack = k.number() != 0;
        else if (key == "value") t.value = k.number() != 0;
        else if (key == "loads") t.loads = unsigned(k.number());
        else if (key == "layout") {
            if (val == "copies") t.layout = LayoutKind::copies;
            else if (val == "lanes") t.layout = LayoutKind::lanes;
            else if (val == "pairs") t.layout = LayoutKind::pairs;
            else throw InvalidArgument("IMGHIST_OPENCL_TUNE: layout is 'copies', 'lanes' or 'pairs'");
        }
        else if (key == "merge") {
            if (val != "atomic" && val != "sum")
                throw InvalidArgument("IMGHIST_OPENCL_TUNE: merge is 'atomic' or 'sum'");
            t.merge_atomic = val == "atomic";
        } else if (key == "fast") t.fast = k.number() != 0;
        else if (key == "spec") t.spec = k.number() != 0;
        else if (key == "global") t.force_global = k.number() != 0;
        else if (key == "max_local") t.max_local = k.number();
        else if (key == "tile_pixels") t.tile_pixels = k.number();
        else if (key == "launch_pixels") t.launch_pixels = k.number();
        else if (key == "reserve") t.reserve = std::int64_t(k.number());
        else if (key == "swizzle") t.swizzle = k.number() != 0;
        else k.unknown("wg, gpc, groups, copies, pack, value, loads, layout, merge, fast, spec, global, max_local, "
                       "tile_pixels, launch_pixels, reserve, swizzle");
    }
    if (t.copies != 0 && (!std::has_single_bit(t.copies) || t.copies > 32))
        throw InvalidArgument("IMGHIST_OPENCL_TUNE: copies must be a power of two up to 32");
    if (t.wg != 0 && !std::has_single_bit(t.wg))
        throw InvalidArgument("IMGHIST_OPENCL_TUNE: wg must be a power of two");
    if (t.loads != 0 && t.loads != 2 && t.loads != 4)
        throw InvalidArgument("IMGHIST_OPENCL_TUNE: loads is 2 or 4");
    // copies/pack without a layout mean the copies layout (as before layouts had names);
    // layout=pairs takes copies too.
    if (t.layout == LayoutKind::any && (t.copies != 0 || t.pack >= 0)) t.layout = LayoutKind::copies;
    return t;
}

}  // namespace imghist::ocl
