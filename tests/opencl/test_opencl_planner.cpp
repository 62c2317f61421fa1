// The opencl planner's decisions, without a device: plan_launch is a pure function of the
// plan, the pixels' layout, the device's limits and the tuning (opencl_planner.hpp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "backends/opencl/opencl_planner.hpp"
#include "imghist/error.hpp"

namespace imghist::ocl {
namespace {

// An H200 as NVIDIA's driver reports it: 132 compute units, 48 KiB of local memory.
DeviceLimits gpu_limits() {
    DeviceLimits d;
    d.name = "test GPU";
    d.gpu = true;
    d.compute_units = 132;
    d.local_mem = 48 * 1024;
    d.max_alloc = 1ull << 34;
    d.max_work_group = 1024;
    return d;
}

KernelLimitsByName kernel_limits() {
    KernelLimitsByName k;
    for (const std::string& name : histogram_kernel_names()) k[name] = {1024, 0};
    return k;
}

// ih_bin_args is a C struct of 32-bit fields, without padding.
bool same_args(const ih_bin_args& a, const ih_bin_args& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

PixelLayout host_pixels(std::uint32_t width, std::uint32_t height, PixelFormat format) {
    return {PixelSource::host, width, height, width * format_info(format).pixel_bytes(), 0};
}

TEST(OpenClPlanner, RgbaOnAGpuIsOneValueModePassOfTheVectorKernel) {
    const HistogramPlan plan(PixelFormat::rgba8, Request{});
    const LaunchPlan lp = plan_launch(plan, host_pixels(1920, 1080, PixelFormat::rgba8), gpu_limits(),
                                      kernel_limits(), Tune{});
    EXPECT_TRUE(lp.note.empty());
    EXPECT_EQ(lp.tiling.tiles, 1u);
    ASSERT_EQ(lp.passes.size(), 1u);
    const PassConfig& c = lp.passes[0];
    EXPECT_EQ(c.kernel_name, "ih_hist_u8x4");
    EXPECT_TRUE(same_args(c.bins, plan.bin_args()));  // the pass carries the plan's bin arguments unchanged
    EXPECT_EQ(c.launch.value, 1u);
    EXPECT_EQ(c.launch.swizzle, 1u);     // raw samples counted on a GPU
    EXPECT_EQ(c.launch.copies, 1u);
    EXPECT_EQ(c.launch.local_slots, IH_VALUE_SLOTS);
    EXPECT_EQ(c.launch.words * 4u * c.launch.copies, plan.channels.size() * IH_VALUE_SLOTS * 4u);
    EXPECT_NE(c.program_options.find("-DIH_C_BINS=256u"), std::string::npos) << c.program_options;
}

TEST(OpenClPlanner, TooManyBinsSplitIntoChannelPassesThenGlobalAtomics) {
    Request r;
    r.bins.bins = 4096;
    r.bins.range = {{0.0, 256.0}};
    const HistogramPlan plan(PixelFormat::rgba8, r);
    Tune tune;
    tune.value = 0;
    tune.layout = LayoutKind::copies;
    tune.copies = 1;
    tune.pack = 0;
    tune.max_local = 20000;  // one channel of 4099 32-bit slots fits, two do not
    LaunchPlan lp = plan_launch(plan, host_pixels(64, 3, PixelFormat::rgba8), gpu_limits(), kernel_limits(), tune);
    ASSERT_EQ(lp.passes.size(), plan.channels.size());
    for (std::size_t i = 0; i < lp.passes.size(); ++i) {
        EXPECT_EQ(lp.passes[i].first_channel, i);
        EXPECT_EQ(lp.passes[i].launch.first_slot, i * plan.slots_per_channel());
        EXPECT_TRUE(same_args(lp.passes[i].bins, plan.bin_args(i, 1)));
    }
    EXPECT_NE(lp.note.find("passes"), std::string::npos) << lp.note;
    tune.max_local = 1000;
    lp = plan_launch(plan, host_pixels(64, 3, PixelFormat::rgba8), gpu_limits(), kernel_limits(), tune);
    ASSERT_EQ(lp.passes.size(), 1u);
    EXPECT_TRUE(lp.passes[0].global);
    EXPECT_EQ(lp.passes[0].kernel_name, "ih_hist_global_u8");
    EXPECT_NE(lp.note.find("global atomics"), std::string::npos) << lp.note;
}

TEST(OpenClPlanner, StridedBuffersGoByRowsPackedOnesByAlignedPixelRanges) {
    const HistogramPlan plan(PixelFormat::rgba8, Request{});
    Tune tune;
    tune.tile_pixels = 1002;
    const PixelLayout packed{PixelSource::buffer, 333, 67, 333 * 4, 0};
    LaunchPlan lp = plan_launch(plan, packed, gpu_limits(), kernel_limits(), tune);
    EXPECT_TRUE(lp.tiling.by_pixels);
    EXPECT_EQ(lp.tiling.tile_pixels, 1000u);  // a multiple of 4 pixels
    EXPECT_EQ(lp.tiling.tiles, (333u * 67u + 999u) / 1000u);
    const PixelLayout strided{PixelSource::buffer, 333, 67, 333 * 4 + 12, 0};
    lp = plan_launch(plan, strided, gpu_limits(), kernel_limits(), tune);
    EXPECT_FALSE(lp.tiling.by_pixels);
    EXPECT_EQ(lp.passes[0].launch.packed, 0u);
    EXPECT_EQ(lp.passes[0].launch.stride, (333u * 4u + 12u));
    EXPECT_NE(lp.passes[0].kernel_name, "ih_hist_u8x4");  // 16-byte loads need packed rows
    const PixelLayout misaligned{PixelSource::buffer, 333, 67, 333 * 4, 2 * 2};
    const HistogramPlan plan16(PixelFormat::rgba16, Request{});
    EXPECT_NO_THROW(plan_launch(plan16, misaligned, gpu_limits(), kernel_limits(), tune));
    const PixelLayout odd{PixelSource::buffer, 333, 67, 333 * 8, 1};
    EXPECT_THROW(plan_launch(plan16, odd, gpu_limits(), kernel_limits(), tune), InvalidArgument);
}

// A selection compiles the kernels' selection variant; its mask is read at the image's pixel
// index where both are packed (the 16-byte kernel keeps its pixel ranges), else by rows.
TEST(OpenClPlanner, SelectionsTakeTheSelectionVariantByRowsUnlessImageAndMaskArePacked) {
    const HistogramPlan plan(PixelFormat::rgba8, Request{});
    PixelLayout px{PixelSource::buffer, 333, 67, 333 * 4, 0};
    px.selects = true;
    for (const std::uint64_t mask_stride : {std::uint64_t(0), std::uint64_t(333)}) {
        px.mask_stride_bytes = mask_stride;  // alpha alone, or a packed mask
        const LaunchPlan lp = plan_launch(plan, px, gpu_limits(), kernel_limits(), Tune{});
        EXPECT_TRUE(lp.tiling.by_pixels);
        EXPECT_EQ(lp.passes[0].kernel_name, "ih_hist_u8x4");
        EXPECT_NE(lp.passes[0].program_options.find(kSelectOption), std::string::npos);
    }
    px.mask_stride_bytes = 340;
    const LaunchPlan pitched = plan_launch(plan, px, gpu_limits(), kernel_limits(), Tune{});
    EXPECT_FALSE(pitched.tiling.by_pixels);
    EXPECT_EQ(pitched.passes[0].launch.packed, 0u);
    px.selects = false;
    px.mask_stride_bytes = 0;
    EXPECT_EQ(plan_launch(plan, px, gpu_limits(), kernel_limits(), Tune{}).passes[0].program_options.find(kSelectOption),
              std::string::npos);
}

// Devices that are not GPUs (PoCL) take the generic program without the value swizzle: their
// tuning family (opencl_tuning.cpp) says so, GPUs keep the defaults.
TEST(OpenClPlanner, DevicesThatAreNotGpusTakeTheGenericProgramWithoutSwizzle) {
    ::unsetenv("IMGHIST_OPENCL_TUNE");
    EXPECT_EQ(tune_for({"NVIDIA Corporation", "NVIDIA H200", true}), Tune{});
    DeviceLimits cpu = gpu_limits();
    cpu.gpu = false;
    const HistogramPlan plan(PixelFormat::rgba8, Request{});
    const LaunchPlan lp = plan_launch(plan, host_pixels(640, 480, PixelFormat::rgba8), cpu, kernel_limits(),
                                        tune_for({"The pocl project", "cpu-haswell", false}));
    ASSERT_EQ(lp.passes.size(), 1u);
    const PassConfig& c = lp.passes[0];
    EXPECT_EQ(c.launch.value, 1u);
    EXPECT_EQ(c.launch.swizzle, 0u);
    EXPECT_NE(c.program_options.find("-DIH_C_VALUE=1u -DIH_C_SWIZZLE=0u"), std::string::npos) << c.program_options;
    EXPECT_EQ(c.program_options.find("-DIH_C_BINS"), std::string::npos) << c.program_options;
}

}  // namespace
}  // namespace imghist::ocl
