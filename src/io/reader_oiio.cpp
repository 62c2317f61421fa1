// OpenImageIO's readers: the stored samples of the chosen channels of a file (reader_tiff.cpp
// reads TIFF around its losses), and the table that reaches them (oiio_readers.hpp), the entry
// point of libimghist_oiio.so where the command loads them as a module.
#include <OpenImageIO/imageio.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <string_view>
#include <type_traits>

#include "oiio_readers.hpp"
#include "reader_internal.hpp"
#include "reader_oiio_internal.hpp"

namespace imghist::io {

namespace OIIO = OIIO_NAMESPACE;
using namespace reading;

namespace {

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

// --- channels ------------------------------------------------------------------------------------

// Which of the file's channels are counted, in imghist's order (R, G, B[, A] or gray).
struct ChannelChoice {
    std::vector<int> channels;
    std::vector<std::string> notes;
};

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
    if (!ignored.empty()) choice.notes.push_back(std::string(kChannelsLeftOutNote) + join(ignored));
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

// OpenImageIO picks OpenEXR's core or classic library when the reader is created, from the
// process-wide "openexr:core" setting; EXR readers are created under this lock so that the
// classic one, made for DWA files, never leaks to another thread's file.
std::mutex exr_reader_creation;

std::unique_ptr<OIIO::ImageInput> create_input(const std::string& reader, const OIIO::ImageSpec& config,
                                               bool classic_exr) {
    if (reader != "openexr") return OIIO::ImageInput::create(reader, false, &config);
    const std::lock_guard<std::mutex> lock(exr_reader_creation);
    if (!classic_exr) return OIIO::ImageInput::create(reader, false, &config);
    OIIO::attribute("openexr:core", 0);
    auto in = OIIO::ImageInput::create(reader, false, &config);
    OIIO::attribute("openexr:core", 1);
    return in;
}

// OpenEXR 3.1's core library fails every DWAA file and most DWAB files ("Some scanline chunks
// were missing or corrupted"), which Nuke and Blender write by default; the classic library's
// DWA decoder is the reference one. The core library still reads every other compression.
bool needs_classic_exr(const std::string& reader, const OIIO::ImageSpec& spec) {
    if (reader != "openexr") return false;
    const std::string compression = spec.get_string_attribute("compression");
    return compression.rfind("dwa", 0) == 0;
}

// Opens the file with the named reader, colour as the file stores it (no premultiplication).
std::unique_ptr<OIIO::ImageInput> open_input(const std::string& path, const std::string& reader, OIIO::ImageSpec& spec) {
    (void)OIIO::geterror();  // drop any stale message this thread holds
    OIIO::ImageSpec config;
    config.attribute("oiio:UnassociatedAlpha", 1);
    for (bool classic_exr : {false, true}) {
        auto in = create_input(reader, config, classic_exr);
        if (!in || !in->open(path, spec, config)) {
            std::string err = one_line(in ? in->geterror() : OIIO::geterror());
            if (err.empty()) err = "not a " + reader + " file OpenImageIO can read";
            throw ReadError("cannot open (" + reader + "): " + err);
        }
        if (classic_exr || !needs_classic_exr(reader, spec)) return in;
        in->close();
    }
    throw ReadError("cannot open (" + reader + ")");  // not reached: the classic pass returns
}

// What the header alone refuses, before any pixel is read.
void check_header(const OIIO::ImageSpec& spec, const ReadOptions& options) {
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
}

// OpenEXR rebuilds the offset table of a file whose chunks are missing by looking for each of
// them in turn: a 558-byte file declaring a tall image took minutes under the fuzzer's
// sanitizers (found by fuzz_reader in CI, tests/data/repro). Every chunk of a complete file has
// an 8-byte offset and at least an 8-byte header (its line or tile, and its size), so a file of
// fewer than 16 bytes a chunk is truncated, which the header alone shows.
void check_exr_chunks(const OIIO::ImageSpec& spec, const std::string& path) {
    const auto ceil_div = [](std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; };
    std::uint64_t chunks;
    if (spec.tile_width > 0 && spec.tile_height > 0) {
        chunks = ceil_div(std::uint64_t(spec.width), std::uint64_t(spec.tile_width)) *
                 ceil_div(std::uint64_t(spec.height), std::uint64_t(spec.tile_height));
    } else {  // scanlines per chunk by compression (OpenEXR's file layout); 256 where unknown
        const std::string c = spec.get_string_attribute("compression", "none");
        const auto is = [&c](const char* name) { return c.rfind(name, 0) == 0; };  // "dwaa:45" too
        const std::uint64_t lines = is("none") || is("rle") || is("zips") ? 1
                                    : is("zip") || is("pxr24")            ? 16
                                    : is("piz") || is("b44") || is("dwaa") ? 32
                                                                           : 256;
        chunks = ceil_div(std::uint64_t(spec.height), lines);
    }
    std::error_code ec;
    const std::uint64_t size = std::filesystem::file_size(path, ec);
    if (!ec && chunks > size / 16)
        throw ReadError("truncated: the header declares " + std::to_string(chunks) +
                        " chunks of pixels, which need at least 16 bytes each, and the file has " +
                        std::to_string(size) + " bytes");
}

// The sample type imghist counts samples read as `read_type` in, with a note for a conversion.
SampleType counted_sample(OIIO::TypeDesc read_type, std::vector<std::string>& notes) {
    switch (read_type.basetype) {
        case OIIO::TypeDesc::UINT8: return SampleType::u8;
        case OIIO::TypeDesc::UINT16: return SampleType::u16;
        case OIIO::TypeDesc::HALF: return SampleType::f16;
        case OIIO::TypeDesc::FLOAT: return SampleType::f32;
        case OIIO::TypeDesc::DOUBLE: notes.push_back("samples are double; rounded to 32-bit float"); return SampleType::f32;
        case OIIO::TypeDesc::INT8:
        case OIIO::TypeDesc::INT16:
        case OIIO::TypeDesc::INT32:
        case OIIO::TypeDesc::INT64:
        case OIIO::TypeDesc::UINT32:
        case OIIO::TypeDesc::UINT64: {
            const bool is_signed = read_type.is_signed();
            const int bits = int(read_type.size() * 8) - (is_signed ? 1 : 0);
            notes.push_back("samples are " + type_name(read_type) + "; converted to float as v / (2^" +
                            std::to_string(bits) + " - 1)");
            return SampleType::f32;
        }
        default: throw ReadError("unsupported sample type " + type_name(read_type));
    }
}

// How the samples are read (the file's own type, or float for mixed channel types) and counted.
struct SampleChoice {
    OIIO::TypeDesc read_type;
    SampleType sample;
};

SampleChoice choose_samples(const OIIO::ImageSpec& spec, LoadedImage& out) {
    SampleChoice choice{spec.format, SampleType::f32};
    bool mixed = false;
    for (const OIIO::TypeDesc& t : spec.channelformats) mixed = mixed || t != spec.format;
    out.source_type = type_name(spec.format);
    if (mixed) {
        std::vector<std::string> types;
        for (const OIIO::TypeDesc& t : spec.channelformats) types.push_back(type_name(t));
        out.source_type = join(types);
        choice.read_type = OIIO::TypeDesc::FLOAT;
        out.notes.push_back("channels have different sample types (" + out.source_type +
                            "); all were read as float by OpenImageIO");
    }
    choice.sample = counted_sample(choice.read_type, out.notes);
    const std::size_t bits = choice.read_type.size() * 8;
    const int stored_bits = spec.get_int_attribute("oiio:BitsPerSample", 0);
    if (!mixed && stored_bits > 0 && (choice.sample == SampleType::u8 || choice.sample == SampleType::u16) &&
        std::size_t(stored_bits) != bits)
        out.notes.push_back("the file stores " + std::to_string(stored_bits) + " bits per sample; " +
                            "OpenImageIO scales them to the full " + std::to_string(bits) + "-bit range");
    return choice;
}

// Reads the chosen channels into `dst`: straight when they are the file's own run in order and
// need no conversion; otherwise through a buffer of the channels' span. False on a read error.
bool read_channels(OIIO::ImageInput& in, const std::string& path, const OIIO::ImageSpec& spec,
                   const std::vector<int>& channels, OIIO::TypeDesc read_type, std::byte* dst) {
    const auto [lo_it, hi_it] = std::minmax_element(channels.begin(), channels.end());
    const int chbegin = *lo_it, chend = *hi_it + 1;
    std::vector<int> pick;
    for (int c : channels) pick.push_back(c - chbegin);
    const bool counted_as_stored = read_type == OIIO::TypeDesc::UINT8 || read_type == OIIO::TypeDesc::UINT16 ||
                                   read_type == OIIO::TypeDesc::HALF || read_type == OIIO::TypeDesc::FLOAT;
    bool direct = counted_as_stored && std::size_t(chend - chbegin) == pick.size();
    for (std::size_t i = 0; direct && i < pick.size(); ++i) direct = pick[i] == int(i);
    if (direct) return read_pixels(in, path, spec, chbegin, chend, read_type, dst);
    const std::uint64_t pixels = std::uint64_t(spec.width) * std::uint64_t(spec.height);
    auto span = allocate(pixels, std::size_t(chend - chbegin) * read_type.size());
    const bool ok = read_pixels(in, path, spec, chbegin, chend, read_type, span.get());
    if (ok) gather_samples(read_type, span.get(), chend - chbegin, pick, pixels, dst);
    return ok;
}

// Truncated files may come back with a partial image and an error; never count those.
void check_read(OIIO::ImageInput& in, bool ok, const std::string& reader) {
    std::string err = in.has_error() ? one_line(in.geterror()) : std::string();
    if (OIIO::has_error()) {
        const std::string global = one_line(OIIO::geterror());
        if (err.empty()) err = global;
    }
    if (!ok || !err.empty())
        throw ReadError("cannot read pixels (" + reader + "): " +
                        (err.empty() ? std::string("truncated or corrupt data (the reader gave no reason)") : err));
}

}  // namespace

LoadedImage reading::read_with_oiio(const std::string& path, const std::string& reader, const ReadOptions& options,
                                    const PixelAllocator& allocate_pixels) {
    OIIO::ImageSpec spec;
    const auto in = open_input(path, reader, spec);
    check_header(spec, options);
    if (reader == "openexr") check_exr_chunks(spec, path);
    const ChannelChoice channels = choose_channels(spec);
    LoadedImage out;
    out.notes = channels.notes;
    const SampleChoice samples = choose_samples(spec, out);
    const PixelFormat format = format_for(samples.sample, int(channels.channels.size()));
    const std::uint64_t pixels = std::uint64_t(spec.width) * std::uint64_t(spec.height);
    out.pixels = allocate_pixels(image_bytes(pixels, format_info(format).pixel_bytes()));
    const bool ok = read_channels(*in, path, spec, channels.channels, samples.read_type, out.pixels.get());
    check_read(*in, ok, reader);
    if (const OIIO::ParamValue* icc = spec.find_attribute("ICCProfile")) out.notes.push_back(icc_profile_note(icc->type().size()));
    if (in->seek_subimage(1, 0))
        out.notes.push_back("the file holds more than one image; only the first was counted");
    (void)in->geterror();
    in->close();
    out.view = ImageView::packed(out.pixels.get(), std::uint32_t(spec.width), std::uint32_t(spec.height), format);
    return out;
}

namespace {

std::string oiio_extension_list() { return OIIO::get_string_attribute("extension_list"); }

std::string oiio_version() {
    return "OpenImageIO " + std::string(OIIO::get_string_attribute("oiio:version", OIIO_VERSION_STRING));
}

void set_oiio_threads(unsigned threads) {
    OIIO::attribute("threads", int(std::max(1u, threads)));
    OIIO::attribute("exr_threads", int(std::max(1u, threads)));
}

// Process-wide reader settings, made before the table is handed out, so before any file is opened.
const reading::OiioReaders* configured_readers() {
    // OpenEXR's core library checks every chunk it decodes. The classic path OpenImageIO 2.4
    // uses by default reports success on corrupt zip/piz chunks and hands back pixels it
    // never wrote (the decompression buffer's old contents), different on every run.
    OIIO::attribute("openexr:core", 1);
    // OpenImageIO builds its list of readers on first use, and a thread that asks for the list
    // while another one's ImageInput::create is building it gets an empty one.
    (void)oiio_extension_list();
    static const reading::OiioReaders readers{reading::read_with_oiio, oiio_extension_list, oiio_version,
                                              set_oiio_threads};
    return &readers;
}

}  // namespace

}  // namespace imghist::io

extern "C" __attribute__((visibility("default"))) const imghist::io::reading::OiioReaders* imghist_oiio_readers() {
    static const imghist::io::reading::OiioReaders* const readers = imghist::io::configured_readers();
    return readers;
}
