// exposure(): the trimmed mean EV of a luminance histogram (docs/semantics.md, "Auto-exposure").
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "contract/exposure.h"
#include "core/exposure/metering.hpp"
#include "imghist/error.hpp"

namespace imghist {

namespace {

// Whole hundredths of a percent, within the rounding of a decimal such as 33.33.
bool whole_hundredths(double percent) {
    const double scaled = percent * 100;
    return std::fabs(scaled - std::round(scaled)) <= 1e-9 * std::max(1.0, std::fabs(scaled));
}

}  // namespace

void ExposureSettings::validate() const {
    if (!(low_percent >= 0 && low_percent < high_percent && high_percent <= 100))
        throw InvalidArgument("exposure percentiles must satisfy 0 <= low < high <= 100 (got " +
                              std::to_string(low_percent) + " and " + std::to_string(high_percent) + ")");
    if (!whole_hundredths(low_percent) || !whole_hundredths(high_percent) ||
        metering::hundredths(low_percent) >= metering::hundredths(high_percent))
        throw InvalidArgument("exposure percentiles must be whole hundredths of a percent, e.g. 12.34 (got " +
                              std::to_string(low_percent) + " and " + std::to_string(high_percent) + ")");
    if (!(key > 0) || !std::isfinite(key))
        throw InvalidArgument("the exposure key value must be positive and finite (got " + std::to_string(key) + ")");
    if (below != BelowRange::meter && below != BelowRange::ignore)
        throw InvalidArgument("the exposure's below-range policy must be meter or ignore");
}

namespace metering {

std::uint32_t hundredths(double percent) { return std::uint32_t(std::round(percent * 100)); }

std::optional<Exposure> double_exposure(const ChannelHistogram& h, const ExposureSettings& settings) {
    const std::vector<double>& edges = h.layout.edges;
    // The population in value order: below, the bins, above; each with the EV it stands for.
    const bool ends = !h.layout.clamp;  // with clamp, below and above are already in the end bins
    std::vector<std::pair<std::uint64_t, double>> ordered;
    ordered.reserve(h.counts.size() + 2);
    if (ends && settings.below == BelowRange::meter) ordered.emplace_back(h.below, std::log2(edges.front()));
    for (std::size_t k = 0; k < h.counts.size(); ++k)
        ordered.emplace_back(h.counts[k], (std::log2(edges[k]) + std::log2(edges[k + 1])) / 2);
    if (ends) ordered.emplace_back(h.above, std::log2(edges.back()));
    double total = 0;
    for (const auto& [n, ev] : ordered) total += double(n);
    if (total == 0) return std::nullopt;
    const double from = total * hundredths(settings.low_percent) / IH_EXPOSURE_PARTS_PER_SAMPLE;
    const double to = total * hundredths(settings.high_percent) / IH_EXPOSURE_PARTS_PER_SAMPLE;
    double weight = 0, sum = 0, before = 0;
    for (const auto& [n, ev] : ordered) {
        const double after = before + double(n);
        const double inside = std::min(after, to) - std::max(before, from);
        if (inside > 0) {
            weight += inside;
            sum += inside * ev;
        }
        before = after;
    }
    if (weight == 0) return std::nullopt;
    Exposure e;
    e.average_ev = sum / weight;
    e.key = settings.key;
    e.exposure_ev = std::log2(settings.key) - e.average_ev;
    e.samples = weight;
    return e;
}

}  // namespace metering

std::optional<Exposure> exposure(const ChannelHistogram& h, const ExposureSettings& settings) {
    settings.validate();
    const std::vector<double>& edges = h.layout.edges;
    if (edges.empty() || !(edges.front() > 0) || h.counts.size() + 1 != edges.size()) return std::nullopt;
    if (const std::optional<EvGrid> grid = ev_grid(edges)) return metering::exact_exposure(h, *grid, settings);
    return metering::double_exposure(h, settings);
}

}  // namespace imghist
