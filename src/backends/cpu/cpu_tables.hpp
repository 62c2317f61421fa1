// The CPU backend's code tables: sample -> counter slot, built FROM the plan's classify
// functions (the contract stays the only definition of the bin math), and cached by the
// engine between calls.
//     8-bit: 256 entries, classify_int(v)          16-bit: v >> shift, or 65536 entries
//     half:  65536 entries, classify_float(half)   float: 65536 entries by the top 16 bits,
// where a float block whose 65536 values do not all share one code is marked kFallback and
// those samples are classified one by one (see build_float_top16()).
// Codes that carry a below/above flag get their own extra counter slot per channel table,
// expanded by count_code's rule at flush time, so each sample costs exactly one increment.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "backends/cpu/cpu_vector_bins.hpp"
#include "core/plan.hpp"

namespace imghist::cpu {

constexpr std::uint32_t kFallback = 0xFFFFFFFFu;  // table entry: classify this sample directly
// A top-16 entry from kSubTable up (but kFallback) names a second-level table of 256 entries by
// the next 8 bits (Tables::float_sub): edge bins put an edge inside a block often (256 EV bins: a
// quarter of the blocks of [2^-8, 1)), and so do uniform bins whose count is not a power of two;
// classifying those samples one by one cost 7-12x the whole count.
constexpr std::uint32_t kSubTable = 0xC0000000u;
constexpr std::uint32_t kSubEntries = 256;

// Edge bins of non-negative floats (EV bins): the plan's code window (core/plan.hpp,
// FloatCodeWindow) in slots, in front of the two levels: one read from a small table, and no
// branch on the sample's value. Entry 2s: every float of the block has slot s; 2s + 1: the block
// holds one edge (its floats below it have slot s, the others s + 1); kWindowMiss: the two
// levels (several edges, NaN, across E_0 or E_bins, slots that do not follow each other).
// window_keys[2s + 1] is that edge's key and window_keys[2s] one that no float of a resolved
// block reaches (NaN's blocks miss), so a sample's slot is
// entry / 2 + (key >= window_keys[entry]), one add in place of a select (72 -> 55 ms on 8K RGBA
// f32 R,G,B with 256 EV bins, Zen 5).
constexpr std::uint32_t kWindowMiss = 0xFFFFu;
// At most 16 KB: blocks of 2^13 floats for EV -8:0 (32 blocks between two edges of 32 per stop).
// Windows of 32, 64 and 128 KB gave the same times (Zen 5, docs/performance.md).
constexpr std::uint32_t kWindowEntries = 8192 + 8;  // 2^13 blocks, and float_code_window's padding

// Which clipping extreme a value is (HistogramPlan::extreme_of): 0, IH_SLOT_BELOW or IH_SLOT_ABOVE.
// Counted per channel into two counters, low then high.
inline void count_extreme(std::uint64_t* channel_extremes, std::uint32_t extreme, std::uint64_t n = 1) {
    if (extreme != 0) channel_extremes[extreme - IH_SLOT_BELOW] += n;
}

// A value's classify code and, when the extremes are counted, its extreme.
struct Classified {
    std::uint32_t code, extreme;
};
struct Classifier {
    const HistogramPlan& plan;
    const HistogramPlan* clipping;  // null: extremes are not counted
    Classified of_int(std::uint32_t v) const {
        return {plan.classify_int(v), clipping ? clipping->extreme_of(clipping->classify_int(v)) : 0};
    }
    Classified of_float(float v) const {
        return {plan.classify_float(v), clipping ? clipping->extreme_of(clipping->classify_float(v)) : 0};
    }
};

// Slots of one channel table: the plan's slots [0, bins + 3), then one extra slot for each
// distinct (classify code, extreme) pair whose code carries a below/above flag or whose value
// is an extreme.
class SlotMap {
public:
    explicit SlotMap(std::uint32_t bins) : bins_(bins) {}

    // A map, not a search of extra_: with clipping at the float rule's [0, 1] and bins far above
    // it, every bin's code is an extreme's, so a table meets tens of thousands of pairs (62720
    // bins: 1.4 s of setup for a 64 x 64 image with a linear search).
    std::uint32_t slot(Classified c) {
        if (!ih_code_has_extra(c.code) && c.extreme == 0) return c.code;
        const std::uint64_t key = std::uint64_t(c.code) << 32 | c.extreme;
        const auto [at, added] = index_.try_emplace(key, bins_ + IH_EXTRA_SLOTS + std::uint32_t(extra_.size()));
        if (added) extra_.push_back(c);
        return at->second;
    }
    std::uint32_t width() const { return bins_ + IH_EXTRA_SLOTS + std::uint32_t(extra_.size()); }

    // Adds n counts of table slot s to one channel's slots, by count_code's rule, and to its
    // extremes (null when they are not counted: then no slot has one).
    void add(std::uint64_t* channel_slots, std::uint64_t* channel_extremes, std::uint32_t s, std::uint64_t n) const {
        if (s < bins_ + IH_EXTRA_SLOTS) {
            channel_slots[s] += n;
            return;
        }
        const Classified& c = extra_[s - bins_ - IH_EXTRA_SLOTS];
        count_code(channel_slots, bins_, c.code, n);
        count_extreme(channel_extremes, c.extreme, n);
    }

private:
    std::uint32_t bins_;
    std::vector<Classified> extra_;
    std::unordered_map<std::uint64_t, std::uint32_t> index_;  // (code, extreme) -> its slot
};

// The shift mode (bin = v >> shift) with the extremes on slots of their own: integer samples
// and luminance lie in [0, max], so below the clipping plan's lo_int is only 0 and from its
// hi_int up only max.
struct ShiftExtremeMap {
    std::uint32_t shift = 0, low_below = 0, high_from = 0, low_slot = 0, high_slot = 0;
    static constexpr bool kMayFallback = false;
    std::uint32_t operator()(std::uint32_t v) const {
        // One compare (unsigned wrap) for the values between the extremes.
        if (v - low_below < high_from - low_below) [[likely]]
            return ih_classify_int(v, IH_INT_SHIFT, shift, 0, 0, 0, 0);
        return v < low_below ? low_slot : high_slot;
    }
};

// Lookup tables for one (sample type, bin layout), built from the plan's classify functions and
// cached by the engine between calls.
struct Tables {
    SampleType sample;
    BinLayout layout;
    bool extremes;  // the slots tell the clipping extremes apart
    SlotMap slots;
    std::vector<std::uint32_t> sample_lut;  // u16 general / f16: 65536; f32: top 16 bits
    // The 65536-entry sample_lut in 16 bits, where every entry fits (all but the widest layouts):
    // 128 KB instead of 256, so that the entries of random halves in [0, 1] (about 15,000) fit
    // the L1 cache. Empty otherwise.
    std::vector<std::uint16_t> sample_lut16;
    std::vector<std::uint32_t> float_lut;   // top-16-bit table for float luminance (f16 input)
    std::vector<std::uint32_t> float_sub;   // the second-level tables of sample_lut and float_lut (kSubTable)
    std::vector<std::uint16_t> float_window;  // edge bins: the code window (kWindowMiss)
    std::vector<std::uint32_t> window_keys;   // the key each entry compares with
    FloatCodeWindow window;
    std::vector<float> half_values;         // f16 bits -> float, for luminance
    ShiftExtremeMap shift_extremes;         // integer shift mode, when extremes are counted
    VectorBins vector_bins;                 // fp32 uniform bins in SIMD (cpu_vector_bins.hpp)

    Tables(SampleType s, const BinLayout& l, bool e) : sample(s), layout(l), extremes(e), slots(l.bins) {}
};

// Builds what `tb` lacks for this call. 8-bit tables are always built; the 65536-entry ones
// only when the image is big enough (`big`) to pay for them, otherwise the kernel is not used.
// `cl` counts extremes exactly when tb.extremes.
void build_tables(Tables& tb, const Classifier& cl, bool big, bool want_luma);

}  // namespace imghist::cpu
