// Masks and alpha thresholds (docs/semantics.md, "Masks and alpha"): which pixels of an image a
// request counts, and the gather that packs them into rows every backend counts as usual.
#pragma once

#include <cstddef>
#include <cstdint>

#include "imghist/image.hpp"
#include "imghist/request.hpp"

namespace imghist {

// Throws InvalidArgument when the request's mask or alpha threshold cannot apply to an image of
// this format and size: a mask that is not gray8 or not the image's size, a threshold that is
// NaN, or a threshold on a format without alpha.
void validate_selection(const Request& request, PixelFormat format, std::uint32_t width, std::uint32_t height);

// The pixels of `image` that a request's mask and alpha threshold let through, row by row.
class PixelSelector {
public:
    // Validates (validate_selection); `request.mask` covers `image` pixel for pixel.
    PixelSelector(const ImageView& image, const Request& request);
    // Copies the selected pixels of row y, in order and packed, to `out`, which has room for a
    // whole row (ImageView::row_bytes) and the image's sample alignment; returns how many.
    std::size_t gather_row(std::uint32_t y, std::byte* out) const;

private:
    ImageView image_;
    const ImageView* mask_;
    // The alpha test, resolved once: integer samples keep a >= alpha_min_ (alpha_none_: none
    // pass); half and float samples compare their exact value with threshold_.
    bool alpha_ = false, alpha_none_ = false;
    std::uint32_t alpha_min_ = 0;
    double threshold_ = 0;
};

}  // namespace imghist
