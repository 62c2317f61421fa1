// The CUDA backend's tuning table and device families (cuda_tune.hpp). Plain C++: no CUDA
// headers, so the layout names carry kernel_params.hpp's Layout values (checked in cuda_shape.cpp).
#include "cuda_tune.hpp"

namespace imghist::cuda_detail {
namespace {

using gpu::Range;

// IMGHIST_CUDA_TUNE clamps its numbers into range instead of rejecting them.
constexpr Range up_to(std::uint64_t max) { return Range{.max = max, .clamp = true}; }
constexpr Range automatic_up_to(std::uint64_t max) { return Range{.max = max, .clamp = true, .automatic = 0}; }

// chunk_mb: MiB, the member bytes (0: automatic).
gpu::Field<Tune> chunk_field() {
    return {"chunk_mb", "MiB per staged chunk, 1 to 4096 (auto: 8 MiB from 64 MiB a call, 32 from 512 MiB)",
            [](Tune& t, const gpu::Knob& k) {
                const Range mib{.min = 1, .max = 4096, .clamp = true};
                t.chunk = k.is_auto() ? 0 : std::size_t(gpu::read_number(k, mib, mib.max)) << 20;
            },
            [](const Tune& t) { return t.chunk == 0 ? std::string("auto") : std::to_string(t.chunk >> 20); }};
}

gpu::TuningTable<Tune> make_table() {
    return {"IMGHIST_CUDA_TUNE",
            {
                gpu::number("block", &Tune::block, "threads per block, a multiple of 32 from 32 to 1024",
                            Range{.min = 32, .max = 1024, .multiple = 32, .clamp = true}),
                gpu::number("gpt", &Tune::gpt, "vector groups (or pixels) per thread per tile (auto: the format's most)",
                            automatic_up_to(64)),
                gpu::choice("layout", &Tune::layout, {{"lanes32", 0}, {"lanes16", 1}, {"copies", 2}, {"global", 3}, {"auto", -1}},
                            "shared layout where it fits: lanes32, lanes16, copies, global (no shared memory)"),
                gpu::number("flush", &Tune::flush, "tiles between two flushes at most (auto: before a counter could overflow)",
                            automatic_up_to(0x7FFFFFFF)),
                gpu::number("blocks_per_sm", &Tune::blocks_per_sm, "blocks per SM (auto: the occupancy calculator's)",
                            automatic_up_to(64)),
                gpu::flag("scalar", &Tune::scalar, "bytewise loads"),
                chunk_field(),
                gpu::number("copy_threads", &Tune::copy_threads, "threads copying host images into staging (auto)",
                            automatic_up_to(256)),
                gpu::choice("stream_stores", &Tune::stream_stores, {{"0", 0}, {"1", 1}, {"auto", -1}},
                            "fill host staging with non-temporal (AVX2 streaming) stores; 0: memcpy "
                            "(auto: streaming below 512 MiB a call)"),
                gpu::number("stages", &Tune::stages, "host staging buffers and streams in flight, 2 to 4",
                            Range{.min = 2, .max = kMaxStages, .clamp = true}),
                gpu::flag("ramp", &Tune::ramp, "host images: chunks grow from an eighth of chunk_mb, doubling"),
                gpu::number("acc_stride", &Tune::acc_stride, "counters between two slots of the global accumulator",
                            Range{.min = 1, .max = 64, .clamp = true}),
                gpu::flag("prefetch", &Tune::prefetch, "thread 0 bulk-prefetches the next tiles into L2"),
                gpu::flag("packed", &Tune::packed, "one packed gray8/rgba8/bgra8 image: packed_kernel"),
                gpu::flag("packed_float", &Tune::packed_float, "one packed gray/rgba f16/f32 image: packed_kernel"),
                gpu::flag("ahead", &Tune::ahead, "packed_kernel, 8-bit: load the next step before counting this one"),
                gpu::flag("early", &Tune::early, "packed_kernel, 8-bit without luminance: load before zeroing counters"),
                gpu::flag("slot_merge", &Tune::slot_merge, "packed_kernel: merge per slot with arrival counts"),
                gpu::number("float_lut", &Tune::float_lut,
                            "packed_kernel, half/float (luminance: float edge bins with the window): code table "
                            "in shared memory: 0 never, 1 from 2^20 pixels, 2 always",
                            up_to(2)),
                gpu::number("code_window", &Tune::code_window,
                            "float_lut, float edge bins: code window entries in shared memory instead of the "
                            "whole table (0: the whole table)",
                            Range{.max = 65536}),
                gpu::flag("graph", &Tune::graph, "single device images: replay the launch from a cached CUDA graph"),
            },
            {},  // no family: every device takes the defaults
            nullptr};
}

}  // namespace

const gpu::TuningTable<Tune>& tuning_table() {
    static const gpu::TuningTable<Tune> table = make_table();
    return table;
}

Tune tune_for(const gpu::DeviceIdentity& device) { return gpu::resolve(tuning_table(), device); }

}  // namespace imghist::cuda_detail
