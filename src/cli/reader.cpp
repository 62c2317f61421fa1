#include "reader.hpp"

#include <OpenImageIO/imageio.h>
#include <fcntl.h>
#include <tiffio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <new>
#include <set>
#include <type_traits>

namespace imghist::cli {

namespace OIIO = OIIO_NAMESPACE;

namespace {

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

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& s : items) out += (out.empty() ? "" : ",") + s;
    return out;
}

std::string channel_names(const OIIO::ImageSpec& spec) {
    std::vector<std::string> names;
    for (int c = 0; c < spec.nchannels; ++c) names.push_back(c < int(spec.channelnames.size()) ? spec.channelnames[c] : "?");
    return join(names);
}

std::string type_name(OIIO::TypeDesc t) {
    switch (t.basetype) {
        case OIIO::TypeDesc::UINT8: return "uint8";
        case OIIO::TypeDesc::INT8: return "int8";
        case OIIO::TypeDesc::UINT16: return "uint16";
        case OIIO::TypeDesc::INT16: return "int16";
        case OIIO::TypeDesc::UINT32: return "uint32";
        case OIIO::TypeDesc::INT32: return "int32";
        case OIIO::TypeDesc::UINT64: return "uint64";
        case OIIO::TypeDesc::INT64: return "int64";
        case OIIO::TypeDesc::HALF: return "half";
        case OIIO::TypeDesc::FLOAT: return "float";
        case OIIO::TypeDesc::DOUBLE: return "double";
        default: return t.c_str();
    }
}

std::string mib(std::uint64_t bytes) {
    return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

// --- reading policy ------------------------------------------------------------------------------

// Formats read by default: OpenImageIO's thin wrappers over well-fuzzed libraries (libpng,
// libjpeg, libtiff, OpenEXR, libwebp, giflib) and its small PNM/PFM, HDR and BMP readers (PNM
// with 8/16-bit samples is read by imghist itself). Every other reader is OpenImageIO's own
// parser of a rarer format (IFF, TGA, DPX, PSD, ...); two of them broke under fuzzing (issue 11).
struct TrustedFormat {
    const char* reader;  // OpenImageIO's name for it
    const char* label;
};
constexpr TrustedFormat kTrusted[] = {
    {"png", "PNG"}, {"jpeg", "JPEG"},     {"tiff", "TIFF"}, {"openexr", "OpenEXR"}, {"pnm", "PNM/PFM"},
    {"hdr", "HDR"}, {"bmp", "BMP"},       {"webp", "WebP"}, {"gif", "GIF"},
};

// Readers never used: no image files (null invents one from any name, term only writes).
const std::set<std::string> kNeverRead = {"null", "term"};
// Readers a directory walk leaves out even with the flag: video, volumes, camera raw.
const std::set<std::string> kNotWalked = {"ffmpeg", "openvdb", "raw"};

}  // namespace

std::string trusted_format_names() {
    std::string out;
    for (const TrustedFormat& f : kTrusted) out += (out.empty() ? "" : ", ") + std::string(f.label);
    return out;
}

namespace {

bool is_trusted(const std::string& reader) {
    return std::any_of(std::begin(kTrusted), std::end(kTrusted),
                       [&](const TrustedFormat& f) { return reader == f.reader; });
}

// The trusted reader whose signature starts the file, or "".
std::string reader_for_content(const unsigned char* head, std::size_t n) {
    const auto starts = [&](std::string_view magic, std::size_t at = 0) {
        return n >= at + magic.size() && std::memcmp(head + at, magic.data(), magic.size()) == 0;
    };
    using namespace std::string_view_literals;
    if (starts("\x89PNG\r\n\x1a\n"sv)) return "png";
    if (starts("\xFF\xD8\xFF"sv)) return "jpeg";
    if (starts("II*\0"sv) || starts("MM\0*"sv) || starts("II+\0"sv) || starts("MM\0+"sv)) return "tiff";
    if (starts("v/1\x01"sv)) return "openexr";
    if (n >= 3 && head[0] == 'P' && std::strchr("123456Ff", head[1]) && head[1] && std::isspace(head[2]))
        return "pnm";
    if (starts("#?"sv)) return "hdr";
    if (starts("BM"sv)) return "bmp";
    if (starts("RIFF"sv) && starts("WEBP"sv, 8)) return "webp";
    if (starts("GIF87a"sv) || starts("GIF89a"sv)) return "gif";
    return "";
}

// (extension, reader) for every reader compiled into OpenImageIO, from its
// "tiff:tif,tiff;jpeg:jpg,jpe,jpeg;..." list; extensions in lower case.
const std::vector<std::pair<std::string, std::string>>& reader_extensions() {
    static const auto list = [] {
        std::vector<std::pair<std::string, std::string>> out;
        const std::string all(OIIO::get_string_attribute("extension_list"));
        std::size_t pos = 0;
        while (pos < all.size()) {
            std::size_t end = all.find(';', pos);
            if (end == std::string::npos) end = all.size();
            const std::string entry = all.substr(pos, end - pos);
            pos = end + 1;
            const std::size_t colon = entry.find(':');
            if (colon == std::string::npos) continue;
            const std::string reader = entry.substr(0, colon);
            for (std::size_t p = colon + 1; p <= entry.size();) {
                std::size_t e = entry.find(',', p);
                if (e == std::string::npos) e = entry.size();
                std::string ext = entry.substr(p, e - p);
                for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
                if (!ext.empty()) out.emplace_back(ext, reader);
                p = e + 1;
            }
        }
        return out;
    }();
    return list;
}

// The reader OpenImageIO associates with the file's extension, or "".
std::string reader_for_extension(const std::string& path) {
    const std::size_t dot = path.rfind('.');
    if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return "";
    std::string ext = path.substr(dot + 1);
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    for (const auto& [e, reader] : reader_extensions())
        if (e == ext) return reader;
    return "";
}

// The reader for this file: a trusted one by content; otherwise, only with the flag, the one its
// extension names. OpenImageIO is never left to probe its readers one after another.
std::string choose_reader(const std::string& path, const unsigned char* head, std::size_t n,
                          const ReadOptions& options) {
    const std::string by_content = reader_for_content(head, n);
    if (!by_content.empty()) return by_content;
    std::string by_extension = reader_for_extension(path);
    if (kNeverRead.count(by_extension)) by_extension.clear();
    const bool other_reader = !by_extension.empty() && !is_trusted(by_extension);
    if (options.untrusted_readers && other_reader) return by_extension;
    const std::string trusted = "the content is none of the trusted formats (" + trusted_format_names() + ")";
    if (options.untrusted_readers)
        throw ReadError("not an image imghist reads: " + trusted + ", and the extension names no other reader");
    if (other_reader)
        throw ReadError(trusted + "; OpenImageIO's " + by_extension +
                        " reader is less safe and is used only with --untrusted-readers");
    throw ReadError("not an image imghist reads: " + trusted +
                    " (--untrusted-readers also tries OpenImageIO's less safe readers, chosen by extension)");
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

struct FileHead {
    std::uint64_t size = 0;
    unsigned char bytes[16] = {};
    std::size_t count = 0;
};

// Checks that `path` is a readable regular file and reads its first bytes. What is not a regular
// file is refused from stat() alone, and the open is non-blocking, so no FIFO or device is waited on.
FileHead inspect(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw ReadError(path_error(errno));
    require_regular(st.st_mode);
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) throw ReadError(path_error(errno));
    FileHead head;
    const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);  // the file opened, not the one seen
    head.size = std::uint64_t(st.st_size);
    ssize_t got = 0;
    while (regular && head.count < sizeof head.bytes &&
           ((got = ::read(fd, head.bytes + head.count, sizeof head.bytes - head.count)) > 0 || (got < 0 && errno == EINTR)))
        if (got > 0) head.count += std::size_t(got);
    ::close(fd);
    if (!regular) require_regular(st.st_mode);
    if (head.size == 0) throw ReadError("empty file (0 bytes)");
    return head;
}

// libpng allocates the length a chunk claims before it reads the chunk: a 262-byte file whose
// tEXt chunk claims 1.8 GB made it take 2 GB of memory (found by fuzz/fuzz_reader.cpp). A chunk
// cannot be longer than the rest of the file, so every chunk header is checked against the
// file size before libpng sees the file. Only the 8-byte headers are read.
void check_png_chunks(const std::string& path, std::uint64_t file_size) {
    std::ifstream f(path, std::ios::binary);
    std::uint64_t at = 8;  // after the signature
    unsigned char header[8];
    while (at + 8 <= file_size && f.seekg(std::streamoff(at)) && f.read(reinterpret_cast<char*>(header), 8)) {
        const std::uint64_t length = (std::uint64_t(header[0]) << 24) | (std::uint64_t(header[1]) << 16) |
                                     (std::uint64_t(header[2]) << 8) | std::uint64_t(header[3]);
        const std::string type(reinterpret_cast<const char*>(header + 4), 4);
        const std::uint64_t end = at + 12 + length;  // length, type, data, CRC
        if (length > 0x7FFFFFFFu || end > file_size)
            throw ReadError("corrupt PNG: chunk '" + type + "' at byte " + std::to_string(at) + " claims " +
                            std::to_string(length) + " bytes, more than the " +
                            std::to_string(file_size - std::min(file_size, at + 12)) + " left in the file");
        if (type == "IEND") return;
        at = end;
    }
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

// --- PNM with 8- and 16-bit samples, read here --------------------------------------------------
//
// OpenImageIO 2.4 rescales 16-bit PNM samples through float and loses the last bit of some
// values (binary 65280 reads as 65279, ASCII v >= 32769 as v - 1), and takes headers with
// maxval 0 or above 65535. P2/P3 (ASCII) and P5/P6 (binary) are read here instead; P1/P4
// (bitmaps) and PF/Pf (float) stay with OpenImageIO's reader.

struct PnmHeader {
    bool ascii = false;
    int channels = 1;
    std::uint64_t width = 0, height = 0;
    unsigned maxval = 0;
};

bool is_pnm_read_here(const unsigned char* head, std::size_t n) {
    return n >= 2 && head[0] == 'P' && head[1] && std::strchr("2356", head[1]);
}

// Magic, width, height and maxval, separated by whitespace and '#' comments, then exactly one
// whitespace character before the samples.
PnmHeader read_pnm_header(std::istream& f) {
    PnmHeader h;
    char magic[2] = {};
    f.read(magic, 2);
    h.ascii = magic[1] == '2' || magic[1] == '3';
    h.channels = (magic[1] == '3' || magic[1] == '6') ? 3 : 1;
    std::uint64_t fields[3] = {};
    const char* names[3] = {"width", "height", "maxval"};
    for (int i = 0; i < 3; ++i) {
        int c = f.get();
        while (c != EOF && (std::isspace(c) || c == '#')) {
            if (c == '#')
                while (c != EOF && c != '\n') c = f.get();
            c = f.get();
        }
        if (c == EOF || !std::isdigit(c))
            throw ReadError(std::string("invalid PNM header: no ") + names[i]);
        for (; c != EOF && std::isdigit(c); c = f.get()) {
            fields[i] = fields[i] * 10 + std::uint64_t(c - '0');
            if (fields[i] > (std::uint64_t(1) << 40)) throw ReadError(std::string("invalid PNM header: ") + names[i] + " too large");
        }
        if (c == EOF || !std::isspace(c)) throw ReadError(std::string("invalid PNM header after the ") + names[i]);
    }
    h.width = fields[0];
    h.height = fields[1];
    if (fields[2] < 1 || fields[2] > 65535)
        throw ReadError("invalid PNM header: maxval " + std::to_string(fields[2]) + " (must be 1 to 65535)");
    h.maxval = unsigned(fields[2]);
    return h;
}

// Samples are stored as read when maxval is 255 or 65535. Other maxvals are rescaled to the full
// range of the sample type imghist counts them in (8-bit up to maxval 255, else 16-bit), by
// round(v * full / maxval) in integers, with a note that says so.
struct PnmScale {
    unsigned maxval, full;
    std::uint32_t operator()(std::uint32_t v) const {
        return maxval == full ? v : std::uint32_t((std::uint64_t(v) * full + maxval / 2) / maxval);
    }
};

template <typename Out>
void read_pnm_samples(std::istream& f, const PnmHeader& h, std::uint64_t samples, std::uint64_t data_bytes,
                      Out* dst) {
    const PnmScale scale{h.maxval, std::numeric_limits<Out>::max()};
    const auto store = [&](std::uint64_t i, std::uint32_t v) {
        if (v > h.maxval)
            throw ReadError("invalid PNM sample " + std::to_string(v) + " above maxval " + std::to_string(h.maxval));
        dst[i] = Out(scale(v));
    };
    const std::string short_file = "cannot read pixels (pnm): the file ends before its last pixel";
    if (h.ascii) {
        // Each sample takes at least one digit and one separator: refuse a short file before counting.
        if (data_bytes + 1 < 2 * samples) throw ReadError(short_file);
        std::istreambuf_iterator<char> it(f), end;
        for (std::uint64_t i = 0; i < samples; ++i) {
            while (it != end && std::isspace(static_cast<unsigned char>(*it))) ++it;
            if (it == end) throw ReadError(short_file);
            if (!std::isdigit(static_cast<unsigned char>(*it)))
                throw ReadError("invalid PNM sample: '" + std::string(1, *it) + "' where a number belongs");
            std::uint32_t v = 0;
            for (; it != end && std::isdigit(static_cast<unsigned char>(*it)); ++it) v = std::min<std::uint32_t>(v * 10 + std::uint32_t(*it - '0'), 1u << 20);
            store(i, v);
        }
        return;
    }
    const std::size_t bytes_per_sample = h.maxval > 255 ? 2 : 1;
    std::vector<unsigned char> raw(bytes_per_sample * std::size_t(std::min<std::uint64_t>(samples, 1 << 20)));
    for (std::uint64_t done = 0; done < samples;) {
        const std::size_t n = std::size_t(std::min<std::uint64_t>(samples - done, raw.size() / bytes_per_sample));
        if (!f.read(reinterpret_cast<char*>(raw.data()), std::streamsize(n * bytes_per_sample))) throw ReadError(short_file);
        for (std::size_t i = 0; i < n; ++i)
            store(done + i, bytes_per_sample == 2 ? std::uint32_t((raw[2 * i] << 8) | raw[2 * i + 1]) : raw[i]);
        done += n;
    }
}

LoadedImage read_pnm(const std::string& path, std::uint64_t file_size, const ReadOptions& options,
                     const PixelAllocator& allocate_pixels) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw ReadError("cannot open: " + path_error(errno));
    const PnmHeader h = read_pnm_header(f);
    check_size(h.width, h.height, options);
    const bool wide = h.maxval > 255;
    const SampleType sample = wide ? SampleType::u16 : SampleType::u8;
    LoadedImage out;
    out.source_type = wide ? "uint16" : "uint8";
    const unsigned full = wide ? 65535 : 255;
    if (h.maxval != full)
        out.notes.push_back("the file's maxval is " + std::to_string(h.maxval) + "; samples were rescaled to 0.." +
                            std::to_string(full) + " as round(v * " + std::to_string(full) + " / " +
                            std::to_string(h.maxval) + ") (maxval " + std::to_string(h.maxval) + ")");
    const PixelFormat format = format_for(sample, h.channels);
    const std::uint64_t pixels = h.width * h.height;
    const std::uint64_t samples = pixels * std::uint64_t(h.channels);
    const std::uint64_t data_at = std::uint64_t(f.tellg());
    const std::uint64_t data_bytes = file_size > data_at ? file_size - data_at : 0;
    // Short files are refused from their size, before the pixels are allocated.
    if (!h.ascii && data_bytes < samples * (wide ? 2 : 1))
        throw ReadError("cannot read pixels (pnm): the file ends before its last pixel (" + std::to_string(h.width) +
                        " x " + std::to_string(h.height) + " pixels need " + std::to_string(samples * (wide ? 2 : 1)) +
                        " bytes, the file has " + std::to_string(data_bytes) + ")");
    out.pixels = allocate_pixels(image_bytes(pixels, format_info(format).pixel_bytes()));
    if (wide) read_pnm_samples(f, h, samples, data_bytes, reinterpret_cast<std::uint16_t*>(out.pixels.get()));
    else read_pnm_samples(f, h, samples, data_bytes, reinterpret_cast<std::uint8_t*>(out.pixels.get()));
    out.view = ImageView::packed(out.pixels.get(), std::uint32_t(h.width), std::uint32_t(h.height), format);
    return out;
}

// --- channels ------------------------------------------------------------------------------------

// Which of the file's channels are counted, in imghist's order (R, G, B[, A] or gray).
struct ChannelChoice {
    std::vector<int> channels;
    std::vector<std::string> notes;
};

constexpr const char* kGrayAlphaNote = "alpha (A) was not counted: imghist has no gray + alpha format";

// R, G, B (and A) by name, or Y alone; other channels (Z, AOVs) are left out with a note. Files
// without such names (one unnamed channel, 3 or 4 channels) are read by position.
ChannelChoice choose_channels(const OIIO::ImageSpec& spec) {
    const auto find = [&](const char* name) {
        for (int c = 0; c < spec.nchannels && c < int(spec.channelnames.size()); ++c)
            if (spec.channelnames[c] == name) return c;
        return -1;
    };
    const int r = find("R"), g = find("G"), b = find("B"), y = find("Y");
    int a = find("A");
    if (a < 0 && spec.alpha_channel >= 0 && spec.alpha_channel < spec.nchannels && spec.alpha_channel != r &&
        spec.alpha_channel != g && spec.alpha_channel != b && spec.alpha_channel != y)
        a = spec.alpha_channel;
    ChannelChoice choice;
    const int n = spec.nchannels;
    if (r >= 0 && g >= 0 && b >= 0) {
        choice.channels = {r, g, b};
        if (a >= 0) choice.channels.push_back(a);
    } else if (y >= 0 && r < 0 && g < 0 && b < 0) {
        choice.channels = {y};
        if (a >= 0) choice.notes.push_back(kGrayAlphaNote);
    } else if (n == 1 || n == 3) {
        for (int c = 0; c < n; ++c) choice.channels.push_back(c);
    } else if (n == 2 && spec.alpha_channel == 1) {
        choice.channels = {0};
        choice.notes.push_back(kGrayAlphaNote);
        a = 1;
    } else if (n == 4) {
        const int alpha = spec.alpha_channel >= 0 && spec.alpha_channel < 4 ? spec.alpha_channel : 3;
        for (int c = 0; c < 4; ++c)
            if (c != alpha) choice.channels.push_back(c);
        choice.channels.push_back(alpha);
        if (spec.alpha_channel < 0)
            choice.notes.push_back("4 channels (" + channel_names(spec) + ") without a marked alpha channel: read as R,G,B,A");
    } else {
        throw ReadError("unsupported channel layout: " + std::to_string(n) + " channels (" + channel_names(spec) +
                        "); imghist reads channels named R,G,B (and A) or Y, or 1, 3 or 4 channels");
    }
    std::vector<std::string> ignored;
    for (int c = 0; c < n; ++c)
        if (c != a && std::find(choice.channels.begin(), choice.channels.end(), c) == choice.channels.end())
            ignored.push_back(c < int(spec.channelnames.size()) ? spec.channelnames[c] : "?");
    if (!ignored.empty()) choice.notes.push_back("channels not counted: " + join(ignored));
    return choice;
}

// CMYK would be converted to RGB by OpenImageIO (JPEG and TIFF both); imghist counts colour only
// as stored.
bool is_cmyk(const OIIO::ImageSpec& spec) {
    const auto says = [&](const char* attribute, const char* value) {
        return spec.get_string_attribute(attribute) == value;
    };
    return channel_names(spec) == "C,M,Y,K" || says("jpeg:ColorSpace", "CMYK") || says("jpeg:ColorSpace", "YCCK") ||
           says("tiff:ColorSpace", "CMYK") || says("oiio:ColorSpace", "CMYK") ||
           spec.get_int_attribute("tiff:PhotometricInterpretation", -1) == 5;  // PHOTOMETRIC_SEPARATED
}

// --- samples -------------------------------------------------------------------------------------

// The documented rule for samples imghist has no format for: integers other than uint8/uint16
// become v / (2^N - 1) (unsigned) or v / (2^(N-1) - 1) (signed), computed in double and rounded
// to float (the most negative signed value lands just below -1); double is rounded to float.
template <typename T>
float to_float(T v) {
    if constexpr (std::is_floating_point_v<T>) return static_cast<float>(v);
    else return static_cast<float>(double(v) / double(std::numeric_limits<T>::max()));
}

// Copies `pick` (offsets into each source pixel of `src_channels` samples of type T) into `dst`,
// converting to float when Out is float and T is not the sample imghist counts.
template <typename T, typename Out>
void gather(const std::byte* src, int src_channels, const std::vector<int>& pick, std::uint64_t pixels, std::byte* dst) {
    const T* s = reinterpret_cast<const T*>(src);
    Out* d = reinterpret_cast<Out*>(dst);
    for (std::uint64_t p = 0; p < pixels; ++p, s += src_channels)
        for (int c : pick) {
            if constexpr (std::is_same_v<T, Out>) *d++ = s[c];
            else *d++ = to_float(s[c]);
        }
}

void gather_samples(OIIO::TypeDesc type, const std::byte* src, int src_channels, const std::vector<int>& pick,
                    std::uint64_t pixels, std::byte* dst) {
    switch (type.basetype) {
        case OIIO::TypeDesc::UINT8: return gather<std::uint8_t, std::uint8_t>(src, src_channels, pick, pixels, dst);
        case OIIO::TypeDesc::UINT16:
        case OIIO::TypeDesc::HALF: return gather<std::uint16_t, std::uint16_t>(src, src_channels, pick, pixels, dst);
        case OIIO::TypeDesc::FLOAT: return gather<float, float>(src, src_channels, pick, pixels, dst);
        case OIIO::TypeDesc::DOUBLE: return gather<double, float>(src, src_channels, pick, pixels, dst);
        case OIIO::TypeDesc::INT8: return gather<std::int8_t, float>(src, src_channels, pick, pixels, dst);
        case OIIO::TypeDesc::INT16: return gather<std::int16_t, float>(src, src_channels, pick, pixels, dst);
        case OIIO::TypeDesc::INT32: return gather<std::int32_t, float>(src, src_channels, pick, pixels, dst);
        case OIIO::TypeDesc::UINT32: return gather<std::uint32_t, float>(src, src_channels, pick, pixels, dst);
        case OIIO::TypeDesc::INT64: return gather<std::int64_t, float>(src, src_channels, pick, pixels, dst);
        case OIIO::TypeDesc::UINT64: return gather<std::uint64_t, float>(src, src_channels, pick, pixels, dst);
        default: throw ReadError("unsupported sample type " + type_name(type));
    }
}

// 64-bit TIFF samples (double) read by OpenImageIO 2.4 come back as zeros, or are not written
// at all, for a single scanline, a partial last strip and every tile. They are read here with
// libtiff, one strip or tile at a time, so every decoding error is reported.
bool read_tiff_64bit(const std::string& path, const OIIO::ImageSpec& spec, int chbegin, int chend, std::byte* dst) {
    std::unique_ptr<TIFF, void (*)(TIFF*)> tif(TIFFOpen(path.c_str(), "r"), [](TIFF* t) { if (t) TIFFClose(t); });
    if (!tif) throw ReadError("cannot read pixels (tiff): libtiff cannot open the file");
    std::uint16_t planar = PLANARCONFIG_CONTIG, samples = 1;
    TIFFGetFieldDefaulted(tif.get(), TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(tif.get(), TIFFTAG_SAMPLESPERPIXEL, &samples);
    if (samples != spec.nchannels) throw ReadError("cannot read pixels (tiff): the header's channel count changed");
    const bool separate = planar == PLANARCONFIG_SEPARATE;
    const std::size_t sample_bytes = 8, out_pixel = std::size_t(chend - chbegin) * sample_bytes;
    const std::size_t block_channels = separate ? 1 : std::size_t(samples);
    std::uint32_t bw = std::uint32_t(spec.width), bh = 1;
    const bool tiled = TIFFIsTiled(tif.get());
    if (tiled) {
        TIFFGetField(tif.get(), TIFFTAG_TILEWIDTH, &bw);
        TIFFGetField(tif.get(), TIFFTAG_TILELENGTH, &bh);
    } else {
        TIFFGetFieldDefaulted(tif.get(), TIFFTAG_ROWSPERSTRIP, &bh);
        bh = std::min<std::uint32_t>(std::max<std::uint32_t>(bh, 1), std::uint32_t(spec.height));
    }
    const std::size_t block_row = std::size_t(bw) * block_channels * sample_bytes;
    std::vector<unsigned char> block(block_row * bh);
    for (int plane = separate ? chbegin : 0; plane < (separate ? chend : 1); ++plane) {
        for (std::uint32_t by = 0; by < std::uint32_t(spec.height); by += bh) {
            for (std::uint32_t bx = 0; bx < std::uint32_t(spec.width); bx += bw) {
                const tmsize_t got =
                    tiled ? TIFFReadEncodedTile(tif.get(), TIFFComputeTile(tif.get(), bx, by, 0, std::uint16_t(plane)),
                                                block.data(), tmsize_t(block.size()))
                          : TIFFReadEncodedStrip(tif.get(), TIFFComputeStrip(tif.get(), by, std::uint16_t(plane)),
                                                 block.data(), tmsize_t(block.size()));
                const std::uint32_t rows = std::min(bh, std::uint32_t(spec.height) - by);
                const std::uint32_t cols = std::min(bw, std::uint32_t(spec.width) - bx);
                if (got < 0 || std::size_t(got) < (tiled ? block.size() : std::size_t(rows) * block_row))
                    throw ReadError("cannot read pixels (tiff): decoding error in the strip or tile at row " +
                                    std::to_string(by));
                for (std::uint32_t r = 0; r < rows; ++r)
                    for (std::uint32_t x = 0; x < cols; ++x) {
                        std::byte* out = dst + ((std::size_t(by) + r) * std::size_t(spec.width) + bx + x) * out_pixel;
                        const unsigned char* in = block.data() + std::size_t(r) * block_row + std::size_t(x) * block_channels * sample_bytes;
                        if (separate) std::memcpy(out + std::size_t(plane - chbegin) * sample_bytes, in, sample_bytes);
                        else std::memcpy(out, in + std::size_t(chbegin) * sample_bytes, out_pixel);
                    }
            }
        }
    }
    return true;
}

// Reads channels [chbegin, chend) of the first subimage in `type`, packed.
bool read_pixels(OIIO::ImageInput& in, const std::string& path, const OIIO::ImageSpec& spec, int chbegin, int chend, OIIO::TypeDesc type,
                 std::byte* dst) {
    if (std::string(in.format_name()) != "tiff") return in.read_image(0, 0, chbegin, chend, type, dst);
    if (type.size() == 8) return read_tiff_64bit(path, spec, chbegin, chend, dst);
    // OpenImageIO 2.4 decompresses several zip strips or tiles at once on its own and drops their
    // decoding errors, returning zeros for the broken ones. One scanline or one tile at a time goes
    // through libtiff, which reports them.
    const std::size_t pixel_bytes = std::size_t(chend - chbegin) * type.size();
    const std::size_t row_bytes = std::size_t(spec.width) * pixel_bytes;
    bool ok = true;
    if (spec.tile_width > 0 && spec.tile_height > 0) {
        for (int ty = 0; ok && ty < spec.height; ty += spec.tile_height) {
            for (int tx = 0; ok && tx < spec.width; tx += spec.tile_width) {
                const int xend = std::min(spec.width, tx + spec.tile_width);
                const int yend = std::min(spec.height, ty + spec.tile_height);
                std::byte* at = dst + std::size_t(ty) * row_bytes + std::size_t(tx) * pixel_bytes;
                ok = in.read_tiles(0, 0, spec.x + tx, spec.x + xend, spec.y + ty, spec.y + yend, spec.z, spec.z + 1,
                                   chbegin, chend, type, at, OIIO::stride_t(pixel_bytes), OIIO::stride_t(row_bytes)) &&
                     !in.has_error();
            }
        }
    } else {
        for (int y = 0; ok && y < spec.height; ++y)
            ok = in.read_scanlines(0, 0, spec.y + y, spec.y + y + 1, spec.z, chbegin, chend, type,
                                   dst + std::size_t(y) * row_bytes) &&
                 !in.has_error();
    }
    return ok;
}

LoadedImage read_with_oiio(const std::string& path, const std::string& reader, const ReadOptions& options,
                           const PixelAllocator& allocate_pixels) {
    (void)OIIO::geterror();  // drop any stale message this thread holds
    OIIO::ImageSpec config;
    // Colour stays as the file stores it: no premultiplication by alpha.
    config.attribute("oiio:UnassociatedAlpha", 1);
    auto in = OIIO::ImageInput::create(reader, false, &config);
    OIIO::ImageSpec spec;
    if (!in || !in->open(path, spec, config)) {
        std::string err = one_line(in ? in->geterror() : OIIO::geterror());
        if (err.empty()) err = "not a " + reader + " file OpenImageIO can read";
        throw ReadError("cannot open (" + reader + "): " + err);
    }

    // --- everything below up to read_pixels() uses the header only ----------------------------
    if (spec.width < 0 || spec.height < 0)
        throw ReadError("invalid size in the header: OpenImageIO reads " + std::to_string(spec.width) + " x " +
                        std::to_string(spec.height) + " pixels (a size of 2^31 or more does not fit its 32-bit fields)");
    check_size(std::uint64_t(spec.width), std::uint64_t(spec.height), options);
    if (spec.depth > 1)
        throw ReadError("volume images (depth " + std::to_string(spec.depth) + ") are not supported");
    if (spec.nchannels < 1) throw ReadError("the file has no channels");
    if (is_cmyk(spec))
        throw ReadError("CMYK images are not supported: OpenImageIO would convert them to RGB, and imghist counts "
                        "colour only as the file stores it");
    const ChannelChoice choice = choose_channels(spec);

    LoadedImage out;
    out.notes = choice.notes;
    // The type the samples are read in: the file's own, or float for mixed channel types.
    OIIO::TypeDesc read_type = spec.format;
    bool mixed = false;
    for (const OIIO::TypeDesc& t : spec.channelformats) mixed = mixed || t != spec.format;
    out.source_type = type_name(spec.format);
    if (mixed) {
        std::vector<std::string> types;
        for (const OIIO::TypeDesc& t : spec.channelformats) types.push_back(type_name(t));
        out.source_type = join(types);
        read_type = OIIO::TypeDesc::FLOAT;
        out.notes.push_back("channels have different sample types (" + out.source_type +
                            "); all were read as float by OpenImageIO");
    }
    SampleType sample = SampleType::f32;
    switch (read_type.basetype) {
        case OIIO::TypeDesc::UINT8: sample = SampleType::u8; break;
        case OIIO::TypeDesc::UINT16: sample = SampleType::u16; break;
        case OIIO::TypeDesc::HALF: sample = SampleType::f16; break;
        case OIIO::TypeDesc::FLOAT: break;
        case OIIO::TypeDesc::DOUBLE: out.notes.push_back("samples are double; rounded to 32-bit float"); break;
        case OIIO::TypeDesc::INT8:
        case OIIO::TypeDesc::INT16:
        case OIIO::TypeDesc::INT32:
        case OIIO::TypeDesc::INT64:
        case OIIO::TypeDesc::UINT32:
        case OIIO::TypeDesc::UINT64: {
            const bool is_signed = read_type.is_signed();
            const int bits = int(read_type.size() * 8) - (is_signed ? 1 : 0);
            out.notes.push_back("samples are " + type_name(read_type) + "; converted to float as v / (2^" +
                                std::to_string(bits) + " - 1)");
            break;
        }
        default: throw ReadError("unsupported sample type " + type_name(read_type));
    }
    const int stored_bits = spec.get_int_attribute("oiio:BitsPerSample", 0);
    if (!mixed && stored_bits > 0 && (sample == SampleType::u8 || sample == SampleType::u16) &&
        std::size_t(stored_bits) != read_type.size() * 8)
        out.notes.push_back("the file stores " + std::to_string(stored_bits) + " bits per sample; " +
                            "OpenImageIO scales them to the full " + std::to_string(read_type.size() * 8) + "-bit range");

    const PixelFormat format = format_for(sample, int(choice.channels.size()));
    const FormatInfo& fi = format_info(format);
    const std::uint64_t pixels = std::uint64_t(spec.width) * std::uint64_t(spec.height);
    out.pixels = allocate_pixels(image_bytes(pixels, fi.pixel_bytes()));

    // --- pixels: straight into the result when the chosen channels are the file's own run in
    // order and need no conversion; otherwise through a buffer of the channels' span ----------
    const auto [lo_it, hi_it] = std::minmax_element(choice.channels.begin(), choice.channels.end());
    const int chbegin = *lo_it, chend = *hi_it + 1;
    std::vector<int> pick;
    for (int c : choice.channels) pick.push_back(c - chbegin);
    const bool counted_as_stored = read_type == OIIO::TypeDesc::UINT8 || read_type == OIIO::TypeDesc::UINT16 ||
                                   read_type == OIIO::TypeDesc::HALF || read_type == OIIO::TypeDesc::FLOAT;
    bool direct = counted_as_stored && std::size_t(chend - chbegin) == pick.size();
    for (std::size_t i = 0; direct && i < pick.size(); ++i) direct = pick[i] == int(i);
    bool ok;
    if (direct) {
        ok = read_pixels(*in, path, spec, chbegin, chend, read_type, out.pixels.get());
    } else {
        auto span = allocate(pixels, std::size_t(chend - chbegin) * read_type.size());
        ok = read_pixels(*in, path, spec, chbegin, chend, read_type, span.get());
        if (ok) gather_samples(read_type, span.get(), chend - chbegin, pick, pixels, out.pixels.get());
    }
    std::string err = in->has_error() ? one_line(in->geterror()) : std::string();
    if (OIIO::has_error()) {
        const std::string global = one_line(OIIO::geterror());
        if (err.empty()) err = global;
    }
    // Truncated files may come back with a partial image and an error; never count those.
    if (!ok || !err.empty())
        throw ReadError("cannot read pixels (" + reader + "): " +
                        (err.empty() ? std::string("truncated or corrupt data (the reader gave no reason)") : err));

    if (in->seek_subimage(1, 0))
        out.notes.push_back("the file holds more than one image; only the first was counted");
    (void)in->geterror();
    in->close();
    out.view = ImageView::packed(out.pixels.get(), std::uint32_t(spec.width), std::uint32_t(spec.height), format);
    return out;
}

// Process-wide reader settings, made once before the first file is opened.
void configure_readers_once() {
    static const bool done = [] {
        // OpenEXR's core library checks every chunk it decodes. The classic path OpenImageIO 2.4
        // uses by default reports success on corrupt zip/piz chunks and hands back pixels it
        // never wrote (the decompression buffer's old contents), different on every run.
        OIIO::attribute("openexr:core", 1);
        // OpenImageIO builds its list of readers on first use, and a thread that asks for the list
        // while another one's ImageInput::create is building it gets an empty one.
        (void)reader_extensions();
        return true;
    }();
    (void)done;
}

}  // namespace

decltype(LoadedImage::pixels) allocate_on_heap(std::size_t bytes) { return heap_bytes(bytes); }

LoadedImage read_image(const std::string& path, const ReadOptions& options, const PixelAllocator& allocate_pixels) {
    const FileHead head = inspect(path);
    if (is_pnm_read_here(head.bytes, head.count)) return read_pnm(path, head.size, options, allocate_pixels);
    configure_readers_once();
    const std::string reader = choose_reader(path, head.bytes, head.count, options);
    if (reader == "png") check_png_chunks(path, head.size);
    // Some of OpenImageIO's decoders throw on corrupt files (a GIF header can make its reader
    // throw std::length_error): that is the file's fault, reported like any other.
    try {
        return read_with_oiio(path, reader, options, allocate_pixels);
    } catch (const ReadError&) {
        throw;
    } catch (const std::exception& e) {
        throw ReadError("the " + reader + " decoder failed: " + one_line(e.what()));
    }
}

const std::vector<std::string>& image_extensions(bool untrusted_readers) {
    const auto make = [](bool untrusted) {
        std::set<std::string> exts;
        for (const auto& [ext, reader] : reader_extensions())
            if (untrusted ? !kNeverRead.count(reader) && !kNotWalked.count(reader) : is_trusted(reader))
                exts.insert(ext);
        return std::vector<std::string>(exts.begin(), exts.end());
    };
    static const std::vector<std::string> trusted = make(false), all = make(true);
    return untrusted_readers ? all : trusted;
}

std::string reader_version() {
    return "OpenImageIO " + std::string(OIIO::get_string_attribute("oiio:version", OIIO_VERSION_STRING));
}

void configure_reader_threads(unsigned threads) {
    OIIO::attribute("threads", int(std::max(1u, threads)));
    OIIO::attribute("exr_threads", int(std::max(1u, threads)));
}

}  // namespace imghist::cli
