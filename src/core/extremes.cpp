#include "core/extremes.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>
#include <type_traits>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define IMGHIST_X86 1
#endif

#include "contract/binning.h"
#include "contract/half.h"
#include "contract/luminance.h"
#include "core/cpu_isa.hpp"
#include "core/host_threads.hpp"
#include "core/plan.hpp"
#include "core/selection.hpp"
#include "imghist/error.hpp"

namespace imghist {

namespace {
// Half bits to float bits, looked up: a pass converts every sample of the row.
const std::uint32_t* half_table() {
    static const std::vector<std::uint32_t> table = [] {
        std::vector<std::uint32_t> t(65536);
        for (std::uint32_t h = 0; h < 65536; ++h) t[h] = ih_half_to_float_bits(h);
        return t;
    }();
    return table.data();
}

void add_sample(ValueExtremes& e, std::uint32_t bits) {
    e.positive_infinities += bits == IH_POS_INF_BITS;
    e.negative_infinities += bits == IH_NEG_INF_BITS;
    if (!ih_is_finite_bits(bits)) return;
    const std::uint32_t key = ih_float_key(bits);
    e.min_key = std::min(e.min_key, key);
    e.max_key = std::max(e.max_key, key);
}

// Half bits to float bits by the table (CPUs without AVX2; add_blocks_avx2 widens by F16C).
void widen_halves(const std::uint16_t* in, std::size_t n, std::uint32_t* out) {
    const std::uint32_t* table = half_table();
    for (std::size_t i = 0; i < n; ++i) out[i] = table[in[i]];
}

// A run of `count` float bits into the extremes of `period` interleaved channels (bits[i] is
// channel i % period; period 1, 3 or 4). Lane l of kLanes keeps samples l, l + kLanes, ..., one
// channel each since kLanes is a multiple of the period; the lanes are locals updated without
// branches so that they stay in vector registers (AVX2 where the CPU has it: vpminud), and
// fold into the channels at the end (add_blocks, or add_blocks_avx2 where the CPU has AVX2);
// the samples after the last whole block go one by one.
constexpr std::size_t kLanes = 24;
static_assert(kLanes % 3 == 0 && kLanes % 4 == 0, "a lane must hold one channel for 1, 3 and 4 samples a pixel");

// Folds lane l of the lanes into channel l % period.
void fold_lanes(ValueExtremes* out, std::size_t period, const std::uint32_t* min_key, const std::uint32_t* max_key,
                const std::uint32_t* positive, const std::uint32_t* negative) {
    for (std::size_t l = 0; l < kLanes; ++l) {
        ValueExtremes& e = out[l % period];
        e.min_key = std::min(e.min_key, min_key[l]);
        e.max_key = std::max(e.max_key, max_key[l]);
        e.positive_infinities += positive[l];
        e.negative_infinities += negative[l];
    }
}

#ifdef IMGHIST_X86
// add_run's blocks in AVX2, three vectors of 8 lanes: the compiler's own vectors of the portable
// loop spilled the lanes to the stack and took twice the count's time (8K RGBA f32, 2 threads).
// Per sample, as add_sample: the vector forms of the contract's ih_is_finite_bits (the magnitude
// bits below +Inf's) and ih_float_key (-0 folded to +0, then negative values inverted, positive
// ones' top bit set); ValueExtremes.LongRowsOfSpecialValues holds them to a plain evaluation.
// Halves are widened in the loop by F16C, not into a buffer first. F16C is exact for every half
// but a signalling NaN, which it quietens: NaN either way, and skipped.
template <class Sample>
__attribute__((target("avx2,f16c"))) std::size_t add_blocks_avx2(ValueExtremes* out, std::size_t period,
                                                                 const Sample* samples, std::size_t blocks) {
    static_assert(std::is_same_v<Sample, std::uint32_t> || std::is_same_v<Sample, std::uint16_t>);

    const __m256i magnitude = _mm256_set1_epi32(0x7FFFFFFF), inf = _mm256_set1_epi32(std::int32_t(IH_POS_INF_BITS));
    const __m256i top = _mm256_set1_epi32(std::int32_t(0x80000000u));
    const __m256i pos_inf = _mm256_set1_epi32(std::int32_t(IH_POS_INF_BITS));
    const __m256i neg_inf = _mm256_set1_epi32(std::int32_t(IH_NEG_INF_BITS));
    __m256i mn[3], mx[3], pos[3], neg[3];
    for (int j = 0; j < 3; ++j) {
        mn[j] = _mm256_set1_epi32(-1);
        mx[j] = pos[j] = neg[j] = _mm256_setzero_si256();
    }
    for (std::size_t k = 0; k < blocks; ++k) {
        for (int j = 0; j < 3; ++j) {
            const Sample* at = samples + k * kLanes + std::size_t(j) * 8;
            __m256i b;
            if constexpr (sizeof(Sample) == 2)
                b = _mm256_castps_si256(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(at))));
            else
                b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
            // finite: (b & 0x7FFFFFFF) < 0x7F800000, both non-negative as signed
            const __m256i finite = _mm256_cmpgt_epi32(inf, _mm256_and_si256(b, magnitude));
            const __m256i folded = _mm256_andnot_si256(_mm256_cmpeq_epi32(b, top), b);  // -0 -> +0
            const __m256i key = _mm256_xor_si256(folded, _mm256_or_si256(_mm256_srai_epi32(folded, 31), top));
            mn[j] = _mm256_min_epu32(mn[j], _mm256_or_si256(key, _mm256_xor_si256(finite, _mm256_set1_epi32(-1))));
            mx[j] = _mm256_max_epu32(mx[j], _mm256_and_si256(key, finite));
            pos[j] = _mm256_sub_epi32(pos[j], _mm256_cmpeq_epi32(b, pos_inf));
            neg[j] = _mm256_sub_epi32(neg[j], _mm256_cmpeq_epi32(b, neg_inf));
        }
    }
    alignas(32) std::uint32_t lanes[4][kLanes];
    for (int j = 0; j < 3; ++j) {
        _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[0] + j * 8), mn[j]);
        _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[1] + j * 8), mx[j]);
        _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[2] + j * 8), pos[j]);
        _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[3] + j * 8), neg[j]);
    }
    fold_lanes(out, period, lanes[0], lanes[1], lanes[2], lanes[3]);
    return blocks * kLanes;
}
#endif

// The portable blocks of add_run; returns the samples done.
std::size_t add_blocks(ValueExtremes* out, std::size_t period, const std::uint32_t* bits, std::size_t blocks) {
    std::uint32_t min_key[kLanes], max_key[kLanes], positive[kLanes], negative[kLanes];
    for (std::size_t l = 0; l < kLanes; ++l) min_key[l] = 0xFFFFFFFFu, max_key[l] = positive[l] = negative[l] = 0;
    for (std::size_t k = 0; k < blocks; ++k) {
        const std::uint32_t* block = bits + k * kLanes;
        for (std::size_t l = 0; l < kLanes; ++l) {
            const std::uint32_t b = block[l];
            const bool finite = ih_is_finite_bits(b) != 0;
            const std::uint32_t key = ih_float_key(b);
            min_key[l] = std::min(min_key[l], finite ? key : 0xFFFFFFFFu);
            max_key[l] = std::max(max_key[l], finite ? key : 0u);
            positive[l] += b == IH_POS_INF_BITS;
            negative[l] += b == IH_NEG_INF_BITS;
        }
    }
    fold_lanes(out, period, min_key, max_key, positive, negative);
    return blocks * kLanes;
}

#ifdef IMGHIST_X86
// The AVX2 blocks (with F16C, which the avx2 level includes) at the level in effect: the
// IMGHIST_CPU_ISA knob and the tests' force_isa reach the portable blocks too.
bool use_avx2_blocks() { return cpu::isa() >= cpu::Isa::avx2; }
#endif

void add_run(ValueExtremes* out, std::size_t period, const std::uint32_t* bits, std::size_t count) {
    const std::size_t blocks = count / kLanes;  // a row has under 2^34 samples: the counts cannot wrap
    std::size_t done = 0;
#ifdef IMGHIST_X86
    if (use_avx2_blocks()) done = add_blocks_avx2(out, period, bits, blocks);
    else
#endif
        done = add_blocks(out, period, bits, blocks);
    for (std::size_t i = done; i < count; ++i) add_sample(out[i % period], bits[i]);
}

// add_run of half samples; `widened` is room for them as float bits where the CPU lacks AVX2.
void add_run_halves(ValueExtremes* out, std::size_t period, const std::uint16_t* halves, std::size_t count,
                    std::vector<std::uint32_t>& widened) {
#ifdef IMGHIST_X86
    if (use_avx2_blocks()) {
        const std::size_t done = add_blocks_avx2(out, period, halves, count / kLanes);
        const std::uint32_t* table = half_table();
        for (std::size_t i = done; i < count; ++i) add_sample(out[i % period], table[halves[i]]);
        return;
    }
#endif
    widened.resize(count);
    widen_halves(halves, count, widened.data());
    add_run(out, period, widened.data(), count);
}

// The extremes of one thread's pixels: the samples of each row as fp32 bits (halves widened),
// then the luminance where a channel counts it.
class RowExtremes {
public:
    explicit RowExtremes(const HistogramPlan& plan)
        : plan_(plan), samples_(std::size_t(plan.info.channels)), per_sample_(samples_), luma_(1) {}

    void add(const std::byte* row, std::size_t pixels) {
        flush_given_luminance();
        const std::size_t n = pixels * samples_;
        const bool half = plan_.info.sample == SampleType::f16;
        const auto* halves = reinterpret_cast<const std::uint16_t*>(row);  // aligned: validated views
        const auto* floats = reinterpret_cast<const std::uint32_t*>(row);
        if (half) add_run_halves(per_sample_.data(), samples_, halves, n, widened_);
        else add_run(per_sample_.data(), samples_, floats, n);
        if (!plan_.has_luma() || luminance_from_caller) return;
        luma_bits_.resize(pixels);
        const FormatInfo& fi = plan_.info;
        std::size_t x = 0;
        if (luminance) {
            luma_values_.resize(pixels);
            x = luminance(row, pixels, luma_values_.data());
            std::memcpy(luma_bits_.data(), luma_values_.data(), x * sizeof(float));
        }
        const std::uint32_t* table = half_table();
        const auto sample = [&](std::size_t at) { return std::bit_cast<float>(half ? table[halves[at]] : floats[at]); };
        for (; x < pixels; ++x) {
            const std::size_t p = x * samples_;
            luma_bits_[x] = std::bit_cast<std::uint32_t>(ih_luma_float(sample(p + std::size_t(fi.red)),
                                                                       sample(p + std::size_t(fi.green)),
                                                                       sample(p + std::size_t(fi.blue)),
                                                                       plan_.weight_float[0], plan_.weight_float[1],
                                                                       plan_.weight_float[2]));
        }
        add_run(luma_.data(), 1, luma_bits_.data(), pixels);
    }

    // Kept until the next add() or merge(): the kernels hand over a few hundred values at a
    // time, and add_run pays its setup and scalar tail per call (one call per value block cost
    // as much as computing the luminance again).
    void add_luminance(const float* y, std::size_t count) {
        const std::size_t at = given_luma_.size();
        given_luma_.resize(at + count);
        std::memcpy(given_luma_.data() + at, y, count * sizeof(float));  // as bits, without aliasing the floats
    }

    void flush_given_luminance() {
        if (given_luma_.empty()) return;
        add_run(luma_.data(), 1, given_luma_.data(), given_luma_.size());
        given_luma_.clear();
    }

    void merge(const RowExtremes& other) {
        flush_given_luminance();
        if (!other.given_luma_.empty()) add_run(luma_.data(), 1, other.given_luma_.data(), other.given_luma_.size());
        for (std::size_t i = 0; i < per_sample_.size(); ++i) per_sample_[i].add(other.per_sample_[i]);
        luma_[0].add(other.luma_[0]);
    }

    // Each plan channel's extremes.
    std::vector<ValueExtremes> channels() const {
        ValueExtremes luma = luma_[0];
        if (!given_luma_.empty()) add_run(&luma, 1, given_luma_.data(), given_luma_.size());
        std::vector<ValueExtremes> out;
        for (int source : plan_.sources) out.push_back(source == kLumaSource ? luma : per_sample_[std::size_t(source)]);
        return out;
    }

    ExtremesFinder::Luminance luminance;  // a faster exact luminance, where a backend has one
    bool luminance_from_caller = false;   // add_luminance gives it (ExtremesFinder::take_luminance_from_caller)

private:
    const HistogramPlan& plan_;
    std::size_t samples_;
    std::vector<ValueExtremes> per_sample_, luma_;
    std::vector<std::uint32_t> widened_, luma_bits_, given_luma_;
    std::vector<float> luma_values_;
};

double value_of_key(std::uint32_t key) { return double(std::bit_cast<float>(ih_float_bits_of_key(key))); }
}  // namespace

struct ExtremesFinder::State {
    RowExtremes rows;
};

ExtremesFinder::ExtremesFinder(const HistogramPlan& plan) : state_(std::make_unique<State>(State{RowExtremes(plan)})) {
    if (!plan.is_float()) throw Error("internal error: value extremes of an integer plan");
}
ExtremesFinder::~ExtremesFinder() = default;
ExtremesFinder::ExtremesFinder(ExtremesFinder&&) noexcept = default;

void ExtremesFinder::set_luminance(Luminance luminance) { state_->rows.luminance = std::move(luminance); }

void ExtremesFinder::take_luminance_from_caller() { state_->rows.luminance_from_caller = true; }

void ExtremesFinder::add_luminance(const float* luminance, std::size_t count) {
    state_->rows.add_luminance(luminance, count);
}

void ExtremesFinder::add(const std::byte* pixels, std::size_t count) { state_->rows.add(pixels, count); }

void ExtremesFinder::add(const ImageView& image, std::uint64_t begin, std::uint64_t end) {
    const std::size_t pixel_bytes = image.info().pixel_bytes();
    for (std::uint64_t pos = begin; pos < end;) {
        const auto y = std::uint32_t(pos / image.width);
        const auto x = std::uint32_t(pos % image.width);
        const std::uint64_t n = std::min<std::uint64_t>(image.width - x, end - pos);
        state_->rows.add(image.row(y) + std::size_t(x) * pixel_bytes, n);
        pos += n;
    }
}

void ExtremesFinder::merge(const ExtremesFinder& other) { state_->rows.merge(other.state_->rows); }

std::vector<ValueExtremes> ExtremesFinder::channels() const { return state_->rows.channels(); }

void ValueExtremes::add(const ValueExtremes& other) {
    min_key = std::min(min_key, other.min_key);
    max_key = std::max(max_key, other.max_key);
    positive_infinities += other.positive_infinities;
    negative_infinities += other.negative_infinities;
}

std::vector<ValueExtremes> find_value_extremes(const ImageView& image, const HistogramPlan& plan,
                                               const PixelSelector* selector) {
    const std::size_t row_bytes = image.row_bytes();
    const unsigned threads = host_pass_threads(row_bytes * image.height, image.height);
    std::vector<std::optional<ExtremesFinder>> shares(threads);
    for_row_shares(image.height, threads, [&](unsigned t, std::uint32_t begin, std::uint32_t end) {
        ExtremesFinder& found = shares[t].emplace(plan);
        std::vector<std::uint64_t> gathered(selector ? (row_bytes + 7) / 8 : 0);  // a row of selected pixels
        auto* packed = reinterpret_cast<std::byte*>(gathered.data());
        for (std::uint32_t y = begin; y < end; ++y) {
            if (selector) found.add(packed, selector->gather_row(y, packed));
            else found.add(image.row(y), image.width);
        }
    });
    for (unsigned t = 1; t < threads; ++t) shares[0]->merge(*shares[t]);
    return shares[0]->channels();
}

void set_value_extremes(std::vector<ChannelHistogram>& channels, const std::vector<ValueExtremes>& extremes) {
    for (std::size_t c = 0; c < channels.size(); ++c) {
        const ValueExtremes& e = extremes[c];
        ChannelHistogram& h = channels[c];
        h.finite_min = h.finite_max = std::nullopt;
        if (e.min_key <= e.max_key) {
            h.finite_min = value_of_key(e.min_key);
            h.finite_max = value_of_key(e.max_key);
        }
        h.positive_infinities = e.positive_infinities;
        h.negative_infinities = e.negative_infinities;
    }
}

void add_value_extremes(const ImageView& image, const Request& request, const HistogramPlan& plan,
                        const PixelSelector* selector, Result& result) {
    if (request.value_extremes && plan.is_float())
        set_value_extremes(result.channels, find_value_extremes(image, plan, selector));
}

void add_value_extremes(const DeviceImage&, const Request& request, const HistogramPlan& plan, const PixelSelector*,
                        Result& result) {
    if (request.value_extremes && plan.is_float())
        result.notes.push_back("value extremes are found for images in host memory only");
}

}  // namespace imghist
