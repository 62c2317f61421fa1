#include "core/selection_gather.hpp"

#include <array>
#include <bit>
#include <cstring>

#include "contract/half.h"
#include "contract/selection.h"
#include "core/prefetch.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace imghist {
namespace {

constexpr std::uint32_t kWindow = 64;  // pixels whose kept bits are one 64-bit word

// Bit i: the contract's alpha test (ih_alpha_passes) passes for the alpha sample at
// p + i * stride, read by bits_of as the test takes it.
template <std::uint32_t Kind, class AlphaBits>
std::uint64_t alpha_loop_of(const std::byte* p, std::size_t stride, std::uint32_t count, std::uint32_t least,
                            const AlphaBits& bits_of) {
    const auto passes = [&](std::uint32_t i) {
        return std::uint64_t(ih_alpha_passes(Kind, least, bits_of(p + std::size_t(i) * stride)));
    };
    std::uint64_t keep = 0;
    std::uint32_t i = 0;
    for (; i + 8 <= count; i += 8) {  // 8 bits with constant shifts, then one variable shift
        std::uint64_t byte = 0;
#pragma GCC unroll 8
        for (std::uint32_t k = 0; k < 8; ++k) byte |= passes(i + k) << k;
        keep |= byte << i;
    }
    for (; i < count; ++i) keep |= passes(i) << i;
    return keep;
}
template <class AlphaBits>
std::uint64_t alpha_loop(const std::byte* p, std::size_t stride, std::uint32_t count, const AlphaTest& test,
                         const AlphaBits& bits_of) {
    // The test's kind is the same for every pixel: a loop for each, with the kind a constant.
    if (test.kind == IH_ALPHA_INT) return alpha_loop_of<IH_ALPHA_INT>(p, stride, count, test.least, bits_of);
    return alpha_loop_of<IH_ALPHA_KEY>(p, stride, count, test.least, bits_of);
}
std::uint64_t alpha_one_by_one(const RowSelection& r, std::uint32_t x, std::uint32_t count) {
    const std::byte* p = r.pixels + std::size_t(x) * r.pixel_bytes + 3 * (r.pixel_bytes / 4);  // alpha: sample 3 of 4
    const auto u16 = [](const std::byte* a) {
        std::uint16_t v;
        std::memcpy(&v, a, 2);
        return v;
    };
    switch (r.sample) {
        case SampleType::u8:
            return alpha_loop(p, r.pixel_bytes, count, r.alpha, [](const std::byte* a) { return std::to_integer<std::uint32_t>(*a); });
        case SampleType::u16: return alpha_loop(p, r.pixel_bytes, count, r.alpha, [&](const std::byte* a) { return std::uint32_t(u16(a)); });
        case SampleType::f16:
            return alpha_loop(p, r.pixel_bytes, count, r.alpha, [&](const std::byte* a) { return ih_half_to_float_bits(u16(a)); });
        case SampleType::f32:
            return alpha_loop(p, r.pixel_bytes, count, r.alpha, [](const std::byte* a) {
                std::uint32_t v;
                std::memcpy(&v, a, 4);
                return v;
            });
    }
    return 0;
}

// The last pixels of a row (fewer than a window), one by one: bit i says whether pixel x + i is kept.
std::uint64_t kept_one_by_one(const RowSelection& r, std::uint32_t x, std::uint32_t count) {
    std::uint64_t keep = count == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << count) - 1;
    if (r.mask)
        for (std::uint32_t i = 0; i < count; ++i)
            if (r.mask[x + i] == 0) keep &= ~(std::uint64_t(1) << i);
    if (r.alpha.kind != IH_ALPHA_ALL) keep &= alpha_one_by_one(r, x, count);
    return keep;
}

// Packs the pixels of `count` whose bits are set, branch-free: each is copied to the next free
// place, which advances only for a kept one.
template <std::size_t P>
std::size_t pack_one_by_one(const std::byte* src, std::uint64_t keep, std::uint32_t count, std::byte* out) {
    std::size_t n = 0;
    for (std::uint32_t i = 0; i < count; ++i, keep >>= 1) {
        std::memcpy(out + n * P, src + std::size_t(i) * P, P);
        n += keep & 1;
    }
    return n;
}

// An alpha threshold for the vector compares: the least passing integer shifted to the alpha
// sample's place in its lane (alpha is the top sample of a 4-sample pixel), or the least passing
// float. For floats, ih_alpha_passes (not NaN, ih_float_key(a) >= least) is an ordered IEEE
// a >= least: the keys order non-NaN values as IEEE does, and fold -0 onto +0 as IEEE equality does.
struct AlphaBound {
    std::uint64_t shifted_int;
    float least_float;
};
AlphaBound alpha_bound(const RowSelection& r) {
    AlphaBound b{0, 0.0f};
    if (r.alpha.kind == IH_ALPHA_INT) b.shifted_int = std::uint64_t(r.alpha.least) << (r.sample == SampleType::u8 ? 24 : 48);
    if (r.alpha.kind == IH_ALPHA_KEY) b.least_float = std::bit_cast<float>(ih_float_bits_of_key(r.alpha.least));
    return b;
}

// Below AVX2: the mask's bytes 8 at a time (a byte's top bit set where it is not zero, then the
// 8 top bits gathered by one multiply), the alpha test and the packing one pixel at a time.
struct Portable {
    static std::uint64_t mask_bits(const std::uint8_t* m) {
        constexpr std::uint64_t kLow7 = 0x7F7F7F7F7F7F7F7Full, kHigh = 0x8080808080808080ull;
        std::uint64_t w[kWindow / 8], nonzero[kWindow / 8], any = 0, all = kHigh;
        std::memcpy(w, m, sizeof w);
        for (unsigned j = 0; j < kWindow / 8; ++j) {
            nonzero[j] = (((w[j] & kLow7) + kLow7) | w[j]) & kHigh;
            any |= nonzero[j];
            all &= nonzero[j];
        }
        if (all == kHigh) return ~std::uint64_t(0);  // painted masks: mostly whole windows
        if (any == 0) return 0;
        std::uint64_t keep = 0;
        for (unsigned j = 0; j < kWindow / 8; ++j) keep |= ((nonzero[j] >> 7) * 0x0102040810204080ull >> 56) << (8 * j);
        return keep;
    }
    template <std::size_t P>
    static std::uint64_t alpha_bits(const RowSelection& r, std::uint32_t x, const AlphaBound&) {
        return alpha_one_by_one(r, x, kWindow);
    }
    // The kept pixels only, found by their bits: noise masks and alpha thresholds keep about half.
    template <std::size_t P>
    static std::size_t compress(const std::byte* src, std::uint64_t keep, std::byte* out) {
        std::size_t n = 0;
        for (; keep != 0; keep &= keep - 1, ++n) std::memcpy(out + n * P, src + std::size_t(std::countr_zero(keep)) * P, P);
        return n;
    }
};

#if defined(__x86_64__)
#define IH_SEL_AVX2 "avx2,bmi,bmi2,popcnt,f16c"
#define IH_SEL_AVX512 IH_SEL_AVX2 ",avx512f,avx512bw,avx512vl,avx512vbmi2"

// The dword indices that move the dwords of a 256-bit vector whose bits are set to its front:
// byte k of entry m is the index of the k-th set bit of m.
struct CompressTable {
    std::array<std::uint64_t, 256> index;
};
constexpr CompressTable kCompress8 = [] {
    CompressTable t{};
    for (unsigned m = 0; m < 256; ++m) {
        unsigned k = 0;
        for (unsigned i = 0; i < 8; ++i)
            if (m >> i & 1) t.index[m] |= std::uint64_t(i) << (8 * k++);
    }
    return t;
}();

struct Avx2 {
    // Bit i: mask byte i is not zero.
    [[gnu::target(IH_SEL_AVX2)]] static std::uint64_t mask_bits(const std::uint8_t* m) {
        const __m256i zero = _mm256_setzero_si256();
        const auto lo = std::uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i*)m), zero)));
        const auto hi =
            std::uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i*)(m + 32)), zero)));
        return ~(std::uint64_t(hi) << 32 | lo);
    }
    // Bit i: pixel i's alpha passes (whole window).
    template <std::size_t P>
    [[gnu::target(IH_SEL_AVX2)]] static std::uint64_t alpha_bits(const RowSelection& r, std::uint32_t x, const AlphaBound& b) {
        const std::byte* p = r.pixels + std::size_t(x) * P;
        std::uint64_t keep = 0;
        if constexpr (P == 4) {  // 8-bit: the top byte of each dword; a >= least as a > least - 1
            const __m256i bound = _mm256_set1_epi32(int(r.alpha.least) - 1);
            for (unsigned j = 0; j < 8; ++j) {
                const __m256i a = _mm256_srli_epi32(_mm256_loadu_si256((const __m256i*)(p + 32 * j)), 24);
                keep |= std::uint64_t(unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(a, bound))))) << (8 * j);
            }
            return keep;
        } else if constexpr (P == 16) {  // fp32: dword 3 of 4
            const __m256 least = _mm256_set1_ps(b.least_float);
            for (unsigned j = 0; j < 32; ++j) {
                const auto m = unsigned(_mm256_movemask_ps(
                    _mm256_cmp_ps(_mm256_loadu_ps((const float*)(p + 32 * j)), least, _CMP_GE_OQ)));
                keep |= std::uint64_t((m >> 3 & 1) | (m >> 6 & 2)) << (2 * j);
            }
            return keep;
        } else {
            if (r.sample == SampleType::u16) {  // the top 16 bits of each qword
                const __m256i bound = _mm256_set1_epi64x(std::int64_t(r.alpha.least) - 1);
                for (unsigned j = 0; j < 16; ++j) {
                    const __m256i a = _mm256_srli_epi64(_mm256_loadu_si256((const __m256i*)(p + 32 * j)), 48);
                    keep |= std::uint64_t(unsigned(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(a, bound)))))
                            << (4 * j);
                }
                return keep;
            }
            return alpha_one_by_one(r, x, kWindow);
        }
    }
    // Packs the kept pixels of a whole window; returns how many. Stores whole vectors: the
    // bytes past the packed ones, up to the window's own room, may change.
    template <std::size_t P>
    [[gnu::target(IH_SEL_AVX2)]] static std::size_t compress(const std::byte* src, std::uint64_t keep, std::byte* out) {
        if constexpr (P == 4 || P == 8 || P == 16) {
            constexpr unsigned kPixels = 32 / P;  // per vector
            std::byte* at = out;
            for (unsigned j = 0; j < kWindow / kPixels; ++j) {
                const auto bits = std::uint32_t(keep >> (kPixels * j)) & ((1u << kPixels) - 1);
                // a pixel's bit over its dwords
                const std::uint32_t dwords = P == 4 ? bits : P == 8 ? _pdep_u32(bits, 0x55u) * 3u : _pdep_u32(bits, 0x11u) * 15u;
                const __m256i index = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(std::int64_t(kCompress8.index[dwords])));
                const __m256i v = _mm256_loadu_si256((const __m256i*)(src + 32 * j));
                _mm256_storeu_si256((__m256i*)at, _mm256_permutevar8x32_epi32(v, index));
                at += std::size_t(std::popcount(bits)) * P;
            }
            return std::size_t(at - out) / P;
        } else {
            return pack_one_by_one<P>(src, keep, kWindow, out);
        }
    }
};

struct Avx512 {
    [[gnu::target(IH_SEL_AVX512)]] static std::uint64_t mask_bits(const std::uint8_t* m) {
        const __m512i v = _mm512_loadu_si512(m);
        return _mm512_test_epi8_mask(v, v);
    }
    template <std::size_t P>
    [[gnu::target(IH_SEL_AVX512)]] static std::uint64_t alpha_bits(const RowSelection& r, std::uint32_t x, const AlphaBound& b) {
        const std::byte* p = r.pixels + std::size_t(x) * P;
        std::uint64_t keep = 0;
        if constexpr (P == 4) {  // 8-bit: a dword >= least << 24 exactly when its top byte >= least
            const __m512i bound = _mm512_set1_epi32(int(std::uint32_t(b.shifted_int)));
            for (unsigned j = 0; j < 4; ++j)
                keep |= std::uint64_t(_mm512_cmpge_epu32_mask(_mm512_loadu_si512(p + 64 * j), bound)) << (16 * j);
        } else if constexpr (P == 16) {  // fp32: dword 3 of 4
            const __m512 least = _mm512_set1_ps(b.least_float);
            for (unsigned j = 0; j < 16; ++j) {
                const unsigned m = _mm512_cmp_ps_mask(_mm512_loadu_ps(p + 64 * j), least, _CMP_GE_OQ);
                keep |= std::uint64_t(_pext_u32(m, 0x8888u)) << (4 * j);
            }
        } else if (r.sample == SampleType::u16) {  // the top 16 bits of each qword
            const __m512i bound = _mm512_set1_epi64(std::int64_t(b.shifted_int));
            for (unsigned j = 0; j < 8; ++j)
                keep |= std::uint64_t(_mm512_cmpge_epu64_mask(_mm512_loadu_si512(p + 64 * j), bound)) << (8 * j);
        } else {  // half: the top 16 bits of each qword, widened exactly to fp32
            const __m256 least = _mm256_set1_ps(b.least_float);
            for (unsigned j = 0; j < 8; ++j) {
                const __m128i halves = _mm512_cvtepi64_epi16(_mm512_srli_epi64(_mm512_loadu_si512(p + 64 * j), 48));
                keep |= std::uint64_t(_mm256_cmp_ps_mask(_mm256_cvtph_ps(halves), least, _CMP_GE_OQ)) << (8 * j);
            }
        }
        return keep;
    }
    template <std::size_t P>
    [[gnu::target(IH_SEL_AVX512)]] static std::size_t compress(const std::byte* src, std::uint64_t keep, std::byte* out) {
        std::byte* at = out;
        if constexpr (P == 1) {
            _mm512_storeu_si512(at, _mm512_maskz_compress_epi8(keep, _mm512_loadu_si512(src)));
            at += std::popcount(keep);
        } else if constexpr (P == 2) {
            for (unsigned j = 0; j < 2; ++j) {
                const auto bits = __mmask32(keep >> (32 * j));
                _mm512_storeu_si512(at, _mm512_maskz_compress_epi16(bits, _mm512_loadu_si512(src + 64 * j)));
                at += 2 * std::popcount(std::uint32_t(bits));
            }
        } else if constexpr (P == 4) {
            for (unsigned j = 0; j < 4; ++j) {
                const auto bits = __mmask16(keep >> (16 * j));
                _mm512_storeu_si512(at, _mm512_maskz_compress_epi32(bits, _mm512_loadu_si512(src + 64 * j)));
                at += 4 * std::popcount(unsigned(bits));
            }
        } else if constexpr (P == 8 || P == 16) {
            constexpr unsigned kPixels = 64 / P;  // per vector
            for (unsigned j = 0; j < kWindow / kPixels; ++j) {
                const auto bits = std::uint32_t(keep >> (kPixels * j)) & ((1u << kPixels) - 1);
                const auto qwords = __mmask8(P == 8 ? bits : _pdep_u32(bits, 0x55u) * 3u);
                _mm512_storeu_si512(at, _mm512_maskz_compress_epi64(qwords, _mm512_loadu_si512(src + 64 * j)));
                at += std::size_t(std::popcount(bits)) * P;
            }
        } else {
            return pack_one_by_one<P>(src, keep, kWindow, out);
        }
        return std::size_t(at - out) / P;
    }
};

#endif

// The row, a window of 64 pixels at a time: their kept bits (Simd's compares), then nothing
// (none kept), one copy or a run counted in place (all kept), or Simd's compress (some kept).
// The last pixels, fewer than a window, one by one.
template <std::size_t P, class Simd>
[[gnu::always_inline]] inline std::size_t gather_windows(const RowSelection& r, std::byte* out, std::uint32_t min_run,
                                                         const PixelSelector::RunCounter* in_place) {
    const AlphaBound bound = alpha_bound(r);
    const auto kept = [&](std::uint32_t x) {
        std::uint64_t keep = r.mask ? Simd::mask_bits(r.mask + x) : ~std::uint64_t(0);
        if (r.alpha.kind != IH_ALPHA_ALL && keep != 0) keep &= Simd::template alpha_bits<P>(r, x, bound);
        return keep;
    };
    const std::uint32_t whole = r.width / kWindow * kWindow;
    // An alpha test reads every pixel, so the pixels ahead are asked for (8K, 2 threads,
    // alpha > 1/2, rgba8 / rgba_f32: AVX2 15.4-16.1 -> 13.6-13.8 / 51.8-53.3 -> 42.4-42.6 ms,
    // SSE2 40.2 -> 23.2-23.8 / 68.9-71.2 -> 47.1-48.0; docs/performance.md). A mask alone skips
    // whole windows, whose prefetched pixels would be read for nothing (a disc mask on rgba_f32:
    // 34-36 -> 37-38 ms when every window was prefetched).
    const bool prefetch = r.alpha.kind != IH_ALPHA_ALL;
    std::size_t n = 0;
    std::uint32_t x = 0;
    while (x < whole) {
        if (prefetch) prefetch_stream_ahead(r.pixels + std::size_t(x) * P, kWindow * P);
        const std::uint64_t keep = kept(x);
        if (keep == 0) {
            x += kWindow;
            continue;
        }
        const std::byte* src = r.pixels + std::size_t(x) * P;
        if (keep == ~std::uint64_t(0)) {
            std::uint32_t end = x + kWindow;
            if (in_place)
                while (end < whole && kept(end) == ~std::uint64_t(0)) end += kWindow;
            if (in_place && end - x >= min_run) {
                (*in_place)(x, end - x);
            } else {
                std::memcpy(out + n * P, src, std::size_t(end - x) * P);
                n += end - x;
            }
            x = end;
            continue;
        }
        n += Simd::template compress<P>(src, keep, out + n * P);
        x += kWindow;
    }
    if (x < r.width)
        n += pack_one_by_one<P>(r.pixels + std::size_t(x) * P, kept_one_by_one(r, x, r.width - x), r.width - x,
                                out + n * P);
    return n;
}

template <class Simd>
[[gnu::always_inline]] inline std::size_t gather_with(const RowSelection& r, std::byte* out, std::uint32_t min_run,
                                                      const PixelSelector::RunCounter* in_place) {
    switch (r.pixel_bytes) {
        case 1: return gather_windows<1, Simd>(r, out, min_run, in_place);
        case 2: return gather_windows<2, Simd>(r, out, min_run, in_place);
        case 3: return gather_windows<3, Simd>(r, out, min_run, in_place);
        case 4: return gather_windows<4, Simd>(r, out, min_run, in_place);
        case 6: return gather_windows<6, Simd>(r, out, min_run, in_place);
        case 8: return gather_windows<8, Simd>(r, out, min_run, in_place);
        case 12: return gather_windows<12, Simd>(r, out, min_run, in_place);
        default: return gather_windows<16, Simd>(r, out, min_run, in_place);
    }
}

#if defined(__x86_64__)
[[gnu::target(IH_SEL_AVX2), gnu::flatten]] std::size_t gather_avx2(const RowSelection& r, std::byte* out, std::uint32_t min_run,
                                                     const PixelSelector::RunCounter* in_place) {
    return gather_with<Avx2>(r, out, min_run, in_place);
}
[[gnu::target(IH_SEL_AVX512), gnu::flatten]] std::size_t gather_avx512(const RowSelection& r, std::byte* out, std::uint32_t min_run,
                                                         const PixelSelector::RunCounter* in_place) {
    return gather_with<Avx512>(r, out, min_run, in_place);
}

#endif

}  // namespace

std::size_t gather_row_windows(cpu::Isa level, const RowSelection& row, std::byte* out, std::uint32_t min_run,
                               const PixelSelector::RunCounter* in_place) {
#if defined(__x86_64__)
    if (level >= cpu::Isa::avx512) return gather_avx512(row, out, min_run, in_place);
    if (level >= cpu::Isa::avx2) return gather_avx2(row, out, min_run, in_place);
#endif
    (void)level;
    return gather_with<Portable>(row, out, min_run, in_place);
}

}  // namespace imghist
