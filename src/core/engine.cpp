#include "imghist/engine.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <optional>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

#include "core/backend_list.hpp"
#include "core/backend_engine.hpp"
#include "core/plan.hpp"
#include "core/host_statistics.hpp"
#include "core/host_threads.hpp"
#include "core/selection.hpp"

#ifndef IMGHIST_VERSION
#define IMGHIST_VERSION "0.0.0"
#endif

namespace imghist {

std::string_view version() { return IMGHIST_VERSION; }

Result Engine::compute(const ImageView& image, const Request& request) {
    image.validate();
    return compute_validated(image, request);
}

namespace {
void accumulate_pixels(SlotCounter& counter, const ImageView& image, const HistogramPlan& plan,
                       std::span<std::uint64_t> slots) {
    counter.accumulate(image, plan, slots);
}
void accumulate_pixels(SlotCounter& counter, const DeviceImage& image, const HistogramPlan& plan,
                       std::span<std::uint64_t> slots) {
    counter.accumulate_device(image, plan, slots);
}
bool accumulate_pixels_with_extremes(SlotCounter& counter, const ImageView& image, const HistogramPlan& plan,
                                     const HistogramPlan& clipping, std::span<std::uint64_t> slots,
                                     std::span<std::uint64_t> extremes) {
    return counter.accumulate_with_extremes(image, plan, clipping, slots, extremes);
}
bool accumulate_pixels_with_extremes(SlotCounter&, const DeviceImage&, const HistogramPlan&, const HistogramPlan&,
                                     std::span<std::uint64_t>, std::span<std::uint64_t>) {
    return false;
}

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

// Whether count_image() counts the clipping counts that the histogram does not prove, with a
// second pass: always for host images; for device images where the backend says so.
template <class Pixels>
bool counts_unproven_clipping(const SlotCounter& counter) {
    return std::is_same_v<Pixels, ImageView> || counter.counts_device_clipping();
}

// Every pixel of `image`, for a request without roi or tiles.
template <class Pixels>
Result count_whole(SlotCounter& counter, const Pixels& image, const Request& request, std::string backend,
                   std::string device) {
    Counting counting(image.format, request);
    counter.take_notes();
    ExtremesInThePass in_pass(counter, image, request, counting.plan);
    const bool counted = counting.clipping && accumulate_pixels_with_extremes(counter, image, counting.plan, *counting.clipping,
                                                                              counting.slots, counting.extremes);
    if (!counted) accumulate_pixels(counter, image, counting.plan, counting.slots);
    in_pass.end();
    Result result = counting.result(image, std::move(backend), std::move(device), counted);
    if (!counted && counting.clipping && counts_unproven_clipping<Pixels>(counter))
        counter.count_clipping(image, *counting.clipping, result);
    result.notes = counter.take_notes();
    if (in_pass.finder()) set_value_extremes(result.channels, in_pass.finder()->channels());
    add_host_statistics(image, request, counting.plan, nullptr, result, in_pass.finder().has_value());
    return result;
}

// Where a backend cannot count a selection itself (SlotCounter::accumulate_selected), the pixels
// a mask or an alpha threshold select are gathered, packed, into rows of up to this many bytes,
// each counted as a one-row image by the backend as usual: one rule for every backend, and NaN
// or clipping in a masked-out pixel counts nowhere.
constexpr std::size_t kSelectionChunkBytes = std::size_t(64) << 20;

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
        if constexpr (std::is_same_v<Pixels, DeviceImage>) add_host_statistics(image, plain, plan, nullptr, *result);
        else {
            if (plain.value_extremes && plan.is_float())
                set_value_extremes(result->channels, std::vector<ValueExtremes>(plan.channels.size()));
            if (plain.sample_stats)
                for (ChannelHistogram& c : result->channels) c.sample_moments = SampleMoments{};
        }
    }
    result->width = image.width;
    result->height = image.height;
    result->region = {0, 0, image.width, image.height};
    result->counted_pixels = counted;
    return std::move(*result);
}

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
    add_host_statistics(image, plain, counting.plan, nullptr, result);
    return selected_result(std::move(result), image, plain, *counted, std::move(backend), std::move(device));
}

template <class Pixels>
Result count_one_region(SlotCounter& counter, const Pixels& image, const Request& request, std::string backend,
                        std::string device) {
    if (request.selects_pixels()) return count_selected(counter, image, request, std::move(backend), std::move(device));
    return count_whole(counter, image, request, std::move(backend), std::move(device));
}

// A roi and tiles are sub-views of the image, each counted as a whole image by the same
// backend: a roi reads only its own rows, and tiles read every counted pixel once. A backend that
// counts every tile in one pass (SlotCounter::accumulate_tiles) does so instead where it can.
// Tile histograms are held whole in the Result: at most this many 64-bit counters in all (512 MiB),
// so that a grid times a wide layout is refused by name rather than exhausting memory.
constexpr std::uint64_t kMaxTileCounters = std::uint64_t(1) << 26;

// The counted area of a request with a roi or tiles, its checks done: the tile grid's size
// and the selection's fit.
template <class Pixels>
Region checked_area(const Pixels& image, const Request& request) {
    const Region area = counted_region(request, image.width, image.height);
    if (request.tiles.count() > 1) {
        const std::uint64_t per_tile = std::uint64_t(channels_for(image.format, request).size()) *
                                       (resolve_layout(format_info(image.format).sample, request.bins).bins + IH_EXTRA_SLOTS);
        if (request.tiles.count() * per_tile > kMaxTileCounters)
            throw InvalidArgument("tiles " + std::to_string(request.tiles.x) + "," + std::to_string(request.tiles.y) +
                                  " of " + std::to_string(per_tile) + " counters each are more than the " +
                                  std::to_string(kMaxTileCounters) + " (512 MiB) a result may hold: ask for fewer tiles or bins");
    }
    if (request.selects_pixels())
        validate_selection(request, image.format, image.width, image.height, std::is_same_v<Pixels, DeviceImage>);
    return area;
}

// The request of one region: no roi or tiles, the mask seen through the region.
Request region_request(const Request& request, const Region& region) {
    Request plain = request;
    plain.roi.reset();
    plain.tiles = {};
    if (request.mask) plain.mask = request.mask->crop(region);
    if (request.device_mask) plain.device_mask = request.device_mask->crop(region);
    return plain;
}

// The tiles of the grid over `area`, in row-major order.
std::vector<Region> tile_regions(const Region& area, const TileGrid& grid) {
    std::vector<Region> regions;
    regions.reserve(grid.count());
    for (std::uint32_t ty = 0; ty < grid.y; ++ty)
        for (std::uint32_t tx = 0; tx < grid.x; ++tx) regions.push_back(tile_region(area, grid, tx, ty));
    return regions;
}

// One Result of the tiles' Results (in tile_regions' order): their sum, and each tile's own.
Result assemble_tiles(std::vector<Result> tile_results, const std::vector<Region>& regions, const TileGrid& grid) {
    Result result;
    std::vector<TileHistogram> tiles;
    tiles.reserve(regions.size());
    for (std::size_t i = 0; i < regions.size(); ++i) {
        Result& tile = tile_results[i];
        if (i == 0) result = tile;
        else result.merge(tile);
        tiles.push_back({regions[i], std::move(tile.channels), tile.counted_pixels});
    }
    result.tile_grid = grid;
    result.tiles = std::move(tiles);
    return result;
}

template <class Pixels>
Result count_regions_of(const Pixels& image, const Request& request, const ViewCounter<Pixels>& count_views) {
    const Region area = checked_area(image, request);
    const std::vector<Region> regions =
        request.tiles.count() == 1 ? std::vector<Region>{area} : tile_regions(area, request.tiles);
    std::vector<Pixels> views;
    std::vector<Request> requests;
    views.reserve(regions.size());
    requests.reserve(regions.size());
    for (const Region& region : regions) {
        views.push_back(image.crop(region));
        requests.push_back(region_request(request, region));
    }
    std::vector<Result> counted = count_views(views, requests);
    Result result = request.tiles.count() == 1 ? std::move(counted.front())
                                               : assemble_tiles(std::move(counted), regions, request.tiles);
    result.width = image.width;
    result.height = image.height;
    result.region = area;
    return result;
}

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

// A selection over a tile grid, for a backend whose one pass takes no selection (the GPU
// backends): each tile's selected pixels, row by row, go to the start of the same rows of a cell
// of their own in an image of equal cells (as wide and tall as the largest tile), whose other
// pixels are zero bytes. The backend counts those cells as a tile grid in its one pass; then
// each tile's slots lose what its zero pixels added, their number times the slots of one zero
// pixel counted by the same backend with the same plan: counts are sums over pixels, so this is
// exact. Bands of tile rows of up to kSelectionChunkBytes keep the cells' memory bounded.
// Returns whether the extremes were counted (and corrected alike).
bool accumulate_tiles_in_cells(SlotCounter& counter, const ImageView& image, std::span<const Region> regions,
                               const HistogramPlan& plan, const HistogramPlan* clipping,
                               std::span<const PixelSelector* const> selectors, std::span<std::uint64_t> slots,
                               std::span<std::uint64_t> extremes, std::span<std::uint64_t> counted) {
    std::size_t tiles_x = 0;
    while (tiles_x < regions.size() && regions[tiles_x].y == regions[0].y) ++tiles_x;
    const std::size_t tile_rows = regions.size() / tiles_x;
    std::uint32_t cell_width = 0, cell_height = 0;
    for (const Region& r : regions) {
        cell_width = std::max(cell_width, r.width);
        cell_height = std::max(cell_height, r.height);
    }
    const std::size_t pixel_bytes = image.info().pixel_bytes();
    const std::size_t cell_row_bytes = std::size_t(cell_width) * pixel_bytes;
    const std::size_t band_row_bytes = tiles_x * cell_row_bytes * cell_height;  // one row of cells
    const std::size_t rows_per_band = std::clamp<std::size_t>(kSelectionChunkBytes / band_row_bytes, 1, tile_rows);
    const std::size_t ts = plan.total_slots(), es = clipping ? 2 * plan.channels.size() : 0;
    const std::uint64_t cell_pixels = std::uint64_t(cell_width) * cell_height;
    std::vector<std::uint64_t>& buffer = counter.gather_buffer();
    buffer.resize(std::max(buffer.size(), (rows_per_band * band_row_bytes + 7) / 8));
    auto* cells = reinterpret_cast<std::byte*>(buffer.data());
    bool extremes_counted = true;
    for (std::size_t first_row = 0; first_row < tile_rows; first_row += rows_per_band) {
        const std::size_t band_rows = std::min(rows_per_band, tile_rows - first_row);
        const std::size_t first = first_row * tiles_x, count = band_rows * tiles_x;
        const ImageView band = ImageView::packed(cells, std::uint32_t(tiles_x * cell_width),
                                                 std::uint32_t(band_rows * cell_height), image.format);
        const unsigned threads = host_pass_threads(band_rows * band_row_bytes, std::uint32_t(count));
        for_row_shares(std::uint32_t(count), threads, [&](unsigned, std::uint32_t begin, std::uint32_t end) {
            for (std::size_t j = begin; j < end; ++j) {
                const Region& tile = regions[first + j];
                std::byte* cell = cells + (j / tiles_x) * band_row_bytes + (j % tiles_x) * cell_row_bytes;
                std::uint64_t kept = 0;
                for (std::uint32_t y = 0; y < cell_height; ++y) {
                    std::byte* row = cell + std::size_t(y) * tiles_x * cell_row_bytes;
                    const std::size_t n = y < tile.height ? selectors[first + j]->gather_row(y, row) : 0;
                    std::memset(row + n * pixel_bytes, 0, cell_row_bytes - n * pixel_bytes);
                    kept += n;
                }
                counted[first + j] = kept;
            }
        });
        const std::vector<Region> cell_regions =
            tile_regions(Region{0, 0, band.width, band.height}, TileGrid{std::uint32_t(tiles_x), std::uint32_t(band_rows)});
        extremes_counted = counter.accumulate_tiles(band, cell_regions, plan, clipping, {}, slots.subspan(first * ts, count * ts),
                                                    extremes.subspan(first * es, count * es), {}) && extremes_counted;
    }
    // One zero pixel, counted by the same backend with the same plan (its notes are the grid's).
    std::vector<std::string> notes = counter.take_notes();
    const std::vector<std::byte> zero(pixel_bytes, std::byte{0});
    const ImageView zero_pixel = ImageView::packed(zero.data(), 1, 1, image.format);
    std::vector<std::uint64_t> zero_slots(ts, 0), zero_extremes(es, 0);
    if (clipping && extremes_counted)
        extremes_counted = counter.accumulate_with_extremes(zero_pixel, plan, *clipping, zero_slots, zero_extremes);
    if (!(clipping && extremes_counted)) counter.accumulate(zero_pixel, plan, zero_slots);
    counter.take_notes();
    for (std::string& note : notes) counter.add_note(std::move(note));
    for (std::size_t i = 0; i < regions.size(); ++i) {
        const std::uint64_t padding = cell_pixels - counted[i];
        for (std::size_t k = 0; k < ts; ++k) slots[i * ts + k] -= padding * zero_slots[k];
        if (extremes_counted)
            for (std::size_t k = 0; k < es; ++k) extremes[i * es + k] -= padding * zero_extremes[k];
    }
    return extremes_counted;
}

// The tile grid counted in one call of a backend that can (SlotCounter::accumulate_tiles):
// the tiles' slots, and whether their extremes were counted too. A selection its one pass does
// not take goes through cells of the selected pixels.
bool accumulate_tiles_of(SlotCounter& counter, const ImageView& image, std::span<const Region> regions,
                         const HistogramPlan& plan, const HistogramPlan* clipping,
                         std::span<const PixelSelector* const> selectors, std::span<std::uint64_t> slots,
                         std::span<std::uint64_t> extremes, std::span<std::uint64_t> counted) {
    if (!selectors.empty() && !counter.counts_tiles_in_one_pass(false, true))
        return accumulate_tiles_in_cells(counter, image, regions, plan, clipping, selectors, slots, extremes, counted);
    return counter.accumulate_tiles(image, regions, plan, clipping, selectors, slots, extremes, counted);
}
bool accumulate_tiles_of(SlotCounter& counter, const DeviceImage& image, std::span<const Region> regions,
                         const HistogramPlan& plan, const HistogramPlan* clipping, std::span<const PixelSelector* const>,
                         std::span<std::uint64_t> slots, std::span<std::uint64_t>, std::span<std::uint64_t>) {
    counter.accumulate_tiles_device(image, regions, plan, slots);
    return clipping == nullptr;
}

// Tiles in one pass of a backend that counts them so (SlotCounter::accumulate_tiles): the same
// Result count_regions_of assembles from one count per tile, a selection's included; nullopt
// where the backend cannot.
template <class Pixels>
std::optional<Result> count_tiles_in_one_pass(SlotCounter& counter, const Pixels& image, const Request& request,
                                              const std::string& backend, const std::string& device) {
    constexpr bool on_device = std::is_same_v<Pixels, DeviceImage>;
    // A host selection goes through cells (accumulate_tiles_in_cells) where the one pass takes none.
    const bool selects = request.selects_pixels();
    if (request.tiles.count() <= 1 || !(counter.counts_tiles_in_one_pass(on_device, selects) ||
                                        (!on_device && selects && counter.counts_tiles_in_one_pass(false, false))))
        return std::nullopt;
    const Region area = checked_area(image, request);
    const std::vector<Region> regions = tile_regions(area, request.tiles);
    // Each tile's request and selector (which points into its request's mask).
    std::vector<Request> tile_requests;
    std::vector<PixelSelector> selectors;
    std::vector<const PixelSelector*> selector_of;
    if constexpr (!on_device) {
        if (request.selects_pixels()) {
            tile_requests.reserve(regions.size());
            selectors.reserve(regions.size());
            for (const Region& region : regions) {
                tile_requests.push_back(region_request(request, region));
                selectors.emplace_back(image.crop(region), tile_requests.back());
                selector_of.push_back(&selectors.back());
            }
        }
    }
    Request plain = region_request(request, area);
    plain.mask.reset();
    plain.device_mask.reset();
    plain.alpha_threshold.reset();
    Counting counting(image.format, plain);
    const std::size_t slots_per_tile = counting.slots.size(), extremes_per_tile = counting.extremes.size();
    std::vector<std::uint64_t> slots(regions.size() * slots_per_tile, 0), extremes(regions.size() * extremes_per_tile, 0);
    std::vector<std::uint64_t> counted(regions.size(), 0);
    counter.take_notes();
    const bool extremes_counted = accumulate_tiles_of(counter, image, regions, counting.plan, counting.clipping_plan(),
                                                      selector_of, slots, extremes, counted);
    const std::vector<std::string> notes = counter.take_notes();
    std::vector<Result> tile_results;
    tile_results.reserve(regions.size());
    bool clipping_missing = false;
    for (std::size_t i = 0; i < regions.size(); ++i) {
        std::copy_n(slots.begin() + std::ptrdiff_t(i * slots_per_tile), slots_per_tile, counting.slots.begin());
        std::copy_n(extremes.begin() + std::ptrdiff_t(i * extremes_per_tile), extremes_per_tile, counting.extremes.begin());
        const Pixels tile = image.crop(regions[i]);
        Result& r = tile_results.emplace_back(
            counting.result(tile, backend, device, counting.clipping.has_value() && extremes_counted));
        r.notes = notes;
        if (!selectors.empty()) r.counted_pixels = counted[i];
        clipping_missing = clipping_missing || !clipping_known(r);
    }
    if (counting.clipping && !extremes_counted && clipping_missing && counts_unproven_clipping<Pixels>(counter)) {
        // One more pass over every tile with the clipping plan, whose below / above are the extremes.
        const HistogramPlan& clipping = *counting.clipping;
        std::vector<std::uint64_t> clip_slots(regions.size() * clipping.total_slots(), 0);
        counter.take_notes();
        accumulate_tiles_of(counter, image, regions, clipping, nullptr, selector_of, clip_slots, {}, counted);
        counter.take_notes();  // notes about the internal pass would only confuse
        for (std::size_t i = 0; i < regions.size(); ++i)
            if (!clipping_known(tile_results[i]))
                set_clipping(clipping, std::span<const std::uint64_t>(clip_slots).subspan(i * clipping.total_slots(),
                                                                                            clipping.total_slots()),
                             tile_results[i]);
    }
    for (std::size_t i = 0; i < regions.size(); ++i)
        add_host_statistics(image.crop(regions[i]), plain, counting.plan, selectors.empty() ? nullptr : &selectors[i],
                            tile_results[i]);
    Result result = assemble_tiles(std::move(tile_results), regions, request.tiles);
    result.width = image.width;
    result.height = image.height;
    result.region = area;
    return result;
}

// A tiled result's sample statistics of the whole counted area: the tiles' percentiles do not
// add up, so the sum of the tiles has none of its own until found over the area.
template <class Pixels>
void add_area_sample_stats(const Pixels& image, const Request& request, Result& result) {
    if (!request.sample_stats || request.tiles.count() <= 1) return;
    const Pixels area = image.crop(result.region);
    const Request region = region_request(request, result.region);
    Request plain = region;
    plain.mask.reset();
    plain.device_mask.reset();
    plain.alpha_threshold.reset();
    const HistogramPlan plan(image.format, plain);
    if constexpr (std::is_same_v<Pixels, ImageView>) {
        std::optional<PixelSelector> selector;
        if (region.selects_pixels()) selector.emplace(area, region);
        add_sample_stats(area, plain, plan, selector ? &*selector : nullptr, result);
    } else {
        add_sample_stats(area, plain, plan, nullptr, result);
    }
}

template <class Pixels>
Result count_pixels(SlotCounter& counter, const Pixels& image, const Request& request, std::string backend,
                    std::string device) {
    if (!request.roi && request.tiles.count() == 1)
        return count_one_region(counter, image, request, std::move(backend), std::move(device));
    std::optional<Result> result = count_tiles_in_one_pass(counter, image, request, backend, device);
    if (!result)
        result = count_regions_of<Pixels>(image, request, [&](std::span<const Pixels> views, std::span<const Request> requests) {
            std::vector<Result> results;
            results.reserve(views.size());
            for (std::size_t i = 0; i < views.size(); ++i)
                results.push_back(count_one_region(counter, views[i], requests[i], backend, device));
            return results;
        });
    add_area_sample_stats(image, request, *result);
    return std::move(*result);
}

}  // namespace

Result count_regions(const ImageView& image, const Request& request, const ViewCounter<ImageView>& count_views) {
    return count_regions_of(image, request, count_views);
}
Result count_regions(const DeviceImage& image, const Request& request, const ViewCounter<DeviceImage>& count_views) {
    return count_regions_of(image, request, count_views);
}

Result count_image(SlotCounter& counter, const ImageView& image, const Request& request, std::string backend,
                   std::string device) {
    return count_pixels(counter, image, request, std::move(backend), std::move(device));
}

Result count_image(SlotCounter& counter, const DeviceImage& image, const Request& request, std::string backend,
                   std::string device) {
    image.validate();
    return count_pixels(counter, image, request, std::move(backend), std::move(device));
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

bool Backend::available() const {
    for (const DeviceInfo& d : devices())
        if (d.available) return true;
    return false;
}

std::span<const Backend* const> backends() {
    // GPU backends first: `auto` walks this list.
    static const auto list = std::to_array<const Backend*>({
#ifdef IMGHIST_WITH_CUDA
        &cuda_backend(),
#endif
#ifdef IMGHIST_WITH_OPENCL
        &opencl_backend(),
#endif
#ifdef IMGHIST_WITH_VULKAN
        &vulkan_backend(),
#endif
        &cpu_backend(),
        &reference_backend(),
    });
    return list;
}

const Backend* find_backend(std::string_view name) {
    for (const Backend* b : backends())
        if (b->name() == name) return b;
    return nullptr;
}

std::unique_ptr<Engine> create_engine(std::string_view name, const EngineOptions& options) {
    if (name == "auto") {
        for (const Backend* b : backends()) {
            for (const DeviceInfo& d : b->devices()) {
                if (d.is_gpu && d.available) return b->create_engine(options);
            }
        }
        return cpu_backend().create_engine(options);
    }
    const Backend* backend = find_backend(name);
    if (backend == nullptr) {
        std::string known;
        for (const Backend* b : backends()) known += (known.empty() ? "" : ", ") + std::string(b->name());
        throw BackendUnavailable("unknown backend '" + std::string(name) + "' (compiled in: " + known +
                                 ")");
    }
    return backend->create_engine(options);
}

}  // namespace imghist
