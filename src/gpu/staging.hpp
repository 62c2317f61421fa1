// The API-free half of staging host pixels for a device: cutting an image's rows into pieces
// that fit a staging budget, and packing rows of a strided view into a staging buffer.
#pragma once

#include <cstddef>
#include <cstdint>

#include "imghist/image.hpp"

namespace imghist::gpu {

// Rows [first, first + rows) of an image.
struct RowRange {
    std::uint64_t first = 0;
    std::uint64_t rows = 0;
};

// `height` rows cut into pieces of `rows_per_piece` rows; the last piece may hold fewer.
struct RowPieces {
    std::uint64_t height = 0;
    std::uint64_t rows_per_piece = 1;

    std::uint64_t count() const { return (height + rows_per_piece - 1) / rows_per_piece; }
    RowRange operator[](std::uint64_t i) const {
        const std::uint64_t first = i * rows_per_piece;
        return {first, height - first < rows_per_piece ? height - first : rows_per_piece};
    }
};

// How many of `rows_left` rows of `row_bytes` (> 0) fit in `budget_bytes`; 0 when not one does.
inline std::uint64_t rows_that_fit(std::uint64_t budget_bytes, std::uint64_t row_bytes, std::uint64_t rows_left) {
    const std::uint64_t fit = budget_bytes / row_bytes;
    return fit < rows_left ? fit : rows_left;
}

// `height` (> 0) rows of `row_bytes` (> 0) in pieces of at most `budget_bytes` each, and at
// least one row each: a row larger than the budget is a piece of its own.
RowPieces split_rows(std::uint64_t height, std::uint64_t row_bytes, std::uint64_t budget_bytes);

// Copies rows [first_row, first_row + rows) of `image` to `dst`, `dst_pitch` (>= row_bytes())
// bytes apart; the bytes between the rows of `dst` are left alone. One copy when both sides
// are packed. With `streaming`, through copy_streaming (copy_pool.hpp): for buffers only DMA reads.
void copy_rows(std::byte* dst, std::size_t dst_pitch, const ImageView& image, std::uint32_t first_row,
               std::uint32_t rows, bool streaming = false);

class CopyPool;
// copy_rows into a packed `dst` on up to `threads` threads of `pool`: a packed image as one
// byte range (CopyPool::copy), padded rows in parts of whole rows of at least
// CopyPool::kMinPart bytes.
void copy_rows(CopyPool& pool, int threads, std::byte* dst, const ImageView& image, std::uint32_t first_row,
               std::uint32_t rows, bool streaming);

}  // namespace imghist::gpu
