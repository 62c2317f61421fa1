// Request::sample_stats of images in device memory: the backend counts the contract's
// first-pass statistics (and, for float samples' order statistics, a second pass) where the
// pixels lie, and the host finishes them by the same rules as its own pass
// (core/sample_stats_sums.hpp), so that every backend gives the same bits.
#include <numeric>
#include <span>

#include "contract/exact_sum.h"
#include "core/backend_engine.hpp"
#include "core/plan.hpp"
#include "core/sample_stats_pass.hpp"
#include "core/selection.hpp"

namespace imghist {

namespace {
// Each channel's statistics from the device's first-pass counters, the float channels' order
// statistics still to find (their selections).
std::vector<ChannelSampleStats> first_pass_stats(const HistogramPlan& plan, const std::vector<std::uint64_t>& sums,
                                                 const std::vector<double>& percents,
                                                 std::vector<RankSelection>& selections) {
    std::vector<ChannelSampleStats> out(plan.channels.size());
    for (std::size_t c = 0; c < out.size(); ++c) {
        const SampleKind kind = sample_kind_of(plan, plan.sources[c]);
        const std::uint64_t* slots = sums.data() + c * IH_STATS_SLOTS;
        if (kind != SampleKind::float_values) {
            out[c] = stats_of_codes(kind, std::vector<std::uint64_t>(slots, slots + code_count(plan, kind)), percents);
            continue;
        }
        const FloatSums float_sums = float_sums_of_slots(slots);
        out[c] = moments_of_sums(float_sums);
        selections[c] = select_ranks(out[c].moments.count, float_sums.top, percents);
    }
    return out;
}
}  // namespace

void add_sample_stats(SlotCounter& counter, const DeviceImage& image, const DeviceImage* mask, const AlphaTest& alpha,
                      const Request& request, const HistogramPlan& plan, Result& result) {
    if (!request.sample_stats || add_sample_stats_of_counts(request, plan, result)) return;
    std::vector<std::uint64_t> sums(plan.channels.size() * IH_STATS_SLOTS, 0);
    if (!counter.accumulate_sample_sums_device(image, mask, alpha, plan, sums)) {
        result.notes.push_back("sample statistics are found for images in host memory only on this backend");
        return;
    }
    std::vector<RankSelection> selections(plan.channels.size());
    std::vector<ChannelSampleStats> found = first_pass_stats(plan, sums, request.percentiles, selections);
    const std::size_t low_counters = std::accumulate(selections.begin(), selections.end(), std::size_t(0),
                                                     [](std::size_t n, const RankSelection& s) { return n + s.targets.size() * 65536; });
    if (low_counters > 0) {
        std::vector<std::uint64_t> lows(low_counters, 0);
        counter.accumulate_key_lows_device(image, mask, alpha, plan, selections, lows);
        std::size_t offset = 0;
        for (std::size_t c = 0; c < found.size(); ++c) {
            const std::size_t n = selections[c].targets.size() * 65536;
            finish_order_statistics(selections[c], std::span<const std::uint64_t>(lows).subspan(offset, n),
                                    request.percentiles, found[c]);
            offset += n;
        }
    }
    for (std::size_t c = 0; c < found.size(); ++c) {
        result.channels[c].sample_moments = found[c].moments;
        result.channels[c].sample_percentiles = found[c].percentiles;
    }
}

}  // namespace imghist
