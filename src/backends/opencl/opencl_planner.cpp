// The opencl backend's decisions (opencl_planner.hpp): tiles, channel passes, local layouts,
// value mode, work-group sizes and the compile-time options of each pass. Defaults are the
// H200 measurements of docs/performance.md; IMGHIST_OPENCL_TUNE (Tune) overrides them.
#include "backends/opencl/opencl_planner.hpp"

#include <algorithm>
#include <bit>
#include <optional>

#include "imghist/error.hpp"

namespace imghist::ocl {

std::string sample_suffix(SampleType t) {
    switch (t) {
        case SampleType::u8: return "u8";
        case SampleType::u16: return "u16";
        case SampleType::f16: return "f16";
        case SampleType::f32: return "f32";
    }
    return "u8";
}

namespace {

// A local counter layout of histogram.cl: `copies` sub-histograms; pack 0 = 32-bit counters,
// 1 = two slots per word, 2 = lane pairs (two work-items per word).
struct LocalLayout {
    unsigned copies, pack;
};

// The work-items of a work-group of `wg` that increment one counter of the layout.
std::uint64_t sharers(LocalLayout layout, std::size_t wg) {
    return ceil_div(wg, layout.pack == 2 ? 2 * layout.copies : layout.copies);
}

// The rows a staged tile may hold: one buffer of at most 1 GiB on GPUs, 256 MiB elsewhere.
std::uint64_t staged_tile_rows(std::uint64_t row_bytes, const DeviceLimits& device) {
    const std::uint64_t cap = std::min<std::uint64_t>(device.max_alloc, device.gpu ? (1ull << 30) : (256ull << 20));
    if (row_bytes > cap)
        throw DeviceError("opencl: one row of " + std::to_string(row_bytes) +
                          " bytes is larger than the largest buffer used on " + device.name + " (" +
                          std::to_string(cap) + " bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE " +
                          std::to_string(device.max_alloc) + ")");
    return cap / row_bytes;
}

}  // namespace

Tiling plan_tiles(const FormatInfo& fi, const PixelLayout& px, const DeviceLimits& device, const Tune& tune) {
    const std::uint64_t bps = std::uint64_t(fi.bytes_per_sample);
    const std::uint64_t row_bytes = std::uint64_t(px.width) * fi.pixel_bytes();
    std::uint64_t tile_pixels = kMaxLaunchPixels;
    if (tune.tile_pixels) tile_pixels = std::min(tile_pixels, std::max<std::uint64_t>(4, tune.tile_pixels));
    Tiling t;
    t.staged = px.source != PixelSource::buffer;
    if (t.staged) {
        t.stride_samples = row_bytes / bps;  // staged tiles are packed
    } else {
        if (px.offset_bytes % bps != 0)
            throw InvalidArgument("opencl: buffer offset must be a multiple of the sample size");
        t.stride_samples = px.stride_bytes / bps;
        // A mask is read at the image's pixel index where both are packed, else by rows.
        const bool mask_packed = px.mask_stride_bytes == 0 || px.mask_stride_bytes == px.width;
        t.packed = (px.stride_bytes == row_bytes && mask_packed) || px.height == 1;
        t.base_samples = px.offset_bytes / bps;
        if (!t.packed && t.stride_samples > 0xFFFFFFFFull)
            throw InvalidArgument("opencl: row stride above 2^32 samples is not supported");
    }
    if (px.tile_grid) t.packed = false;  // the tile kernels walk rows
    t.by_pixels = !t.staged && t.packed;
    t.tile_rows = std::max<std::uint64_t>(1, tile_pixels / px.width);
    if (t.staged) t.tile_rows = std::min(t.tile_rows, staged_tile_rows(row_bytes, device));
    t.tile_rows = std::min<std::uint64_t>(t.tile_rows, px.height);
    t.tile_pixels = tile_pixels & ~std::uint64_t(3);
    const std::uint64_t pixels = std::uint64_t(px.width) * px.height;
    t.tiles = t.by_pixels ? ceil_div(pixels, t.tile_pixels) : ceil_div(px.height, t.tile_rows);
    return t;
}

namespace {

// ih_hist_u8x4 reads 4-sample 8-bit pixels, 16 bytes at a time, from packed aligned rows.
bool fast_kernel_fits(const FormatInfo& fi, const PixelLayout& px, const Tiling& t, const Tune& tune) {
    return tune.fast != 0 && !px.tile_grid && fi.sample == SampleType::u8 && fi.channels == 4 && t.packed &&
           (t.staged || px.offset_bytes % 16 == 0);
}

// The passes of one plan over pixels of one tiling.
class Planner {
public:
    Planner(const HistogramPlan& plan, const PixelLayout& px, const Tiling& tiling, const DeviceLimits& device,
            const KernelLimitsByName& kernels, const Tune& tune)
        : plan_(plan), px_(px), tiling_(tiling), device_(device), kernels_(kernels), tune_(tune),
          fast_(fast_kernel_fits(plan.info, px, tiling, tune)) {}

    std::vector<PassConfig> passes(std::string& note) const;

private:
    std::optional<PassConfig> configure(unsigned first, unsigned count) const;
    PassConfig base_config(unsigned first, unsigned count, bool global) const;
    bool fit_layout(PassConfig& c, bool value, std::uint64_t avail) const;
    std::vector<LocalLayout> layout_chain(bool value, std::size_t wg) const;
    bool value_swizzle(unsigned first, unsigned count) const;
    PassConfig global_pass() const;
    std::string program_options(const PassConfig& c) const;
    const KernelLimits& limits(const std::string& name) const;
    bool row_mode() const { return !tiling_.packed; }

    const HistogramPlan& plan_;
    const PixelLayout& px_;
    const Tiling& tiling_;
    const DeviceLimits& device_;
    const KernelLimitsByName& kernels_;
    const Tune& tune_;
    const bool fast_;
};

const KernelLimits& Planner::limits(const std::string& name) const {
    const auto it = kernels_.find(name);
    if (it == kernels_.end()) throw Error("internal error: no limits of OpenCL kernel " + name);
    return it->second;
}

// As many channels per pass as fit the local memory: one pass unless bins x channels is too
// large, then fewer channels per pass (each pass reads the pixels again); global atomics when
// not even one channel fits.
std::vector<PassConfig> Planner::passes(std::string& note) const {
    const unsigned total = unsigned(plan_.channels.size());
    const std::string local_mem = std::to_string(device_.local_mem / 1024) + " KiB of local memory";
    std::optional<PassConfig> first;
    const unsigned per = tune_.force_global ? 0 : gpu::most_channels_that_fit(total, [&](unsigned n) {
        first = configure(0, n);
        return first.has_value();
    });
    if (per > 0) {
        std::vector<PassConfig> passes{*first};
        for (const gpu::ChannelPass& p : gpu::split_channel_passes(total, per, gpu::PassSplit::fill))
            if (p.first > 0) passes.push_back(configure(p.first, p.count).value());
        if (per < total)
            note = "opencl: " + std::to_string(plan_.bins()) + " bins x " + std::to_string(total) +
                   " channels do not fit the device's " + local_mem + " at once; counted in " +
                   std::to_string(passes.size()) + " passes of " + std::to_string(per) + " channel(s) over the pixels";
        return passes;
    }
    if (!tune_.force_global)
        note = "opencl: " + std::to_string(plan_.bins()) + " bins do not fit the device's " + local_mem +
               " even for one channel; counted with global atomics (slower)";
    return {global_pass()};
}

// The fields every pass of this plan and tiling shares.
PassConfig Planner::base_config(unsigned first, unsigned count, bool global) const {
    PassConfig c;
    c.first_channel = first;
    c.global = global;
    c.bins = plan_.bin_args(first, count);
    c.launch.width = px_.width;
    c.launch.stride = std::uint32_t(tiling_.stride_samples);
    c.launch.packed = tiling_.packed ? 1 : 0;
    c.launch.pixel_samples = ih_format_samples(c.bins.format);
    c.launch.first_slot = first * plan_.slots_per_channel();
    c.launch.copies = 1;
    // A tile pass adds each work-group's counts into its tile's counters: no partials to sum.
    c.launch.merge = global || px_.tile_grid || tune_.merge_atomic != 0 ? 1 : 0;
    // Four 16-byte loads in flight measured 2-6% faster than two on the H200 with every layout.
    c.launch.loads = tune_.loads ? tune_.loads : (device_.gpu ? 4u : 2u);
    return c;
}

// The layout, value mode and sizes for channels [first, first + count), if their local
// histogram fits the device.
std::optional<PassConfig> Planner::configure(unsigned first, unsigned count) const {
    PassConfig c = base_config(first, count, false);
    c.fast = fast_;
    c.kernel_name = fast_ ? "ih_hist_u8x4"
                    : (px_.tile_grid ? "ih_hist_tiles_" : "ih_hist_") + sample_suffix(plan_.info.sample);
    const KernelLimits& kernel = limits(c.kernel_name);
    const std::size_t wg = tune_.wg ? tune_.wg : (device_.gpu ? 256 : 64);
    c.work_group = std::bit_floor(std::max<std::size_t>(std::min({wg, kernel.work_group, device_.max_work_group}), 1));
    const std::uint64_t kernel_local = tune_.reserve >= 0 ? std::uint64_t(tune_.reserve) : kernel.local_bytes;
    std::uint64_t avail = device_.local_mem > kernel_local ? device_.local_mem - kernel_local : 0;
    if (tune_.max_local) avail = std::min<std::uint64_t>(avail, tune_.max_local);
    // Work-groups per compute unit (the number of partial histograms): 4 was measured with the
    // default copies on the H200; 8 was measured only with 16/32 copies (docs/performance.md).
    c.max_groups = tune_.groups ? tune_.groups : std::size_t(device_.compute_units) * (tune_.gpc ? tune_.gpc : 4u);
    // Value mode: every 8-bit request counts raw values (binning happens at the merge); then
    // classified counting, when the values do not fit.
    const bool want_value = ih_value_mode_fits(ih_format_sample_type(c.bins.format)) && tune_.value != 0;
    if (!(want_value && fit_layout(c, true, avail)) && !fit_layout(c, false, avail)) return std::nullopt;
    c.program_options = program_options(c);
    return c;
}

// The first layout of layout_chain that fits `avail` bytes of local memory, into `c`.
bool Planner::fit_layout(PassConfig& c, bool value, std::uint64_t avail) const {
    // Integer shift mode never yields nan/below/above: the local copy skips those slots.
    const bool no_extra_slots = !plan_.is_float() && plan_.int_mode == IH_INT_SHIFT;
    const unsigned lspc = value ? IH_VALUE_SLOTS : no_extra_slots ? plan_.bins() : plan_.slots_per_channel();
    const std::uint64_t slots = std::uint64_t(c.bins.channels) * lspc;
    const unsigned ppu = c.pixels_per_unit();
    const std::size_t wg = c.work_group;
    for (const LocalLayout layout : layout_chain(value, wg)) {
        // A tile pass bounds no work-group's pixels: 32-bit counters only.
        if (px_.tile_grid && layout.pack != 0) continue;
        // A 16-bit counter takes at most one count per pixel from each of its sharers: bound
        // the units (pixels, or 4-pixel vectors) per work-item and launch.
        const std::uint64_t per_item = layout.pack ? 65535 / (sharers(layout, wg) * ppu) : 0;
        if (layout.pack && per_item == 0) continue;
        const std::uint64_t words = layout.pack == 1 ? ceil_div(slots, 2) : slots;
        if (words * layout.copies * 4 > avail) continue;
        std::uint64_t units = kMaxLaunchPixels / ppu;
        if (layout.pack) units = std::min<std::uint64_t>(units, per_item * c.max_groups * wg);
        if (tune_.launch_pixels) units = std::min<std::uint64_t>(units, std::max<std::uint64_t>(1, tune_.launch_pixels / ppu));
        if (row_mode() && units < px_.width) {
            if (layout.pack) continue;  // a launch must hold whole rows
            units = px_.width;          // only reachable through launch_pixels
        }
        c.launch.local_slots = lspc;
        c.launch.copies = layout.copies;
        c.launch.pack = layout.pack;
        c.launch.value = value ? 1 : 0;
        c.launch.swizzle = value && value_swizzle(c.first_channel, c.bins.channels) ? 1 : 0;
        c.launch.words = std::uint32_t(words);
        c.launch_units = units;
        return true;
    }
    return false;
}

// The local layouts to try, best first; the first that fits the local memory wins.
std::vector<LocalLayout> Planner::layout_chain(bool value, std::size_t wg) const {
    std::vector<LocalLayout> chain;
    // Default on GPUs for the RGBA8 kernel in value mode (H200 measurements, docs/performance.md):
    // one copy, with the value swizzle where raw samples are counted (value_swizzle).
    // - R, G, B: 67-70% of the floor on random data, 80-85% on natural, constant and
    //   bank-adversarial. 16 copies of 16-bit counters packed two slots to a word held 61-67%
    //   everywhere; one copy without the swizzle 96-100% on constant data but 30% on
    //   bank-adversarial. Per-lane counters (what makes the CUDA backend reach 95%) need 48 KiB
    //   for R, G, B, which NVIDIA reports but refuses to launch (CL_OUT_OF_RESOURCES).
    // - R, G, B, Y: 50% random, 59% bank-adversarial (lane pairs: 51% and 50%).
    if (tune_.layout == LayoutKind::any && device_.gpu && fast_ && value) chain.push_back({1, 0});
    if (tune_.layout == LayoutKind::lanes) chain.push_back({32, 0});
    if (tune_.layout == LayoutKind::pairs) chain.push_back({tune_.copies ? tune_.copies : 16u, 2});
    // Then copies, halving from the wanted number, packed by slot or not. One unpacked copy
    // was measured best of these on an H200 (docs/performance.md): the hardware merges
    // same-address atomics, which keeps constant images at the memory floor.
    const unsigned want_copies = tune_.copies ? tune_.copies : 1u;
    const bool want_pack = tune_.pack >= 0 ? tune_.pack != 0 : false;
    for (unsigned copies = unsigned(std::min<std::size_t>(want_copies, wg)); copies >= 1; copies /= 2)
        for (const bool pack : {want_pack, !want_pack})
            if (tune_.pack < 0 || pack == (tune_.pack != 0)) chain.push_back({copies, pack ? 1u : 0u});
    // Packed counters may not hold one row of a row-mode launch: one unpacked copy then.
    chain.push_back({1, 0});
    return chain;
}

// Whether a value-mode pass swizzles its slots over the banks (ih_value_swizzle). By default
// (off on devices that are not GPUs: opencl_tuning.cpp) when it counts a raw sample: values 32
// apart (posterised or bit-shifted data, the bank-adversarial test image) would otherwise put a
// warp on one bank of one copy. Luminance alone skips it: its values rarely line up like that,
// and the swizzle costs it 2% (96 -> 94%).
bool Planner::value_swizzle(unsigned first, unsigned count) const {
    if (tune_.swizzle >= 0) return tune_.swizzle != 0;
    return plan_.counts_a_sample(first, count);
}

// Not even one channel fits the local memory: global atomics, all channels in one pass.
PassConfig Planner::global_pass() const {
    PassConfig g = base_config(0, unsigned(plan_.channels.size()), true);
    g.launch.local_slots = plan_.slots_per_channel();
    g.kernel_name = "ih_hist_global_" + sample_suffix(plan_.info.sample);
    const std::size_t wg = tune_.wg ? tune_.wg : 256;
    g.work_group = std::bit_floor(std::max<std::size_t>(1, std::min(wg, limits(g.kernel_name).work_group)));
    g.max_groups = std::size_t(device_.compute_units) * 8;
    g.launch_units = tune_.launch_pixels ? std::max<std::uint64_t>(1, tune_.launch_pixels) : kMaxLaunchPixels;
    if (row_mode()) g.launch_units = std::max<std::uint64_t>(g.launch_units, px_.width);
    g.program_options = program_options(g);
    return g;
}

// The -D IH_C_* options that make the pass's fields compile-time constants (histogram.cl,
// ih_specialised_*): all of them by default (not on devices that are not GPUs: opencl_tuning.cpp),
// value mode and loads in flight everywhere.
std::string Planner::program_options(const PassConfig& c) const {
    std::string o = px_.selects ? kSelectOption : "";
    auto def = [&](const char* k, std::uint64_t v) { o += std::string(" -DIH_C_") + k + "=" + std::to_string(v) + "u"; };
    // As arguments, the branches on value mode and loads made PoCL's generic RGBA8 kernel twice as slow.
    if (!c.global) {
        def("VALUE", c.launch.value);
        def("SWIZZLE", c.launch.swizzle);
        def("LOADS", c.launch.loads);
    }
    def("EDGES", c.bins.edges);  // uniform bins compile without the edge search
    if (tune_.spec == 0) return o;
    def("NCH", c.bins.channels);
    def("SOURCES", c.bins.sources);
    def("BINS", c.bins.bins);
    def("INT_MODE", c.bins.int_mode);
    def("SHIFT", c.bins.shift);
    def("RGB", c.bins.luma_sources);
    def("LSPC", c.launch.local_slots);
    if (px_.selects) {
        // As arguments, the alpha test was a run-time choice per pixel: 1.38x the whole image.
        def("HAS_MASK", px_.mask_stride_bytes != 0 ? 1 : 0);
        def("ALPHA_KIND", px_.alpha_kind);
        def("ALPHA_SAMPLE", px_.alpha_sample);
    }
    if (!c.global) {
        def("COPIES", c.launch.copies);
        def("PACK", c.launch.pack);
        def("MERGE", c.launch.merge);
    }
    return o;
}

}  // namespace

std::vector<std::string> histogram_kernel_names() {
    std::vector<std::string> names{"ih_hist_u8x4"};
    for (const SampleType t : {SampleType::u8, SampleType::u16, SampleType::f16, SampleType::f32}) {
        names.push_back("ih_hist_" + sample_suffix(t));
        names.push_back("ih_hist_tiles_" + sample_suffix(t));
        names.push_back("ih_hist_global_" + sample_suffix(t));
    }
    return names;
}

LaunchPlan plan_launch(const HistogramPlan& plan, const PixelLayout& pixels, const DeviceLimits& device,
                       const KernelLimitsByName& kernels, const Tune& tune) {
    LaunchPlan lp;
    lp.tiling = plan_tiles(plan.info, pixels, device, tune);
    lp.passes = Planner(plan, pixels, lp.tiling, device, kernels, tune).passes(lp.note);
    return lp;
}

gpu::CounterLayout counter_layout(const PassConfig& pass) {
    if (pass.global) return gpu::CounterLayout::global;
    switch (pass.launch.pack) {
        case 1: return gpu::CounterLayout::packed_copies;
        case 2: return gpu::CounterLayout::lane_pairs;
        default: return gpu::CounterLayout::copies;
    }
}

gpu::LaunchDescription launch_description(const LaunchPlan& lp, const PixelLayout& pixels, const DeviceLimits& device) {
    gpu::LaunchDescription d{"opencl", pixels.width, pixels.height, device.local_mem, !lp.tiling.by_pixels, {}, {}, lp.note};
    for (const PassConfig& p : lp.passes)
        d.passes.push_back({{p.first_channel, p.bins.channels}, counter_layout(p), p.launch.copies, p.launch.value != 0,
                            p.global ? 0 : std::uint64_t(p.launch.words) * p.launch.copies * 4, unsigned(p.work_group),
                            p.max_groups, p.launch_units * p.pixels_per_unit(), p.kernel_name});
    const std::uint64_t total = d.tiles_by_rows ? pixels.height : std::uint64_t(pixels.width) * pixels.height;
    const std::uint64_t per_tile = d.tiles_by_rows ? lp.tiling.tile_rows : lp.tiling.tile_pixels;
    for (std::uint64_t i = 0; i < lp.tiling.tiles; ++i) d.tiles.push_back(gpu::tile_of(total, per_tile, i));
    return d;
}

}  // namespace imghist::ocl
