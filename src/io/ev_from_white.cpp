#include "io/ev_from_white.hpp"

#include <cmath>
#include <vector>

namespace imghist::io {

namespace {

constexpr std::uint32_t kValues = 65536;  // one bin per 16-bit value

// The EV axis in result units: edges -16 + k / per_stop, exact in double (a quotient of integers
// rounded once), so that every raw file gives the same layout and results merge.
BinLayout ev_layout(std::uint32_t per_stop) {
    BinLayout layout;
    layout.bins = kEvFromWhiteStops * per_stop;
    layout.lo = -double(kEvFromWhiteStops);
    layout.hi = 0;
    layout.integer = false;
    for (std::uint32_t k = 0; k <= layout.bins; ++k) layout.edges.push_back((double(k) - layout.bins) / per_stop);
    return layout;
}

// The smallest whole number of raw units above black in each bin k (k = bins: white - black):
// ceil(span * 2^(k / per_stop - 16)), the edge computed in double.
std::vector<std::int64_t> lowest_in_bins(std::uint32_t span, std::uint32_t per_stop, std::uint32_t bins) {
    std::vector<std::int64_t> lowest(bins + 1);
    for (std::uint32_t k = 0; k <= bins; ++k)
        lowest[k] = std::int64_t(std::ceil(double(span) * std::exp2(double(k) / per_stop - kEvFromWhiteStops)));
    return lowest;
}

void regroup_channel(ChannelHistogram& c, const SensorChannels& sensor, const BinLayout& layout) {
    const int s = sensor_channel_of(c.channel);
    if (s < 0 || c.counts.size() != kValues) return;  // not a sensor channel counted per value
    const std::int64_t black = sensor.black[s], span = std::int64_t(sensor.white) - black;
    const std::vector<std::int64_t> lowest = lowest_in_bins(std::uint32_t(span), sensor.ev_per_stop, layout.bins);
    std::vector<std::uint64_t> counts(layout.bins, 0);
    std::uint64_t below = 0, above = 0;
    std::uint32_t k = 0;
    for (std::uint32_t v = 0; v < kValues; ++v) {
        const std::uint64_t n = c.counts[v];
        if (n == 0) continue;
        const std::int64_t above_black = sensor.black_subtracted ? std::int64_t(v) : std::int64_t(v) - black;
        if (above_black < lowest[0]) below += n;  // at or below black: no EV
        else if (above_black >= span) above += n;  // at or above white: clipped
        else {
            while (lowest[k + 1] <= above_black) ++k;  // values rise, so bins only move up
            counts[k] += n;
        }
    }
    c.layout = layout;
    c.counts = std::move(counts);
    c.below = below;
    c.above = above;
}

}  // namespace

Request sensor_request(const Request& request, const SensorChannels& sensor) {
    Request r = request;
    r.mode = Mode::rgb;
    r.count_alpha = true;
    r.alpha_threshold.reset();
    if (sensor.ev_per_stop) r.bins = BinSpec{.bins = kValues, .range = std::pair{0.0, double(kValues)}};
    return r;
}

void regroup_ev_from_white(Result& counted, const SensorChannels& sensor) {
    if (!sensor.ev_per_stop) return;
    const BinLayout layout = ev_layout(sensor.ev_per_stop);
    for (ChannelHistogram& c : counted.channels) regroup_channel(c, sensor, layout);
    for (TileHistogram& tile : counted.tiles)
        for (ChannelHistogram& c : tile.channels) regroup_channel(c, sensor, layout);
}

Result count_loaded_image(Engine& engine, const LoadedImage& image, const Request& request) {
    Result r = image.sensor ? engine.compute(image.view, sensor_request(request, *image.sensor))
                            : engine.compute(image.view, request);
    if (image.sensor) regroup_ev_from_white(r, *image.sensor);
    r.notes.insert(r.notes.begin(), image.notes.begin(), image.notes.end());
    return r;
}

bool is_ev_from_white_axis(const BinLayout& layout) {
    return !layout.edges.empty() && layout.lo == -double(kEvFromWhiteStops) && layout.hi == 0.0 &&
           layout.bins % kEvFromWhiteStops == 0;
}

}  // namespace imghist::io
