#include "core/selection.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

#include "contract/half.h"
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

// pack_row for a mask alone, 8 mask bytes at a time: 8 kept pixels are one copy, 8 dropped ones
// none, and only mixed groups go pixel by pixel; painted masks are mostly long runs.
template <std::size_t PixelBytes>
std::size_t pack_masked_row(const std::byte* in, const std::uint8_t* mask, std::uint32_t width, std::byte* out) {
    constexpr std::uint64_t kLow = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
    std::size_t n = 0;
    std::uint32_t x = 0;
    for (; x + 8 <= width; x += 8) {
        std::uint64_t m;
        std::memcpy(&m, mask + x, 8);
        const std::byte* pixels = in + std::size_t(x) * PixelBytes;
        if (m == 0) continue;
        if (((m - kLow) & ~m & kHigh) == 0) {  // no zero byte: all 8 kept
            std::memcpy(out + n * PixelBytes, pixels, 8 * PixelBytes);
            n += 8;
            continue;
        }
        for (std::uint32_t i = 0; i < 8; ++i) {
            std::memcpy(out + n * PixelBytes, pixels + i * PixelBytes, PixelBytes);
            n += mask[x + i] != 0;
        }
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
}  // namespace

void validate_selection(const Request& request, PixelFormat format, std::uint32_t width, std::uint32_t height) {
    if (request.mask) {
        const ImageView& m = *request.mask;
        if (m.format != PixelFormat::gray8)
            throw InvalidArgument("a mask must be gray8 (one 8-bit sample a pixel; non-zero counts), not " +
                                  std::string(m.info().name));
        m.validate();
        if (m.width != width || m.height != height)
            throw InvalidArgument("the mask is " + size_text(m.width, m.height) + " pixels, the image " +
                                  size_text(width, height) + ": a mask must be the image's size");
    }
    if (request.alpha_threshold) {
        if (std::isnan(*request.alpha_threshold)) throw InvalidArgument("the alpha threshold is NaN");
        if (format_info(format).alpha < 0)
            throw InvalidArgument("an alpha threshold needs a format with alpha; " +
                                  std::string(format_info(format).name) + " has none");
    }
}

PixelSelector::PixelSelector(const ImageView& image, const Request& request)
    : image_(image), mask_(request.mask ? &*request.mask : nullptr) {
    validate_selection(request, image.format, image.width, image.height);
    if (!request.alpha_threshold) return;
    alpha_ = true;
    threshold_ = *request.alpha_threshold;
    const SampleType sample = image.info().sample;
    if (sample == SampleType::u8 || sample == SampleType::u16) {
        // An integer a is above T exactly when a >= floor(T) + 1 (every a when T < 0).
        const double largest = sample == SampleType::u8 ? 255 : 65535;
        alpha_none_ = threshold_ >= largest;
        alpha_min_ = alpha_none_ || threshold_ < 0 ? 0 : std::uint32_t(std::floor(threshold_)) + 1;
    }
}

std::size_t PixelSelector::gather_row(std::uint32_t y, std::byte* out) const {
    const FormatInfo& info = image_.info();
    const std::byte* in = image_.row(y);
    const std::uint32_t width = image_.width;
    const auto* mask = mask_ ? reinterpret_cast<const std::uint8_t*>(mask_->row(y)) : nullptr;
    if (alpha_none_) return 0;
    const auto masked = [mask](std::uint32_t x) { return mask == nullptr || mask[x] != 0; };
    if (!alpha_)
        return with_pixel_bytes(info.pixel_bytes(), [&](auto n) { return pack_masked_row<n()>(in, mask, width, out); });
    const std::size_t alpha_at = std::size_t(info.alpha) * std::size_t(info.bytes_per_sample);
    switch (info.sample) {
        case SampleType::u8:
            return pack_row_of(info.pixel_bytes(), in, width, out, [&](const std::byte* p, std::uint32_t x) {
                return masked(x) & (std::uint32_t(load<std::uint8_t>(p + alpha_at)) >= alpha_min_);
            });
        case SampleType::u16:
            return pack_row_of(info.pixel_bytes(), in, width, out, [&](const std::byte* p, std::uint32_t x) {
                return masked(x) & (std::uint32_t(load<std::uint16_t>(p + alpha_at)) >= alpha_min_);
            });
        case SampleType::f16:
            return pack_row_of(info.pixel_bytes(), in, width, out, [&](const std::byte* p, std::uint32_t x) {
                const float a = std::bit_cast<float>(ih_half_to_float_bits(load<std::uint16_t>(p + alpha_at)));
                return masked(x) & (double(a) > threshold_);
            });
        case SampleType::f32:
            return pack_row_of(info.pixel_bytes(), in, width, out, [&](const std::byte* p, std::uint32_t x) {
                return masked(x) & (double(load<float>(p + alpha_at)) > threshold_);
            });
    }
    return 0;
}

}  // namespace imghist
