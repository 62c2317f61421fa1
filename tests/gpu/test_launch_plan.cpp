// The three GPU planners side by side, without a device: each plans the same HistogramPlans on
// H200-like and small-memory limits, prints its plan in the shared vocabulary
// (gpu::LaunchDescription), and every plan keeps the invariants the counting relies on: every
// channel counted by exactly one pass, every pixel by exactly one tile, no launch of 32-bit
// counters over 2^31 pixels, and local counters within the device's local memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "backends/opencl/opencl_planner.hpp"
#include "backends/vulkan/vk_launch.hpp"
#include "gpu/launch_plan.hpp"
#include "imghist/error.hpp"
#ifdef IMGHIST_TEST_CUDA_PLANNER
#include "backends/cuda/cuda_shape.hpp"
#endif

namespace imghist {
namespace {

struct Limits {
    const char* name;
    std::uint32_t local_bytes;
    unsigned units;  // compute units / multiprocessors
};
const Limits kLimits[] = {{"h200-like", 48 * 1024, 132}, {"small", 16 * 1024, 8}};

struct Image {
    std::uint32_t width, height;
    bool strided;
};
const Image kImages[] = {{7, 3, true}, {1920, 1080, false}, {70000, 40000, false}, {70000, 40000, true}};

HistogramPlan make_plan(PixelFormat format, Mode mode, std::uint32_t bins) {
    Request r;
    r.mode = mode;
    r.bins.bins = bins;
    return HistogramPlan(format, r);
}

std::vector<HistogramPlan> plans() {
    return {make_plan(PixelFormat::rgba8, Mode::all, 256), make_plan(PixelFormat::bgr8, Mode::rgb, 1000),
            make_plan(PixelFormat::rgb16, Mode::all, 4096), make_plan(PixelFormat::gray_f32, Mode::luma, 4096),
            make_plan(PixelFormat::rgba_f16, Mode::all, 65536)};
}

std::uint64_t row_stride(const HistogramPlan& plan, const Image& im) {
    return std::uint64_t(im.width) * plan.info.pixel_bytes() + (im.strided ? 64 : 0);
}

// The shared invariants of one plan of `channels` channels over `width` x `height` pixels.
void check_invariants(const gpu::LaunchDescription& d, std::size_t channels, std::uint64_t width, std::uint64_t height,
                      bool counters32) {
    SCOPED_TRACE(gpu::describe(d));
    std::printf("%u channel(s), %s", unsigned(channels), gpu::describe(d).c_str());
    std::vector<int> counted(channels, 0);
    for (const gpu::PassDescription& p : d.passes) {
        for (unsigned c = p.channels.first; c < p.channels.first + p.channels.count; ++c)
            if (c < channels) ++counted[c];
        EXPECT_LE(p.local_bytes, d.local_limit);
        if (p.layout == gpu::CounterLayout::global) EXPECT_EQ(p.local_bytes, 0u);
        if (counters32) EXPECT_LE(p.launch_pixels, gpu::kMaxLaunchPixels);
        EXPECT_GE(p.groups, 1u);
    }
    EXPECT_EQ(counted, std::vector<int>(channels, 1)) << "every channel counted by exactly one pass";
    // Tiles in order, each starting where the last ended, ending at the image's end.
    const std::uint64_t total = d.tiles_by_rows ? height : width * height;
    const std::uint64_t tile_pixels = d.tiles_by_rows ? width : 1;
    std::uint64_t next = 0;
    for (const gpu::Tile& t : d.tiles) {
        EXPECT_EQ(t.first, next);
        EXPECT_GE(t.count, 1u);
        if (counters32) EXPECT_LE(t.count * tile_pixels, gpu::kMaxLaunchPixels);
        next = t.first + t.count;
    }
    EXPECT_EQ(next, total) << "the tiles cover every pixel once";
}

ocl::KernelLimitsByName ocl_kernels() {
    ocl::KernelLimitsByName k;
    for (const std::string& name : ocl::histogram_kernel_names()) k[name] = {1024, 0};
    return k;
}

TEST(LaunchPlan, OpenClPlansKeepTheSharedInvariants) {
    for (const Limits& l : kLimits) {
        const ocl::DeviceLimits device{l.name, true, l.units, l.local_bytes, 1ull << 32, 1024};
        for (const HistogramPlan& plan : plans())
            for (const Image& im : kImages) {
                const ocl::PixelLayout px{ocl::PixelSource::buffer, im.width, im.height, row_stride(plan, im), 0};
                const ocl::LaunchPlan lp = ocl::plan_launch(plan, px, device, ocl_kernels(), ocl::Tune{});
                check_invariants(ocl::launch_description(lp, px, device), plan.channels.size(), im.width, im.height, true);
            }
    }
}

TEST(LaunchPlan, VulkanPlansKeepTheSharedInvariants) {
    for (const Limits& l : kLimits) {
        const vk::DeviceLimits device{l.local_bytes, 1024, 65535, 65535, 16, 0xFFFFFFFFu, false};
        for (const HistogramPlan& plan : plans())
            for (const Image& im : kImages) {
                const DeviceImage image{1, 0, im.width, im.height, row_stride(plan, im), plan.format};
                if (plan.bins() > vk::max_bins(device)) {
                    EXPECT_THROW(vk::plan_launch(plan, image, 0, device, vk::Tuning{}), InvalidArgument);
                    continue;
                }
                const vk::LaunchPlan lp = vk::plan_launch(plan, image, 0, device, vk::Tuning{});
                check_invariants(vk::launch_description(plan, lp, image, device), plan.channels.size(), im.width, im.height,
                                 true);
            }
    }
}

#ifdef IMGHIST_TEST_CUDA_PLANNER
int two_blocks(cuda_detail::KernelFormat, int, unsigned, std::size_t, int, bool) { return 2; }

TEST(LaunchPlan, CudaPlansKeepTheSharedInvariants) {
    for (const Limits& l : kLimits) {
        // CUDA blocks may opt into more shared memory than the other APIs offer.
        const cuda_detail::DeviceLimits device{l.units, std::size_t(l.local_bytes) * 4};
        for (const HistogramPlan& plan : plans()) {
            const cuda_detail::Shape shape = cuda_detail::decide_shape(plan, device, {}, two_blocks);
            for (const Image& im : kImages) {
                const DeviceImage image{4096, 0, im.width, im.height, row_stride(plan, im), plan.format};
                const gpu::LaunchDescription d =
                    cuda_detail::launch_description(shape, cuda_detail::piece_of(image, 0), device, {});
                // A packed image is one long row. One launch counts it all: its 32-bit counters are
                // flushed into 64-bit ones, so the 2^31 limit does not apply.
                const bool one_row = !im.strided || im.height == 1;
                const std::uint64_t width = one_row ? std::uint64_t(im.width) * im.height : im.width;
                check_invariants(d, plan.channels.size(), width, one_row ? 1 : im.height, false);
            }
        }
    }
}
#endif

TEST(LaunchPlan, ChannelPassRules) {
    // Fill: passes of `fit` channels, the rest last. Balance: as many passes, evened out.
    auto counts = [](unsigned channels, unsigned fit, gpu::PassSplit rule) {
        std::vector<unsigned> n;
        for (const gpu::ChannelPass& p : gpu::split_channel_passes(channels, fit, rule)) n.push_back(p.count);
        return n;
    };
    EXPECT_EQ(counts(5, 4, gpu::PassSplit::fill), (std::vector<unsigned>{4, 1}));
    EXPECT_EQ(counts(5, 4, gpu::PassSplit::balance), (std::vector<unsigned>{3, 2}));
    EXPECT_EQ(counts(4, 4, gpu::PassSplit::balance), (std::vector<unsigned>{4}));
    EXPECT_EQ(counts(5, 1, gpu::PassSplit::balance), (std::vector<unsigned>{1, 1, 1, 1, 1}));
    EXPECT_EQ(gpu::most_channels_that_fit(5, [](unsigned n) { return n <= 2; }), 2u);
    EXPECT_EQ(gpu::most_channels_that_fit(5, [](unsigned) { return false; }), 0u);
    EXPECT_EQ(gpu::name(gpu::CounterLayout::lane_pairs), "lane-pairs");
}

}  // namespace
}  // namespace imghist
