#include "cuda_shape.hpp"

#include <algorithm>

#include "imghist/error.hpp"

namespace imghist::cuda_detail {

using gpu::ceil_div;

KernelFormat kernel_format(PixelFormat format) {
    const std::uint32_t f = std::uint32_t(format);
    const std::uint32_t samples = ih_format_samples(f);
    const int layout = samples == 1 ? 0 : samples == 3 ? 1 : 2;  // kGray8, kRgb8, kRgba8 of each sample type
    return KernelFormat(int(ih_format_sample_type(f)) * 3 + layout);
}

namespace {

// The plan's part of the parameters: the contract's arguments, and their sources unpacked.
void fill_plan(KernelParams& p, const HistogramPlan& plan) {
    p.bin = plan.bin_args();
    p.spc = plan.slots_per_channel();
    p.total_slots = std::uint32_t(plan.total_slots());
    for (std::uint32_t c = 0; c < p.bin.channels && c < std::uint32_t(kMaxChannels); ++c) {
        const std::uint32_t s = ih_args_source(p.bin, c);
        p.src[c] = s == IH_SRC_LUMA ? -1 : std::int32_t(s);
    }
    p.has_luma = plan.has_luma() ? 1u : 0u;
    p.luma_src[0] = ih_args_red(p.bin);
    p.luma_src[1] = ih_args_green(p.bin);
    p.luma_src[2] = ih_args_blue(p.bin);
    p.value_mode = ih_value_mode_fits(ih_format_sample_type(p.bin.format));
}

// cuda_tune.cpp (no CUDA headers) names the layouts by these values and caps block at 1024.
static_assert(kLanes32 == 0 && kLanes16 == 1 && kCopies == 2 && kGlobal == 3 && kMaxBlock == 1024);

// Counters: per-lane 32-bit sub-histograms when they fit in a block's shared memory (up to 5
// channels of 256 values, or of 259 slots; measured faster than packed 16-bit ones at two blocks
// per multiprocessor), then packed 16-bit ones, then plain copies, then 64-bit global atomics
// (never for 8-bit images: 256 values per channel always fit).
int choose_layout(std::uint64_t slots, std::uint64_t optin, bool value_mode, const Tune& tune) {
    auto fits = [&](int layout) {
        switch (layout) {
            case kLanes32: return slots * 32 * 4 <= optin;
            case kLanes16: return (slots + 1) / 2 * 32 * 4 <= optin;
            case kCopies: return slots * 4 <= optin;
            default: return true;
        }
    };
    if (tune.layout >= 0 && fits(tune.layout) && !(value_mode && tune.layout == kGlobal)) return tune.layout;
    for (int layout : {int(kLanes32), int(kLanes16), int(kCopies)})
        if (fits(layout)) return layout;
    return kGlobal;
}

// The shared-memory words of `layout` for `slots` counters per copy.
void fill_counters(KernelParams& p, int layout, std::uint64_t slots, std::uint64_t optin) {
    std::uint64_t words = 0;
    p.copies = 1;
    p.copy_stride = 0;
    switch (layout) {
        case kLanes32: words = slots * 32; break;
        case kLanes16: words = (slots + 1) / 2 * 32; break;
        case kCopies: {
            p.copy_stride = std::uint32_t(slots | 1);  // odd: copies start on different banks
            p.copies = std::uint32_t(std::clamp<std::uint64_t>(optin / 4 / p.copy_stride, 1, 8));
            words = std::uint64_t(p.copies) * p.copy_stride;
            break;
        }
        default: words = 0;
    }
    p.layout = std::uint32_t(layout);
    p.hist_slots = std::uint32_t(slots);
    p.smem_words = std::uint32_t((words + 3) / 4 * 4);
}

// Flush before any counter could overflow: bound the increments one counter can get in one tile
// (a thread counts at most gpt groups plus a few edge pixels per tile).
std::uint32_t flush_tiles(const Shape& sh, int layout, const Tune& tune) {
    const std::uint64_t per_thread = std::uint64_t(sh.params.gpt) * sh.pixels_per_group +
                                     ceil_div(std::uint64_t(sh.edge_rows_cap) * 2 * sh.pixels_per_group, sh.block);
    const std::uint64_t sharing = layout == kCopies ? sh.block : ceil_div(sh.block, 32);
    const std::uint64_t per_tile = per_thread * sharing * 2;  // extra: nan/below/above share nothing, x2 margin
    const std::uint64_t limit = layout == kLanes16 ? 0xFFFFu : 0xFFFFFFFFu;
    std::uint64_t flush = std::max<std::uint64_t>(1, limit / per_tile);
    if (tune.flush > 0) flush = std::min<std::uint64_t>(flush, std::uint64_t(tune.flush));
    return std::uint32_t(std::min<std::uint64_t>(flush, 0x7FFFFFFFu));
}

// Whether packed_kernel counts this plan: float kernels read their sources from positions fixed
// at compile time (packed_float_source), so the plan's must be exactly those.
bool has_packed_path(const Shape& sh, const Tune& tune) {
    const KernelParams& p = sh.params;
    const bool luma = p.has_luma != 0;
    const std::uint32_t nch = p.bin.channels;
    const int samples = int(ih_format_samples(p.bin.format));
    bool fixed_sources = true;
    for (std::uint32_t c = 0; c < nch && c < std::uint32_t(kMaxChannels); ++c)
        fixed_sources = fixed_sources && p.src[c] == packed_float_source(samples, int(nch), luma ? 1 : 0, int(c));
    if (luma) fixed_sources = fixed_sources && p.luma_src[0] == 0 && p.luma_src[1] == 1 && p.luma_src[2] == 2;
    return tune.packed && !tune.scalar && has_packed(sh.format) && p.layout == kLanes32 && nch >= 1 &&
           nch <= std::uint32_t(kMaxChannels) && (p.value_mode || (tune.packed_float && fixed_sources)) &&
           has_packed_kernel(sh.format, int(nch), luma);
}

// The packed fast path: per step a thread counts kPackedSteps vectors of 16 / pixel_bytes
// pixels, and one lane's counter is shared by block / 32 threads (a float sample's second add,
// for clipped values, goes to another slot, so a counter still gets at most one add per pixel);
// flush with room for the block's last partial step and the image's edge pixels.
void decide_packed_path(Shape& sh, const HistogramPlan& plan, const DeviceLimits& device, const Tune& tune,
                        const Occupancy& occupancy) {
    const KernelParams& p = sh.params;
    const int nch = int(p.bin.channels);
    const bool luma = p.has_luma != 0;
    const std::uint64_t per_step = std::uint64_t(kPackedSteps) * (16 / sh.pixel_bytes) * ceil_div(sh.block, 32);
    std::uint64_t steps = std::max<std::uint64_t>(1, 0xFFFFFFFFull / per_step - 3);
    if (tune.flush > 0) steps = std::min<std::uint64_t>(steps, std::uint64_t(tune.flush));
    sh.packed_flush_steps = std::uint32_t(std::min<std::uint64_t>(steps, 0x7FFFFFFFu));
    const int per_sm = tune.blocks_per_sm > 0 ? tune.blocks_per_sm : occupancy(sh.format, kPacked, sh.block, sh.smem, nch, luma);
    sh.packed_grid_cap = unsigned(per_sm) * device.multiprocessors;
    // The per-slot merge needs every counter slot to be one output slot: floats count slots;
    // 8-bit values qualify when each value is its own bin of 256 (the default).
    bool values_are_bins = p.bin.bins == IH_VALUE_SLOTS;
    for (std::uint32_t v = 0; v < IH_VALUE_SLOTS && values_are_bins; ++v) values_are_bins = plan.classify_int(v) == v;
    sh.slot_merge = tune.slot_merge && (!p.value_mode || values_are_bins);
    // The code table sits behind the counters; a slot must fit a 16-bit code's 14 bits. Float
    // edge bins take the code window and the edge keys instead where they fit: less shared
    // memory, so more blocks per SM, and fewer blocks that hold an edge. Luminance is looked up
    // by its float bits, so only in float edge bins with the window: uniform bins compute its
    // bin at the read rate already (H200, 8K RGBA f32 Y: 96 % of the read floor), and a half
    // image's table is by half bits.
    if (tune.float_lut == 0 || p.value_mode || ih_code_from_16(ih_code_to_16(p.spc)) != p.spc) return;
    const bool float_edges = plan.has_edges() && plan.info.sample == SampleType::f32;
    if (luma && !float_edges) return;
    std::size_t lut_smem = kCodeLutBytes;
    if (float_edges) {
        // The finest window of at most the knob's entries that fits beside the counters, the
        // keys and a selection's trash row (cuda_interop.cpp).
        const std::size_t key_bytes = (std::size_t(p.bin.bins) + 1 + 3) / 4 * 16;  // whole 16-byte vectors
        const std::size_t taken = sh.smem + key_bytes + kTrashRowBytes;
        const std::size_t room = device.dynamic_smem > taken ? (device.dynamic_smem - taken) / 2 : 0;
        const FloatCodeWindow window =
            float_code_window(plan.edge_keys, std::uint32_t(std::min<std::size_t>(tune.code_window, room)));
        if (window.entries != 0) {
            sh.code_window = window;
            lut_smem = std::size_t(window.entries) * 2 + key_bytes;
        }
    }
    if (luma && sh.code_window.entries == 0) return;
    if (sh.smem + lut_smem > device.dynamic_smem) return;
    sh.code_lut_smem = lut_smem;
    sh.code_lut = true;
    sh.code_lut_grid_cap =
        unsigned(occupancy(sh.format, kPacked, sh.block, sh.smem + sh.code_lut_smem, nch, luma)) * device.multiprocessors;
}

}  // namespace

Shape decide_shape(const HistogramPlan& plan, const DeviceLimits& device, const Tune& tune,
                   const Occupancy& occupancy) {
    Shape sh;
    KernelParams& p = sh.params;
    sh.format = kernel_format(plan.format);
    sh.pixel_bytes = std::uint32_t(plan.info.pixel_bytes());
    sh.pixels_per_group = std::uint32_t(group_bytes(int(sh.pixel_bytes))) / sh.pixel_bytes;
    sh.align = 1;
    while (sh.align < 16 && sh.pixel_bytes % (sh.align * 2) == 0) sh.align *= 2;
    fill_plan(p, plan);

    const std::uint64_t slots = p.value_mode ? std::uint64_t(p.bin.channels) * IH_VALUE_SLOTS : p.total_slots;
    const std::uint64_t optin = device.dynamic_smem;  // what a block may have beside its static shared memory
    const int layout = choose_layout(slots, optin, p.value_mode != 0, tune);
    fill_counters(p, layout, slots, optin);
    p.acc_stride = 1;
    p.prefetch = tune.prefetch ? 1u : 0u;
    sh.smem = std::size_t(p.smem_words) * 4;

    sh.block = unsigned(tune.block);
    const int max_groups = max_gpt(int(sh.pixel_bytes));
    p.gpt = std::uint32_t(tune.gpt > 0 ? std::min(tune.gpt, max_groups) : max_groups);
    sh.edge_rows_cap = std::max(1u, sh.block * 2 / sh.pixels_per_group);
    p.flush_tiles = flush_tiles(sh, layout, tune);

    const int per_sm = tune.blocks_per_sm > 0 ? tune.blocks_per_sm : occupancy(sh.format, layout, sh.block, sh.smem, 0, false);
    sh.grid_cap = unsigned(per_sm) * device.multiprocessors;
    sh.packed = has_packed_path(sh, tune);
    if (sh.packed) decide_packed_path(sh, plan, device, tune, occupancy);
    return sh;
}

Piece piece_of(const ImageView& v, std::uint32_t slot) {
    const std::size_t row_bytes = v.row_bytes();
    if (v.stride_bytes == row_bytes || v.height == 1)
        return {static_cast<const unsigned char*>(v.data), row_bytes, v.pixel_count(), 1, slot};
    return {static_cast<const unsigned char*>(v.data), v.stride_bytes, v.width, v.height, slot};
}

Piece piece_of(const DeviceImage& v, std::uint32_t slot) {
    const auto* base = reinterpret_cast<const unsigned char*>(std::uintptr_t(v.memory + v.offset_bytes));
    if (v.pitch() == v.row_bytes() || v.height == 1) return {base, v.row_bytes(), v.pixel_count(), 1, slot};
    return {base, v.pitch(), v.width, v.height, slot};
}

std::vector<Piece> pieces_of(std::span<const DeviceImage> images) {
    std::vector<Piece> pieces;
    pieces.reserve(images.size());
    for (std::size_t i = 0; i < images.size(); ++i) pieces.push_back(piece_of(images[i], std::uint32_t(i)));
    return pieces;
}

ImageDesc describe(const Shape& sh, const Piece& pc, bool force_scalar) {
    ImageDesc d{};
    d.base = pc.base;
    d.pitch = pc.pitch;
    d.row_px = pc.row_px;
    d.rows = pc.rows;
    d.slot_index = pc.slot;
    const auto addr = reinterpret_cast<std::uintptr_t>(pc.base);
    d.scalar = (force_scalar || addr % sh.align != 0 || (pc.rows > 1 && pc.pitch % sh.align != 0)) ? 1u : 0u;
    // Rows too short for one group still get one (empty) unit: their pixels are all edges.
    d.units_per_row = d.scalar ? pc.row_px : std::max<std::uint64_t>(1, pc.row_px / sh.pixels_per_group);
    const std::uint64_t tile_units = std::uint64_t(sh.block) * sh.params.gpt;
    if (d.units_per_row >= tile_units) {
        d.rows_per_tile = 1;
        d.segs = std::uint32_t(ceil_div(d.units_per_row, tile_units));
    } else {
        std::uint64_t r = tile_units / std::max<std::uint64_t>(d.units_per_row, 1);
        if (!d.scalar) r = std::min<std::uint64_t>(r, sh.edge_rows_cap);
        d.rows_per_tile = std::uint32_t(std::clamp<std::uint64_t>(r, 1, pc.rows));
        d.segs = 1;
    }
    const std::uint64_t tiles = ceil_div(pc.rows, d.rows_per_tile) * d.segs;
    if (tiles > 0x3FFFFFFFu) throw InvalidArgument("cuda: image too large for one launch");
    d.tiles = std::uint32_t(tiles);
    return d;
}

bool takes_packed(const Shape& sh, const Piece& pc) {
    return sh.packed && pc.rows == 1 && reinterpret_cast<std::uintptr_t>(pc.base) % sh.pixel_bytes == 0;
}

// The piece's 16-byte vectors split evenly over at least a vector per thread of every block, up
// to the grid cap.
unsigned decide_packed(Shape& sh, const Piece& pc, bool lut, const Tune& tune) {
    KernelParams& p = sh.params;
    const std::uint64_t vectors = pc.row_px * sh.pixel_bytes / 16;
    const unsigned grid = unsigned(std::clamp<std::uint64_t>(ceil_div(vectors, sh.block), 1,
                                                             lut ? sh.code_lut_grid_cap : sh.packed_grid_cap));
    ImageDesc& d = p.img[0];
    d = ImageDesc{};
    d.base = pc.base;
    d.pitch = pc.pitch;
    d.row_px = pc.row_px;
    d.units_per_row = vectors;
    d.rows = 1;
    d.rows_per_tile = 1;
    d.segs = grid;
    d.tiles = grid;  // finish_image: every block of the launch takes part
    p.packed = 1;
    p.ahead = tune.ahead ? 1u : 0u;
    // Early loads measured 0.3-0.4 us faster on 8-bit R, G, B (A) at 8K, and 0.5-2 us slower
    // with luminance and on float samples (three H200 runs): only the former take them.
    p.early = tune.early && p.value_mode && !p.has_luma ? 1u : 0u;
    p.slot_merge = sh.slot_merge && grid <= kMaxArrivals && pc.row_px < (1ull << kArrivalShift) ? 1u : 0u;
    p.flush_tiles = sh.packed_flush_steps;
    p.nimg = 1;
    p.total_tiles = grid;
    p.finalize = 1;
    p.img_dev = nullptr;
    return grid;
}

gpu::CounterLayout counter_layout(std::uint32_t code) {
    switch (code) {
        case kLanes32: return gpu::CounterLayout::lanes32;
        case kLanes16: return gpu::CounterLayout::lanes16;
        case kCopies: return gpu::CounterLayout::copies;
        default: return gpu::CounterLayout::global;
    }
}

// One launch counts the whole piece: its 32-bit shared counters are flushed into 64-bit ones
// before they could overflow (flush_tiles), so no tile limit applies.
gpu::LaunchDescription launch_description(const Shape& sh, const Piece& pc, const DeviceLimits& device,
                                          const Tune& tune) {
    const std::uint64_t pixels = pc.row_px * pc.rows;
    gpu::LaunchDescription d{"cuda", pc.row_px, pc.rows, device.dynamic_smem, pc.rows > 1, {}, {}, {}};
    d.tiles.push_back({0, pc.rows > 1 ? pc.rows : pixels});
    Shape s = sh;
    const bool packed = takes_packed(sh, pc);
    const std::uint64_t groups = packed ? decide_packed(s, pc, false, tune)
                                        : std::min<std::uint64_t>(describe(sh, pc, tune.scalar).tiles, sh.grid_cap);
    const KernelParams& p = s.params;
    d.passes.push_back({{0, p.bin.channels}, counter_layout(p.layout), p.copies, p.value_mode != 0, sh.smem, sh.block,
                        groups, pixels, packed ? "packed_kernel" : "histogram_kernel"});
    return d;
}

}  // namespace imghist::cuda_detail
