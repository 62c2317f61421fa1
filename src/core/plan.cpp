#include "core/plan.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <tuple>

#include "imghist/error.hpp"
#include "imghist/sample_stats.hpp"

namespace imghist {

HistogramPlan::HistogramPlan(PixelFormat format_, const Request& request)
    : format(format_),
      info(format_info(format_)),
      layout(resolve_layout(info.sample, request.bins)),
      channels(channels_for(format_, request)) {
    request.weights.validate();
    validate_percentiles(request.percentiles);
    // Packed pixels are decoded on the host first (count_image(), core/packed_image.hpp); no
    // kernel reads their bit fields.
    if (info.packed)
        throw InvalidArgument("pixel format " + std::string(info.name) +
                              " is counted from images in host memory by compute() only; this call does not decode it");
    // count_image() cuts a request's roi and tiles into plain requests over sub-views; the
    // calls that count whole images only (batches, recorded and asynchronous interop calls)
    // refuse them here rather than count pixels the caller did not ask for.
    if (request.roi || request.tiles.count() != 1)
        throw InvalidArgument("a region of interest or tiles can be counted by compute() only; this call counts "
                              "whole images (crop the image view instead)");
    if (request.selects_pixels())
        throw InvalidArgument("a mask or an alpha threshold can be counted by compute() only (of host images, or of "
                              "device images through the interop compute calls); this call counts whole images");
    for (Channel c : channels) {
        switch (c) {
            case Channel::R: sources.push_back(info.red); break;
            case Channel::G: sources.push_back(info.green); break;
            case Channel::B: sources.push_back(info.blue); break;
            case Channel::A: sources.push_back(info.alpha); break;
            case Channel::gray: sources.push_back(0); break;
            case Channel::Y: sources.push_back(kLumaSource); break;
        }
    }
    set_bin_arguments();
    const std::uint32_t w[3] = {request.weights.r, request.weights.g, request.weights.b};
    for (int i = 0; i < 3; ++i) {
        weight_int[i] = w[i];
        weight_float[i] = float(double(w[i]) / double(IH_LUMA_WEIGHT_SUM));
    }
}

HistogramPlan HistogramPlan::with_layout(const BinLayout& other) const {
    HistogramPlan p = *this;
    p.layout = other;
    p.set_bin_arguments();
    return p;
}

void HistogramPlan::set_bin_arguments() {
    clamp = layout.clamp ? 1u : 0u;
    closed_top = layout.closed_top ? 1u : 0u;
    edge_keys.clear();
    lo_int = hi_int = 0;
    lo_float = scale_float = 0;
    lo_key = hi_key = 0;
    int_mode = IH_INT_SHIFT;
    shift = 0;
    if (!layout.edges.empty()) {
        // Integer keys: the value itself against ceil(edge), which no sample (at most 65535) can
        // tell from 65536 above or 0 below. Float keys: ih_float_key of the fp32 edges.
        int_mode = IH_INT_GENERAL;
        for (double e : layout.edges) {
            if (!info.is_float()) {
                edge_keys.push_back(std::uint32_t(std::clamp(std::ceil(e), 0.0, 65536.0)));
            } else {
                edge_keys.push_back(ih_float_key(std::bit_cast<std::uint32_t>(float(e))));
            }
        }
    } else if (!info.is_float()) {
        lo_int = std::int64_t(layout.lo);
        hi_int = std::int64_t(layout.hi);
        // Powers of two from zero reduce to a shift: 8-bit identity, 16-bit v >> (16 - k).
        const auto range = std::uint64_t(hi_int - lo_int);
        const std::uint64_t max_value = info.sample == SampleType::u8 ? 256 : 65536;
        if (lo_int == 0 && std::has_single_bit(range) && std::has_single_bit(layout.bins) &&
            layout.bins <= range && range == max_value) {
            int_mode = IH_INT_SHIFT;
            shift = std::uint32_t(std::countr_zero(range) - std::countr_zero(layout.bins));
        } else {
            int_mode = IH_INT_GENERAL;
        }
    } else {
        // The one specified float sequence: lo and hi rounded to fp32, the scale computed in
        // double and rounded once to fp32. The closed [0, 1] rule has 256 bins below 1.0.
        lo_float = float(layout.lo);
        scale_float = float_bin_scale(layout);
        lo_key = ih_float_key(std::bit_cast<std::uint32_t>(float(layout.lo)));
        hi_key = ih_float_key(std::bit_cast<std::uint32_t>(float(layout.hi)));
    }
}

ih_bin_args HistogramPlan::bin_args(std::size_t first, std::size_t count) const {
    if (first + count > channels.size() || count > IH_MAX_PASS_CHANNELS)
        throw Error("internal error: bin_args of channels beyond the plan");
    ih_bin_args a{};
    a.format = std::uint32_t(format);
    a.channels = std::uint32_t(count);
    for (std::size_t c = 0; c < count; ++c) {
        const int src = sources[first + c];
        a.sources |= (src == kLumaSource ? IH_SRC_LUMA : std::uint32_t(src)) << (4 * c);
    }
    a.luma_sources = ih_format_red(a.format) | ih_format_green(a.format) << 4 | ih_format_blue(a.format) << 8;
    a.bins = layout.bins;
    a.int_mode = int_mode;
    a.shift = shift;
    a.closed_top = closed_top;
    a.clamp = clamp;
    a.edges = has_edges() ? 1u : 0u;
    a.lo_key = lo_key;
    a.hi_key = hi_key;
    a.lo_int_low = std::uint32_t(std::uint64_t(lo_int));
    a.lo_int_high = std::uint32_t(std::uint64_t(lo_int) >> 32);
    a.hi_int_low = std::uint32_t(std::uint64_t(hi_int));
    a.hi_int_high = std::uint32_t(std::uint64_t(hi_int) >> 32);
    a.lo_float = lo_float;
    a.scale_float = scale_float;
    a.weight_int_r = weight_int[0];
    a.weight_int_g = weight_int[1];
    a.weight_int_b = weight_int[2];
    a.weight_float_r = weight_float[0];
    a.weight_float_g = weight_float[1];
    a.weight_float_b = weight_float[2];
    return a;
}

namespace {

// The entry of the floats with bits [first_bits, last_bits] (one sign) that do not share one
// code: the edge hint, or IH_CODE16_UNRESOLVED for uniform bins, a NaN inside, or a block that
// reaches past E_0 or E_bins.
std::uint32_t edge_hint_code16(const std::vector<std::uint32_t>& edge_keys, std::uint32_t first_bits,
                               std::uint32_t last_bits) {
    // One sign: the last bits have the largest magnitude, so NaN is inside when they are NaN.
    if (edge_keys.size() < 2 || ih_is_nan_bits(last_bits) != 0) return IH_CODE16_UNRESOLVED;
    // The block's smallest and largest keys: a negative block's last bits are its smallest value.
    const bool negative = (first_bits & 0x80000000u) != 0;
    const std::uint32_t low_key = ih_float_key(negative ? last_bits : first_bits);
    const std::uint32_t high_key = ih_float_key(negative ? first_bits : last_bits);
    // A block across E_0 or E_bins is classified in full, so the walk needs no end checks.
    if (low_key < edge_keys.front() || high_key >= edge_keys.back()) return IH_CODE16_UNRESOLVED;
    const auto above = std::upper_bound(edge_keys.begin(), edge_keys.end(), low_key);  // first E_k > low_key
    return IH_CODE16_EDGE_HINT | std::uint32_t(above - edge_keys.begin() - 1);
}

}  // namespace

std::uint32_t unresolved_float_code16(const std::vector<std::uint32_t>& edge_keys, std::uint32_t top16) {
    return edge_hint_code16(edge_keys, top16 << 16, (top16 << 16) | 0xFFFFu);
}

FloatCodeWindow float_code_window(const std::vector<std::uint32_t>& edge_keys, std::uint32_t max_entries) {
    constexpr std::uint32_t kPositiveZeroKey = 0x80000000u;  // ih_float_key(+0.0f)
    if (edge_keys.size() < 2 || edge_keys.front() < kPositiveZeroKey || max_entries < 2) return {};
    const std::uint32_t low_bits = ih_float_bits_of_key(edge_keys.front());
    const std::uint32_t high_bits = std::min(ih_float_bits_of_key(edge_keys.back()), 0x7F7FFFFFu);  // largest finite
    for (std::uint32_t shift = kFinestWindowShift; shift <= 16; ++shift) {
        const std::uint32_t first = low_bits >> shift;
        const std::uint32_t entries = ((high_bits >> shift) - first + 8) & ~7u;  // whole 16-byte vectors
        if (entries <= max_entries) return {shift, first, entries};
    }
    return {};
}

std::uint32_t float_block_code16(const std::vector<std::uint32_t>& edge_keys, std::uint32_t first_code,
                                 std::uint32_t last_code, std::uint32_t first_bits, std::uint32_t last_bits) {
    return first_code == last_code ? ih_code_to_16(first_code) : edge_hint_code16(edge_keys, first_bits, last_bits);
}

std::vector<std::uint16_t> code16_table(const std::vector<std::uint32_t>& codes, const std::vector<std::uint32_t>& edge_keys) {
    std::vector<std::uint16_t> table(codes.size());
    for (std::size_t i = 0; i < codes.size(); ++i)
        table[i] = std::uint16_t(codes[i] == kCodeUnresolved ? unresolved_float_code16(edge_keys, std::uint32_t(i))
                                                             : ih_code_to_16(codes[i]));
    return table;
}

std::vector<std::uint32_t> edge_key_words(const HistogramPlan& plan, const FloatCodeWindow& window) {
    std::vector<std::uint32_t> words = plan.edge_keys;
    if (words.empty()) words.push_back(0);
    if (plan.has_edges() && plan.is_float()) {
        auto classify = [&](float v) { return plan.classify_float(v); };
        const std::vector<std::uint16_t> codes = code16_table(float_top16_codes(classify), plan.edge_keys);
        const std::vector<std::uint16_t> finer = code16_window(classify, plan.edge_keys, window);
        for (const auto* entries : {&codes, &finer})
            for (std::size_t i = 0; i + 1 < entries->size(); i += 2)
                words.push_back(std::uint32_t((*entries)[i]) | std::uint32_t((*entries)[i + 1]) << 16);
    }
    return words;
}

bool HistogramPlan::has_luma() const {
    return std::find(sources.begin(), sources.end(), kLumaSource) != sources.end();
}

Result HistogramPlan::make_result(std::uint32_t width, std::uint32_t height, std::span<const std::uint64_t> slots,
                                  std::string backend, std::string device) const {
    if (slots.size() != total_slots()) throw Error("internal error: slot count mismatch");
    Result r;
    r.width = width;
    r.height = height;
    r.region = {0, 0, width, height};
    r.format = format;
    r.backend = std::move(backend);
    r.device = std::move(device);
    const std::uint32_t n = bins();
    for (std::size_t c = 0; c < channels.size(); ++c) {
        const std::uint64_t* s = slots.data() + c * slots_per_channel();
        ChannelHistogram h;
        h.channel = channels[c];
        h.layout = layout;
        h.counts.assign(s, s + n);
        h.nan = s[n + IH_SLOT_NAN];
        h.below = s[n + IH_SLOT_BELOW];
        h.above = s[n + IH_SLOT_ABOVE];
        std::tie(h.clipped_low_count, h.clipped_high_count) = clipping_proven_by(s);
        r.channels.push_back(std::move(h));
    }
    return r;
}

namespace {
// The values strictly between a sample type's extremes: [lo, hi).
std::pair<double, double> between_extremes(SampleType sample) {
    switch (sample) {
        case SampleType::u8: return {1, 255};
        case SampleType::u16: return {1, 65535};
        case SampleType::f16:
        case SampleType::f32: break;
    }
    return {double(std::numeric_limits<float>::denorm_min()), 1};
}
}  // namespace

Request HistogramPlan::clipping_request(SampleType sample, const Request& request) {
    Request r = request;
    r.bins = BinSpec{};
    r.bins.bins = 1;
    r.bins.range = between_extremes(sample);
    return r;
}

HistogramPlan::ExtremePositions HistogramPlan::extreme_positions() const {
    // Slots in value order: below (when not folded into bin 0), the bins, above. Every slot
    // holds one interval of values (the bin sequence is monotone), so the low extremes fill the
    // slots before that of their top edge value, and that slot too unless the next value up
    // shares it.
    const std::uint32_t n = bins();
    ExtremePositions e{};
    e.unbinned_ends = !layout.clamp && !layout.closed_top;
    e.count = n + (e.unbinned_ends ? 2 : 0);
    const auto position = [&](double value) -> std::size_t {
        const std::uint32_t slot = ih_code_slot(
            (is_float() ? classify_float(float(value)) : classify_int(std::uint32_t(value))));
        if (slot < n) return slot + (e.unbinned_ends ? 1 : 0);
        return slot == n + IH_SLOT_BELOW ? 0 : e.count - 1;
    };
    const auto [inner_lo, inner_hi] = between_extremes(info.sample);
    const double low_edge = is_float() ? 0.0 : inner_lo - 1;  // +0 (and -0) / value 0
    const double high_below = is_float() ? double(std::nextafter(1.0f, 0.0f)) : inner_hi - 1;
    e.low = position(low_edge);
    e.low_next = position(inner_lo);
    e.high = position(inner_hi);
    e.high_next = position(high_below);
    return e;
}

bool HistogramPlan::clipping_always_proven() const {
    const ExtremePositions e = extreme_positions();
    return e.low != e.low_next && e.high != e.high_next;
}

std::optional<HistogramPlan> HistogramPlan::clipping_plan(const Request& request) const {
    if (clipping_always_proven()) return std::nullopt;
    return HistogramPlan(format, clipping_request(info.sample, request));
}

bool HistogramPlan::proven_extremes(std::span<const std::uint64_t> slots, std::span<std::uint64_t> extremes) const {
    std::vector<std::uint64_t> proven(2 * channels.size());
    for (std::size_t c = 0; c < channels.size(); ++c) {
        const auto [low, high] = clipping_proven_by(slots.data() + c * slots_per_channel());
        if (!low || !high) return false;
        proven[2 * c] = *low;
        proven[2 * c + 1] = *high;
    }
    std::copy(proven.begin(), proven.end(), extremes.begin());
    return true;
}

std::pair<std::optional<std::uint64_t>, std::optional<std::uint64_t>> HistogramPlan::clipping_proven_by(
    const std::uint64_t* channel_slots) const {
    const std::uint32_t n = bins();
    const ExtremePositions e = extreme_positions();
    std::vector<std::uint64_t> ordered;
    if (e.unbinned_ends) ordered.push_back(channel_slots[n + IH_SLOT_BELOW]);
    ordered.insert(ordered.end(), channel_slots, channel_slots + n);
    if (e.unbinned_ends) ordered.push_back(channel_slots[n + IH_SLOT_ABOVE]);
    const auto proven = [&](std::size_t edge, std::size_t next, std::size_t from, std::size_t to)
        -> std::optional<std::uint64_t> {
        if (edge == next && ordered[edge] != 0) return std::nullopt;  // shared with inner values
        std::uint64_t sum = 0;
        for (std::size_t p = from; p < to; ++p) sum += ordered[p];
        return edge == next ? sum : sum + ordered[edge];
    };
    return {proven(e.low, e.low_next, 0, e.low), proven(e.high, e.high_next, e.high + 1, ordered.size())};
}

float half_to_float(std::uint16_t h) {
    return std::bit_cast<float>(ih_half_to_float_bits(h));
}

}  // namespace imghist
