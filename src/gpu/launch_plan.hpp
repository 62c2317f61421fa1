// The GPU backends' shared planning vocabulary: the limits and integer helpers every planner
// uses, the split of a plan's channels into passes that fit local memory, the split of pixels
// or rows into tiles, and one description of a launch plan that each backend's planner
// (opencl_planner, vk_launch, cuda_shape) converts its own plan into, for reports and tests
// (tests/gpu/test_launch_plan.cpp). Plain C++: no OpenCL, Vulkan or CUDA header.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace imghist::gpu {

// Pixels per launch: 32-bit counters (and the kernels' 32-bit loop indices) stay below 2^32.
inline constexpr std::uint64_t kMaxLaunchPixels = std::uint64_t(1) << 31;

constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }
constexpr std::uint64_t round_down(std::uint64_t v, std::uint64_t a) { return v / a * a; }
constexpr std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return ceil_div(v, a) * a; }

// How a work-group keeps its counters. Each backend maps its kernel's own numeric constant to
// these in one place (the numbers the kernels see are the backends').
enum class CounterLayout {
    global,         // no local counters: atomics straight into global memory
    copies,         // `copies` copies of every slot, 32-bit counters
    packed_copies,  // copies of two 16-bit slots per 32-bit word (OpenCL pack 1)
    lanes32,        // a 32-bit counter per slot and lane of 32 (Vulkan lanes, CUDA kLanes32)
    lanes16,        // per lane, two slots' 16-bit counters per word (CUDA kLanes16)
    lane_pairs,     // two lanes' 16-bit counters of one slot per word (OpenCL pack 2, Vulkan pairs)
};
std::string_view name(CounterLayout layout);

// The channels [first, first + count) of one pass over the pixels.
struct ChannelPass {
    unsigned first = 0, count = 0;
};

// How the channels that fit one pass (`fit`) become passes. OpenCL fills passes of `fit`
// channels (the last takes the rest); Vulkan balances them: as many passes, each of
// ceil(channels / passes) channels. Both are kept: each is what its kernels were measured with.
enum class PassSplit { fill, balance };

// The most channels, from `channels` down to 1, for which fits(n) holds; 0 when none does.
template <class Fits>
unsigned most_channels_that_fit(unsigned channels, Fits&& fits) {
    for (unsigned n = channels; n >= 1; --n)
        if (fits(n)) return n;
    return 0;
}

// The channels of each pass (the last may have fewer) when at most `fit` (>= 1) fit one.
unsigned channels_per_pass(unsigned channels, unsigned fit, PassSplit rule);
// The passes counting `channels` channels, at most `fit` (>= 1) per pass.
std::vector<ChannelPass> split_channel_passes(unsigned channels, unsigned fit, PassSplit rule);

// Tile `index` of `total` units (pixels or rows) cut into tiles of at most `per_tile`.
struct Tile {
    std::uint64_t first = 0, count = 0;
};
inline Tile tile_of(std::uint64_t total, std::uint64_t per_tile, std::uint64_t index) {
    const std::uint64_t first = index * per_tile;
    return {first, total - first < per_tile ? total - first : per_tile};
}

// A launch plan in one vocabulary, whatever backend made it.
struct PassDescription {
    ChannelPass channels;
    CounterLayout layout = CounterLayout::copies;
    unsigned copies = 1;
    bool value_mode = false;        // 8-bit raw values counted, binned at the merge
    std::uint64_t local_bytes = 0;  // of the work-group's counters
    unsigned work_group = 0;
    std::uint64_t groups = 0;       // work-groups of one launch (at most)
    std::uint64_t launch_pixels = 0;  // pixels of one launch (at most)
    std::string kernel;
};
struct LaunchDescription {
    std::string backend;
    std::uint64_t width = 0, height = 0;
    std::uint64_t local_limit = 0;  // bytes of local memory a work-group may have
    bool tiles_by_rows = true;      // tiles are whole rows, else pixel ranges
    std::vector<PassDescription> passes;
    std::vector<Tile> tiles;        // every pass counts every tile
    std::string note;
};
std::string describe(const LaunchDescription& plan);

}  // namespace imghist::gpu
