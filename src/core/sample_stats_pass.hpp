// The sample-statistics pass (docs/semantics.md, "Sample statistics"): per channel of a plan,
// the exact moments and the percentiles of the samples counted, found on the host over the
// counted pixels, the same on every backend. Integer and half samples are counted by value (one
// counter per possible value), float samples are summed exactly by exponent bucket
// (src/contract/exact_sum.h) and their order statistics found by a radix select over the
// contract's total-order key: the top 16 bits in the first pass, the low 16 bits of the few
// buckets that hold a needed rank in a second.
#pragma once

#include <cstdint>
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

// Each plan channel's statistics over the pixels of `image` that `selector` lets through (every
// pixel when it is null).
std::vector<ChannelSampleStats> find_sample_stats(const ImageView& image, const HistogramPlan& plan,
                                                  const PixelSelector* selector, const std::vector<double>& percents);

// Request::sample_stats for `result` from its own counts, where every bin of `plan` holds exactly
// one of the format's values (8-bit default bins; 16-bit ones with 65,536 bins): then no pass over
// the pixels is needed, on the host or on a device. False (nothing added) otherwise.
bool add_sample_stats_of_counts(const Request& request, const HistogramPlan& plan, Result& result);
// Request::sample_stats for `result`, a count of `image` by `plan`, found on the host.
void add_sample_stats(const ImageView& image, const Request& request, const HistogramPlan& plan,
                      const PixelSelector* selector, Result& result);
// The same for an image in device memory, found by the backend of `counter` where the pixels
// lie (SlotCounter::accumulate_sample_sums_device), over the pixels `mask` and `alpha` select
// (device_sample_stats.cpp); a note where the backend cannot.
void add_sample_stats(SlotCounter& counter, const DeviceImage& image, const DeviceImage* mask, const AlphaTest& alpha,
                      const Request& request, const HistogramPlan& plan, Result& result);

}  // namespace imghist
