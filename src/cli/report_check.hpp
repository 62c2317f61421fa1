// The rules every entry imghist writes in a report follows (a result or a sum), checked by
// imghist merge so that a report edited by hand or written by another tool is refused rather
// than summed into numbers no image gave.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "imghist/imghist.hpp"

namespace imghist::cli {

// What an entry says it counted, beside its histograms.
struct EntryPixels {
    // The pixels every channel counted exactly (a result's region or counted_pixels, a sum's
    // counted_pixels), or, when only a bound is known (a sum of results with a --roi), the
    // most they can have counted.
    std::uint64_t counted = 0;
    bool exact = true;
};

// Throws MergeInputError naming `where` when `r` breaks a rule: its channels are not those one
// request gives every one of `formats` (R, G, B [A] Y in that order, or a gray image's one
// channel), its channels are counted in different layouts, or a channel's samples (binned,
// below, above, NaN) or clipped counts do not match the pixels. `r`'s counts must add up to
// 64 bits.
void check_entry(const Result& r, const std::vector<PixelFormat>& formats, const EntryPixels& pixels,
                 const std::string& where);

}  // namespace imghist::cli
