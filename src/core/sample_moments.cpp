#include "imghist/sample_stats.hpp"

#include <algorithm>
#include <string>

#include "imghist/error.hpp"

namespace imghist {

void validate_percentiles(const std::vector<double>& percents) {
    if (percents.size() > kMaxPercentiles)
        throw InvalidArgument("at most " + std::to_string(kMaxPercentiles) + " percentiles may be asked for (got " +
                              std::to_string(percents.size()) + ")");
    for (const double p : percents)
        if (!(p >= 0 && p <= 100)) throw InvalidArgument("a percentile must be in [0, 100] (got " + std::to_string(p) + ")");
}

void SampleMoments::merge(const SampleMoments& other) {
    count += other.count;
    sum += other.sum;
    sum_of_squares += other.sum_of_squares;
    if (other.min) min = min ? std::min(*min, *other.min) : other.min;
    if (other.max) max = max ? std::max(*max, *other.max) : other.max;
}

// mean = Σv / n; variance = (nΣv² − (Σv)²) / n², sample variance the same over n(n − 1); the
// standard deviations are the square roots of those exact ratios. Each rounded once.
SampleStats sample_stats(const SampleMoments& moments, const std::vector<SamplePercentile>& percentiles) {
    SampleStats s;
    s.count = moments.count;
    s.percentiles = percentiles;
    if (moments.count == 0) return s;
    const ExactNumber n = ExactNumber::from_parts(false, moments.count, 0);
    ExactNumber spread = n * moments.sum_of_squares + -(moments.sum * moments.sum);
    if (spread.negative()) spread = ExactNumber();  // impossible for exact sums; kept for hand-made moments
    s.mean = round_quotient(moments.sum, n);
    const ExactNumber n_squared = n * n;
    s.variance = round_quotient(spread, n_squared);
    s.stddev = round_sqrt_quotient(spread, n_squared);
    if (moments.count > 1) {
        const ExactNumber n_less_one = n * ExactNumber::from_parts(false, moments.count - 1, 0);
        s.sample_variance = round_quotient(spread, n_less_one);
        s.sample_stddev = round_sqrt_quotient(spread, n_less_one);
    }
    s.min = moments.min;
    s.max = moments.max;
    return s;
}

}  // namespace imghist
