// --stats: the sample statistics of device images (sample_stats.cu) against the histogram alone,
// on 8K device-resident RGBA images of each sample type: compute_device -> Result, host clock
// (the statistics come back with the Result), R, G, B with 256 bins (257 for floats' default).
// Three requests per image: the histogram alone; with sample_stats and no percentiles (count,
// sum, mean, variance); with sample_stats and the default percentiles (1, 50, 99). The 16-bit
// image is the half image's bits read as integers (spread over 0..0x3C00 like the half values).
#include <string>

#include "cuda_bench.hpp"

namespace imghist_bench {

namespace {
cudaError_t generate(imghist::PixelFormat format, void* out, uint32_t w, uint32_t h, int dist, cudaStream_t s) {
    switch (format) {
        case imghist::PixelFormat::rgba8: return generate_rgba8(out, w, h, dist, s);
        case imghist::PixelFormat::rgba_f32: return generate_rgba_f32(out, w, h, dist, s);
        default: return generate_rgba_f16(out, w, h, dist, s);  // rgba16 and rgba_f16
    }
}
}  // namespace

void stats_table(Bench& b, imghist::cuda::Engine& engine) {
    line("%s", "");
    line("8K, sample statistics of device images (compute_device -> Result, host clock; R, G, B)");
    line("%-10s %-9s %11s %11s %9s %11s %9s", "format", "data", "histogram", "+mean/var", "x hist", "+pctiles",
         "x hist");
    const uint32_t w = 7680, h = 4320;
    for (const auto format : {imghist::PixelFormat::rgba8, imghist::PixelFormat::rgba16, imghist::PixelFormat::rgba_f16,
                              imghist::PixelFormat::rgba_f32})
        for (int d : {kRandom, kNatural}) {
            CK(generate(format, b.image, w, h, d, b.stream));
            CK(cudaStreamSynchronize(b.stream));
            const auto view = on_device(b.image, w, h, format);
            const imghist::Request hist = rgb_request();
            imghist::Request moments = hist;
            moments.sample_stats = true;
            moments.percentiles.clear();
            imghist::Request percentiles = moments;
            percentiles.percentiles = imghist::default_percentiles();
            const auto time = [&](const imghist::Request& r) {
                return host_median_us(3, 30, [&] { (void)engine.compute_device(view, r, b.stream); });
            };
            const double alone = time(hist), with_moments = time(moments), with_percentiles = time(percentiles);
            line("%-10s %-9s %11.1f %11.1f %8.2fx %11.1f %8.2fx", std::string(imghist::format_info(format).name).c_str(),
                 dist_name(d), alone, with_moments, with_moments / alone, with_percentiles, with_percentiles / alone);
        }
}

}  // namespace imghist_bench
