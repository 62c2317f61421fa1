// libFuzzer target of the library API: the bytes become an image view (valid, or broken in one
// of the ways ImageView::validate() must catch) and a request (valid or not, with or without a
// roi and tiles, uniform or edge bins), counted by the `reference` and the `cpu` backends. They must agree bit for
// bit (tiles included), and reject the same inputs:
// both throw InvalidArgument or neither does. Any other exception, a crash, or a sanitizer
// report is a finding.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
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

struct Case {
    imghist::ImageView view;
    imghist::Request request;
    std::vector<std::uint64_t> storage;  // 8-byte aligned pixel memory the view points into
};

Case make_case(const std::uint8_t* data, std::size_t size) {
    ByteReader in(data, size);
    Case c;
    constexpr auto kFormats = std::size(imghist::all_pixel_formats);
    const auto format = imghist::all_pixel_formats[in.byte() % kFormats];
    const std::uint8_t fault_byte = in.byte();
    // One input in eight breaks the view, so that counting gets most of the time.
    const auto fault = fault_byte < 224 ? ViewFault::valid
                                        : ViewFault(1 + fault_byte % (std::uint8_t(ViewFault::count) - 1));
    const std::uint32_t width = 1 + in.byte() % 64, height = 1 + in.byte() % 64;
    const std::size_t padding_samples = in.byte() % 8;

    const imghist::FormatInfo& info = imghist::format_info(format);
    const std::size_t row = width * info.pixel_bytes();
    const std::size_t stride = row + padding_samples * info.bytes_per_sample;
    const std::size_t extent = stride * (height - 1) + row;
    c.storage.resize(extent / 8 + 16);  // room for the faults that move the data or widen the stride
    auto* bytes = reinterpret_cast<std::uint8_t*>(c.storage.data());
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
    if (bins >= 128) {  // mostly up to 4096 bins, some near the 2^20 limit, some far beyond it
        const auto b = in.value<std::uint32_t>();
        r.bins.bins = b >> 31 ? b : b >> 30 ? b % ((1u << 20) + 2) : b % 4097;
    }
    if (range >= 224) {  // any two floats: every magnitude fp32 has, where scale and offset overflow
        const double lo = in.value<float>(), hi = in.value<float>();
        r.bins.range = std::pair{lo, hi};
    } else if (range >= 192) {  // any two doubles: NaN, infinities, denormals, reversed
        const double lo = in.value<double>(), hi = in.value<double>();
        r.bins.range = std::pair{lo, hi};
    } else if (range >= 128) {  // integer bounds, the common case
        const double lo = in.value<std::int16_t>(), hi = in.value<std::int16_t>();
        r.bins.range = std::pair{lo, hi};
    }
    r.bins.clamp = flags & 1;
    r.count_alpha = flags & 2;
    if (flags & 4) {  // edge bins: any floats, mostly sorted (valid), some with bins or range too
        const std::size_t n = in.byte() % 48;
        for (std::size_t k = 0; k < n; ++k) r.bins.edges.push_back(in.value<float>());
        if (flags & 8) std::sort(r.bins.edges.begin(), r.bins.edges.end());
        if (!(flags & 16)) {
            r.bins.bins.reset();
            r.bins.range.reset();
        }
    }
    // A roi (one in four: inside, on the edge or outside the image) and tiles (one in four:
    // mostly a few, some 0 or more than the pixels).
    const std::uint8_t regions = in.byte();
    if (regions >= 192) r.roi = imghist::Region{in.byte() % 70u, in.byte() % 70u, in.byte() % 70u, in.byte() % 70u};
    if ((regions & 0x30) == 0x30) r.tiles = {in.byte() % 10u, in.byte() % 10u};
    // Tiles multiply the result: 81 tiles of 5 channels of 2^20 bins are 3.4 GB, a request the
    // engine accepts but beyond the run's 2 GB (-rss_limit_mb). With tiles, bin counts the engine
    // accepts stay within 4096; those beyond its limit are still asked for (and refused).
    if (r.tiles.count() > 1 && r.bins.bins && *r.bins.bins > 4096 && *r.bins.bins <= (1u << 20))
        r.bins.bins = *r.bins.bins % 4097;

    // The pixels: the remaining bytes, repeated to fill the image.
    if (in.rest_size() > 0)
        for (std::size_t i = 0; i < extent; ++i) bytes[i] = in.rest()[i % in.rest_size()];

    c.view = imghist::ImageView{bytes, width, height, stride, format};
    switch (fault) {
        case ViewFault::valid: break;
        case ViewFault::null_data: c.view.data = nullptr; break;
        case ViewFault::zero_width: c.view.width = 0; break;
        case ViewFault::zero_height: c.view.height = 0; break;
        case ViewFault::short_stride: c.view.stride_bytes = row - 1; break;
        case ViewFault::overflowing_extent:
            c.view.height = std::max<std::uint32_t>(height, 2);
            c.view.stride_bytes = SIZE_MAX / (c.view.height - 1) + info.bytes_per_sample;
            break;
        case ViewFault::unaligned_stride: c.view.stride_bytes = stride + 1; break;
        case ViewFault::misaligned_data: c.view.data = bytes + 1; break;
        case ViewFault::unknown_format: c.view.format = imghist::PixelFormat(kFormats + fault_byte % 8); break;
        case ViewFault::count: break;
    }
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

[[noreturn]] void finding(const char* what) {
    std::fprintf(stderr, "fuzz_api: %s\n", what);
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto reference = imghist::create_engine("reference");
    static const auto cpu = imghist::create_engine("cpu", {.device = "", .threads = 2});
    const Case c = make_case(data, size);
    const auto expected = count(*reference, c);
    const auto got = count(*cpu, c);
    if (expected.has_value() != got.has_value())
        finding(expected ? "cpu rejected an input that reference counted"
                         : "cpu counted an input that reference rejected");
    if (expected && !expected->same_histograms(*got)) finding("cpu and reference histograms differ");
    return 0;
}
