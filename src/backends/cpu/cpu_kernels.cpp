// The table kernels' instantiations, and the choice among them.
#include <array>

#include "backends/cpu/cpu_kernel.hpp"
#include "imghist/error.hpp"

namespace imghist::cpu {
namespace {

template <class L, class Map, class YMap, std::uint32_t P>
void run_kernel(Counters& k, const Context& ctx, const ImageView& image, std::uint64_t begin,
                std::uint64_t end) {
    const HistogramPlan& plan = *ctx.plan;
    const Tables& tb = *ctx.tables;
    Map map{};
    YMap ymap{};
    if constexpr (std::is_same_v<Map, LutMap> || std::is_base_of_v<Top16Map, Map>) map.lut = tb.sample_lut.data();
    if constexpr (std::is_base_of_v<Top16Map, Map>) map.sub = tb.float_sub.data();
    if constexpr (std::is_same_v<Map, Lut16Map>) map.lut = tb.sample_lut16.data();
    if constexpr (std::is_same_v<Map, UniformF32Map>) map.bins = tb.vector_bins;
    if constexpr (std::is_same_v<Map, ShiftMap>) map.shift = plan.shift;
    if constexpr (std::is_same_v<Map, ShiftExtremeMap>) map = tb.shift_extremes;
    if (P != 0 && k.pitch != P) throw Error("internal error: cpu kernel table pitch mismatch");
    if constexpr (std::is_base_of_v<Top16Map, YMap>) {
        ymap.lut = tb.sample == SampleType::f16 ? tb.float_lut.data() : tb.sample_lut.data();
        ymap.sub = tb.float_sub.data();
    }
    else ymap = YMap(map);
    const auto set_window = [&tb](WindowMap& m) {
        m.window = tb.float_window.data();
        m.keys = tb.window_keys.data();
        m.shift = tb.window.shift;
        m.first = tb.window.first;
        m.entries = tb.window.entries;
    };
    if constexpr (std::is_same_v<Map, WindowMap>) set_window(map);
    if constexpr (std::is_same_v<YMap, WindowMap>) set_window(ymap);
    Kernel<L, Map, YMap, P> kernel(k, map, ymap, plan, tb.half_values.data());
    kernel.run(image, begin, end);
}

// Picks the kernel for the channels the plan asks for (R, G, B; alpha; luminance).
template <typename T, int CPP, class Order, class Map, class YMap, std::uint32_t P>
KernelFn pick_channels(const ChannelSet& cs) {
    if constexpr (CPP == 1) {
        return &run_kernel<Layout<T, 1, Order, false, false, false>, Map, YMap, P>;
    } else {
#define IMGHIST_PICK(R, A, Y)                                            \
    if (cs.rgb == R && cs.alpha == A && cs.luma == Y)                    \
        return &run_kernel<Layout<T, CPP, Order, R, A, Y>, Map, YMap, P>;
        IMGHIST_PICK(true, false, false)
        IMGHIST_PICK(false, false, true)
        IMGHIST_PICK(true, false, true)
        if constexpr (CPP == 4) {
            IMGHIST_PICK(true, true, false)
            IMGHIST_PICK(false, true, true)
            IMGHIST_PICK(true, true, true)
        }
#undef IMGHIST_PICK
        return nullptr;
    }
}

// The first of the colour orders that matches the format's, or null.
template <typename T, int CPP, class Map, class YMap, std::uint32_t P, class... Orders>
KernelFn pick_order(const FormatInfo& fi, const ChannelSet& cs) {
    KernelFn f = nullptr;
    ((f = f == nullptr && Orders::matches(fi) ? pick_channels<T, CPP, Orders, Map, YMap, P>(cs) : f), ...);
    return f;
}

// The colour orders the kernels are compiled for: R, G, B (then alpha); for 8-bit samples also
// B, G, R (then alpha). Other formats take the direct path.
template <typename T, class Map, class YMap, std::uint32_t P = 0>
KernelFn pick_format(const FormatInfo& fi, const ChannelSet& cs) {
    constexpr bool kReversed = sizeof(T) == 1;  // worth the code size only where it is used
    switch (fi.channels) {
        case 1: return pick_order<T, 1, Map, YMap, P, ColourOrder<0, 0, 0, -1>>(fi, cs);
        case 3:
            if constexpr (kReversed)
                return pick_order<T, 3, Map, YMap, P, ColourOrder<0, 1, 2, -1>, ColourOrder<2, 1, 0, -1>>(fi, cs);
            return pick_order<T, 3, Map, YMap, P, ColourOrder<0, 1, 2, -1>>(fi, cs);
        case 4:
            if constexpr (kReversed)
                return pick_order<T, 4, Map, YMap, P, ColourOrder<0, 1, 2, 3>, ColourOrder<2, 1, 0, 3>>(fi, cs);
            return pick_order<T, 4, Map, YMap, P, ColourOrder<0, 1, 2, 3>>(fi, cs);
        default: return nullptr;
    }
}

}  // namespace

ChannelSet channel_set(const HistogramPlan& plan) {
    ChannelSet cs;
    const FormatInfo& fi = plan.info;
    const auto& src = plan.sources;
    if (fi.channels == 1) {
        cs.ok = src.size() == 1 && src[0] == 0;
        return cs;
    }
    std::size_t i = 0;
    if (i + 3 <= src.size() && src[i] == fi.red && src[i + 1] == fi.green && src[i + 2] == fi.blue) {
        cs.rgb = true;
        i += 3;
    }
    if (i < src.size() && fi.alpha >= 0 && src[i] == fi.alpha) {
        cs.alpha = true;
        ++i;
    }
    if (i < src.size() && src[i] == kLumaSource) {
        cs.luma = true;
        ++i;
    }
    cs.ok = i == src.size() && (cs.rgb || cs.alpha || cs.luma);
    return cs;
}

namespace {

// Kernels by sample type and map. `small`: the layout fits kSmallPitch (Counters picks it),
// whose kernels address the tables at constant displacements.
// 8-bit plans reach the kernels as raw values only (cpu_backend.cpp, values_plan, moves them to
// their bins afterwards); any other plan takes the direct path.
KernelFn pick_u8(const HistogramPlan& plan, const Tables& tb, const ChannelSet& cs, const ImageView& image) {
    if (tb.extremes || plan.int_mode != IH_INT_SHIFT || plan.shift != 0) return nullptr;
    // Luminance alone is counted in its own order (fused_luma, group_luma): neighbours_repeat
    // compares only sample channels, and is false without one.
    if (neighbours_repeat(image, plan))
        return pick_format<std::uint8_t, IdentityApartMap, IdentityMap, kSmallPitch>(plan.info, cs);
    return pick_format<std::uint8_t, IdentityMap, IdentityMap, kSmallPitch>(plan.info, cs);
}

KernelFn pick_u16(const HistogramPlan& plan, const Tables& tb, const ChannelSet& cs, bool small) {
    const FormatInfo& fi = plan.info;
    if (plan.int_mode == IH_INT_SHIFT) {
        if (tb.extremes && small)
            return pick_format<std::uint16_t, ShiftExtremeMap, ShiftExtremeMap, kSmallPitch>(fi, cs);
        if (tb.extremes) return pick_format<std::uint16_t, ShiftExtremeMap, ShiftExtremeMap>(fi, cs);
        if (small) return pick_format<std::uint16_t, ShiftMap, ShiftMap, kSmallPitch>(fi, cs);
        return pick_format<std::uint16_t, ShiftMap, ShiftMap>(fi, cs);
    }
    if (tb.sample_lut.empty()) return nullptr;  // small image: the direct path
    if (!tb.sample_lut16.empty()) return pick_format<std::uint16_t, Lut16Map, Lut16Map>(fi, cs);
    return pick_format<std::uint16_t, LutMap, LutMap>(fi, cs);
}

// Second-level tables that a few blocks need (the default bins': those of 0 and 1, and the
// values past 1); more than this, and samples often need them.
constexpr std::size_t kFewSubTables = 16;

KernelFn pick_float(const HistogramPlan& plan, const Tables& tb, const ChannelSet& cs, bool small) {
    const FormatInfo& fi = plan.info;
    if (tb.sample_lut.empty()) return nullptr;  // small image: the direct path
    if (fi.sample == SampleType::f16) {
        if (cs.luma && tb.float_lut.empty()) return nullptr;
        if (!tb.sample_lut16.empty()) {
            // Luminance of halves in edge bins with a code window (f32 below says why).
            if (cs.luma && !tb.float_window.empty()) {
                if (small) return pick_format<std::uint16_t, Lut16Map, WindowMap, kSmallPitch>(fi, cs);
                return pick_format<std::uint16_t, Lut16Map, WindowMap>(fi, cs);
            }
            if (small) return pick_format<std::uint16_t, Lut16Map, Top16Map, kSmallPitch>(fi, cs);
            return pick_format<std::uint16_t, Lut16Map, Top16Map>(fi, cs);
        }
        return pick_format<std::uint16_t, LutMap, Top16Map>(fi, cs);  // the widest layouts, never small
    }
    // Uniform bins whose edges fall inside many float blocks (a bin count that is no power of
    // two: 100 or 1000 over [0, 1)) are coded in SIMD per block: the tables would take two
    // dependent reads for most samples, the second in 0.5 MB of second-level tables. The
    // default bins have a few such blocks only (those of 0 and 1), and keep the one-read table.
    const bool many_subs = tb.float_sub.size() / kSubEntries > kFewSubTables;
    const bool vector = tb.vector_bins.key_span != 0 && many_subs && isa() >= Isa::avx2;
    if (small && vector) return pick_format<std::uint32_t, UniformF32Map, Top16Map, kSmallPitch>(fi, cs);
    // Edge bins with a code window: samples and luminance read it.
    if (!tb.float_window.empty()) {
        if (small) return pick_format<std::uint32_t, WindowMap, WindowMap, kSmallPitch>(fi, cs);
        return pick_format<std::uint32_t, WindowMap, WindowMap>(fi, cs);
    }
    // Edge bins within the small pitch whose edges fall inside many blocks (256 EV bins: a
    // quarter of the blocks of [2^-8, 1)): the second level inline, as above the small pitch.
    if (small && many_subs) return pick_format<std::uint32_t, Top16TwoLevelMap, Top16Map, kSmallPitch>(fi, cs);
    if (small) return pick_format<std::uint32_t, Top16Map, Top16Map, kSmallPitch>(fi, cs);
    if (vector) return pick_format<std::uint32_t, UniformF32Map, Top16Map>(fi, cs);
    // Layouts too wide for the small pitch hold more than 256 bins: blocks of 65536 floats then
    // hold edges wherever a bin is narrower than the block (1000 bins over [0, 1): all of
    // [2^-10, 1)), and most samples need the second level.
    if (!tb.float_sub.empty()) return pick_format<std::uint32_t, Top16TwoLevelMap, Top16Map>(fi, cs);
    return pick_format<std::uint32_t, Top16Map, Top16Map>(fi, cs);
}

}  // namespace

bool neighbours_repeat(const ImageView& image, const HistogramPlan& plan) {
    const FormatInfo& fi = plan.info;
    const std::size_t pixel_bytes = fi.pixel_bytes();
    // The samples compared: those the plan counts (luminance alone has one order: pick_u8).
    std::array<std::size_t, 4> samples{};
    std::size_t count = 0;
    for (const int source : plan.sources)
        if (source != kLumaSource && count < samples.size()) samples[count++] = std::size_t(source);
    if (count == 0 || image.width < 2) return false;
    // Stretches of kPixels pixels: 8-bit 256 x 256 calls (44-45 us) took 2.0-2.7 us more with
    // stretches of 128, 0-1.8 with 64.
    constexpr std::uint32_t kRows = 16, kPixels = 64;
    const std::uint32_t rows = std::min(image.height, kRows);
    const std::uint32_t pixels = std::min(image.width, kPixels);
    std::uint64_t equal = 0, compared = 0;
    for (std::uint32_t j = 0; j < rows; ++j) {
        // Rows spread over the image, stretches spread along them.
        const std::uint32_t y = std::uint32_t(std::uint64_t(image.height) * j / rows);
        const std::uint32_t x = std::uint32_t(std::uint64_t(image.width - pixels) * j / std::max(1u, rows - 1));
        const std::byte* p = image.row(y) + std::size_t(x) * pixel_bytes;
        for (std::uint32_t i = 1; i < pixels; ++i, p += pixel_bytes)
            for (std::size_t k = 0; k < count; ++k) equal += p[samples[k]] == p[samples[k] + pixel_bytes];
        compared += std::uint64_t(pixels - 1) * count;
    }
    // Four times chance: random data stays far below (about 1 in 256), while the smoothest
    // photo measured repeats 6 % of its neighbours and most 12-54 %.
    return equal * 64 > compared;
}

KernelFn pick_kernel(const HistogramPlan& plan, const Tables& tb, const ChannelSet& cs, const ImageView& image) {
    const bool small = tb.slots.width() + 16u <= kSmallPitch;
    switch (plan.info.sample) {
        case SampleType::u8: return pick_u8(plan, tb, cs, image);
        case SampleType::u16: return pick_u16(plan, tb, cs, small);
        case SampleType::f16:
        case SampleType::f32: return pick_float(plan, tb, cs, small);
    }
    return nullptr;
}

}  // namespace imghist::cpu
