// Packed pixel formats (FormatInfo::packed: one 32-bit word of bit fields per pixel) decoded on
// the host, with the contract's decode functions (src/contract/packed.h), into the samples
// they are counted as (counted_as), so that every backend and every host pass (selections,
// extremes, sample statistics) counts the decoded samples alike.
#pragma once

#include <vector>

#include "imghist/image.hpp"

namespace imghist {

class DecodedImage {
public:
    // Decodes every pixel of `packed` (a validated view of a packed format).
    explicit DecodedImage(const ImageView& packed);
    // The decoded pixels: packed rows of counted_as(packed.format), the same size.
    const ImageView& view() const { return view_; }

private:
    std::vector<float> samples_;
    ImageView view_;
};

}  // namespace imghist
