// The quotient of 8-bit integer luminance, floor(S / 10000), from fp32 without a division:
// S = wr*r + wg*g + wb*b <= 255 * 10000 < 2^22 (the weights sum to 10000), so S + 0.5 is exact
// in fp32. fl(1/10000) and the product each add at most 2^-24 relative error, so the computed
// (S + 0.5) / 10000 is within 1.2e-7 * 255.00005 < 3.1e-5 of the true value, whose fractional
// part lies in [0.00005, 0.99995]: truncation therefore gives floor(S / 10000) exactly, for
// every S in range. The SIMD loops of cpu_backend.cpp compute exactly this (the same IEEE
// single operations, element-wise); tests/test_reference.cpp checks it against ih_luma_int's
// division for every S in [0, 2550000].
#pragma once

#include <cstdint>

namespace imghist::cpu_detail {

inline constexpr std::uint32_t kMaxLumaSum = 255u * 10000u;
inline constexpr float kLumaReciprocal = 1.0f / 10000.0f;

inline std::uint32_t luma_quotient(std::uint32_t sum) {
    return std::uint32_t((float(sum) + 0.5f) * kLumaReciprocal);
}

}  // namespace imghist::cpu_detail
