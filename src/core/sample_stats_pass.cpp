#include "core/sample_stats_pass.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <memory>
#include <optional>

#include "contract/binning.h"
#include "contract/half.h"
#include "contract/luminance.h"
#include "core/host_threads.hpp"
#include "core/order_statistics.hpp"
#include "core/plan.hpp"
#include "core/selection.hpp"

namespace imghist {

namespace {
// Every half's float value, by its bits: a look-up instead of the widening's bit work per sample.
const std::vector<float>& half_values() {
    static const std::vector<float> values = [] {
        std::vector<float> all(65536);
        for (std::uint32_t h = 0; h < all.size(); ++h) all[h] = std::bit_cast<float>(ih_half_to_float_bits(h));
        return all;
    }();
    return values;
}

// The contract's luminance of `count` pixels of `Word` samples, one loop per sample type: luma(r,
// g, b) of each pixel's samples.
template <class Word, class Luma>
void luma_of(const HistogramPlan& plan, const std::byte* pixels, std::size_t count, const Luma& luma,
             std::uint32_t* out) {
    const auto* samples = reinterpret_cast<const Word*>(pixels);
    const FormatInfo& fi = plan.info;
    const auto stride = std::size_t(fi.channels), r = std::size_t(fi.red), g = std::size_t(fi.green),
               b = std::size_t(fi.blue);
    for (std::size_t x = 0, p = 0; x < count; ++x, p += stride) out[x] = luma(samples[p + r], samples[p + g], samples[p + b]);
}

// The contract's luminance of `count` packed pixels, as integer values or fp32 bits.
void luma_row(const HistogramPlan& plan, const std::byte* pixels, std::size_t count, std::vector<std::uint32_t>& out) {
    out.resize(count);
    const std::uint32_t* wi = plan.weight_int;
    const float* wf = plan.weight_float;
    const auto of_integers = [&](std::uint32_t r, std::uint32_t g, std::uint32_t b) {
        return ih_luma_int(r, g, b, wi[0], wi[1], wi[2]);
    };
    const auto of_floats = [&](float r, float g, float b) {
        return std::bit_cast<std::uint32_t>(ih_luma_float(r, g, b, wf[0], wf[1], wf[2]));
    };
    const float* const halves = half_values().data();
    switch (plan.info.sample) {
    case SampleType::u8: return luma_of<std::uint8_t>(plan, pixels, count, of_integers, out.data());
    case SampleType::u16: return luma_of<std::uint16_t>(plan, pixels, count, of_integers, out.data());
    case SampleType::f16:
        return luma_of<std::uint16_t>(
            plan, pixels, count,
            [&](std::uint16_t r, std::uint16_t g, std::uint16_t b) { return of_floats(halves[r], halves[g], halves[b]); },
            out.data());
    default:
        return luma_of<std::uint32_t>(
            plan, pixels, count,
            [&](std::uint32_t r, std::uint32_t g, std::uint32_t b) {
                return of_floats(std::bit_cast<float>(r), std::bit_cast<float>(g), std::bit_cast<float>(b));
            },
            out.data());
    }
}

// Calls use(samples, count, stride) with one channel's samples of `count` packed pixels, read in
// place as words of the sample's width (integer values, half bits, fp32 bits), or as the
// luminance's 32-bit words (one per pixel) for Y.
template <class Use>
void with_channel_samples(const HistogramPlan& plan, int source, const std::byte* pixels, std::size_t count,
                          const Use& use) {
    if (source == kLumaSource) {
        thread_local std::vector<std::uint32_t> luma;
        luma_row(plan, pixels, count, luma);
        use(luma.data(), count, std::size_t(1));
        return;
    }
    const auto stride = std::size_t(plan.info.channels), at = std::size_t(source);
    switch (plan.info.sample) {
    case SampleType::u8: use(reinterpret_cast<const std::uint8_t*>(pixels) + at, count, stride); return;
    case SampleType::u16:
    case SampleType::f16: use(reinterpret_cast<const std::uint16_t*>(pixels) + at, count, stride); return;
    default: use(reinterpret_cast<const std::uint32_t*>(pixels) + at, count, stride); return;
    }
}

// One channel's first-pass state in one thread.
class ChannelAccumulator {
public:
    // `ranks`: whether the float samples' top key bits are counted, for the percentiles' ranks.
    ChannelAccumulator(SampleKind kind, std::size_t codes_size, bool ranks)
        : kind_(kind), recent_codes_(codes_size, 0), ranks_(ranks) {
        if (kind == SampleKind::float_values) sums_.emplace();
    }

    template <class Word>
    void add(const Word* samples, std::size_t count, std::size_t stride) {
        if constexpr (sizeof(Word) == 4) {
            if (sums_) return add_floats(samples, count, stride);
        }
        for (std::size_t done = 0; done < count;) {
            if (recent_ == kCodesFlushEvery) flush_codes();
            const std::size_t n = std::min(count - done, kCodesFlushEvery - recent_);
            for (std::size_t x = done; x < done + n; ++x) ++recent_codes_[samples[x * stride]];
            recent_ += n;
            done += n;
        }
    }

    void merge(ChannelAccumulator& other) {
        flush_codes();
        other.flush_codes();
        for (std::size_t i = 0; i < codes_.size(); ++i) codes_[i] += other.codes_[i];
        if (!sums_) return;
        flush();
        other.flush();
        sums_->merge(*other.sums_);
        min_key_ = std::min(min_key_, other.min_key_);
        max_key_ = std::max(max_key_, other.max_key_);
        finite_ += other.finite_;
    }

    SampleKind kind() const { return kind_; }
    const std::vector<std::uint64_t>& codes() {
        flush_codes();
        return codes_;
    }
    const FloatSums* sums() {
        if (!sums_) return nullptr;
        flush();
        return &*sums_;
    }
    // The smallest and largest finite sample's total-order key (float kind, some finite sample).
    std::uint32_t min_key() const { return min_key_; }
    std::uint32_t max_key() const { return max_key_; }
    std::uint64_t finite_count() const { return finite_; }

private:
    // Values are counted in 32 bits, half the cache a 16-bit channel's 65,536 counters take, and
    // moved into the 64-bit totals before a counter could overflow.
    static constexpr std::size_t kCodesFlushEvery = UINT32_MAX;
    void flush_codes() {
        if (codes_.size() != recent_codes_.size()) codes_.assign(recent_codes_.size(), 0);  // made on first use
        if (recent_ == 0) return;
        for (std::size_t i = 0; i < codes_.size(); ++i) codes_[i] += recent_codes_[i];
        std::fill(recent_codes_.begin(), recent_codes_.end(), 0u);
        recent_ = 0;
    }

    // Float samples' Σm and Σm² per bucket are summed in 64 bits and moved into the exact 128-bit
    // sums every kFlushEvery samples, before m² < 2^48 can overflow them: one 64-bit add a sample.
    // Neighbouring samples go to kLanes separate partial sums: samples of one bucket in a row
    // (smooth images) would otherwise wait on each other's add.
    static constexpr std::size_t kFlushEvery = std::size_t(1) << 16, kLanes = 4;
    struct PartialSums {
        std::array<std::uint64_t, 2 * IH_SUM_BUCKETS> mantissas{};  // [negative · 256 + bucket]: Σm
        std::array<std::uint64_t, IH_SUM_BUCKETS> squares{};        // Σm²
    };

    void add_floats(const std::uint32_t* samples, std::size_t count, std::size_t stride) {
        for (std::size_t done = 0; done < count;) {
            if (pending_ == kFlushEvery) flush();
            const std::size_t n = std::min(count - done, kFlushEvery - pending_);
            if (ranks_) add_float_chunk<true>(samples + done * stride, n, stride);
            else add_float_chunk<false>(samples + done * stride, n, stride);
            pending_ += n;
            done += n;
        }
    }

    template <bool CountTopBits>
    void add_float_chunk(const std::uint32_t* samples, std::size_t count, std::size_t stride) {
        // Locals, not members: the compiler keeps them in registers across the partial sums' stores.
        std::uint64_t not_finite = 0, positive_infinities = 0, negative_infinities = 0;  // not_finite: NaN too
        std::uint32_t min_key = min_key_, max_key = max_key_;
        std::uint64_t* const top = sums_->top.data();
        for (std::size_t x = 0; x < count; ++x) {
            const std::uint32_t bits = samples[x * stride];
            if (!ih_is_finite_bits(bits)) {
                positive_infinities += bits == IH_POS_INF_BITS;
                negative_infinities += bits == IH_NEG_INF_BITS;
                ++not_finite;
                continue;
            }
            const std::uint32_t bucket = ih_sum_bucket(bits), m = ih_sum_mantissa(bits), key = ih_float_key(bits);
            PartialSums& lane = partial_[x % kLanes];
            lane.mantissas[(ih_sum_negative(bits) << 8) | bucket] += m;
            lane.squares[bucket] += std::uint64_t(m) * m;
            if constexpr (CountTopBits) ++top[key >> 16];
            min_key = std::min(min_key, key);
            max_key = std::max(max_key, key);
        }
        min_key_ = min_key;
        max_key_ = max_key;
        finite_ += count - not_finite;
        sums_->positive_infinities += positive_infinities;
        sums_->negative_infinities += negative_infinities;
    }

    void flush() {
        for (PartialSums& lane : partial_) {
            for (std::size_t b = 0; b < IH_SUM_BUCKETS; ++b) {
                sums_->positive[b] += lane.mantissas[b];
                sums_->negative[b] += lane.mantissas[IH_SUM_BUCKETS + b];
                sums_->squares[b] += lane.squares[b];
            }
            lane = PartialSums{};
        }
        pending_ = 0;
    }

    SampleKind kind_;
    std::vector<std::uint64_t> codes_;         // integer and half kinds: a counter per value
    std::vector<std::uint32_t> recent_codes_;  // and those counted since the flush
    std::size_t recent_ = 0;                   // samples since the flush
    std::optional<FloatSums> sums_;     // float kind
    std::array<PartialSums, kLanes> partial_{};  // since the flush
    std::size_t pending_ = 0;                    // samples since the flush
    std::uint32_t min_key_ = UINT32_MAX, max_key_ = 0;
    std::uint64_t finite_ = 0;
    bool ranks_;
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


}  // namespace

// One thread's first-pass state: an accumulator per plan channel.
struct SampleStatsShare {
    std::vector<ChannelAccumulator> channels;
    SampleStatsShare(const HistogramPlan& plan, bool ranks) {
        for (const int source : plan.sources) {
            const SampleKind kind = sample_kind_of(plan, source);
            channels.emplace_back(kind, code_count(plan, kind), ranks);
        }
    }
    // `count` packed pixels' samples.
    void add(const HistogramPlan& plan, const std::byte* pixels, std::size_t count) {
        for (std::size_t c = 0; c < channels.size(); ++c)
            with_channel_samples(plan, plan.sources[c], pixels, count,
                                 [&](const auto* samples, std::size_t n, std::size_t stride) {
                                     channels[c].add(samples, n, stride);
                                 });
    }
    void merge(SampleStatsShare& other) {
        for (std::size_t c = 0; c < channels.size(); ++c) channels[c].merge(other.channels[c]);
    }
};

namespace {
// The second pass's state in one thread: per float channel, the low 16 key bits' counts of each
// target bucket.
struct SecondPass {
    std::vector<std::vector<std::uint64_t>> low;  // [channel][target * 65536 + low16]
    void merge(const SecondPass& other) {
        for (std::size_t c = 0; c < low.size(); ++c)
            for (std::size_t i = 0; i < low[c].size(); ++i) low[c][i] += other.low[c][i];
    }
};

// The second pass's work on one float channel's samples.
void count_low_key_bits(const RankSelection& selection, const std::uint32_t* samples, std::size_t count,
                        std::size_t stride, std::vector<std::uint64_t>& low) {
    for (std::size_t x = 0; x < count; ++x) {
        const std::uint32_t bits = samples[x * stride];
        if (!ih_is_finite_bits(bits)) continue;
        const std::uint32_t key = ih_float_key(bits);
        const std::int32_t t = selection.target_index[key >> 16];
        if (t >= 0) ++low[std::size_t(t) * 65536 + (key & 0xFFFF)];
    }
}

double value_of_key(std::uint32_t key) { return double(std::bit_cast<float>(ih_float_bits_of_key(key))); }

// Where next_target_group() goes on: a channel, and a target in its selection.
struct TargetCursor {
    std::size_t channel = 0, target = 0;
};

// The next group of at most `per_group` targets of the channels' selections, from `at` on: per
// channel, its selection with only the group's targets (the others' target_index -1); empty
// when every target has had its group.
std::vector<RankSelection> next_target_group(const std::vector<RankSelection>& all, std::size_t per_group,
                                             TargetCursor& at) {
    std::vector<RankSelection> group;
    for (std::size_t taken = 0; taken < per_group && at.channel < all.size();) {
        const RankSelection& s = all[at.channel];
        if (at.target == s.targets.size()) {
            ++at.channel;
            at.target = 0;
            continue;
        }
        if (group.empty()) group.resize(all.size());
        RankSelection& g = group[at.channel];
        if (g.target_index.empty()) {
            g.ranks = s.ranks;
            g.bucket_of = s.bucket_of;
            g.offset = s.offset;
            g.target_index.assign(65536, -1);
        }
        g.target_index[s.targets[at.target]] = std::int32_t(g.targets.size());
        g.targets.push_back(s.targets[at.target]);
        ++at.target;
        ++taken;
    }
    return group;
}

// The float channels' min, max and percentiles: the low 16 key bits of their target buckets
// counted over the pixels `selector` lets through, as many targets a pass as `budget` bytes of
// counters (every thread's together) hold: 100 percentiles of R, G, B and Y could otherwise
// take hundreds of targets of 512 KiB each, in every thread.
void find_order_statistics(const ImageView& image, const HistogramPlan& plan, const PixelSelector* selector,
                           const std::vector<RankSelection>& selections, const std::vector<double>& percents,
                           std::size_t budget, std::vector<ChannelSampleStats>& out) {
    const std::size_t channels = selections.size();
    const std::size_t threads = host_pass_threads(image.row_bytes() * image.height, image.height);
    const std::size_t per_group = std::max<std::size_t>(1, budget / (threads * 65536 * sizeof(std::uint64_t)));
    std::vector<std::vector<double>> values(channels);
    TargetCursor cursor;
    for (std::vector<RankSelection> group; !(group = next_target_group(selections, per_group, cursor)).empty();) {
        const SecondPass second = over_counted_pixels<SecondPass>(
            image, selector,
            [&] {
                SecondPass p;
                for (const RankSelection& g : group) p.low.emplace_back(g.targets.size() * 65536, 0);
                return p;
            },
            [&](SecondPass& p, const std::byte* pixels, std::size_t count) {
                for (std::size_t c = 0; c < channels; ++c) {
                    if (group[c].targets.empty()) continue;
                    with_channel_samples(plan, plan.sources[c], pixels, count,
                                         [&](const auto* samples, std::size_t n, std::size_t stride) {
                                             if constexpr (sizeof(*samples) == 4)
                                                 count_low_key_bits(group[c], samples, n, stride, p.low[c]);
                                         });
                }
            });
        for (std::size_t c = 0; c < channels; ++c)
            if (!group[c].targets.empty()) read_rank_values(group[c], second.low[c], values[c]);
    }
    for (std::size_t c = 0; c < channels; ++c)
        if (!selections[c].targets.empty()) finish_order_statistics(selections[c], values[c], percents, out[c]);
}

// The statistics from the merged first pass: the codes' and sums' moments, and the float
// channels' order statistics through second passes over the pixels `selector` lets through.
std::vector<ChannelSampleStats> stats_of_first_pass(SampleStatsShare& first, const ImageView& image,
                                                    const HistogramPlan& plan, const PixelSelector* selector,
                                                    const std::vector<double>& percents,
                                                    std::size_t second_pass_budget) {

    const std::size_t channels = plan.channels.size();
    std::vector<ChannelSampleStats> out(channels);
    std::vector<RankSelection> selections(channels);
    bool second_pass = false;
    for (std::size_t c = 0; c < channels; ++c) {
        ChannelAccumulator& acc = first.channels[c];
        const FloatSums* sums = acc.sums();
        if (!sums) {
            out[c] = stats_of_codes(acc.kind(), acc.codes(), percents);
            continue;
        }
        out[c] = moments_of_sums(*sums);
        out[c].moments.count = acc.finite_count();  // the top bits are counted only for percentiles
        if (out[c].moments.count == 0) continue;
        // The extremes came with the sums; the percentiles need a second pass.
        out[c].moments.min = value_of_key(acc.min_key());
        out[c].moments.max = value_of_key(acc.max_key());
        if (percents.empty()) continue;
        selections[c] = select_ranks(out[c].moments.count, sums->top, percents);
        second_pass = true;
    }
    if (second_pass) find_order_statistics(image, plan, selector, selections, percents, second_pass_budget, out);
    return out;
}
}  // namespace

std::vector<ChannelSampleStats> find_sample_stats(const ImageView& image, const HistogramPlan& plan,
                                                  const PixelSelector* selector, const std::vector<double>& percents,
                                                  std::size_t second_pass_budget) {
    SampleStatsShare first = over_counted_pixels<SampleStatsShare>(
        image, selector, [&] { return SampleStatsShare(plan, !percents.empty()); },
        [&](SampleStatsShare& share, const std::byte* pixels, std::size_t count) { share.add(plan, pixels, count); });
    return stats_of_first_pass(first, image, plan, selector, percents, second_pass_budget);
}

SampleStatsInPass::SampleStatsInPass(const HistogramPlan& plan, std::vector<double> percents)
    : plan_(plan), percents_(std::move(percents)) {}
SampleStatsInPass::~SampleStatsInPass() = default;

void SampleStatsInPass::start(std::size_t workers) {
    shares_.clear();
    for (std::size_t t = 0; t < workers; ++t) shares_.push_back(std::make_unique<SampleStatsShare>(plan_, !percents_.empty()));
}

void SampleStatsInPass::add(std::size_t worker, const ImageView& image, std::uint64_t begin, std::uint64_t end) {
    SampleStatsShare& share = *shares_[worker];
    const std::size_t pixel_bytes = plan_.info.pixel_bytes();
    for (std::uint64_t at = begin; at < end;) {  // row by row: a row's pixels are packed
        const auto y = std::uint32_t(at / image.width), x = std::uint32_t(at % image.width);
        const std::size_t n = std::size_t(std::min<std::uint64_t>(image.width - x, end - at));
        share.add(plan_, image.row(y) + std::size_t(x) * pixel_bytes, n);
        at += n;
    }
}

void SampleStatsInPass::take_codes(const HistogramPlan& values, std::span<const std::uint64_t> value_slots) {
    codes_.clear();
    for (std::size_t c = 0; c < values.channels.size(); ++c) {
        const auto first = value_slots.begin() + std::ptrdiff_t(c * values.slots_per_channel());
        codes_.emplace_back(first, first + std::ptrdiff_t(values.bins()));
    }
}

std::vector<ChannelSampleStats> SampleStatsInPass::finish(const ImageView& image) {
    if (!codes_.empty()) {
        std::vector<ChannelSampleStats> out;
        for (const std::vector<std::uint64_t>& codes : codes_)
            out.push_back(stats_of_codes(SampleKind::integer_codes, codes, percents_));
        return out;
    }
    for (std::size_t t = 1; t < shares_.size(); ++t) shares_[0]->merge(*shares_[t]);
    return stats_of_first_pass(*shares_[0], image, plan_, nullptr, percents_, kSecondPassBudget);
}

// Whether the histogram's counts are the samples' own: one bin per value of the format (8-bit
// default bins; 16-bit ones with 65,536 bins), so that the statistics need no pass over the pixels.
bool counts_are_values(const HistogramPlan& plan) {
    return !plan.is_float() && bins_are_values(plan.layout) &&
           plan.layout.bins == code_count(plan, SampleKind::integer_codes);
}

bool add_sample_stats_of_counts(const Request& request, const HistogramPlan& plan, Result& result) {
    if (!counts_are_values(plan)) return false;
    for (ChannelHistogram& c : result.channels) {
        const ChannelSampleStats found = stats_of_codes(SampleKind::integer_codes, c.counts, request.percentiles);
        c.sample_moments = found.moments;
        c.sample_percentiles = found.percentiles;
    }
    return true;
}

void add_sample_stats(const ImageView& image, const Request& request, const HistogramPlan& plan,
                      const PixelSelector* selector, Result& result, SampleStatsInPass* in_pass) {
    if (!request.sample_stats || add_sample_stats_of_counts(request, plan, result)) return;
    const std::vector<ChannelSampleStats> found = in_pass && in_pass->started()
                                                      ? in_pass->finish(image)
                                                      : find_sample_stats(image, plan, selector, request.percentiles);
    for (std::size_t c = 0; c < result.channels.size(); ++c) {
        result.channels[c].sample_moments = found[c].moments;
        result.channels[c].sample_percentiles = found[c].percentiles;
    }
}

}  // namespace imghist
