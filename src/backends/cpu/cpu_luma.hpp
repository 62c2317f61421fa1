// Integer luminance of 8-bit pixels of four samples, in SIMD. The rule is the contract's
// (src/contract/luminance.h): ih_luma_int's exact sum S, then ih_luma8_quotient's division-free
// quotient. It is written here once, in luma8_lanes, over GCC vector types, so the SSE2 loop
// and the AVX2 loops compile the same operations at their own width; the scalar contract
// functions do everything else (row ends, the other formats).
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "contract/luminance.h"
#include "imghist/image.hpp"

namespace imghist::cpu {

// The luminance weights of a 4-byte pixel's bytes, by the format's colour positions (a byte
// that is no colour, alpha, weighs 0), paired for the 16-bit multiply-add: bytes 0 and 2
// (low half: byte 0), and bytes 1 and 3.
struct Luma8Weights {
    std::uint32_t bytes02, bytes13;
};
Luma8Weights luma8_weights(const FormatInfo& fi, const std::uint32_t (&weight_int)[3]);

typedef std::int32_t I32x4 __attribute__((vector_size(16)));
typedef float F32x4 __attribute__((vector_size(16)));
typedef std::int32_t I32x8 __attribute__((vector_size(32)));
typedef float F32x8 __attribute__((vector_size(32)));

// ih_luma8_quotient of each lane: the same IEEE single operations, element-wise. S <=
// IH_LUMA8_MAX_SUM < 2^31, so signed lanes convert exactly (and the signed conversion is the
// single instruction).
template <class F, class I>
[[gnu::always_inline]] inline void luma8_quotient_lanes(const I& sum, I& quotient) {
    const F s = __builtin_convertvector(sum, F);
    quotient = __builtin_convertvector((s + 0.5f) * IH_LUMA8_RECIPROCAL, I);
}

// The luminance of one pixel per 32-bit lane: S = the sum of each byte times its weight, as
// two pairwise 16-bit multiply-adds into 32 bits (MulAdd: pmaddwd of the instruction set at
// hand), then its quotient. Vectors travel by reference: this runs inside SSE2 or AVX2 code
// alike, and a 32-byte vector passed by value outside an AVX function has another ABI.
template <class F, class I, class MulAdd>
[[gnu::always_inline]] inline void luma8_lanes(const I& pixels, const I& bytes02, const I& bytes13, MulAdd muladd,
                                               I& luma) {
    const I low_bytes = I{} + 0x00FF00FF;
    I sum02, sum13;
    muladd(pixels & low_bytes, bytes02, sum02);
    muladd((pixels >> 8) & low_bytes, bytes13, sum13);
    luma8_quotient_lanes<F>(sum02 + sum13, luma);
}

#if defined(__SSE2__)
struct MulAddSse2 {
    void operator()(const I32x4& a, const I32x4& b, I32x4& sum) const {
        sum = (I32x4)_mm_madd_epi16((__m128i)a, (__m128i)b);
    }
};
// The luminance bytes of pixels [0, n) at p, 16 at a time. Returns the pixels done.
std::uint32_t luma8_sse2(const std::byte* p, std::uint32_t n, std::uint8_t* out, Luma8Weights w);
#endif

#if defined(__x86_64__)
// Where the CPU has AVX2 (chosen at run time; the build targets baseline x86-64).
extern const bool kHaveAvx2;

struct MulAddAvx2 {
    [[gnu::target("avx2")]] void operator()(const I32x8& a, const I32x8& b, I32x8& sum) const {
        sum = (I32x8)_mm256_madd_epi16((__m256i)a, (__m256i)b);
    }
};

// The luminance bytes of 32 pixels at a time, in pixel order.
struct Luma8Avx2 {
    I32x8 bytes02, bytes13;

    [[gnu::target("avx2")]] explicit Luma8Avx2(Luma8Weights w)
        : bytes02(I32x8{} + std::int32_t(w.bytes02)), bytes13(I32x8{} + std::int32_t(w.bytes13)) {}

    [[gnu::target("avx2"), gnu::always_inline]] inline __m256i operator()(const std::byte* p) const {
        __m256i q[4];
        for (int k = 0; k < 4; ++k) {
            const auto x = (I32x8)_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + std::size_t(8 * k) * 4));
            I32x8 luma;
            luma8_lanes<F32x8>(x, bytes02, bytes13, MulAddAvx2{}, luma);
            q[k] = (__m256i)luma;
        }
        // Packs work per 128-bit lane; the permute restores pixel order.
        const __m256i bytes = _mm256_packus_epi16(_mm256_packus_epi32(q[0], q[1]), _mm256_packus_epi32(q[2], q[3]));
        return _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    }
};
// The luminance bytes of pixels [0, n) at p, 32 at a time. Returns the pixels done.
std::uint32_t luma8_avx2(const std::byte* p, std::uint32_t n, std::uint8_t* out, Luma8Weights w);
#endif

}  // namespace imghist::cpu
