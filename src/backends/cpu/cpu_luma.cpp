#include "backends/cpu/cpu_luma.hpp"

namespace imghist::cpu {

Luma8Weights luma8_weights(const FormatInfo& fi, const std::uint32_t (&weight_int)[3]) {
    const auto at = [&](int byte) -> std::uint32_t {
        if (byte == fi.red) return weight_int[0];
        if (byte == fi.green) return weight_int[1];
        if (byte == fi.blue) return weight_int[2];
        return 0;
    };
    return {(at(2) << 16) | at(0), (at(3) << 16) | at(1)};
}

#if defined(__SSE2__)
std::uint32_t luma8_sse2(const std::byte* p, std::uint32_t n, std::uint8_t* out, Luma8Weights w) {
    const I32x4 bytes02 = I32x4{} + std::int32_t(w.bytes02), bytes13 = I32x4{} + std::int32_t(w.bytes13);
    std::uint32_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i q[4];
        for (int k = 0; k < 4; ++k) {
            const auto x = (I32x4)_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + std::size_t(i + 4 * k) * 4));
            I32x4 luma;
            luma8_lanes<F32x4>(x, bytes02, bytes13, MulAddSse2{}, luma);
            q[k] = (__m128i)luma;
        }
        const __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(q[0], q[1]), _mm_packs_epi32(q[2], q[3]));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), bytes);
    }
    return i;
}
#endif

#if defined(__x86_64__)
const bool kHaveAvx2 = [] {
    __builtin_cpu_init();  // may run before libgcc's own constructor
    return __builtin_cpu_supports("avx2") != 0;
}();

[[gnu::target("avx2")]] std::uint32_t luma8_avx2(const std::byte* p, std::uint32_t n, std::uint8_t* out,
                                                 Luma8Weights w) {
    const Luma8Avx2 luma(w);
    std::uint32_t i = 0;
    for (; i + 32 <= n; i += 32)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), luma(p + std::size_t(i) * 4));
    return i;
}
#endif

}  // namespace imghist::cpu
