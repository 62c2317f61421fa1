// Checks and buffers every reader shares: the file itself (regular, readable, not empty), the
// size guard, the pixel format of a sample type, and allocations that fail as ReadErrors.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <new>

#include "reader_internal.hpp"

namespace imghist::io::reading {

namespace {

std::string mib(std::uint64_t bytes) {
    return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

void require_regular(mode_t mode) {
    if (S_ISREG(mode)) return;
    if (S_ISDIR(mode)) throw ReadError("is a directory");
    const char* what = S_ISFIFO(mode) ? "a FIFO (named pipe)"
                       : S_ISCHR(mode) ? "a character device"
                       : S_ISBLK(mode) ? "a block device"
                       : S_ISSOCK(mode) ? "a socket"
                                       : "not a regular file";
    throw ReadError(std::string("is ") + what + ", not a regular file; imghist reads only regular files");
}

}  // namespace


// OpenImageIO messages may span lines; the report wants one.
std::string one_line(std::string text) {
    for (char& c : text)
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    std::string out;
    for (char c : text) {
        if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
        out += c;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

std::string icc_profile_note(std::size_t bytes) {
    return "the file carries an ICC colour profile (" + std::to_string(bytes) +
           " bytes): its stored values are counted, which an editor shows converted through the profile";
}

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& s : items) out += (out.empty() ? "" : ",") + s;
    return out;
}

// --- the file itself -----------------------------------------------------------------------------

std::string path_error(int error) {
    switch (error) {
        case ENOENT: return "no such file";
        case ELOOP: return "too many levels of symbolic links (a link loop?)";
        case ENAMETOOLONG: return "file name too long";
        case ENOTDIR: return "a component of the path is not a directory";
        case EACCES: return "permission denied";
        default: return std::strerror(error);
    }
}

// The first `n` bytes of the regular file at `path` (fewer where it is shorter or a read fails),
// and its size. The open is non-blocking and the file opened is checked again, so no FIFO or
// device put in its place after a stat() is waited on.
std::uint64_t read_start(const std::string& path, unsigned char* dst, std::size_t n, std::size_t& count) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) throw ReadError(path_error(errno));
    struct stat st {};
    const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    count = 0;
    ssize_t got = 0;
    while (regular && count < n && ((got = ::read(fd, dst + count, n - count)) > 0 || (got < 0 && errno == EINTR)))
        if (got > 0) count += std::size_t(got);
    ::close(fd);
    if (!regular) require_regular(st.st_mode);
    return std::uint64_t(st.st_size);
}

// Checks that `path` is a readable regular file and reads its first bytes. What is not a regular
// file is refused from stat() alone, before it is opened.
FileHead inspect(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw ReadError(path_error(errno));
    require_regular(st.st_mode);
    FileHead head;
    head.size = read_start(path, head.bytes, sizeof head.bytes, head.count);
    if (head.size == 0) throw ReadError("empty file (0 bytes)");
    return head;
}

// --- checks and buffers shared by every reader ---------------------------------------------------

void check_size(std::uint64_t width, std::uint64_t height, const ReadOptions& options) {
    const std::string size = std::to_string(width) + " x " + std::to_string(height);
    if (width == 0 || height == 0) throw ReadError("zero size (" + size + " pixels)");
    const bool fits = width <= 0xFFFFFFFFull && height <= 0xFFFFFFFFull;
    const std::uint64_t pixels = fits ? width * height : std::numeric_limits<std::uint64_t>::max();
    if (options.max_pixels != 0 && pixels > options.max_pixels)
        throw ReadError(size + (fits ? " = " + std::to_string(pixels) : std::string()) +
                        " pixels exceeds the limit of " + std::to_string(options.max_pixels) +
                        " (raise it with --max-pixels; 0 means no limit)");
    if (!fits) throw ReadError("dimensions too large (" + size + " pixels)");
}

PixelFormat format_for(SampleType sample, int channels) {
    static constexpr PixelFormat by_type[4][3] = {
        {PixelFormat::gray8, PixelFormat::rgb8, PixelFormat::rgba8},
        {PixelFormat::gray16, PixelFormat::rgb16, PixelFormat::rgba16},
        {PixelFormat::gray_f16, PixelFormat::rgb_f16, PixelFormat::rgba_f16},
        {PixelFormat::gray_f32, PixelFormat::rgb_f32, PixelFormat::rgba_f32},
    };
    return by_type[int(sample)][channels == 1 ? 0 : channels == 3 ? 1 : 2];
}

// The bytes of `pixels` pixels of `pixel_bytes` each; too many for this machine is a ReadError.
std::size_t image_bytes(std::uint64_t pixels, std::size_t pixel_bytes) {
    const std::uint64_t bytes = pixels * pixel_bytes;
    if (bytes / pixel_bytes != pixels || bytes > std::uint64_t(SIZE_MAX) / 2)
        throw ReadError("image too large for this machine's memory");
    return std::size_t(bytes);
}

decltype(LoadedImage::pixels) heap_bytes(std::size_t bytes) {
    decltype(LoadedImage::pixels) p(new (std::nothrow) std::byte[bytes]);
    if (!p) throw ReadError("out of memory (the pixels need " + mib(bytes) + ")");
    return p;
}

// A working buffer of the reader's own (never the result's pixels).
decltype(LoadedImage::pixels) allocate(std::uint64_t pixels, std::size_t pixel_bytes) {
    return heap_bytes(image_bytes(pixels, pixel_bytes));
}

}  // namespace imghist::io::reading
