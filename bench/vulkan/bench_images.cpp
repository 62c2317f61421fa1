#include "bench_images.hpp"

#include <algorithm>
#include <cstring>

namespace imghist::vkbench {
namespace {

// Sample c of a pixel at `px`: `unit` (in [0, 1)) scaled to the integer range, or as a float.
void write_sample(std::byte* px, int c, SampleType sample, double unit) {
    switch (sample) {
        case SampleType::u8: px[c] = std::byte(std::uint8_t(unit * 256)); break;
        case SampleType::u16: {
            const auto v = std::uint16_t(unit * 65536);
            std::memcpy(px + 2 * c, &v, 2);
            break;
        }
        case SampleType::f16: {
            const _Float16 v = _Float16(float(unit));
            std::memcpy(px + 2 * c, &v, 2);
            break;
        }
        default: {
            const float v = float(unit);
            std::memcpy(px + 4 * c, &v, 4);
        }
    }
}

std::uint64_t splitmix(std::uint64_t& s) {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// One sample in [0, 1) of channel c at (x, y) from the random number r.
double unit_sample(Pattern p, std::uint64_t r, std::uint32_t x, std::uint32_t y, int c, std::uint32_t w,
                   std::uint32_t h) {
    double unit = 0;
    switch (p) {
        case Pattern::random: unit = double(r >> 11) * 0x1.0p-53; break;
        case Pattern::natural: {
            const double g = 0.5 * double(x) / w + 0.3 * double(y) / h + 0.1 * c;
            unit = std::clamp(g + double(std::int64_t(r % 21) - 10) / 512.0, 0.0, 0.999);
            break;
        }
        case Pattern::constant: unit = 0.4; break;
        case Pattern::bank: unit = (7 + 32 * double(r % 8)) / 256.0; break;
    }
    return unit;
}

}  // namespace

HostImage generate(const std::string& label, PixelFormat format, std::uint32_t w, std::uint32_t h, Pattern p) {
    HostImage img{label, format, w, h, p, {}};
    const FormatInfo& fi = format_info(format);
    img.pixels.resize(std::size_t(w) * h * fi.pixel_bytes());
    bench::on_every_core([&](unsigned t, unsigned threads) {
        std::uint64_t state = 0x1234567ull * (t + 1);
        for (std::uint32_t y = t; y < h; y += threads) {
            for (std::uint32_t x = 0; x < w; ++x) {
                std::byte* px = img.pixels.data() + (std::size_t(y) * w + x) * fi.pixel_bytes();
                for (int c = 0; c < fi.channels; ++c) {
                    const double unit = unit_sample(p, splitmix(state), x, y, c, w, h);
                    write_sample(px, c, fi.sample, unit);
                }
            }
        }
    });
    return img;
}


}  // namespace imghist::vkbench
