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
    bool clamp = false;
};

struct Request {
    Mode mode = Mode::all;
    LumaWeights weights = LumaWeights::rec709();
    BinSpec bins;
    bool count_alpha = false;
};

enum class Channel { R, G, B, A, Y, gray };
std::string_view channel_name(Channel channel);

// The bins one channel is counted into, fully resolved for one sample type.
struct BinLayout {
    std::uint32_t bins = 256;
    double lo = 0, hi = 256;  // [lo, hi), or [lo, hi] when closed_top
    bool clamp = false;
    bool closed_top = false;  // the default float rule: 257 bins over [0, 1], 1.0 inclusive
    bool operator==(const BinLayout&) const = default;
};

// The layout a request gives a sample type; throws InvalidArgument on a bad BinSpec.
BinLayout resolve_layout(SampleType sample, const BinSpec& spec);

// The channels, in output order, that a request produces for a format.
std::vector<Channel> channels_for(PixelFormat format, const Request& request);

}  // namespace imghist
