// What the engine asks of the counting code: which kernel counts a plan (a table kernel,
// cpu_kernel.hpp, compiled for the plan's sample type, colour order, channels and map), or the
// direct path (count_direct: classify and count_code per sample into 64-bit counters, for huge
// bin counts, tiny images and any layout no table kernel is compiled for).
#pragma once

#include <cstdint>

#include "backends/cpu/cpu_counters.hpp"
#include "backends/cpu/cpu_tables.hpp"
#include "imghist/image.hpp"

namespace imghist::cpu {

// Which channels the plan counts, if they follow the order the kernels expect
// (R, G, B, then alpha, then luminance; or the single gray sample).
struct ChannelSet {
    bool ok = false, rgb = false, alpha = false, luma = false;
};
ChannelSet channel_set(const HistogramPlan& plan);

// Per-call context handed to the kernels.
struct Context {
    const HistogramPlan* plan;
    const Tables* tables;
};

// Counts pixels [begin, end) of the image, in raster order, into a worker's sub-histograms.
using KernelFn = void (*)(Counters&, const Context&, const ImageView&, std::uint64_t, std::uint64_t);

// The table kernel for the plan, or null (then count_direct). 8-bit kernels also depend on the
// image (neighbours_repeat).
KernelFn pick_kernel(const HistogramPlan& plan, const Tables& tb, const ChannelSet& cs, const ImageView& image);

// Whether neighbouring pixels of an 8-bit image hold equal samples (in the sample channels the
// plan counts; false if it counts luminance alone) clearly more often than random data does
// (1 in 256), judged from a few short stretches of rows: about 4 KB read, whatever the image's
// size.
bool neighbours_repeat(const ImageView& image, const HistogramPlan& plan);

// The direct path: classify and count_code per sample, into the worker's 64-bit totals.
void count_direct(Counters& k, const ImageView& image, std::uint64_t begin, std::uint64_t end);

}  // namespace imghist::cpu
