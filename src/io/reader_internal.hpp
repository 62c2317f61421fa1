// What the reader's own files share (src/io/reader*.cpp), not part of the reader's interface:
// checks and buffers every reader uses, the reading policy, and the readers imghist has of its
// own (PNM, TIFF around OpenImageIO, JPEG through TurboJPEG, raw pixels).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "imghist/io.hpp"

namespace imghist::io::reading {

// --- reader_common.cpp: shared by every reader ----------------------------------------------

// OpenImageIO messages may span lines; the report wants one.
std::string one_line(std::string text);
// "a,b,c".
std::string join(const std::vector<std::string>& items);
// The note of a file that carries an ICC profile of `bytes` bytes (Adobe RGB, Display P3, ...).
std::string icc_profile_note(std::size_t bytes);
// The message for an errno of stat() or open() on the input.
std::string path_error(int error);

struct FileHead {
    std::uint64_t size = 0;
    unsigned char bytes[32] = {};  // enough for every header check made from it
    std::size_t count = 0;
};
// Checks that `path` is a readable, non-empty regular file and reads its first bytes.
FileHead inspect(const std::string& path);
// Reads up to `n` bytes from the start of the regular file `path` into `dst` (`count` of them;
// fewer where the file is shorter or a read fails) and returns the file's size.
std::uint64_t read_start(const std::string& path, unsigned char* dst, std::size_t n, std::size_t& count);

// Zero sizes, sizes above options.max_pixels and sizes that do not fit 32 bits are ReadErrors.
void check_size(std::uint64_t width, std::uint64_t height, const ReadOptions& options);
// The format of `channels` (1, 3 or 4) samples of this type, in imghist's order.
PixelFormat format_for(SampleType sample, int channels);
// The bytes of `pixels` pixels of `pixel_bytes` each; too many for this machine is a ReadError.
std::size_t image_bytes(std::uint64_t pixels, std::size_t pixel_bytes);
// new[] memory; "out of memory" is a ReadError.
decltype(LoadedImage::pixels) heap_bytes(std::size_t bytes);
// A working buffer of the reader's own (never the result's pixels).
decltype(LoadedImage::pixels) allocate(std::uint64_t pixels, std::size_t pixel_bytes);

// The notes of channels a reader leaves out (left_channels_out() looks for them).
inline constexpr const char* kGrayAlphaNote = "alpha (A) was not counted: imghist has no gray + alpha format";
inline constexpr std::string_view kChannelsLeftOutNote = "channels not counted: ";

// --- reader_policy.cpp: which reader a file gets --------------------------------------------

// (extension, reader) for every reader compiled into OpenImageIO; extensions in lower case.
// Loads OpenImageIO's readers (oiio()).
const std::vector<std::pair<std::string, std::string>>& reader_extensions();
// The same as known without loading OpenImageIO (its 2.4 list), for sorting a folder's files.
const std::vector<std::pair<std::string, std::string>>& known_reader_extensions();
// Whether the file's extension names a format imghist decodes itself (PNM, and JPEG, HEIC/AVIF
// and camera raw where built with their libraries): a guess, for loading OpenImageIO's readers
// ahead of the files that need them; the content still picks the reader.
bool decoded_without_oiio_by_extension(const std::string& path);
// OpenImageIO's name of the reader for this file (the first `n` bytes are `head`); throws
// ReadError when the policy reads it with none.
std::string choose_reader(const std::string& path, const unsigned char* head, std::size_t n,
                          const ReadOptions& options);
// Refuses PNG files whose chunks claim more bytes than the file holds (before libpng sees them).
void check_png_chunks(const std::string& path, std::uint64_t file_size);
// Refuses GIF files whose logical screen (the canvas OpenImageIO allocates on open) exceeds
// options.max_pixels, from the header alone.
void check_gif_screen(const FileHead& head, const ReadOptions& options);
// Refuses BMP files whose DIB header is of a size OpenImageIO's BMP reader does not read in full.
void check_bmp_header(const FileHead& head);

// --- reader_camera_raw.cpp: TIFF-based camera raw files ------------------------------------

// Whether imghist is built with LibRaw, and the name its reader of camera raw files goes by.
#if IMGHIST_IO_LIBRAW
inline constexpr bool kHaveLibRaw = true;
#else
inline constexpr bool kHaveLibRaw = false;
#endif
inline constexpr const char* kCameraRawReader = "libraw";
#if IMGHIST_IO_TURBOJPEG
inline constexpr bool kHaveTurboJpeg = true;
#else
inline constexpr bool kHaveTurboJpeg = false;
#endif
#if IMGHIST_IO_LIBPNG
inline constexpr bool kHaveLibPng = true;
#else
inline constexpr bool kHaveLibPng = false;
#endif

// --- reader_heif.cpp: HEIC/HEIF and AVIF through libheif (built where IMGHIST_IO_LIBHEIF is 1)

#if IMGHIST_IO_LIBHEIF
inline constexpr bool kHaveLibHeif = true;
#else
inline constexpr bool kHaveLibHeif = false;
#endif
// OpenImageIO's name for its HEIF reader, which libheif replaces where imghist is built with it.
inline constexpr const char* kHeifReader = "heif";
// The primary image as rgb8/rgba8, or for more than 8 bits rgb16/rgba16 holding the values
// unscaled (10-bit: 0 .. 1023); a note names an ICC profile.
LoadedImage read_heif(const std::string& path, const ReadOptions& options, const PixelAllocator& allocate_pixels);

// Why the first directory marks a TIFF as camera raw (DNG tags, a CFA or linear raw photometric,
// a preview subfile type, a CR2 signature); empty for an ordinary TIFF.
std::vector<std::string> camera_raw_marks(const std::string& path, const FileHead& head);
// The refusal of a camera raw file where imghist is built without LibRaw.
[[noreturn]] void refuse_camera_raw(const std::vector<std::string>& marks);

// --- reader_libraw.cpp: camera raw files through LibRaw (built where IMGHIST_IO_LIBRAW is 1) -

// The visible Bayer mosaic as an rgba16 image of its 2 x 2 blocks (R, G1, B, G2), with the
// sensor's levels and clipping (LoadedImage::sensor). ReadError for what LibRaw cannot decode,
// for sensors other than RGB Bayer, for damaged data and for black levels at or above white.
LoadedImage read_camera_raw(const std::string& path, const ReadOptions& options, const PixelAllocator& allocate_pixels);

// --- reader_oiio.cpp: OpenImageIO's readers (reached through oiio(), oiio_readers.hpp) -------

// The file read by OpenImageIO's `reader` (the name choose_reader() gives). JPEG files come here
// where read_jpeg() leaves them; the tests compare the two.
LoadedImage read_with_oiio(const std::string& path, const std::string& reader, const ReadOptions& options,
                           const PixelAllocator& allocate_pixels);

// --- reader_jpeg.cpp: JPEG through TurboJPEG (built where IMGHIST_IO_TURBOJPEG is 1) --------

// The JPEG file of `file_size` bytes decoded by TurboJPEG, or nullopt where OpenImageIO must read
// it instead: anything TurboJPEG warns about or fails on (damaged data, sampling factors it has
// no name for, more than 500 scans), CMYK and YCCK, a file larger than max_pixels allows.
// Throws ReadError for sizes check_size() refuses, from the header, before any pixel is decoded.
std::optional<LoadedImage> read_jpeg(const std::string& path, std::uint64_t file_size, const ReadOptions& options,
                                     const PixelAllocator& allocate_pixels);

// --- reader_png.cpp: PNG through libpng (built where IMGHIST_IO_LIBPNG is 1) ----------------

// The 8- or 16-bit gray, gray + alpha (alpha left out, with its note), RGB or RGBA file decoded
// by libpng, or nullopt where OpenImageIO must read it instead: palettes, fewer bits, a tRNS
// chunk, anything libpng fails or warns about. Throws ReadError for sizes check_size() refuses.
std::optional<LoadedImage> read_png(const std::string& path, const ReadOptions& options,
                                    const PixelAllocator& allocate_pixels);

// --- reader_pnm.cpp: PGM/PPM with 8- and 16-bit samples -------------------------------------

bool is_pnm_read_here(const unsigned char* head, std::size_t n);
LoadedImage read_pnm(const std::string& path, std::uint64_t file_size, const ReadOptions& options,
                     const PixelAllocator& allocate_pixels);

}  // namespace imghist::io::reading
