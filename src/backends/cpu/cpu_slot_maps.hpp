// The table kernels' sample -> slot maps (cpu_kernel.hpp): each turns a sample's bits into the
// slot it counts in, by the plan's tables or rules, and says whether it may answer kFallback.
// Included by cpu_kernel.hpp only.
#pragma once

#include <cstdint>
#include <type_traits>

#include "backends/cpu/cpu_kernels.hpp"
#include "backends/cpu/cpu_vector_bins.hpp"

namespace imghist::cpu {

// Sample -> slot maps.
template <typename Entry>
struct TableMap {
    const Entry* lut;
    static constexpr bool kMayFallback = false;
    std::uint32_t operator()(std::uint32_t v) const { return lut[v]; }
};
using LutMap = TableMap<std::uint32_t>;    // 16-bit general, half
using Lut16Map = TableMap<std::uint16_t>;  // 16-bit general and half, where every slot fits 16 bits
struct IdentityMap {  // 8-bit samples with the default bins: the shift mode with shift 0
    static constexpr bool kMayFallback = false;
    std::uint32_t operator()(std::uint32_t v) const { return ih_classify_int(v, IH_INT_SHIFT, 0, 0, 0, 0, 0); }
};
// The same for 8-bit images whose neighbouring pixels repeat their samples (neighbours_repeat):
// a run then sends pixel k to sub-histogram k % 4, as the wider samples do, where IdentityMap
// sends 4 neighbours to one (run_of_groups says why each).
struct IdentityApartMap : IdentityMap {};
struct ShiftMap {  // 16-bit samples in the plan's shift mode (v >> k)
    std::uint32_t shift;
    static constexpr bool kMayFallback = false;
    std::uint32_t operator()(std::uint32_t v) const {
        return ih_classify_int(v, IH_INT_SHIFT, shift, 0, 0, 0, 0);  // codes carry no flags here
    }
};
struct Top16Map {  // float bits by their top half; may answer kFallback or a second-level table (kSubTable)
    const std::uint32_t* lut;
    const std::uint32_t* sub;  // Tables::float_sub
    static constexpr bool kMayFallback = true;
    std::uint32_t operator()(std::uint32_t bits) const { return lut[bits >> 16]; }
    std::uint32_t by_top_half(std::uint16_t top) const { return lut[top]; }  // the same from bits >> 16 alone
    // An entry from kSubTable up: the slot by the next 8 bits, or kFallback.
    std::uint32_t second(std::uint32_t entry, std::uint32_t bits) const {
        return entry == kFallback ? kFallback : sub[(entry - kSubTable) * kSubEntries + ((bits >> 8) & 0xFFu)];
    }
};
// The same tables for many bins (more than 256 over a range), where most blocks a sample lands in
// hold an edge: the second level is looked up inline. pick_float chooses it; with fewer bins
// that inline step in every sample of the unrolled loops costs more than the calls it saves.
struct Top16TwoLevelMap : Top16Map {};
// Edge bins of non-negative floats (EV bins) whose code window was built (Tables::float_window):
// a sample in it is one read and one key compare, with no branch on its value; the samples it
// leaves (outside it, kWindowMiss) take the two levels out of line (kFallback: classified
// directly). A block's samples are coded first (code(), in a loop of their own) and then
// counted, as UniformF32Map's: 8K RGBA f32 natural R,G,B, 256 EV bins, 2 threads (Zen 5), 134-138
// ms by the two levels inline, 58-63 ms by the window inside the counting loop (GCC then calls
// some of its per-sample steps out of line), 47 ms coded first. Coding by gathers instead was
// slower there: 66 ms with AVX2's, 120 ms with AVX-512's. Luminance reads it one value at a time.
struct WindowMap : Top16Map {
    const std::uint16_t* window = nullptr;
    const std::uint32_t* keys = nullptr;  // Tables::window_keys
    std::uint32_t shift = 0, first = 0, entries = 0;
    [[gnu::always_inline]] std::uint32_t operator()(std::uint32_t bits) const {
        const std::uint32_t at = (bits >> shift) - first;  // negative floats and those below E_0 wrap
        if (at < entries) [[likely]] {
            const std::uint32_t entry = window[at];
            // The window's floats are non-negative: ih_float_key is their bits with the sign set.
            if (entry != kWindowMiss) [[likely]] return (entry >> 1) + ((bits | 0x80000000u) >= keys[entry]);
        }
        return outside(bits);
    }
    // The window's slot, or kUncoded (outside it, or a miss), with no branch. The slot formula is
    // operator()'s, written out again: a helper both called made 8K RGBA f32 R,G,B with 256 EV
    // bins 45-47 -> 50 ms (Zen 5; GCC inlined the coding loop differently).
    [[gnu::always_inline]] std::uint16_t code(std::uint32_t bits) const {
        const std::uint32_t at = (bits >> shift) - first;
        const std::uint32_t entry = at < entries ? window[at] : kWindowMiss;
        const std::uint32_t slot = (entry >> 1) + ((bits | 0x80000000u) >= keys[entry == kWindowMiss ? 0 : entry]);
        return entry == kWindowMiss ? kUncoded : std::uint16_t(slot);
    }
    [[gnu::noinline]] std::uint32_t outside(std::uint32_t bits) const {
        const std::uint32_t entry = lut[bits >> 16];
        return entry >= kSubTable ? second(entry, bits) : entry;
    }
};
// Uniform bins of fp32 samples with many bins: each block's samples are coded in SIMD first
// (cpu_vector_bins.hpp), and the ones the vector path leaves take the two-level tables.
struct UniformF32Map : Top16TwoLevelMap {
    VectorBins bins;
};
template <class M>
inline constexpr bool kInlineSecond = std::is_base_of_v<Top16TwoLevelMap, M>;

}  // namespace imghist::cpu
