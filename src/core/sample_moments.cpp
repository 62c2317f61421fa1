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

namespace {
// n²·variance = nΣv² − (Σv)², exact.
ExactNumber spread_of(const SampleMoments& m) {
    const ExactNumber spread = ExactNumber::from_parts(false, m.count, 0) * m.sum_of_squares + -(m.sum * m.sum);
    return spread.negative() ? ExactNumber() : spread;  // negative only for hand-made moments
}
}  // namespace

// mean = Σv / (n·unit); stddev = √((nΣv² − (Σv)²) / (n·unit)²). Each rounded once.
std::optional<SampleNormalization> sample_stats_normalization(const SampleMoments& moments, double unit) {
    if (moments.count == 0) return std::nullopt;
    const ExactNumber scale = ExactNumber::from_parts(false, moments.count, 0) * ExactNumber::from_double(unit);
    return SampleNormalization{round_quotient(moments.sum, scale), round_sqrt_quotient(spread_of(moments), scale * scale)};
}

// The mean and stddev in value units; variance = (nΣv² − (Σv)²) / n², the sample variance the
// same over n(n − 1), the sample stddev its square root. Each rounded once.
SampleStats sample_stats(const SampleMoments& moments, const std::vector<SamplePercentile>& percentiles) {
    SampleStats s;
    s.count = moments.count;
    s.percentiles = percentiles;
    const std::optional<SampleNormalization> in_value_units = sample_stats_normalization(moments);
    if (!in_value_units) return s;
    const ExactNumber n = ExactNumber::from_parts(false, moments.count, 0), spread = spread_of(moments);
    s.mean = in_value_units->mean;
    s.stddev = in_value_units->stddev;
    s.variance = round_quotient(spread, n * n);
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
