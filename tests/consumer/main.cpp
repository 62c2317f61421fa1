// Links against an installed imghist and checks one histogram it can derive by hand.
#include <imghist/imghist.hpp>

#include <cstdio>
#include <vector>

int main() {
    std::vector<unsigned char> pixels;
    for (int v = 0; v < 256; ++v) pixels.insert(pixels.end(), {(unsigned char)v, 0, 255, 255});
    auto engine = imghist::create_engine("cpu");
    auto result = engine->compute(imghist::ImageView::packed(pixels.data(), 256, 1, imghist::PixelFormat::rgba8));
    const auto* red = result.find(imghist::Channel::R);
    const auto* blue = result.find(imghist::Channel::B);
    for (int k = 0; k < 256; ++k)
        if (red->counts[k] != 1) { std::fprintf(stderr, "consumer: R bin %d wrong\n", k); return 1; }
    if (blue->counts[255] != 256) { std::fprintf(stderr, "consumer: B bin 255 wrong\n"); return 1; }
    // DeviceImage's members link from the shared library too (a stride below one row is refused).
    try {
        imghist::DeviceImage{1u << 20, 0, 256, 2, 4, imghist::PixelFormat::rgba8}.validate();
        std::fprintf(stderr, "consumer: a 4-byte stride of a 1024-byte row was accepted\n");
        return 1;
    } catch (const imghist::InvalidArgument&) {
    }
    std::printf("consumer: imghist %s works\n", std::string(imghist::version()).c_str());
    return 0;
}
