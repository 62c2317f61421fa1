// The backend interface behind the public Engine: backends count a HistogramPlan into slots
// (SlotCounter::accumulate), and count_image() does everything around that once for all of
// them (the plan, the clipping counts, the Result). A backend's engine derives from
// BackendEngine<> (or BackendEngine<cuda::Engine> for an engine with a public interop
// interface of its own) and implements accumulate().
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "imghist/engine.hpp"

namespace imghist {

class ExtremesFinder;
class HistogramPlan;
class PixelSelector;
class SampleStatsInPass;
struct AlphaTest;
struct RankSelection;

class SlotCounter {
public:
    virtual ~SlotCounter() = default;

    // Counts into slots laid out as the contract describes (src/contract/binning.h): for each
    // plan channel, bins + IH_EXTRA_SLOTS counters. `slots` arrives zeroed.
    virtual void accumulate(const ImageView& image, const HistogramPlan& plan, std::span<std::uint64_t> slots) = 0;

    // accumulate() that also counts, in the same pass, each channel's samples that `clipping`
    // (a plan made by HistogramPlan::clipping_request) classifies below and above: the
    // extremes, into extremes[2c] (low) and extremes[2c + 1] (high); `extremes` arrives zeroed.
    // A backend that cannot returns false having counted nothing, and count_image() runs
    // `clipping` as a second accumulate() instead.
    virtual bool accumulate_with_extremes(const ImageView& image, const HistogramPlan& plan,
                                          const HistogramPlan& clipping, std::span<std::uint64_t> slots,
                                          std::span<std::uint64_t> extremes);

    // accumulate_with_extremes() over only the pixels `selector` lets through (a mask, an alpha
    // threshold), returning how many; `clipping` is null where the plan proves its clipping
    // counts itself. A backend that cannot returns nullopt having counted nothing, and
    // count_image() gathers the selected pixels into packed rows that accumulate() counts.
    virtual std::optional<std::uint64_t> accumulate_selected(const ImageView& image, const PixelSelector& selector,
                                                             const HistogramPlan& plan, const HistogramPlan* clipping,
                                                             std::span<std::uint64_t> slots,
                                                             std::span<std::uint64_t> extremes);

    // accumulate_device() over only the pixels of device image `image` that `mask` (a gray8
    // device image of its size, or null) and `alpha` select, counted in place, returning how
    // many. Called once with the plan and, where the plan cannot prove its clipping counts and
    // counts_device_clipping(), once more with the clipping plan. The default refuses (nullopt):
    // count_image() then says that this backend takes masks of host images only.
    virtual std::optional<std::uint64_t> accumulate_selected_device(const DeviceImage& image, const DeviceImage* mask,
                                                                    const AlphaTest& alpha, const HistogramPlan& plan,
                                                                    std::span<std::uint64_t> slots);

    // Whether accumulate_tiles() counts a tile grid of host images (device_image false) or of
    // device images (true), with a selection where `selects_pixels`. Otherwise count_image()
    // counts the tiles one by one, except a host image's selection where the grid alone is
    // counted in one pass: that goes through cells of the selected pixels (engine.cpp).
    virtual bool counts_tiles_in_one_pass(bool device_image, bool selects_pixels) const;
    // Every region of `image` (a tile grid's tiles) counted in one pass: region i into
    // slots[i * plan.total_slots() ...] and, with `clipping` (see accumulate_with_extremes),
    // its extremes into extremes[i * 2 * channels ...]; both arrive zeroed. Returns whether it
    // counted the extremes; where it did not, count_image() counts the tiles that need them with
    // `clipping` as the plan, in one more call. With `selectors` (one per region, over that
    // region), only the pixels each lets through, and counted[i] says how many (counted is left
    // alone without them). The default refuses.
    virtual bool accumulate_tiles(const ImageView& image, std::span<const Region> regions, const HistogramPlan& plan,
                                  const HistogramPlan* clipping, std::span<const PixelSelector* const> selectors,
                                  std::span<std::uint64_t> slots, std::span<std::uint64_t> extremes,
                                  std::span<std::uint64_t> counted);
    // accumulate_tiles() of a device image, without a selection or the extremes.
    virtual void accumulate_tiles_device(const DeviceImage& image, std::span<const Region> regions,
                                         const HistogramPlan& plan, std::span<std::uint64_t> slots);
    // The regions one at a time, each as an image of its own (accumulate, accumulate_device),
    // into the slots accumulate_tiles() fills: for the grids a backend's one pass cannot take.
    void accumulate_each_tile(const ImageView& image, std::span<const Region> regions, const HistogramPlan& plan,
                              std::span<std::uint64_t> slots);
    void accumulate_each_tile(const DeviceImage& image, std::span<const Region> regions, const HistogramPlan& plan,
                              std::span<std::uint64_t> slots);

    // accumulate() for pixels in the device's memory (the interop calls); the default refuses.
    virtual void accumulate_device(const DeviceImage& image, const HistogramPlan& plan,
                                   std::span<std::uint64_t> slots);

    // Request::sample_stats of a device image, found where its pixels lie (core/device_sample_stats.cpp;
    // docs/semantics.md, "Sample statistics"), over the pixels `mask` (a gray8 device image of
    // its size, or null) and `alpha` select, as accumulate_selected_device(). The first pass: per
    // plan channel c, IH_STATS_SLOTS counters in the contract's layout (contract/exact_sum.h)
    // into sums[c * IH_STATS_SLOTS ...], zeroed. A backend that cannot returns false having
    // counted nothing, and the Result says that the statistics were not found.
    virtual bool accumulate_sample_sums_device(const DeviceImage& image, const DeviceImage* mask, const AlphaTest& alpha,
                                               const HistogramPlan& plan, std::span<std::uint64_t> sums);
    // The second pass, for the order statistics of float samples: per plan channel c, over its
    // finite samples whose ih_float_key's top 16 bits are selections[c].targets[t], the count of
    // each low 16 bits into lows[offset_c + t * 65536 + low16], where the channels' blocks of
    // targets.size() * 65536 counters follow one another (offset_0 = 0); zeroed. Only called
    // after accumulate_sample_sums_device() returned true, and only when some channel has targets.
    virtual void accumulate_key_lows_device(const DeviceImage& image, const DeviceImage* mask, const AlphaTest& alpha,
                                            const HistogramPlan& plan, std::span<const RankSelection> selections,
                                            std::span<std::uint64_t> lows);

    // Whether count_image() gives device images every clipping count, with a second pass where
    // the histogram does not prove them (vulkan.hpp's compute()), or only the proven ones, so
    // that a device image is read once (cuda.hpp, opencl.hpp; docs/semantics.md, "Statistics").
    virtual bool counts_device_clipping() const { return true; }

    // Whether accumulate() and accumulate_with_extremes() of a host image, given a finder
    // (set_value_extremes_finder), hand it every pixel they count, so that count_image() finds
    // Request::value_extremes in the counting pass instead of reading the pixels again.
    virtual bool finds_value_extremes() const { return false; }
    void set_value_extremes_finder(ExtremesFinder* finder) { extremes_finder_ = finder; }
    ExtremesFinder* value_extremes_finder() const { return extremes_finder_; }
    // The same for Request::sample_stats' first pass (SampleStatsInPass::start and add).
    virtual bool finds_sample_stats() const { return false; }
    void set_sample_stats_in_pass(SampleStatsInPass* in_pass) { sample_stats_in_pass_ = in_pass; }
    SampleStatsInPass* sample_stats_in_pass() const { return sample_stats_in_pass_; }

    // Attaches a note to the Result being computed (called from accumulate()).
    void add_note(std::string note) { notes_.push_back(std::move(note)); }
    std::vector<std::string> take_notes();
    // Where count_image() gathers the pixels a mask or an alpha threshold select (kept between
    // calls, so that each call does not fault in fresh pages).
    std::vector<std::uint64_t>& gather_buffer() { return gather_buffer_; }
    // The second pass that counts the clipping counts `result` lacks.
    template <class Pixels>
    void count_clipping(const Pixels& image, const HistogramPlan& clipping, Result& result);
    // The same, where `pass` counts the clipping plan into the zeroed slots it is given (a
    // selection's pass over the same pixels).
    void count_clipping(const HistogramPlan& clipping, Result& result,
                        const std::function<void(std::span<std::uint64_t>)>& pass);

private:
    std::vector<std::string> notes_;
    std::vector<std::uint64_t> gather_buffer_;
    ExtremesFinder* extremes_finder_ = nullptr;
    SampleStatsInPass* sample_stats_in_pass_ = nullptr;
};

// Engine::compute of every backend, for a validated view; and the same for a validated device
// image (accumulate_device), which the interop calls of each backend use.
Result count_image(SlotCounter& counter, const ImageView& image, const Request& request, std::string backend,
                   std::string device);
Result count_image(SlotCounter& counter, const DeviceImage& image, const Request& request, std::string backend,
                   std::string device);

// A request's roi and tiles (docs/semantics.md, "Regions and tiles") counted as plain requests
// over sub-views of the image by `count_views` (every tile in one call: views[i] with
// requests[i], Results in the same order), and assembled into one Result. count_image() uses
// it; so do the interop calls that count on a caller's stream.
template <class Pixels>
using ViewCounter = std::function<std::vector<Result>(std::span<const Pixels> views, std::span<const Request> requests)>;
Result count_regions(const ImageView& image, const Request& request, const ViewCounter<ImageView>& count_views);
Result count_regions(const DeviceImage& image, const Request& request, const ViewCounter<DeviceImage>& count_views);

template <class PublicEngine = Engine>
class BackendEngine : public PublicEngine, public SlotCounter {
private:
    Result compute_validated(const ImageView& image, const Request& request) final {
        return count_image(*this, image, request, std::string(this->backend_name()), this->device_name());
    }
};

// The slot counter behind an engine of this library (tests and benchmarks count plans directly).
inline SlotCounter& slot_counter(Engine& engine) { return dynamic_cast<SlotCounter&>(engine); }

}  // namespace imghist
