// The CPU reader of the GPU JPEG tests and benchmark where imghist::io is not built (the GPU machine
// has no OpenImageIO): JPEGs only, decoded by libjpeg-turbo's TurboJPEG API with libjpeg's
// defaults, so the pixels are those OpenImageIO's JPEG reader gives. Anything else is a
// ReadError. With imghist::io built, they link the real reader instead.
#include <turbojpeg.h>

#include <fstream>
#include <iterator>
#include <new>

#include "imghist/io.hpp"

namespace imghist::io {

decltype(LoadedImage::pixels) allocate_on_heap(std::size_t bytes) {
    try {
        return decltype(LoadedImage::pixels)(new std::byte[bytes]);
    } catch (const std::bad_alloc&) {
        throw ReadError("out of memory");
    }
}

LoadedImage read_image(const std::string& path, const ReadOptions& options, const PixelAllocator& allocate_pixels) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ReadError("cannot open the file");
    const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    tjhandle h = tjInitDecompress();
    if (!h) throw ReadError("tjInitDecompress failed");
    int width = 0, height = 0, sampling = 0, colorspace = 0;
    if (tjDecompressHeader3(h, bytes.data(), bytes.size(), &width, &height, &sampling, &colorspace) != 0) {
        tjDestroy(h);
        throw ReadError("not a JPEG this benchmark's reader decodes");
    }
    if (options.max_pixels && std::uint64_t(width) * std::uint64_t(height) > options.max_pixels) {
        tjDestroy(h);
        throw ReadError("larger than max_pixels");
    }
    const bool gray = colorspace == TJCS_GRAY;
    const std::size_t row = std::size_t(width) * (gray ? 1 : 3);
    LoadedImage image;
    image.pixels = allocate_pixels(row * std::size_t(height));
    const int rc = tjDecompress2(h, bytes.data(), bytes.size(), reinterpret_cast<unsigned char*>(image.pixels.get()),
                                 width, int(row), height, gray ? TJPF_GRAY : TJPF_RGB, TJFLAG_ACCURATEDCT);
    const std::string why = rc != 0 ? tjGetErrorStr2(h) : "";
    tjDestroy(h);
    if (rc != 0) throw ReadError("the JPEG decoder failed: " + why);
    image.view = ImageView{image.pixels.get(), std::uint32_t(width), std::uint32_t(height), row,
                           gray ? PixelFormat::gray8 : PixelFormat::rgb8};
    image.source_type = "uint8";
    return image;
}

}  // namespace imghist::io
