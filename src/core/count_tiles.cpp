// A roi and tiles (docs/semantics.md, "Regions and tiles"): sub-views counted as plain requests,
// or every tile in one pass of a backend that counts them so, a selection's included.
#include <algorithm>
#include <cstring>
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
std::optional<Result> tiles_in_one_pass(SlotCounter& counter, const Pixels& image, const Request& request,
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
    for (std::size_t i = 0; i < regions.size(); ++i) {
        if constexpr (std::is_same_v<Pixels, ImageView>)
            add_host_statistics(image.crop(regions[i]), plain, counting.plan, selectors.empty() ? nullptr : &selectors[i],
                                tile_results[i]);
        else  // a device image's grid in one pass has no selection (accumulate_tiles_device)
            add_image_statistics(counter, image.crop(regions[i]), plain, counting.plan, tile_results[i]);
    }
    Result result = assemble_tiles(std::move(tile_results), regions, request.tiles);
    result.width = image.width;
    result.height = image.height;
    result.region = area;
    return result;
}

// A tiled result's sample statistics of the whole counted area: the tiles' percentiles do not
// add up, so the sum of the tiles has none of its own until found over the area.
template <class Pixels>
void area_sample_stats(SlotCounter& counter, const Pixels& image, const Request& request, Result& result) {
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
        const AlphaTest alpha = alpha_test_of(region.alpha_threshold, image.info().sample);
        add_sample_stats(counter, area, region.device_mask ? &*region.device_mask : nullptr, alpha, plain, plan, result);
    }
}
}  // namespace

Result count_regions(const ImageView& image, const Request& request, const ViewCounter<ImageView>& count_views) {
    return count_regions_of(image, request, count_views);
}
Result count_regions(const DeviceImage& image, const Request& request, const ViewCounter<DeviceImage>& count_views) {
    return count_regions_of(image, request, count_views);
}
std::optional<Result> count_tiles_in_one_pass(SlotCounter& counter, const ImageView& image, const Request& request,
                                              const std::string& backend, const std::string& device) {
    return tiles_in_one_pass(counter, image, request, backend, device);
}
std::optional<Result> count_tiles_in_one_pass(SlotCounter& counter, const DeviceImage& image, const Request& request,
                                              const std::string& backend, const std::string& device) {
    return tiles_in_one_pass(counter, image, request, backend, device);
}
void add_area_sample_stats(SlotCounter& counter, const ImageView& image, const Request& request, Result& result) {
    area_sample_stats(counter, image, request, result);
}
void add_area_sample_stats(SlotCounter& counter, const DeviceImage& image, const Request& request, Result& result) {
    area_sample_stats(counter, image, request, result);
}

}  // namespace imghist
