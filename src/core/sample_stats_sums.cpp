#include "core/sample_stats_sums.hpp"

#include <algorithm>
#include <bit>

#include "contract/binning.h"
#include "contract/half.h"
#include "core/order_statistics.hpp"
#include "core/plan.hpp"

namespace imghist {

SampleKind sample_kind_of(const HistogramPlan& plan, int source) {
    if (!plan.is_float()) return SampleKind::integer_codes;
    if (source != kLumaSource && plan.info.sample == SampleType::f16) return SampleKind::half_codes;
    return SampleKind::float_values;
}

std::size_t code_count(const HistogramPlan& plan, SampleKind kind) {
    if (kind == SampleKind::float_values) return 0;
    return plan.info.sample == SampleType::u8 ? 256 : 65536;
}

void FloatSums::add(std::uint32_t bits) {
    if (!ih_is_finite_bits(bits)) {
        positive_infinities += bits == IH_POS_INF_BITS;
        negative_infinities += bits == IH_NEG_INF_BITS;
        return;
    }
    const std::uint32_t bucket = ih_sum_bucket(bits), m = ih_sum_mantissa(bits);
    (ih_sum_negative(bits) ? negative : positive)[bucket] += m;
    squares[bucket] += std::uint64_t(m) * m;
    ++top[ih_float_key(bits) >> 16];
}

void FloatSums::add(std::uint32_t bits, std::uint64_t times) {
    if (!ih_is_finite_bits(bits)) {
        positive_infinities += bits == IH_POS_INF_BITS ? times : 0;
        negative_infinities += bits == IH_NEG_INF_BITS ? times : 0;
        return;
    }
    const std::uint32_t bucket = ih_sum_bucket(bits), m = ih_sum_mantissa(bits);
    const u128 n = times;
    (ih_sum_negative(bits) ? negative : positive)[bucket] += n * m;
    squares[bucket] += n * (std::uint64_t(m) * m);
    top[ih_float_key(bits) >> 16] += times;
}

void FloatSums::merge(const FloatSums& other) {
    for (std::size_t i = 0; i < top.size(); ++i) top[i] += other.top[i];
    for (std::size_t b = 0; b < IH_SUM_BUCKETS; ++b) {
        positive[b] += other.positive[b];
        negative[b] += other.negative[b];
        squares[b] += other.squares[b];
    }
    positive_infinities += other.positive_infinities;
    negative_infinities += other.negative_infinities;
}

FloatSums float_sums_of_slots(const std::uint64_t* slots) {
    FloatSums sums;
    std::copy_n(slots, sums.top.size(), sums.top.begin());
    for (std::uint32_t b = 0; b < IH_SUM_BUCKETS; ++b) {
        sums.positive[b] = slots[IH_STATS_POSITIVE + b];
        sums.negative[b] = slots[IH_STATS_NEGATIVE + b];
        sums.squares[b] = (FloatSums::u128(slots[IH_STATS_SQUARES_HIGH + b]) << 24) + slots[IH_STATS_SQUARES_LOW + b];
    }
    sums.positive_infinities = slots[IH_STATS_POS_INF];
    sums.negative_infinities = slots[IH_STATS_NEG_INF];
    return sums;
}

namespace {
float half_value(std::uint32_t h) { return std::bit_cast<float>(ih_half_to_float_bits(h)); }

// The value a code stands for.
double code_value(SampleKind kind, std::size_t code) {
    return kind == SampleKind::half_codes ? double(half_value(std::uint32_t(code))) : double(code);
}

// The half codes of finite values in the contract's total order (ih_float_key of the widened
// bits, -0 beside +0), and the codes 0 .. n-1 of integer values: the orders counts are read in.
const std::vector<std::size_t>& finite_halves_in_order() {
    static const std::vector<std::size_t> order = [] {
        std::vector<std::size_t> codes;
        for (std::uint32_t h = 0; h < 65536; ++h)
            if (ih_is_finite_bits(ih_half_to_float_bits(h))) codes.push_back(h);
        std::stable_sort(codes.begin(), codes.end(), [](std::size_t a, std::size_t b) {
            return ih_float_key(ih_half_to_float_bits(std::uint32_t(a))) < ih_float_key(ih_half_to_float_bits(std::uint32_t(b)));
        });
        return codes;
    }();
    return order;
}
const std::vector<std::size_t>& integers_up_to(std::size_t n) {
    static const std::vector<std::size_t> all = [] {
        std::vector<std::size_t> codes(65536);
        for (std::size_t v = 0; v < codes.size(); ++v) codes[v] = v;
        return codes;
    }();
    static const std::vector<std::size_t> bytes(all.begin(), all.begin() + 256);
    return n == 256 ? bytes : all;
}

float value_of_key(std::uint32_t key) { return std::bit_cast<float>(ih_float_bits_of_key(key)); }


// Σv and Σv² of integer codes in 128 bits, converted once: n·v < 2^80 and n·v² < 2^96 for any
// count n < 2^64.
SampleMoments moments_of_integer_codes(const std::vector<std::uint64_t>& codes) {
    SampleMoments m;
    FloatSums::u128 sum = 0, squares = 0;
    for (std::size_t v = 0; v < codes.size(); ++v) {
        const FloatSums::u128 n = codes[v];
        m.count += codes[v];
        sum += n * v;
        squares += n * (std::uint64_t(v) * v);
    }
    m.sum = ExactNumber::from_parts(false, sum, 0);
    m.sum_of_squares = ExactNumber::from_parts(false, squares, 0);
    return m;
}

// Half codes summed as the float samples they widen to: by exponent bucket.
ChannelSampleStats moments_of_half_codes(const std::vector<std::uint64_t>& codes) {
    FloatSums sums;
    for (std::uint32_t h = 0; h < 65536; ++h)
        if (codes[h] != 0) sums.add(ih_half_to_float_bits(h), codes[h]);
    return moments_of_sums(sums);
}
}  // namespace

ChannelSampleStats stats_of_codes(SampleKind kind, const std::vector<std::uint64_t>& codes,
                                  const std::vector<double>& percents) {
    ChannelSampleStats out;
    if (kind == SampleKind::half_codes) out = moments_of_half_codes(codes);
    else out.moments = moments_of_integer_codes(codes);
    const std::vector<std::size_t>& order = kind == SampleKind::half_codes ? finite_halves_in_order()
                                                                           : integers_up_to(codes.size());
    std::vector<std::uint64_t> counts;
    counts.reserve(order.size());
    SampleMoments& m = out.moments;
    for (const std::size_t code : order) {
        counts.push_back(codes[code]);
        if (codes[code] == 0) continue;
        const double v = code_value(kind, code);
        if (!m.min) m.min = v == 0 ? 0.0 : v;  // -0 is 0
        m.max = v == 0 ? 0.0 : v;
    }
    out.percentiles = percentiles_of_counts(percents, counts, [&](std::size_t i) {
        const double v = code_value(kind, order[i]);
        return v == 0 ? 0.0 : v;
    });
    return out;
}

ChannelSampleStats moments_of_sums(const FloatSums& sums) {
    ChannelSampleStats out;
    SampleMoments& m = out.moments;
    for (std::uint32_t b = 0; b < IH_SUM_BUCKETS; ++b) {
        const std::int64_t e = std::int64_t(b) - IH_SUM_EXPONENT_BIAS;
        if (sums.positive[b] != 0) m.sum += ExactNumber::from_parts(false, sums.positive[b], e);
        if (sums.negative[b] != 0) m.sum += ExactNumber::from_parts(true, sums.negative[b], e);
        if (sums.squares[b] != 0) m.sum_of_squares += ExactNumber::from_parts(false, sums.squares[b], 2 * e);
    }
    for (const std::uint64_t n : sums.top) m.count += n;
    out.positive_infinities = sums.positive_infinities;
    out.negative_infinities = sums.negative_infinities;
    return out;
}

RankSelection select_ranks(std::uint64_t count, const std::vector<std::uint64_t>& top,
                           const std::vector<double>& percents) {
    RankSelection s;
    s.target_index.assign(65536, -1);
    if (count == 0) return s;
    s.ranks = ranks_needed(count, percents);
    s.ranks.push_back(0);  // the minimum and the maximum
    s.ranks.push_back(count - 1);
    std::sort(s.ranks.begin(), s.ranks.end());
    s.ranks.erase(std::unique(s.ranks.begin(), s.ranks.end()), s.ranks.end());
    std::uint64_t below = 0;
    std::size_t next = 0;
    for (std::uint32_t t = 0; t < 65536 && next < s.ranks.size(); ++t) {
        while (next < s.ranks.size() && s.ranks[next] < below + top[t]) {
            s.bucket_of.push_back(t);
            s.offset.push_back(s.ranks[next] - below);
            if (s.target_index[t] < 0) {
                s.target_index[t] = std::int32_t(s.targets.size());
                s.targets.push_back(t);
            }
            ++next;
        }
        below += top[t];
    }
    return s;
}

PackedTargets pack_targets(std::span<const RankSelection> selections) {
    PackedTargets packed;
    for (const RankSelection& s : selections) {
        packed.starts.push_back(std::uint32_t(packed.targets.size()));
        packed.targets.insert(packed.targets.end(), s.targets.begin(), s.targets.end());
    }
    packed.starts.push_back(std::uint32_t(packed.targets.size()));
    return packed;
}

void read_rank_values(const RankSelection& s, std::span<const std::uint64_t> low, std::vector<double>& values) {
    values.resize(s.ranks.size());
    for (std::size_t i = 0; i < s.ranks.size(); ++i) {
        const std::int32_t target = s.target_index[s.bucket_of[i]];
        if (target < 0) continue;
        const auto* counts = low.data() + std::size_t(target) * 65536;
        std::uint64_t below = 0;
        std::uint32_t l = 0;
        while (below + counts[l] <= s.offset[i]) below += counts[l++];
        values[i] = double(value_of_key((s.bucket_of[i] << 16) | l));
    }
}

void finish_order_statistics(const RankSelection& s, std::span<const std::uint64_t> low,
                             const std::vector<double>& percents, ChannelSampleStats& stats) {
    std::vector<double> values;
    read_rank_values(s, low, values);
    finish_order_statistics(s, values, percents, stats);
}

void finish_order_statistics(const RankSelection& s, const std::vector<double>& values,
                             const std::vector<double>& percents, ChannelSampleStats& stats) {
    if (s.ranks.empty()) return;
    const auto value_at = [&](std::uint64_t rank) {
        return values[std::size_t(std::lower_bound(s.ranks.begin(), s.ranks.end(), rank) - s.ranks.begin())];
    };
    const std::uint64_t n = stats.moments.count;
    stats.moments.min = value_at(0);
    stats.moments.max = value_at(n - 1);
    stats.percentiles = percentiles_of(n, percents, value_at);
}

}  // namespace imghist
