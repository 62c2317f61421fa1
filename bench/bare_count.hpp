// The bare work of counting Ch samples per pixel of an 8-bit RGBA image on one core: per pixel Ch
// increments (add [counter], 1) into 4 interleaved sub-histograms per channel, and nothing else
// (no classification, no flush, no merge, no library), in the table kernels' order
// (cpu_kernel.hpp, run_of_groups): runs of 16 pixels, channel by channel, Neighbours neighbouring
// pixels into one sub-histogram (4: the 8-bit samples' order on random data; 1, pixel k into
// sub-histogram k % 4: the wider samples', and 8-bit images whose neighbours repeat). With
// Stores, each increment becomes a plain store to the same counter (the stores alone, without
// the loads). Used by imghist_bench's bare-1thread cases and by
// imghist_compare's bound columns: the time of one increment per sample, which no kernel that
// increments a counter per sample goes below.
#pragma once

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "contract/half.h"
#include "imghist/image.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace imghist::bench {

template <int Ch>
using BareCounts = std::uint32_t[4][Ch][288];

// Tells the compiler that every counter at p is read: without it, GCC drops the increments of
// counters the caller never looks at. Step 2's luminance bound read two of its eight
// sub-histograms and so timed two increments in eight (about 2 ms for an 8K image on one core,
// against 7.6-8.4 ms for all of them).
inline void keep_counts(const void* p) { asm volatile("" : : "r"(p) : "memory"); }

template <int Ch, bool Stores, int Neighbours = 4>
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
                    std::uint32_t* n = &counts[k / Neighbours % 4][c][row[(x + k) * 4 + c]];
                    if constexpr (Stores) *n = x;
                    else ++*n;
                }
        for (; x < rgba8.width; ++x)
            for (int c = 0; c < Ch; ++c) ++counts[0][c][row[x * 4 + c]];
    }
    keep_counts(counts);
}

// The bare work of counting the four samples of each pixel of an RGBA float image (f32 or f16)
// through a table indexed by 16 bits of each sample, as the table kernels do (cpu_kernel.hpp:
// Top16Map reads a float's top half, Lut16Map a half): per sample one 16-bit load, one table read
// and one increment, pixel k into sub-histogram k % 4, and nothing else (no test for the
// second-level tables, no runs, no flush). table: 65536 slots below 288, 16-bit (bare_table: the
// smaller of the kernels' two entry widths, so that the table takes the least cache).
inline void bare_table_count_pass(const ImageView& rgba, const std::uint16_t* table, BareCounts<4>& counts) {
    std::memset(counts, 0, sizeof counts);
    const std::size_t sample_bytes = format_info(rgba.format).pixel_bytes() / 4;  // 4 or 2
    const std::size_t top = sample_bytes - 2;  // the top half's byte (little-endian)
    for (std::uint32_t y = 0; y < rgba.height; ++y) {
        const auto* row = reinterpret_cast<const std::uint8_t*>(rgba.row(y)) + top;
        const auto index = [&](std::size_t sample) {
            std::uint16_t v;
            std::memcpy(&v, row + sample * sample_bytes, 2);
            return v;
        };
        std::uint32_t x = 0;
        for (; x + 16 <= rgba.width; x += 16)
#pragma GCC unroll 16
            for (int k = 0; k < 16; ++k)
#pragma GCC unroll 4
                for (int c = 0; c < 4; ++c) ++counts[k % 4][c][table[index(std::size_t(x + k) * 4 + c)]];
        for (; x < rgba.width; ++x)
            for (int c = 0; c < 4; ++c) ++counts[0][c][table[index(std::size_t(x) * 4 + c)]];
    }
    keep_counts(counts);
}

// bare_table_count_pass's table for a float (f32: its top 16 bits; f16: the half): bin
// floor(v * 256) of [0, 1), 256 for any other value (NaN included). Bins of the truncated f32
// are what the kernels' first-level table holds wherever a block holds no edge.
inline std::vector<std::uint16_t> bare_table(bool half) {
    std::vector<std::uint16_t> table(65536);
    for (std::uint32_t i = 0; i < 65536; ++i) {
        const std::uint32_t bits = half ? ih_half_to_float_bits(i) : i << 16;
        float v;
        std::memcpy(&v, &bits, 4);
        table[i] = std::uint16_t(v >= 0.0f && v < 1.0f ? std::uint32_t(v * 256.0f) : 256u);
    }
    return table;
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

// The bare work of a luminance histogram of 8-bit pixels read from memory, on one core, in the
// fused luminance loop's shape (cpu_kernel.hpp, fused_luma) without its arithmetic: steps of 64
// pixels loaded as four 64-byte vectors (prefetched 8 KiB ahead), one byte of each pixel (its
// second) put in place of its luminance by one instruction and stored to a two-step ring, and
// the previous step's 64 bytes counted into 8 interleaved sub-histograms. Needs AVX-512 (VBMI for
// 3-byte pixels: bare_read_and_count_supported). What the fused loop would take if its luminance
// cost nothing.
#if defined(__x86_64__)
#define IMGHIST_BARE_AVX512 "avx512f,avx512bw,avx512vbmi"
// The second byte of each of 64 pixels at p, into out (64 bytes).
template <int PixelBytes>
[[gnu::target(IMGHIST_BARE_AVX512), gnu::always_inline]] inline void second_bytes(const std::uint8_t* p,
                                                                                  std::uint8_t* out,
                                                                                  const std::uint8_t* pick3) {
    for (int q = 0; q < 4; ++q) {
        const __m512i x = _mm512_loadu_si512(p + q * 16 * PixelBytes);  // 16 pixels (3-byte: 48 bytes of 64)
        const __m128i bytes =
            PixelBytes == 4 ? _mm512_cvtepi32_epi8(_mm512_srli_epi32(x, 8))
                            : _mm512_castsi512_si128(_mm512_permutexvar_epi8(_mm512_load_si512(pick3), x));
        _mm_store_si128(reinterpret_cast<__m128i*>(out + 16 * q), bytes);
    }
}

template <int PixelBytes>
[[gnu::target(IMGHIST_BARE_AVX512)]] std::uint32_t bare_read_and_count_avx512(const ImageView& v) {
    alignas(64) std::uint32_t counts[8][288] = {};
    alignas(64) std::uint8_t ring[2][64] = {};
    alignas(64) std::uint8_t pick3[64];  // byte 3k + 1: pixel k's second of a 3-byte vector
    for (int k = 0; k < 64; ++k) pick3[k] = std::uint8_t(k < 16 ? 3 * k + 1 : 0);
    for (std::uint32_t y = 0; y < v.height; ++y) {
        const auto* row = reinterpret_cast<const std::uint8_t*>(v.row(y));
        // a 3-byte step's last load reads 16 bytes past its pixels: 6 more pixels must follow
        const std::uint32_t slack = PixelBytes == 3 ? 6 : 0;
        const std::uint32_t steps = v.width > slack ? (v.width - slack) / 64 : 0;
        if (steps == 0) continue;
        second_bytes<PixelBytes>(row, ring[0], pick3);
        unsigned s = 0;
        for (std::uint32_t i = 0; i < steps; ++i, s ^= 1) {
            if (i + 1 < steps) {
                const std::uint8_t* next = row + std::size_t(i + 1) * 64 * PixelBytes;
                for (int b = 0; b < 64 * PixelBytes; b += 64) __builtin_prefetch(next + 8192 + b);
                second_bytes<PixelBytes>(next, ring[s ^ 1], pick3);
            }
            const std::uint8_t* q = ring[s];
#pragma GCC unroll 64
            for (int k = 0; k < 64; ++k) ++counts[k & 7][q[k]];
        }
        for (std::uint32_t x = steps * 64; x < v.width; ++x) ++counts[0][row[x * PixelBytes + 1]];
    }
    keep_counts(counts);
    return counts[7][255] + counts[0][0];
}
#endif

// Whether this CPU runs bare_read_and_count.
inline bool bare_read_and_count_supported() {
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vbmi");
#else
    return false;
#endif
}

// bare_read_and_count_avx512 for 3- and 4-byte pixels; only where bare_read_and_count_supported().
inline std::uint32_t bare_read_and_count(const ImageView& v) {
#if defined(__x86_64__)
    return format_info(v.format).pixel_bytes() == 3 ? bare_read_and_count_avx512<3>(v)
                                                    : bare_read_and_count_avx512<4>(v);
#else
    (void)v;
    return 0;
#endif
}

}  // namespace imghist::bench
