// The sample parts of results over the ranks (sample_parts.hpp).
#include "sample_parts.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

namespace imghist::mpi {
namespace {

template <class T> void put_optional(Bytes& b, const std::optional<T>& v) {
    b.put(v.has_value());
    if (v) b.put(*v);
}

template <class T> std::optional<T> get_optional(Bytes& b) {
    if (!b.get<bool>()) return std::nullopt;
    return b.get<T>();
}

void put_exact(Bytes& b, const ExactNumber& x) {
    b.put(x.negative());
    b.put(x.exponent());
    b.put(std::uint64_t(x.magnitude_limbs().size()));
    for (const std::uint32_t limb : x.magnitude_limbs()) b.put(limb);
}

ExactNumber get_exact(Bytes& b) {
    const bool negative = b.get<bool>();
    const auto exponent = b.get<std::int64_t>();
    std::vector<std::uint32_t> limbs(std::size_t(b.get<std::uint64_t>()));
    for (std::uint32_t& limb : limbs) limb = b.get<std::uint32_t>();
    return ExactNumber::from_representation(negative, std::move(limbs), exponent);
}

void put_moments(Bytes& b, const SampleMoments& m) {
    b.put(m.count);
    put_exact(b, m.sum);
    put_exact(b, m.sum_of_squares);
    put_optional(b, m.min);
    put_optional(b, m.max);
}

SampleMoments get_moments(Bytes& b) {
    SampleMoments m;
    m.count = b.get<std::uint64_t>();
    m.sum = get_exact(b);
    m.sum_of_squares = get_exact(b);
    m.min = get_optional<double>(b);
    m.max = get_optional<double>(b);
    return m;
}

// The sample part of `from` in place of `to`'s; the counts stay `to`'s.
void take_sample_part(ChannelHistogram& to, const ChannelHistogram& from) {
    to.finite_min = from.finite_min;
    to.finite_max = from.finite_max;
    to.positive_infinities = from.positive_infinities;
    to.negative_infinities = from.negative_infinities;
    to.sample_moments = from.sample_moments;
    to.sample_percentiles = from.sample_percentiles;
}

// Adds one rank's sample part into `sum`, whose counts are already every rank's: through
// Result::merge of a result holding that part and no counts, so that the moments add exactly,
// the extremes and infinities as a merge adds them, and the percentiles come from the summed
// counts where a merge can give them, absent elsewhere.
void add_sample_part(Result& sum, const std::vector<ChannelHistogram>& part) {
    Result part_only = sum;
    part_only.notes.clear();
    for (std::size_t i = 0; i < part_only.channels.size(); ++i) {
        ChannelHistogram& c = part_only.channels[i];
        std::fill(c.counts.begin(), c.counts.end(), 0);
        c.nan = c.below = c.above = 0;
        c.clipped_low_count = c.clipped_high_count = 0;  // known: the sum's stay as the counts made them
        take_sample_part(c, part[i]);
    }
    sum.merge(part_only);
}

}  // namespace

void put_sample_part(Bytes& b, const ChannelHistogram& c) {
    put_optional(b, c.finite_min);
    put_optional(b, c.finite_max);
    put_optional(b, c.positive_infinities);
    put_optional(b, c.negative_infinities);
    b.put(c.sample_moments.has_value());
    if (c.sample_moments) put_moments(b, *c.sample_moments);
    b.put(std::uint64_t(c.sample_percentiles.size()));
    for (const SamplePercentile& p : c.sample_percentiles) b.put(p);
}

void get_sample_part(Bytes& b, ChannelHistogram& c) {
    c.finite_min = get_optional<double>(b);
    c.finite_max = get_optional<double>(b);
    c.positive_infinities = get_optional<std::uint64_t>(b);
    c.negative_infinities = get_optional<std::uint64_t>(b);
    c.sample_moments = b.get<bool>() ? std::optional(get_moments(b)) : std::nullopt;
    c.sample_percentiles.resize(std::size_t(b.get<std::uint64_t>()));
    for (SamplePercentile& p : c.sample_percentiles) p = b.get<SamplePercentile>();
}

void reduce_sample_parts(MPI_Comm comm, const std::vector<Result>& local, const std::vector<int>& local_to_global,
                         std::vector<Result>& sums) {
    Bytes mine;
    for (std::size_t k = 0; k < local.size(); ++k) {
        mine.put(std::int64_t(local_to_global[k]));
        for (const ChannelHistogram& c : local[k].channels) put_sample_part(mine, c);
    }
    Bytes all{gather_bytes(comm, mine.data, -1)};
    std::vector<bool> started(sums.size(), false);
    while (!all.done()) {
        const auto g = std::size_t(all.get<std::int64_t>());
        Result& sum = sums[g];
        std::vector<ChannelHistogram> part(sum.channels.size());
        for (ChannelHistogram& c : part) get_sample_part(all, c);
        if (started[g]) {
            add_sample_part(sum, part);
            continue;
        }
        // The first part of a sum is its own: a sum of one rank's files is that rank's sum.
        for (std::size_t i = 0; i < part.size(); ++i) take_sample_part(sum.channels[i], part[i]);
        started[g] = true;
    }
}

}  // namespace imghist::mpi
