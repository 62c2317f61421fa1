// The check a bench runs on a device-memory result (the interop calls) against a host count:
// the same histograms, where the device result's clipping counts are unknown wherever its
// histogram does not prove them (docs/semantics.md, "Statistics").
#pragma once

#include <vector>

#include "imghist/result.hpp"

namespace imghist::bench {

inline bool same_channels_as_device(const std::vector<ChannelHistogram>& device, const std::vector<ChannelHistogram>& host) {
    if (device.size() != host.size()) return false;
    for (std::size_t c = 0; c < host.size(); ++c) {
        ChannelHistogram known = host[c];
        if (!device[c].clipped_low_count) known.clipped_low_count.reset();
        if (!device[c].clipped_high_count) known.clipped_high_count.reset();
        if (!(device[c] == known)) return false;
    }
    return true;
}

// Result::same_histograms, with the device result's unknown clipping counts left out.
inline bool same_histograms_as_device(const Result& device, const Result& host) {
    if (!same_channels_as_device(device.channels, host.channels) || device.tiles.size() != host.tiles.size()) return false;
    for (std::size_t t = 0; t < host.tiles.size(); ++t)
        if (device.tiles[t].region != host.tiles[t].region || device.tiles[t].counted_pixels != host.tiles[t].counted_pixels ||
            !same_channels_as_device(device.tiles[t].channels, host.tiles[t].channels))
            return false;
    return true;
}

}  // namespace imghist::bench
