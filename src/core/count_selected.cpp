// A mask or an alpha threshold (docs/semantics.md, "Masks and alpha"): the selected pixels
// counted by the backend where it can, else gathered into packed rows it counts as usual.
#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/counting.hpp"
#include "core/host_statistics.hpp"
#include "core/host_threads.hpp"
#include "core/selection.hpp"

namespace imghist {

namespace {
// The Result of a selection counted in parts (`result`, nullopt when nothing was selected),
// as a Result of the whole image with `counted` pixels counted.
template <class Pixels>
Result selected_result(std::optional<Result> result, const Pixels& image, const Request& plain, std::uint64_t counted,
                       std::string backend, std::string device) {
    if (!result) {  // nothing selected: every count is zero, clipping included
        const HistogramPlan plan(image.format, plain);
        const std::vector<std::uint64_t> slots(plan.total_slots(), 0);
        result = plan.make_result(image, slots, std::move(backend), std::move(device));
        for (ChannelHistogram& c : result->channels) c.clipped_low_count = c.clipped_high_count = 0;
        if constexpr (std::is_same_v<Pixels, DeviceImage>) add_value_extremes(image, plain, plan, nullptr, *result);
        else if (plain.value_extremes && plan.is_float())
            set_value_extremes(result->channels, std::vector<ValueExtremes>(plan.channels.size()));
        if (plain.sample_stats)
            for (ChannelHistogram& c : result->channels) c.sample_moments = SampleMoments{};
    }
    result->width = image.width;
    result->height = image.height;
    result->region = {0, 0, image.width, image.height};
    result->counted_pixels = counted;
    return std::move(*result);
}
}  // namespace

Result count_selected(SlotCounter& counter, const ImageView& image, const Request& request, std::string backend,
                      std::string device) {
    const PixelSelector selector(image, request);
    Request plain = request;
    plain.mask.reset();
    plain.alpha_threshold.reset();
    {
        Counting counting(image.format, plain);
        counter.take_notes();
        if (const auto counted = counter.accumulate_selected(image, selector, counting.plan, counting.clipping_plan(),
                                                             counting.slots, counting.extremes)) {
            Result result = counting.result(image, backend, device, counting.clipping.has_value());
            result.counted_pixels = *counted;
            result.notes = counter.take_notes();
            add_host_statistics(image, plain, counting.plan, &selector, result);
            return result;
        }
    }
    // Rounds of whole rows that fill the buffer; a round's rows are split among threads, each
    // packing its share into its own part of the buffer, which is counted as a row of its own.
    const std::size_t pixel_bytes = image.info().pixel_bytes();
    const std::size_t row_bytes = std::size_t(image.width) * pixel_bytes;
    const auto rows_per_round =
        std::uint32_t(std::clamp<std::size_t>(kSelectionChunkBytes / row_bytes, 1, image.height));
    const unsigned threads = host_pass_threads(std::size_t(rows_per_round) * row_bytes, rows_per_round);
    std::vector<std::uint64_t>& buffer = counter.gather_buffer();
    buffer.resize((std::size_t(rows_per_round) * row_bytes + 7) / 8);  // 8-byte aligned; kept for the next call
    auto* packed = reinterpret_cast<std::byte*>(buffer.data());
    std::vector<std::size_t> kept(threads, 0);
    std::optional<Result> result;
    std::uint64_t counted = 0;
    // Percentiles do not add up over parts: the sample statistics are found over the whole selection.
    Request part_request = plain;
    part_request.sample_stats = false;
    for (std::uint32_t first = 0; first < image.height; first += rows_per_round) {
        const std::uint32_t rows = std::min(rows_per_round, image.height - first);
        for_row_shares(rows, threads, [&](unsigned t, std::uint32_t begin, std::uint32_t end) {
            std::byte* out = packed + std::size_t(begin) * row_bytes;
            std::size_t n = 0;
            for (std::uint32_t y = first + begin; y < first + end; ++y) n += selector.gather_row(y, out + n * pixel_bytes);
            kept[t] = n;
        });
        for (unsigned t = 0; t < threads; ++t) {
            if (kept[t] == 0) continue;
            counted += kept[t];
            const ImageView part_view = ImageView::packed(packed + std::size_t(row_share_begin(rows, threads, t)) * row_bytes,
                                                          std::uint32_t(kept[t]), 1, image.format);
            Result part = count_whole(counter, part_view, part_request, backend, device);
            if (result) result->merge(part);
            else result = std::move(part);
        }
    }
    if (result) add_sample_stats(image, plain, HistogramPlan(image.format, plain), &selector, *result);
    return selected_result(std::move(result), image, plain, counted, std::move(backend), std::move(device));
}

// Device images: the backend counts the selected pixels where they lie
// (SlotCounter::accumulate_selected_device), in one pass over the image and the mask, and one
// more with the clipping plan where the counts do not prove the clipping and the backend gives
// every clipping count (counts_device_clipping).
Result count_selected(SlotCounter& counter, const DeviceImage& image, const Request& request, std::string backend,
                      std::string device) {
    validate_selection(request, image.format, image.width, image.height, true);
    const AlphaTest alpha = alpha_test_of(request.alpha_threshold, image.info().sample);
    const DeviceImage* mask = request.device_mask ? &*request.device_mask : nullptr;
    Request plain = request;
    plain.device_mask.reset();
    plain.alpha_threshold.reset();
    Counting counting(image.format, plain);
    counter.take_notes();
    const std::optional<std::uint64_t> counted =
        counter.accumulate_selected_device(image, mask, alpha, counting.plan, counting.slots);
    if (!counted)
        throw InvalidArgument("this backend applies a mask or an alpha threshold to images in host memory only: "
                              "copy the image to the host, or count it without one");
    if (*counted == 0) return selected_result(std::nullopt, image, plain, 0, std::move(backend), std::move(device));
    Result result = counting.result(image, backend, device, false);
    if (counting.clipping && counts_unproven_clipping<DeviceImage>(counter))
        counter.count_clipping(*counting.clipping, result, [&](std::span<std::uint64_t> slots) {
            counter.accumulate_selected_device(image, mask, alpha, *counting.clipping, slots);
        });
    result.notes = counter.take_notes();
    add_device_statistics(counter, image, mask, alpha, plain, counting.plan, result);
    return selected_result(std::move(result), image, plain, *counted, std::move(backend), std::move(device));
}

}  // namespace imghist
