// What to compute: mode, luminance weights, bins and range, alpha.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "imghist/image.hpp"

namespace imghist {

enum class Mode { rgb, luma, all };
std::optional<Mode> parse_mode(std::string_view name);
std::string_view mode_name(Mode mode);

// Luminance weights as integers over 10000 (they must sum to 10000).
struct LumaWeights {
    std::uint32_t r = 2126, g = 7152, b = 722;

    static constexpr LumaWeights rec709() { return {2126, 7152, 722}; }
    static constexpr LumaWeights rec601() { return {2990, 5870, 1140}; }
    static constexpr LumaWeights rec2020() { return {2627, 6780, 593}; }
    // "rec709", "rec601", "rec2020" or "WR,WG,WB"; throws InvalidArgument.
    static LumaWeights parse(std::string_view text);
    void validate() const;
    bool operator==(const LumaWeights&) const = default;
};

// Optional overrides of the format's default bins. Unset fields keep the default of the
// image's sample type (docs/semantics.md).
struct BinSpec {
    std::optional<std::uint32_t> bins;
    std::optional<std::pair<double, double>> range;  // [lo, hi)
    // Edge bins instead of uniform ones: N + 1 strictly increasing edges, bin k = [e_k, e_k+1)
    // (docs/semantics.md, "Edges"); excludes bins and range. At most kMaxEdges.
    std::vector<double> edges;
    bool clamp = false;
    // numpy.histogram's last bin, closed: [e_N-1, e_N] holds the top of the range itself
    // (docs/semantics.md, "Closed top"). Needs a range or edges; counted as edge bins.
    bool closed_top = false;
    bool operator==(const BinSpec&) const = default;
};

inline constexpr std::size_t kMaxEdges = 4097;  // 4096 edge bins

// The edges of EV bins (docs/semantics.md, "EV bins"): 2^(lo + k / per_stop) for k = 0 ..
// (hi - lo) * per_stop, each computed in double and rounded once to fp32 by the float rule.
// Throws InvalidArgument unless lo < hi, per_stop >= 1, (hi - lo) * per_stop is a whole number
// of bins (at most 4096) and every edge is a normal fp32 number.
std::vector<double> ev_edges(double lo, double hi, std::uint32_t per_stop);

// A grid of x columns by y rows of tiles over the counted pixels (docs/semantics.md, "Regions
// and tiles"): every tile but the last of a row or column is floor(size / tiles) pixels, the
// last takes the remainder.
struct TileGrid {
    std::uint32_t x = 1, y = 1;
    std::uint64_t count() const { return std::uint64_t(x) * y; }
    bool operator==(const TileGrid&) const = default;
};

struct Request {
    Mode mode = Mode::all;
    LumaWeights weights = LumaWeights::rec709();
    BinSpec bins;
    bool count_alpha = false;
    // Count only these pixels; a region not inside the image is an error, never cropped.
    std::optional<Region> roi;
    // One histogram per tile of the counted pixels as well (Result::tiles), when more than one.
    TileGrid tiles;
    // Count only the pixels whose mask sample is non-zero (docs/semantics.md, "Masks and alpha"):
    // a gray8 view of the image's own width and height; a roi and tiles select from it at the
    // same coordinates. The view is the caller's, read during the call only.
    std::optional<ImageView> mask;
    // The same for images in device memory (the interop calls: imghist::opencl::compute,
    // imghist::cuda::compute ...): a gray8 image in the same device's memory as the image, of its
    // size, under its API's rules for device images (imghist/vulkan.hpp: the buffer extends to
    // the next multiple of 4 bytes). Host images take `mask`, device images `device_mask`; the
    // other is refused.
    std::optional<DeviceImage> device_mask;
    // Count only the pixels whose alpha sample is above this value, in the sample's own units
    // (0..255, 0..65535, or the half / float value), compared exactly; NaN alpha is never above.
    // Colour is counted as stored, never premultiplied. Needs a format with alpha.
    std::optional<double> alpha_threshold;
    // Also find each channel's exact smallest and largest finite value and its +Inf / -Inf
    // counts (ChannelHistogram::finite_min ...; docs/semantics.md, "Value extremes"), for half
    // and float images in host memory: one more pass over the counted pixels, on the host.
    bool value_extremes = false;
    // Also find each channel's exact sample statistics (ChannelHistogram::sample_moments and
    // sample_percentiles; docs/semantics.md, "Sample statistics"): count, exact sums, min, max
    // and these percentiles (in percent, each in [0, 100]) of the samples counted: on the host
    // for host images, where the pixels lie for device images (the same bits either way).
    bool sample_stats = false;
    std::vector<double> percentiles{1, 50, 99};
    // Whether a mask or alpha_threshold leave some pixels of the counted region out.
    bool selects_pixels() const { return mask.has_value() || device_mask.has_value() || alpha_threshold.has_value(); }
    bool operator==(const Request&) const = default;
};

// The pixels a request counts in an image of width x height: its roi, else the whole image.
// Throws InvalidArgument for an empty roi, one that leaves the image, and a tile grid with no
// tile or more tiles than pixels along a side.
Region counted_region(const Request& request, std::uint32_t width, std::uint32_t height);

// Tile (tx, ty) of `grid` over `area`, in the image's coordinates.
Region tile_region(const Region& area, const TileGrid& grid, std::uint32_t tx, std::uint32_t ty);

enum class Channel { R, G, B, A, Y, gray };
std::string_view channel_name(Channel channel);

// The bins one channel is counted into, fully resolved for one sample type.
struct BinLayout {
    std::uint32_t bins = 256;
    double lo = 0, hi = 256;  // [lo, hi), or [lo, hi] when closed_top
    bool clamp = false;
    bool closed_top = false;  // the default float rule: 257 bins over [0, 1], 1.0 inclusive
    // Edge bins: bins + 1 edges, lo and hi the first and last; empty for uniform bins. Float
    // layouts hold the edges as the bins count them, rounded to fp32.
    std::vector<double> edges;
    bool integer = true;      // the binned values are integers (8- and 16-bit samples and their luminance)
    bool operator==(const BinLayout&) const = default;
};

// The layout a request gives a sample type; throws InvalidArgument on a bad BinSpec, including
// float ranges the fp32 bin sequence cannot count alike on every device (docs/semantics.md).
BinLayout resolve_layout(SampleType sample, const BinSpec& spec);

// Float bins narrower than 2^-100 are refused (resolve_layout): see docs/semantics.md.
inline constexpr float kMaxFloatBinScale = 0x1p100f;

// The fp32 scale of a float layout's bin sequence: float(bins below hi / (hi - lo)), divided in
// double and rounded once.
float float_bin_scale(const BinLayout& layout);

// The value a bin stands for in value-unit statistics: its centre. For integer layouts the
// centre of the integers it holds (8-bit bin k: k; 16-bit default bin k: 256k + 127.5); for
// float layouts the centre of [lower edge, upper edge), and hi itself for the closed top bin.
double bin_centre(const BinLayout& layout, std::uint32_t k);

// Lower edge of bin k in sample units (k = bins gives the upper edge of a half-open layout;
// edge bins give edge k).
// The closed top bin of the float rule starts at hi and holds exactly hi.
double bin_lower_edge(const BinLayout& layout, std::uint32_t k);

// The channels, in output order, that a request produces for a format.
std::vector<Channel> channels_for(PixelFormat format, const Request& request);

}  // namespace imghist
