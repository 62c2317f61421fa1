// The SIMD loops of cpu_vector_bins.hpp, an AVX2 and an AVX-512 target function chosen at run
// time by Isa. Written in intrinsics: GCC's vector extensions turned the unsigned compare into
// one scalar compare per lane here (AVX-512 without DQ has no mask-to-vector move).
#include "backends/cpu/cpu_vector_bins.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace imghist::cpu {
namespace {

#if defined(__x86_64__)
// Per lane, as ih_classify_float: bits with -0 folded onto +0; key = bits ^ (sign ? ~0 : 1 << 31)
// (ih_float_key); coded where key - key_from < key_span (unsigned: both ends in one compare);
// scaled = (v - lo) * scale, each rounded once; slot = trunc(scaled) where scaled < bins
// (ordered: NaN is never coded anyway), else last.

[[gnu::target("avx2")]] std::uint32_t code_avx2(const std::byte* p, std::uint32_t n, const VectorBins& vb,
                                                std::uint16_t* codes) {
    const __m256i sign = _mm256_set1_epi32(std::int32_t(0x80000000u));
    const __m256i from = _mm256_set1_epi32(std::int32_t(vb.key_from));
    const __m256i span = _mm256_xor_si256(_mm256_set1_epi32(std::int32_t(vb.key_span)), sign);  // signed compare
    const __m256i last = _mm256_set1_epi32(std::int32_t(vb.last)), uncoded = _mm256_set1_epi32(kUncoded);
    const __m256 lo = _mm256_set1_ps(vb.lo), scale = _mm256_set1_ps(vb.scale), bins = _mm256_set1_ps(vb.bins);
    std::uint32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + std::size_t(i) * 4));
        bits = _mm256_andnot_si256(_mm256_cmpeq_epi32(bits, sign), bits);
        const __m256i key = _mm256_xor_si256(bits, _mm256_or_si256(_mm256_srai_epi32(bits, 31), sign));
        const __m256i simple = _mm256_cmpgt_epi32(span, _mm256_xor_si256(_mm256_sub_epi32(key, from), sign));
        const __m256 scaled = _mm256_mul_ps(_mm256_sub_ps(_mm256_castsi256_ps(bits), lo), scale);
        const __m256i in_bins = _mm256_castps_si256(_mm256_cmp_ps(scaled, bins, _CMP_LT_OQ));
        const __m256 safe = _mm256_and_ps(scaled, _mm256_castsi256_ps(_mm256_and_si256(simple, in_bins)));
        __m256i code = _mm256_blendv_epi8(last, _mm256_cvttps_epi32(safe), in_bins);
        code = _mm256_blendv_epi8(uncoded, code, simple);
        const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(code, code), 0x08);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(codes + i), _mm256_castsi256_si128(packed));
    }
    return i;
}

[[gnu::target("avx512f,avx512bw,avx512vl")]] std::uint32_t code_avx512(const std::byte* p, std::uint32_t n,
                                                                       const VectorBins& vb, std::uint16_t* codes) {
    const __m512i sign = _mm512_set1_epi32(std::int32_t(0x80000000u));
    const __m512i from = _mm512_set1_epi32(std::int32_t(vb.key_from)), span = _mm512_set1_epi32(std::int32_t(vb.key_span));
    const __m512i last = _mm512_set1_epi32(std::int32_t(vb.last)), uncoded = _mm512_set1_epi32(kUncoded);
    const __m512 lo = _mm512_set1_ps(vb.lo), scale = _mm512_set1_ps(vb.scale), bins = _mm512_set1_ps(vb.bins);
    std::uint32_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i bits = _mm512_loadu_si512(p + std::size_t(i) * 4);
        bits = _mm512_maskz_mov_epi32(_mm512_cmpneq_epi32_mask(bits, sign), bits);
        const __m512i key = _mm512_xor_si512(bits, _mm512_or_si512(_mm512_srai_epi32(bits, 31), sign));
        const __mmask16 simple = _mm512_cmplt_epu32_mask(_mm512_sub_epi32(key, from), span);
        const __m512 scaled = _mm512_mul_ps(_mm512_sub_ps(_mm512_castsi512_ps(bits), lo), scale);
        const __mmask16 in_bins = _mm512_cmp_ps_mask(scaled, bins, _CMP_LT_OQ);
        __m512i code = _mm512_mask_mov_epi32(last, in_bins, _mm512_maskz_cvttps_epu32(simple & in_bins, scaled));
        code = _mm512_mask_mov_epi32(uncoded, simple, code);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(codes + i), _mm512_cvtepi32_epi16(code));
    }
    return i;
}
#endif

}  // namespace

std::uint32_t code_uniform_f32(Isa isa, const std::byte* p, std::uint32_t n, const VectorBins& bins,
                               std::uint16_t* codes) {
#if defined(__x86_64__)
    if (bins.key_span == 0) return 0;
    if (isa >= Isa::avx512) return code_avx512(p, n, bins, codes);
    if (isa >= Isa::avx2) return code_avx2(p, n, bins, codes);
#endif
    (void)isa, (void)p, (void)n, (void)bins, (void)codes;
    return 0;
}

}  // namespace imghist::cpu
