// The one bit-for-bit comparison every backend test uses: same channels, layouts, counts,
// nan, below and above, the sample statistics, and the exact clipping counts where `got` has them (the interop paths
// may leave them unknown; Engine::compute never does, which its tests check). Shows the first few differing bins of each channel.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "imghist/result.hpp"

namespace imghist::testing {

inline void expect_same_channels(const std::vector<ChannelHistogram>& got, const std::vector<ChannelHistogram>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t c = 0; c < want.size(); ++c) {
        const auto& g = got[c];
        const auto& w = want[c];
        SCOPED_TRACE(std::string("channel ") + std::string(channel_name(w.channel)));
        EXPECT_EQ(g.channel, w.channel);
        EXPECT_EQ(g.layout, w.layout);
        EXPECT_EQ(g.nan, w.nan);
        EXPECT_EQ(g.below, w.below);
        EXPECT_EQ(g.above, w.above);
        if (g.clipped_low_count) EXPECT_EQ(g.clipped_low_count, w.clipped_low_count);
        if (g.clipped_high_count) EXPECT_EQ(g.clipped_high_count, w.clipped_high_count);
        EXPECT_EQ(g.sample_moments, w.sample_moments);  // both absent, or the same exact sums, min and max
        EXPECT_EQ(g.sample_percentiles, w.sample_percentiles);
        ASSERT_EQ(g.counts.size(), w.counts.size());
        int shown = 0;
        for (std::size_t k = 0; k < w.counts.size() && shown < 5; ++k)
            if (g.counts[k] != w.counts[k]) {
                ADD_FAILURE() << "bin " << k << ": got " << g.counts[k] << ", want " << w.counts[k];
                ++shown;
            }
    }
}

// The whole result's channels, its region, counted pixels and tiles (each tile's alike).
inline void expect_same_histograms(const Result& got, const Result& want, const std::string& what) {
    SCOPED_TRACE(what);
    expect_same_channels(got.channels, want.channels);
    EXPECT_EQ(got.region, want.region);
    EXPECT_EQ(got.counted_pixels, want.counted_pixels);
    EXPECT_EQ(got.tile_grid, want.tile_grid);
    ASSERT_EQ(got.tiles.size(), want.tiles.size());
    for (std::size_t t = 0; t < want.tiles.size(); ++t) {
        SCOPED_TRACE("tile " + std::to_string(t));
        EXPECT_EQ(got.tiles[t].region, want.tiles[t].region);
        EXPECT_EQ(got.tiles[t].counted_pixels, want.tiles[t].counted_pixels);
        expect_same_channels(got.tiles[t].channels, want.tiles[t].channels);
    }
}

}  // namespace imghist::testing
