// The sample-statistics pass (docs/semantics.md, "Sample statistics"): per channel of a plan,
// the exact moments and the percentiles of the samples counted, found on the host over the
// counted pixels, the same on every backend. Integer and half samples are counted by value (one
// counter per possible value), float samples are summed exactly by exponent bucket
// (src/contract/exact_sum.h) and their order statistics found by a radix select over the
// contract's total-order key: the top 16 bits in the first pass, the low 16 bits of the few
// buckets that hold a needed rank in a second.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "imghist/image.hpp"
#include "imghist/request.hpp"
#include "imghist/result.hpp"
#include "core/sample_stats_sums.hpp"

namespace imghist {

class HistogramPlan;
class PixelSelector;
class SlotCounter;
struct AlphaTest;

// The most the float samples' second pass (their percentiles) takes for its counters, every
// thread's together: more targets than fit are counted in more passes.
inline constexpr std::size_t kSecondPassBudget = std::size_t(64) << 20;

// Each plan channel's statistics over the pixels of `image` that `selector` lets through (every
// pixel when it is null); `second_pass_budget` bytes at most for the second pass's counters
// (at least one target's a thread).
std::vector<ChannelSampleStats> find_sample_stats(const ImageView& image, const HistogramPlan& plan,
                                                  const PixelSelector* selector, const std::vector<double>& percents,
                                                  std::size_t second_pass_budget = kSecondPassBudget);

struct SampleStatsShare;  // one thread's first-pass accumulators (sample_stats_pass.cpp)

// find_sample_stats()'s first pass done inside a backend's counting pass (SlotCounter::
// finds_sample_stats: cpu hands it each piece of pixels right after counting it, while the
// piece is still in the core's cache) instead of in a pass of its own over the image.
class SampleStatsInPass {
public:
    SampleStatsInPass(const HistogramPlan& plan, std::vector<double> percents);
    ~SampleStatsInPass();
    SampleStatsInPass(const SampleStatsInPass&) = delete;
    SampleStatsInPass& operator=(const SampleStatsInPass&) = delete;

    // Before the counting pass's `workers` threads start: one share each.
    void start(std::size_t workers);
    // Worker `worker`'s pixels [begin, end) of `image`, in raster order.
    void add(std::size_t worker, const ImageView& image, std::uint64_t begin, std::uint64_t end);
    // Or, instead of start() and add(): the pass counted every channel's samples by value, into
    // `value_slots` laid out by `values`, a plan whose bins are the values (counts_are_values).
    void take_codes(const HistogramPlan& values, std::span<const std::uint64_t> value_slots);
    // Whether a counting pass took it.
    bool started() const { return !shares_.empty() || !codes_.empty(); }
    // The statistics of every pixel of `image` that the pass added: the shares merged, then the
    // second pass over `image` where float percentiles need it.
    std::vector<ChannelSampleStats> finish(const ImageView& image);

private:
    const HistogramPlan& plan_;
    std::vector<double> percents_;
    std::vector<std::unique_ptr<SampleStatsShare>> shares_;
    std::vector<std::vector<std::uint64_t>> codes_;  // take_codes(): per channel, a count per value
};

// Whether every bin of `plan` holds exactly one of the format's values (8-bit default bins; 16-bit
// ones with 65,536 bins): then `result`'s counts are the samples' own, and this sets its sample
// statistics from them with no pass over the pixels, on any backend.
bool counts_are_values(const HistogramPlan& plan);
bool add_sample_stats_of_counts(const Request& request, const HistogramPlan& plan, Result& result);

// Request::sample_stats for `result`, a count of `image` by `plan`, found on the host: by
// `in_pass` where the counting pass fed it, otherwise in a pass of their own.
void add_sample_stats(const ImageView& image, const Request& request, const HistogramPlan& plan,
                      const PixelSelector* selector, Result& result, SampleStatsInPass* in_pass = nullptr);
// The same for an image in device memory, found by the backend of `counter` where the pixels
// lie (SlotCounter::accumulate_sample_sums_device), over the pixels `mask` and `alpha` select
// (device_sample_stats.cpp); a note where the backend cannot.
void add_sample_stats(SlotCounter& counter, const DeviceImage& image, const DeviceImage* mask, const AlphaTest& alpha,
                      const Request& request, const HistogramPlan& plan, Result& result);

}  // namespace imghist
