#include "core/extremes.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "contract/binning.h"
#include "contract/half.h"
#include "contract/luminance.h"
#include "core/host_threads.hpp"
#include "core/plan.hpp"
#include "core/selection.hpp"
#include "imghist/error.hpp"

namespace imghist {

namespace {
// The fp32 bits of sample `index` of a half or float pixel.
std::uint32_t sample_bits(const std::byte* pixel, int index, SampleType sample) {
    if (sample == SampleType::f16) {
        std::uint16_t h;
        std::memcpy(&h, pixel + 2 * index, 2);
        return ih_half_to_float_bits(h);
    }
    std::uint32_t bits;
    std::memcpy(&bits, pixel + 4 * index, 4);
    return bits;
}

void add_sample(ValueExtremes& e, std::uint32_t bits) {
    if ((bits & 0x7FFFFFFFu) == 0x7F800000u) {
        ++((bits >> 31) ? e.negative_infinities : e.positive_infinities);
        return;
    }
    if (ih_is_nan_bits(bits)) return;
    const std::uint32_t key = ih_float_key(bits);
    e.min_key = std::min(e.min_key, key);
    e.max_key = std::max(e.max_key, key);
}

// Pixels [0, n) of a packed or strided row.
void add_row(std::vector<ValueExtremes>& out, const std::byte* row, std::size_t n, const HistogramPlan& plan) {
    const FormatInfo& info = plan.info;
    const std::size_t pixel_bytes = info.pixel_bytes();
    for (std::size_t x = 0; x < n; ++x) {
        const std::byte* pixel = row + x * pixel_bytes;
        for (std::size_t c = 0; c < plan.channels.size(); ++c) {
            std::uint32_t bits;
            if (plan.sources[c] == kLumaSource) {
                const auto value = [&](int index) { return std::bit_cast<float>(sample_bits(pixel, index, info.sample)); };
                bits = std::bit_cast<std::uint32_t>(ih_luma_float(value(info.red), value(info.green), value(info.blue),
                                                                  plan.weight_float[0], plan.weight_float[1],
                                                                  plan.weight_float[2]));
            } else {
                bits = sample_bits(pixel, plan.sources[c], info.sample);
            }
            add_sample(out[c], bits);
        }
    }
}

// The float a key stands for (ih_float_key's inverse; the folded -0 comes back as +0).
double value_of_key(std::uint32_t key) {
    const std::uint32_t bits = (key & 0x80000000u) ? (key & 0x7FFFFFFFu) : ~key;
    return double(std::bit_cast<float>(bits));
}
}  // namespace

void ValueExtremes::add(const ValueExtremes& other) {
    min_key = std::min(min_key, other.min_key);
    max_key = std::max(max_key, other.max_key);
    positive_infinities += other.positive_infinities;
    negative_infinities += other.negative_infinities;
}

std::vector<ValueExtremes> find_value_extremes(const ImageView& image, const HistogramPlan& plan,
                                               const PixelSelector* selector) {
    if (!plan.is_float()) throw Error("internal error: value extremes of an integer plan");
    const std::size_t row_bytes = image.row_bytes();
    const unsigned threads = host_pass_threads(row_bytes * image.height, image.height);
    std::vector<std::vector<ValueExtremes>> shares(threads, std::vector<ValueExtremes>(plan.channels.size()));
    for_row_shares(image.height, threads, [&](unsigned t, std::uint32_t begin, std::uint32_t end) {
        std::vector<std::uint64_t> gathered(selector ? (row_bytes + 7) / 8 : 0);  // a row of selected pixels
        for (std::uint32_t y = begin; y < end; ++y) {
            if (!selector) {
                add_row(shares[t], image.row(y), image.width, plan);
                continue;
            }
            auto* packed = reinterpret_cast<std::byte*>(gathered.data());
            add_row(shares[t], packed, selector->gather_row(y, packed), plan);
        }
    });
    for (unsigned t = 1; t < threads; ++t)
        for (std::size_t c = 0; c < plan.channels.size(); ++c) shares[0][c].add(shares[t][c]);
    return shares[0];
}

void set_value_extremes(std::vector<ChannelHistogram>& channels, const std::vector<ValueExtremes>& extremes) {
    for (std::size_t c = 0; c < channels.size(); ++c) {
        const ValueExtremes& e = extremes[c];
        ChannelHistogram& h = channels[c];
        h.finite_min = h.finite_max = std::nullopt;
        if (e.min_key <= e.max_key) {
            h.finite_min = value_of_key(e.min_key);
            h.finite_max = value_of_key(e.max_key);
        }
        h.positive_infinities = e.positive_infinities;
        h.negative_infinities = e.negative_infinities;
    }
}

}  // namespace imghist
