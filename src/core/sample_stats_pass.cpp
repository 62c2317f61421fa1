#include "core/sample_stats_pass.hpp"

#include <algorithm>
#include <bit>
#include <optional>

#include "contract/binning.h"
#include "contract/half.h"
#include "contract/luminance.h"
#include "core/host_threads.hpp"
#include "core/plan.hpp"
#include "core/selection.hpp"

namespace imghist {

namespace {
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
    SampleKind kind = SampleKind::integer_codes;
    std::vector<std::uint64_t> codes;  // integer and half kinds: a counter per value
    std::optional<FloatSums> sums;     // float kind

    ChannelAccumulator(SampleKind k, std::size_t codes_size) : kind(k), codes(codes_size, 0) {
        if (kind == SampleKind::float_values) sums.emplace();
    }

    void add(const std::vector<std::uint32_t>& values) {
        if (!sums) {
            for (const std::uint32_t v : values) ++codes[v];
            return;
        }
        for (const std::uint32_t bits : values) sums->add(bits);
    }

    void merge(const ChannelAccumulator& other) {
        for (std::size_t i = 0; i < codes.size(); ++i) codes[i] += other.codes[i];
        if (sums) sums->merge(*other.sums);
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

// The second pass's state in one thread: per float channel, the low 16 key bits' counts of each
// target bucket.
struct SecondPass {
    std::vector<std::vector<std::uint64_t>> low;  // [channel][target * 65536 + low16]
    void merge(const SecondPass& other) {
        for (std::size_t c = 0; c < low.size(); ++c)
            for (std::size_t i = 0; i < low[c].size(); ++i) low[c][i] += other.low[c][i];
    }
};
}  // namespace

std::vector<ChannelSampleStats> find_sample_stats(const ImageView& image, const HistogramPlan& plan,
                                                  const PixelSelector* selector, const std::vector<double>& percents) {
    const std::size_t channels = plan.channels.size();
    std::vector<SampleKind> kinds;
    for (const int source : plan.sources) kinds.push_back(sample_kind_of(plan, source));
    FirstPass first = over_counted_pixels<FirstPass>(
        image, selector,
        [&] {
            FirstPass p;
            for (const SampleKind k : kinds) p.channels.emplace_back(k, code_count(plan, k));
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
        if (!acc.sums) {
            out[c] = stats_of_codes(acc.kind, acc.codes, percents);
            continue;
        }
        out[c] = moments_of_sums(*acc.sums);
        selections[c] = select_ranks(out[c].moments.count, acc.sums->top, percents);
        second_pass = second_pass || !selections[c].targets.empty();
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
    for (std::size_t c = 0; c < channels; ++c)
        finish_order_statistics(selections[c], second.low[c], percents, out[c]);
    return out;
}

namespace {
// Whether every bin of an integer plan holds exactly one of the format's values (8-bit default
// bins; 16-bit ones with 65,536 bins): then the histogram's counts are the samples' own, and the
// statistics need no pass over the pixels.
bool bins_are_values(const HistogramPlan& plan) {
    const BinLayout& l = plan.layout;
    const std::size_t values = code_count(plan, SampleKind::integer_codes);
    return !plan.is_float() && l.edges.empty() && l.lo == 0 && l.hi == double(values) && l.bins == values;
}
}  // namespace

bool add_sample_stats_of_counts(const Request& request, const HistogramPlan& plan, Result& result) {
    if (!bins_are_values(plan)) return false;
    for (ChannelHistogram& c : result.channels) {
        const ChannelSampleStats found = stats_of_codes(SampleKind::integer_codes, c.counts, request.percentiles);
        c.sample_moments = found.moments;
        c.sample_percentiles = found.percentiles;
    }
    return true;
}

void add_sample_stats(const ImageView& image, const Request& request, const HistogramPlan& plan,
                      const PixelSelector* selector, Result& result) {
    if (!request.sample_stats || add_sample_stats_of_counts(request, plan, result)) return;
    const std::vector<ChannelSampleStats> found = find_sample_stats(image, plan, selector, request.percentiles);
    for (std::size_t c = 0; c < result.channels.size(); ++c) {
        result.channels[c].sample_moments = found[c].moments;
        result.channels[c].sample_percentiles = found[c].percentiles;
    }
}

}  // namespace imghist
