#include "core/selection.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "contract/selection.h"
#include "core/prefetch.hpp"
#include "core/selection_gather.hpp"
#include "imghist/error.hpp"

namespace imghist {

namespace {
std::string size_text(std::uint32_t width, std::uint32_t height) {
    return std::to_string(width) + " x " + std::to_string(height);
}

void check_mask(const char* what, PixelFormat mask_format, std::uint32_t mask_width, std::uint32_t mask_height,
                std::uint32_t width, std::uint32_t height) {
    if (mask_format != PixelFormat::gray8)
        throw InvalidArgument(std::string(what) + " must be gray8 (one 8-bit sample a pixel; non-zero counts), not " +
                              std::string(format_info(mask_format).name));
    if (mask_width != width || mask_height != height)
        throw InvalidArgument("the mask is " + size_text(mask_width, mask_height) + " pixels, the image " +
                              size_text(width, height) + ": a mask must be the image's size");
}
}  // namespace

void validate_selection(const Request& request, PixelFormat format, std::uint32_t width, std::uint32_t height,
                        bool device_image) {
    if (request.mask && device_image)
        throw InvalidArgument("the image is in device memory but the mask in host memory: pass the mask as "
                              "Request::device_mask, in the same device's memory");
    if (request.device_mask && !device_image)
        throw InvalidArgument("the image is in host memory but the mask in device memory: pass the mask as "
                              "Request::mask, in host memory");
    if (request.mask) {
        request.mask->validate();
        check_mask("a mask", request.mask->format, request.mask->width, request.mask->height, width, height);
    }
    if (request.device_mask) {
        request.device_mask->validate();
        check_mask("a device mask", request.device_mask->format, request.device_mask->width,
                   request.device_mask->height, width, height);
    }
    if (request.alpha_threshold) {
        if (std::isnan(*request.alpha_threshold)) throw InvalidArgument("the alpha threshold is NaN");
        if (format_info(format).alpha < 0)
            throw InvalidArgument("an alpha threshold needs a format with alpha; " +
                                  std::string(format_info(format).name) + " has none");
    }
}

AlphaTest alpha_test_of(const std::optional<double>& threshold, SampleType sample) {
    if (!threshold) return {IH_ALPHA_ALL, 0};
    const double t = *threshold;
    if (sample == SampleType::u8 || sample == SampleType::u16) {
        // An integer a is above T exactly when a >= floor(T) + 1 (every a when T < 0).
        const double largest = sample == SampleType::u8 ? 255 : 65535;
        if (t >= largest) return {IH_ALPHA_NOTHING, 0};
        return {IH_ALPHA_INT, t < 0 ? 0u : std::uint32_t(std::floor(t)) + 1};
    }
    // Half values are fp32 values too, so one fp32 bound serves both: the largest fp32 f <= T
    // (rounded toward -Inf from the double), then the next fp32 up is the least above T.
    if (t == std::numeric_limits<double>::infinity()) return {IH_ALPHA_NOTHING, 0};
    float f = float(t);
    if (double(f) > t) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
    const float least = std::nextafter(f, std::numeric_limits<float>::infinity());
    return {IH_ALPHA_KEY, ih_float_key(std::bit_cast<std::uint32_t>(least))};
}

PixelSelector::PixelSelector(const ImageView& image, const Request& request)
    : image_(image), mask_(request.mask ? &*request.mask : nullptr), level_(cpu::isa()) {
    validate_selection(request, image.format, image.width, image.height, false);
    alpha_ = alpha_test_of(request.alpha_threshold, image.info().sample);
}

std::size_t PixelSelector::gather_row(std::uint32_t y, std::byte* out, std::uint32_t min_run,
                                      const RunCounter& in_place) const {
    if (alpha_.kind == IH_ALPHA_NOTHING) return 0;
    prefetch_ahead(y);
    return gather_row_windows(level_, row_selection(y), out, min_run, &in_place);
}

std::size_t PixelSelector::gather_row(std::uint32_t y, std::byte* out) const {
    if (alpha_.kind == IH_ALPHA_NOTHING) return 0;
    prefetch_ahead(y);
    return gather_row_windows(level_, row_selection(y), out, 0, nullptr);
}

// Rows are gathered in order: the short rows of a tile are prefetched, pixels and mask.
void PixelSelector::prefetch_ahead(std::uint32_t y) const {
    prefetch_row_ahead(image_, y, 0, image_.row_bytes());
    if (mask_) prefetch_row_ahead(*mask_, y, 0, mask_->row_bytes());
}

RowSelection PixelSelector::row_selection(std::uint32_t y) const {
    const FormatInfo& info = image_.info();
    return RowSelection{image_.row(y), mask_ ? reinterpret_cast<const std::uint8_t*>(mask_->row(y)) : nullptr,
                        image_.width, info.pixel_bytes(), info.sample, alpha_};
}

}  // namespace imghist
