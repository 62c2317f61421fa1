#include "core/sample_stats_pass.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <optional>

#include "contract/binning.h"
#include "contract/exact_sum.h"
#include "contract/half.h"
#include "contract/luminance.h"
#include "core/host_threads.hpp"
#include "core/order_statistics.hpp"
#include "core/plan.hpp"
#include "core/selection.hpp"

namespace imghist {

namespace {
using u128 = unsigned __int128;

// How a channel's samples are held: by value (8- and 16-bit samples, integer luminance, half
// samples by their bits), or as fp32 bits summed by exponent bucket (float samples, float luminance).
enum class Kind { integer_codes, half_codes, float_values };

Kind kind_of(const HistogramPlan& plan, int source) {
    if (!plan.is_float()) return Kind::integer_codes;
    if (source != kLumaSource && plan.info.sample == SampleType::f16) return Kind::half_codes;
    return Kind::float_values;
}

std::size_t code_count(const HistogramPlan& plan, Kind kind) {
    if (kind == Kind::float_values) return 0;
    return plan.info.sample == SampleType::u8 ? 256 : 65536;
}

float half_value(std::uint32_t h) { return std::bit_cast<float>(ih_half_to_float_bits(h)); }

// One channel's samples of `pixels` packed pixels as 32-bit words: integer values, half bits,
// or fp32 bits (the contract's luminance for Y).
void channel_row(const HistogramPlan& plan, int source, const std::byte* pixels, std::size_t count,
                 std::vector<std::uint32_t>& out) {
    out.resize(count);
    const FormatInfo& fi = plan.info;
    const auto stride = std::size_t(fi.channels);
    const auto sample = [&](std::size_t i) -> std::uint32_t {
        switch (fi.sample) {
        case SampleType::u8: return std::uint32_t(reinterpret_cast<const std::uint8_t*>(pixels)[i]);
        case SampleType::u16:
        case SampleType::f16: return reinterpret_cast<const std::uint16_t*>(pixels)[i];
        default: return reinterpret_cast<const std::uint32_t*>(pixels)[i];
        }
    };
    if (source != kLumaSource) {
        for (std::size_t x = 0; x < count; ++x) out[x] = sample(x * stride + std::size_t(source));
        return;
    }
    const auto r = std::size_t(fi.red), g = std::size_t(fi.green), b = std::size_t(fi.blue);
    for (std::size_t x = 0, p = 0; x < count; ++x, p += stride) {
        if (!plan.is_float()) {
            out[x] = ih_luma_int(sample(p + r), sample(p + g), sample(p + b), plan.weight_int[0], plan.weight_int[1],
                                 plan.weight_int[2]);
            continue;
        }
        const auto value = [&](std::size_t i) {
            return fi.sample == SampleType::f16 ? half_value(sample(i)) : std::bit_cast<float>(sample(i));
        };
        out[x] = std::bit_cast<std::uint32_t>(ih_luma_float(value(p + r), value(p + g), value(p + b),
                                                            plan.weight_float[0], plan.weight_float[1], plan.weight_float[2]));
    }
}

// One channel's first-pass state in one thread.
struct ChannelAccumulator {
    Kind kind = Kind::integer_codes;
    std::vector<std::uint64_t> codes;  // integer and half kinds: a counter per value
    // float kind: Σm per sign and bucket, Σm² per bucket, the top 16 key bits' counts
    std::array<u128, IH_SUM_BUCKETS> positive{}, negative{}, squares{};
    std::vector<std::uint64_t> top;
    std::uint64_t positive_infinities = 0, negative_infinities = 0;

    ChannelAccumulator(Kind k, std::size_t codes_size) : kind(k), codes(codes_size, 0) {
        if (kind == Kind::float_values) top.assign(65536, 0);
    }

    void add(const std::vector<std::uint32_t>& values) {
        if (kind != Kind::float_values) {
            for (const std::uint32_t v : values) ++codes[v];
            return;
        }
        for (const std::uint32_t bits : values) {
            if (!ih_is_finite_bits(bits)) {
                positive_infinities += bits == IH_POS_INF_BITS;
                negative_infinities += bits == IH_NEG_INF_BITS;
                continue;
            }
            const std::uint32_t bucket = ih_sum_bucket(bits), m = ih_sum_mantissa(bits);
            (ih_sum_negative(bits) ? negative : positive)[bucket] += m;
            squares[bucket] += std::uint64_t(m) * m;
            ++top[ih_float_key(bits) >> 16];
        }
    }

    void merge(const ChannelAccumulator& other) {
        for (std::size_t i = 0; i < codes.size(); ++i) codes[i] += other.codes[i];
        for (std::size_t i = 0; i < top.size(); ++i) top[i] += other.top[i];
        for (std::size_t b = 0; b < IH_SUM_BUCKETS; ++b) {
            positive[b] += other.positive[b];
            negative[b] += other.negative[b];
            squares[b] += other.squares[b];
        }
        positive_infinities += other.positive_infinities;
        negative_infinities += other.negative_infinities;
    }
};

// Runs visit(share, pixels, count) over the counted pixels, row by row (the selected ones packed),
// in up to host_pass_threads() shares made by make_share(), then merges them into the first.
template <class Share, class MakeShare, class Visit>
Share over_counted_pixels(const ImageView& image, const PixelSelector* selector, const MakeShare& make_share,
                          const Visit& visit) {
    const std::size_t row_bytes = image.row_bytes();
    const unsigned threads = host_pass_threads(row_bytes * image.height, image.height);
    std::vector<std::optional<Share>> shares(threads);
    for_row_shares(image.height, threads, [&](unsigned t, std::uint32_t begin, std::uint32_t end) {
        Share& share = shares[t].emplace(make_share());
        std::vector<std::uint64_t> gathered(selector ? (row_bytes + 7) / 8 : 0);  // one row of selected pixels
        auto* packed = reinterpret_cast<std::byte*>(gathered.data());
        for (std::uint32_t y = begin; y < end; ++y) {
            if (selector) visit(share, packed, selector->gather_row(y, packed));
            else visit(share, image.row(y), image.width);
        }
    });
    for (unsigned t = 1; t < threads; ++t) shares[0]->merge(*shares[t]);
    return std::move(*shares[0]);
}

struct FirstPass {
    std::vector<ChannelAccumulator> channels;
    void merge(const FirstPass& other) {
        for (std::size_t c = 0; c < channels.size(); ++c) channels[c].merge(other.channels[c]);
    }
};

// The value a code stands for.
double code_value(Kind kind, std::size_t code) {
    return kind == Kind::half_codes ? double(half_value(std::uint32_t(code))) : double(code);
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

// Moments and percentiles of a channel counted by value. Half codes are visited in the float
// total order (negative values first, largest magnitude first); NaN codes are skipped (the
// histogram counts them) and infinities counted apart.
ChannelSampleStats stats_of_codes(const ChannelAccumulator& acc, const std::vector<double>& percents) {
    ChannelSampleStats out;
    const std::vector<std::size_t>& order = acc.kind == Kind::half_codes ? finite_halves_in_order()
                                                                         : integers_up_to(acc.codes.size());
    if (acc.kind == Kind::half_codes)
        for (std::uint32_t h = 0; h < 65536; ++h) {
            const std::uint32_t bits = ih_half_to_float_bits(h);
            out.positive_infinities += bits == IH_POS_INF_BITS ? acc.codes[h] : 0;
            out.negative_infinities += bits == IH_NEG_INF_BITS ? acc.codes[h] : 0;
        }
    std::vector<std::uint64_t> counts;
    counts.reserve(order.size());
    SampleMoments& m = out.moments;
    for (const std::size_t code : order) {
        const std::uint64_t n = acc.codes[code];
        counts.push_back(n);
        if (n == 0) continue;
        const double v = code_value(acc.kind, code);
        const ExactNumber value = ExactNumber::from_double(v), times = ExactNumber::from_parts(false, n, 0);
        m.count += n;
        m.sum += value * times;
        m.sum_of_squares += value * value * times;
        if (!m.min) m.min = v == 0 ? 0.0 : v;  // -0 is 0
        m.max = v == 0 ? 0.0 : v;
    }
    out.percentiles = percentiles_of_counts(percents, counts, [&](std::size_t i) {
        const double v = code_value(acc.kind, order[i]);
        return v == 0 ? 0.0 : v;
    });
    return out;
}

// The exact sums of a float channel from its buckets.
SampleMoments moments_of_buckets(const ChannelAccumulator& acc) {
    SampleMoments m;
    for (std::uint32_t b = 0; b < IH_SUM_BUCKETS; ++b) {
        const std::int64_t e = std::int64_t(b) - IH_SUM_EXPONENT_BIAS;
        if (acc.positive[b] != 0) m.sum += ExactNumber::from_parts(false, acc.positive[b], e);
        if (acc.negative[b] != 0) m.sum += ExactNumber::from_parts(true, acc.negative[b], e);
        if (acc.squares[b] != 0) m.sum_of_squares += ExactNumber::from_parts(false, acc.squares[b], 2 * e);
    }
    for (const std::uint64_t n : acc.top) m.count += n;
    return m;
}

float value_of_key(std::uint32_t key) { return std::bit_cast<float>(ih_float_bits_of_key(key)); }
}  // namespace

namespace {
// A float channel's ranks to resolve: where each falls among the top-16 key buckets.
struct RankSelection {
    std::vector<std::uint64_t> ranks;      // ascending
    std::vector<std::uint32_t> bucket_of;  // per rank: its top-16 bucket
    std::vector<std::uint64_t> offset;     // per rank: its rank among that bucket's samples
    std::vector<std::uint32_t> targets;    // the distinct buckets, ascending
    std::vector<std::int32_t> target_index;  // 65536: bucket -> index in targets, or -1
};

RankSelection select_buckets(const std::vector<std::uint64_t>& top, std::vector<std::uint64_t> ranks) {
    RankSelection s;
    s.ranks = std::move(ranks);
    s.target_index.assign(65536, -1);
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

// The second pass's state in one thread: per float channel, the low 16 key bits' counts of each
// target bucket.
struct SecondPass {
    std::vector<std::vector<std::uint64_t>> low;  // [channel][target * 65536 + low16]
    void merge(const SecondPass& other) {
        for (std::size_t c = 0; c < low.size(); ++c)
            for (std::size_t i = 0; i < low[c].size(); ++i) low[c][i] += other.low[c][i];
    }
};

// The rank-th values of a float channel, from its second pass's counts.
std::vector<double> resolve_ranks(const RankSelection& s, const std::vector<std::uint64_t>& low) {
    std::vector<double> values;
    for (std::size_t i = 0; i < s.ranks.size(); ++i) {
        const auto* counts = low.data() + std::size_t(s.target_index[s.bucket_of[i]]) * 65536;
        std::uint64_t below = 0;
        std::uint32_t l = 0;
        while (below + counts[l] <= s.offset[i]) below += counts[l++];
        values.push_back(double(value_of_key((s.bucket_of[i] << 16) | l)));
    }
    return values;
}
}  // namespace

std::vector<ChannelSampleStats> find_sample_stats(const ImageView& image, const HistogramPlan& plan,
                                                  const PixelSelector* selector, const std::vector<double>& percents) {
    const std::size_t channels = plan.channels.size();
    std::vector<Kind> kinds;
    for (const int source : plan.sources) kinds.push_back(kind_of(plan, source));
    FirstPass first = over_counted_pixels<FirstPass>(
        image, selector,
        [&] {
            FirstPass p;
            for (const Kind k : kinds) p.channels.emplace_back(k, code_count(plan, k));
            return p;
        },
        [&](FirstPass& p, const std::byte* pixels, std::size_t count) {
            thread_local std::vector<std::uint32_t> values;
            for (std::size_t c = 0; c < channels; ++c) {
                channel_row(plan, plan.sources[c], pixels, count, values);
                p.channels[c].add(values);
            }
        });
    std::vector<ChannelSampleStats> out(channels);
    std::vector<RankSelection> selections(channels);
    bool second_pass = false;
    for (std::size_t c = 0; c < channels; ++c) {
        const ChannelAccumulator& acc = first.channels[c];
        if (acc.kind != Kind::float_values) {
            out[c] = stats_of_codes(acc, percents);
            continue;
        }
        out[c].moments = moments_of_buckets(acc);
        out[c].positive_infinities = acc.positive_infinities;
        out[c].negative_infinities = acc.negative_infinities;
        const std::uint64_t n = out[c].moments.count;
        if (n == 0) continue;
        std::vector<std::uint64_t> ranks = ranks_needed(n, percents);
        ranks.push_back(0);  // the minimum and the maximum
        ranks.push_back(n - 1);
        std::sort(ranks.begin(), ranks.end());
        ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
        selections[c] = select_buckets(acc.top, std::move(ranks));
        second_pass = true;
    }
    if (!second_pass) return out;
    SecondPass second = over_counted_pixels<SecondPass>(
        image, selector,
        [&] {
            SecondPass p;
            for (const RankSelection& s : selections) p.low.emplace_back(s.targets.size() * 65536, 0);
            return p;
        },
        [&](SecondPass& p, const std::byte* pixels, std::size_t count) {
            thread_local std::vector<std::uint32_t> values;
            for (std::size_t c = 0; c < channels; ++c) {
                if (selections[c].targets.empty()) continue;
                channel_row(plan, plan.sources[c], pixels, count, values);
                for (const std::uint32_t bits : values) {
                    if (!ih_is_finite_bits(bits)) continue;
                    const std::uint32_t key = ih_float_key(bits);
                    const std::int32_t t = selections[c].target_index[key >> 16];
                    if (t >= 0) ++p.low[c][std::size_t(t) * 65536 + (key & 0xFFFF)];
                }
            }
        });
    for (std::size_t c = 0; c < channels; ++c) {
        const RankSelection& s = selections[c];
        if (s.ranks.empty()) continue;
        const std::vector<double> values = resolve_ranks(s, second.low[c]);
        const auto value_at = [&](std::uint64_t rank) {
            return values[std::size_t(std::lower_bound(s.ranks.begin(), s.ranks.end(), rank) - s.ranks.begin())];
        };
        out[c].moments.min = value_at(0);
        out[c].moments.max = value_at(out[c].moments.count - 1);
        out[c].percentiles = percentiles_of(out[c].moments.count, percents, value_at);
    }
    return out;
}

namespace {
// Whether every bin of an integer plan holds exactly one of the format's values (8-bit default
// bins; 16-bit ones with 65,536 bins): then the histogram's counts are the samples' own, and the
// statistics need no pass over the pixels.
bool bins_are_values(const HistogramPlan& plan) {
    const BinLayout& l = plan.layout;
    const std::size_t values = code_count(plan, Kind::integer_codes);
    return !plan.is_float() && l.edges.empty() && l.lo == 0 && l.hi == double(values) && l.bins == values;
}
}  // namespace

void add_sample_stats(const ImageView& image, const Request& request, const HistogramPlan& plan,
                      const PixelSelector* selector, Result& result) {
    if (!request.sample_stats) return;
    if (bins_are_values(plan)) {
        for (ChannelHistogram& c : result.channels) {
            ChannelAccumulator counts(Kind::integer_codes, 0);
            counts.codes = c.counts;
            const ChannelSampleStats found = stats_of_codes(counts, request.percentiles);
            c.sample_moments = found.moments;
            c.sample_percentiles = found.percentiles;
        }
        return;
    }
    const std::vector<ChannelSampleStats> found = find_sample_stats(image, plan, selector, request.percentiles);
    for (std::size_t c = 0; c < result.channels.size(); ++c) {
        result.channels[c].sample_moments = found[c].moments;
        result.channels[c].sample_percentiles = found[c].percentiles;
    }
}

void add_sample_stats(const DeviceImage&, const Request& request, const HistogramPlan&, const PixelSelector*,
                      Result& result) {
    if (request.sample_stats) result.notes.push_back("sample statistics are found for images in host memory only");
}

}  // namespace imghist
