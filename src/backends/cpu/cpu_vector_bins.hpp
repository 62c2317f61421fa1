// Uniform bins of fp32 samples classified in SIMD, 8 or 16 at a time: the middle of
// ih_classify_float (src/contract/binning.h), floor((v - lo) * scale) capped at the last bin, by
// the same IEEE single operations element-wise. With many bins (1000 over [0, 1)) nearly every
// float block of the top-16 tables holds an edge, so a sample cost two dependent table reads, the
// second in 0.5 MB of tables; this costs a few vector instructions per 16 samples. Only samples
// strictly inside the range and no clipping extreme are coded (VectorBins, built with the tables
// from the plan); every other one, NaN included, is marked kUncoded and takes the tables.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/cpu_isa.hpp"

namespace imghist::cpu {

// The arguments of the vector path (cpu_tables.cpp, build_vector_bins): samples whose
// ih_float_key lies in [key_from, key_from + key_span) have the slot floor((v - lo) * scale),
// or `last` where that is not below `bins`. key_span 0: no vector path (edge bins, or slots
// that do not fit 16 bits).
struct VectorBins {
    float lo = 0, scale = 0, bins = 0;
    std::uint32_t last = 0, key_from = 0, key_span = 0;
};

constexpr std::uint16_t kUncoded = 0xFFFF;  // a sample the tables classify

// The slots of fp32 samples [0, n) at p into codes (kUncoded where the vector path does not
// apply), by the widest loop `isa` allows. Returns how many samples it coded: a multiple of the
// vector width, 0 below AVX2.
std::uint32_t code_uniform_f32(Isa isa, const std::byte* p, std::uint32_t n, const VectorBins& bins,
                               std::uint16_t* codes);

}  // namespace imghist::cpu
