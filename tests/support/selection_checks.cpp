#include "selection_checks.hpp"

#include <bit>
#include <cstring>
#include <limits>
#include <random>

#include "contract/half.h"

namespace imghist::testing {

Mask random_mask(std::uint32_t width, std::uint32_t height, std::uint32_t seed) {
    Mask m{width, height, std::vector<std::uint8_t>(std::size_t(width) * height)};
    std::mt19937 rng(seed);
    for (auto& b : m.bytes) b = (rng() & 1) ? std::uint8_t(1 + rng() % 255) : 0;
    return m;
}

double alpha_of(const ImageView& v, std::uint32_t x, std::uint32_t y) {
    const FormatInfo& fi = v.info();
    const std::byte* p = v.row(y) + std::size_t(x) * fi.pixel_bytes() + std::size_t(fi.alpha) * fi.bytes_per_sample;
    switch (fi.sample) {
        case SampleType::u8: return double(std::uint8_t(*p));
        case SampleType::u16: { std::uint16_t a; std::memcpy(&a, p, 2); return a; }
        case SampleType::f16: { std::uint16_t h; std::memcpy(&h, p, 2); return std::bit_cast<float>(ih_half_to_float_bits(h)); }
        case SampleType::f32: { float f; std::memcpy(&f, p, 4); return f; }
    }
    return 0;
}

Selected select(const ImageView& v, const Mask* mask, std::optional<double> threshold) {
    Selected s;
    const std::size_t pb = v.info().pixel_bytes();
    for (std::uint32_t y = 0; y < v.height; ++y)
        for (std::uint32_t x = 0; x < v.width; ++x) {
            if (mask && !mask->on(x, y)) continue;
            if (threshold && !(alpha_of(v, x, y) > *threshold)) continue;
            const std::byte* p = v.row(y) + x * pb;
            s.bytes.insert(s.bytes.end(), p, p + pb);
            ++s.count;
        }
    s.bytes.resize(s.bytes.size() + 16);  // never empty, aligned by the vector
    return s;
}

Result reference_of_selected(const ImageView& v, const Selected& s, Request plain) {
    plain.mask.reset();
    plain.device_mask.reset();
    plain.alpha_threshold.reset();
    if (s.count == 0) {  // nothing selected: the reference of an empty selection is all zeros
        Result r = create_engine("reference")->compute(ImageView::packed(s.bytes.data(), 1, 1, v.format), plain);
        for (ChannelHistogram& c : r.channels) {
            std::fill(c.counts.begin(), c.counts.end(), 0);
            c.below = c.above = c.nan = 0;
            c.clipped_low_count = c.clipped_high_count = 0;
        }
        return r;
    }
    return create_engine("reference")->compute(ImageView::packed(s.bytes.data(), std::uint32_t(s.count), 1, v.format), plain);
}

std::vector<SelectionCase> device_selection_cases(bool fp32_denormals) {
    std::vector<SelectionCase> cases;
    std::uint32_t seed = 40;
    for (PixelFormat f : {PixelFormat::rgba8, PixelFormat::bgra8, PixelFormat::gray8, PixelFormat::rgb8,
                          PixelFormat::rgba16, PixelFormat::gray16, PixelFormat::rgba_f16, PixelFormat::rgb_f16,
                          PixelFormat::rgba_f32, PixelFormat::gray_f32}) {
        const FormatInfo& fi = format_info(f);
        const Pattern pattern = !fp32_denormals && fi.sample == SampleType::f32 ? Pattern::natural : Pattern::specials;
        for (std::size_t padding : {std::size_t(0), std::size_t(12)}) {
            const std::string name = std::string(fi.name) + (padding ? " strided" : " packed");
            auto add = [&](std::string what, Request r, bool use_mask) {
                cases.push_back({name + ", " + what, make_image(f, 301, 23, pattern, ++seed, padding),
                                 random_mask(301, 23, seed), use_mask, r});
            };
            Request r;
            r.count_alpha = true;
            add("mask", r, true);
            r.bins.bins = 100;
            r.bins.clamp = true;
            add("mask, 100 bins, clamp", r, true);
            Request regions;
            regions.roi = Region{3, 2, 290, 19};
            regions.tiles = {3, 2};
            add("mask, roi and tiles", regions, true);
            if (fi.alpha < 0) continue;
            const double top = fi.is_float() ? std::numeric_limits<double>::infinity()
                                             : (fi.sample == SampleType::u8 ? 255.0 : 65535.0);
            for (double t : {fi.is_float() ? 0.5 : (fi.sample == SampleType::u8 ? 127.5 : 30000.0),
                             fi.is_float() ? -0.0 : 128.0, -std::numeric_limits<double>::infinity(), top, 1e300}) {
                Request a;
                a.mode = Mode::luma;
                a.alpha_threshold = t;
                add("alpha above " + std::to_string(t), a, false);
            }
            Request both;
            both.alpha_threshold = fi.is_float() ? 0.25 : 100.0;
            add("mask and alpha threshold", both, true);
        }
    }
    return cases;
}

}  // namespace imghist::testing
