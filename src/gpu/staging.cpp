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

void copy_rows(CopyPool& pool, int threads, std::byte* dst, const ImageView& image, std::uint32_t first_row,
               std::uint32_t rows, bool streaming) {
    const std::size_t row_bytes = image.row_bytes();
    if (image.stride_bytes == row_bytes || rows == 1) {
        pool.copy(dst, image.row(first_row), std::size_t(rows) * row_bytes, threads, streaming);
        return;
    }
    const auto parts = std::uint32_t(std::clamp<std::uint64_t>(std::uint64_t(rows) * row_bytes / CopyPool::kMinPart, 1,
                                                               std::min<std::uint64_t>(rows, std::uint64_t(std::max(threads, 1)))));
    const std::uint32_t per = (rows + parts - 1) / parts;
    pool.run(int(parts), int(parts), [&](int p) {
        const std::uint32_t r0 = std::uint32_t(p) * per;
        if (r0 >= rows) return;
        copy_rows(dst + std::size_t(r0) * row_bytes, row_bytes, image, first_row + r0, std::min(per, rows - r0), streaming);
    });
}

}  // namespace imghist::gpu
