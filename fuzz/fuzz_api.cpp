// libFuzzer target of the library API: the bytes become an image view (valid, or broken in one
// of the ways ImageView::validate() must catch) and a request over every field of
// imghist::Request: mode, weights, uniform bins and range, listed or EV edges, clamp, alpha, a
// roi and tiles up to and past the image, a mask (valid or broken), an alpha threshold and the
// value extremes. `reference` counts it, then `cpu`, `opencl` and `vulkan` (those this build has
// and can open, created once per process; IMGHIST_FUZZ_BACKENDS=cpu,opencl narrows them). Each
// must agree with `reference` bit for bit (counts, clipping, extremes, counted pixels, tiles)
// and reject the same inputs: all throw InvalidArgument or none does. The auto-exposure of the
// luminance is then computed with fuzzed settings. Any other exception, a crash, or a sanitizer
// report is a finding. The byte layout is documented in fuzz/seeds/api/README.md; make_seeds.py
// there encodes requests in it. IMGHIST_FUZZ_TRACE=1 prints what each input asked and what
// reference made of it (counted or rejected), to check seeds and findings.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "imghist/imghist.hpp"

namespace {

// Reads the fuzzer's bytes front to back; zeros once they run out.
class ByteReader {
public:
    ByteReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
    template <class T> T value() {
        T v{};
        unsigned char raw[sizeof(T)] = {};
        for (auto& b : raw) b = byte();
        std::memcpy(&v, raw, sizeof(T));
        return v;
    }
    const std::uint8_t* rest() const { return data_ + pos_; }
    std::size_t rest_size() const { return size_ - pos_; }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t pos_ = 0;
};

// How the view is broken; `valid` for most inputs.
enum class ViewFault : std::uint8_t {
    valid, null_data, zero_width, zero_height, short_stride, overflowing_extent,
    unaligned_stride, misaligned_data, unknown_format, count
};

// How the mask is broken (Request::mask), when there is one.
enum class MaskFault : std::uint8_t { valid, wrong_width, wrong_height, wrong_format, null_data, short_stride,
                                      device_mask, count };

struct Case {
    imghist::ImageView view;
    imghist::Request request;
    std::optional<imghist::ExposureSettings> exposure;
    std::vector<std::uint64_t> storage;     // 8-byte aligned pixel memory the view points into
    std::vector<std::uint8_t> mask_pixels;  // what request.mask points into
};

// A roi coordinate or tile count along a side of `size` pixels: mostly 0 .. size + 2 (inside,
// on the edge and just past it), a few near 2^32 (sums that overflow 32 bits).
std::uint32_t extent_value(std::uint8_t b, std::uint32_t size) {
    return b >= 250 ? std::numeric_limits<std::uint32_t>::max() - (b - 250u) : b % (size + 3);
}

// Uniform bins and range (any count, any two floats or doubles, integers) and clamp.
void read_uniform_bins(ByteReader& in, imghist::BinSpec& spec, std::uint8_t bins, std::uint8_t range) {
    if (bins >= 128) {  // mostly up to 4096 bins, some near the 2^20 limit, some far beyond it
        const auto b = in.value<std::uint32_t>();
        spec.bins = b >> 31 ? b : b >> 30 ? b % ((1u << 20) + 2) : b % 4097;
    }
    if (range >= 224) {  // any two floats: every magnitude fp32 has, where scale and offset overflow
        const double lo = in.value<float>(), hi = in.value<float>();
        spec.range = std::pair{lo, hi};
    } else if (range >= 192) {  // any two doubles: NaN, infinities, denormals, reversed
        const double lo = in.value<double>(), hi = in.value<double>();
        spec.range = std::pair{lo, hi};
    } else if (range >= 128) {  // integer bounds, the common case
        const double lo = in.value<std::int16_t>(), hi = in.value<std::int16_t>();
        spec.range = std::pair{lo, hi};
    }
}

// Edge bins (flags 4): up to 47 listed floats, many (up to past kMaxEdges) in arithmetic steps,
// or EV bins from ev_edges() over any whole stops; mostly without bins and range.
void read_edges(ByteReader& in, imghist::BinSpec& spec, std::uint8_t flags) {
    std::vector<double>& edges = spec.edges;
    if (flags & 32) {  // EV bins: LO in -128 .. 127 stops, HI up to 64 stops above, per stop 0 .. 255
        const double lo = in.value<std::int8_t>(), hi = lo + in.byte() % 129 / 2.0;
        const std::uint32_t per_stop = in.byte();
        try {
            edges = imghist::ev_edges(lo, hi, per_stop);
        } catch (const imghist::InvalidArgument&) {  // a bad EV grid: the request keeps no edges
        }
    } else if (flags & 128) {  // many edges, start + k * step in fp32: past the limit, or not increasing
        const std::size_t n = in.value<std::uint16_t>() % (imghist::kMaxEdges + 3);
        const float start = in.value<float>(), step = in.value<float>();
        for (std::size_t k = 0; k < n; ++k) edges.push_back(start + float(k) * step);
    } else {  // any floats, mostly sorted (valid)
        const std::size_t n = in.byte() % 48;
        for (std::size_t k = 0; k < n; ++k) edges.push_back(in.value<float>());
        if (flags & 8) std::sort(edges.begin(), edges.end());
    }
    if (!(flags & 16)) {
        spec.bins.reset();
        spec.range.reset();
    }
}

// Tiles multiply the result: 4,489 tiles of 5 channels of 2^20 bins would be far beyond the
// run's 2 GB (-rss_limit_mb), and each tile costs the engines far more than its counters (2,115
// tiles of 240 edges on 51 x 47 pixels: 230 MB in reference, 550 MB more in vulkan, under
// ASan). A grid the engine could accept keeps at most 1024 tiles (fewer rows) and 2^20
// counters per channel (fewer bins or edges) here; grids with more tiles than pixels, and bin
// counts beyond the engine's limit, are still asked for (and refused).
void bound_tiled_counters(imghist::Request& r, std::uint32_t width, std::uint32_t height) {
    constexpr std::uint64_t kMaxCounters = std::uint64_t(1) << 20, kMaxTiles = 1024;
    if (r.tiles.count() > kMaxTiles && r.tiles.x <= width && r.tiles.y <= height)
        r.tiles.y = std::max<std::uint32_t>(1, std::uint32_t(kMaxTiles / r.tiles.x));
    const std::uint64_t tiles = r.tiles.count();
    if (tiles <= 1 || tiles > kMaxTiles) return;  // more tiles than pixels: refused before counting
    const std::uint64_t budget = std::max<std::uint64_t>(2, kMaxCounters / tiles);
    if (r.bins.edges.size() > budget + 1) r.bins.edges.resize(budget + 1);
    if (r.bins.bins && *r.bins.bins > budget && *r.bins.bins <= (1u << 20))
        r.bins.bins = std::uint32_t(*r.bins.bins % (budget + 1));
}

// The alpha threshold (selection bits 2-4): integer units, halves, any double, or special values.
std::optional<double> read_alpha_threshold(ByteReader& in, std::uint8_t kind) {
    static constexpr double kSpecial[] = {
        std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity(), -0.0, 0.0, 1.0, 0.5, 254.5, 255, 65534.5, 65535, 65536,
        double(std::numeric_limits<float>::denorm_min()), double(std::numeric_limits<float>::max()),
        std::numeric_limits<double>::max(), -1e-300};
    switch (kind) {
        case 4: return in.byte();
        case 5: return in.value<std::int16_t>() + in.byte() % 4 / 4.0;
        case 6: return in.value<double>();
        case 7: return kSpecial[in.byte() % std::size(kSpecial)];
        default: return std::nullopt;
    }
}

// The auto-exposure settings (selection bits 0-1): none, the defaults, small integers (valid or
// not), or any doubles.
std::optional<imghist::ExposureSettings> read_exposure(ByteReader& in, std::uint8_t kind) {
    imghist::ExposureSettings s;
    if (kind == 2) {
        s.low_percent = in.value<std::int8_t>();
        s.high_percent = in.value<std::int8_t>();
        s.key = in.value<std::int8_t>() / 64.0;
    } else if (kind == 3) {
        s.low_percent = in.value<double>();
        s.high_percent = in.value<double>();
        s.key = in.value<double>();
    }
    return kind == 0 ? std::nullopt : std::optional(s);
}

// The view: format, fault, size, padding; its storage is sized but not filled yet.
std::size_t read_view(ByteReader& in, Case& c, ViewFault& fault, std::uint8_t& fault_byte) {
    constexpr auto kFormats = std::size(imghist::all_pixel_formats);
    const auto format = imghist::all_pixel_formats[in.byte() % kFormats];
    fault_byte = in.byte();
    // One input in eight breaks the view, so that counting gets most of the time.
    fault = fault_byte < 224 ? ViewFault::valid : ViewFault(1 + fault_byte % (std::uint8_t(ViewFault::count) - 1));
    const std::uint32_t width = 1 + in.byte() % 64, height = 1 + in.byte() % 64;
    const std::size_t padding_samples = in.byte() % 8;
    const imghist::FormatInfo& info = imghist::format_info(format);
    const std::size_t row = width * info.pixel_bytes();
    const std::size_t stride = row + padding_samples * info.bytes_per_sample;
    const std::size_t extent = stride * (height - 1) + row;
    c.storage.resize(extent / 8 + 16);  // room for the faults that move the data or widen the stride
    c.view = imghist::ImageView{c.storage.data(), width, height, stride, format};
    return extent;
}

void break_view(Case& c, ViewFault fault, std::uint8_t fault_byte) {
    const imghist::FormatInfo& info = imghist::format_info(c.view.format);
    const std::size_t row = c.view.row_bytes();
    switch (fault) {
        case ViewFault::valid: break;
        case ViewFault::null_data: c.view.data = nullptr; break;
        case ViewFault::zero_width: c.view.width = 0; break;
        case ViewFault::zero_height: c.view.height = 0; break;
        case ViewFault::short_stride: c.view.stride_bytes = row - 1; break;
        case ViewFault::overflowing_extent:
            c.view.height = std::max<std::uint32_t>(c.view.height, 2);
            c.view.stride_bytes = SIZE_MAX / (c.view.height - 1) + info.bytes_per_sample;
            break;
        case ViewFault::unaligned_stride: c.view.stride_bytes += 1; break;
        case ViewFault::misaligned_data: c.view.data = static_cast<const std::uint8_t*>(c.view.data) + 1; break;
        case ViewFault::unknown_format:
            c.view.format = imghist::PixelFormat(std::size(imghist::all_pixel_formats) + fault_byte % 8);
            break;
        case ViewFault::count: break;
    }
}

// The mask: gray8 of the image's size, its bytes the input's pixel bytes that follow the image's
// (ANDed with `density`, so that some masks leave most pixels out), or broken one way.
void make_mask(Case& c, MaskFault fault, std::uint8_t density, const std::uint8_t* bytes, std::size_t size,
               std::size_t offset) {
    const std::uint32_t width = c.view.width, height = c.view.height;
    c.mask_pixels.assign(std::size_t(width + 1) * (height + 1), 0);
    for (std::size_t i = 0; size > 0 && i < c.mask_pixels.size(); ++i)
        c.mask_pixels[i] = bytes[(offset + i) % size] & density;
    imghist::ImageView mask{c.mask_pixels.data(), width, height, width, imghist::PixelFormat::gray8};
    switch (fault) {
        case MaskFault::wrong_width: mask.width += 1, mask.stride_bytes += 1; break;
        case MaskFault::wrong_height: mask.height = height > 1 ? height - 1 : height + 1; break;
        case MaskFault::wrong_format: mask.format = imghist::PixelFormat::rgb8, mask.width = 1 + width / 3; break;
        case MaskFault::null_data: mask.data = nullptr; break;
        case MaskFault::short_stride: mask.stride_bytes = width - 1; break;
        case MaskFault::device_mask:  // a device mask on a host image: refused before it is touched
            c.request.device_mask = imghist::DeviceImage{1, 0, width, height, 0, imghist::PixelFormat::gray8};
            return;
        default: break;
    }
    c.request.mask = mask;
}

// The regions (roi, tiles) and the selection (mask, alpha threshold, exposure settings); the
// mask's fault and density, read here, are applied once the pixels are known.
void read_regions_and_selection(ByteReader& in, Case& c, std::optional<MaskFault>& mask, std::uint8_t& density) {
    imghist::Request& r = c.request;
    const std::uint32_t width = c.view.width, height = c.view.height;
    const std::uint8_t regions = in.byte();
    if (regions >= 192) {  // one in four: inside, on the edge, past or far past the image
        const std::uint32_t x = extent_value(in.byte(), width), y = extent_value(in.byte(), height);
        const std::uint32_t w = extent_value(in.byte(), width), h = extent_value(in.byte(), height);
        r.roi = imghist::Region{x, y, w, h};
    }
    if ((regions & 0x30) == 0x30) {  // one in four: 0 to more tiles than pixels
        const std::uint32_t x = extent_value(in.byte(), width), y = extent_value(in.byte(), height);
        r.tiles = {x, y};
    }
    const std::uint8_t selection = in.byte();
    const std::uint8_t mask_kind = selection >> 5;  // 0-3: none, 4-5: valid, 6: broken
    if (mask_kind >= 4) {
        const std::uint8_t detail = in.byte();
        density = mask_kind == 5 ? detail : 0xff;
        mask = mask_kind == 6 ? MaskFault(1 + detail % (std::uint8_t(MaskFault::count) - 1)) : MaskFault::valid;
    }
    r.alpha_threshold = read_alpha_threshold(in, (selection >> 2) & 7);
    c.exposure = read_exposure(in, selection & 3);
}

Case make_case(const std::uint8_t* data, std::size_t size) {
    ByteReader in(data, size);
    Case c;
    ViewFault fault{};
    std::uint8_t fault_byte = 0;
    const std::size_t extent = read_view(in, c, fault, fault_byte);
    const std::uint8_t mode = in.byte(), weights = in.byte(), bins = in.byte(), range = in.byte();
    const std::uint8_t flags = in.byte();

    auto& r = c.request;
    r.mode = imghist::Mode(mode % 3);
    if (weights < 192) {
        const imghist::LumaWeights presets[] = {imghist::LumaWeights::rec709(), imghist::LumaWeights::rec601(),
                                                imghist::LumaWeights::rec2020()};
        r.weights = presets[weights % 3];
    } else {  // mostly weights that do not sum to 10000
        r.weights = {in.value<std::uint16_t>(), in.value<std::uint16_t>(), in.value<std::uint16_t>()};
    }
    read_uniform_bins(in, r.bins, bins, range);
    r.bins.clamp = flags & 1;
    r.count_alpha = flags & 2;
    if (flags & 4) read_edges(in, r.bins, flags);
    r.value_extremes = flags & 64;
    r.sample_stats = flags & 128;  // the exact sums, radix select and once-rounded statistics too
    if (r.sample_stats && in.value<std::uint8_t>() % 2) {
        r.percentiles.assign(in.value<std::uint8_t>() % 5, 0);
        for (double& p : r.percentiles) p = in.value<double>();  // any double: NaN and out-of-range ones are refused
    }
    std::optional<MaskFault> mask;
    std::uint8_t density = 0xff;
    read_regions_and_selection(in, c, mask, density);
    bound_tiled_counters(r, c.view.width, c.view.height);

    // The pixels: the remaining bytes, repeated to fill the image; the mask's bytes follow them.
    auto* bytes = reinterpret_cast<std::uint8_t*>(c.storage.data());
    if (in.rest_size() > 0)
        for (std::size_t i = 0; i < extent; ++i) bytes[i] = in.rest()[i % in.rest_size()];
    if (mask) make_mask(c, *mask, density, in.rest(), in.rest_size(), extent);
    break_view(c, fault, fault_byte);
    return c;
}

// The result, or nullopt when the engine rejected the input with InvalidArgument.
std::optional<imghist::Result> count(imghist::Engine& engine, const Case& c) {
    try {
        return engine.compute(c.view, c.request);
    } catch (const imghist::InvalidArgument&) {
        return std::nullopt;
    }
}

// Everything a backend computes; backend, device and notes may differ.
bool same_counts(const imghist::Result& a, const imghist::Result& b) {
    return a.same_histograms(b) && a.counted_pixels == b.counted_pixels && a.region == b.region &&
           a.tile_grid == b.tile_grid && a.width == b.width && a.height == b.height;
}

[[noreturn]] void finding(const std::string& what) {
    std::fprintf(stderr, "fuzz_api: %s\n", what.c_str());
    std::abort();
}

// With IMGHIST_FUZZ_TRACE set (replaying seeds or findings): what the input asked and what
// reference made of it, on stderr.
void trace_case(const Case& c, const std::optional<imghist::Result>& expected) {
    const imghist::Request& r = c.request;
    std::fprintf(stderr, "fuzz_api: %ux%u format %d, mode %d, bins %s, edges %zu, roi %s, tiles %ux%u, mask %s, "
                         "alpha threshold %s, extremes %d, exposure %s: ",
                 c.view.width, c.view.height, int(c.view.format), int(r.mode),
                 r.bins.bins ? std::to_string(*r.bins.bins).c_str() : "default", r.bins.edges.size(),
                 r.roi ? "yes" : "no", r.tiles.x, r.tiles.y, r.mask ? "yes" : r.device_mask ? "device" : "no",
                 r.alpha_threshold ? std::to_string(*r.alpha_threshold).c_str() : "no", int(r.value_extremes),
                 c.exposure ? "yes" : "no");
    if (!expected) std::fprintf(stderr, "rejected\n");
    else std::fprintf(stderr, "counted %llu pixels, %zu tiles\n",
                      (unsigned long long)expected->counted_pixels.value_or(expected->region.pixel_count()),
                      expected->tiles.size());
}

bool wanted(const std::string& backend) {
    const char* list = std::getenv("IMGHIST_FUZZ_BACKENDS");
    if (!list) return true;
    std::istringstream names(list);
    for (std::string name; std::getline(names, name, ',');)
        if (name == backend) return true;
    return false;
}

// The engines compared with `reference`: made once, the first time, and named on stderr (the
// fuzz script checks that the log names every backend it expects).
std::vector<std::unique_ptr<imghist::Engine>> make_engines() {
    std::vector<std::unique_ptr<imghist::Engine>> engines;
    for (const char* name : {"cpu", "opencl", "vulkan"}) {
        if (!wanted(name)) continue;
        if (!imghist::find_backend(name)) {
            std::fprintf(stderr, "fuzz_api: backend %s: not compiled in\n", name);
            continue;
        }
        try {
            engines.push_back(imghist::create_engine(name, {.device = "", .threads = 2}));
            std::fprintf(stderr, "fuzz_api: backend %s on %s\n", name, engines.back()->device_name().c_str());
        } catch (const imghist::BackendUnavailable& e) {
            std::fprintf(stderr, "fuzz_api: backend %s: unavailable: %s\n", name, e.what());
        }
    }
    return engines;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    // The Vulkan loader unloads lavapipe when the engine's instance goes at exit; LeakSanitizer
    // then sees Mesa's never-freed allocations in an unknown module, which no suppression
    // (fuzz/lsan.supp) can name. Kept loaded, they are suppressed by the library's name.
    (void)dlopen("libvulkan_lvp.so", RTLD_LAZY | RTLD_NODELETE);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto reference = imghist::create_engine("reference");
    static const auto engines = make_engines();
    static const bool trace = std::getenv("IMGHIST_FUZZ_TRACE") != nullptr;
    const Case c = make_case(data, size);
    const auto expected = count(*reference, c);
    if (trace) trace_case(c, expected);
    for (const auto& engine : engines) {
        const auto got = count(*engine, c);
        const std::string name(engine->backend_name());
        if (expected.has_value() != got.has_value())
            finding(name + (expected ? " rejected an input that reference counted" : " counted an input that reference rejected"));
        if (expected && !same_counts(*expected, *got)) finding(name + " and reference histograms differ");
    }
    if (expected && c.exposure)
        if (const imghist::ChannelHistogram* luminance = expected->luminance()) try {
                (void)imghist::exposure(*luminance, *c.exposure);
            } catch (const imghist::InvalidArgument&) {
            }
    return 0;
}
