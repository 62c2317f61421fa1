// JPEG files made and read with libjpeg-turbo's TurboJPEG API, for the GPU decoding tests and
// benchmark (tests/cuda/test_cuda_jpeg.cpp, bench/cuda/jpeg_dataset_bench.cpp): encoded bytes
// of known pixels, and libjpeg-turbo's own decode of them (the pixels a CPU reader gets).
#pragma once

#include <turbojpeg.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace imghist::testing {

struct JpegSettings {
    int quality = 90;
    int subsampling = TJSAMP_420;  // TJSAMP_444, _422, _420, _440, _411, or TJSAMP_GRAY
    bool progressive = false;
};

// Pixels of `channels` (1: gray, 3: RGB, 4: CMYK) samples per pixel, packed rows.
inline std::vector<std::byte> encode_jpeg(const std::vector<std::uint8_t>& pixels, int width, int height, int channels,
                                          const JpegSettings& s) {
    tjhandle h = tjInitCompress();
    if (!h) throw std::runtime_error("tjInitCompress failed");
    unsigned char* out = nullptr;
    unsigned long size = 0;
    const int format = channels == 1 ? TJPF_GRAY : channels == 4 ? TJPF_CMYK : TJPF_RGB;
    const int flags = TJFLAG_ACCURATEDCT | (s.progressive ? TJFLAG_PROGRESSIVE : 0);
    const int sampling = channels == 1 ? TJSAMP_GRAY : s.subsampling;
    const int rc = tjCompress2(h, pixels.data(), width, 0, height, format, &out, &size, sampling, s.quality, flags);
    const std::string why = rc != 0 ? tjGetErrorStr2(h) : "";
    tjDestroy(h);
    if (rc != 0) {
        tjFree(out);
        throw std::runtime_error("tjCompress2 failed: " + why);
    }
    std::vector<std::byte> bytes(reinterpret_cast<const std::byte*>(out), reinterpret_cast<const std::byte*>(out) + size);
    tjFree(out);
    return bytes;
}

// libjpeg-turbo's decode (accurate integer IDCT, fancy upsampling: libjpeg's defaults, which
// OpenImageIO's reader also uses): RGB, or one channel for gray JPEGs. Empty on failure.
struct DecodedJpeg {
    std::vector<std::uint8_t> pixels;
    int width = 0, height = 0, channels = 0;
};
inline DecodedJpeg decode_jpeg(const std::vector<std::byte>& bytes) {
    DecodedJpeg d;
    tjhandle h = tjInitDecompress();
    if (!h) return d;
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
    int sampling = 0, colorspace = 0;
    if (tjDecompressHeader3(h, data, bytes.size(), &d.width, &d.height, &sampling, &colorspace) == 0) {
        d.channels = colorspace == TJCS_GRAY ? 1 : 3;
        d.pixels.resize(std::size_t(d.width) * d.height * d.channels);
        if (tjDecompress2(h, data, bytes.size(), d.pixels.data(), d.width, 0, d.height,
                          d.channels == 1 ? TJPF_GRAY : TJPF_RGB, TJFLAG_ACCURATEDCT) != 0)
            d = {};
    }
    tjDestroy(h);
    return d;
}

}  // namespace imghist::testing
