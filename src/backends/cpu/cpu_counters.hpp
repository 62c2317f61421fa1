// One worker's counters: kMaxSubs interleaved 32-bit sub-histograms per channel, so that
// consecutive increments of one bin do not wait on each other (which sub-histogram a pixel goes
// to is the kernel's choice: cpu_kernel.hpp), flushed into the worker's 64-bit totals every
// kFlushPixels pixels, long before one could overflow.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "backends/cpu/cpu_tables.hpp"
#include "core/extremes.hpp"

namespace imghist::cpu {

constexpr unsigned kSubs = 4;  // interleaved sub-histograms per channel
// The fused luminance loop (fused_luma) spreads over more: on smooth images neighbouring
// pixels often share a value, and 8 tables halve the chains of dependent increments (natural
// 8K, one thread: 18.1 -> 15.5 ms). Every worker has kMaxSubs tables per channel.
constexpr unsigned kLumaSubs = 8;
constexpr unsigned kMaxSubs = std::max(kSubs, kLumaSubs);
constexpr std::uint64_t kFlushPixels = 1ull << 30;  // < 2^32: a 32-bit counter cannot overflow
// The distinct sub-histograms of a wide layout (Kernel maps sub s to table s % this): a power of
// two, as many as keep them within kSubTablesBudget bytes, at least one. Sharing a table costs
// chains of increments only where neighbouring samples share a bin, which runs mostly take.
constexpr std::size_t kSubTablesBudget = std::size_t(16) << 10;
constexpr unsigned distinct_subs(std::uint32_t channels, std::uint32_t pitch) {
    unsigned n = kMaxSubs;
    while (n > 1 && std::size_t(n) * channels * pitch * 4 > kSubTablesBudget) n /= 2;
    return n;
}
constexpr std::uint32_t kSmallPitch = 288;          // table pitch of layouts up to 272 slots

// Cache-line aligned: every worker updates its own `pending` per block, and neighbouring
// workers' Counters must not share a line.
struct alignas(64) Counters {
    const HistogramPlan* plan = nullptr;
    const HistogramPlan* clipping = nullptr;  // null: extremes are not counted
    const SlotMap* slots = nullptr;           // null: the direct path (no sub-histograms)
    std::uint32_t channels = 0, pitch = 0, subs = 0;
    std::vector<std::uint32_t> sub;       // [subs][channels][pitch], 32-bit
    std::vector<std::uint64_t> totals;    // the plan's slot layout, 64-bit
    std::vector<std::uint64_t> extremes;  // per channel: low, high
    std::uint64_t pending = 0;            // pixels counted since the last flush
    // Where the value extremes are found in the count: the float luminance goes to this finder
    // as the kernel computes it (Kernel::block), instead of being computed again for it.
    ExtremesFinder* luma_extremes = nullptr;

    void init(const HistogramPlan& p, const HistogramPlan* clip, const SlotMap* s);
    std::uint32_t* table(unsigned s, unsigned c) { return sub.data() + (std::size_t(s) * channels + c) * pitch; }
    // Adds the sub-histograms into the totals (by the slot map) and clears them.
    void flush();

    // n samples (a run of one value) of a float sample (or float luminance) whose table entry
    // straddles a code boundary. The last value classified is kept: such values are often one
    // exact value repeated (0 and 1, the low and high extremes beside denormals and values past
    // 1; a value on a bin edge), which took 4 ns a sample, 10x the table count, when classified
    // each time.
    [[gnu::noinline]] void classify_direct(unsigned c, std::uint32_t float_bits, std::uint32_t n = 1);
    void count(std::size_t c, Classified v, std::uint64_t n = 1) {
        count_code(totals.data() + c * plan->slots_per_channel(), plan->bins(), v.code, n);
        if (clipping) count_extreme(extremes.data() + 2 * c, v.extreme, n);
    }

private:
    std::uint32_t last_direct_bits_ = 0;
    Classified last_direct_{};
    bool has_last_direct_ = false;
};

}  // namespace imghist::cpu
