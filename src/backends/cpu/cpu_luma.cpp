// The SIMD luminance loops of cpu_luma.hpp, one per instruction set and pixel size, and the
// choice among them (luma8_simd). Each is a target function, chosen at run time by Isa.
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

namespace {

// Each loop: the luminance bytes of pixels [0, n) at p, one step at a time, while a whole
// step's loads stay inside the n pixels. Returns the pixels done.
template <class W, class Lanes>
[[gnu::always_inline]] inline std::uint32_t luma8_loop(const std::byte* p, std::uint32_t n, std::uint8_t* out,
                                                       Luma8Weights w) {
    using Step = Luma8Step<W, Lanes>;
    const Step step(w);
    std::uint32_t i = 0;
    for (; i + Step::kReach <= n; i += Step::kPixels) {
        typename W::Bytes bytes;
        step(p + std::size_t(i) * Lanes::kCpp, bytes);
        W::store(out + i, bytes);
    }
    return i;
}

#if defined(__SSE2__)
struct VecSse2 {
    using I = I32x4;
    using F = F32x4;
    using Bytes = __m128i;
    static constexpr std::uint32_t kLanes = 4;
    struct MulAdd {
        void operator()(const I& a, const I& b, I& sum) const { sum = (I)_mm_madd_epi16((__m128i)a, (__m128i)b); }
    };
    static void pack(const I (&q)[4], __m128i& bytes) {
        const __m128i low = _mm_packs_epi32((__m128i)q[0], (__m128i)q[1]),
                      high = _mm_packs_epi32((__m128i)q[2], (__m128i)q[3]);
        bytes = _mm_packus_epi16(low, high);
    }
    static void store(std::uint8_t* out, const __m128i& bytes) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out), bytes);
    }
};
struct Lanes4Sse2 {
    static constexpr int kCpp = 4, kBytes = 16;
    void operator()(const std::byte* p, I32x4& x) const {
        x = (I32x4)_mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    }
};

[[gnu::flatten]] std::uint32_t luma8_sse2(const std::byte* p, std::uint32_t n, std::uint8_t* out, Luma8Weights w) {
    return luma8_loop<VecSse2, Lanes4Sse2>(p, n, out, w);
}
#endif

#if defined(__x86_64__)
// 4 pixels of 3 bytes (12 of the 16 loaded), spread over 32-bit lanes by a byte shuffle.
struct Lanes3Ssse3 {
    static constexpr int kCpp = 3, kBytes = 16;
    [[gnu::target("ssse3")]] void operator()(const std::byte* p, I32x4& x) const {
        const __m128i spread = _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
        x = (I32x4)_mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), spread);
    }
};

[[gnu::target("ssse3"), gnu::flatten]] std::uint32_t luma8_rgb_ssse3(const std::byte* p, std::uint32_t n,
                                                                     std::uint8_t* out, Luma8Weights w) {
    return luma8_loop<VecSse2, Lanes3Ssse3>(p, n, out, w);
}

[[gnu::target("avx2"), gnu::flatten]] std::uint32_t luma8_avx2(const std::byte* p, std::uint32_t n,
                                                               std::uint8_t* out, Luma8Weights w) {
    return luma8_loop<VecAvx2, Lanes4Avx2>(p, n, out, w);
}

[[gnu::target("avx2"), gnu::flatten]] std::uint32_t luma8_rgb_avx2(const std::byte* p, std::uint32_t n,
                                                                   std::uint8_t* out, Luma8Weights w) {
    return luma8_loop<VecAvx2, Lanes3Avx2>(p, n, out, w);
}

[[gnu::target(IMGHIST_LUMA_AVX512), gnu::flatten]] std::uint32_t luma8_avx512(const std::byte* p, std::uint32_t n,
                                                                        std::uint8_t* out, Luma8Weights w) {
    return luma8_loop<VecAvx512, Lanes4Avx512>(p, n, out, w);
}

[[gnu::target(IMGHIST_LUMA_AVX512), gnu::flatten]] std::uint32_t luma8_rgb_avx512(const std::byte* p, std::uint32_t n,
                                                                            std::uint8_t* out, Luma8Weights w) {
    return luma8_loop<VecAvx512, Lanes3Avx512>(p, n, out, w);
}
#endif

using LoopFn = std::uint32_t (*)(const std::byte*, std::uint32_t, std::uint8_t*, Luma8Weights);
struct Loop {
    Isa isa;
    int cpp;
    LoopFn fn;
};
// Widest first: each takes what the one before it left (row ends, short blocks).
constexpr Loop kLoops[] = {
#if defined(__x86_64__)
    {Isa::avx512, 4, luma8_avx512}, {Isa::avx512, 3, luma8_rgb_avx512}, {Isa::avx2, 4, luma8_avx2},
    {Isa::avx2, 3, luma8_rgb_avx2},  {Isa::ssse3, 3, luma8_rgb_ssse3},
#endif
#if defined(__SSE2__)
    {Isa::sse2, 4, luma8_sse2},
#endif
    {Isa::scalar, 0, nullptr},  // no SIMD loop (keeps the list non-empty)
};

}  // namespace

std::uint32_t luma8_simd(Isa isa, int cpp, const std::byte* p, std::uint32_t n, std::uint8_t* out, Luma8Weights w) {
    std::uint32_t done = 0;
    for (const Loop& loop : kLoops)
        if (loop.cpp == cpp && isa >= loop.isa) done += loop.fn(p + std::size_t(done) * cpp, n - done, out + done, w);
    return done;
}

}  // namespace imghist::cpu
