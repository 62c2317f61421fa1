#include "core/plan.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "imghist/error.hpp"

namespace imghist {

HistogramPlan::HistogramPlan(PixelFormat format_, const Request& request)
    : format(format_),
      info(format_info(format_)),
      layout(resolve_layout(info.sample, request.bins)),
      channels(channels_for(format_, request)) {
    request.weights.validate();
    for (Channel c : channels) {
        switch (c) {
            case Channel::R: sources.push_back(info.red); break;
            case Channel::G: sources.push_back(info.green); break;
            case Channel::B: sources.push_back(info.blue); break;
            case Channel::A: sources.push_back(info.alpha); break;
            case Channel::gray: sources.push_back(0); break;
            case Channel::Y: sources.push_back(kLumaSource); break;
        }
    }
    clamp = layout.clamp ? 1u : 0u;
    closed_top = layout.closed_top ? 1u : 0u;

    if (!info.is_float()) {
        lo_int = std::int64_t(layout.lo);
        hi_int = std::int64_t(layout.hi);
        // Powers of two from zero reduce to a shift: 8-bit identity, 16-bit v >> (16 - k).
        const auto range = std::uint64_t(hi_int - lo_int);
        const std::uint64_t max_value = info.sample == SampleType::u8 ? 256 : 65536;
        if (lo_int == 0 && std::has_single_bit(range) && std::has_single_bit(layout.bins) &&
            layout.bins <= range && range == max_value) {
            int_mode = IH_INT_SHIFT;
            shift = std::uint32_t(std::countr_zero(range) - std::countr_zero(layout.bins));
        } else {
            int_mode = IH_INT_GENERAL;
        }
    } else {
        // The one specified float sequence: lo and hi rounded to fp32, the scale computed in
        // double and rounded once to fp32. The closed [0, 1] rule has 256 bins below 1.0.
        const double bins_below_hi = layout.closed_top ? layout.bins - 1.0 : double(layout.bins);
        lo_float = float(layout.lo);
        scale_float = float(bins_below_hi / (layout.hi - layout.lo));
        lo_key = ih_float_key(std::bit_cast<std::uint32_t>(float(layout.lo)));
        hi_key = ih_float_key(std::bit_cast<std::uint32_t>(float(layout.hi)));
    }

    const std::uint32_t w[3] = {request.weights.r, request.weights.g, request.weights.b};
    for (int i = 0; i < 3; ++i) {
        weight_int[i] = w[i];
        weight_float[i] = float(double(w[i]) / 10000.0);
    }
}

bool HistogramPlan::has_luma() const {
    return std::find(sources.begin(), sources.end(), kLumaSource) != sources.end();
}

Result HistogramPlan::make_result(const ImageView& image, std::span<const std::uint64_t> slots,
                                  std::string backend, std::string device) const {
    if (slots.size() != total_slots()) throw Error("internal error: slot count mismatch");
    Result r;
    r.width = image.width;
    r.height = image.height;
    r.format = format;
    r.backend = std::move(backend);
    r.device = std::move(device);
    const std::uint32_t n = bins();
    for (std::size_t c = 0; c < channels.size(); ++c) {
        const std::uint64_t* s = slots.data() + c * slots_per_channel();
        ChannelHistogram h;
        h.channel = channels[c];
        h.layout = layout;
        h.counts.assign(s, s + n);
        h.nan = s[n + IH_SLOT_NAN];
        h.below = s[n + IH_SLOT_BELOW];
        h.above = s[n + IH_SLOT_ABOVE];
        r.channels.push_back(std::move(h));
    }
    return r;
}

float half_to_float(std::uint16_t h) {
    return std::bit_cast<float>(ih_half_to_float_bits(h));
}

}  // namespace imghist
