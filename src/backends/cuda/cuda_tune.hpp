// The CUDA backend's tuning: defaults measured on an H200, overridable for benchmarks and tests.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/tuning.hpp"

namespace imghist::cuda_detail {

// packed_kernel looks float codes up (Tune::float_lut = 1) from images of this many pixels: each
// block copies the 128 KiB table into shared memory first.
inline constexpr std::uint64_t kCodeLutMinPixels = std::uint64_t(1) << 20;

// Host images: at most this many staging buffers and streams (Tune::stages are used).
inline constexpr int kMaxStages = 4;

// Tuning knobs, for benchmarks and tests: IMGHIST_CUDA_TUNE="key=value,..." (the keys and device
// families: the table in cuda_tune.cpp, src/gpu/tuning.hpp). The defaults are what measured best
// on an H200 (docs/performance.md).
struct Tune {
    int block = 1024;
    int gpt = 0;          // 0: the format's maximum
    int layout = -1;      // -1: automatic; else a Layout
    int flush = 0;        // 0: automatic; else at most this many tiles between flushes
    int blocks_per_sm = 0;  // 0: from the occupancy calculator
    bool scalar = false;  // force bytewise loads
    std::size_t chunk = 0;  // 0: automatic (by the call's bytes: cuda_host.cpp, chunk_bytes)
    int copy_threads = 0;  // 0: automatic
    // Host images: fill the pinned staging buffers with non-temporal (AVX2 streaming) stores,
    // which neither read the destination lines first nor evict the source. 0: memcpy; -1:
    // automatic (streaming below 512 MiB a call, where it measured faster on the H200 host).
    int stream_stores = -1;
    // Host images: staging buffers (and streams) in flight, 2 to kMaxStages; the CPU refills a
    // buffer once its copy to the device, `stages` chunks back, is done.
    int stages = 4;
    // Host images: the first chunk of a call is an eighth of `chunk`, each next one twice the
    // last, so that the first copy to the device starts sooner. 0: every chunk full size.
    bool ramp = true;
    int acc_stride = 1;    // counters between two slots of the global accumulator (device path)
    bool prefetch = false;
    bool packed = true;    // one packed gray8/rgba8/bgra8 image: packed_kernel (vector-even split)
    // One packed gray/rgba f16/f32 image: packed_kernel too (compile-time channels, per-lane
    // 32-bit counters); 0: the generic tiled kernel, as before.
    bool packed_float = true;
    // packed_kernel, 8-bit: load the next step before counting the current one. Off: on the H200 it
    // was no faster at 8K and 16384^2 and 0.3-1.6 us slower on 1080p, luminance and R,G,B,Y.
    bool ahead = false;
    bool early = true;       // packed_kernel, 8-bit without luminance: first loads before the counters are zeroed
    // packed_kernel: merge per slot with arrival counts (KernelParams::slot_merge) where the
    // slots allow it; 0: the fence, ticket and last-block pass of finish_image.
    bool slot_merge = true;
    // packed_kernel, half and float samples (luminance: only float edge bins with the window):
    // look codes up in a 65536-entry table in shared memory (KernelParams::code_lut). 1: for images of kCodeLutMinPixels or more
    // (each block copies the 128 KiB table in); 2: always; 0: never.
    int float_lut = 1;
    // float_lut, float edge bins: the most entries of the finer code window that goes to shared
    // memory with the edge keys instead of the whole table (KernelParams::window_entries;
    // 32768 take 64 KiB; fewer where the counters leave less room). 0: the whole table.
    // H100, 8K RGBA f32, 256 EV bins (-8:0:32) R,G,B: 8192 entries (blocks of 2^14 floats, 6 %
    // of them across an edge) 215-220 us, 32768 (2^12) 184-185, 65536 (2^11) 184-185; 257 even
    // edges over [0, 1] (their window fits only from 16257 entries): 191 -> 180-182 us.
    std::uint32_t code_window = 32768;
    bool graph = true;     // single device images: replay the launch from a cached CUDA graph

    bool operator==(const Tune&) const = default;
};

// Plain C++ (no CUDA headers), built on every configuration: tests/gpu/test_tuning.cpp prints it.
const gpu::TuningTable<Tune>& tuning_table();
// The defaults, `device`'s family and IMGHIST_CUDA_TUNE; throws InvalidArgument.
Tune tune_for(const gpu::DeviceIdentity& device);

}  // namespace imghist::cuda_detail
