#include "backends/vulkan/vk_launch.hpp"

#include <algorithm>
#include <string>

#include "contract/regions.h"
#include "imghist/error.hpp"

namespace imghist::vk {
namespace {

constexpr std::uint32_t kBatch = 4;  // BATCH in histogram.comp
// Packed tiles hold a multiple of this many pixels, so every tile starts on a 16-byte boundary
// (and a 48-byte unit boundary).
constexpr std::uint64_t kTileQuantum = 4096;

using gpu::ceil_div;
using gpu::round_down;
using gpu::round_up;

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
    return std::uint32_t(round_up(channels * channel_slots, 32)) * slot_words;
}

std::uint32_t pixels_per_group(const HistogramPlan& plan, const Shape& shape, const Tuning& tuning) {
    return shape.group_size * tuning.rounds * kBatch * unit_pixels(plan.info);
}

// The tuning's layout where it fits (pairs: where no 16-bit half can overflow), else copies;
// then as many copies as fit, up to the tuning's.
void choose_layout(Shape& s, const HistogramPlan& plan, std::uint32_t channel_slots, std::uint32_t room_words,
                   const Tuning& tuning) {
    auto fits = [&](SharedLayout layout, std::uint32_t copies) {
        return shared_words(s.channels_per_pass, channel_slots, layout, copies) <= room_words;
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

// Edge bins: the edge keys, then for floats the code window, go to shared memory where they fit
// beside one copy of the counters; the shared words they take.
std::uint32_t choose_edge_copies(Shape& s, const HistogramPlan& plan, std::uint32_t counter_words,
                                 const DeviceLimits& limits, const Tuning& tuning) {
    if (!plan.has_edges()) return 0;
    const std::uint32_t room = limits.shared_bytes / 4;
    const std::uint32_t key_words = plan.bins() + 1;
    if (counter_words + key_words > room) return 0;
    s.shared_keys = true;
    const FloatCodeWindow window = plan.is_float() ? float_code_window(plan.edge_keys, tuning.code_window) : FloatCodeWindow{};
    if (counter_words + key_words + window.entries / 2 > room) return key_words;
    s.code_window = window;
    return key_words + window.entries / 2;
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
    k.edges = bin.edges;
    k.window_shift = shape.code_window.shift;
    k.window_first = shape.code_window.first;
    k.window_words = shape.code_window.entries / 2;
    k.shared_keys = shape.shared_keys ? 1 : 0;
    return k;
}

std::vector<PassLaunch> pass_launches(const HistogramPlan& plan, const Shape& shape, const Tuning& tuning) {
    std::vector<PassLaunch> passes;
    const auto channels = std::uint32_t(plan.channels.size());
    for (const gpu::ChannelPass& pass : gpu::split_channel_passes(channels, shape.channels_per_pass, gpu::PassSplit::fill)) {
        const std::uint32_t first = pass.first, n = pass.count;
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

// `bytes` bytes from `start` of a buffer, bound from the device's offset alignment below it.
BufferBinding binding_of(std::uint64_t start, std::uint64_t bytes, const DeviceLimits& limits) {
    BufferBinding b;
    b.bind_offset = round_down(start, limits.offset_alignment);
    b.bind_bytes = round_up(start - b.bind_offset + bytes, 4);
    b.base_byte = std::uint32_t(start - b.bind_offset);
    return b;
}

// The tile of `pixels` pixels whose first byte is `start` bytes into the buffer, spanning `bytes`.
TileLaunch tile(std::uint64_t start, std::uint64_t bytes, std::uint64_t pixels, std::uint32_t per_group,
                const DeviceLimits& limits) {
    TileLaunch t;
    static_cast<BufferBinding&>(t) = binding_of(start, bytes, limits);
    t.pixels = std::uint32_t(pixels);
    const std::uint64_t groups = ceil_div(pixels, per_group);
    t.groups_x = std::uint32_t(std::min<std::uint64_t>(groups, limits.max_groups_x));
    const std::uint64_t gy = ceil_div(groups, t.groups_x);
    if (gy > limits.max_groups_y) throw Error("internal error: vulkan tile too large");
    t.groups_y = std::uint32_t(gy);
    return t;
}

// What one binding can span past its aligned start.
std::uint64_t binding_room(const DeviceLimits& limits) { return limits.max_range - limits.offset_alignment - 4; }

// Packed rows: one run of pixels, cut into tiles of a multiple of kTileQuantum pixels (a packed
// mask's bytes of the same pixels: one byte a pixel).
void packed_tiles(LaunchPlan& l, const HistogramPlan& plan, const DeviceImage& image, const DeviceImage* mask,
                  const DeviceLimits& limits, const Tuning& tuning) {
    const std::uint64_t pb = plan.info.pixel_bytes();
    const std::uint64_t total = image.pixel_count();
    const std::uint64_t tile_max =
        std::min<std::uint64_t>(tuning.max_tile_pixels, binding_room(limits) / pb) / kTileQuantum * kTileQuantum;
    if (tile_max == 0) throw DeviceError("vulkan: maxStorageBufferRange is too small");
    const std::uint32_t per_group = pixels_per_group(plan, l.shape, tuning);
    for (std::uint64_t i = 0; i < ceil_div(total, tile_max); ++i) {
        const gpu::Tile t = gpu::tile_of(total, tile_max, i);
        l.tiles.push_back(tile(image.offset_bytes + t.first * pb, t.count * pb, t.count, per_group, limits));
        if (mask) l.tiles.back().mask = binding_of(mask->offset_bytes + t.first, t.count, limits);
    }
}

// The most whole rows of a strided image one dispatch takes: what one binding spans, and the
// tuning's pixels per dispatch.
std::uint64_t rows_per_dispatch(const DeviceImage& image, const DeviceLimits& limits, const Tuning& tuning) {
    const std::uint64_t row_bytes = image.row_bytes(), stride = image.pitch();
    const std::uint64_t room = binding_room(limits);
    if (stride > 0xFFFFFFFFu || row_bytes > room)
        throw InvalidArgument("vulkan: an image row is larger than one storage buffer binding");
    return std::max<std::uint64_t>(1, std::min<std::uint64_t>((room - row_bytes) / stride + 1,
                                                              tuning.max_tile_pixels / image.width));
}

// Where rows `rows` of `image` start in its buffer, and the bytes they span.
struct RowsSpan {
    std::uint64_t start, bytes;
};
RowsSpan rows_span(const DeviceImage& image, const gpu::Tile& rows) {
    return {image.offset_bytes + rows.first * image.pitch(), (rows.count - 1) * image.pitch() + image.row_bytes()};
}

// Strided rows: tiles of whole rows (and the same rows of the mask, which one binding must
// also hold).
void strided_tiles(LaunchPlan& l, const HistogramPlan& plan, const DeviceImage& image, const DeviceImage* mask,
                   const DeviceLimits& limits, const Tuning& tuning) {
    std::uint64_t rows_max = rows_per_dispatch(image, limits, tuning);
    if (mask) rows_max = std::min(rows_max, rows_per_dispatch(*mask, limits, tuning));
    const std::uint32_t per_group = pixels_per_group(plan, l.shape, tuning);
    for (std::uint64_t i = 0; i < ceil_div(image.height, rows_max); ++i) {
        const gpu::Tile rows = gpu::tile_of(image.height, rows_max, i);
        const RowsSpan pixels = rows_span(image, rows);
        l.tiles.push_back(tile(pixels.start, pixels.bytes, rows.count * image.width, per_group, limits));
        if (mask) {
            const RowsSpan bytes = rows_span(*mask, rows);
            l.tiles.back().mask = binding_of(bytes.start, bytes.bytes, limits);
        }
    }
}

void check_launch(const HistogramPlan& plan, std::uint64_t totals_offset, const DeviceLimits& limits,
                  const Tuning& tuning) {
    if (plan.bins() > max_bins(limits))
        throw InvalidArgument("vulkan: " + std::to_string(plan.bins()) + " bins exceed this device's limit of " +
                              std::to_string(max_bins(limits)));
    if (tuning.max_tile_pixels > gpu::kMaxLaunchPixels || tuning.max_tile_pixels < kTileQuantum)
        throw InvalidArgument("vulkan: max_tile_pixels must be in [4096, 2^31]");
    if (totals_offset % 8 != 0) throw InvalidArgument("vulkan: the result offset must be a multiple of 8 bytes");
}

// A selection: every pass tests the mask and the alpha, the first counts the selected pixels
// into work counter 0, before the plan's. The packed path reads the mask bytes of a unit's
// pixels as whole words, so it takes a packed mask starting on 16 bytes (as the image does).
void select_pixels(LaunchPlan& l, const HistogramPlan& plan, const Selection& selection) {
    const DeviceImage* mask = selection.mask;
    if (mask && !(mask->pitch() == mask->row_bytes() && mask->offset_bytes % 16 == 0)) l.shape.strided = true;
    const bool alpha = selection.alpha.kind != IH_ALPHA_ALL;
    for (PassLaunch& p : l.passes) {
        p.spec.strided = l.shape.strided ? 1 : 0;
        p.spec.select_mask = mask ? 1 : 0;
        p.spec.alpha_kind = selection.alpha.kind;
        p.spec.alpha_sample = alpha ? std::uint32_t(plan.info.alpha) : 0;
        p.out_slot += 1;
    }
    l.passes.front().spec.count_selected = 1;
    l.total_slots += 1;
    l.counts_selected = true;
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
    // One channel goes in one pass even when it does not fit (check_launch rejects it then).
    const std::uint32_t fit = std::max(1u, gpu::most_channels_that_fit(channels, [&](std::uint32_t n) {
        return shared_words(n, channel_slots, SharedLayout::copies, 1) <= limits.shared_bytes / 4;
    }));
    s.channels_per_pass = gpu::channels_per_pass(channels, fit, gpu::PassSplit::balance);
    s.passes = std::uint32_t(ceil_div(channels, s.channels_per_pass));
    s.group_size = std::max<std::uint32_t>(32, std::min(tuning.group_size, limits.max_invocations) / 32 * 32);
    const std::uint32_t counter_words = shared_words(s.channels_per_pass, channel_slots, SharedLayout::copies, 1);
    const std::uint32_t edge_words = choose_edge_copies(s, plan, counter_words, limits, tuning);
    choose_layout(s, plan, channel_slots, limits.shared_bytes / 4 - edge_words, tuning);
    s.strided = !(image.pitch() == image.row_bytes() && image.offset_bytes % 16 == 0);
    return s;
}

LaunchPlan plan_launch(const HistogramPlan& plan, const DeviceImage& image, std::uint64_t totals_offset,
                       const DeviceLimits& limits, const Tuning& tuning, const Selection* selection) {
    check_launch(plan, totals_offset, limits, tuning);
    LaunchPlan l;
    l.shape = decide_shape(plan, image, limits, tuning);
    l.variant = shader_variant(plan.info, limits.denorm_preserve);
    l.passes = pass_launches(plan, l.shape, tuning);
    l.total_slots = std::uint32_t(plan.total_slots());
    const DeviceImage* mask = selection ? selection->mask : nullptr;
    if (selection) select_pixels(l, plan, *selection);
    if (l.shape.strided) strided_tiles(l, plan, image, mask, limits, tuning);
    else packed_tiles(l, plan, image, mask, limits, tuning);
    l.totals_bind = round_down(totals_offset, limits.offset_alignment);
    l.first_total = std::uint32_t((totals_offset - l.totals_bind) / 8);
    l.totals_bytes = totals_offset - l.totals_bind + std::uint64_t(l.total_slots) * 8;
    return l;
}

LaunchPlan plan_tile_launch(const HistogramPlan& plan, const DeviceImage& band, const GridRows& grid,
                            std::uint64_t totals_offset, const DeviceLimits& limits, const Tuning& tuning) {
    check_launch(plan, totals_offset, limits, tuning);
    Tuning tile_tuning = tuning;
    if (tile_tuning.layout == SharedLayout::pairs) tile_tuning.layout = SharedLayout::copies;  // no bound per lane
    LaunchPlan l;
    l.shape = decide_shape(plan, band, limits, tile_tuning);
    l.shape.strided = true;
    l.variant = shader_variant(plan.info, limits.denorm_preserve);
    l.passes = pass_launches(plan, l.shape, tile_tuning);
    for (PassLaunch& p : l.passes) p.spec.tiles = 1;
    l.tiles_x = grid.tiles_x;
    l.tile_slots = std::uint32_t(plan.total_slots());
    l.total_slots = std::uint32_t(std::uint64_t(l.tile_slots) * grid.tiles_x * grid.tiles_y);
    // A tile of 2^31 pixels or more could pass a 32-bit counter between flushes.
    const std::uint64_t widest = band.width / grid.tiles_x + band.width % grid.tiles_x;
    const std::uint64_t tallest = grid.area_height / grid.tiles_y + grid.area_height % grid.tiles_y;
    l.flush_each = widest * tallest >= (std::uint64_t(1) << 31);

    const std::uint64_t row_bytes = band.row_bytes(), stride = band.pitch();
    const std::uint64_t rows_max = rows_per_dispatch(band, limits, tuning);
    const std::uint32_t last = grid.first_row + band.height;
    for (std::uint32_t ty = ih_tile_of(grid.first_row, grid.area_height, grid.tiles_y);
         ty < grid.tiles_y && ih_tile_start(ty, grid.area_height, grid.tiles_y) < last; ++ty) {
        const std::uint32_t top = ih_tile_start(ty, grid.area_height, grid.tiles_y);
        const std::uint32_t first = std::max(top, grid.first_row) - grid.first_row;
        const std::uint32_t end = std::min(top + ih_tile_length(ty, grid.area_height, grid.tiles_y), last) - grid.first_row;
        for (std::uint64_t r = first; r < end; r += rows_max) {
            const std::uint64_t rows = std::min<std::uint64_t>(rows_max, end - r);
            TileLaunch t = tile(band.offset_bytes + r * stride, (rows - 1) * stride + row_bytes, rows * band.width,
                                pixels_per_group(plan, l.shape, tuning), limits);
            // Enough work-groups per tile to fill a large GPU (about 1024 a dispatch), and at
            // least 8 pixels an invocation, so that clearing and merging a group's counters stay
            // a small part of its work.
            const std::uint64_t piece_pixels = rows * widest;
            t.tile_row = ty;
            t.groups_per_piece = std::uint32_t(std::clamp<std::uint64_t>(
                ceil_div(1024, grid.tiles_x), 1, std::max<std::uint64_t>(1, ceil_div(piece_pixels, 8ull * l.shape.group_size))));
            const std::uint64_t groups = std::uint64_t(grid.tiles_x) * t.groups_per_piece;
            t.groups_x = std::uint32_t(std::min<std::uint64_t>(groups, limits.max_groups_x));
            const std::uint64_t gy = ceil_div(groups, t.groups_x);
            if (gy > limits.max_groups_y) throw Error("internal error: vulkan row of tiles too large");
            t.groups_y = std::uint32_t(gy);
            l.tiles.push_back(t);
        }
    }
    l.totals_bind = round_down(totals_offset, limits.offset_alignment);
    l.first_total = std::uint32_t((totals_offset - l.totals_bind) / 8);
    l.totals_bytes = totals_offset - l.totals_bind + std::uint64_t(l.total_slots) * 8;
    return l;
}

gpu::CounterLayout counter_layout(SharedLayout layout) {
    switch (layout) {
        case SharedLayout::lanes: return gpu::CounterLayout::lanes32;
        case SharedLayout::pairs: return gpu::CounterLayout::lane_pairs;
        case SharedLayout::copies: break;
    }
    return gpu::CounterLayout::copies;
}

gpu::LaunchDescription launch_description(const HistogramPlan& plan, const LaunchPlan& launch, const DeviceImage& image,
                                const DeviceLimits& limits) {
    const Shape& s = launch.shape;
    gpu::LaunchDescription d{"vulkan", image.width, image.height, limits.shared_bytes, s.strided, {}, {}, {}};
    std::uint64_t groups = 0, launch_pixels = 0;
    for (const TileLaunch& t : launch.tiles) {
        groups = std::max<std::uint64_t>(groups, std::uint64_t(t.groups_x) * t.groups_y);
        launch_pixels = std::max<std::uint64_t>(launch_pixels, t.pixels);
        // Where the tile starts, in pixels (packed) or rows (strided) of the image.
        const std::uint64_t start = t.bind_offset + t.base_byte - image.offset_bytes;
        if (s.strided) d.tiles.push_back({start / image.pitch(), t.pixels / image.width});
        else d.tiles.push_back({start / plan.info.pixel_bytes(), t.pixels});
    }
    const std::uint32_t channel_slots = s.value_mode ? IH_VALUE_SLOTS : plan.slots_per_channel();
    for (const PassLaunch& p : launch.passes)
        d.passes.push_back({{p.out_slot / plan.slots_per_channel(), p.bin.channels}, counter_layout(s.layout), s.copies,
                            s.value_mode, std::uint64_t(shared_words(p.bin.channels, channel_slots, s.layout, s.copies)) * 4,
                            s.group_size, groups, launch_pixels, "histogram.comp#" + std::to_string(launch.variant)});
    return d;
}

}  // namespace imghist::vk
