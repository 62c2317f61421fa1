#include "test_images.hpp"

#include "imghist/imghist.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace imghist::testing {

const char* pattern_name(Pattern p) {
    switch (p) {
        case Pattern::random: return "random";
        case Pattern::natural: return "natural";
        case Pattern::constant: return "constant";
        case Pattern::bank_adversarial: return "bank_adversarial";
        case Pattern::specials: return "specials";
    }
    return "?";
}

std::vector<Size> awkward_sizes() {
    return {{1, 1}, {1, 37}, {37, 1}, {3, 5}, {17, 9}, {255, 3}, {257, 2}, {1023, 2}, {129, 129}};
}

std::uint16_t float_to_half(float f) {
    const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
    const std::uint32_t sign = (x >> 16) & 0x8000u;
    const std::uint32_t abs = x & 0x7FFFFFFFu;
    if (abs > 0x7F800000u) return std::uint16_t(sign | 0x7E00u);  // NaN
    if (abs >= 0x477FF000u) return std::uint16_t(sign | 0x7C00u);  // overflow -> Inf
    if (abs < 0x38800000u) {                                        // half subnormal or zero
        const float scaled = std::bit_cast<float>(abs) * 16777216.0f;  // 2^24: exact
        return std::uint16_t(sign | std::uint32_t(std::nearbyint(scaled)));
    }
    std::uint32_t mant = abs & 0x7FFFFFu, exp = (abs >> 23) - 112;
    std::uint32_t h = (exp << 10) | (mant >> 13);
    const std::uint32_t rest = mant & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return std::uint16_t(sign | h);
}

namespace {

class Sampler {
public:
    Sampler(PixelFormat format, Pattern pattern, std::uint64_t seed, std::uint32_t width,
            std::uint32_t height)
        : info_(format_info(format)), pattern_(pattern), rng_(seed), width_(width), height_(height) {
        std::uniform_int_distribution<int> pick(0, 31);
        bank_base_ = pick(rng_);
        constant_unit_ = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
    }

    // A value in [0, 1] for smooth patterns; specials and random handled per type.
    double unit(std::uint32_t x, std::uint32_t y, int channel) {
        switch (pattern_) {
            case Pattern::constant: return constant_unit_;
            case Pattern::natural: {
                const double gx = double(x) / std::max(1u, width_ - 1);
                const double gy = double(y) / std::max(1u, height_ - 1);
                const double base = 0.45 * gx + 0.35 * gy + 0.1 * std::sin(0.05 * x + channel) + 0.1;
                const double noise = std::normal_distribution<double>(0.0, 0.03)(rng_);
                return std::clamp(base + noise, 0.0, 1.0);
            }
            default: return std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
        }
    }

    void write(std::byte* out, std::uint32_t x, std::uint32_t y, int channel) {
        switch (info_.sample) {
            case SampleType::u8: {
                std::uint8_t v = 0;
                if (pattern_ == Pattern::random) v = std::uint8_t(rng_());
                else if (pattern_ == Pattern::bank_adversarial) v = std::uint8_t(bank_base_ + 32 * (rng_() % 8));
                else if (pattern_ == Pattern::specials) v = pick_extreme<std::uint8_t>();
                else v = std::uint8_t(std::lround(unit(x, y, channel) * 255.0));
                std::memcpy(out, &v, 1);
                break;
            }
            case SampleType::u16: {
                std::uint16_t v = 0;
                if (pattern_ == Pattern::random) v = std::uint16_t(rng_());
                else if (pattern_ == Pattern::bank_adversarial)
                    v = std::uint16_t(((bank_base_ + 32 * (rng_() % 8)) << 8) | (rng_() & 0xFF));
                else if (pattern_ == Pattern::specials) v = pick_extreme<std::uint16_t>();
                else v = std::uint16_t(std::lround(unit(x, y, channel) * 65535.0));
                std::memcpy(out, &v, 2);
                break;
            }
            case SampleType::f16: {
                std::uint16_t h;
                if (pattern_ == Pattern::specials) h = std::uint16_t(rng_());  // every bit pattern
                else h = float_to_half(float_value(x, y, channel));
                std::memcpy(out, &h, 2);
                break;
            }
            case SampleType::f32: {
                const float f = pattern_ == Pattern::specials ? special_float() : float_value(x, y, channel);
                std::memcpy(out, &f, 4);
                break;
            }
        }
    }

    // A packed pixel (one 32-bit word): B10G11R11_UFLOAT's R and G 11-bit, B 10-bit fields.
    void write_packed(std::byte* out) {
        std::uint32_t word = 0;
        if (pattern_ == Pattern::constant) word = std::uint32_t(constant_unit_ * 4294967295.0);
        else if (pattern_ == Pattern::random) word = std::uint32_t(rng_());
        else word = packed_field(6) | packed_field(6) << 11 | packed_field(5) << 22;
        std::memcpy(out, &word, 4);
    }

private:
    // An unsigned float field (5 exponent bits, `mantissa_bits` mantissa bits): specials (zero,
    // the least subnormal, 1.0 and the codes beside it, the largest finite, +Inf, NaNs) or, for
    // the other patterns, a value below 2.
    std::uint32_t packed_field(std::uint32_t mantissa_bits) {
        const std::uint32_t one = 15u << mantissa_bits, inf = 31u << mantissa_bits, all = (32u << mantissa_bits) - 1;
        const std::uint32_t mantissa = std::uint32_t(rng_()) & ((1u << mantissa_bits) - 1);
        if (pattern_ != Pattern::specials) return (std::uint32_t(rng_() % 16) << mantissa_bits) | mantissa;
        const std::uint32_t specials[] = {0, 1, one - 1, one, one + 1, inf - 1, inf, inf + 1, all, std::uint32_t(rng_()) & all};
        return specials[rng_() % std::size(specials)];
    }

    template <typename T>
    T pick_extreme() {
        switch (rng_() % 4) {
            case 0: return 0;
            case 1: return std::numeric_limits<T>::max();
            default: return T(rng_());
        }
    }

    float float_value(std::uint32_t x, std::uint32_t y, int channel) {
        if (pattern_ == Pattern::bank_adversarial)
            return float((bank_base_ + 32 * (rng_() % 8)) + 0.5) / 256.0f;
        return float(unit(x, y, channel));
    }

    float special_float() {
        const float inf = std::numeric_limits<float>::infinity();
        const float edge = float(rng_() % 257) / 256.0f;
        switch (rng_() % 12) {
            case 0: return std::numeric_limits<float>::quiet_NaN();
            case 1: return (rng_() & 1) ? inf : -inf;
            case 2: return -0.0f;
            case 3: return std::bit_cast<float>(static_cast<std::uint32_t>(rng_() % 0x7FFFFFu + 1) | static_cast<std::uint32_t>((rng_() & 1) << 31));  // denormal
            case 4: return std::nextafter(edge, 2.0f);
            case 5: return std::nextafter(edge, -1.0f);
            case 6: return edge;
            case 7: return 1.0f + std::uniform_real_distribution<float>(0.0f, 100.0f)(rng_);
            case 8: return -std::uniform_real_distribution<float>(0.0f, 2.0f)(rng_);
            case 9: return std::bit_cast<float>(static_cast<std::uint32_t>(rng_()));  // any bit pattern
            default: return std::uniform_real_distribution<float>(0.0f, 1.0f)(rng_);
        }
    }

    const FormatInfo& info_;
    Pattern pattern_;
    std::mt19937_64 rng_;
    std::uint32_t width_, height_;
    int bank_base_ = 0;
    double constant_unit_ = 0;
};

}  // namespace

// The requests every backend is checked with, per format (test_images.hpp).
// No denormals: NVIDIA's Vulkan flushes them in fp32 luminance, where the engine (not a test's
// bare launch) falls back to the CPU.
TestImage values_around_edges(const std::vector<double>& edges, std::size_t samples) {
    std::vector<float> values = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                                 -std::numeric_limits<float>::infinity(), -0.0f, 0.0f, -0.5f, 1.0f, 1.5f, 3e38f};
    for (double e : edges) {
        const auto f = float(e);
        values.insert(values.end(), {f, std::nextafter(f, -INFINITY), std::nextafter(f, INFINITY)});
    }
    const std::uint32_t first = std::bit_cast<std::uint32_t>(float(edges.front()));
    const std::uint32_t last = std::bit_cast<std::uint32_t>(float(edges.back()));
    if (edges.front() > 0)
        for (std::uint32_t shift : {11u, 12u, 14u, 16u})
            for (std::uint32_t bits = first >> shift << shift; bits <= last && values.size() < 4 * samples;
                 bits += 1u << shift)
                values.insert(values.end(), {std::bit_cast<float>(bits), std::bit_cast<float>(bits - 1)});
    std::uint64_t state = 12345;
    while (values.size() % 32 != 0 || values.size() < samples) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        values.push_back(float(state >> 40) * 0x1p-24f);
    }
    TestImage img;
    img.storage.resize(values.size() * 4);
    std::memcpy(img.storage.data(), values.data(), img.storage.size());
    const auto width = std::uint32_t(values.size() / 4 / 8);
    img.view = ImageView{img.storage.data(), width, 8, std::size_t(width) * 16, PixelFormat::rgba_f32};
    return img;
}

std::vector<std::pair<std::string, Request>> parity_requests(const FormatInfo& fi) {
    std::vector<std::pair<std::string, Request>> out;
    out.push_back({"default", Request{}});
    Request r;
    r.count_alpha = true;
    r.weights = LumaWeights::rec601();
    r.sample_stats = true;  // the sample statistics too, with percentiles at both ends and between
    r.percentiles = {0, 1, 12.5, 50, 99, 100};
    out.push_back({"alpha+rec601+sample stats", r});
    r = Request{};
    r.mode = Mode::luma;
    r.weights = LumaWeights::parse("3333,3334,3333");
    out.push_back({"luma custom weights", r});
    r = Request{};
    r.mode = Mode::rgb;
    r.weights = LumaWeights::rec2020();
    if (fi.is_float()) {
        r.bins.bins = 4096;
        r.bins.range = {{-0.5, 2.0}};
        out.push_back({"float 4096 bins [-0.5, 2)", r});
        r.bins.clamp = true;
        r.mode = Mode::all;
        out.push_back({"float 4096 bins [-0.5, 2) clamp", r});
        r = Request{};
        r.bins.bins = 100;
        out.push_back({"float 100 bins [0, 1)", r});
        r.bins.range = {{0.1, 0.7}};
        r.bins.clamp = true;
        out.push_back({"float 100 bins [0.1, 0.7) clamp", r});
        // Edge bins: uneven, across zero, denormal and huge edges, 1.0 inside a bin.
        r = Request{};
        r.bins.edges = {-1e30, -2.5, -1e-40, 0, 1e-40, 1e-3, 0.1, 0.25, 0.5, 0.75, 0.999, 1.5, 4, 1e30};
        out.push_back({"float edges", r});
        r.bins.clamp = true;
        r.count_alpha = true;
        out.push_back({"float edges clamp", r});
        r = Request{};
        r.mode = Mode::luma;
        r.bins.edges = ev_edges(-12, 4, 256);  // 4096 EV bins
        out.push_back({"float 4096 EV bins", r});
        r.mode = Mode::all;
        r.bins.edges = ev_edges(-8, 0, 32);  // 256 EV bins: the GPU code windows' finest blocks
        out.push_back({"float 256 EV bins", r});
    } else {
        const double max = fi.sample == SampleType::u8 ? 256 : 65536;
        r.bins.bins = 4096;
        r.bins.range = {{-10, std::floor(max * 0.8)}};
        out.push_back({"int 4096 bins [-10, 0.8 max)", r});
        r.bins.clamp = true;
        r.mode = Mode::all;
        out.push_back({"int 4096 bins clamp", r});
        r = Request{};
        r.bins.bins = fi.sample == SampleType::u8 ? 16 : 1024;  // the shift fast path
        out.push_back({"power-of-two bins", r});
        r.bins.bins = 7;
        r.bins.range = {{17, max - 3}};
        out.push_back({"7 bins [17, max - 3)", r});
        // Edge bins: fractional edges (v >= ceil(e)), empty bins, edges past both ends.
        r = Request{};
        r.bins.edges = fi.sample == SampleType::u8
                           ? std::vector<double>{-3.5, 0.5, 1.5, 2, 17, 100.2, 100.7, 200, 254.5, 255, 300}
                           : std::vector<double>{-3.5, 0.5, 1.5, 255.5, 1000, 30000.7, 30000.9, 65534.5, 65535, 70000};
        out.push_back({"int edges", r});
        r.bins.clamp = true;
        r.count_alpha = true;
        out.push_back({"int edges clamp", r});
        r = Request{};
        r.bins.edges.clear();
        for (int k = 0; k <= 4096; ++k) r.bins.edges.push_back(-1 + k * (max + 2) / 4096.0);
        out.push_back({"int 4096 edges", r});
    }
    return out;
}

TestImage make_image(PixelFormat format, std::uint32_t width, std::uint32_t height, Pattern pattern,
                     std::uint64_t seed, std::size_t padding_bytes) {
    const FormatInfo& fi = format_info(format);
    // Padding must keep samples aligned.
    padding_bytes = (padding_bytes + fi.bytes_per_sample - 1) / fi.bytes_per_sample * fi.bytes_per_sample;
    TestImage img;
    const std::size_t stride = std::size_t(width) * fi.pixel_bytes() + padding_bytes;
    img.storage.assign(stride * height + 16, std::byte{0xA5});
    Sampler sampler(format, pattern, seed, width, height);
    std::byte* base = img.storage.data();
    for (std::uint32_t y = 0; y < height; ++y)
        for (std::uint32_t x = 0; x < width; ++x)
            if (fi.packed) sampler.write_packed(base + y * stride + std::size_t(x) * fi.pixel_bytes());
            else for (int c = 0; c < fi.channels; ++c)
                sampler.write(base + y * stride + std::size_t(x) * fi.pixel_bytes() +
                                  std::size_t(c) * fi.bytes_per_sample,
                              x, y, c);
    img.view = ImageView{base, width, height, stride, format};
    return img;
}

namespace {
// An unsigned float of 5 exponent bits (bias 15) and `mantissa_bits` mantissa bits.
float ufloat_by_hand(std::uint32_t code, int mantissa_bits) {
    const std::uint32_t exponent = code >> mantissa_bits;
    const double mantissa = double(code & ((1u << mantissa_bits) - 1));
    if (exponent == 31)
        return mantissa == 0 ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
    if (exponent == 0) return float(std::ldexp(mantissa, -14 - mantissa_bits));
    return float(std::ldexp(1.0 + std::ldexp(mantissa, -mantissa_bits), int(exponent) - 15));
}
}  // namespace

float packed_sample_by_hand(std::uint32_t word, int sample) {
    if (sample == 2) return ufloat_by_hand(word >> 22, 5);
    return ufloat_by_hand((word >> (11 * sample)) & 0x7FF, 6);
}

float packed_sample_by_hand(const ImageView& view, std::uint32_t x, std::uint32_t y, int sample) {
    std::uint32_t word;
    std::memcpy(&word, view.row(y) + std::size_t(x) * 4, 4);
    return packed_sample_by_hand(word, sample);
}

std::vector<PixelFormat> plan_pixel_formats() {
    std::vector<PixelFormat> out;
    for (PixelFormat f : all_pixel_formats)
        if (!format_info(f).packed) out.push_back(f);
    return out;
}

std::vector<std::string> available_backend_names() {
    std::vector<std::string> out;
    for (const Backend* b : backends())
        if (b->available()) out.push_back(std::string(b->name()));
    return out;
}

}  // namespace imghist::testing
