// A request resolved for one pixel format: the scalars every kernel takes, derived once.
// GPU backends copy them into their kernel arguments (the KernelScalars part in one
// assignment); the CPU backends call classify() directly. The bin math itself lives in include/imghist/binning.h.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/kernel_scalars.hpp"
#include "imghist/binning.h"
#include "imghist/image.hpp"
#include "imghist/request.hpp"
#include "imghist/result.hpp"

namespace imghist {

// Which input a histogram channel counts: one sample of the pixel, or the luminance.
inline constexpr int kLumaSource = -1;

class HistogramPlan : public KernelScalars {
public:
    HistogramPlan(PixelFormat format, const Request& request);

    PixelFormat format;
    FormatInfo info;
    BinLayout layout;
    std::vector<Channel> channels;
    std::vector<int> sources;  // per channel: sample index within the pixel, or kLumaSource

    // The rest of the classify arguments (the range and weight scalars are KernelScalars).
    std::uint32_t int_mode = IH_INT_SHIFT;
    std::uint32_t shift = 0;
    std::uint32_t closed_top = 0, clamp = 0;

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
