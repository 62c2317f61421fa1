// The gather of selected pixels (core/selection.hpp), a row 64 pixels at a time: the window's
// kept bits are found with vector compares (the mask's bytes, the alpha samples), then a window
// is skipped (none kept), copied or counted in place (all kept), or its kept pixels are packed
// by compress instructions (AVX-512) or a permute from a table (AVX2). Below AVX2 the same
// windows are done with 64-bit words and one pixel at a time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/cpu_isa.hpp"
#include "core/selection.hpp"

namespace imghist {

// One row of an image as the gather sees it.
struct RowSelection {
    const std::byte* pixels;
    const std::uint8_t* mask;  // the mask's row, or null: no mask
    std::uint32_t width;
    std::size_t pixel_bytes;
    SampleType sample;
    AlphaTest alpha;  // IH_ALPHA_ALL (no threshold), _INT or _KEY; never _NOTHING
};

// PixelSelector::gather_row by the widest loop that `level` allows: the selected pixels of the
// row, packed in order at `out` (which has room for the whole row: the loops store whole vectors
// there, never past that room); where `in_place` is given, runs of whole windows of 64 kept
// pixels at least `min_run` long are handed to it as (x, n) instead. Returns how many pixels it
// packed.
std::size_t gather_row_windows(cpu::Isa level, const RowSelection& row, std::byte* out, std::uint32_t min_run,
                               const PixelSelector::RunCounter* in_place);

}  // namespace imghist
