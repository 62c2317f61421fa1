// The bare work of counting Ch samples per pixel of an 8-bit RGBA image on one core: per pixel Ch
// increments (add [counter], 1) into 4 interleaved sub-histograms per channel, and nothing else
// (no classification, no flush, no merge, no library). With Stores, each increment becomes a
// plain store to the same counter (the stores alone, without the loads). Used by imghist_bench's
// bare-1thread cases and imghist_compare's floor table.
#pragma once

#include <cstdint>
#include <cstring>

#include "imghist/image.hpp"

namespace imghist::bench {

template <int Ch>
using BareCounts = std::uint32_t[4][Ch][288];

template <int Ch, bool Stores>
void bare_count_pass(const ImageView& rgba8, BareCounts<Ch>& counts) {
    std::memset(counts, 0, sizeof counts);
    for (std::uint32_t y = 0; y < rgba8.height; ++y) {
        const std::byte* row = rgba8.row(y);
        std::uint32_t x = 0;
        for (; x + 4 <= rgba8.width; x += 4) {
            std::uint64_t w[2];
            std::memcpy(w, row + std::size_t(x) * 4, 16);
            for (int k = 0; k < 4; ++k) {
                const std::uint64_t px = w[k / 2] >> (32 * (k % 2));
                for (int c = 0; c < Ch; ++c) {
                    std::uint32_t* n = &counts[k][c][(px >> (8 * c)) & 0xFF];
                    if constexpr (Stores) *n = x;
                    else ++*n;
                }
            }
        }
        for (; x < rgba8.width; ++x) {
            const auto* q = reinterpret_cast<const std::uint8_t*>(row + std::size_t(x) * 4);
            for (int c = 0; c < Ch; ++c) ++counts[0][c][q[c]];
        }
    }
}

}  // namespace imghist::bench
