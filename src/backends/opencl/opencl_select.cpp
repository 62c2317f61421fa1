// Masks and alpha thresholds on device buffers (SlotCounter::accumulate_selected_device): counted
// in place by the selection variant of the histogram kernels (histogram.cl, IH_SELECT), one read
// of the image and of the mask, in the same launches, tiles and passes as the whole image.
#include <algorithm>

#include "backends/opencl/opencl_engine.hpp"
#include "contract/selection.h"
#include "core/plan.hpp"
#include "core/selection.hpp"

namespace imghist::ocl {

OpenClEngine::Selection OpenClEngine::device_selection(PixelInput& in, const DeviceImage& image,
                                                       const DeviceImage* mask, const AlphaTest& alpha,
                                                       std::uint32_t count_slot) const {
    PixelLayout mask_layout;
    if (mask) mask_layout = device_layout(as_cl_mem(mask->memory), *mask);
    // Without either, every pixel counts (a 2D image's too).
    const bool selects = mask != nullptr || alpha.kind != IH_ALPHA_ALL;
    if (selects && (in.layout.source != PixelSource::buffer || (mask && mask_layout.source != PixelSource::buffer)))
        throw InvalidArgument("opencl: a mask or an alpha threshold applies to buffers, not to 2D images "
                              "(copy the image into a buffer, or count it without one)");
    if (mask_layout.stride_bytes > 0xFFFFFFFFull)
        throw InvalidArgument("opencl: a mask's row pitch above 2^32 bytes is not supported");
    Selection select;
    if (mask) {
        select.mask = as_cl_mem(mask->memory);
        select.mask_base = mask_layout.offset_bytes;
        select.args.has_mask = 1;
        select.args.mask_pitch = std::uint32_t(mask_layout.stride_bytes);
    }
    select.args.alpha_kind = alpha.kind;
    select.args.alpha_least = alpha.least;
    select.args.alpha_sample = std::uint32_t(std::max(image.info().alpha, 0));
    select.args.count_slot = count_slot;
    in.layout.selects = true;
    in.layout.mask_stride_bytes = mask_layout.stride_bytes;
    in.layout.alpha_kind = select.args.alpha_kind;
    in.layout.alpha_sample = select.args.alpha_sample;
    return select;
}

std::optional<std::uint64_t> OpenClEngine::accumulate_selected_device(const DeviceImage& image, const DeviceImage* mask,
                                                                      const AlphaTest& alpha, const HistogramPlan& plan,
                                                                      std::span<std::uint64_t> slots) {
    PixelInput in = device_input(image);
    // The selected pixels: the counter after the plan's slots.
    const Selection select = device_selection(in, image, mask, alpha, std::uint32_t(plan.total_slots()));
    in.select = &select;
    std::vector<std::uint64_t> counts(plan.total_slots() + 1, 0);
    count(in, plan, counts);
    std::copy_n(counts.begin(), slots.size(), slots.begin());
    return counts.back();
}

}  // namespace imghist::ocl
