#include "backends/cpu/cpu_counters.hpp"

#include <bit>

namespace imghist::cpu {

void Counters::init(const HistogramPlan& p, const HistogramPlan* clip, const SlotMap* s) {
    plan = &p;
    clipping = clip;
    has_last_direct_ = false;
    slots = s;
    channels = std::uint32_t(p.channels.size());
    totals.assign(p.total_slots(), 0);
    extremes.assign(clip ? 2 * std::size_t(channels) : 0, 0);
    if (s != nullptr) {
        // Pad each table by a cache line (and away from a multiple of 4 KiB) so the same bin of
        // different tables does not alias in the store-to-load forwarding logic.
        // A fixed pitch for the common layouts lets the kernels address every table with a
        // constant displacement from one base register.
        pitch = s->width() + 16u <= kSmallPitch ? kSmallPitch : (s->width() + 15u) / 16u * 16u + 16u;
        // Wide layouts' kernels write distinct_subs() tables only: the others would be memory
        // made, cleared and flushed for nothing (16-bit values: 8 tables of 256 KiB a channel).
        subs = pitch == kSmallPitch ? kMaxSubs : distinct_subs(channels, pitch);
        sub.assign(std::size_t(subs) * channels * pitch, 0);
    }
}

void Counters::flush() {
    if (slots == nullptr || pending == 0) return;
    const std::uint32_t width = slots->width();
    for (unsigned c = 0; c < channels; ++c) {
        std::uint64_t* out = totals.data() + std::size_t(c) * plan->slots_per_channel();
        std::uint64_t* out_extremes = clipping ? extremes.data() + 2 * std::size_t(c) : nullptr;
        for (unsigned s = 0; s < subs; ++s) {
            std::uint32_t* t = table(s, c);
            for (std::uint32_t j = 0; j < width; ++j)
                if (t[j] != 0) slots->add(out, out_extremes, j, t[j]);
            std::fill(t, t + width, 0u);
        }
    }
    pending = 0;
}

void Counters::classify_direct(unsigned c, std::uint32_t float_bits, std::uint32_t n) {
    if (!has_last_direct_ || float_bits != last_direct_bits_) {
        last_direct_ = Classifier{*plan, clipping}.of_float(std::bit_cast<float>(float_bits));
        last_direct_bits_ = float_bits;
        has_last_direct_ = true;
    }
    count(c, last_direct_, n);
}

}  // namespace imghist::cpu
