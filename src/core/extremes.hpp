// Value extremes (docs/semantics.md, "Value extremes"): per channel of a half or float plan, the
// smallest and largest finite sample (the luminance for Y) and the counts of +Inf and -Inf, found
// on the host, the same on every backend: by one more pass over the counted pixels, or in the
// counting pass of a backend that counts on the host (SlotCounter::finds_value_extremes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "imghist/image.hpp"
#include "imghist/request.hpp"
#include "imghist/result.hpp"

namespace imghist {

class HistogramPlan;
class PixelSelector;

struct ValueExtremes {
    // ih_float_key of the smallest and largest finite sample (the contract's total order, -0 as
    // 0); min_key > max_key when no sample was finite.
    std::uint32_t min_key = 0xFFFFFFFFu, max_key = 0;
    std::uint64_t positive_infinities = 0, negative_infinities = 0;
    void add(const ValueExtremes& other);
};

// The extremes of each channel of a half or float `plan` over pixels handed to it a row (or a
// piece of one) at a time: what a backend that counts on the host uses to find them in its own
// pass (SlotCounter::finds_value_extremes), one finder per thread, merged at the end.
class ExtremesFinder {
public:
    explicit ExtremesFinder(const HistogramPlan& plan);
    ~ExtremesFinder();
    ExtremesFinder(ExtremesFinder&&) noexcept;
    // The luminance of the first pixels of `count` packed ones into `out` (the contract's
    // ih_luma_float, exactly), returning how many it did; the finder does the rest. A backend
    // with a faster exact luminance than the finder's scalar one hands it over here.
    using Luminance = std::function<std::size_t(const std::byte* pixels, std::size_t count, float* out)>;
    void set_luminance(Luminance luminance);
    // The luminance comes from the caller instead (add_luminance), for every pixel that add()
    // is given: a backend whose count computes the same exact luminance hands it over as it goes,
    // and add() then finds the other channels only.
    void take_luminance_from_caller();
    // `count` luminance values (the contract's ih_luma_float of pixels handed to add()).
    void add_luminance(const float* luminance, std::size_t count);
    // `pixels` packed pixels of the plan's format.
    void add(const std::byte* pixels, std::size_t count);
    // Pixels [begin, end) of `image` in raster order.
    void add(const ImageView& image, std::uint64_t begin, std::uint64_t end);
    void merge(const ExtremesFinder& other);
    // Each plan channel's extremes.
    std::vector<ValueExtremes> channels() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

// The extremes of each channel of a half or float `plan` over the pixels of `image` that
// `selector` lets through (every pixel when it is null).
std::vector<ValueExtremes> find_value_extremes(const ImageView& image, const HistogramPlan& plan,
                                               const PixelSelector* selector);

// Writes them into the channels' finite_min, finite_max and infinity counts.
void set_value_extremes(std::vector<ChannelHistogram>& channels, const std::vector<ValueExtremes>& extremes);

// Request::value_extremes for `result`, a count of `image` by `plan` (of half or float samples):
// found on the host for host images (over the pixels `selector` lets through); a note for images
// in device memory, which the host cannot read. Every backend's Result takes them this way.
void add_value_extremes(const ImageView& image, const Request& request, const HistogramPlan& plan,
                        const PixelSelector* selector, Result& result);
void add_value_extremes(const DeviceImage& image, const Request& request, const HistogramPlan& plan,
                        const PixelSelector* selector, Result& result);

}  // namespace imghist
