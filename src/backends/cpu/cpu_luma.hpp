// Luminance in SIMD: integer luminance of 8-bit pixels of three or four samples (below), and
// float luminance of half and fp32 pixels (luma_float_simd, cpu_luma_float.cpp).
// Integer luminance of 8-bit pixels of three or four samples, in SIMD. The rule is the
// contract's (src/contract/luminance.h): ih_luma_int's exact sum S, then ih_luma8_quotient's
// division-free quotient. It is written here once, in luma8_lanes, over GCC vector types, so
// every loop (SSE2 to AVX-512) compiles the same operations at its own width; what differs is
// only how pixels reach the 32-bit lanes (a load, or a byte shuffle for 3-byte pixels) and how
// the quotients are packed into bytes. The scalar contract functions do everything else (row
// ends, the other formats).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/cpu_isa.hpp"
#include "contract/luminance.h"
#include "imghist/image.hpp"

namespace imghist::cpu {

// The luminance weights of a pixel's bytes 0-3 by the format's colour positions (a byte that
// is no colour, alpha or beyond a 3-byte pixel, weighs 0), paired for the 16-bit multiply-add:
// bytes 0 and 2 (low half: byte 0), and bytes 1 and 3.
struct Luma8Weights {
    std::uint32_t bytes02, bytes13;
};
Luma8Weights luma8_weights(const FormatInfo& fi, const std::uint32_t (&weight_int)[3]);

// The luminance bytes of the first pixels of [0, n) at p (cpp = 3 or 4 bytes each), by the
// widest loop that isa allows, then each narrower one on what is left. Returns the pixels done
// (the caller finishes with the contract's functions). No loop reads past pixel n - 1.
std::uint32_t luma8_simd(Isa isa, int cpp, const std::byte* p, std::uint32_t n, std::uint8_t* out, Luma8Weights w);

// Float luminance (ih_luma_float) of the first pixels of [0, n) at p: fp32 samples, or halves
// (`half`), cpp = 3 or 4 per pixel with the colours at sample indices rgb; with AVX2 and F16C
// (4 samples per pixel, R, G, B first) or AVX-512 (the others), element-wise the contract's IEEE
// single operations. Returns the pixels done (the caller finishes with ih_luma_float); 0 otherwise.
// No loop reads past pixel n - 1.
std::uint32_t luma_float_simd(Isa isa, bool half, int cpp, const int (&rgb)[3], const std::byte* p, std::uint32_t n,
                              float* out, const float (&w)[3]);

typedef std::int32_t I32x4 __attribute__((vector_size(16)));
typedef float F32x4 __attribute__((vector_size(16)));
typedef std::int32_t I32x8 __attribute__((vector_size(32)));
typedef float F32x8 __attribute__((vector_size(32)));
typedef std::int32_t I32x16 __attribute__((vector_size(64)));
typedef float F32x16 __attribute__((vector_size(64)));

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
// hand), then its quotient. Vectors travel by reference: this runs inside SSE2, AVX2 or
// AVX-512 code alike, and a wide vector passed by value outside such a function has another ABI.
template <class F, class I, class MulAdd>
[[gnu::always_inline]] inline void luma8_lanes(const I& pixels, const I& bytes02, const I& bytes13, MulAdd muladd,
                                               I& luma) {
    const I low_bytes = I{} + 0x00FF00FF;
    I sum02, sum13;
    muladd(pixels & low_bytes, bytes02, sum02);
    muladd((pixels >> 8) & low_bytes, bytes13, sum13);
    luma8_quotient_lanes<F>(sum02 + sum13, luma);
}

// One step of a loop: 4 vectors of W::kLanes pixels each (Lanes: how pixels of Lanes::kCpp
// bytes reach the lanes, one load of Lanes::kBytes bytes per vector), their luminance packed
// into W::Bytes in pixel order. The intrinsics live in target functions of W and Lanes; this
// glue is inlined into each loop's target function.
template <class Vec, class Lanes>
struct Luma8Step {
    using W = Vec;
    using I = typename W::I;
    static constexpr int kCpp = Lanes::kCpp;
    static constexpr std::uint32_t kPixels = 4 * W::kLanes;
    // The pixels from p a step may read: its own, and the bytes its last load reads beyond them.
    static constexpr std::uint32_t kReach = ((kPixels - W::kLanes) * kCpp + Lanes::kBytes + kCpp - 1) / kCpp;
    I bytes02, bytes13;

    [[gnu::always_inline]] explicit Luma8Step(Luma8Weights w)
        : bytes02(I{} + std::int32_t(w.bytes02)), bytes13(I{} + std::int32_t(w.bytes13)) {}

    [[gnu::always_inline]] void operator()(const std::byte* p, typename W::Bytes& bytes) const {
        I q[4];
        for (int k = 0; k < 4; ++k) {
            I x;
            Lanes{}(p + std::size_t(k * W::kLanes * kCpp), x);
            luma8_lanes<typename W::F>(x, bytes02, bytes13, typename W::MulAdd{}, q[k]);
        }
        W::pack(q, bytes);
    }
};

#if defined(__x86_64__)
// The AVX2 and AVX-512 widths, also for the kernel's fused loop (cpu_kernel.hpp, fused_luma).
struct VecAvx2 {
    using I = I32x8;
    using F = F32x8;
    using Bytes = __m256i;
    static constexpr std::uint32_t kLanes = 8;
    struct MulAdd {
        [[gnu::target("avx2")]] void operator()(const I& a, const I& b, I& sum) const {
            sum = (I)_mm256_madd_epi16((__m256i)a, (__m256i)b);
        }
    };
    // Packs work per 128-bit lane; the permute restores pixel order.
    [[gnu::target("avx2")]] static void pack(const I (&q)[4], __m256i& bytes) {
        const __m256i low = _mm256_packus_epi32((__m256i)q[0], (__m256i)q[1]),
                      high = _mm256_packus_epi32((__m256i)q[2], (__m256i)q[3]);
        bytes = _mm256_packus_epi16(low, high);
        bytes = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    }
    [[gnu::target("avx2")]] static void store(std::uint8_t* out, const __m256i& bytes) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), bytes);
    }
    // For the fused loop: whether all 32 bytes equal the first (returned in
    // `first`), and the bytes as 4 words.
    [[gnu::target("avx2")]] static bool uniform(const __m256i& bytes, std::uint32_t& first) {
        first = std::uint32_t(_mm256_extract_epi8(bytes, 0));
        return _mm256_movemask_epi8(_mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(char(first)))) == -1;
    }
    [[gnu::target("avx2")]] static void words(const __m256i& bytes, std::uint64_t* q) {
        q[0] = std::uint64_t(_mm256_extract_epi64(bytes, 0));
        q[1] = std::uint64_t(_mm256_extract_epi64(bytes, 1));
        q[2] = std::uint64_t(_mm256_extract_epi64(bytes, 2));
        q[3] = std::uint64_t(_mm256_extract_epi64(bytes, 3));
    }
};
// 8 pixels of 4 bytes: as they are.
struct Lanes4Avx2 {
    static constexpr int kCpp = 4, kBytes = 32;
    [[gnu::target("avx2")]] void operator()(const std::byte* p, I32x8& x) const {
        x = (I32x8)_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    }
};
// 8 pixels of 3 bytes (24 of the 32 bytes loaded): pixels 4-7 move to the upper 128-bit lane,
// then each lane's byte shuffle spreads its 4 pixels over 32-bit lanes (byte 3 zero).
struct Lanes3Avx2 {
    static constexpr int kCpp = 3, kBytes = 32;
    [[gnu::target("avx2")]] void operator()(const std::byte* p, I32x8& x) const {
        const __m256i v = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)),
                                                      _mm256_setr_epi32(0, 1, 2, 0, 3, 4, 5, 0));
        const __m256i spread = _mm256_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1,  //
                                                0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
        x = (I32x8)_mm256_shuffle_epi8(v, spread);
    }
};
// The luminance bytes of 32 pixels of CPP bytes per step.
template <int CPP>
using Luma8Avx2 = Luma8Step<VecAvx2, std::conditional_t<CPP == 4, Lanes4Avx2, Lanes3Avx2>>;

#define IMGHIST_LUMA_AVX512 "avx512f,avx512bw,avx512vbmi"
struct VecAvx512 {
    using I = I32x16;
    using F = F32x16;
    using Bytes = __m512i;
    static constexpr std::uint32_t kLanes = 16;
    struct MulAdd {
        [[gnu::target(IMGHIST_LUMA_AVX512)]] void operator()(const I& a, const I& b, I& sum) const {
            sum = (I)_mm512_madd_epi16((__m512i)a, (__m512i)b);
        }
    };
    // Packs work per 128-bit lane: dword 4L + k of the result is pixels 4L..4L+3 of q[k].
    [[gnu::target(IMGHIST_LUMA_AVX512)]] static void pack(const I (&q)[4], __m512i& bytes) {
        const __m512i low = _mm512_packus_epi32((__m512i)q[0], (__m512i)q[1]),
                      high = _mm512_packus_epi32((__m512i)q[2], (__m512i)q[3]);
        bytes = _mm512_packus_epi16(low, high);
        const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
        bytes = _mm512_permutexvar_epi32(order, bytes);
    }
    [[gnu::target(IMGHIST_LUMA_AVX512)]] static void store(std::uint8_t* out, const __m512i& bytes) {
        _mm512_storeu_si512(out, bytes);
    }
    // For the fused loop: whether all 64 bytes equal the first, and the bytes
    // as 8 words.
    [[gnu::target(IMGHIST_LUMA_AVX512)]] static bool uniform(const __m512i& bytes, std::uint32_t& first) {
        first = std::uint32_t(_mm_extract_epi8(_mm512_castsi512_si128(bytes), 0));
        return _mm512_cmpneq_epi8_mask(bytes, _mm512_set1_epi8(char(first))) == 0;
    }
    [[gnu::target(IMGHIST_LUMA_AVX512)]] static void words(const __m512i& bytes, std::uint64_t* q) {
        const __m256i low = _mm512_castsi512_si256(bytes), high = _mm512_extracti64x4_epi64(bytes, 1);
        VecAvx2::words(low, q);
        VecAvx2::words(high, q + 4);
    }
};
struct Lanes4Avx512 {
    static constexpr int kCpp = 4, kBytes = 64;
    [[gnu::target(IMGHIST_LUMA_AVX512)]] void operator()(const std::byte* p, I32x16& x) const {
        x = (I32x16)_mm512_loadu_si512(p);
    }
};
// 16 pixels of 3 bytes (48 of the 64 loaded): one byte permute (vpermb) spreads them over
// 32-bit lanes, its zero mask clearing byte 3.
struct Spread3 {
    alignas(64) std::uint8_t index[64];
};
inline constexpr Spread3 kSpread3 = [] {
    Spread3 s{};
    for (int i = 0; i < 64; ++i) s.index[i] = std::uint8_t(i % 4 == 3 ? 0 : 3 * (i / 4) + i % 4);
    return s;
}();
struct Lanes3Avx512 {
    static constexpr int kCpp = 3, kBytes = 64;
    [[gnu::target(IMGHIST_LUMA_AVX512)]] void operator()(const std::byte* p, I32x16& x) const {
        x = (I32x16)_mm512_maskz_permutexvar_epi8(0x7777777777777777ull, _mm512_load_si512(kSpread3.index),
                                                  _mm512_loadu_si512(p));
    }
};
// The luminance bytes of 64 pixels of CPP bytes per step.
template <int CPP>
using Luma8Avx512 = Luma8Step<VecAvx512, std::conditional_t<CPP == 4, Lanes4Avx512, Lanes3Avx512>>;
#endif

}  // namespace imghist::cpu
