#include "core/order_statistics.hpp"

#include <algorithm>

#include "core/exact/big_integer.hpp"

namespace imghist {

using exact::BigInteger;

namespace {
// m·p/100 as the exact fraction numerator / denominator (p is a double: P·2^e).
struct Fraction {
    BigInteger numerator, denominator;
};
Fraction scaled_percent(std::uint64_t m, double percent) {
    const ExactNumber p = ExactNumber::from_double(percent);
    Fraction f{BigInteger(m) * BigInteger::from_limbs(p.magnitude_limbs()), BigInteger(100)};
    if (p.exponent() >= 0) f.numerator <<= std::uint64_t(p.exponent());
    else f.denominator <<= std::uint64_t(-p.exponent());
    return f;
}

// The nearest-rank rule's 0-based rank: max(1, ceil(n·p/100)) - 1, at most n - 1.
std::uint64_t nearest_rank(std::uint64_t n, double percent) {
    const Fraction f = scaled_percent(n, percent);
    const std::uint64_t k = BigInteger::divide(f.numerator + f.denominator - BigInteger(1), f.denominator).first.low64();
    return std::min(std::max<std::uint64_t>(k, 1), n) - 1;
}

// The linear rule's position (n-1)·p/100 = rank + remainder / denominator.
struct Position {
    std::uint64_t rank;
    BigInteger remainder, denominator;
};
Position linear_position(std::uint64_t n, double percent) {
    const Fraction f = scaled_percent(n - 1, percent);
    auto [rank, remainder] = BigInteger::divide(f.numerator, f.denominator);
    return {std::min(rank.low64(), n - 1), std::move(remainder), f.denominator};
}

ExactNumber exact_of(const BigInteger& x) { return ExactNumber::from_representation(false, x.limbs(), 0); }
}  // namespace

bool bins_are_values(const BinLayout& l) {
    return l.integer && l.edges.empty() && l.lo == 0 && l.hi == double(l.bins);
}

std::vector<std::uint64_t> ranks_needed(std::uint64_t n, const std::vector<double>& percents) {
    std::vector<std::uint64_t> ranks;
    if (n == 0) return ranks;
    for (const double p : percents) {
        ranks.push_back(nearest_rank(n, p));
        const Position at = linear_position(n, p);
        ranks.push_back(at.rank);
        if (!at.remainder.is_zero()) ranks.push_back(at.rank + 1);
    }
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    return ranks;
}

std::vector<SamplePercentile> percentiles_of(std::uint64_t n, const std::vector<double>& percents,
                                             const std::function<double(std::uint64_t)>& value_at) {
    std::vector<SamplePercentile> out;
    if (n == 0) return out;
    for (const double p : percents) {
        SamplePercentile s{p, value_at(nearest_rank(n, p)), 0};
        const Position at = linear_position(n, p);
        const double low = value_at(at.rank);
        if (at.remainder.is_zero()) s.linear = low;
        else {
            // x_i + (r/d)·(x_{i+1} - x_i) = (x_i·d + r·(x_{i+1} - x_i)) / d, rounded once.
            const ExactNumber x_low = ExactNumber::from_double(low);
            const ExactNumber step = ExactNumber::from_double(value_at(at.rank + 1)) + -x_low;
            const ExactNumber d = exact_of(at.denominator);
            s.linear = round_quotient(x_low * d + exact_of(at.remainder) * step, d);
        }
        out.push_back(s);
    }
    return out;
}

std::vector<SamplePercentile> percentiles_of_counts(const std::vector<double>& percents,
                                                    const std::vector<std::uint64_t>& counts,
                                                    const std::function<double(std::size_t)>& value_of) {
    std::uint64_t n = 0;
    for (const std::uint64_t c : counts) n += c;
    const std::vector<std::uint64_t> ranks = ranks_needed(n, percents);
    // One walk up the cumulative counts finds every needed rank's value.
    std::vector<double> values(ranks.size());
    std::uint64_t below = 0;
    std::size_t next = 0;
    for (std::size_t i = 0; i < counts.size() && next < ranks.size(); ++i) {
        below += counts[i];
        while (next < ranks.size() && ranks[next] < below) values[next++] = value_of(i);
    }
    return percentiles_of(n, percents, [&](std::uint64_t rank) {
        return values[std::size_t(std::lower_bound(ranks.begin(), ranks.end(), rank) - ranks.begin())];
    });
}

}  // namespace imghist
