// Which instruction sets the host's SIMD loops may use (the CPU backend's kernels and luminance,
// the core's gather of selected pixels): the best this CPU has (the build targets baseline
// x86-64, so it is found at run time), or a lower one that IMGHIST_CPU_ISA forces, so that every
// path can be tested and timed on one machine (docs/performance.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace imghist::cpu {

// Ordered: each level includes the ones below it. avx2 means AVX2, F16C, BMI1 and BMI2; avx512
// means AVX-512 F, BW, VL, VBMI (vpermb) and VBMI2 (byte and word compress).
enum class Isa : int { scalar, sse2, ssse3, avx2, avx512 };
inline constexpr Isa kAllIsas[] = {Isa::scalar, Isa::sse2, Isa::ssse3, Isa::avx2, Isa::avx512};

const char* isa_name(Isa isa);
std::optional<Isa> parse_isa(std::string_view name);

// The best level this CPU (and its operating system) supports.
Isa best_isa();

// The level in effect: IMGHIST_CPU_ISA (read once; unset or empty: the best), capped at
// best_isa(), unless force_isa() overrides it. Read by each worker when it starts counting.
Isa isa();

// Empty, or why IMGHIST_CPU_ISA is not a level (the cpu engine refuses to start then).
const std::string& isa_knob_error();

// Tests: every path on one machine. Capped at best_isa(); nullopt returns to the knob.
void force_isa(std::optional<Isa> isa);

}  // namespace imghist::cpu
