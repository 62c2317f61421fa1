// A tile grid's regions (row-major, as count_image makes them) seen as bands of whole rows of
// the grid's area: how a backend that stages rows describes every tile a band crosses as a
// piece of its own, so that all tiles are counted in one pass. API-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "contract/regions.h"
#include "imghist/image.hpp"

namespace imghist::gpu {

class TileBands {
public:
    explicit TileBands(std::span<const Region> regions) : regions_(regions) {
        const Region& first = regions.front();
        const Region& last = regions.back();
        area = {first.x, first.y, last.x + last.width - first.x, last.y + last.height - first.y};
        while (tiles_x_ < regions.size() && regions[tiles_x_].y == first.y) ++tiles_x_;
        tiles_y_ = std::uint32_t(regions.size() / tiles_x_);
    }

    Region area;  // the grid's bounding box
    std::uint32_t tiles_x() const { return tiles_x_; }
    std::uint32_t tiles_y() const { return tiles_y_; }
    std::size_t tiles() const { return regions_.size(); }
    // The row of tiles that row `row` of the area lies in.
    std::uint32_t tile_row_of(std::uint32_t row) const { return ih_tile_of(row, area.height, tiles_y_); }

    // How many of the `n` rows from row `row` of the area a band may take so that its pieces
    // (one per tile of each row of tiles it crosses) number at most `max_pieces`: n, or fewer
    // ending on a row of tiles' end; 0 when not one row of tiles fits.
    std::uint32_t rows_within(std::uint32_t row, std::uint32_t n, std::uint64_t max_pieces) const {
        if (n == 0) return 0;
        const std::uint64_t tile_rows = max_pieces / tiles_x_;
        if (tile_rows == 0) return 0;
        const std::uint32_t t0 = tile_row_of(row);
        if (tile_row_of(row + n - 1) - t0 < tile_rows) return n;
        return ih_tile_start(t0 + std::uint32_t(tile_rows), area.height, tiles_y_) - row;
    }

    // f(tile, x, width, first_row, rows) for every tile that rows [row, row + n) of the area
    // cross: the tile's index in the grid, its columns and the rows of the band within it,
    // relative to the area.
    template <class F>
    void for_each_piece(std::uint32_t row, std::uint32_t n, F&& f) const {
        const std::uint32_t end = row + n;
        for (std::uint32_t ty = tile_row_of(row); ty < tiles_y_; ++ty) {
            const Region& left = regions_[std::size_t(ty) * tiles_x_];
            const std::uint32_t top = left.y - area.y;
            if (top >= end) break;
            const std::uint32_t first = top > row ? top : row;
            const std::uint32_t last = top + left.height < end ? top + left.height : end;
            for (std::uint32_t tx = 0; tx < tiles_x_; ++tx) {
                const Region& tile = regions_[std::size_t(ty) * tiles_x_ + tx];
                f(std::uint32_t(std::size_t(ty) * tiles_x_ + tx), tile.x - area.x, tile.width, first, last - first);
            }
        }
    }

private:
    std::span<const Region> regions_;
    std::uint32_t tiles_x_ = 0, tiles_y_ = 0;
};

}  // namespace imghist::gpu
