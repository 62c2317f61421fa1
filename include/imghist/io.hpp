// imghist::io, the optional file reader (find_package(imghist COMPONENTS io), target
// imghist::io; built when OpenImageIO and libtiff are found, with TurboJPEG for JPEG files where
// it is found): image files read into owned pixels and an imghist view of them, in the file's
// own sample type, with no premultiplication and no colour conversion, and a size guard checked
// from the header before decoding. The reader is chosen by the file's content among the trusted
// formats (docs/cli.md, "Reading policy"); OpenImageIO's other readers are used only when asked
// for (ReadOptions::untrusted_readers). The command line and the Python package (imghist.read,
// imghist.histogram_file) use it.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "imghist/image.hpp"
#include "imghist/request.hpp"

namespace imghist::io {

// Whoever lends pixel memory to images and takes it back when an image is done with it: buffers
// reused from file to file, so that a file does not pay for fresh pages (their faults and
// zeroing cost more than a histogram of them). It must outlive the images it lends to.
class PixelLender {
public:
    virtual void take_back(std::byte* pixels) noexcept = 0;

protected:
    ~PixelLender() = default;
};

// Frees pixels from new[], unmaps a mapping, or hands lent pixels back.
struct PixelRelease {
    std::size_t mapped_bytes = 0;   // non-zero: the pixels are a mapping of this many bytes
    PixelLender* lender = nullptr;  // non-null: the pixels are lent by it
    void operator()(std::byte* p) const noexcept {
        if (lender) lender->take_back(p);
        else if (mapped_bytes) ::munmap(p, mapped_bytes);
        else delete[] p;
    }
};

// A camera raw file's sensor data beside its counts (docs/semantics.md, "Camera raw"): the
// image holds one 2 x 2 block of the colour filter array per pixel, its samples in the order
// R, G1, B, G2 (G1 the green of the red row), as an rgba16 view. Trivially copyable: the
// decoder process sends it as bytes.
struct SensorChannels {
    static constexpr int kChannels = 4;
    char pattern[5] = {};                         // the top-left 2 x 2 colours, row by row: "RGGB"
    std::uint32_t bits = 0;                       // the sensor's bits per sample, as LibRaw reads it
    std::uint32_t black[kChannels] = {};          // black level per channel, in raw units
    std::uint32_t white = 0;                      // the white (saturation) level LibRaw gives
    std::uint32_t maximum[kChannels] = {};        // the largest value measured per channel
    std::uint64_t clipped[kChannels] = {};        // samples at or above the white level
    // Samples more than 8 EV below saturation: above black by less than (white - black) / 256.
    std::uint64_t underexposed[kChannels] = {};
    std::uint64_t clipped_any = 0, clipped_all = 0;  // blocks with one / every channel clipped
    std::uint64_t blocks = 0;                     // the blocks counted (the image's pixels)
    bool black_subtracted = false;                // the image holds value - black (ReadOptions)
    std::uint32_t ev_per_stop = 0;                // counted on an EV axis from white (ReadOptions)
    bool operator==(const SensorChannels&) const = default;
};
// "R", "G1", "B", "G2": the name of the image's sample `channel` of a camera raw file.
inline const char* sensor_channel_name(int channel) {
    constexpr const char* kNames[SensorChannels::kChannels] = {"R", "G1", "B", "G2"};
    return channel >= 0 && channel < SensorChannels::kChannels ? kNames[channel] : "?";
}
// The image's channel that holds sensor channel `channel` (R, G1, B, G2 as R, G, B, A), and back
// (-1 for any other channel).
inline Channel sensor_held_as(int channel) {
    constexpr Channel kHeldAs[SensorChannels::kChannels] = {Channel::R, Channel::G, Channel::B, Channel::A};
    return kHeldAs[channel];
}
inline int sensor_channel_of(Channel held_as) {
    for (int c = 0; c < SensorChannels::kChannels; ++c)
        if (sensor_held_as(c) == held_as) return c;
    return -1;
}

// Pixels read from one file, owned, with the view that describes them.
struct LoadedImage {
    std::unique_ptr<std::byte[], PixelRelease> pixels;
    ImageView view;
    std::string source_type;           // the file's sample type as OpenImageIO names it ("uint8")
    std::vector<std::string> notes;    // conversions the reader made that the user should know
    std::optional<SensorChannels> sensor;  // camera raw files only
};

// Why a file could not be read; the message is one line and does not repeat the file name.
class ReadError : public std::exception {
public:
    explicit ReadError(std::string message) : message_(std::move(message)) {}
    const char* what() const noexcept override { return message_.c_str(); }

private:
    std::string message_;
};

struct ReadOptions {
    std::uint64_t max_pixels = 0;     // 0 = no limit
    bool untrusted_readers = false;   // also OpenImageIO's less safe readers, chosen by extension
    bool subtract_black = false;      // camera raw: each value less its channel's black level (0 at or below)
    // Camera raw: count on an EV axis from the white level, this many bins per stop (at most
    // kMaxEvFromWhitePerStop, src/io/ev_from_white.hpp); 0 counts raw units.
    std::uint32_t ev_from_white = 0;
    // Camera raw files are read as their CFA block image (LoadedImage::sensor), which must be
    // counted per channel (R, G1, B, G2: Mode::rgb with the fourth counted, as histogram_files
    // does); false refuses them, so that a caller that counts images as photos never gets one.
    bool camera_raw = false;
};

// Where the pixels of a LoadedImage are allocated: `bytes` of zero-initialised or writable
// memory, owned by the returned pointer (a decoder process passes its memfd mapping, so the
// decoder writes straight into the memory handed to the worker). Throws on failure.
using PixelAllocator = std::function<decltype(LoadedImage::pixels)(std::size_t bytes)>;
// Heap memory (new[]); "out of memory" is a ReadError.
decltype(LoadedImage::pixels) allocate_on_heap(std::size_t bytes);

// Reads the first subimage at full resolution. Throws ReadError (missing file, not an image,
// truncated or corrupt data, zero or oversized dimensions, unsupported channel layout). The
// view it returns is packed at the start of `pixels`.
LoadedImage read_image(const std::string& path, const ReadOptions& options,
                       const PixelAllocator& allocate_pixels = allocate_on_heap);

// Whether the file has channels the image leaves out (an alpha beside gray, channels other than
// R, G, B, A and Y), which its notes say.
bool left_channels_out(const LoadedImage& image);

// What read_image() refuses before any decoder sees the file, from imghist's own checks of its
// type, size and first bytes: a missing, unreadable, empty or not regular file, content the
// reading policy gives no reader, and headers known to mislead a decoder. Throws the ReadError
// read_image() would. The command runs it in its own process, so such files cost no decoder.
void check_before_decoding(const std::string& path, const ReadOptions& options);

// Lower-case extensions (without the dot), sorted, that a directory walk picks up: those of the
// trusted formats, or with `untrusted_readers` every format this OpenImageIO reads (video,
// volume and camera-raw readers are left out even then: name such files explicitly).
const std::vector<std::string>& image_extensions(bool untrusted_readers);

// "PNG, JPEG, TIFF, ...": the formats read without --untrusted-readers.
std::string trusted_format_names();

// "OpenImageIO 2.4.7", and ", TurboJPEG 2.1.5 for JPEG" where it decodes JPEG files.
std::string reader_version();

// The file's size on disk, for throughput figures; 0 where it has none (a FIFO, a missing file).
std::uint64_t file_bytes(const std::string& path);

// Shares the decoder threads OpenImageIO may start among our workers.
void configure_reader_threads(unsigned threads);

}  // namespace imghist::io
