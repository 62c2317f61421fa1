// The counting pipeline's parts shared between its files (count_image.cpp, count_selected.cpp,
// count_tiles.cpp): what count_image() does around a backend's SlotCounter, once for all of them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/backend_engine.hpp"
#include "core/plan.hpp"

namespace imghist {

// A plan, its zeroed slots, and the clipping plan whose below / above are the extremes where the
// plan cannot prove them from its own bins.
struct Counting {
    HistogramPlan plan;
    std::optional<HistogramPlan> clipping;
    std::vector<std::uint64_t> slots, extremes;

    Counting(PixelFormat format, const Request& request)
        : plan(format, request), clipping(plan.clipping_plan(request)), slots(plan.total_slots(), 0),
          extremes(clipping ? 2 * plan.channels.size() : 0, 0) {}
    const HistogramPlan* clipping_plan() const { return clipping ? &*clipping : nullptr; }

    // The Result of the slots; with `extremes_counted`, its clipping counts are `extremes`.
    template <class Pixels>
    Result result(const Pixels& image, std::string backend, std::string device, bool extremes_counted) const {
        Result r = plan.make_result(image, slots, std::move(backend), std::move(device));
        if (extremes_counted) {
            for (std::size_t c = 0; c < r.channels.size(); ++c) {
                r.channels[c].clipped_low_count = extremes[2 * c];
                r.channels[c].clipped_high_count = extremes[2 * c + 1];
            }
        }
        return r;
    }
};

// Where a backend cannot count a selection itself (SlotCounter::accumulate_selected), the pixels
// a mask or an alpha threshold select are gathered, packed, into rows of up to this many bytes,
// each counted as a one-row image by the backend as usual: one rule for every backend, and NaN
// or clipping in a masked-out pixel counts nowhere. Tiles' selections are gathered in bands of
// the same size.
inline constexpr std::size_t kSelectionChunkBytes = std::size_t(64) << 20;

// accumulate() of host images, accumulate_device() of device images.
void accumulate_pixels(SlotCounter& counter, const ImageView& image, const HistogramPlan& plan,
                       std::span<std::uint64_t> slots);
void accumulate_pixels(SlotCounter& counter, const DeviceImage& image, const HistogramPlan& plan,
                       std::span<std::uint64_t> slots);

// Whether count_image() counts the clipping counts that the histogram does not prove, with a
// second pass: always for host images; for device images where the backend says so.
template <class Pixels>
inline bool counts_unproven_clipping(const SlotCounter& counter) {
    return std::is_same_v<Pixels, ImageView> || counter.counts_device_clipping();
}

// Whether a Result's clipping counts are all known, so that no pass with the clipping plan is
// needed; and the clipping plan's below / above counts of slots as a Result's clipping counts.
bool clipping_known(const Result& result);
void set_clipping(const HistogramPlan& clipping, std::span<const std::uint64_t> slots, Result& result);

// Every pixel of `image`, for a request without roi or tiles (count_image.cpp).
Result count_whole(SlotCounter& counter, const ImageView& image, const Request& request, std::string backend,
                   std::string device);
Result count_whole(SlotCounter& counter, const DeviceImage& image, const Request& request, std::string backend,
                   std::string device);
// Only the pixels a mask or an alpha threshold select (count_selected.cpp).
Result count_selected(SlotCounter& counter, const ImageView& image, const Request& request, std::string backend,
                      std::string device);
Result count_selected(SlotCounter& counter, const DeviceImage& image, const Request& request, std::string backend,
                      std::string device);
// One region: count_selected or count_whole (count_image.cpp).
Result count_one_region(SlotCounter& counter, const ImageView& image, const Request& request, std::string backend,
                        std::string device);
Result count_one_region(SlotCounter& counter, const DeviceImage& image, const Request& request, std::string backend,
                        std::string device);
// A roi and tiles (count_tiles.cpp): the tiles in one pass of a backend that counts them so, or
// nullopt; the regions one by one otherwise; and a tiled result's sample statistics of its area.
std::optional<Result> count_tiles_in_one_pass(SlotCounter& counter, const ImageView& image, const Request& request,
                                              const std::string& backend, const std::string& device);
std::optional<Result> count_tiles_in_one_pass(SlotCounter& counter, const DeviceImage& image, const Request& request,
                                              const std::string& backend, const std::string& device);
void add_area_sample_stats(SlotCounter& counter, const ImageView& image, const Request& request, Result& result);
void add_area_sample_stats(SlotCounter& counter, const DeviceImage& image, const Request& request, Result& result);

}  // namespace imghist
