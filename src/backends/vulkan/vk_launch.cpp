#include "backends/vulkan/vk_launch.hpp"

#include <algorithm>
#include <string>

#include "imghist/error.hpp"

namespace imghist::vk {
namespace {

constexpr std::uint32_t kBatch = 4;  // BATCH in histogram.comp
// Packed tiles hold a multiple of this many pixels, so every tile starts on a 16-byte boundary
// (and a 48-byte unit boundary).
constexpr std::uint64_t kTileQuantum = 4096;

std::uint64_t round_down(std::uint64_t v, std::uint64_t a) { return v / a * a; }
std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

int shader_variant(const FormatInfo& fi, bool denorm_preserve) {
    const int sample = fi.sample == SampleType::u8    ? 0
                       : fi.sample == SampleType::u16 ? 1
                       : fi.sample == SampleType::f16 ? 2
                       : denorm_preserve              ? 4
                                                      : 3;
    const int spp = fi.channels == 1 ? 0 : fi.channels == 3 ? 1 : 2;
    return sample * 3 + spp;
}

// histogram.comp's unit: 16 bytes, or 48 for 3-, 6- and 12-byte pixels.
std::uint32_t unit_pixels(const FormatInfo& fi) {
    const auto pb = std::uint32_t(fi.pixel_bytes());
    return (pb % 3 == 0 ? 48 : 16) / pb;
}

// 32-bit words of histogram.comp's `hist`: SHARED_SLOTS * SLOT_WORDS.
std::uint32_t shared_words(std::uint32_t channels, std::uint32_t channel_slots, SharedLayout layout,
                           std::uint32_t copies) {
    const std::uint32_t slot_words = layout == SharedLayout::lanes   ? 32
                                     : layout == SharedLayout::pairs ? 16
                                                                     : copies;
    return (channels * channel_slots + 31) / 32 * 32 * slot_words;
}

std::uint32_t pixels_per_group(const HistogramPlan& plan, const Shape& shape, const Tuning& tuning) {
    return shape.group_size * tuning.rounds * kBatch * unit_pixels(plan.info);
}

// The tuning's layout where it fits (pairs: where no 16-bit half can overflow), else copies;
// then as many copies as fit, up to the tuning's.
void choose_layout(Shape& s, const HistogramPlan& plan, std::uint32_t channel_slots, const DeviceLimits& limits,
                   const Tuning& tuning) {
    auto fits = [&](SharedLayout layout, std::uint32_t copies) {
        return shared_words(s.channels_per_pass, channel_slots, layout, copies) <= limits.shared_bytes / 4;
    };
    // A 16-bit half is bumped by the group_size / 32 invocations of one lane, each counting at
    // most this many samples per channel into any one slot.
    const std::uint64_t per_invocation = std::uint64_t(kBatch) * tuning.rounds * unit_pixels(plan.info);
    const bool pairs_exact = (s.group_size / 32) * per_invocation <= 0xFFFF;
    const SharedLayout want = tuning.layout;
    s.layout = SharedLayout::copies;
    if (want != SharedLayout::copies && fits(want, 1) && (want != SharedLayout::pairs || pairs_exact)) s.layout = want;
    s.copies = 1;
    while (s.layout == SharedLayout::copies && s.copies * 2 <= tuning.max_copies && fits(SharedLayout::copies, s.copies * 2))
        s.copies *= 2;
}

SpecConstants spec_constants(const ih_bin_args& bin, const Shape& shape, const Tuning& tuning, bool swizzle) {
    SpecConstants k;
    k.channels = bin.channels;
    for (std::uint32_t c = 0; c < bin.channels; ++c) {
        k.sources[c] = ih_args_source(bin, c);
        k.has_luma |= k.sources[c] == IH_SRC_LUMA ? 1u : 0u;
    }
    k.bins = bin.bins;
    k.int_mode = bin.int_mode;
    k.shift = bin.shift;
    k.clamp = bin.clamp;
    k.closed_top = bin.closed_top;
    k.copies = shape.copies;
    k.swizzle = swizzle ? 1 : 0;
    k.rounds = tuning.rounds;
    k.strided = shape.strided ? 1 : 0;
    k.red = ih_args_red(bin);
    k.green = ih_args_green(bin);
    k.blue = ih_args_blue(bin);
    k.layout = std::uint32_t(shape.layout);
    k.value_mode = shape.value_mode ? 1 : 0;
    k.group_size = shape.group_size;
    return k;
}

std::vector<PassLaunch> pass_launches(const HistogramPlan& plan, const Shape& shape, const Tuning& tuning) {
    std::vector<PassLaunch> passes;
    const auto channels = std::uint32_t(plan.channels.size());
    for (std::uint32_t first = 0; first < channels; first += shape.channels_per_pass) {
        const std::uint32_t n = std::min(shape.channels_per_pass, channels - first);
        const bool swizzle =
            tuning.swizzle > 0 || (tuning.swizzle < 0 && shape.value_mode && plan.counts_a_sample(first, n));
        PassLaunch p;
        p.bin = plan.bin_args(first, n);
        p.spec = spec_constants(p.bin, shape, tuning, swizzle);
        p.out_slot = first * plan.slots_per_channel();
        passes.push_back(p);
    }
    return passes;
}

// The tile of `pixels` pixels whose first byte is `start` bytes into the buffer, spanning `bytes`.
TileLaunch tile(std::uint64_t start, std::uint64_t bytes, std::uint64_t pixels, std::uint32_t per_group,
                const DeviceLimits& limits) {
    TileLaunch t;
    t.bind_offset = round_down(start, limits.offset_alignment);
    t.bind_bytes = round_up(start - t.bind_offset + bytes, 4);
    t.base_byte = std::uint32_t(start - t.bind_offset);
    t.pixels = std::uint32_t(pixels);
    const std::uint64_t groups = (pixels + per_group - 1) / per_group;
    t.groups_x = std::uint32_t(std::min<std::uint64_t>(groups, limits.max_groups_x));
    const std::uint64_t gy = (groups + t.groups_x - 1) / t.groups_x;
    if (gy > limits.max_groups_y) throw Error("internal error: vulkan tile too large");
    t.groups_y = std::uint32_t(gy);
    return t;
}

// What one binding can span past its aligned start.
std::uint64_t binding_room(const DeviceLimits& limits) { return limits.max_range - limits.offset_alignment - 4; }

// Packed rows: one run of pixels, cut into tiles of a multiple of kTileQuantum pixels.
void packed_tiles(LaunchPlan& l, const HistogramPlan& plan, const DeviceImage& image, const DeviceLimits& limits,
                  const Tuning& tuning) {
    const std::uint64_t pb = plan.info.pixel_bytes();
    const std::uint64_t total = image.pixel_count();
    const std::uint64_t tile_max =
        std::min<std::uint64_t>(tuning.max_tile_pixels, binding_room(limits) / pb) / kTileQuantum * kTileQuantum;
    if (tile_max == 0) throw DeviceError("vulkan: maxStorageBufferRange is too small");
    const std::uint32_t per_group = pixels_per_group(plan, l.shape, tuning);
    for (std::uint64_t first = 0; first < total; first += tile_max) {
        const std::uint64_t n = std::min(tile_max, total - first);
        l.tiles.push_back(tile(image.offset_bytes + first * pb, n * pb, n, per_group, limits));
    }
}

// Strided rows: tiles of whole rows.
void strided_tiles(LaunchPlan& l, const HistogramPlan& plan, const DeviceImage& image, const DeviceLimits& limits,
                   const Tuning& tuning) {
    const std::uint64_t row_bytes = image.row_bytes(), stride = image.pitch();
    const std::uint64_t room = binding_room(limits);
    if (stride > 0xFFFFFFFFu || row_bytes > room)
        throw InvalidArgument("vulkan: an image row is larger than one storage buffer binding");
    const std::uint64_t rows_max =
        std::max<std::uint64_t>(1, std::min<std::uint64_t>((room - row_bytes) / stride + 1, tuning.max_tile_pixels / image.width));
    const std::uint32_t per_group = pixels_per_group(plan, l.shape, tuning);
    for (std::uint64_t y = 0; y < image.height; y += rows_max) {
        const std::uint64_t rows = std::min<std::uint64_t>(rows_max, image.height - y);
        l.tiles.push_back(tile(image.offset_bytes + y * stride, (rows - 1) * stride + row_bytes, rows * image.width,
                               per_group, limits));
    }
}

void check_launch(const HistogramPlan& plan, std::uint64_t totals_offset, const DeviceLimits& limits,
                  const Tuning& tuning) {
    if (plan.bins() > max_bins(limits))
        throw InvalidArgument("vulkan: " + std::to_string(plan.bins()) + " bins exceed this device's limit of " +
                              std::to_string(max_bins(limits)));
    if (tuning.max_tile_pixels > (std::uint64_t(1) << 31) || tuning.max_tile_pixels < kTileQuantum)
        throw InvalidArgument("vulkan: max_tile_pixels must be in [4096, 2^31]");
    if (totals_offset % 8 != 0) throw InvalidArgument("vulkan: the result offset must be a multiple of 8 bytes");
}

}  // namespace

std::uint32_t max_bins(const DeviceLimits& limits) {
    // One channel, one copy, rounded to 32 slots, must fit the shared memory.
    return limits.shared_bytes / 4 / 32 * 32 - IH_EXTRA_SLOTS;
}

Shape decide_shape(const HistogramPlan& plan, const DeviceImage& image, const DeviceLimits& limits,
                   const Tuning& tuning) {
    Shape s;
    const auto channels = std::uint32_t(plan.channels.size());
    s.value_mode = tuning.value_mode && ih_value_mode_fits(std::uint32_t(plan.info.sample)) != 0;
    const std::uint32_t channel_slots = s.value_mode ? IH_VALUE_SLOTS : plan.slots_per_channel();
    std::uint32_t fit = channels;
    while (fit > 1 && shared_words(fit, channel_slots, SharedLayout::copies, 1) > limits.shared_bytes / 4) --fit;
    s.passes = (channels + fit - 1) / fit;
    s.channels_per_pass = (channels + s.passes - 1) / s.passes;
    s.group_size = std::max<std::uint32_t>(32, std::min(tuning.group_size, limits.max_invocations) / 32 * 32);
    choose_layout(s, plan, channel_slots, limits, tuning);
    s.strided = !(image.pitch() == image.row_bytes() && image.offset_bytes % 16 == 0);
    return s;
}

LaunchPlan plan_launch(const HistogramPlan& plan, const DeviceImage& image, std::uint64_t totals_offset,
                       const DeviceLimits& limits, const Tuning& tuning) {
    check_launch(plan, totals_offset, limits, tuning);
    LaunchPlan l;
    l.shape = decide_shape(plan, image, limits, tuning);
    l.variant = shader_variant(plan.info, limits.denorm_preserve);
    l.passes = pass_launches(plan, l.shape, tuning);
    if (l.shape.strided) strided_tiles(l, plan, image, limits, tuning);
    else packed_tiles(l, plan, image, limits, tuning);
    l.total_slots = std::uint32_t(plan.total_slots());
    l.totals_bind = round_down(totals_offset, limits.offset_alignment);
    l.first_total = std::uint32_t((totals_offset - l.totals_bind) / 8);
    l.totals_bytes = totals_offset - l.totals_bind + std::uint64_t(l.total_slots) * 8;
    return l;
}

}  // namespace imghist::vk
