// Sample statistics of device images (SlotCounter::accumulate_sample_sums_device and
// accumulate_key_lows_device): sample_stats.cl's kernels over a buffer in place (a 2D image
// staged by rows, as the histogram stages it), with the histogram's mask and alpha test, into
// the contract's 64-bit counters (contract/exact_sum.h) that core/device_sample_stats.cpp
// finishes by the host pass's rules.
#include <algorithm>

#include "backends/opencl/opencl_engine.hpp"
#include "contract/exact_sum.h"
#include "core/plan.hpp"
#include "core/sample_stats_sums.hpp"
#include "core/selection.hpp"
#include "gpu/staging.hpp"

namespace imghist::ocl {
namespace {
// Work-groups per compute unit: enough in flight to hide the loads; each work-item then walks
// the launch's pixels with a grid stride.
constexpr std::size_t kStatsGroupsPerUnit = 16;
constexpr std::size_t kStatsWorkGroup = 256;

// The first pass's local counters (sample_stats.cl, ih_stats_local_words) in words, or 0 where
// they do not fit the device's local memory beside the kernel's own (or Tune::max_local).
std::uint32_t stats_local_words(cl_kernel k, cl_device_id device, const DeviceLimits& limits, const Tune& tune,
                                const HistogramPlan& plan) {
    const std::uint64_t words = plan.channels.size() * ih_stats_local_words(unsigned(plan.info.sample));
    cl_ulong kernel_local = 0;
    check(clGetKernelWorkGroupInfo(k, device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof kernel_local, &kernel_local, nullptr),
          "clGetKernelWorkGroupInfo(CL_KERNEL_LOCAL_MEM_SIZE)");
    std::uint64_t avail = limits.local_mem > kernel_local ? limits.local_mem - kernel_local : 0;
    if (tune.max_local) avail = std::min<std::uint64_t>(avail, tune.max_local);
    return words * 4 <= avail ? std::uint32_t(words) : 0;
}
}  // namespace

bool OpenClEngine::accumulate_sample_sums_device(const DeviceImage& image, const DeviceImage* mask,
                                                 const AlphaTest& alpha, const HistogramPlan& plan,
                                                 std::span<std::uint64_t> sums) {
    run_stats_pass(image, mask, alpha, plan, "ih_stats_sums_", nullptr, sums);
    return true;
}

void OpenClEngine::accumulate_key_lows_device(const DeviceImage& image, const DeviceImage* mask, const AlphaTest& alpha,
                                              const HistogramPlan& plan, std::span<const RankSelection> selections,
                                              std::span<std::uint64_t> lows) {
    // The kernel's `targets`: each channel's first target index (and the end), then the targets.
    PackedTargets packed = pack_targets(selections);
    std::vector<std::uint32_t> targets = std::move(packed.starts);
    targets.insert(targets.end(), packed.targets.begin(), packed.targets.end());
    run_stats_pass(image, mask, alpha, plan, "ih_stats_lows_", &targets, lows);
}

void OpenClEngine::run_stats_pass(const DeviceImage& image, const DeviceImage* mask, const AlphaTest& alpha,
                                  const HistogramPlan& plan, const std::string& kernel_prefix,
                                  const std::vector<std::uint32_t>* targets, std::span<std::uint64_t> out) {
    events_.clear();
    last_times_.reset();
    try {
        PixelInput in = device_input(image);
        const Selection select = device_selection(in, image, mask, alpha, IH_CL_NO_COUNT);
        const Tiling tiles = plan_tiles(plan.info, in.layout, limits_, tune_);
        if (tiles.stride_samples > 0xFFFFFFFFull)
            throw InvalidArgument("opencl: row stride above 2^32 samples is not supported");
        // Each 64-bit counter is two 32-bit words (sample_stats.cl, ih_add64).
        const std::size_t words = out.size() * 2;
        const cl_mem counters = ensure(stats_, words * 4);
        const cl_uint zero = 0;
        check(clEnqueueFillBuffer(queue_.get(), counters, &zero, sizeof zero, 0, words * 4, 0, nullptr, ev()),
              "clEnqueueFillBuffer");
        take_event(false);
        if (targets)
            check(clEnqueueWriteBuffer(queue_.get(), ensure(stats_targets_, targets->size() * 4), CL_TRUE, 0,
                                       targets->size() * 4, targets->data(), 0, nullptr, nullptr),
                  "clEnqueueWriteBuffer(targets)");
        upload_edge_keys(plan);  // the kernels' edge_keys argument, which they never read
        const cl_kernel k = kernel(kSelectOption, kernel_prefix + sample_suffix(plan.info.sample),
                                   KernelSource::sample_stats);
        std::size_t work_group = 0;
        check(clGetKernelWorkGroupInfo(k, device_, CL_KERNEL_WORK_GROUP_SIZE, sizeof work_group, &work_group, nullptr),
              "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)");
        work_group = std::max<std::size_t>(1, std::min(work_group, kStatsWorkGroup));
        // The first pass's local counters (none in the second).
        const std::uint32_t local_words = targets ? 0 : stats_local_words(k, device_, limits_, tune_, plan);
        ih_cl_launch launch{};
        launch.width = in.layout.width;
        launch.stride = std::uint32_t(tiles.stride_samples);
        launch.pixel_samples = std::uint32_t(plan.info.channels);
        const ih_bin_args bins = plan.bin_args();
        const gpu::RowPieces pieces{in.layout.height, tiles.tile_rows};
        for (std::uint64_t p = 0; p < pieces.count(); ++p) {
            const auto [y0, rows] = pieces[p];
            cl_mem data = in.mem;
            std::uint64_t base = tiles.base_samples + y0 * tiles.stride_samples;
            if (tiles.staged) {
                data = stage_rows(in, y0, rows);
                base = 0;
            }
            const std::uint64_t pixels = rows * in.layout.width;  // below 2^31 (plan_tiles)
            const std::size_t groups = std::min<std::size_t>(limits_.compute_units * kStatsGroupsPerUnit,
                                                             gpu::ceil_div(pixels, work_group));
            cl_uint ai = 0;
            set_arg(k, ai++, data);
            set_arg(k, ai++, cl_ulong(base));
            set_arg(k, ai++, cl_uint(pixels));
            set_arg(k, ai++, bins);
            set_arg(k, ai++, launch);
            set_arg(k, ai++, edge_keys_.get());
            set_arg(k, ai++, select.mask);
            set_arg(k, ai++, cl_ulong(select.mask_base + y0 * select.args.mask_pitch));
            set_arg(k, ai++, select.args);
            if (targets) set_arg(k, ai++, stats_targets_.get());
            set_arg(k, ai++, counters);
            if (!targets) {
                check(clSetKernelArg(k, ai++, std::max<std::size_t>(4, std::size_t(local_words) * 4), nullptr),
                      "clSetKernelArg(local)");
                set_arg(k, ai++, cl_uint(local_words));
            }
            enqueue(k, groups * work_group, work_group, "sample statistics kernel");
        }
        std::vector<cl_uint> read(words);
        check(clEnqueueReadBuffer(queue_.get(), counters, CL_TRUE, 0, words * 4, read.data(), 0, nullptr, ev()),
              "clEnqueueReadBuffer(sample statistics)");
        take_event(false);
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = std::uint64_t(read[2 * i]) | std::uint64_t(read[2 * i + 1]) << 32;
    } catch (...) {
        abandon();
        throw;
    }
    finish_timing();
}

}  // namespace imghist::ocl
