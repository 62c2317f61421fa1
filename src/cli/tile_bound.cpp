#include "tile_bound.hpp"

#include <algorithm>

#include "imghist/imghist.hpp"
#include "options.hpp"

namespace imghist::cli {

namespace {

std::uint64_t most_bins(const BinSpec& bins) {
    std::uint64_t most = 0;
    for (SampleType sample : {SampleType::u8, SampleType::u16, SampleType::f16, SampleType::f32})
        most = std::max<std::uint64_t>(most, resolve_layout(sample, bins).bins);
    return most;
}

}  // namespace

std::uint64_t tile_counters(const Request& request) {
    // rgba8 gives the most channels any format gives (R, G, B, A, Y); a gray image gives one.
    const std::uint64_t channels = channels_for(PixelFormat::rgba8, request).size();
    return request.tiles.count() * channels * most_bins(request.bins);
}

void check_tile_counters(const Request& request, const std::string& tiles_text) {
    if (request.tiles.count() == 1) return;
    const std::uint64_t counters = tile_counters(request);
    if (counters <= kMaxReportTileCounters) return;
    const std::uint64_t channels = channels_for(PixelFormat::rgba8, request).size();
    throw UsageError("--tiles " + tiles_text + ": " + std::to_string(request.tiles.count()) + " tiles x " +
                     std::to_string(channels) + " channels x " + std::to_string(most_bins(request.bins)) +
                     " bins are " + std::to_string(counters) + " counters a file, more than the " +
                     std::to_string(kMaxReportTileCounters) +
                     " a report holds (each tile's histograms are kept and written): use fewer tiles, fewer bins "
                     "(--bins) or fewer channels (--mode)");
}

}  // namespace imghist::cli
