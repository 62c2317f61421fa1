#include "reader.hpp"

#include <OpenImageIO/imageio.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <set>

namespace imghist::cli {

namespace OIIO = OIIO_NAMESPACE;
namespace fs = std::filesystem;

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

std::string channel_names(const OIIO::ImageSpec& spec) {
    std::string names;
    for (int c = 0; c < spec.nchannels; ++c) {
        if (c) names += ',';
        names += c < int(spec.channelnames.size()) ? spec.channelnames[c] : "?";
    }
    return names;
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

// OpenImageIO 2.4 rescales 16-bit PNM samples through float and loses the last bit of some
// values (65280 reads as 65279). Binary PGM/PPM with maxval 65535 are read here instead: the
// header, then big-endian samples. Returns false when the file is not such a PNM.
bool read_pnm16(const std::string& path, int width, int height, int channels, std::byte* out) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return false;
    char magic[2] = {};
    if (!f.read(magic, 2) || magic[0] != 'P' || (magic[1] != '5' && magic[1] != '6')) return false;
    if ((magic[1] == '5') != (channels == 1)) return false;
    long long fields[3] = {};
    for (long long& field : fields) {
        int c = f.get();
        while (c != EOF && (std::isspace(c) || c == '#')) {
            if (c == '#') while (c != EOF && c != '\n') c = f.get();
            c = f.get();
        }
        if (c == EOF || !std::isdigit(c)) return false;
        while (c != EOF && std::isdigit(c)) {
            field = field * 10 + (c - '0');
            if (field > (1ll << 40)) return false;
            c = f.get();
        }
        if (c == EOF || !std::isspace(c)) return false;  // exactly one whitespace before data
    }
    if (fields[0] != width || fields[1] != height || fields[2] != 65535) return false;
    const std::size_t samples = std::size_t(width) * std::size_t(height) * std::size_t(channels);
    std::vector<unsigned char> raw(2 * std::min<std::size_t>(samples, 1 << 20));
    std::size_t done = 0;
    auto* dst = reinterpret_cast<std::uint16_t*>(out);
    while (done < samples) {
        const std::size_t n = std::min(samples - done, raw.size() / 2);
        if (!f.read(reinterpret_cast<char*>(raw.data()), std::streamsize(2 * n)))
            throw ReadError("cannot read pixels (pnm): the file ends before its last pixel");
        for (std::size_t i = 0; i < n; ++i) dst[done + i] = std::uint16_t((raw[2 * i] << 8) | raw[2 * i + 1]);
        done += n;
    }
    return true;
}

}  // namespace

LoadedImage read_image(const std::string& path, const ReadOptions& options) {
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) throw ReadError("no such file");
    if (fs::is_directory(status)) throw ReadError("is a directory");
    if (fs::is_regular_file(status) && fs::file_size(path, ec) == 0 && !ec)
        throw ReadError("empty file (0 bytes)");

    (void)OIIO::geterror();  // drop any stale message this thread holds
    OIIO::ImageSpec config;
    // Colour stays as the file stores it: no premultiplication by alpha.
    config.attribute("oiio:UnassociatedAlpha", 1);
    auto in = OIIO::ImageInput::open(path, &config);
    if (!in) {
        std::string err = one_line(OIIO::geterror());
        if (err.empty()) err = "not an image OpenImageIO can read";
        throw ReadError("cannot open: " + err);
    }
    const OIIO::ImageSpec spec = in->spec();
    const std::string format_name = in->format_name();

    // --- everything below up to read_image() uses the header only ---------------------------
    if (spec.width <= 0 || spec.height <= 0)
        throw ReadError("zero size (" + std::to_string(spec.width) + " x " +
                        std::to_string(spec.height) + " pixels)");
    if (spec.depth > 1)
        throw ReadError("volume images (depth " + std::to_string(spec.depth) + ") are not supported");
    const std::uint64_t pixels = std::uint64_t(spec.width) * std::uint64_t(spec.height);
    if (options.max_pixels != 0 && pixels > options.max_pixels)
        throw ReadError(std::to_string(spec.width) + " x " + std::to_string(spec.height) + " = " +
                        std::to_string(pixels) + " pixels exceeds the limit of " +
                        std::to_string(options.max_pixels) +
                        " (raise it with --max-pixels; 0 means no limit)");

    const int nch = spec.nchannels;
    const bool is_cmyk = nch == 4 && spec.channelnames.size() == 4 && spec.channelnames[0] == "C" &&
                         spec.channelnames[1] == "M" && spec.channelnames[2] == "Y" &&
                         spec.channelnames[3] == "K";
    if (nch == 2)
        throw ReadError("unsupported channel layout: 2 channels (" + channel_names(spec) +
                        "); imghist reads 1 (gray), 3 (RGB) or 4 (RGBA) channels");
    if (nch < 1 || nch > 4)
        throw ReadError("unsupported channel layout: " + std::to_string(nch) + " channels (" +
                        channel_names(spec) + "); imghist reads 1 (gray), 3 (RGB) or 4 (RGBA) channels");
    if (is_cmyk) throw ReadError("unsupported channel layout: CMYK");

    LoadedImage out;
    // The sample type the file stores, or the type OpenImageIO converts it to (with a note).
    OIIO::TypeDesc stored = spec.format;
    bool mixed = false;
    for (const OIIO::TypeDesc& t : spec.channelformats)
        if (t != spec.format) mixed = true;
    out.source_type = type_name(stored);
    OIIO::TypeDesc read_type = stored;
    SampleType sample = SampleType::f32;
    if (mixed) {
        std::string types;
        for (const OIIO::TypeDesc& t : spec.channelformats) types += (types.empty() ? "" : ",") + type_name(t);
        out.source_type = types;
        read_type = OIIO::TypeDesc::FLOAT;
        out.notes.push_back("channels have different sample types (" + types +
                            "); all were read as float");
    } else {
        switch (stored.basetype) {
            case OIIO::TypeDesc::UINT8: sample = SampleType::u8; break;
            case OIIO::TypeDesc::UINT16: sample = SampleType::u16; break;
            case OIIO::TypeDesc::HALF: sample = SampleType::f16; break;
            case OIIO::TypeDesc::FLOAT: sample = SampleType::f32; break;
            case OIIO::TypeDesc::DOUBLE:
                read_type = OIIO::TypeDesc::FLOAT;
                out.notes.push_back("samples are double; converted to 32-bit float");
                break;
            case OIIO::TypeDesc::INT8:
            case OIIO::TypeDesc::INT16:
            case OIIO::TypeDesc::INT32:
            case OIIO::TypeDesc::INT64:
                read_type = OIIO::TypeDesc::FLOAT;
                out.notes.push_back("samples are " + type_name(stored) +
                                    "; converted to float by OpenImageIO (scaled to [-1, 1])");
                break;
            case OIIO::TypeDesc::UINT32:
            case OIIO::TypeDesc::UINT64:
                read_type = OIIO::TypeDesc::FLOAT;
                out.notes.push_back("samples are " + type_name(stored) +
                                    "; converted to float by OpenImageIO (scaled to [0, 1])");
                break;
            default:
                throw ReadError("unsupported sample type " + type_name(stored));
        }
    }
    if (read_type == OIIO::TypeDesc::FLOAT) sample = SampleType::f32;
    const int bits = spec.get_int_attribute("oiio:BitsPerSample", 0);
    if (!mixed && bits > 0 && (sample == SampleType::u8 || sample == SampleType::u16) &&
        std::size_t(bits) != stored.size() * 8)
        out.notes.push_back("the file stores " + std::to_string(bits) + " bits per sample; " +
                            "OpenImageIO scales them to the full " +
                            std::to_string(stored.size() * 8) + "-bit range");

    static constexpr PixelFormat by_type[4][3] = {
        {PixelFormat::gray8, PixelFormat::rgb8, PixelFormat::rgba8},
        {PixelFormat::gray16, PixelFormat::rgb16, PixelFormat::rgba16},
        {PixelFormat::gray_f16, PixelFormat::rgb_f16, PixelFormat::rgba_f16},
        {PixelFormat::gray_f32, PixelFormat::rgb_f32, PixelFormat::rgba_f32},
    };
    const PixelFormat format = by_type[int(sample)][nch == 1 ? 0 : nch == 3 ? 1 : 2];
    const FormatInfo& fi = format_info(format);
    if (std::size_t(fi.bytes_per_sample) != read_type.size())
        throw ReadError("internal error: sample size mismatch");

    if (spec.width > 0xFFFFFFFFll || spec.height > 0xFFFFFFFFll)
        throw ReadError("dimensions too large");
    const std::uint64_t bytes64 = pixels * fi.pixel_bytes();
    if (bytes64 / fi.pixel_bytes() != pixels || bytes64 > std::uint64_t(SIZE_MAX) / 2)
        throw ReadError("image too large for this machine's memory");
    const std::size_t bytes = std::size_t(bytes64);
    out.pixels.reset(new (std::nothrow) std::byte[bytes]);
    if (!out.pixels) throw ReadError("out of memory (the pixels need " + mib(bytes) + ")");

    // --- pixels -------------------------------------------------------------------------------
    bool ok = true;
    if (format_name == "tiff") {
        // OpenImageIO 2.4 decompresses several zip strips or tiles at once on its own and drops
        // their decoding errors, returning zeros for the broken ones. One scanline or one tile
        // at a time goes through libtiff, which reports them.
        const std::size_t pixel_bytes = fi.pixel_bytes();
        const std::size_t row_bytes = std::size_t(spec.width) * pixel_bytes;
        if (spec.tile_width > 0 && spec.tile_height > 0) {
            for (int ty = 0; ok && ty < spec.height; ty += spec.tile_height) {
                for (int tx = 0; ok && tx < spec.width; tx += spec.tile_width) {
                    const int xend = std::min(spec.width, tx + spec.tile_width);
                    const int yend = std::min(spec.height, ty + spec.tile_height);
                    std::byte* dst = out.pixels.get() + std::size_t(ty) * row_bytes + std::size_t(tx) * pixel_bytes;
                    ok = in->read_tiles(0, 0, spec.x + tx, spec.x + xend, spec.y + ty, spec.y + yend,
                                        spec.z, spec.z + 1, 0, nch, read_type, dst, OIIO::stride_t(pixel_bytes),
                                        OIIO::stride_t(row_bytes));
                    ok = ok && !in->has_error();
                }
            }
        } else {
            for (int y = 0; ok && y < spec.height; ++y) {
                ok = in->read_scanlines(0, 0, spec.y + y, spec.y + y + 1, spec.z, 0, nch, read_type,
                                        out.pixels.get() + std::size_t(y) * row_bytes);
                ok = ok && !in->has_error();
            }
        }
    } else if (format_name == "pnm" && sample == SampleType::u16 &&
               read_pnm16(path, spec.width, spec.height, nch, out.pixels.get())) {
        ok = true;
    } else {
        ok = in->read_image(0, 0, 0, nch, read_type, out.pixels.get());
    }
    std::string err = in->has_error() ? one_line(in->geterror()) : std::string();
    if (OIIO::has_error()) {
        const std::string global = one_line(OIIO::geterror());
        if (err.empty()) err = global;
    }
    // Truncated files may come back with a partial image and an error; never count those.
    if (!ok || !err.empty())
        throw ReadError("cannot read pixels (" + format_name + "): " +
                        (err.empty() ? std::string("truncated or corrupt data (the reader gave no reason)") : err));

    if (in->seek_subimage(1, 0))
        out.notes.push_back("the file holds more than one image; only the first was counted");
    (void)in->geterror();
    in->close();

    // 4 channels with the alpha elsewhere than last: move it last (RGBA).
    if (nch == 4 && spec.alpha_channel >= 0 && spec.alpha_channel < 3) {
        const std::size_t s = fi.bytes_per_sample;
        std::byte* p = out.pixels.get();
        std::byte tmp[4 * 8];
        const int a = spec.alpha_channel;
        for (std::uint64_t i = 0; i < pixels; ++i, p += 4 * s) {
            std::size_t o = 0;
            for (int c = 0; c < 4; ++c)
                if (c != a) std::memcpy(tmp + (o++) * s, p + c * s, s);
            std::memcpy(tmp + 3 * s, p + a * s, s);
            std::memcpy(p, tmp, 4 * s);
        }
    } else if (nch == 4 && spec.alpha_channel < 0) {
        out.notes.push_back("4 channels (" + channel_names(spec) +
                            ") without a marked alpha channel: read as R,G,B,A");
    }

    out.view = ImageView::packed(out.pixels.get(), std::uint32_t(spec.width),
                                 std::uint32_t(spec.height), format);
    return out;
}

const std::vector<std::string>& image_extensions() {
    static const std::vector<std::string> list = [] {
        // "tiff:tif,tiff;jpeg:jpg,jpe,jpeg;..." for every reader compiled into OpenImageIO.
        static const std::set<std::string> skipped = {"ffmpeg", "openvdb", "raw", "null", "term"};
        const std::string all(OIIO::get_string_attribute("extension_list"));
        std::set<std::string> exts;
        std::size_t pos = 0;
        while (pos < all.size()) {
            std::size_t end = all.find(';', pos);
            if (end == std::string::npos) end = all.size();
            const std::string entry = all.substr(pos, end - pos);
            pos = end + 1;
            const std::size_t colon = entry.find(':');
            if (colon == std::string::npos) continue;
            if (skipped.count(entry.substr(0, colon))) continue;
            std::size_t p = colon + 1;
            while (p <= entry.size()) {
                std::size_t e = entry.find(',', p);
                if (e == std::string::npos) e = entry.size();
                std::string ext = entry.substr(p, e - p);
                for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
                if (!ext.empty()) exts.insert(ext);
                p = e + 1;
            }
        }
        return std::vector<std::string>(exts.begin(), exts.end());
    }();
    return list;
}

std::string reader_version() {
    return "OpenImageIO " + std::string(OIIO::get_string_attribute("oiio:version", OIIO_VERSION_STRING));
}

void configure_reader_threads(unsigned threads) {
    OIIO::attribute("threads", int(std::max(1u, threads)));
    OIIO::attribute("exr_threads", int(std::max(1u, threads)));
}

}  // namespace imghist::cli
