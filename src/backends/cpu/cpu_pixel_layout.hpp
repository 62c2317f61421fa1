// How the table kernels (cpu_kernel.hpp) see a format's pixels: the colour order and layout they
// are compiled for, samples read from 64-bit words, and the test for a run of one repeated pixel.
// Included by cpu_kernel.hpp only.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

#include "imghist/image.hpp"

namespace imghist::cpu {

template <typename T>
T load(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// Where a pixel's colours are: FormatInfo's red, green, blue and alpha (-1: none), fixed at
// compile time so that the kernels read them with constant shifts. pick_kernel compiles a few
// orders; a format whose positions match none of them takes the direct path.
template <int R, int G, int B, int A>
struct ColourOrder {
    static constexpr int kRed = R, kGreen = G, kBlue = B, kAlpha = A;
    static bool matches(const FormatInfo& fi) {
        return fi.red == R && fi.green == G && fi.blue == B && fi.alpha == A;
    }
};

// How a format's samples are laid out, and which of them a request counts.
template <typename T, int CPP, class Order, bool RGB, bool ALPHA, bool LUMA>
struct Layout {
    using Sample = T;
    static constexpr int kCpp = CPP;
    static constexpr std::size_t kPixelBytes = std::size_t(CPP) * sizeof(T);
    // Pixels per group: a multiple of kSubs whose bytes fill whole 64-bit words.
    static constexpr int kGroup = (4 * kPixelBytes) % 8 == 0 ? 4 : 8;
    static constexpr int kWords = int(kGroup * kPixelBytes / 8);
    static constexpr bool kLuma = LUMA;
    static constexpr int kRed = Order::kRed, kGreen = Order::kGreen, kBlue = Order::kBlue;
    // The sample channels in plan order (R, G, B, A; or the gray sample), then luminance.
    static constexpr std::array<int, 4> kSources = [] {
        std::array<int, 4> s{-1, -1, -1, -1};
        int n = 0;
        if (CPP == 1) {
            s[n++] = 0;
        } else {
            if (RGB) {
                s[n++] = kRed;
                s[n++] = kGreen;
                s[n++] = kBlue;
            }
            if (ALPHA) s[n++] = Order::kAlpha;
        }
        return s;
    }();
    static constexpr int kSampleChannels = CPP == 1 ? 1 : (RGB ? 3 : 0) + (ALPHA ? 1 : 0);
    static constexpr int kChannels = kSampleChannels + (LUMA ? 1 : 0);
};

template <int N, typename F>
inline __attribute__((always_inline)) void static_for(F&& f) {
    [&]<int... I>(std::integer_sequence<int, I...>) { (f(std::integral_constant<int, I>{}), ...); }(
        std::make_integer_sequence<int, N>{});
}

// Sample I of a group held in 64-bit words (samples never straddle a word).
template <typename T, int I, int W>
inline std::uint32_t group_sample(const std::uint64_t (&w)[W]) {
    constexpr int byte = I * int(sizeof(T));
    constexpr int word = byte / 8, shift = (byte % 8) * 8;
    if constexpr (sizeof(T) == 1) return std::uint32_t(w[word] >> shift) & 0xFFu;
    else if constexpr (sizeof(T) == 2) return std::uint32_t(w[word] >> shift) & 0xFFFFu;
    else return std::uint32_t(w[word] >> shift);
}

// Whether the words w of 8-bit pixels (of 1, 2, 4 or 8 bytes: a whole number per word) hold one
// pixel repeated, in every sample the layout counts (R, G and B too where luminance is counted).
// Such a run is counted by one add per channel instead of an increment per pixel: one core
// commits about one store to a scattered line per cycle (Zen 5: 3.0-3.6 G/s, against 5.5 G/s in
// one line), so the stores bound R, G, B, A at about 36 ms on 8K, and runs go under that bound.
template <class L>
inline constexpr bool kRunChecked = sizeof(typename L::Sample) == 1 && 8 % L::kPixelBytes == 0;

template <class L, int W>
inline bool uniform_pixels(const std::uint64_t (&w)[W]) {
    constexpr int kPerWord = int(8 / L::kPixelBytes);
    constexpr std::uint64_t kRepeat = [] {
        std::uint64_t r = 0;
        for (int j = 0; j < kPerWord; ++j) r |= std::uint64_t(1) << (8 * j * L::kPixelBytes);
        return r;
    }();
    constexpr std::uint64_t kPixelMask = L::kPixelBytes == 8 ? ~std::uint64_t(0) : (std::uint64_t(1) << (8 * L::kPixelBytes)) - 1;
    const std::uint64_t pattern = (w[0] & kPixelMask) * kRepeat;
    std::uint64_t d = 0;
    for (int k = 0; k < W; ++k) d |= w[k] ^ pattern;
    constexpr std::uint64_t kMask = [] {
        std::uint64_t m = 0;
        const auto add = [&m](int sample) { m |= kRepeat * (std::uint64_t(0xFF) << (8 * sample)); };
        for (int c = 0; c < L::kSampleChannels; ++c) add(L::kSources[c]);
        if (L::kLuma) {  // equal luminance needs equal R, G, B
            add(L::kRed);
            add(L::kGreen);
            add(L::kBlue);
        }
        return m;
    }();
    return (d & kMask) == 0;
}
// The same test on two words only (a run's first and last): the cheap first check.
template <class L>
inline bool uniform_pixels(std::uint64_t first, std::uint64_t last) {
    const std::uint64_t w[2] = {first, last};
    return uniform_pixels<L, 2>(w);
}

template <typename T>
inline std::uint32_t sample_bits(const std::byte* p) {
    return std::uint32_t(load<T>(p));
}
}  // namespace imghist::cpu
