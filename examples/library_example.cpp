// The README's library example: histogram an RGBA8 buffer on the best available backend.
#include <imghist/imghist.hpp>

#include <cstdio>
#include <vector>

int main() {
    std::vector<unsigned char> rgba(640 * 480 * 4, 128);  // your pixels here
    auto engine = imghist::create_engine("auto");         // or "cpu", "cuda", "opencl", "vulkan"
    imghist::Request request;                             // mode all, Rec. 709, default bins
    auto result = engine->compute(imghist::ImageView::packed(rgba.data(), 640, 480, imghist::PixelFormat::rgba8), request);
    for (const auto& h : result.channels)
        std::printf("%s: median bin %u, clipped high %.2f%%\n", std::string(imghist::channel_name(h.channel)).c_str(), h.stats().median.value_or(0), 100 * h.stats().clipped_high.value_or(0));
}
