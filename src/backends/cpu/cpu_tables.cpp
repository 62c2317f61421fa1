#include "backends/cpu/cpu_tables.hpp"

#include <algorithm>
#include <bit>

namespace imghist::cpu {
namespace {

// Float samples by their top 16 bits: the slot of the code all of a block's floats share, or
// kFallback where they do not (float_top16_codes, in core/plan.hpp, says why this is exact).
// With extremes, a block must also share one extreme (by the clipping plan's own top-16 codes).
// A block that is not resolved (and holds no NaN) gets a second-level table in `sub` by the next 8
// bits, built the same way: each 256 floats form one contiguous key interval, resolved where
// both ends classify alike. Edge bins need them, and so do uniform bins whose edges do not fall
// on block boundaries (1000 bins over [0, 1): nearly every block of [2^-10, 1); 8K RGBA f32
// random, one thread, 1062 -> 399 ms with them).
void build_float_top16(const Classifier& cl, SlotMap& slots, std::vector<std::uint32_t>& lut,
                       std::vector<std::uint32_t>& sub) {
    lut = float_top16_codes([&](float v) { return cl.plan.classify_float(v); });
    std::vector<std::uint32_t> clip;
    if (cl.clipping) clip = float_top16_codes([&](float v) { return cl.clipping->classify_float(v); });
    const auto slot_of = [&](std::uint32_t first_bits, std::uint32_t last_bits) {
        const Classified a = cl.of_float(std::bit_cast<float>(first_bits));
        const Classified b = cl.of_float(std::bit_cast<float>(last_bits));
        return a.code == b.code && a.extreme == b.extreme ? slots.slot(a) : kFallback;
    };
    for (std::size_t t = 0; t < lut.size(); ++t) {
        const bool resolved = lut[t] != kCodeUnresolved && (clip.empty() || clip[t] != kCodeUnresolved);
        if (resolved) {
            lut[t] = slots.slot({lut[t], clip.empty() ? 0 : cl.clipping->extreme_of(clip[t])});
        } else if (!float_block_has_nan(std::uint32_t(t))) {
            const auto index = std::uint32_t(sub.size() / kSubEntries);
            for (std::uint32_t j = 0; j < kSubEntries; ++j) {
                const std::uint32_t bits = std::uint32_t(t) << 16 | j << 8;
                sub.push_back(slot_of(bits, bits | 0xFFu));
            }
            lut[t] = kSubTable | index;
        } else {
            lut[t] = kFallback;
        }
    }
}

// The plan's code window in slots (kWindowMiss). A block whose ends differ by one bin and share
// their clipping extreme holds one edge, E_{code + 1} of its first float's code: the codes and
// the extremes are monotone along the keys, so the floats below the edge share the first's slot
// and the others the last's. Those two slots follow each other where neither is an extreme's
// (their codes), and mostly where both are (SlotMap numbers them as the tables meet them, in
// key order); where they do not, the block misses.
void build_float_window(const Classifier& cl, SlotMap& slots, Tables& tb) {
    const HistogramPlan& plan = cl.plan;
    if (!plan.has_edges() || !tb.float_window.empty()) return;
    const FloatCodeWindow window = float_code_window(plan.edge_keys, kWindowEntries);
    std::vector<std::uint16_t> entries(window.entries, kWindowMiss);
    std::vector<std::uint32_t> keys;
    const std::uint32_t low_mask = (1u << window.shift) - 1;
    for (std::uint32_t i = 0; i < window.entries; ++i) {
        const std::uint32_t first_bits = (window.first + i) << window.shift, last_bits = first_bits | low_mask;
        if (ih_is_nan_bits(last_bits) != 0) continue;  // NaN inside (one sign: the last bits are the largest)
        const Classified a = cl.of_float(std::bit_cast<float>(first_bits));
        const Classified b = cl.of_float(std::bit_cast<float>(last_bits));
        const bool whole = a.code == b.code && a.extreme == b.extreme;
        if (!whole && !(a.extreme == b.extreme && a.code + 1 < plan.bins() && b.code == a.code + 1)) continue;
        const std::uint32_t below = slots.slot(a);
        if (!whole && slots.slot(b) != below + 1) continue;
        const std::uint32_t entry = 2 * below + (whole ? 0 : 1);
        if (entry >= kWindowMiss) return;  // more slots than 16-bit entries hold: no window
        if (keys.size() <= entry) keys.resize(entry + 1, 0xFFFFFFFFu);
        if (!whole) keys[entry] = plan.edge_keys[a.code + 1];
        entries[i] = std::uint16_t(entry);
    }
    if (keys.empty()) return;
    tb.float_window = std::move(entries);
    tb.window_keys = std::move(keys);
    tb.window = window;
}

void build_int_lut(Tables& tb, const Classifier& cl, std::uint32_t values) {
    tb.sample_lut.resize(values);
    for (std::uint32_t v = 0; v < values; ++v) tb.sample_lut[v] = tb.slots.slot(cl.of_int(v));
}

void build_u16_tables(Tables& tb, const Classifier& cl, bool big) {
    const HistogramPlan& plan = cl.plan;
    if (big && plan.int_mode != IH_INT_SHIFT && tb.sample_lut.empty()) build_int_lut(tb, cl, 65536);
    if (tb.extremes && plan.int_mode == IH_INT_SHIFT) {
        const auto max = std::uint32_t(cl.clipping->hi_int);  // the only value from hi_int up
        tb.shift_extremes = {plan.shift, std::uint32_t(cl.clipping->lo_int), max, tb.slots.slot(cl.of_int(0)),
                             tb.slots.slot(cl.of_int(max))};
    }
}

void build_f16_tables(Tables& tb, const Classifier& cl, bool want_luma) {
    if (tb.sample_lut.empty()) {
        tb.sample_lut.resize(65536);
        for (std::uint32_t h = 0; h < 65536; ++h)
            tb.sample_lut[h] = tb.slots.slot(cl.of_float(half_to_float(std::uint16_t(h))));
    }
    if (want_luma && tb.float_lut.empty()) {
        build_float_top16(cl, tb.slots, tb.float_lut, tb.float_sub);
        build_float_window(cl, tb.slots, tb);
        tb.half_values.resize(65536);
        for (std::uint32_t h = 0; h < 65536; ++h) tb.half_values[h] = half_to_float(std::uint16_t(h));
    }
}

// sample_lut16 from a 65536-entry sample_lut, where every entry fits.
void build_lut16(Tables& tb) {
    if (tb.sample_lut.size() != 65536 || !tb.sample_lut16.empty()) return;
    if (*std::max_element(tb.sample_lut.begin(), tb.sample_lut.end()) > 0xFFFFu) return;
    tb.sample_lut16.assign(tb.sample_lut.begin(), tb.sample_lut.end());
}

// The vector path's interval: the keys strictly inside the plan's range (its ends and beyond
// take the tables: flags, below / above, the closed top) that are no clipping extreme, which
// are the clipping plan's one bin, [lo_key, hi_key). Every key in it then has the code of
// ih_classify_float's arithmetic with no flag, which is its own slot (SlotMap::slot); the ends
// are checked against the classifier, the monotone bin sequence covers the keys between them.
void build_vector_bins(Tables& tb, const Classifier& cl) {
    const HistogramPlan& plan = cl.plan;
    if (plan.has_edges() || plan.bins() + IH_EXTRA_SLOTS >= kUncoded) return;
    std::uint32_t from = plan.lo_key + 1, to = plan.hi_key;
    if (cl.clipping) {
        from = std::max(from, cl.clipping->lo_key);
        to = std::min(to, cl.clipping->hi_key);
    }
    if (to <= from) return;
    const VectorBins vb{plan.lo_float, plan.scale_float, float(plan.bins()), plan.bins() - 1, from, to - from};
    for (const std::uint32_t key : {from, to - 1}) {
        const float v = std::bit_cast<float>(ih_float_bits_of_key(key));
        const Classified c = cl.of_float(v);
        if (ih_code_has_extra(c.code) || c.extreme != 0 || c.code >= plan.bins()) return;
    }
    tb.vector_bins = vb;
}

}  // namespace

void build_tables(Tables& tb, const Classifier& cl, bool big, bool want_luma) {
    switch (tb.sample) {
        case SampleType::u8:
            break;  // counted as raw values by IdentityMap (cpu_backend.cpp, values_plan): no table
        case SampleType::u16:
            build_u16_tables(tb, cl, big);
            build_lut16(tb);
            break;
        case SampleType::f16:
            if (big) build_f16_tables(tb, cl, want_luma);
            build_lut16(tb);
            break;
        case SampleType::f32:
            if (big && tb.sample_lut.empty()) {
                build_float_top16(cl, tb.slots, tb.sample_lut, tb.float_sub);
                build_float_window(cl, tb.slots, tb);
                build_vector_bins(tb, cl);
            }
            break;
    }
}

}  // namespace imghist::cpu
