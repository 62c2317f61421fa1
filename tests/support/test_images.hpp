// Generated and adversarial test images, shared by every backend's tests and the benchmarks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "imghist/image.hpp"
#include "imghist/request.hpp"

namespace imghist::testing {

enum class Pattern {
    random,            // uniform over the format's values (floats mostly in [0, 1))
    natural,           // smooth gradients plus noise
    constant,          // every pixel the same
    bank_adversarial,  // values only from {b, b+32, ..., b+224}: all lanes hit one memory bank
    specials,          // float specials: NaN, +-Inf, -0, denormals, k/256 +- 1 ulp, > 1, < 0;
                       // for integer formats, the extreme values 0 and max mixed with random
};
const char* pattern_name(Pattern p);
inline constexpr Pattern all_patterns[] = {Pattern::random, Pattern::natural, Pattern::constant,
                                           Pattern::bank_adversarial, Pattern::specials};

// An image that owns its pixels. Rows are `padding_bytes` longer than needed (a padded
// stride) and the padding is filled with 0xA5 so a backend that reads it miscounts.
struct TestImage {
    std::vector<std::byte> storage;
    ImageView view;
};

TestImage make_image(PixelFormat format, std::uint32_t width, std::uint32_t height, Pattern pattern,
                     std::uint64_t seed = 1, std::size_t padding_bytes = 0);

// An rgba_f32 image (8 rows, packed) of every edge of `edges` and the floats beside it, the
// floats on both sides of each start of the blocks of 2^11, 2^12, 2^14 and 2^16 floats between the
// first and last edge (the GPU code windows' blocks), float specials (no denormals), and random
// values in [0, 1): at least `samples` samples.
TestImage values_around_edges(const std::vector<double>& edges, std::size_t samples = 40000);

// The requests every backend is checked with for a format: default, alpha + Rec. 601, custom
// luma weights, 4096 custom bins with and without clamp, the power-of-two shift path, and a
// small odd range.
std::vector<std::pair<std::string, Request>> parity_requests(const FormatInfo& info);

// The formats a HistogramPlan, an image in device memory (the interop calls) and a batch take:
// every format but the packed ones, which compute() decodes on the host before any plan.
std::vector<PixelFormat> plan_pixel_formats();

// Sample `sample` (0 = R, 1 = G, 2 = B) of a b10g11r11_ufloat pixel, decoded by hand from the
// format's definition (not the library's decoding): NaN for every NaN code.
float packed_sample_by_hand(std::uint32_t word, int sample);
// Sample `sample` of pixel (x, y) of a view of a packed format, by packed_sample_by_hand.
float packed_sample_by_hand(const ImageView& view, std::uint32_t x, std::uint32_t y, int sample);

// The names of the compiled backends with a usable device here, in registry order.
std::vector<std::string> available_backend_names();

// Round-to-nearest-even float -> half bits (only used to build test data).
std::uint16_t float_to_half(float f);

// Sizes that catch edge handling: 1x1, 1xN, Nx1, widths not a multiple of 4/16/work-group.
struct Size {
    std::uint32_t width, height;
};
std::vector<Size> awkward_sizes();

}  // namespace imghist::testing
