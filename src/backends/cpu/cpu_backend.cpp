// The fast CPU backend (docs/performance.md has the measurements).
//
// Shape of the work:
// - The image, in raster order, is cut into one contiguous pixel range per worker thread
//   (the caller's thread is worker 0; tiny images get no extra threads).
// - Each worker reads its pixels once, with 64-bit loads (a group of 4 or 8 pixels at a time,
//   samples pulled out of the words by constant shifts), and counts every channel into
//   kSubs interleaved 32-bit sub-histograms: pixel k of a group goes to sub-histogram k % kSubs,
//   so consecutive increments of one bin never wait on each other (constant images). Luminance
//   alone of 8-bit RGBA with AVX2 is computed and counted in one loop (block_luma_avx2), over
//   kLumaSubs sub-histograms, with runs of 32 equal values counted by one add.
//   The 32-bit counters are flushed into the worker's 64-bit totals every kFlushPixels pixels,
//   long before one could overflow.
// - Sample -> counter slot goes through a table built FROM the plan's classify functions
//   (binning.h stays the only definition of the bin math):
//     8-bit: 256 entries, classify_int(v)          16-bit: v >> shift, or 65536 entries
//     half:  65536 entries, classify_float(half)   float: 65536 entries by the top 16 bits,
//   where a float block whose 65536 values do not all share one code is marked kFallback and
//   those samples are classified one by one (see build_float_top16()).
//   Luminance is computed per block of pixels with ih_luma_int / ih_luma_float (8-bit RGBA:
//   AVX2/SSE2 with the exact sum and luma_quotient.hpp's proven quotient), then counted like a
//   channel.
// - Codes that carry a below/above flag (binning.h) get their own extra counter slot per
//   channel table, expanded by count_code's rule at flush time, so each sample costs exactly
//   one increment.
// - Anything else (huge bin counts, tiny images) takes the direct path: classify and
//   count_code per sample into 64-bit counters, still threaded when the image is big.
//
// Threading promise (engine.hpp): an engine is used by one thread at a time; the tables it
// caches between calls are owned by the engine, and worker threads only read them.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "backends/cpu/luma_quotient.hpp"
#include "core/backend_engine.hpp"
#include "core/backend_list.hpp"
#include "core/device_select.hpp"
#include "core/plan.hpp"
#include "imghist/error.hpp"

namespace imghist {
namespace {

constexpr unsigned kSubs = 4;                          // interleaved sub-histograms per channel
// The fused luminance loop (block_luma_avx2) spreads over more: on smooth images neighbouring
// pixels often share a value, and 8 tables halve the chains of dependent increments (natural
// 8K, one thread: 18.1 -> 15.5 ms). Every worker has kMaxSubs tables per channel.
constexpr unsigned kLumaSubs = 8;
constexpr unsigned kMaxSubs = std::max(kSubs, kLumaSubs);
constexpr std::uint32_t kFallback = 0xFFFFFFFFu;       // table entry: classify this sample directly
constexpr std::uint64_t kFlushPixels = 1ull << 30;     // < 2^32: a 32-bit counter cannot overflow
constexpr std::uint32_t kBlockPixels = 256;            // luminance is computed per block
constexpr std::uint32_t kMaxTableBins = 1u << 16;      // larger layouts use the direct path
constexpr std::uint32_t kSmallPitch = 288;             // table pitch of layouts up to 272 slots
constexpr std::uint64_t kMinPixelsPerThread = 1ull << 16;
constexpr std::uint64_t kMinPixelsForTables = 1ull << 10;  // below: the direct path
constexpr std::uint64_t kMinSamplesForBigTables = 1ull << 14;  // 65536-entry tables pay off

unsigned resolve_threads(unsigned requested) {
    if (requested != 0) return requested;
    return std::max(1u, std::thread::hardware_concurrency());
}

std::string host_device_name(unsigned threads) {
    return "host (" + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)");
}

template <typename T>
T load(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// ---------------------------------------------------------------------------------------------
// Which clipping extreme a value is (HistogramPlan::extreme_of): 0, IH_SLOT_BELOW or IH_SLOT_ABOVE.
// Counted per channel into two counters, low then high.
inline void count_extreme(std::uint64_t* channel_extremes, std::uint32_t extreme, std::uint64_t n = 1) {
    if (extreme != 0) channel_extremes[extreme - IH_SLOT_BELOW] += n;
}

// A value's classify code and, when the extremes are counted, its extreme.
struct Classified {
    std::uint32_t code, extreme;
};
struct Classifier {
    const HistogramPlan& plan;
    const HistogramPlan* clipping;  // null: extremes are not counted
    Classified of_int(std::uint32_t v) const {
        return {plan.classify_int(v), clipping ? clipping->extreme_of(clipping->classify_int(v)) : 0};
    }
    Classified of_float(float v) const {
        return {plan.classify_float(v), clipping ? clipping->extreme_of(clipping->classify_float(v)) : 0};
    }
};

// Slots of one channel table: the plan's slots [0, bins + 3), then one extra slot for each
// distinct (classify code, extreme) pair whose code carries a below/above flag or whose value
// is an extreme.
class SlotMap {
public:
    explicit SlotMap(std::uint32_t bins) : bins_(bins) {}

    std::uint32_t slot(Classified c) {
        if ((c.code >> IH_EXTRA_SHIFT) == 0 && c.extreme == 0) return c.code;
        for (std::size_t j = 0; j < extra_.size(); ++j)
            if (extra_[j].code == c.code && extra_[j].extreme == c.extreme) return bins_ + IH_EXTRA_SLOTS + std::uint32_t(j);
        extra_.push_back(c);
        return bins_ + IH_EXTRA_SLOTS + std::uint32_t(extra_.size() - 1);
    }
    std::uint32_t width() const { return bins_ + IH_EXTRA_SLOTS + std::uint32_t(extra_.size()); }

    // Adds n counts of table slot s to one channel's slots, by count_code's rule, and to its
    // extremes (null when they are not counted: then no slot has one).
    void add(std::uint64_t* channel_slots, std::uint64_t* channel_extremes, std::uint32_t s, std::uint64_t n) const {
        if (s < bins_ + IH_EXTRA_SLOTS) {
            channel_slots[s] += n;
            return;
        }
        const Classified& c = extra_[s - bins_ - IH_EXTRA_SLOTS];
        channel_slots[c.code & IH_SLOT_MASK] += n;
        if (c.code >> IH_EXTRA_SHIFT) channel_slots[bins_ + (c.code >> IH_EXTRA_SHIFT)] += n;
        count_extreme(channel_extremes, c.extreme, n);
    }

private:
    std::uint32_t bins_;
    std::vector<Classified> extra_;
};

// The shift mode (bin = v >> shift) with the extremes on slots of their own: integer samples
// and luminance lie in [0, max], so below the clipping plan's lo_int is only 0 and from its
// hi_int up only max.
struct ShiftExtremeMap {
    std::uint32_t shift = 0, low_below = 0, high_from = 0, low_slot = 0, high_slot = 0;
    static constexpr bool kMayFallback = false;
    std::uint32_t operator()(std::uint32_t v) const {
        // One compare (unsigned wrap) for the values between the extremes.
        if (v - low_below < high_from - low_below) [[likely]]
            return ih_classify_int(v, IH_INT_SHIFT, shift, 0, 0, 0, 0);
        return v < low_below ? low_slot : high_slot;
    }
};

// Lookup tables for one (sample type, bin layout), built from the plan's classify functions and
// cached by the engine between calls.
struct Tables {
    SampleType sample;
    BinLayout layout;
    bool extremes;  // the slots tell the clipping extremes apart
    SlotMap slots;
    std::vector<std::uint32_t> sample_lut;  // u8: 256; u16 general / f16: 65536; f32: top 16 bits
    std::vector<std::uint32_t> float_lut;   // top-16-bit table for float luminance (f16 input)
    std::vector<float> half_values;         // f16 bits -> float, for luminance
    ShiftExtremeMap shift_extremes;         // integer shift mode, when extremes are counted

    Tables(SampleType s, const BinLayout& l, bool e) : sample(s), layout(l), extremes(e), slots(l.bins) {}
};

// Float samples by their top 16 bits: the slot of the code all of a block's floats share, or
// kFallback where they do not (float_top16_codes, in core/plan.hpp, says why this is exact).
// With extremes, a block must also share one extreme (by the clipping plan's own top-16 codes).
void build_float_top16(const Classifier& cl, SlotMap& slots, std::vector<std::uint32_t>& lut) {
    lut = float_top16_codes([&](float v) { return cl.plan.classify_float(v); });
    std::vector<std::uint32_t> clip;
    if (cl.clipping) clip = float_top16_codes([&](float v) { return cl.clipping->classify_float(v); });
    for (std::size_t t = 0; t < lut.size(); ++t) {
        const bool resolved = lut[t] != kCodeUnresolved && (clip.empty() || clip[t] != kCodeUnresolved);
        lut[t] = resolved ? slots.slot({lut[t], clip.empty() ? 0 : cl.clipping->extreme_of(clip[t])}) : kFallback;
    }
}

// 8-bit tables are always built; the 65536-entry ones only when the image is big enough
// (`big`) to pay for them, otherwise the kernel is not used.
// `cl` counts extremes exactly when tb.extremes.
void build_tables(Tables& tb, const Classifier& cl, bool big, bool want_luma) {
    const HistogramPlan& plan = cl.plan;
    const auto int_lut = [&](std::uint32_t values) {
        tb.sample_lut.resize(values);
        for (std::uint32_t v = 0; v < values; ++v) tb.sample_lut[v] = tb.slots.slot(cl.of_int(v));
    };
    switch (tb.sample) {
        case SampleType::u8:
            if (tb.sample_lut.empty()) int_lut(256);
            break;
        case SampleType::u16:
            if (big && plan.int_mode != IH_INT_SHIFT && tb.sample_lut.empty()) int_lut(65536);
            if (tb.extremes && plan.int_mode == IH_INT_SHIFT) {
                const auto max = std::uint32_t(cl.clipping->hi_int);  // the only value from hi_int up
                tb.shift_extremes = {plan.shift, std::uint32_t(cl.clipping->lo_int), max,
                                     tb.slots.slot(cl.of_int(0)), tb.slots.slot(cl.of_int(max))};
            }
            break;
        case SampleType::f16:
            if (!big) break;
            if (tb.sample_lut.empty()) {
                tb.sample_lut.resize(65536);
                for (std::uint32_t h = 0; h < 65536; ++h)
                    tb.sample_lut[h] = tb.slots.slot(cl.of_float(half_to_float(std::uint16_t(h))));
            }
            if (want_luma && tb.float_lut.empty()) {
                build_float_top16(cl, tb.slots, tb.float_lut);
                tb.half_values.resize(65536);
                for (std::uint32_t h = 0; h < 65536; ++h) tb.half_values[h] = half_to_float(std::uint16_t(h));
            }
            break;
        case SampleType::f32:
            if (big && tb.sample_lut.empty()) build_float_top16(cl, tb.slots, tb.sample_lut);
            break;
    }
}

// ---------------------------------------------------------------------------------------------
// One worker's counters.
// Cache-line aligned: every worker updates its own `pending` per block, and neighbouring
// workers' Counters must not share a line.
struct alignas(64) Counters {
    const HistogramPlan* plan = nullptr;
    const HistogramPlan* clipping = nullptr;  // null: extremes are not counted
    const SlotMap* slots = nullptr;
    std::uint32_t channels = 0, pitch = 0;
    std::vector<std::uint32_t> sub;      // [kMaxSubs][channels][pitch], 32-bit
    std::vector<std::uint64_t> totals;   // the plan's slot layout, 64-bit
    std::vector<std::uint64_t> extremes;  // per channel: low, high
    std::uint64_t pending = 0;           // pixels counted since the last flush

    void init(const HistogramPlan& p, const HistogramPlan* clip, const SlotMap* s) {
        plan = &p;
        clipping = clip;
        slots = s;
        channels = std::uint32_t(p.channels.size());
        totals.assign(p.total_slots(), 0);
        extremes.assign(clip ? 2 * std::size_t(channels) : 0, 0);
        if (s != nullptr) {
            // Pad each table by a cache line (and away from a multiple of 4 KiB) so the same bin of
            // different tables does not alias in the store-to-load forwarding logic.
            // A fixed pitch for the common layouts lets the kernels address every table with a
            // constant displacement from one base register.
            pitch = s->width() + 16u <= kSmallPitch ? kSmallPitch : (s->width() + 15u) / 16u * 16u + 16u;
            sub.assign(std::size_t(kMaxSubs) * channels * pitch, 0);
        }
    }
    std::uint32_t* table(unsigned s, unsigned c) { return sub.data() + (std::size_t(s) * channels + c) * pitch; }

    void flush() {
        if (slots == nullptr || pending == 0) return;
        const std::uint32_t width = slots->width();
        for (unsigned c = 0; c < channels; ++c) {
            std::uint64_t* out = totals.data() + std::size_t(c) * plan->slots_per_channel();
            std::uint64_t* out_extremes = clipping ? extremes.data() + 2 * std::size_t(c) : nullptr;
            for (unsigned s = 0; s < kMaxSubs; ++s) {
                std::uint32_t* t = table(s, c);
                for (std::uint32_t j = 0; j < width; ++j)
                    if (t[j] != 0) slots->add(out, out_extremes, j, t[j]);
                std::fill(t, t + width, 0u);
            }
        }
        pending = 0;
    }

    // A float sample (or float luminance) whose top-16-bit block straddles a code boundary.
    [[gnu::noinline]] void classify_direct(unsigned c, std::uint32_t float_bits) {
        count(c, Classifier{*plan, clipping}.of_float(std::bit_cast<float>(float_bits)));
    }
    void count(std::size_t c, Classified v) {
        count_code(totals.data() + c * plan->slots_per_channel(), plan->bins(), v.code);
        if (clipping) count_extreme(extremes.data() + 2 * c, v.extreme);
    }
};

// ---------------------------------------------------------------------------------------------
// Sample -> slot maps.
struct LutMap {  // 8-bit, 16-bit general, half
    const std::uint32_t* lut;
    static constexpr bool kMayFallback = false;
    std::uint32_t operator()(std::uint32_t v) const { return lut[v]; }
};
struct IdentityMap {  // 8-bit samples with the default bins: the shift mode with shift 0
    static constexpr bool kMayFallback = false;
    std::uint32_t operator()(std::uint32_t v) const { return ih_classify_int(v, IH_INT_SHIFT, 0, 0, 0, 0, 0); }
};
struct ShiftMap {  // integer samples in the plan's shift mode (8-bit identity, 16-bit v >> k)
    std::uint32_t shift;
    static constexpr bool kMayFallback = false;
    std::uint32_t operator()(std::uint32_t v) const {
        return ih_classify_int(v, IH_INT_SHIFT, shift, 0, 0, 0, 0);  // codes carry no flags here
    }
};
struct Top16Map {  // float bits by their top half; may answer kFallback
    const std::uint32_t* lut;
    static constexpr bool kMayFallback = true;
    std::uint32_t operator()(std::uint32_t bits) const { return lut[bits >> 16]; }
};

#if defined(__x86_64__)
// ih_luma_int of 8-bit RGBA/BGRA pixels, 32 at a time, where the CPU has AVX2 (chosen at run
// time; the build targets baseline x86-64): the exact sum S = wr*r + wg*g + wb*b (pmaddwd), then
// luma_quotient(S) element-wise (luma_quotient.hpp proves it is floor(S / 10000)).
// w02 pairs the weights of bytes 0 and 2 of a pixel (low half: byte 0), wg is byte 1's.
struct LumaAvx2 {
    __m256i weights02, weights1, low_bytes;
    __m256 half, reciprocal;

    __attribute__((target("avx2"))) LumaAvx2(std::uint32_t w02, std::uint32_t wg)
        : weights02(_mm256_set1_epi32(int(w02))), weights1(_mm256_set1_epi32(int(wg))),
          low_bytes(_mm256_set1_epi32(0x00FF00FF)), half(_mm256_set1_ps(0.5f)),
          reciprocal(_mm256_set1_ps(cpu_detail::kLumaReciprocal)) {}

    // The luminance bytes of the 32 pixels at p, in pixel order.
    __attribute__((target("avx2"), always_inline)) inline __m256i operator()(const std::byte* p) const {
        __m256i q[4];
        for (int k = 0; k < 4; ++k) {
            const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + std::size_t(8 * k) * 4));
            const __m256i sum = _mm256_add_epi32(_mm256_madd_epi16(_mm256_and_si256(x, low_bytes), weights02),
                                                 _mm256_madd_epi16(_mm256_and_si256(_mm256_srli_epi32(x, 8), low_bytes), weights1));
            q[k] = _mm256_cvttps_epi32(_mm256_mul_ps(_mm256_add_ps(_mm256_cvtepi32_ps(sum), half), reciprocal));
        }
        // Packs work per 128-bit lane; the permute restores pixel order.
        const __m256i bytes = _mm256_packus_epi16(_mm256_packus_epi32(q[0], q[1]), _mm256_packus_epi32(q[2], q[3]));
        return _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    }
};

__attribute__((target("avx2"))) std::uint32_t luma_u8x4_avx2(const std::byte* p, std::uint32_t n,
                                                             std::uint8_t* out, std::uint32_t w02,
                                                             std::uint32_t wg) {
    const LumaAvx2 luma(w02, wg);
    std::uint32_t i = 0;
    for (; i + 32 <= n; i += 32)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), luma(p + std::size_t(i) * 4));
    return i;
}

const bool kHaveAvx2 = [] {
    __builtin_cpu_init();  // may run before libgcc's own constructor
    return __builtin_cpu_supports("avx2") != 0;
}();
#endif

// How a format's samples are laid out, and which of them a request counts.
template <typename T, int CPP, bool BGRA, bool RGB, bool ALPHA, bool LUMA>
struct Layout {
    using Sample = T;
    static constexpr int kCpp = CPP;
    static constexpr std::size_t kPixelBytes = std::size_t(CPP) * sizeof(T);
    // Pixels per group: a multiple of kSubs whose bytes fill whole 64-bit words.
    static constexpr int kGroup = (4 * kPixelBytes) % 8 == 0 ? 4 : 8;
    static constexpr int kWords = int(kGroup * kPixelBytes / 8);
    static constexpr bool kLuma = LUMA;
    static constexpr int kRed = BGRA ? 2 : 0, kGreen = 1, kBlue = BGRA ? 0 : 2;
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
            if (ALPHA) s[n++] = 3;
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

template <typename T>
inline std::uint32_t sample_bits(const std::byte* p) {
    return std::uint32_t(load<T>(p));
}

// Per-call context handed to the kernels.
struct Context {
    const HistogramPlan* plan;
    const Tables* tables;
};

template <class L, class Map, class YMap, std::uint32_t P>
class Kernel {
public:
    using T = typename L::Sample;
    static constexpr bool kFloatLuma = std::is_same_v<YMap, Top16Map>;
    using Y = std::conditional_t<kFloatLuma, float, T>;

    Kernel(Counters& k, const Map& map, const YMap& ymap, const HistogramPlan& plan, const float* half_values)
        : k_(k), map_(map), ymap_(ymap), plan_(plan), half_values_(half_values) {
        for (unsigned s = 0; s < kMaxSubs; ++s)
            for (int c = 0; c < L::kChannels; ++c) tab_[s][c] = k.table(s, unsigned(c));
        base_ = k.sub.data();
    }

    // Pixels [begin, end) of the image in raster order.
    void run(const ImageView& image, std::uint64_t begin, std::uint64_t end) {
        const std::uint64_t width = image.width;
        std::uint64_t pos = begin;
        while (pos < end) {
            const auto y = std::uint32_t(pos / width);
            const auto x = std::uint32_t(pos % width);
            const auto n = std::uint32_t(std::min<std::uint64_t>(width - x, end - pos));
            const std::byte* row = image.row(y) + std::size_t(x) * L::kPixelBytes;
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

    // 8-bit RGBA/BGRA luminance in SIMD: the weights of the samples at bytes 0 and 2 of a pixel,
    // paired for pmaddwd (low half: byte 0); byte 1 (green) takes weight_int[1].
    std::uint32_t weights02() const {
        const std::uint32_t wr = plan_.weight_int[0], wb = plan_.weight_int[2];
        return L::kRed == 0 ? (wb << 16) | wr : (wr << 16) | wb;
    }

    template <int S>
    inline __attribute__((always_inline)) void sample_slot(int c, std::uint32_t v) {
        const std::uint32_t slot = map_(v);
        if (Map::kMayFallback && slot == kFallback) [[unlikely]]
            k_.classify_direct(unsigned(c), v);
        else
            increment<S>(c, slot);
    }

    // Counts luminance y (n times: a run of equal values).
    template <int S>
    inline __attribute__((always_inline)) void luma_slot(Y y, std::uint32_t n = 1) {
        std::uint32_t v;
        if constexpr (kFloatLuma) v = std::bit_cast<std::uint32_t>(y);
        else v = std::uint32_t(y);
        const std::uint32_t slot = ymap_(v);
        if (YMap::kMayFallback && slot == kFallback) [[unlikely]]
            for (std::uint32_t k = 0; k < n; ++k) k_.classify_direct(unsigned(L::kSampleChannels), v);
        else
            increment<S>(L::kSampleChannels, slot, n);
    }

    float as_float(std::uint32_t bits) const {
        if constexpr (sizeof(T) == 2) return half_values_[bits];
        else return std::bit_cast<float>(bits);
    }

    // Luminance of n pixels, exactly as binning.h defines it.
    void luma(const std::byte* p, std::uint32_t n, Y* out) const {
        const std::uint32_t w0 = plan_.weight_int[0], w1 = plan_.weight_int[1], w2 = plan_.weight_int[2];
        const float f0 = plan_.weight_float[0], f1 = plan_.weight_float[1], f2 = plan_.weight_float[2];
        std::uint32_t i = 0;
#if defined(__x86_64__)
        if constexpr (sizeof(T) == 1 && L::kCpp == 4) {
            if (kHaveAvx2) {
                i = luma_u8x4_avx2(p, n, reinterpret_cast<std::uint8_t*>(out), weights02(), w1);
            }
        }
#endif
#if defined(__SSE2__)
        if constexpr (sizeof(T) == 1 && L::kCpp == 4) {
            if (i == 0) i = luma_u8x4_sse2(p, n, out);  // no AVX2, or under 32 pixels
        }
#endif
        for (; i < n; ++i) {
            const std::byte* px = p + std::size_t(i) * L::kPixelBytes;
            const std::uint32_t r = sample_bits<T>(px + L::kRed * sizeof(T));
            const std::uint32_t g = sample_bits<T>(px + L::kGreen * sizeof(T));
            const std::uint32_t b = sample_bits<T>(px + L::kBlue * sizeof(T));
            if constexpr (kFloatLuma) out[i] = ih_luma_float(as_float(r), as_float(g), as_float(b), f0, f1, f2);
            else out[i] = Y(ih_luma_int(r, g, b, w0, w1, w2));
        }
    }

#if defined(__SSE2__)
    // ih_luma_int of 8-bit RGBA/BGRA pixels, 16 at a time: the exact sum S = wr*r + wg*g + wb*b
    // (pmaddwd: 16-bit products summed in 32 bits), then luma_quotient(S) element-wise
    // (luma_quotient.hpp). Returns the number of pixels done.
    std::uint32_t luma_u8x4_sse2(const std::byte* p, std::uint32_t n, Y* out) const {
        static_assert(sizeof(Y) == 1);
        const __m128i weights02 = _mm_set1_epi32(int(this->weights02())),
                      weights1 = _mm_set1_epi32(int(plan_.weight_int[1]));
        const __m128i low_bytes = _mm_set1_epi32(0x00FF00FF);
        const __m128 half = _mm_set1_ps(0.5f), reciprocal = _mm_set1_ps(cpu_detail::kLumaReciprocal);
        std::uint32_t i = 0;
        for (; i + 16 <= n; i += 16) {
            __m128i q[4];
            for (int k = 0; k < 4; ++k) {
                const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + std::size_t(i + 4 * k) * 4));
                const __m128i s02 = _mm_madd_epi16(_mm_and_si128(x, low_bytes), weights02);
                const __m128i s1 = _mm_madd_epi16(_mm_and_si128(_mm_srli_epi32(x, 8), low_bytes), weights1);
                const __m128i sum = _mm_add_epi32(s02, s1);
                q[k] = _mm_cvttps_epi32(_mm_mul_ps(_mm_add_ps(_mm_cvtepi32_ps(sum), half), reciprocal));
            }
            const __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(q[0], q[1]), _mm_packs_epi32(q[2], q[3]));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), bytes);
        }
        return i;
    }
#endif

    // Pixels per block(): kBlockPixels (the luminance buffer), or more where block_luma_avx2
    // takes all but the last few.
    static std::uint32_t block_pixels() {
#if defined(__x86_64__)
        if (kFusedLuma && kHaveAvx2) return std::uint32_t(1) << 16;
#endif
        return kBlockPixels;
    }

#if defined(__x86_64__)
    // Luminance alone of 8-bit RGBA/BGRA with AVX2: the luminance of the next 32 pixels is
    // computed (vector units) while the current 32 are counted (loads and stores), in one loop,
    // so the two overlap; counting a block's luminance after computing all of it left the
    // vector units idle during the counting. Returns the pixels done (a multiple of 32).
    static constexpr bool kFusedLuma = L::kLuma && L::kSampleChannels == 0 && sizeof(T) == 1 && L::kCpp == 4;
    __attribute__((target("avx2"))) std::uint32_t block_luma_avx2(const std::byte* p, std::uint32_t n) {
        const LumaAvx2 luma(weights02(), plan_.weight_int[1]);
        if (n < 32) return 0;
        __m256i next = luma(p);
        std::uint32_t i = 0;
        for (; i + 32 <= n; i += 32) {
            const __m256i y = next;
            if (i + 64 <= n) next = luma(p + std::size_t(i + 32) * 4);
            // 32 equal values (flat regions, constant images): one add of 32. Counted one by one,
            // they would be four chains of dependent increments, each waiting on the last store.
            const auto first = std::uint32_t(_mm256_extract_epi8(y, 0));
            if (_mm256_movemask_epi8(_mm256_cmpeq_epi8(y, _mm256_set1_epi8(char(first)))) == -1) {
                luma_slot<0>(Y(first), 32);
                continue;
            }
            const std::uint64_t q[4] = {std::uint64_t(_mm256_extract_epi64(y, 0)), std::uint64_t(_mm256_extract_epi64(y, 1)),
                                        std::uint64_t(_mm256_extract_epi64(y, 2)), std::uint64_t(_mm256_extract_epi64(y, 3))};
            static_for<32>([&](auto px) {
                constexpr int kPx = decltype(px)::value;
                luma_slot<kPx % kLumaSubs>(Y(q[kPx / 8] >> (8 * (kPx % 8))));
            });
        }
        return i;
    }
#endif

    void block(const std::byte* p, std::uint32_t n) {
        if (k_.pending + n > kFlushPixels) k_.flush();
        k_.pending += n;
#if defined(__x86_64__)
        if constexpr (kFusedLuma) {
            if (kHaveAvx2) {
                const std::uint32_t done = block_luma_avx2(p, n);
                p += std::size_t(done) * L::kPixelBytes;
                n -= done;
                if (n == 0) return;
            }
        }
#endif
        alignas(64) Y ybuf[kBlockPixels];
        if constexpr (L::kLuma) luma(p, n, ybuf);
        std::uint32_t i = 0;
        for (; i + L::kGroup <= n; i += L::kGroup) {
            std::uint64_t w[L::kWords];
            std::memcpy(w, p + std::size_t(i) * L::kPixelBytes, sizeof w);  // 64-bit loads
            static_for<L::kGroup>([&](auto px) {
                constexpr int kPx = decltype(px)::value;
                constexpr int kSub = kPx % kSubs;
                static_for<L::kSampleChannels>([&](auto ch) {
                    constexpr int kCh = decltype(ch)::value;
                    constexpr int kSample = kPx * L::kCpp + L::kSources[kCh];
                    sample_slot<kSub>(kCh, group_sample<T, kSample>(w));
                });
                if constexpr (L::kLuma) luma_slot<kSub>(ybuf[i + kPx]);
            });
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
    std::uint32_t* tab_[kMaxSubs][L::kChannels];
    std::uint32_t* base_;
};

using KernelFn = void (*)(Counters&, const Context&, const ImageView&, std::uint64_t, std::uint64_t);

template <class L, class Map, class YMap, std::uint32_t P>
void run_kernel(Counters& k, const Context& ctx, const ImageView& image, std::uint64_t begin,
                std::uint64_t end) {
    const HistogramPlan& plan = *ctx.plan;
    const Tables& tb = *ctx.tables;
    Map map{};
    YMap ymap{};
    if constexpr (std::is_same_v<Map, LutMap> || std::is_same_v<Map, Top16Map>) map.lut = tb.sample_lut.data();
    if constexpr (std::is_same_v<Map, ShiftMap>) map.shift = plan.shift;
    if constexpr (std::is_same_v<Map, ShiftExtremeMap>) map = tb.shift_extremes;
    if (P != 0 && k.pitch != P) throw Error("internal error: cpu kernel table pitch mismatch");
    if constexpr (std::is_same_v<YMap, Top16Map>)
        ymap.lut = tb.sample == SampleType::f16 ? tb.float_lut.data() : tb.sample_lut.data();
    else ymap = YMap(map);
    Kernel<L, Map, YMap, P> kernel(k, map, ymap, plan, tb.half_values.data());
    kernel.run(image, begin, end);
}

// Picks the kernel for the channels the plan asks for (R, G, B; alpha; luminance).
template <typename T, int CPP, bool BGRA, class Map, class YMap, std::uint32_t P>
KernelFn pick_channels(bool rgb, bool alpha, bool luma) {
    if constexpr (CPP == 1) {
        return &run_kernel<Layout<T, 1, false, false, false, false>, Map, YMap, P>;
    } else {
#define IMGHIST_PICK(R, A, Y)                                                   \
    if (rgb == R && alpha == A && luma == Y)                                    \
        return &run_kernel<Layout<T, CPP, BGRA, R, A, Y>, Map, YMap, P>;
        IMGHIST_PICK(true, false, false)
        IMGHIST_PICK(false, false, true)
        IMGHIST_PICK(true, false, true)
        if constexpr (CPP == 4) {
            IMGHIST_PICK(true, true, false)
            IMGHIST_PICK(false, true, true)
            IMGHIST_PICK(true, true, true)
        }
#undef IMGHIST_PICK
        return nullptr;
    }
}

template <typename T, class Map, class YMap, std::uint32_t P = 0>
KernelFn pick_format(const FormatInfo& fi, bool rgb, bool alpha, bool luma) {
    const bool bgra = fi.channels == 4 && fi.red == 2;
    switch (fi.channels) {
        case 1: return pick_channels<T, 1, false, Map, YMap, P>(rgb, alpha, luma);
        case 3: return pick_channels<T, 3, false, Map, YMap, P>(rgb, alpha, luma);
        case 4:
            if constexpr (sizeof(T) == 1) {
                if (bgra) return pick_channels<T, 4, true, Map, YMap, P>(rgb, alpha, luma);
            }
            if (bgra) return nullptr;
            return pick_channels<T, 4, false, Map, YMap, P>(rgb, alpha, luma);
        default: return nullptr;
    }
}

// The general path: classify and count_code per sample, into 64-bit counters.
void count_direct(Counters& k, const ImageView& image, std::uint64_t begin, std::uint64_t end) {
    const HistogramPlan& plan = *k.plan;
    const FormatInfo& fi = plan.info;
    const std::size_t pixel_bytes = fi.pixel_bytes();
    const std::uint64_t width = image.width;
    const Classifier cl{plan, k.clipping};
    auto sample_int = [&](const std::byte* px, int i) -> std::uint32_t {
        const std::byte* p = px + std::size_t(i) * fi.bytes_per_sample;
        return fi.sample == SampleType::u8 ? std::uint32_t(load<std::uint8_t>(p)) : std::uint32_t(load<std::uint16_t>(p));
    };
    auto sample_float = [&](const std::byte* px, int i) -> float {
        const std::byte* p = px + std::size_t(i) * fi.bytes_per_sample;
        return fi.sample == SampleType::f32 ? load<float>(p) : half_to_float(load<std::uint16_t>(p));
    };
    for (std::uint64_t pos = begin; pos < end;) {
        const auto y = std::uint32_t(pos / width);
        const auto x0 = std::uint32_t(pos % width);
        const auto n = std::uint32_t(std::min<std::uint64_t>(width - x0, end - pos));
        const std::byte* row = image.row(y);
        for (std::uint32_t x = x0; x < x0 + n; ++x) {
            const std::byte* px = row + std::size_t(x) * pixel_bytes;
            for (std::size_t c = 0; c < plan.channels.size(); ++c) {
                const int src = plan.sources[c];
                if (fi.is_float()) {
                    k.count(c, cl.of_float(src != kLumaSource
                                               ? sample_float(px, src)
                                               : ih_luma_float(sample_float(px, fi.red), sample_float(px, fi.green),
                                                               sample_float(px, fi.blue), plan.weight_float[0],
                                                               plan.weight_float[1], plan.weight_float[2])));
                } else {
                    k.count(c, cl.of_int(src != kLumaSource
                                             ? sample_int(px, src)
                                             : ih_luma_int(sample_int(px, fi.red), sample_int(px, fi.green),
                                                           sample_int(px, fi.blue), plan.weight_int[0],
                                                           plan.weight_int[1], plan.weight_int[2])));
                }
            }
        }
        pos += n;
    }
}

// Which channels the plan counts, if they follow the order the kernels expect
// (R, G, B, then alpha, then luminance; or the single gray sample).
struct ChannelSet {
    bool ok = false, rgb = false, alpha = false, luma = false;
};
ChannelSet channel_set(const HistogramPlan& plan) {
    ChannelSet cs;
    const FormatInfo& fi = plan.info;
    const auto& src = plan.sources;
    if (fi.channels == 1) {
        cs.ok = src.size() == 1 && src[0] == 0;
        return cs;
    }
    std::size_t i = 0;
    if (i + 3 <= src.size() && src[i] == fi.red && src[i + 1] == fi.green && src[i + 2] == fi.blue) {
        cs.rgb = true;
        i += 3;
    }
    if (i < src.size() && fi.alpha >= 0 && src[i] == fi.alpha) {
        cs.alpha = true;
        ++i;
    }
    if (i < src.size() && src[i] == kLumaSource) {
        cs.luma = true;
        ++i;
    }
    cs.ok = i == src.size() && (cs.rgb || cs.alpha || cs.luma);
    return cs;
}

class CpuEngine final : public BackendEngine<> {
public:
    explicit CpuEngine(unsigned threads) : threads_(resolve_threads(threads)) {}
    std::string_view backend_name() const override { return "cpu"; }
    std::string device_name() const override {
        return host_device_name(threads_);
    }

    void accumulate(const ImageView& image, const HistogramPlan& plan,
                    std::span<std::uint64_t> slots) override {
        count(image, plan, nullptr, slots, {});
    }

    // Every path counts the extremes: the tables give them slots of their own, so on the
    // table paths they cost no extra increment.
    bool accumulate_with_extremes(const ImageView& image, const HistogramPlan& plan, const HistogramPlan& clipping,
                                  std::span<std::uint64_t> slots, std::span<std::uint64_t> extremes) override {
        count(image, plan, &clipping, slots, extremes);
        return true;
    }

private:
    void count(const ImageView& image, const HistogramPlan& plan, const HistogramPlan* clipping,
               std::span<std::uint64_t> slots, std::span<std::uint64_t> extremes) {
        const std::uint64_t pixels = image.pixel_count();
        const std::uint64_t samples = pixels * plan.channels.size();
        const ChannelSet cs = channel_set(plan);

        KernelFn kernel = nullptr;
        const Tables* tables = nullptr;
        if (cs.ok && pixels >= kMinPixelsForTables && plan.bins() <= kMaxTableBins) {
            tables = &tables_for(Classifier{plan, clipping}, samples, cs.luma);
            kernel = pick_kernel(plan, *tables, cs);
        }

        std::uint64_t workers = std::min<std::uint64_t>(threads_, std::max<std::uint64_t>(1, pixels / kMinPixelsPerThread));
        std::vector<Counters> counters(workers);
        for (auto& k : counters) k.init(plan, clipping, kernel ? &tables->slots : nullptr);
        const Context ctx{&plan, tables};
        auto work = [&](std::uint64_t t) {
            const std::uint64_t begin = pixels * t / workers, end = pixels * (t + 1) / workers;
            Counters& k = counters[t];
            if (kernel) {
                kernel(k, ctx, image, begin, end);
                k.flush();
            } else {
                count_direct(k, image, begin, end);
            }
        };

        std::vector<std::thread> pool;
        std::vector<std::exception_ptr> errors(workers);
        try {
            for (std::uint64_t t = 1; t < workers; ++t)
                pool.emplace_back([&, t] {
                    try {
                        work(t);
                    } catch (...) {
                        errors[t] = std::current_exception();
                    }
                });
        } catch (...) {
            for (auto& th : pool) th.join();
            throw;
        }
        try {
            work(0);
        } catch (...) {
            errors[0] = std::current_exception();
        }
        for (auto& th : pool) th.join();
        for (auto& e : errors)
            if (e) std::rethrow_exception(e);
        for (const auto& k : counters) {
            for (std::size_t i = 0; i < slots.size(); ++i) slots[i] += k.totals[i];
            for (std::size_t i = 0; i < k.extremes.size(); ++i) extremes[i] += k.extremes[i];
        }
    }

    // The tables depend on the plan only through its sample type and layout, and on whether
    // extremes are counted (the clipping plan is the same for every request of a sample type).
    const Tables& tables_for(const Classifier& cl, std::uint64_t samples, bool luma) {
        const HistogramPlan& plan = cl.plan;
        const bool extremes = cl.clipping != nullptr;
        if (!tables_ || tables_->sample != plan.info.sample || !(tables_->layout == plan.layout) ||
            tables_->extremes != extremes)
            tables_ = std::make_unique<Tables>(plan.info.sample, plan.layout, extremes);
        const bool big = samples >= kMinSamplesForBigTables;
        build_tables(*tables_, cl, big, luma);
        return *tables_;
    }

    static KernelFn pick_kernel(const HistogramPlan& plan, const Tables& tb, const ChannelSet& cs) {
        const FormatInfo& fi = plan.info;
        const bool small = tb.slots.width() + 16u <= kSmallPitch;  // Counters picks kSmallPitch
        const bool shift = plan.int_mode == IH_INT_SHIFT;
        switch (fi.sample) {
            case SampleType::u8:
                // With extremes the 256-entry table gives them slots of their own.
                if (tb.extremes) return pick_format<std::uint8_t, LutMap, LutMap>(fi, cs.rgb, cs.alpha, cs.luma);
                if (shift && plan.shift == 0)
                    return pick_format<std::uint8_t, IdentityMap, IdentityMap, kSmallPitch>(fi, cs.rgb, cs.alpha, cs.luma);
                if (shift) return pick_format<std::uint8_t, ShiftMap, ShiftMap, kSmallPitch>(fi, cs.rgb, cs.alpha, cs.luma);
                return pick_format<std::uint8_t, LutMap, LutMap>(fi, cs.rgb, cs.alpha, cs.luma);
            case SampleType::u16:
                if (shift && tb.extremes && small)
                    return pick_format<std::uint16_t, ShiftExtremeMap, ShiftExtremeMap, kSmallPitch>(fi, cs.rgb, cs.alpha, cs.luma);
                if (shift && tb.extremes) return pick_format<std::uint16_t, ShiftExtremeMap, ShiftExtremeMap>(fi, cs.rgb, cs.alpha, cs.luma);
                if (shift && small)
                    return pick_format<std::uint16_t, ShiftMap, ShiftMap, kSmallPitch>(fi, cs.rgb, cs.alpha, cs.luma);
                if (shift) return pick_format<std::uint16_t, ShiftMap, ShiftMap>(fi, cs.rgb, cs.alpha, cs.luma);
                if (tb.sample_lut.empty()) return nullptr;  // small image: the direct path
                return pick_format<std::uint16_t, LutMap, LutMap>(fi, cs.rgb, cs.alpha, cs.luma);
            case SampleType::f16:
                if (tb.sample_lut.empty() || (cs.luma && tb.float_lut.empty())) return nullptr;
                if (small) return pick_format<std::uint16_t, LutMap, Top16Map, kSmallPitch>(fi, cs.rgb, cs.alpha, cs.luma);
                return pick_format<std::uint16_t, LutMap, Top16Map>(fi, cs.rgb, cs.alpha, cs.luma);
            case SampleType::f32:
                if (tb.sample_lut.empty()) return nullptr;
                if (small) return pick_format<std::uint32_t, Top16Map, Top16Map, kSmallPitch>(fi, cs.rgb, cs.alpha, cs.luma);
                return pick_format<std::uint32_t, Top16Map, Top16Map>(fi, cs.rgb, cs.alpha, cs.luma);
        }
        return nullptr;
    }

    unsigned threads_;
    std::unique_ptr<Tables> tables_;  // lookup tables of the last layout, reused between calls
};

class CpuBackend final : public Backend {
public:
    std::string_view name() const override { return "cpu"; }
    std::string_view summary() const override { return "multi-threaded host code (the default without a GPU)"; }
    std::vector<DeviceInfo> devices() const override {
        return {{"0", host_device_name(resolve_threads(0)), false, true, ""}};
    }
    std::unique_ptr<Engine> create_engine(const EngineOptions& options) const override {
        // One device, but a wrong --device is still an error that lists it.
        (void)select_device(name(), devices(), options.device, nullptr);
        return std::make_unique<CpuEngine>(options.threads);
    }
};

}  // namespace

const Backend& cpu_backend() {
    static const CpuBackend backend;
    return backend;
}

}  // namespace imghist
