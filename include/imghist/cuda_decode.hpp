// JPEG files decoded on the GPU and counted there: encoded bytes in, histograms out, the pixels
// never copied back to the host. nvImageCodec (PyPI's nvidia-nvimgcodec-cu13, with
// nvidia-nvjpeg) decodes them with the GPU's hardware JPEG decoder where it has one, into device
// memory that the CUDA engine then counts in one batched launch. The library is loaded when a
// decoder is made, so a program built with this API still runs where nvImageCodec is missing:
// make_jpeg_decoder() then throws BackendUnavailable saying what to install.
//
//   auto engine = imghist::cuda::create_engine();
//   imghist::cuda::JpegDecoder& decoder = imghist::cuda::jpeg_decoder(*engine);
//   std::vector<imghist::cuda::GpuDecoded> out = decoder.histograms(files, request);
//
// nvJPEG's inverse DCT is not libjpeg-turbo's: decoded samples may differ from the CPU reader's
// by small amounts (docs/performance.md gives the measured difference). The histogram is exact
// for the pixels decoded. Available when imghist was built with the CUDA backend and found
// nvImageCodec's headers (IMGHIST_NVIMGCODEC); jpeg_decode_available() says so at run time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "imghist/cuda.hpp"

namespace imghist::cuda {

// One file's outcome.
struct GpuDecoded {
    std::optional<Result> result;  // counted from the pixels the GPU decoded
    // Empty when counted. Otherwise why the GPU did not decode the file (not a JPEG, CMYK,
    // 12-bit, larger than max_pixels, or nvImageCodec's status); the file is meant to go to
    // the CPU reader, which decodes it or reports the real error.
    std::string not_decoded;
    PixelFormat format = PixelFormat::rgb8;  // rgb8, or gray8 for one-channel JPEGs
    std::uint32_t width = 0, height = 0;
};

struct JpegDecoderOptions {
    // nvImageCodec's host threads (Huffman decoding where the GPU has no hardware decoder for
    // a file); 0: one per core.
    unsigned cpu_threads = 0;
};

class JpegDecoder {
public:
    virtual ~JpegDecoder() = default;
    // Decodes every file of `files` (encoded bytes in host memory) and counts those decoded
    // with `request`, in as few launches as possible. One outcome per file, in order. Images of
    // more than `max_pixels` pixels (0: no limit) are not decoded, checked from the header.
    // Throws DeviceError when the device fails, InvalidArgument for a bad request.
    virtual std::vector<GpuDecoded> histograms(std::span<const std::span<const std::byte>> files,
                                               const Request& request, std::uint64_t max_pixels = 0) = 0;
    // The same, and copies each decoded image back to host memory, packed rows (pixels[i] is
    // empty for a file not decoded): for checks, not for speed.
    virtual std::vector<GpuDecoded> histograms(std::span<const std::span<const std::byte>> files,
                                               const Request& request, std::uint64_t max_pixels,
                                               std::vector<std::vector<std::byte>>& pixels) = 0;
    // "nvImageCodec 0.9.0", for reports.
    virtual std::string decoder_name() const = 0;
};

// The engine's own decoder, made on first use with default options and kept until the engine
// goes: making one costs about a second (nvImageCodec loads its codecs and sets up the hardware
// decoder), so repeated dataset calls on one engine pay it once. Throws as make_jpeg_decoder.
JpegDecoder& jpeg_decoder(imghist::Engine& engine);

// A decoder of its own counting on `engine` (made by cuda::create_engine), on its device. Throws
// BackendUnavailable when nvImageCodec cannot be loaded (the message says what to install or
// set: IMGHIST_NVIMGCODEC_LIBRARY names libnvimgcodec.so.0), InvalidArgument for an engine of
// another backend.
std::unique_ptr<JpegDecoder> make_jpeg_decoder(imghist::Engine& engine, const JpegDecoderOptions& options = {});

// Whether this build has GPU JPEG decoding and nvImageCodec loads; `why` gets the reason when not.
bool jpeg_decode_available(std::string* why = nullptr);

}  // namespace imghist::cuda
