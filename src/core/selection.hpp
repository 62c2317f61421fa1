// Masks and alpha thresholds (docs/semantics.md, "Masks and alpha"): which pixels of an image a
// request counts, and the gather that packs them into rows every backend counts as usual.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

#include "core/cpu_isa.hpp"
#include "imghist/image.hpp"
#include "imghist/request.hpp"

namespace imghist {

// Throws InvalidArgument when the request's mask or alpha threshold cannot apply to an image of
// this format and size: a mask that is not gray8 or not the image's size, a host mask for a
// device image or the other way round, a threshold that is NaN, or one on a format without alpha.
void validate_selection(const Request& request, PixelFormat format, std::uint32_t width, std::uint32_t height,
                        bool device_image);

// Request::alpha_threshold resolved for one sample type: the test of contract/selection.h
// (ih_alpha_passes), which the host and every device apply alike.
struct RowSelection;
struct AlphaTest {
    std::uint32_t kind = 0;   // IH_ALPHA_ALL, _NOTHING, _INT or _KEY
    std::uint32_t least = 0;  // the least passing integer, or the least passing fp32 key
};
AlphaTest alpha_test_of(const std::optional<double>& threshold, SampleType sample);

// The pixels of `image` that a request's mask and alpha threshold let through, row by row.
class PixelSelector {
public:
    // Validates (validate_selection); `request.mask` covers `image` pixel for pixel.
    PixelSelector(const ImageView& image, const Request& request);
    // Copies the selected pixels of row y, in order and packed, to `out`, which has room for a
    // whole row (ImageView::row_bytes) and the image's sample alignment; returns how many. The
    // bytes of `out` past those, within the row's room, may change. By the loops of
    // selection_gather.hpp at the instruction set in effect when the selector was made (cpu_isa.hpp).
    std::size_t gather_row(std::uint32_t y, std::byte* out) const;
    // gather_row, except that runs of at least `min_run` kept pixels (whole windows of 64) are
    // not copied but handed to in_place(x, n), to be counted where they lie; those are not in
    // the returned count.
    using RunCounter = std::function<void(std::uint32_t x, std::uint32_t n)>;
    std::size_t gather_row(std::uint32_t y, std::byte* out, std::uint32_t min_run, const RunCounter& in_place) const;

private:
    RowSelection row_selection(std::uint32_t y) const;
    void prefetch_ahead(std::uint32_t y) const;

    ImageView image_;
    const ImageView* mask_;
    AlphaTest alpha_;
    cpu::Isa level_;
};

}  // namespace imghist
