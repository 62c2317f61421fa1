// Reads a PGM it writes (3 x 2 pixels of known values) through an installed imghist::io and
// checks the pixels and their histogram, derived by hand. Usage: consumer_io SCRATCH_FILE
#include <imghist/imghist.hpp>
#include <imghist/io.hpp>

#include <cstdio>
#include <fstream>

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    {
        std::ofstream pgm(argv[1], std::ios::binary);
        pgm << "P5\n3 2\n255\n";
        const unsigned char values[6] = {0, 7, 7, 255, 7, 0};
        pgm.write(reinterpret_cast<const char*>(values), 6);
    }
    try {
        const imghist::io::LoadedImage image = imghist::io::read_image(argv[1], {});
        if (image.view.format != imghist::PixelFormat::gray8 || image.view.width != 3 || image.view.height != 2) {
            std::fprintf(stderr, "consumer_io: wrong image\n");
            return 1;
        }
        const auto result = imghist::create_engine("cpu")->compute(image.view);
        const auto& y = result.channels.front().counts;
        if (y[0] != 2 || y[7] != 3 || y[255] != 1) {
            std::fprintf(stderr, "consumer_io: wrong counts\n");
            return 1;
        }
        (void)imghist::io::read_image(std::string(argv[1]) + ".missing", {});
        std::fprintf(stderr, "consumer_io: a missing file was read\n");
        return 1;
    } catch (const imghist::io::ReadError& e) {
        std::printf("consumer_io: imghist::io (%s) works: %s\n", imghist::io::reader_version().c_str(), e.what());
        return 0;
    }
}
