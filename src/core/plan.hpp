// A request resolved for one pixel format: the scalars every kernel takes, derived once.
// GPU backends pass bin_args() (the contract's ih_bin_args) to their kernels; the CPU backends
// call classify() directly. The bin math itself is the contract's (src/contract/).
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "contract/contract.h"
#include "imghist/image.hpp"
#include "imghist/request.hpp"
#include "imghist/result.hpp"

namespace imghist {

// Which input a histogram channel counts: one sample of the pixel, or the luminance.
inline constexpr int kLumaSource = -1;

class HistogramPlan {
public:
    HistogramPlan(PixelFormat format, const Request& request);
    // The same channels, luminance weights and format with another bin layout (one that
    // resolve_layout gave this sample type), e.g. a backend's plan of raw 8-bit values.
    HistogramPlan with_layout(const BinLayout& other) const;

    PixelFormat format;
    FormatInfo info;
    BinLayout layout;
    std::vector<Channel> channels;
    std::vector<int> sources;  // per channel: sample index within the pixel, or kLumaSource

    // The classify and luminance arguments beyond the sample (kernels get them as ih_bin_args).
    std::int64_t lo_int = 0, hi_int = 0;  // integer samples: ih_classify_int
    float lo_float = 0, scale_float = 0;  // float samples: ih_classify_float
    std::uint32_t lo_key = 0, hi_key = 0;
    float weight_float[3] = {0, 0, 0};        // luminance weights as fp32 fractions
    std::uint32_t weight_int[3] = {0, 0, 0};  // and as integers over IH_LUMA_WEIGHT_SUM
    std::uint32_t int_mode = IH_INT_SHIFT;
    std::uint32_t shift = 0;
    std::uint32_t closed_top = 0, clamp = 0;
    // Edge bins (binning.h, ih_classify_edge_key): bins + 1 keys; empty for uniform bins. GPU
    // backends copy them to the device beside bin_args(), whose `edges` field says to read them.
    std::vector<std::uint32_t> edge_keys;

    // Every field: caches keyed by a plan (compiled variants, code tables) compare whole plans,
    // so a field added later cannot be forgotten in a key.
    bool operator==(const HistogramPlan&) const = default;

    std::uint32_t bins() const { return layout.bins; }
    std::uint32_t slots_per_channel() const { return layout.bins + IH_EXTRA_SLOTS; }
    std::size_t total_slots() const { return channels.size() * slots_per_channel(); }
    bool has_luma() const;
    // Whether channels [first, first + count) count a sample of the pixel, not only luminance.
    // The GPU backends' value swizzle (spreading raw 8-bit values over memory banks) applies
    // to such passes.
    bool counts_a_sample(std::size_t first, std::size_t count) const {
        for (std::size_t c = first; c < first + count; ++c)
            if (sources[c] != kLumaSource) return true;
        return false;
    }
    bool is_float() const { return info.is_float(); }

    // The contract's kernel arguments for channels [first, first + count) (at most
    // IH_MAX_PASS_CHANNELS): every bin-math scalar of the plan, and the pass's sources.
    ih_bin_args bin_args(std::size_t first, std::size_t count) const;
    ih_bin_args bin_args() const { return bin_args(0, channels.size()); }

    bool has_edges() const { return !edge_keys.empty(); }
    std::uint32_t classify_int(std::uint32_t v) const {
        if (has_edges()) return ih_classify_edge_key(v, layout.bins, clamp, edge_keys.data());
        return ih_classify_int(v, int_mode, shift, layout.bins, lo_int, hi_int, clamp);
    }
    std::uint32_t classify_float(float v) const {
        if (has_edges()) return ih_classify_float_edges(v, layout.bins, clamp, edge_keys.data());
        return ih_classify_float(v, layout.bins, lo_float, scale_float, lo_key, hi_key, closed_top,
                                 clamp);
    }

    // The Result for `image` from slot counts laid out as binning.h describes. The clipping
    // counts are set where the slots prove them (clipping_proven_by), else left unknown.
    Result make_result(const ImageView& image, std::span<const std::uint64_t> slots,
                       std::string backend, std::string device) const {
        return make_result(image.width, image.height, slots, std::move(backend), std::move(device));
    }
    Result make_result(const DeviceImage& image, std::span<const std::uint64_t> slots,
                       std::string backend, std::string device) const {
        return make_result(image.width, image.height, slots, std::move(backend), std::move(device));
    }
    Result make_result(std::uint32_t width, std::uint32_t height, std::span<const std::uint64_t> slots,
                       std::string backend, std::string device) const;

    // Clipping (docs/semantics.md): the values strictly between the extremes are [1, max) for
    // integers and [smallest denormal, 1) for half and float, so one bin over that range
    // without clamp counts exactly the low extremes in `below` and the high ones in `above`.
    // The request of that second pass, for the channels of `request`.
    static Request clipping_request(SampleType sample, const Request& request);
    // The exact clipping counts {low, high} that one channel's slots prove: where the slot of
    // the extreme's edge value holds no value on the other side of it, or is empty.
    std::pair<std::optional<std::uint64_t>, std::optional<std::uint64_t>> clipping_proven_by(
        const std::uint64_t* channel_slots) const;
    // Where clipping_proven_by proves both counts of every channel of `slots` (laid out as
    // binning.h describes): writes them into extremes[2c] and extremes[2c + 1], as extremes_of
    // does for the clipping plan's pass, and returns true; false leaves that pass to count them.
    bool proven_extremes(std::span<const std::uint64_t> slots, std::span<std::uint64_t> extremes) const;
    // Whether clipping_proven_by proves both counts whatever the slots hold (the extremes have
    // slots of their own, as with the 8-bit default bins), so nothing need count them apart.
    bool clipping_always_proven() const;
    // The plan of the second pass that counts the clipping (clipping_request) for this plan,
    // made from `request`, where its bins may leave a count unproven; none where they never do.
    std::optional<HistogramPlan> clipping_plan(const Request& request) const;
    // For a plan made from clipping_request: each channel's below and above slots of `slots`
    // (laid out as binning.h describes) are its low and high extremes, into extremes[2c] and
    // extremes[2c + 1].
    void extremes_of(std::span<const std::uint64_t> slots, std::span<std::uint64_t> extremes) const {
        for (std::size_t c = 0; c < channels.size(); ++c) {
            const std::uint64_t* s = slots.data() + c * slots_per_channel();
            extremes[2 * c] = s[bins() + IH_SLOT_BELOW];
            extremes[2 * c + 1] = s[bins() + IH_SLOT_ABOVE];
        }
    }
    // For a plan made from clipping_request: the extreme that one of its codes stands for,
    // IH_SLOT_BELOW (low) or IH_SLOT_ABOVE (high), else 0 (a value between them, or NaN).
    std::uint32_t extreme_of(std::uint32_t code) const {
        return code == bins() + IH_SLOT_BELOW || code == bins() + IH_SLOT_ABOVE ? code - bins() : 0;
    }

private:
    // Positions in clipping_proven_by's value-ordered slots: of the low extreme's top edge value
    // and of the next value up; of the high extreme's bottom edge value and the next value down.
    struct ExtremePositions {
        bool unbinned_ends;
        std::size_t low, low_next, high, high_next, count;
    };
    ExtremePositions extreme_positions() const;
    // The classify arguments of `layout` (int_mode, shift, lo/hi, keys, clamp, closed_top).
    void set_bin_arguments();
};

// Adds n counts of one classify() code into a channel's slots (the contract's code -> count rule).
template <typename Counter>
inline void count_code(Counter* channel_slots, std::uint32_t bins, std::uint32_t code, Counter n = 1) {
    channel_slots[ih_code_slot(code)] += n;
    if (ih_code_has_extra(code)) channel_slots[ih_code_extra_slot(code, bins)] += n;
}

// Widen a half's bits to float, exactly.
float half_to_float(std::uint16_t h);

// Classify codes by table, for backends that look samples up instead of classifying each one.
// `classify` is ih_classify_float with a plan's arguments (HistogramPlan::classify_float, or a
// kernel's copy of the same scalars).
// half_codes: the code of every half (index: its 16 bits).
// float_top16_codes: the code shared by every float whose top 16 bits are the index, or
// kCodeUnresolved where those floats do not all share one (such samples must be classified one
// by one). Along the total order of ih_float_key, ih_classify_float is a step function in which
// every code occupies one contiguous interval: below-flagged codes, then bins that never
// decrease (each fp32 operation of the bin formula is monotone), then above-flagged codes; NaN
// has its own code. The 65536 floats sharing a top half form one contiguous key interval whose
// ends are the low halves 0x0000 and 0xFFFF; so when both ends classify alike, every value in
// between does too. Otherwise (a bin edge inside the block, +-Inf next to NaN, -0 next to
// negative denormals) the entry is kCodeUnresolved.
inline constexpr std::uint32_t kCodeUnresolved = 0xFFFFFFFFu;
template <class Classify>
std::vector<std::uint32_t> half_codes(Classify classify) {
    std::vector<std::uint32_t> codes(65536);
    for (std::uint32_t h = 0; h < 65536; ++h) codes[h] = classify(half_to_float(std::uint16_t(h)));
    return codes;
}
// The 16-bit table entry of a float block (top 16 bits) whose values do not share one code: with
// edge bins (a plan's edge_keys), no NaN in the block and the block inside [E_0, E_bins), the
// edge hint (binning.h, IH_CODE16_EDGE_HINT) where ih_edge_walk_from starts; otherwise
// IH_CODE16_UNRESOLVED (classify in full).
std::uint32_t unresolved_float_code16(const std::vector<std::uint32_t>& edge_keys, std::uint32_t top16);
// Whether the floats whose top 16 bits are `top16` include NaNs (exponent all ones; the +-Inf
// block too, whose other values are NaNs).
constexpr bool float_block_has_nan(std::uint32_t top16) { return (top16 & 0x7F80u) == 0x7F80u; }
template <class Classify>
std::vector<std::uint32_t> float_top16_codes(Classify classify) {
    std::vector<std::uint32_t> codes(65536);
    for (std::uint32_t t = 0; t < 65536; ++t) {
        const std::uint32_t first = classify(std::bit_cast<float>(t << 16));
        const std::uint32_t last = classify(std::bit_cast<float>((t << 16) | 0xFFFFu));
        codes[t] = first == last ? first : kCodeUnresolved;
    }
    return codes;
}
// A finer slice of the float code table, small enough for a GPU's shared memory (edge bins): one
// 16-bit entry (as code16_table's) per block of 2^shift floats, by raw bits >> shift, for the
// blocks first .. first + entries - 1. It covers [E_0, E_bins] of non-negative edges with the
// finest blocks that fit, so fewer blocks hold an edge than by the top 16 bits; samples outside
// it read the whole table. entries == 0: no window (uniform bins, a negative E_0, or too wide).
struct FloatCodeWindow {
    std::uint32_t shift = 16, first = 0, entries = 0;  // entries: a multiple of 8 (16 bytes)
    bool operator==(const FloatCodeWindow&) const = default;
};
inline constexpr std::uint32_t kFinestWindowShift = 8;
FloatCodeWindow float_code_window(const std::vector<std::uint32_t>& edge_keys, std::uint32_t max_entries);
// The 16-bit entry of the floats with bits [first_bits, last_bits] (one sign) whose ends classify
// to first_code and last_code: their shared code, or the edge hint of `edge_keys`, or
// IH_CODE16_UNRESOLVED (NaN inside, or across E_0 or E_bins).
std::uint32_t float_block_code16(const std::vector<std::uint32_t>& edge_keys, std::uint32_t first_code,
                                 std::uint32_t last_code, std::uint32_t first_bits, std::uint32_t last_bits);
// The window's entries; `classify` as for float_top16_codes.
template <class Classify>
std::vector<std::uint16_t> code16_window(Classify classify, const std::vector<std::uint32_t>& edge_keys,
                                         const FloatCodeWindow& window) {
    std::vector<std::uint16_t> entries(window.entries);
    const std::uint32_t low_mask = (1u << window.shift) - 1;
    for (std::uint32_t i = 0; i < window.entries; ++i) {
        const std::uint32_t first_bits = (window.first + i) << window.shift, last_bits = first_bits | low_mask;
        entries[i] = std::uint16_t(float_block_code16(edge_keys, classify(std::bit_cast<float>(first_bits)),
                                                      classify(std::bit_cast<float>(last_bits)), first_bits, last_bits));
    }
    return entries;
}
// The 16-bit table the GPU backends read (binning.h, ih_code_to_16): each entry of `codes`
// (half_codes, or float_top16_codes by the top 16 bits) as ih_code_to_16, an unresolved float
// block as unresolved_float_code16 of the plan's edge keys.
std::vector<std::uint16_t> code16_table(const std::vector<std::uint32_t>& codes, const std::vector<std::uint32_t>& edge_keys);
// The words the GPU backends bind as a plan's edge keys (binning.h, ih_code16_table_word): the
// keys (one unread word for uniform bins), then for float edge bins the code table of
// float_top16_codes (two entries a word) and, where window.entries, code16_window's entries.
std::vector<std::uint32_t> edge_key_words(const HistogramPlan& plan, const FloatCodeWindow& window = {});

}  // namespace imghist
