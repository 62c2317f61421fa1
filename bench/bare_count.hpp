// The bare work of counting Ch samples per pixel of an 8-bit RGBA image on one core: per pixel Ch
// increments (add [counter], 1) into 4 interleaved sub-histograms per channel, and nothing else
// (no classification, no flush, no merge, no library), in the table kernels' order
// (cpu_kernel.hpp, run_of_groups): runs of 16 pixels, channel by channel, 4 neighbouring pixels
// into one sub-histogram. With Stores, each increment becomes a plain store to the same counter
// (the stores alone, without the loads). Used by imghist_bench's bare-1thread cases and by
// imghist_compare's bound columns: the time of one increment per sample, which no kernel that
// increments a counter per sample goes below.
#pragma once

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "imghist/image.hpp"

namespace imghist::bench {

template <int Ch>
using BareCounts = std::uint32_t[4][Ch][288];

// Tells the compiler that every counter at p is read: without it, GCC drops the increments of
// counters the caller never looks at. Step 2's luminance bound read two of its eight
// sub-histograms and so timed two increments in eight (about 2 ms for an 8K image on one core,
// against 7.6-8.4 ms for all of them).
inline void keep_counts(const void* p) { asm volatile("" : : "r"(p) : "memory"); }

template <int Ch, bool Stores>
void bare_count_pass(const ImageView& rgba8, BareCounts<Ch>& counts) {
    std::memset(counts, 0, sizeof counts);
    for (std::uint32_t y = 0; y < rgba8.height; ++y) {
        const auto* row = reinterpret_cast<const std::uint8_t*>(rgba8.row(y));
        std::uint32_t x = 0;
        for (; x + 16 <= rgba8.width; x += 16)
#pragma GCC unroll 4
            for (int c = 0; c < Ch; ++c)
#pragma GCC unroll 16
                for (int k = 0; k < 16; ++k) {
                    std::uint32_t* n = &counts[k / 4][c][row[(x + k) * 4 + c]];
                    if constexpr (Stores) *n = x;
                    else ++*n;
                }
        for (; x < rgba8.width; ++x)
            for (int c = 0; c < Ch; ++c) ++counts[0][c][row[x * 4 + c]];
    }
    keep_counts(counts);
}

// The bare work of counting one 8-bit value per pixel (a luminance image, computed before) on
// `threads` threads, each over its share of the values into 8 interleaved sub-histograms of its
// own, as the fused luminance loop does (cpu_kernel.hpp): the increments alone of a luminance
// histogram. Returns a count, so that the loop cannot be optimised away.
inline std::uint32_t bare_count_values(const std::uint8_t* values, std::size_t n, unsigned threads) {
    std::vector<std::uint32_t> last(threads, 0);
    const auto count = [&](unsigned t) {
        alignas(64) std::uint32_t counts[8][288] = {};
        const std::size_t begin = n * t / threads, end = n * (t + 1) / threads;
        std::size_t i = begin;
        for (; i + 8 <= end; i += 8)
#pragma GCC unroll 8
            for (int k = 0; k < 8; ++k) ++counts[k][values[i + std::size_t(k)]];
        for (; i < end; ++i) ++counts[0][values[i]];
        keep_counts(counts);
        last[t] = counts[7][255] + counts[0][0];
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(count, t);
    count(0);
    for (auto& th : pool) th.join();
    std::uint32_t sum = 0;
    for (const std::uint32_t v : last) sum += v;
    return sum;
}

// The bare work of a luminance histogram of 8-bit pixels read from memory: every cache line of the
// image read once, prefetched 8 KiB ahead as the fused luminance loop does, and one increment per
// pixel (of its second byte) into 8 interleaved sub-histograms per thread; no luminance
// arithmetic. What no luminance kernel goes below on `threads` threads: it must read the pixels
// and count one value each. Rows are shared out between the threads.
template <int PixelBytes>
std::uint32_t bare_read_and_count_rows(const ImageView& v, unsigned threads) {
    std::vector<std::uint32_t> last(threads, 0);
    const auto count = [&](unsigned t) {
        alignas(64) std::uint32_t counts[8][288] = {};
        const std::uint32_t y0 = std::uint32_t(std::uint64_t(v.height) * t / threads);
        const std::uint32_t y1 = std::uint32_t(std::uint64_t(v.height) * (t + 1) / threads);
        for (std::uint32_t y = y0; y < y1; ++y) {
            const auto* row = reinterpret_cast<const std::uint8_t*>(v.row(y));
            const auto* next = reinterpret_cast<const std::uint8_t*>(v.row(y + 1 < y1 ? y + 1 : y));
            const std::size_t bytes = std::size_t(v.width) * PixelBytes;
            std::uint32_t x = 0;
            for (; x + 64 <= v.width; x += 64) {
                // 8 KiB ahead, into the next row at the row's end
                const std::size_t ahead = std::size_t(x) * PixelBytes + 8192;
                for (int l = 0; l < PixelBytes; ++l) {
                    const std::size_t at = ahead + std::size_t(l) * 64;
                    __builtin_prefetch(at < bytes ? row + at : next + (at - bytes), 0, 3);
                }
#pragma GCC unroll 8
                for (int k = 0; k < 64; ++k) ++counts[k & 7][row[(x + std::uint32_t(k)) * PixelBytes + 1]];
            }
            for (; x < v.width; ++x) ++counts[0][row[x * PixelBytes + 1]];
        }
        keep_counts(counts);
        last[t] = counts[7][255] + counts[0][0];
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(count, t);
    count(0);
    for (auto& th : pool) th.join();
    std::uint32_t sum = 0;
    for (const std::uint32_t v : last) sum += v;
    return sum;
}

// bare_read_and_count_rows for 3- and 4-byte pixels.
inline std::uint32_t bare_read_and_count(const ImageView& v, unsigned threads) {
    return format_info(v.format).pixel_bytes() == 3 ? bare_read_and_count_rows<3>(v, threads)
                                                    : bare_read_and_count_rows<4>(v, threads);
}

}  // namespace imghist::bench
