// JPEG files decoded with libjpeg-turbo's TurboJPEG API, which reads a dataset of photos markedly
// faster than OpenImageIO's JPEG reader (docs/performance.md, "Datasets of files"). Both end in
// the same libjpeg-turbo decoder with its defaults (ISLOW DCT, fancy upsampling, stored pixels:
// no EXIF rotation, no ICC conversion), so the pixels are the same. What TurboJPEG would give differently,
// or complains about at all, is left to OpenImageIO, whose answer (its pixels or its error)
// stays the reader's.
#include <turbojpeg.h>

#include <climits>
#include <cstring>
#include <memory>
#include <new>

#include "reader_internal.hpp"

namespace imghist::io::reading {

namespace {

// Decoding runs on many threads: one handle each, reused from file to file. TurboJPEG 2.1
// leaves a handle in the middle of a header after an error there (every later file would then
// fail as "two SOI markers"), so a handle that failed is replaced.
class Decompressor {
public:
    Decompressor() = default;
    Decompressor(const Decompressor&) = delete;
    Decompressor& operator=(const Decompressor&) = delete;
    ~Decompressor() { discard(); }
    tjhandle get() {
        if (!tj_) tj_ = tjInitDecompress();
        return tj_;
    }
    void discard() {
        if (tj_) tjDestroy(tj_);
        tj_ = nullptr;
    }

private:
    tjhandle tj_ = nullptr;
};
thread_local Decompressor decompressor;

// TurboJPEG decodes from memory, so the whole file is read first. A JPEG within max_pixels
// takes a few bytes a pixel at most, but markers can make a file of any size: a larger file is
// streamed by OpenImageIO instead, so the buffer never outgrows the pixels the limit allows.
bool fits_in_memory(std::uint64_t file_size, const ReadOptions& options) {
    constexpr std::uint64_t kMarkerBytes = 4u << 20, kBytesPerPixel = 4;
    if (file_size > ULONG_MAX) return false;  // TurboJPEG's size type
    return options.max_pixels == 0 || file_size <= kMarkerBytes ||
           (file_size - kMarkerBytes) / kBytesPerPixel <= options.max_pixels;
}

// The bytes of the ICC profile the JPEG carries in its APP2 "ICC_PROFILE" segments (0: none), as
// OpenImageIO reports it: the segments before the first scan, each after its 14-byte header.
std::size_t icc_profile_bytes(const unsigned char* data, std::size_t size) {
    constexpr unsigned char kApp2 = 0xE2, kStartOfScan = 0xDA;
    constexpr char kIccId[] = "ICC_PROFILE";  // with its NUL: 12 bytes, then sequence and count
    std::size_t bytes = 0;
    for (std::size_t at = 2; at + 4 <= size && data[at] == 0xFF;) {
        const unsigned char marker = data[at + 1];
        if (marker == 0xFF) { ++at; continue; }  // fill byte
        if (marker == kStartOfScan) break;
        const std::size_t length = std::size_t(data[at + 2]) << 8 | data[at + 3];
        if (marker == kApp2 && length >= 16 && at + 4 + 12 <= size && std::memcmp(data + at + 4, kIccId, 12) == 0)
            bytes += length - 16;
        at += 2 + length;
    }
    return bytes;
}

}  // namespace

std::optional<LoadedImage> read_jpeg(const std::string& path, std::uint64_t file_size, const ReadOptions& options,
                                     const PixelAllocator& allocate_pixels) {
    const tjhandle tj = decompressor.get();
    if (!tj || !fits_in_memory(file_size, options)) return std::nullopt;
    const std::unique_ptr<unsigned char[]> data(new (std::nothrow) unsigned char[file_size]);
    if (!data) return std::nullopt;  // OpenImageIO streams the file
    std::size_t size = 0;
    (void)read_start(path, data.get(), std::size_t(file_size), size);
    int width = 0, height = 0, subsampling = 0, colorspace = 0;
    // TurboJPEG refuses sampling factors it has no name for and warns about a damaged header; it
    // gives no size for a tables-only stream. OpenImageIO converts CMYK and YCCK to RGB.
    if (tjDecompressHeader3(tj, data.get(), size, &width, &height, &subsampling, &colorspace) != 0) {
        decompressor.discard();
        return std::nullopt;
    }
    if (width < 1 || height < 1 || (colorspace != TJCS_GRAY && colorspace != TJCS_YCbCr && colorspace != TJCS_RGB))
        return std::nullopt;
    check_size(std::uint64_t(width), std::uint64_t(height), options);
    const bool gray = colorspace == TJCS_GRAY;  // one channel, as OpenImageIO gives it
    const PixelFormat format = gray ? PixelFormat::gray8 : PixelFormat::rgb8;
    const int row_bytes = width * (gray ? 1 : 3);
    LoadedImage out;
    out.source_type = "uint8";
    out.pixels = allocate_pixels(image_bytes(std::uint64_t(width) * std::uint64_t(height), format_info(format).pixel_bytes()));
    // libjpeg's first warning ("Premature end of JPEG file", "Corrupt JPEG data: ...") becomes
    // an error of OpenImageIO's reader, and so a ReadError: a warning stops this decode, and
    // OpenImageIO decides. TurboJPEG also reads on to the end marker, where OpenImageIO stops
    // after the last row: what it finds there is OpenImageIO's to judge as well. A progressive
    // file of more than 500 scans (slow to decode; crafted, as a rule) goes to OpenImageIO at
    // TurboJPEG's 501st scan, so that it is not decoded in full twice.
    if (tjDecompress2(tj, data.get(), size, reinterpret_cast<unsigned char*>(out.pixels.get()), width, row_bytes, height,
                      gray ? TJPF_GRAY : TJPF_RGB, TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS) != 0)
        return std::nullopt;  // (tjDecompress2 resets the handle itself)
    if (const std::size_t icc = icc_profile_bytes(data.get(), size)) out.notes.push_back(icc_profile_note(icc));
    out.view = ImageView::packed(out.pixels.get(), std::uint32_t(width), std::uint32_t(height), format);
    return out;
}

}  // namespace imghist::io::reading
