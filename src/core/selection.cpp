#include "core/selection.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "contract/half.h"
#include "contract/selection.h"
#include "imghist/error.hpp"

namespace imghist {

namespace {
std::string size_text(std::uint32_t width, std::uint32_t height) {
    return std::to_string(width) + " x " + std::to_string(height);
}

// Packs row `in` into `out` branch-free: every pixel is copied to the next free place, which
// advances only when keep(pixel, x) holds. PixelBytes is a constant, so each copy is one move.
template <std::size_t PixelBytes, class Keep>
std::size_t pack_row(const std::byte* in, std::uint32_t width, std::byte* out, const Keep& keep) {
    std::size_t n = 0;
    for (std::uint32_t x = 0; x < width; ++x) {
        const std::byte* pixel = in + std::size_t(x) * PixelBytes;
        std::memcpy(out + n * PixelBytes, pixel, PixelBytes);
        n += keep(pixel, x) ? 1 : 0;
    }
    return n;
}

// 8 mask bytes, and whether none of them is zero (all 8 pixels kept).
std::uint64_t mask_group(const std::uint8_t* mask) {
    std::uint64_t m;
    std::memcpy(&m, mask, 8);
    return m;
}
bool all_kept(std::uint64_t m) {
    constexpr std::uint64_t kLow = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
    return ((m - kLow) & ~m & kHigh) == 0;
}

// pack_row for a mask alone, 8 mask bytes at a time: 8 kept pixels are one copy, 8 dropped ones
// none, and only mixed groups go pixel by pixel; painted masks are mostly long runs. With
// `in_place`, a run of whole groups of kept pixels at least `min_run` long is not copied but
// handed to it as (x, n).
template <std::size_t PixelBytes>
std::size_t pack_masked_row(const std::byte* in, const std::uint8_t* mask, std::uint32_t width, std::byte* out,
                            const PixelSelector::RunCounter* in_place = nullptr, std::uint32_t min_run = 0) {
    std::size_t n = 0;
    std::uint32_t x = 0;
    while (x + 8 <= width) {
        const std::uint64_t m = mask_group(mask + x);
        const std::byte* pixels = in + std::size_t(x) * PixelBytes;
        if (m == 0) {
            x += 8;
            continue;
        }
        if (all_kept(m)) {
            std::uint32_t end = x + 8;
            if (in_place)
                while (end + 8 <= width && all_kept(mask_group(mask + end))) end += 8;
            if (in_place && end - x >= min_run) {
                (*in_place)(x, end - x);
            } else {
                std::memcpy(out + n * PixelBytes, pixels, std::size_t(end - x) * PixelBytes);
                n += end - x;
            }
            x = end;
            continue;
        }
        for (std::uint32_t i = 0; i < 8; ++i) {
            std::memcpy(out + n * PixelBytes, pixels + i * PixelBytes, PixelBytes);
            n += mask[x + i] != 0;
        }
        x += 8;
    }
    for (; x < width; ++x) {
        std::memcpy(out + n * PixelBytes, in + std::size_t(x) * PixelBytes, PixelBytes);
        n += mask[x] != 0;
    }
    return n;
}

// f(std::integral_constant<std::size_t, N>{}) for the pixel size N of every format, so that the
// packing loops copy pixels of a constant size.
template <class F>
std::size_t with_pixel_bytes(std::size_t pixel_bytes, const F& f) {
    switch (pixel_bytes) {
        case 1: return f(std::integral_constant<std::size_t, 1>{});
        case 2: return f(std::integral_constant<std::size_t, 2>{});
        case 3: return f(std::integral_constant<std::size_t, 3>{});
        case 4: return f(std::integral_constant<std::size_t, 4>{});
        case 6: return f(std::integral_constant<std::size_t, 6>{});
        case 8: return f(std::integral_constant<std::size_t, 8>{});
        case 12: return f(std::integral_constant<std::size_t, 12>{});
        case 16: return f(std::integral_constant<std::size_t, 16>{});
        default: throw Error("internal error: no pixel of " + std::to_string(pixel_bytes) + " bytes");
    }
}

template <class Keep>
std::size_t pack_row_of(std::size_t pixel_bytes, const std::byte* in, std::uint32_t width, std::byte* out,
                        const Keep& keep) {
    return with_pixel_bytes(pixel_bytes, [&](auto n) { return pack_row<n()>(in, width, out, keep); });
}

template <class T>
T load(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
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
    : image_(image), mask_(request.mask ? &*request.mask : nullptr) {
    validate_selection(request, image.format, image.width, image.height, false);
    alpha_ = alpha_test_of(request.alpha_threshold, image.info().sample);
}

std::size_t PixelSelector::gather_row(std::uint32_t y, std::byte* out, std::uint32_t min_run,
                                      const RunCounter& in_place) const {
    if (alpha_.kind != IH_ALPHA_ALL || mask_ == nullptr) return gather_row(y, out);
    const auto* mask = reinterpret_cast<const std::uint8_t*>(mask_->row(y));
    return with_pixel_bytes(image_.info().pixel_bytes(), [&](auto n) {
        return pack_masked_row<n()>(image_.row(y), mask, image_.width, out, &in_place, min_run);
    });
}

std::size_t PixelSelector::gather_row(std::uint32_t y, std::byte* out) const {
    const FormatInfo& info = image_.info();
    const std::byte* in = image_.row(y);
    const std::uint32_t width = image_.width;
    const auto* mask = mask_ ? reinterpret_cast<const std::uint8_t*>(mask_->row(y)) : nullptr;
    if (alpha_.kind == IH_ALPHA_NOTHING) return 0;
    if (alpha_.kind == IH_ALPHA_ALL)
        return with_pixel_bytes(info.pixel_bytes(), [&](auto n) { return pack_masked_row<n()>(in, mask, width, out); });
    const auto masked = [mask](std::uint32_t x) { return mask == nullptr || mask[x] != 0; };
    const auto passes = [this](std::uint32_t alpha) { return ih_alpha_passes(alpha_.kind, alpha_.least, alpha) != 0; };
    const std::size_t alpha_at = std::size_t(info.alpha) * std::size_t(info.bytes_per_sample);
    switch (info.sample) {
        case SampleType::u8:
            return pack_row_of(info.pixel_bytes(), in, width, out, [&](const std::byte* p, std::uint32_t x) {
                return masked(x) & passes(load<std::uint8_t>(p + alpha_at));
            });
        case SampleType::u16:
            return pack_row_of(info.pixel_bytes(), in, width, out, [&](const std::byte* p, std::uint32_t x) {
                return masked(x) & passes(load<std::uint16_t>(p + alpha_at));
            });
        case SampleType::f16:
            return pack_row_of(info.pixel_bytes(), in, width, out, [&](const std::byte* p, std::uint32_t x) {
                return masked(x) & passes(ih_half_to_float_bits(load<std::uint16_t>(p + alpha_at)));
            });
        case SampleType::f32:
            return pack_row_of(info.pixel_bytes(), in, width, out, [&](const std::byte* p, std::uint32_t x) {
                return masked(x) & passes(load<std::uint32_t>(p + alpha_at));
            });
    }
    return 0;
}

}  // namespace imghist
