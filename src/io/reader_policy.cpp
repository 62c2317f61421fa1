// The reading policy (docs/cli.md, "Reading policy"): which reader a file gets, chosen by its
// content among the trusted formats, and by its extension only with --untrusted-readers.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <string_view>

#include "oiio_readers.hpp"
#include "reader_internal.hpp"

namespace imghist::io {

namespace {

// Formats read by default: OpenImageIO's thin wrappers over well-fuzzed libraries (libpng,
// libjpeg, libtiff, OpenEXR, libwebp, giflib) and its small PNM/PFM, HDR and BMP readers (PNM
// with 8/16-bit samples is read by imghist itself); where imghist is built with them, libheif
// for HEIC/AVIF and LibRaw for camera raw, in the command's isolated decoder processes. Every other reader is OpenImageIO's own
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
// OpenImageIO's reader of camera raw files: imghist reads them through LibRaw itself.
constexpr const char* kOiioCameraRawReader = "raw";
// Readers a directory walk leaves out even with the flag: video, volumes, and camera raw unless
// LibRaw reads it (then a walk takes its extensions by default).
const std::set<std::string> kNotWalked = {"ffmpeg", "openvdb", kOiioCameraRawReader};

// The trusted readers, and libheif's HEIF/AVIF where imghist is built with it (which
// OpenImageIO's extension list names "heif").
bool is_trusted(const std::string& reader) {
    return std::any_of(std::begin(kTrusted), std::end(kTrusted),
                       [&](const TrustedFormat& f) { return reader == f.reader; }) ||
           (reading::kHaveLibHeif && reader == reading::kHeifReader);
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
    if (reading::kHaveLibHeif && starts("ftyp"sv, 4))  // an ISO media file: HEIF/AVIF by its brand
        for (std::string_view brand : {"heic"sv, "heix"sv, "hevc"sv, "hevx"sv, "heim"sv, "heis"sv, "mif1"sv,
                                       "msf1"sv, "mif2"sv, "avif"sv, "avis"sv})
            if (starts(brand, 8)) return reading::kHeifReader;
    return "";
}

}  // namespace

namespace {

// (extension, reader) pairs of a "tiff:tif,tiff;jpeg:jpg,..." list; extensions in lower case.
std::vector<std::pair<std::string, std::string>> parse_extension_list(std::string_view all) {
    std::vector<std::pair<std::string, std::string>> out;
    std::size_t pos = 0;
    while (pos < all.size()) {
        std::size_t end = all.find(';', pos);
        if (end == std::string::npos) end = all.size();
        const std::string_view entry = all.substr(pos, end - pos);
        pos = end + 1;
        const std::size_t colon = entry.find(':');
        if (colon == std::string::npos) continue;
        const std::string reader(entry.substr(0, colon));
        for (std::size_t p = colon + 1; p <= entry.size();) {
            std::size_t e = entry.find(',', p);
            if (e == std::string::npos) e = entry.size();
            std::string ext(entry.substr(p, e - p));
            for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
            if (!ext.empty()) out.emplace_back(ext, reader);
            p = e + 1;
        }
    }
    return out;
}

// The file name's extension in lower case, without the dot; "" where it has none.
std::string lower_extension(const std::string& path) {
    const std::size_t dot = path.rfind('.');
    if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return "";
    std::string ext = path.substr(dot + 1);
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

// OpenImageIO 2.4's "extension_list", so that a folder walk sorts files by extension without
// loading OpenImageIO; the reader tests check it against the list of the OpenImageIO linked in.
constexpr std::string_view kOiioExtensionList =
    "openexr:exr,sxr,mxr;tiff:tif,tiff,tx,env,sm,vsm;jpeg:jpg,jpe,jpeg,jif,jfif,jfi;bmp:bmp,dib;cin"
    "eon:cin;dds:dds;dicom:dcm;dpx:dpx;ffmpeg:avi,mov,qt,mp4,m4a,3gp,3g2,mj2,m4v,mpg;fits:fits;gif:gif;"
    "heif:heic,heif,heics,avif;hdr:hdr,rgbe;ico:ico;iff:iff,z;jpeg2000:jp2,j2k,j2c;null:null,nul;open"
    "vdb:vdb;png:png;pnm:ppm,pgm,pbm,pnm,pfm;psd:psd,pdd,psb;raw:bay,bmq,cr2,cr3,crw,cs1,dc2,dcr,dng,"
    "erf,fff,k25,kdc,mdc,mos,mrw,nef,orf,pef,pxn,raf,raw,rdc,sr2,srf,x3f,arw,3fr,cine,ia,kc2,mef,nrw,"
    "qtk,rw2,sti,rwl,srw,drf,dsc,ptx,cap,iiq,rwz;rla:rla;sgi:sgi,rgb,rgba,bw,int,inta;softimage:pic;t"
    "arga:tga,tpic;term:term;webp:webp;zfile:zfile";

}  // namespace

const std::vector<std::pair<std::string, std::string>>& reading::reader_extensions() {
    static const auto list = parse_extension_list(oiio().extension_list());
    return list;
}

const std::vector<std::pair<std::string, std::string>>& reading::known_reader_extensions() {
    static const auto list = parse_extension_list(kOiioExtensionList);
    return list;
}

bool reading::decoded_without_oiio_by_extension(const std::string& path) {
    const std::string ext = lower_extension(path);
    if (ext == "ppm" || ext == "pgm" || ext == "pnm") return true;  // PBM and PFM are OpenImageIO's
    for (const auto& [e, reader] : known_reader_extensions())
        if (e == ext)
            return (kHaveLibPng && reader == "png") || (kHaveTurboJpeg && reader == "jpeg") || (kHaveLibHeif && reader == kHeifReader) ||
                   (kHaveLibRaw && reader == kOiioCameraRawReader);
    return false;
}

namespace {

// The reader OpenImageIO associates with the file's extension, or "".
std::string reader_for_extension(const std::string& path) {
    const std::string ext = lower_extension(path);
    if (ext.empty()) return "";
    for (const auto& [e, reader] : reading::reader_extensions())
        if (e == ext) return reader;
    return "";
}

}  // namespace

std::string trusted_format_names() {
    std::string out;
    for (const TrustedFormat& f : kTrusted) out += (out.empty() ? "" : ", ") + std::string(f.label);
    if (reading::kHaveLibHeif) out += ", HEIC/AVIF (libheif)";
    if (reading::kHaveLibRaw) out += ", camera raw (LibRaw)";
    return out;
}

// The reader for this file: a trusted one by content; otherwise, only with the flag, the one its
// extension names. OpenImageIO is never left to probe its readers one after another.
std::string reading::choose_reader(const std::string& path, const unsigned char* head, std::size_t n,
                                   const ReadOptions& options) {
    const std::string by_content = reader_for_content(head, n);
    if (!by_content.empty()) return by_content;
    std::string by_extension = reader_for_extension(path);
    // Camera raw formats of their own (CR3, RAF, ORF, RW2, ...) have no common signature: the
    // extensions OpenImageIO gives its LibRaw-based reader name them, and LibRaw checks the content.
    if (reading::kHaveLibRaw && by_extension == kOiioCameraRawReader) return reading::kCameraRawReader;
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

// libpng allocates the length a chunk claims before it reads the chunk: a 262-byte file whose
// tEXt chunk claims 1.8 GB made it take 2 GB of memory (found by fuzz/fuzz_reader.cpp). A chunk
// cannot be longer than the rest of the file, so every chunk header is checked against the
// file size before libpng sees the file. Only the 8-byte headers are read.
void reading::check_png_chunks(const std::string& path, std::uint64_t file_size) {
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

// OpenImageIO's GIF reader allocates its canvas (the logical screen, 4 bytes a pixel) as it
// opens the file, before any size check can run: a 36-byte GIF claiming 16722 x 29252 took 2 GB
// (found by fuzz/fuzz_reader.cpp). The screen size is in the header, so --max-pixels sees it first.
void reading::check_gif_screen(const FileHead& head, const ReadOptions& options) {
    if (head.count < 10 || options.max_pixels == 0) return;  // too short: the GIF reader refuses it
    const std::uint64_t width = head.bytes[6] | (std::uint64_t(head.bytes[7]) << 8);
    const std::uint64_t height = head.bytes[8] | (std::uint64_t(head.bytes[9]) << 8);
    if (width * height > options.max_pixels) check_size(width, height, options);
}

// OpenImageIO 2.4's BMP reader reads the DIB header's fields only for the sizes below; for any
// other it goes on with the fields it never set (the width, height and bit depth among them),
// whatever the heap held before: a 168-byte header was counted with the size of the BMP read
// before it, and alone refused with a different size each run (valgrind: BmpInput::open).
void reading::check_bmp_header(const FileHead& head) {
    constexpr std::uint32_t kSizesRead[] = {12, 40, 52, 56, 108, 124};  // OS/2 1.x, Windows 3 to 5
    if (head.count < 18) throw ReadError("truncated BMP: the file ends inside its header");
    const std::uint32_t size = head.bytes[14] | (std::uint32_t(head.bytes[15]) << 8) |
                               (std::uint32_t(head.bytes[16]) << 16) | (std::uint32_t(head.bytes[17]) << 24);
    if (std::find(std::begin(kSizesRead), std::end(kSizesRead), size) == std::end(kSizesRead))
        throw ReadError("unsupported BMP: its DIB header is " + std::to_string(size) +
                        " bytes, a version OpenImageIO's BMP reader does not read (it reads headers of 12, 40, "
                        "52, 56, 108 and 124 bytes)");
}

const std::vector<std::string>& image_extensions(bool untrusted_readers) {
    const auto make = [](bool untrusted) {
        std::set<std::string> exts;
        for (const auto& [ext, reader] : reading::known_reader_extensions())
            if ((untrusted ? !kNeverRead.count(reader) && !kNotWalked.count(reader) : is_trusted(reader)) ||
                (reading::kHaveLibRaw && reader == kOiioCameraRawReader))
                exts.insert(ext);
        return std::vector<std::string>(exts.begin(), exts.end());
    };
    static const std::vector<std::string> trusted = make(false), all = make(true);
    return untrusted_readers ? all : trusted;
}

}  // namespace imghist::io
