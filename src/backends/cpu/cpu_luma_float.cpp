// Float luminance in SIMD (cpu_luma.hpp: luma_float_simd): ih_luma_float's operations, (wr*r +
// wg*g) + wb*b with every one rounded on its own, written once in luma_float_lanes over GCC
// vector types, so that a loop computes exactly what the contract does; the library builds with
// -ffp-contract=off, so no multiply and add fuse. Halves widen to fp32 exactly (vcvtph2ps), as
// half_to_float does. AVX2 takes pixels of four samples, AVX-512 those of three; below, the
// scalar code does all.
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "backends/cpu/cpu_luma.hpp"

namespace imghist::cpu {
namespace {

template <class F>
[[gnu::always_inline]] inline void luma_float_lanes(const F& r, const F& g, const F& b, const F (&w)[3], F& y) {
    const F pr = w[0] * r, pg = w[1] * g, pb = w[2] * b;
    y = (pr + pg) + pb;
}

#if defined(__x86_64__)
// AVX2, pixels of 4 samples with R, G, B first (the float kernels' one colour order), 8 pixels a
// step: a 4x4 transpose per 128-bit lane gives R, G and B of pixels 0, 2, 4, 6, 1, 3, 5, 7, and
// one permute puts the luminance back in pixel order.
template <bool kHalf>
[[gnu::target("avx2,f16c"), gnu::flatten]] std::uint32_t luma_float_avx2(const std::byte* p, std::uint32_t n,
                                                                         float* out, const float (&weights)[3]) {
    const F32x8 w[3] = {F32x8{} + weights[0], F32x8{} + weights[1], F32x8{} + weights[2]};
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    std::uint32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const std::byte* q = p + std::size_t(i) * 4 * (kHalf ? 2 : 4);
        __m256 v[4];  // pixels 2k and 2k + 1
        for (int k = 0; k < 4; ++k) {
            if constexpr (kHalf) v[k] = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q + 16 * k)));
            else v[k] = _mm256_loadu_ps(reinterpret_cast<const float*>(q + 32 * k));
        }
        const __m256 rg01 = _mm256_unpacklo_ps(v[0], v[1]), ba01 = _mm256_unpackhi_ps(v[0], v[1]);
        const __m256 rg23 = _mm256_unpacklo_ps(v[2], v[3]), ba23 = _mm256_unpackhi_ps(v[2], v[3]);
        const F32x8 r = (F32x8)_mm256_shuffle_ps(rg01, rg23, 0x44), g = (F32x8)_mm256_shuffle_ps(rg01, rg23, 0xEE),
                    b = (F32x8)_mm256_shuffle_ps(ba01, ba23, 0x44);
        F32x8 y;
        luma_float_lanes(r, g, b, w, y);
        _mm256_storeu_ps(out + i, _mm256_permutevar8x32_ps((__m256)y, order));
    }
    return i;
}

#define IMGHIST_AVX512 "avx512f,avx512bw,avx512vbmi"
// 16 pixels a step: their cpp * 16 samples as fp32 in cpp vectors (loaded, or halves widened),
// then each colour's 16 samples pulled out of them by two two-source permutes and a blend.
// (Gathers instead were 3x slower than the scalar code on this machine's Zen 5 guest.)
template <bool kHalf>
[[gnu::target(IMGHIST_AVX512), gnu::flatten]] std::uint32_t luma_float_avx512(int cpp, const int (&rgb)[3],
                                                                             const std::byte* p, std::uint32_t n,
                                                                             float* out, const float (&weights)[3]) {
    const F32x16 w[3] = {F32x16{} + weights[0], F32x16{} + weights[1], F32x16{} + weights[2]};
    __m512i low[3], high[3];  // lane j of colour k: sample rgb[k] + j * cpp of the 16 pixels
    __mmask16 from_high[3];   // the lanes whose sample is in vectors 2 and 3
    for (int k = 0; k < 3; ++k) {
        alignas(64) std::int32_t index[16];
        std::uint32_t mask = 0;
        for (int j = 0; j < 16; ++j) {
            index[j] = (rgb[k] + j * cpp) % 32;
            if (rgb[k] + j * cpp >= 32) mask |= 1u << j;
        }
        low[k] = high[k] = _mm512_load_si512(index);
        from_high[k] = __mmask16(mask);
    }
    const std::size_t step_bytes = std::size_t(cpp) * 16 * (kHalf ? 2 : 4);
    std::uint32_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const std::byte* q = p + std::size_t(i / 16) * step_bytes;
        __m512 v[4];
        for (int k = 0; k < 4; ++k) {
            if (k >= cpp) {
                v[k] = v[cpp - 1];
            } else if constexpr (kHalf) {
                v[k] = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 32 * k)));
            } else {
                v[k] = _mm512_loadu_ps(q + 64 * k);
            }
        }
        F32x16 c[3];
        for (int k = 0; k < 3; ++k) {
            const __m512 a = _mm512_permutex2var_ps(v[0], low[k], v[1]);
            const __m512 b = _mm512_permutex2var_ps(v[2], high[k], v[3]);
            c[k] = (F32x16)_mm512_mask_blend_ps(from_high[k], a, b);
        }
        F32x16 y;
        luma_float_lanes(c[0], c[1], c[2], w, y);
        _mm512_storeu_ps(out + i, (__m512)y);
    }
    return i;
}
#undef IMGHIST_AVX512
#endif

}  // namespace

std::uint32_t luma_float_simd(Isa isa, bool half, int cpp, const int (&rgb)[3], const std::byte* p, std::uint32_t n,
                              float* out, const float (&w)[3]) {
#if defined(__x86_64__)
    // The AVX2 transpose first, where it applies: on RGBA it beat the AVX-512 permutes (8K f16
    // luminance, one thread: 22-25 against 38-39 ms; f32 27-29 against 32-42).
    if (isa >= Isa::avx2 && cpp == 4 && rgb[0] == 0 && rgb[1] == 1 && rgb[2] == 2)
        return (half ? luma_float_avx2<true> : luma_float_avx2<false>)(p, n, out, w);
    if (isa >= Isa::avx512) return (half ? luma_float_avx512<true> : luma_float_avx512<false>)(cpp, rgb, p, n, out, w);
#endif
    (void)isa, (void)half, (void)cpp, (void)rgb, (void)p, (void)n, (void)out, (void)w;
    return 0;
}

}  // namespace imghist::cpu
