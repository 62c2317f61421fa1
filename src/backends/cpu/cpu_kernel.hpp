// The table kernels: each worker reads its pixels once, a run of pixels at a time (16 pixels,
// or 64 bytes of 8-bit pixels; see run_of_groups), channel by channel, and counts every
// channel into kSubs interleaved sub-histograms (cpu_counters.hpp) through a sample -> slot
// map (cpu_slot_maps.hpp; the pixels' layouts: cpu_pixel_layout.hpp). Luminance is computed
// per block of kBlockPixels pixels with ih_luma_int / ih_luma_float (8-bit pixels of three or four samples: in SIMD, cpu_luma.hpp), then counted like a channel;
// luminance alone of those with AVX2 or AVX-512 is computed and counted in one loop (fused_luma),
// over kLumaSubs sub-histograms, with a step of equal values counted by one add.
// Included by cpu_kernels.cpp only: the instantiations live there.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <type_traits>
#include <utility>

#include "backends/cpu/cpu_counters.hpp"
#include "backends/cpu/cpu_kernels.hpp"
#include "backends/cpu/cpu_luma.hpp"
#include "backends/cpu/cpu_pixel_layout.hpp"
#include "backends/cpu/cpu_slot_maps.hpp"
#include "core/prefetch.hpp"

namespace imghist::cpu {

constexpr std::uint32_t kBlockPixels = 256;  // luminance is computed per block

template <class L, class Map, class YMap, std::uint32_t P>
class Kernel {
public:
    using T = typename L::Sample;
    static constexpr bool kFloatLuma = std::is_base_of_v<Top16Map, YMap>;
    using Y = std::conditional_t<kFloatLuma, float, T>;
    // Integer luminance of 8-bit pixels of three or four samples: in SIMD (cpu_luma.hpp).
    static constexpr bool kSimdLuma = L::kLuma && sizeof(T) == 1 && (L::kCpp == 3 || L::kCpp == 4);
    // Samples coded per block first (UniformF32Map: in SIMD; WindowMap: by the window, one sample
    // at a time), then counted.
    static constexpr bool kCodedBins =
        std::is_same_v<Map, UniformF32Map> || (std::is_same_v<Map, WindowMap> && L::kSampleChannels > 0);

    Kernel(Counters& k, const Map& map, const YMap& ymap, const HistogramPlan& plan, const float* half_values)
        : k_(k), map_(map), ymap_(ymap), plan_(plan), half_values_(half_values),
          luma8_weights_(luma8_weights(plan.info, plan.weight_int)), isa_(isa()) {
        // Wide layouts (a pitch above kSmallPitch: more than 272 slots) share sub-histograms so
        // that the tables a worker writes stay in L1: 8K RGBA f32 R,G,B in 1000 bins, one
        // thread, took 81 ms in 4 tables of 12.5 KB a channel set, 50-64 ms in 2, 37-41 in 1.
        const unsigned distinct = P != 0 ? kMaxSubs : distinct_subs(k.channels, k.pitch);
        for (unsigned s = 0; s < kMaxSubs; ++s)
            for (int c = 0; c < L::kChannels; ++c) tab_[s][c] = k.table(s % distinct, unsigned(c));
        base_ = k.sub.data();
    }

    // Pixels [begin, end) of the image in raster order.
    inline __attribute__((always_inline)) void run(const ImageView& image, std::uint64_t begin, std::uint64_t end) {
        const std::uint64_t width = image.width;
        std::uint64_t pos = begin;
        while (pos < end) {
            const auto y = std::uint32_t(pos / width);
            const auto x = std::uint32_t(pos % width);
            const auto n = std::uint32_t(std::min<std::uint64_t>(width - x, end - pos));
            const std::byte* row = image.row(y) + std::size_t(x) * L::kPixelBytes;
            if (pos + 2 * width < end) prefetch_row_ahead(image, y, std::size_t(x) * L::kPixelBytes, n * L::kPixelBytes);
            for (std::uint32_t done = 0; done < n;) {
                const std::uint32_t m = std::min(block_pixels(), n - done);
                block(row + std::size_t(done) * L::kPixelBytes, m);
                done += m;
            }
            pos += n;
        }
    }

private:
    template <int S>
    inline __attribute__((always_inline)) void increment(int c, std::uint32_t slot, std::uint32_t n = 1) {
        if constexpr (P != 0) base_[(std::size_t(S) * L::kChannels + std::size_t(c)) * P + slot] += n;
        else tab_[S][c][slot] += n;
    }

    // A table entry from kSubTable up (Top16Map): the second-level table's slot, else the
    // sample classified directly. Out of line: inlined into every sample of the unrolled loops,
    // it made 8K RGBA f32 R,G,B,A 12-15 % slower on one thread.
    template <int S, class M>
    [[gnu::noinline]] void fallback(const M& map, int c, std::uint32_t v, std::uint32_t entry, std::uint32_t n) {
        if constexpr (M::kMayFallback) {
            const std::uint32_t slot = map.second(entry, v);
            if (slot != kFallback) increment<S>(c, slot, n);
            else k_.classify_direct(unsigned(c), v, n);
        }
    }

    template <int S>
    inline __attribute__((always_inline)) void sample_slot(int c, std::uint32_t v, std::uint32_t n = 1) {
        std::uint32_t slot = map_(v);
        if constexpr (kInlineSecond<Map>) {
            if (slot >= kSubTable) {
                slot = map_.second(slot, v);
                if (slot == kFallback) [[unlikely]] {
                    k_.classify_direct(unsigned(c), v, n);
                    return;
                }
            }
            increment<S>(c, slot, n);
        } else if (Map::kMayFallback && slot >= kSubTable) [[unlikely]] {
            fallback<S>(map_, c, v, slot, n);
        } else {
            increment<S>(c, slot, n);
        }
    }

    // The sample at p. A float's table entry depends on its top 16 bits only: they are loaded
    // alone (the whole sample only where the entry falls back), one load where a 32-bit load,
    // a copy and a shift were.
    template <int S>
    inline __attribute__((always_inline)) void sample_slot_at(int c, const std::byte* p) {
        if constexpr (std::is_same_v<Map, Top16Map> && sizeof(T) == 4 && std::endian::native == std::endian::little) {
            const std::uint32_t slot = map_.by_top_half(load<std::uint16_t>(p + 2));
            if (slot >= kSubTable) [[unlikely]] fallback<S>(map_, c, sample_bits<T>(p), slot, 1);
            else increment<S>(c, slot);
        } else {
            sample_slot<S>(c, sample_bits<T>(p));
        }
    }

    // A sample coded by the vector path, or left to the tables (kUncoded: out of line, so that
    // the unrolled loops stay small enough to be inlined).
    template <int S>
    inline __attribute__((always_inline)) void coded_slot(int c, std::uint16_t code, const std::byte* sample) {
        if (code != kUncoded) [[likely]] increment<S>(c, code);
        else uncoded<S>(c, sample_bits<T>(sample));
    }
    template <int S>
    [[gnu::noinline]] void uncoded(int c, std::uint32_t bits) { sample_slot<S>(c, bits); }

    // The codes of a block's n pixels' samples, in memory order (kUncoded: the tables').
    void code_block(const std::byte* p, std::uint32_t n, std::uint16_t* codes) const {
        if constexpr (std::is_same_v<Map, WindowMap>) {
            for (std::uint32_t i = 0; i < n; ++i)
                static_for<L::kSampleChannels>([&](auto ch) {
                    constexpr std::size_t kSample = std::size_t(L::kSources[decltype(ch)::value]);
                    const std::size_t at = std::size_t(i) * L::kCpp + kSample;
                    codes[at] = map_.code(sample_bits<T>(p + at * sizeof(T)));
                });
        } else {
            const std::uint32_t samples = n * std::uint32_t(L::kCpp);
            std::uint32_t i = code_uniform_f32(isa_, p, samples, map_.bins, codes);
            for (; i < samples; ++i) codes[i] = kUncoded;
        }
    }

    // Counts luminance y (n times: a run of equal values).
    template <int S>
    inline __attribute__((always_inline)) void luma_slot(Y y, std::uint32_t n = 1) {
        std::uint32_t v;
        if constexpr (kFloatLuma) v = std::bit_cast<std::uint32_t>(y);
        else v = std::uint32_t(y);
        const std::uint32_t slot = ymap_(v);
        if (YMap::kMayFallback && slot >= kSubTable) [[unlikely]]
            fallback<S>(ymap_, L::kSampleChannels, v, slot, n);
        else
            increment<S>(L::kSampleChannels, slot, n);
    }

    float as_float(std::uint32_t bits) const {
        if constexpr (sizeof(T) == 2) return half_values_[bits];
        else return std::bit_cast<float>(bits);
    }

    // Luminance of n pixels, exactly as the contract defines it (luminance.h).
    void luma(const std::byte* p, std::uint32_t n, Y* out) const {
        const std::uint32_t w0 = plan_.weight_int[0], w1 = plan_.weight_int[1], w2 = plan_.weight_int[2];
        const float f0 = plan_.weight_float[0], f1 = plan_.weight_float[1], f2 = plan_.weight_float[2];
        std::uint32_t i = 0;
        if constexpr (kSimdLuma) i = luma8_simd(isa_, L::kCpp, p, n, out, luma8_weights_);
        if constexpr (kFloatLuma && (L::kCpp == 3 || L::kCpp == 4)) {
            // 8K RGB f16 luminance alone, one thread: 61 ms scalar, 37 in SIMD (docs/performance.md).
            static constexpr int kRgb[3] = {L::kRed, L::kGreen, L::kBlue};
            i = luma_float_simd(isa_, sizeof(T) == 2, L::kCpp, kRgb, p, n, out, plan_.weight_float);
        }
        for (; i < n; ++i) {
            const std::byte* px = p + std::size_t(i) * L::kPixelBytes;
            const std::uint32_t r = sample_bits<T>(px + L::kRed * sizeof(T));
            const std::uint32_t g = sample_bits<T>(px + L::kGreen * sizeof(T));
            const std::uint32_t b = sample_bits<T>(px + L::kBlue * sizeof(T));
            if constexpr (kFloatLuma) out[i] = ih_luma_float(as_float(r), as_float(g), as_float(b), f0, f1, f2);
            else out[i] = Y(ih_luma_int(r, g, b, w0, w1, w2));
        }
    }


    // Pixels per block(): kBlockPixels (the luminance buffer), or more where fused_luma takes
    // all but the last few.
    std::uint32_t block_pixels() const {
#if defined(__x86_64__)
        if (kFusedLuma && isa_ >= Isa::avx2) return std::uint32_t(1) << 16;
#endif
        return kBlockPixels;
    }

#if defined(__x86_64__)
    // Luminance alone of 8-bit pixels of 3 or 4 samples: the luminance of the next step's pixels
    // is computed (vector units) while the current step's are counted (loads and stores), in
    // one loop, so the two overlap; counting a block's luminance after computing all of it left
    // the vector units idle during the counting. AVX-512 steps are 64 pixels, AVX2 steps 32:
    // the wider vectors halve the luminance's instructions, which compete with the counting's
    // for the front end (8K, one thread, minima: RGBA8 natural 9.94 -> 8.36 ms, RGB8 natural
    // 11.40 -> 8.56; docs/performance.md). The next step's luminance is also stored to a
    // two-step ring, so the counting reads bytes stored a step earlier: one load per pixel
    // instead of extracting bytes from words (three ALU ops), with no store-forwarding stall,
    // which loading the current step's vector back would hit (8K, one thread, Xeon AVX-512,
    // medians: RGBA8 random 16.1 -> 15.1 ms, natural 17.0 -> 14.9, RGB8 natural 17.0 -> 15.5).
    // Returns the pixels done.
    static constexpr bool kFusedLuma = L::kLuma && L::kSampleChannels == 0 && kSimdLuma;
    template <class Luma>
    [[gnu::always_inline]] inline std::uint32_t fused_luma(const std::byte* p, std::uint32_t n) {
        using W = typename Luma::W;
        constexpr std::uint32_t kStep = Luma::kPixels;
        const Luma luma(luma8_weights_);
        if (n < Luma::kReach) return 0;  // a step reads a few bytes beyond its pixels
        typename W::Bytes next;
        luma(p, next);
        alignas(64) std::uint8_t ring[2][kStep];
        W::store(ring[0], next);
        std::uint32_t i = 0;
        for (unsigned s = 0; i + Luma::kReach <= n; i += kStep, s ^= 1) {
            const typename W::Bytes y = next;
            if (i + kStep + Luma::kReach <= n) {
                // The pixels kStreamPrefetchBytes ahead are asked for: the hardware's prefetch
                // alone left the loop 40 % above the bare increments (core/prefetch.hpp).
                const std::byte* ahead = p + std::size_t(i + kStep) * L::kCpp + kStreamPrefetchBytes;
                for (std::uint32_t b = 0; b < kStep * L::kCpp; b += 64) __builtin_prefetch(ahead + b);
                luma(p + std::size_t(i + kStep) * L::kCpp, next);
                W::store(ring[s ^ 1], next);
            }
            // A step of equal values (flat regions, constant images): one add. Counted one by
            // one, they would be chains of dependent increments, each waiting on the last store.
            std::uint32_t first;
            if (W::uniform(y, first)) {
                luma_slot<0>(Y(first), kStep);
                continue;
            }
            const std::uint8_t* q = ring[s];
            static_for<int(kStep)>([&](auto px) {
                constexpr int kPx = decltype(px)::value;
                luma_slot<kPx % kLumaSubs>(Y(q[kPx]));
            });
        }
        return i;
    }
    [[gnu::target("avx2")]] std::uint32_t fused_luma_avx2(const std::byte* p, std::uint32_t n) {
        return fused_luma<Luma8Avx2<L::kCpp>>(p, n);
    }
    [[gnu::target(IMGHIST_LUMA_AVX512)]] std::uint32_t fused_luma_avx512(const std::byte* p, std::uint32_t n) {
        return fused_luma<Luma8Avx512<L::kCpp>>(p, n);
    }
#endif

    // A group pixel by pixel (64-bit loads, samples pulled out of the words by constant
    // shifts), pixel k into sub-histogram k % kSubs: the pixels a block's runs leave.
    inline __attribute__((always_inline)) void group(const std::uint64_t (&w)[L::kWords]) {
        static_for<L::kGroup>([&](auto px) {
            constexpr int kPx = decltype(px)::value;
            static_for<L::kSampleChannels>([&](auto ch) {
                constexpr int kCh = decltype(ch)::value;
                sample_slot<kPx % kSubs>(kCh, group_sample<T, kPx * L::kCpp + L::kSources[kCh]>(w));
            });
        });
    }

    // Counts the 64 bytes at q by one add per channel if their pixels are all equal.
    inline __attribute__((always_inline)) bool uniform_run(const std::byte* q, std::uint32_t i, const Y* ybuf) {
        std::uint64_t w[8];
        // First the first and last words: on random and natural data a cheap and well predicted
        // branch (checking all 64 bytes first cost 8-19 % there).
        std::memcpy(&w[0], q, 8);
        std::memcpy(&w[7], q + 56, 8);
        if (!uniform_pixels<L>(w[0], w[7])) [[likely]] return false;
        std::memcpy(w, q, sizeof w);
        if (!uniform_pixels<L>(w)) return false;
        static_for<L::kSampleChannels>([&](auto ch) {
            sample_slot<0>(ch, group_sample<T, L::kSources[decltype(ch)::value]>(w), kRunPixels);
        });
        if constexpr (L::kLuma) luma_slot<0>(ybuf[i], kRunPixels);
        return true;
    }

    // The same for 16 pixels of 3 bytes (48 bytes): without it, constant rgb8 R,G,B took 33 ms
    // (chains of increments of one counter) against 26 ms before run_of_groups.
    inline __attribute__((always_inline)) bool uniform_run3(const std::byte* q, std::uint32_t i, const Y* ybuf) {
        constexpr std::size_t kBytes = std::size_t(kRunPixels) * 3;
        if ((load<std::uint32_t>(q) ^ (load<std::uint32_t>(q + kBytes - 4) >> 8)) & 0xFFFFFFu) [[likely]] return false;
        if (std::memcmp(q, q + 3, kBytes - 3) != 0) return false;  // byte j == byte j + 3: all equal
        static_for<L::kSampleChannels>([&](auto ch) {
            sample_slot<0>(ch, sample_bits<T>(q + L::kSources[decltype(ch)::value]), kRunPixels);
        });
        if constexpr (L::kLuma) luma_slot<0>(ybuf[i], kRunPixels);
        return true;
    }

    // The same for 16 pixels of wider samples: a constant 8K RGBA f32 image took 50 ms (chains
    // of increments of one counter per sub-histogram) against a read pass of 20 ms.
    inline __attribute__((always_inline)) bool uniform_run_wide(const std::byte* q, std::uint32_t i, const Y* ybuf) {
        constexpr std::size_t kPixel = L::kPixelBytes, kBytes = std::size_t(kRunPixels) * kPixel;
        if (std::memcmp(q, q + kBytes - kPixel, kPixel) != 0) [[likely]] return false;
        // All pixels equal: each 8-byte word equals the word at its offset modulo the pixel's
        // size (an index below it, so by induction every byte equals its first pixel's). The
        // words of the first pixel are loaded once; memcmp of the 100-240 bytes was a library
        // call: 8K constant RGBA f32 38.4 ms against a read pass of 31.7 (Xeon, one thread).
        // Four accumulators: one would be a chain of 30 dependent ORs per run.
        std::uint64_t differ[4] = {load<std::uint64_t>(q + kPixel) ^ load<std::uint64_t>(q), 0, 0, 0};  // the bytes up to the first word past pixel 0
        static_for<int(kBytes / 8)>([&](auto k) {
            constexpr std::size_t kAt = std::size_t(decltype(k)::value) * 8;
            if constexpr (kAt >= kPixel)
                differ[decltype(k)::value % 4] |= load<std::uint64_t>(q + kAt) ^ load<std::uint64_t>(q + kAt % kPixel);
        });
        if ((differ[0] | differ[1] | differ[2] | differ[3]) != 0) return false;
        static_for<L::kSampleChannels>([&](auto ch) {
            sample_slot<0>(ch, sample_bits<T>(q + L::kSources[decltype(ch)::value] * sizeof(T)), kRunPixels);
        });
        if constexpr (L::kLuma) luma_slot<0>(ybuf[i], kRunPixels);
        return true;
    }

    // Pixels [i, i + kRunPixels) of a block (8-bit pixels: 64 bytes, 48 for 3-byte pixels; 16
    // pixels of wider samples). One pixel repeated (constant images, flat regions) counts each
    // channel by one add (uniform_run, uniform_run3, uniform_run_wide). Any other run is
    // counted channel by channel.
    static constexpr std::uint32_t kRunPixels =
        sizeof(T) > 1 || L::kPixelBytes == 3 ? 16 : std::uint32_t(64 / L::kPixelBytes);
    inline __attribute__((always_inline)) void run_of_groups(const std::byte* p, std::uint32_t i, const Y* ybuf,
                                                             const std::uint16_t* codes) {
        const std::byte* q = p + std::size_t(i) * L::kPixelBytes;
        if constexpr (kRunChecked<L>)
            if (uniform_run(q, i, ybuf)) return;
        if constexpr (sizeof(T) == 1 && L::kPixelBytes == 3)
            if (uniform_run3(q, i, ybuf)) return;
        if constexpr (sizeof(T) > 1)
            if (uniform_run_wide(q, i, ybuf)) return;
        // 8-bit samples: channel by channel, byte loads. Random data (IdentityMap) sends 4
        // neighbouring pixels to one sub-histogram: 8K RGBA8 R,G,B,A, one thread, random 36.4 ->
        // 29.7 ms, natural 36.8 -> 27.4 ms, against pixel by pixel into k % 4 (consecutive stores
        // to one table commit faster). Channel by channel into k % 4: random 32.6, natural 26.1;
        // one table: 26.4, 30.1 (chains on equal neighbours); halves: 27.4, 29.3. Images whose
        // neighbours repeat (IdentityApartMap: every photo measured) take k % 4: 8K tilings of 8
        // photos (bench/python/bench_photos.py), Zen 5, one thread, R,G,B,A 25.7-32.4 -> 22.8-26.7
        // ms, while k % 4 took random data 26.8 -> 29.6-30.5 (docs/performance.md).
        // Wider samples: pixel k into sub-histogram k % 4, so that neighbours of one value (the
        // same bin) are no chain of dependent increments; their table look-up between load and
        // increment lengthens each link. Zen 5, one thread, medians, 4 neighbours -> k % 4 (-> k / 2 % 4):
        // 8K RGBA f32 natural 48.4-48.9 -> 41.6-42.7 (43.0-45.0), bank-adversarial 54-58 -> 43-45,
        // random 39.3-39.8 -> 38.1-38.3; RGBA f16 natural 39.1-39.7 -> 34.8-35.2. And pixel by
        // pixel rather than channel by channel, without luminance or block codes (six rounds,
        // medians): RGBA f32 bank-adversarial 43.5-46.3 -> 37.8-42.9, natural 40.2-42.0 ->
        // 38.1-40.7, RGBA16 R,G,B (2 threads) 12.7-13.1 -> 12.1-12.8, f16 unchanged. With them it
        // was slower: RGBA f32 R,G,B,Y (2 threads) 29.8-31.0 -> 37.1-38.1, 1000 bins 35.7 -> 37.6-38.7
        // (docs/performance.md).
        auto count_sample = [&](auto ch, auto px) {
            constexpr int kCh = decltype(ch)::value;
            constexpr int kPx = decltype(px)::value;
            constexpr std::size_t kSample = std::size_t(kPx * L::kCpp + L::kSources[kCh]);
            constexpr std::size_t kAt = kSample * sizeof(T);
            constexpr int kSub = std::is_same_v<Map, IdentityMap> ? kPx / 4 % int(kSubs) : kPx % int(kSubs);
            if constexpr (kCodedBins)
                coded_slot<kSub>(kCh, codes[std::size_t(i) * L::kCpp + kSample], q + kAt);
            else
                sample_slot_at<kSub>(kCh, q + kAt);
        };
        if constexpr (sizeof(T) > 1 && !L::kLuma && !kCodedBins)
            static_for<int(kRunPixels)>([&](auto px) { static_for<L::kSampleChannels>([&](auto ch) { count_sample(ch, px); }); });
        else
            static_for<L::kSampleChannels>([&](auto ch) { static_for<int(kRunPixels)>([&](auto px) { count_sample(ch, px); }); });
        if constexpr (L::kLuma)
            static_for<int(kRunPixels) / L::kGroup>([&](auto g) { group_luma(ybuf + i + g * L::kGroup); });
    }

    inline __attribute__((always_inline)) void group_luma(const Y* y) {
        static_for<L::kGroup>([&](auto px) { luma_slot<decltype(px)::value % kSubs>(y[px]); });
    }

    // Inlined into run(), so that the kernel object stays in registers: called out of line, its
    // table pointers were reloaded after every counter store (they may alias), +11-14 % on
    // rgba16 and f32 R,G,B.
    inline __attribute__((always_inline)) void block(const std::byte* p, std::uint32_t n) {
        if (k_.pending + n > kFlushPixels) k_.flush();
        k_.pending += n;
#if defined(__x86_64__)
        if constexpr (kFusedLuma) {
            if (isa_ >= Isa::avx2) {
                const std::uint32_t done = isa_ >= Isa::avx512 ? fused_luma_avx512(p, n) : fused_luma_avx2(p, n);
                p += std::size_t(done) * L::kPixelBytes;
                n -= done;
                if (n == 0) return;
            }
        }
#endif
        alignas(64) Y ybuf[kBlockPixels];
        if constexpr (L::kLuma) luma(p, n, ybuf);
        if constexpr (L::kLuma && kFloatLuma)
            if (k_.luma_extremes) k_.luma_extremes->add_luminance(ybuf, n);
        alignas(64) std::uint16_t codes[kCodedBins ? kBlockPixels * L::kCpp : 1];
        if constexpr (kCodedBins) code_block(p, n, codes);
        std::uint32_t i = 0;
        for (; i + kRunPixels <= n; i += kRunPixels) run_of_groups(p, i, ybuf, codes);
        for (; i + L::kGroup <= n; i += L::kGroup) {
            std::uint64_t w[L::kWords];
            std::memcpy(w, p + std::size_t(i) * L::kPixelBytes, sizeof w);  // 64-bit loads
            group(w);
            if constexpr (L::kLuma) group_luma(ybuf + i);
        }
        for (; i < n; ++i) {  // the last pixels of a row: one at a time
            const std::byte* px = p + std::size_t(i) * L::kPixelBytes;
            static_for<L::kSampleChannels>([&](auto ch) {
                constexpr int kCh = decltype(ch)::value;
                sample_slot<0>(kCh, sample_bits<T>(px + L::kSources[kCh] * sizeof(T)));
            });
            if constexpr (L::kLuma) luma_slot<0>(ybuf[i]);
        }
    }

    Counters& k_;
    Map map_;
    YMap ymap_;
    const HistogramPlan& plan_;
    const float* half_values_;
    Luma8Weights luma8_weights_;
    Isa isa_;  // read once per worker: IMGHIST_CPU_ISA or the tests may lower it
    std::uint32_t* tab_[kMaxSubs][L::kChannels];
    std::uint32_t* base_;
};

}  // namespace imghist::cpu
