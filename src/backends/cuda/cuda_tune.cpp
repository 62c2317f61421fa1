#include "cuda_tune.hpp"

#include <algorithm>
#include <string>

#include "core/tune.hpp"
#include "imghist/error.hpp"
#include "kernel_params.hpp"

namespace imghist::cuda_detail {

Tune Tune::from_env() {
    Tune t;
    for (const TuneKnob& k : tune_knobs("IMGHIST_CUDA_TUNE")) {
        const std::string& key = k.key;
        if (key == "layout") {
            if (k.value == "lanes32") t.layout = kLanes32;
            else if (k.value == "lanes16") t.layout = kLanes16;
            else if (k.value == "copies") t.layout = kCopies;
            else if (k.value == "global") t.layout = kGlobal;
            else throw InvalidArgument("IMGHIST_CUDA_TUNE: layout is lanes32, lanes16, copies or global");
            continue;
        }
        const std::uint64_t n = k.number();
        if (key == "block") t.block = int(std::clamp<std::uint64_t>(n, 32, kMaxBlock)) / 32 * 32;
        else if (key == "gpt") t.gpt = int(std::min<std::uint64_t>(n, 64));
        else if (key == "flush") t.flush = int(std::min<std::uint64_t>(n, 0x7FFFFFFF));
        else if (key == "blocks_per_sm") t.blocks_per_sm = int(std::min<std::uint64_t>(n, 64));
        else if (key == "scalar") t.scalar = n != 0;
        else if (key == "chunk_mb") t.chunk = std::size_t(std::clamp<std::uint64_t>(n, 1, 4096)) << 20;
        else if (key == "copy_threads") t.copy_threads = int(std::min<std::uint64_t>(n, 256));
        else if (key == "acc_stride") t.acc_stride = int(std::clamp<std::uint64_t>(n, 1, 64));
        else if (key == "prefetch") t.prefetch = n != 0;
        else if (key == "packed") t.packed = n != 0;
        else if (key == "packed_float") t.packed_float = n != 0;
        else if (key == "ahead") t.ahead = n != 0;
        else if (key == "early") t.early = n != 0;
        else if (key == "slot_merge") t.slot_merge = n != 0;
        else if (key == "float_lut") t.float_lut = int(std::min<std::uint64_t>(n, 2));
        else if (key == "graph") t.graph = n != 0;
        else k.unknown("block, gpt, layout, flush, blocks_per_sm, scalar, chunk_mb, copy_threads, acc_stride, "
                       "prefetch, packed, packed_float, ahead, early, slot_merge, float_lut, graph");
    }
    return t;
}

}  // namespace imghist::cuda_detail
