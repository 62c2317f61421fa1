// Prefetching the rows of a view ahead of a loop over them, where the hardware does not: the
// short rows of a wider image (a tile's, a roi's) each start in another page, and the
// hardware's prefetch does not cross pages, so it starts over at every row (8K RGBA8 R,G,B with
// 32 x 32 tiles, 2 threads: 34.5-37.6 -> 24.6-26.5 ms with this; docs/performance.md).
#pragma once

#include <cstddef>
#include <cstdint>

#include "imghist/image.hpp"

namespace imghist {

// How far ahead of a sequential pass its bytes are asked for, where the pass's own reads leave
// the hardware's prefetch behind: the cpu kernels' fused luminance loop and the gather of an
// alpha test (8K RGBA8 luminance, one thread, medians: none 15.8-17.2 ms, 2 KiB 12.9-14.3,
// 4 KiB 11.5-15.1, 8 KiB 11.5-13.6; docs/performance.md).
inline constexpr std::size_t kStreamPrefetchBytes = 8192;

// Asks for the `bytes` bytes kStreamPrefetchBytes after `p` (which may lie past the data: a
// prefetch never faults). The gather calls it; the fused luminance loop keeps its own loop over
// a constant count, which the compiler unrolls (through this function RGBA8 luminance measured
// 13.7-15.8 ms against 11.0 on one thread).
inline void prefetch_stream_ahead(const std::byte* p, std::size_t bytes) {
    for (std::size_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + kStreamPrefetchBytes + b);
}

// Rows up to this many bytes are prefetched: a longer one gives the hardware a page to ramp up in.
inline constexpr std::size_t kPrefetchRowBytes = 4096;

// Asks for `bytes` bytes from byte `offset` of row y + 2 of `view`, when the view's rows are
// short and not contiguous and that row exists.
inline void prefetch_row_ahead(const ImageView& view, std::uint32_t y, std::size_t offset, std::size_t bytes) {
    if (bytes > kPrefetchRowBytes || view.stride_bytes <= view.row_bytes() || y + 2 >= view.height) return;
    const std::byte* ahead = view.row(y + 2) + offset;
    for (std::size_t b = 0; b < bytes; b += 64) __builtin_prefetch(ahead + b);
}

}  // namespace imghist
