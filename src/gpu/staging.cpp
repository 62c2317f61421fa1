#include "gpu/staging.hpp"

#include <algorithm>
#include <cstring>

#include "gpu/copy_pool.hpp"
#include "imghist/error.hpp"

namespace imghist::gpu {

RowPieces split_rows(std::uint64_t height, std::uint64_t row_bytes, std::uint64_t budget_bytes) {
    if (height == 0 || row_bytes == 0) throw InvalidArgument("gpu::split_rows: an image without rows or pixels");
    return {height, std::max<std::uint64_t>(1, rows_that_fit(budget_bytes, row_bytes, height))};
}

void copy_rows(std::byte* dst, std::size_t dst_pitch, const ImageView& image, std::uint32_t first_row,
               std::uint32_t rows, bool streaming) {
    const auto copy = streaming ? copy_streaming : [](void* d, const void* s, std::size_t n) { std::memcpy(d, s, n); };
    const std::size_t row_bytes = image.row_bytes();
    if (image.stride_bytes == row_bytes && dst_pitch == row_bytes) {
        copy(dst, image.row(first_row), std::size_t(rows) * row_bytes);
        return;
    }
    for (std::uint32_t r = 0; r < rows; ++r) copy(dst + std::size_t(r) * dst_pitch, image.row(first_row + r), row_bytes);
}

}  // namespace imghist::gpu
