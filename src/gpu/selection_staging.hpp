// Masks and alpha thresholds of host images, for a backend that stages host pixels through
// chunks of its own (CUDA's pinned buffers): the copy threads gather the selected pixels straight
// into the chunk where they would otherwise copy the rows. API-free, so tests run it anywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpu/copy_pool.hpp"

namespace imghist {
class PixelSelector;
}

namespace imghist::gpu {

// Chunks are cut into parts of whole rows, one per copy thread; each part's selected pixels are
// packed from a 256-byte boundary of their own, in the room of the part's rows (which the gather
// may write into past its last pixel).
class SelectionStager {
public:
    // The pixels one part kept, packed from `offset` bytes into the chunk.
    struct Part {
        std::size_t offset = 0;
        std::uint64_t pixels = 0;
    };

    // For the rows of `selector`'s image, `row_bytes` each, gathered by up to `most_threads`.
    SelectionStager(const PixelSelector& selector, std::size_t row_bytes, std::size_t pixel_bytes, int most_threads);

    // How many of `rows_left` rows a chunk with `room` bytes left (from a 256-byte boundary)
    // takes, each part after the first starting up to 255 bytes further on; 0 when not one does.
    std::uint32_t rows_that_fit(std::size_t room, std::uint32_t rows_left) const;
    // The parts `rows` rows are cut into (at most most_threads, each at least CopyPool::kMinPart
    // bytes of rows where there are enough).
    std::uint32_t parts_for(std::uint32_t rows) const;

    // Gathers rows [first, first + rows) (rows_that_fit of the chunk's room) into `chunk` on
    // `pool`, and appends the parts that kept a pixel to `kept`. Returns where the last kept pixel
    // ends in the chunk (0 when none was kept).
    std::size_t gather(CopyPool& pool, std::uint32_t first, std::uint32_t rows, std::byte* chunk, std::vector<Part>& kept);

private:
    const PixelSelector& selector_;
    std::size_t row_bytes_, pixel_bytes_;
    std::uint32_t most_threads_;
    std::vector<Part> parts_;  // this gather's parts, kept or not
};

}  // namespace imghist::gpu
