// The direct path: classify and count_code per sample, into the worker's 64-bit totals.
#include <algorithm>
#include <cstring>

#include "backends/cpu/cpu_kernels.hpp"

namespace imghist::cpu {
namespace {

// A pixel's samples, read through its FormatInfo.
struct PixelReader {
    const FormatInfo& fi;

    template <typename T>
    static T load(const std::byte* p) {
        T v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    std::uint32_t sample_int(const std::byte* px, int i) const {
        const std::byte* p = px + std::size_t(i) * fi.bytes_per_sample;
        return fi.sample == SampleType::u8 ? std::uint32_t(load<std::uint8_t>(p)) : std::uint32_t(load<std::uint16_t>(p));
    }
    float sample_float(const std::byte* px, int i) const {
        const std::byte* p = px + std::size_t(i) * fi.bytes_per_sample;
        return fi.sample == SampleType::f32 ? load<float>(p) : half_to_float(load<std::uint16_t>(p));
    }
};

// Counts every plan channel of one pixel.
void count_pixel(Counters& k, const Classifier& cl, const PixelReader& in, const std::byte* px) {
    const HistogramPlan& plan = cl.plan;
    const FormatInfo& fi = in.fi;
    for (std::size_t c = 0; c < plan.channels.size(); ++c) {
        const int src = plan.sources[c];
        if (fi.is_float()) {
            k.count(c, cl.of_float(src != kLumaSource
                                       ? in.sample_float(px, src)
                                       : ih_luma_float(in.sample_float(px, fi.red), in.sample_float(px, fi.green),
                                                       in.sample_float(px, fi.blue), plan.weight_float[0],
                                                       plan.weight_float[1], plan.weight_float[2])));
        } else {
            k.count(c, cl.of_int(src != kLumaSource
                                     ? in.sample_int(px, src)
                                     : ih_luma_int(in.sample_int(px, fi.red), in.sample_int(px, fi.green),
                                                   in.sample_int(px, fi.blue), plan.weight_int[0],
                                                   plan.weight_int[1], plan.weight_int[2])));
        }
    }
}

}  // namespace

void count_direct(Counters& k, const ImageView& image, std::uint64_t begin, std::uint64_t end) {
    const HistogramPlan& plan = *k.plan;
    const PixelReader in{plan.info};
    const std::size_t pixel_bytes = plan.info.pixel_bytes();
    const std::uint64_t width = image.width;
    const Classifier cl{plan, k.clipping};
    for (std::uint64_t pos = begin; pos < end;) {
        const auto y = std::uint32_t(pos / width);
        const auto x0 = std::uint32_t(pos % width);
        const auto n = std::uint32_t(std::min<std::uint64_t>(width - x0, end - pos));
        const std::byte* row = image.row(y);
        for (std::uint32_t x = x0; x < x0 + n; ++x) count_pixel(k, cl, in, row + std::size_t(x) * pixel_bytes);
        pos += n;
    }
}

}  // namespace imghist::cpu
