// A request resolved for one pixel format: the scalars every kernel takes, derived once.
// GPU backends copy these fields into their kernel arguments; the CPU backends call classify()
// directly. The bin math itself lives in include/imghist/binning.h.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "imghist/binning.h"
#include "imghist/image.hpp"
#include "imghist/request.hpp"
#include "imghist/result.hpp"

namespace imghist {

// Which input a histogram channel counts: one sample of the pixel, or the luminance.
inline constexpr int kLumaSource = -1;

class HistogramPlan {
public:
    HistogramPlan(PixelFormat format, const Request& request);

    PixelFormat format;
    FormatInfo info;
    BinLayout layout;
    std::vector<Channel> channels;
    std::vector<int> sources;  // per channel: sample index within the pixel, or kLumaSource

    // Integer samples (ih_classify_int arguments).
    std::uint32_t int_mode = IH_INT_SHIFT;
    std::uint32_t shift = 0;
    std::int64_t lo_int = 0, hi_int = 0;

    // Float samples (ih_classify_float arguments).
    float lo_float = 0, scale_float = 0;
    std::uint32_t lo_key = 0, hi_key = 0;

    std::uint32_t closed_top = 0, clamp = 0;

    // Luminance weights, as integers over 10000 and as fp32 fractions.
    std::uint32_t weight_int[3] = {0, 0, 0};
    float weight_float[3] = {0, 0, 0};

    std::uint32_t bins() const { return layout.bins; }
    std::uint32_t slots_per_channel() const { return layout.bins + IH_EXTRA_SLOTS; }
    std::size_t total_slots() const { return channels.size() * slots_per_channel(); }
    bool has_luma() const;
    bool is_float() const { return info.is_float(); }

    std::uint32_t classify_int(std::uint32_t v) const {
        return ih_classify_int(v, int_mode, shift, layout.bins, lo_int, hi_int, clamp);
    }
    std::uint32_t classify_float(float v) const {
        return ih_classify_float(v, layout.bins, lo_float, scale_float, lo_key, hi_key, closed_top,
                                 clamp);
    }

    // The Result for `image` from slot counts laid out as binning.h describes.
    Result make_result(const ImageView& image, std::span<const std::uint64_t> slots,
                       std::string backend, std::string device) const;
};

// Adds one classify() code into a channel's slots (binning.h's two-counter rule).
template <typename Counter>
inline void count_code(Counter* channel_slots, std::uint32_t bins, std::uint32_t code) {
    channel_slots[code & IH_SLOT_MASK] += 1;
    if (code >> IH_EXTRA_SHIFT) channel_slots[bins + (code >> IH_EXTRA_SHIFT)] += 1;
}

// Widen a half's bits to float, exactly.
float half_to_float(std::uint16_t h);

}  // namespace imghist
