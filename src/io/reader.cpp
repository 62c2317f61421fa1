// Reading a file: the policy picks the reader, then imghist's own readers (PNM; libpng, TurboJPEG,
// libheif and LibRaw where built in) or OpenImageIO's (reader_oiio.cpp, reached through oiio():
// the command loads them only for a file that needs them) give the stored samples.
#include <algorithm>
#include <atomic>
#include <optional>

#include "oiio_readers.hpp"
#include "reader_internal.hpp"
#if IMGHIST_IO_LIBRAW
#include <libraw/libraw.h>
#endif
#if IMGHIST_IO_LIBHEIF
#include <libheif/heif.h>
#endif

namespace imghist::io {

using namespace reading;

namespace {

// The decoder threads configure_reader_threads() last asked for; 0 = OpenImageIO's default.
std::atomic<unsigned> wanted_reader_threads{0};
std::atomic<bool> oiio_ready{false};

}  // namespace

const OiioReaders& reading::oiio() {
    static const OiioReaders& readers = []() -> const OiioReaders& {
        const OiioReaders& found = find_oiio_readers();
        if (const unsigned threads = wanted_reader_threads.load()) found.set_threads(threads);
        oiio_ready = true;
        return found;
    }();
    return readers;
}

bool reading::oiio_loaded() { return oiio_ready; }

decltype(LoadedImage::pixels) allocate_on_heap(std::size_t bytes) { return heap_bytes(bytes); }

bool left_channels_out(const LoadedImage& image) {
    return std::any_of(image.notes.begin(), image.notes.end(), [](const std::string& note) {
        return note == kGrayAlphaNote || note.rfind(kChannelsLeftOutNote, 0) == 0;
    });
}

namespace {

// LibRaw's reader, for callers that count camera raw files per channel (ReadOptions::camera_raw).
std::string checked_camera_raw(const ReadOptions& options) {
    if (!options.camera_raw)
        throw ReadError("camera raw file: it is counted per colour filter channel by the imghist command, which this "
                        "caller of the reader does not ask for");
    return kCameraRawReader;
}

// What is refused from the file's type, size and headers, with imghist's own code only: the
// reader the file gets, or "" for a PNM that imghist reads itself.
std::string checked_reader(const std::string& path, const FileHead& head, const ReadOptions& options) {
    if (is_pnm_read_here(head.bytes, head.count)) return "";
    const std::string reader = choose_reader(path, head.bytes, head.count, options);
    if (reader == "png") check_png_chunks(path, head.size);
    if (reader == "gif") check_gif_screen(head, options);
    if (reader == "tiff")
        if (const std::vector<std::string> marks = camera_raw_marks(path, head); !marks.empty()) {
            if (!kHaveLibRaw) refuse_camera_raw(marks);
            return checked_camera_raw(options);
        }
    if (reader == kCameraRawReader) return checked_camera_raw(options);
    if (reader == "bmp") check_bmp_header(head);
    return reader;
}

}  // namespace

void check_before_decoding(const std::string& path, const ReadOptions& options) {
    (void)checked_reader(path, inspect(path), options);
}

LoadedImage read_image(const std::string& path, const ReadOptions& options, const PixelAllocator& allocate_pixels) {
    const FileHead head = inspect(path);
    const std::string reader = checked_reader(path, head, options);
    if (reader.empty()) return read_pnm(path, head.size, options, allocate_pixels);
    // Some of OpenImageIO's decoders throw on corrupt files (a GIF header can make its reader
    // throw std::length_error): that is the file's fault, reported like any other.
    try {
#if IMGHIST_IO_LIBRAW
        if (reader == kCameraRawReader) return read_camera_raw(path, options, allocate_pixels);
#endif
#if IMGHIST_IO_LIBHEIF
        if (reader == kHeifReader) return read_heif(path, options, allocate_pixels);
#endif
#if IMGHIST_IO_LIBPNG
        if (reader == "png")
            if (std::optional<LoadedImage> image = read_png(path, options, allocate_pixels)) return std::move(*image);
#endif
#if IMGHIST_IO_TURBOJPEG
        if (reader == "jpeg")
            if (std::optional<LoadedImage> image = read_jpeg(path, head.size, options, allocate_pixels))
                return std::move(*image);
#endif
        return oiio().read(path, reader, options, allocate_pixels);
    } catch (const ReadError&) {
        throw;
    } catch (const std::exception& e) {
        throw ReadError("the " + reader + " decoder failed: " + one_line(e.what()));
    }
}

std::string reader_version() {
    std::string version = oiio().version();
#if IMGHIST_IO_TURBOJPEG
    version += ", " IMGHIST_IO_TURBOJPEG_NAME " for JPEG";
#endif
#if IMGHIST_IO_LIBRAW
    version += ", LibRaw " + std::string(LibRaw::version()) + " for camera raw";
#endif
#if IMGHIST_IO_LIBHEIF
    version += ", libheif " + std::string(heif_get_version()) + " for HEIC/AVIF";
#endif
    return version;
}

void configure_reader_threads(unsigned threads) {
    wanted_reader_threads = std::max(1u, threads);
    if (oiio_loaded()) oiio().set_threads(threads);  // else when oiio() first loads the readers
}

}  // namespace imghist::io

