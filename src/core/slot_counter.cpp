// SlotCounter's defaults: what a backend that does not override a way of counting gets
// (a refusal, or the regions one at a time).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/counting.hpp"
#include "imghist/error.hpp"

namespace imghist {

// Whether a Result's clipping counts are all known (e.g. 16-bit default bins whose end bins are
// empty prove that nothing clipped), so that no pass with the clipping plan is needed.
bool clipping_known(const Result& result) {
    for (const ChannelHistogram& c : result.channels)
        if (!c.clipped_low_count || !c.clipped_high_count) return false;
    return true;
}

// The clipping plan's below / above counts of slots (one channel after another) as a Result's
// clipping counts.
void set_clipping(const HistogramPlan& clipping, std::span<const std::uint64_t> slots, Result& result) {
    std::vector<std::uint64_t> extremes(2 * clipping.channels.size());
    clipping.extremes_of(slots, extremes);
    for (std::size_t c = 0; c < result.channels.size(); ++c) {
        result.channels[c].clipped_low_count = extremes[2 * c];
        result.channels[c].clipped_high_count = extremes[2 * c + 1];
    }
}

std::optional<std::uint64_t> SlotCounter::accumulate_selected(const ImageView&, const PixelSelector&,
                                                              const HistogramPlan&, const HistogramPlan*,
                                                              std::span<std::uint64_t>, std::span<std::uint64_t>) {
    return std::nullopt;
}

bool SlotCounter::accumulate_with_extremes(const ImageView&, const HistogramPlan&, const HistogramPlan&,
                                           std::span<std::uint64_t>, std::span<std::uint64_t>) {
    return false;
}

bool SlotCounter::counts_tiles_in_one_pass(bool, bool) const { return false; }

bool SlotCounter::accumulate_tiles(const ImageView&, std::span<const Region>, const HistogramPlan&, const HistogramPlan*,
                                   std::span<const PixelSelector* const>, std::span<std::uint64_t>,
                                   std::span<std::uint64_t>, std::span<std::uint64_t>) {
    throw Error("internal error: this backend does not count tiles in one pass");
}

void SlotCounter::accumulate_tiles_device(const DeviceImage&, std::span<const Region>, const HistogramPlan&,
                                          std::span<std::uint64_t>) {
    throw Error("internal error: this backend does not count device tiles in one pass");
}

namespace {
template <class Pixels>
void accumulate_each_tile_of(SlotCounter& counter, const Pixels& image, std::span<const Region> regions,
                             const HistogramPlan& plan, std::span<std::uint64_t> slots) {
    const std::size_t ts = plan.total_slots();
    for (std::size_t i = 0; i < regions.size(); ++i)
        accumulate_pixels(counter, image.crop(regions[i]), plan, slots.subspan(i * ts, ts));
}
}  // namespace

void SlotCounter::accumulate_each_tile(const ImageView& image, std::span<const Region> regions,
                                       const HistogramPlan& plan, std::span<std::uint64_t> slots) {
    accumulate_each_tile_of(*this, image, regions, plan, slots);
}
void SlotCounter::accumulate_each_tile(const DeviceImage& image, std::span<const Region> regions,
                                       const HistogramPlan& plan, std::span<std::uint64_t> slots) {
    accumulate_each_tile_of(*this, image, regions, plan, slots);
}

std::optional<std::uint64_t> SlotCounter::accumulate_selected_device(const DeviceImage&, const DeviceImage*,
                                                                     const AlphaTest&, const HistogramPlan&,
                                                                     std::span<std::uint64_t>) {
    return std::nullopt;
}

bool SlotCounter::accumulate_sample_sums_device(const DeviceImage&, const DeviceImage*, const AlphaTest&,
                                                const HistogramPlan&, std::span<std::uint64_t>) {
    return false;
}

void SlotCounter::accumulate_key_lows_device(const DeviceImage&, const DeviceImage*, const AlphaTest&,
                                             const HistogramPlan&, std::span<const RankSelection>,
                                             std::span<std::uint64_t>) {
    throw InvalidArgument("this backend does not find sample statistics of device images");
}

void SlotCounter::accumulate_device(const DeviceImage&, const HistogramPlan&, std::span<std::uint64_t>) {
    throw InvalidArgument("this backend does not read device images");
}

std::vector<std::string> SlotCounter::take_notes() { return std::exchange(notes_, {}); }

template <class Pixels>
void SlotCounter::count_clipping(const Pixels& image, const HistogramPlan& clipping, Result& result) {
    count_clipping(clipping, result, [&](std::span<std::uint64_t> slots) { accumulate_pixels(*this, image, clipping, slots); });
}

void SlotCounter::count_clipping(const HistogramPlan& clipping, Result& result,
                                 const std::function<void(std::span<std::uint64_t>)>& pass) {
    if (clipping_known(result)) return;  // e.g. 16-bit default bins whose end bins are empty
    // A second pass of the same backend: its below / above counters are the extremes.
    std::vector<std::uint64_t> slots(clipping.total_slots(), 0);
    const std::size_t notes_before = notes_.size();
    pass(slots);
    notes_.resize(notes_before);  // notes about the internal pass would only confuse
    set_clipping(clipping, slots, result);
}
template void SlotCounter::count_clipping(const ImageView&, const HistogramPlan&, Result&);
template void SlotCounter::count_clipping(const DeviceImage&, const HistogramPlan&, Result&);

}  // namespace imghist
