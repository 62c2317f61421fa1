// The counting pipeline (docs/architecture.md, "The backend boundary"): count_image() around a
// backend's SlotCounter, the same for every backend: one region counted whole or through a
// selection, a roi and tiles (count_tiles.cpp), then the host's statistics.
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/counting.hpp"
#include "core/host_statistics.hpp"
#include "core/packed_image.hpp"

namespace imghist {

void accumulate_pixels(SlotCounter& counter, const ImageView& image, const HistogramPlan& plan,
                       std::span<std::uint64_t> slots) {
    counter.accumulate(image, plan, slots);
}
void accumulate_pixels(SlotCounter& counter, const DeviceImage& image, const HistogramPlan& plan,
                       std::span<std::uint64_t> slots) {
    counter.accumulate_device(image, plan, slots);
}

namespace {
bool accumulate_pixels_with_extremes(SlotCounter& counter, const ImageView& image, const HistogramPlan& plan,
                                     const HistogramPlan& clipping, std::span<std::uint64_t> slots,
                                     std::span<std::uint64_t> extremes) {
    return counter.accumulate_with_extremes(image, plan, clipping, slots, extremes);
}
bool accumulate_pixels_with_extremes(SlotCounter&, const DeviceImage&, const HistogramPlan&, const HistogramPlan&,
                                     std::span<std::uint64_t>, std::span<std::uint64_t>) {
    return false;
}

// The finder of Request::value_extremes while the counting pass of a backend that finds them
// itself runs (SlotCounter::finds_value_extremes); none otherwise.
class ExtremesInThePass {
public:
    template <class Pixels>
    ExtremesInThePass(SlotCounter& counter, const Pixels&, const Request& request, const HistogramPlan& plan)
        : counter_(counter) {
        if (std::is_same_v<Pixels, ImageView> && request.value_extremes && plan.is_float() && counter.finds_value_extremes())
            finder_.emplace(plan);
        counter.set_value_extremes_finder(finder_ ? &*finder_ : nullptr);
    }
    ~ExtremesInThePass() { counter_.set_value_extremes_finder(nullptr); }
    ExtremesInThePass(const ExtremesInThePass&) = delete;
    ExtremesInThePass& operator=(const ExtremesInThePass&) = delete;
    // The pass is over: later passes (the clipping plan's) must not add to the finder.
    void end() { counter_.set_value_extremes_finder(nullptr); }
    const std::optional<ExtremesFinder>& finder() const { return finder_; }

private:
    SlotCounter& counter_;
    std::optional<ExtremesFinder> finder_;
};

// Every pixel of `image`, for a request without roi or tiles.
template <class Pixels>
Result count_whole_of(SlotCounter& counter, const Pixels& image, const Request& request, std::string backend,
                      std::string device) {
    Counting counting(image.format, request);
    counter.take_notes();
    ExtremesInThePass in_pass(counter, image, request, counting.plan);
    SampleStatsInThePass stats_in_pass(counter, image, request, counting.plan);
    const bool counted = counting.clipping && accumulate_pixels_with_extremes(counter, image, counting.plan, *counting.clipping,
                                                                              counting.slots, counting.extremes);
    if (!counted) accumulate_pixels(counter, image, counting.plan, counting.slots);
    in_pass.end();
    stats_in_pass.end();
    Result result = counting.result(image, std::move(backend), std::move(device), counted);
    if (!counted && counting.clipping && counts_unproven_clipping<Pixels>(counter))
        counter.count_clipping(image, *counting.clipping, result);
    result.notes = counter.take_notes();
    if (in_pass.finder()) set_value_extremes(result.channels, in_pass.finder()->channels());
    add_image_statistics(counter, image, request, counting.plan, result, in_pass.finder().has_value(),
                         stats_in_pass.in_pass());
    return result;
}

template <class Pixels>
Result count_one_region_of(SlotCounter& counter, const Pixels& image, const Request& request, std::string backend,
                           std::string device) {
    if (request.selects_pixels()) return count_selected(counter, image, request, std::move(backend), std::move(device));
    return count_whole(counter, image, request, std::move(backend), std::move(device));
}

template <class Pixels>
Result count_pixels(SlotCounter& counter, const Pixels& image, const Request& request, std::string backend,
                    std::string device) {
    if (!request.roi && request.tiles.count() == 1)
        return count_one_region(counter, image, request, std::move(backend), std::move(device));
    std::optional<Result> result = count_tiles_in_one_pass(counter, image, request, backend, device);
    if (!result)
        result = count_regions(image, request, [&](std::span<const Pixels> views, std::span<const Request> requests) {
            std::vector<Result> results;
            results.reserve(views.size());
            for (std::size_t i = 0; i < views.size(); ++i)
                results.push_back(count_one_region(counter, views[i], requests[i], backend, device));
            return results;
        });
    add_area_sample_stats(counter, image, request, *result);
    return std::move(*result);
}
}  // namespace

Result count_whole(SlotCounter& counter, const ImageView& image, const Request& request, std::string backend,
                   std::string device) {
    return count_whole_of(counter, image, request, std::move(backend), std::move(device));
}
Result count_whole(SlotCounter& counter, const DeviceImage& image, const Request& request, std::string backend,
                   std::string device) {
    return count_whole_of(counter, image, request, std::move(backend), std::move(device));
}
Result count_one_region(SlotCounter& counter, const ImageView& image, const Request& request, std::string backend,
                        std::string device) {
    return count_one_region_of(counter, image, request, std::move(backend), std::move(device));
}
Result count_one_region(SlotCounter& counter, const DeviceImage& image, const Request& request, std::string backend,
                        std::string device) {
    return count_one_region_of(counter, image, request, std::move(backend), std::move(device));
}

Result count_image(SlotCounter& counter, const ImageView& image, const Request& request, std::string backend,
                   std::string device) {
    if (image.info().packed) {
        // Counted as the samples it decodes to; the result keeps the caller's format.
        const DecodedImage decoded(image);
        Result result = count_pixels(counter, decoded.view(), request, std::move(backend), std::move(device));
        result.format = image.format;
        return result;
    }
    return count_pixels(counter, image, request, std::move(backend), std::move(device));
}

Result count_image(SlotCounter& counter, const DeviceImage& image, const Request& request, std::string backend,
                   std::string device) {
    image.validate();
    return count_pixels(counter, image, request, std::move(backend), std::move(device));
}

}  // namespace imghist
