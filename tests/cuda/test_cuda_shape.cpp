// The CUDA backend's launch decisions (cuda_shape.hpp), on the CPU: they make no CUDA call, so
// these tests run without a GPU. The device is described by DeviceLimits (an H200's numbers) and
// the occupancy calculator by a stand-in.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "backends/cuda/cuda_shape.hpp"

namespace imghist::cuda_detail {
namespace {

constexpr DeviceLimits kH200{132, 227 * 1024};

int two_blocks(KernelFormat, int, unsigned, std::size_t, int, bool) { return 2; }

Shape shape_of(PixelFormat format, const Request& request = {}, const DeviceLimits& device = kH200,
               const Tune& tune = Tune{}) {
    return decide_shape(HistogramPlan(format, request), device, tune, two_blocks);
}

// The bytes of shared memory each counter layout needs for `slots` counters.
std::size_t layout_bytes(int layout, std::size_t slots) {
    return layout == kLanes32 ? slots * 32 * 4 : layout == kLanes16 ? (slots + 1) / 2 * 32 * 4 : slots * 4;
}

TEST(CudaShape, KernelPerSampleTypeAndSamplesPerPixel) {
    for (PixelFormat a : all_pixel_formats)
        for (PixelFormat b : all_pixel_formats) {
            const FormatInfo& fa = format_info(a);
            const FormatInfo& fb = format_info(b);
            EXPECT_EQ(kernel_format(a) == kernel_format(b), fa.sample == fb.sample && fa.channels == fb.channels)
                << fa.name << " " << fb.name;
        }
    EXPECT_EQ(kernel_format(PixelFormat::rgba8), kRgba8);
    EXPECT_EQ(kernel_format(PixelFormat::bgra8), kRgba8);
    EXPECT_EQ(kernel_format(PixelFormat::rgb16), kRgb16);
    EXPECT_EQ(kernel_format(PixelFormat::gray_f32), kGrayF32);
}

// The parameters carry the plan's contract arguments, with each format's sample positions.
TEST(CudaShape, ParametersComeFromThePlan) {
    for (PixelFormat format : all_pixel_formats) {
        const FormatInfo& fi = format_info(format);
        if (fi.packed) continue;  // decoded on the host: no plan, no kernel
        SCOPED_TRACE(std::string(fi.name));
        const HistogramPlan plan(format, Request{});
        const Shape sh = decide_shape(plan, kH200, Tune{}, two_blocks);
        const ih_bin_args want = plan.bin_args();
        EXPECT_EQ(std::memcmp(&sh.params.bin, &want, sizeof want), 0);
        EXPECT_EQ(sh.params.total_slots, plan.total_slots());
        for (std::size_t c = 0; c < plan.sources.size(); ++c) EXPECT_EQ(sh.params.src[c], plan.sources[c]);
        EXPECT_EQ(sh.params.has_luma, plan.has_luma() ? 1u : 0u);
        if (!fi.is_gray()) {
            EXPECT_EQ(sh.params.luma_src[0], std::uint32_t(fi.red));
            EXPECT_EQ(sh.params.luma_src[1], std::uint32_t(fi.green));
            EXPECT_EQ(sh.params.luma_src[2], std::uint32_t(fi.blue));
        }
        EXPECT_EQ(sh.params.value_mode, fi.sample == SampleType::u8 ? 1u : 0u);
        EXPECT_EQ(sh.pixel_bytes, fi.pixel_bytes());
        EXPECT_EQ(sh.grid_cap, 2u * kH200.multiprocessors);
    }
}

// The fastest counter layout that fits the block's shared memory, and never global atomics for
// 8-bit values.
TEST(CudaShape, CounterLayoutIsTheFirstThatFits) {
    for (std::uint32_t bins : {16u, 256u, 1024u, 4096u, 16000u})
        for (std::size_t smem : {std::size_t(227) * 1024, std::size_t(48) * 1024, std::size_t(4) * 1024}) {
            Request r;
            r.bins.bins = bins;
            r.bins.range = {0.0, 1.0};
            const Shape sh = shape_of(PixelFormat::rgba_f32, r, DeviceLimits{132, smem});
            SCOPED_TRACE(std::to_string(bins) + " bins, " + std::to_string(smem) + " bytes");
            const int layout = int(sh.params.layout);
            const std::size_t slots = sh.params.hist_slots;
            EXPECT_EQ(slots, sh.params.total_slots);
            for (int faster = kLanes32; faster < layout; ++faster) EXPECT_GT(layout_bytes(faster, slots), smem);
            if (layout != kGlobal) {
                EXPECT_LE(layout_bytes(layout, slots), smem);
                EXPECT_LE(sh.smem, smem);
            }
        }
    Tune global;
    global.layout = kGlobal;
    EXPECT_EQ(shape_of(PixelFormat::rgba8, {}, kH200, global).params.layout, std::uint32_t(kLanes32));
    EXPECT_EQ(shape_of(PixelFormat::rgba8, {}, DeviceLimits{132, 8 * 1024}).params.layout, std::uint32_t(kCopies));
}

// The packed fast path: 8-bit and fixed-source float plans of gray and 4-sample pixels, with the
// per-slot merge where values are their own bins and a code table only where it fits.
TEST(CudaShape, PackedPathAndItsOptions) {
    EXPECT_TRUE(shape_of(PixelFormat::rgba8).packed);
    EXPECT_TRUE(shape_of(PixelFormat::bgra8).packed);
    EXPECT_TRUE(shape_of(PixelFormat::rgba8).slot_merge);
    EXPECT_FALSE(shape_of(PixelFormat::rgb8).packed);
    EXPECT_FALSE(shape_of(PixelFormat::rgba16).packed);
    Request wide;
    wide.bins.bins = 64;
    EXPECT_FALSE(shape_of(PixelFormat::rgba8, wide).slot_merge);  // values are not bins
    Request rgb;
    rgb.mode = Mode::rgb;
    const Shape f16 = shape_of(PixelFormat::rgba_f16, rgb);
    EXPECT_TRUE(f16.packed);
    EXPECT_TRUE(f16.code_lut);
    EXPECT_EQ(f16.code_lut_grid_cap, 2u * kH200.multiprocessors);
    EXPECT_FALSE(shape_of(PixelFormat::rgba_f16).code_lut);  // luminance: classified
    EXPECT_FALSE(shape_of(PixelFormat::rgba_f16, rgb, DeviceLimits{132, f16.smem}).code_lut);  // no room
    EXPECT_FALSE(shape_of(PixelFormat::bgra8, {}, kH200, [] {
                     Tune t;
                     t.packed = false;
                     return t;
                 }()).packed);
}

// Float edge bins take the code window and the edge keys instead of the whole table where they
// fit: the finest window of at most code_window entries that leaves room for a selection's trash
// row; halves, uniform bins and code_window=0 keep the whole table.
TEST(CudaShape, FloatEdgeBinsTakeTheCodeWindow) {
    Request ev;
    ev.mode = Mode::rgb;
    ev.bins.edges = ev_edges(-8, 0, 32);
    const std::vector<std::uint32_t> keys = HistogramPlan(PixelFormat::rgba_f32, ev).edge_keys;
    const std::size_t key_bytes = (257 + 3) / 4 * 16;
    const Shape f32 = shape_of(PixelFormat::rgba_f32, ev);
    ASSERT_TRUE(f32.code_lut);
    EXPECT_EQ(f32.code_window, float_code_window(keys, 32768));
    EXPECT_EQ(f32.code_window.shift, 12u);
    EXPECT_EQ(f32.code_lut_smem, f32.code_window.entries * 2 + key_bytes);
    EXPECT_LT(f32.code_lut_smem, kCodeLutBytes / 2);
    Tune whole;
    whole.code_window = 0;
    const Shape no_window = shape_of(PixelFormat::rgba_f32, ev, kH200, whole);
    EXPECT_EQ(no_window.code_window.entries, 0u);
    EXPECT_EQ(no_window.code_lut_smem, kCodeLutBytes);
    // No room for the whole table, room for the window and the trash row
    const std::size_t exact = f32.smem + f32.code_lut_smem + kTrashRowBytes;
    EXPECT_EQ(shape_of(PixelFormat::rgba_f32, ev, DeviceLimits{132, exact}).code_window, f32.code_window);
    EXPECT_FALSE(shape_of(PixelFormat::rgba_f32, ev, DeviceLimits{132, exact}, whole).code_lut);
    // Less room: the next coarser window, which fits
    const Shape tight = shape_of(PixelFormat::rgba_f32, ev, DeviceLimits{132, exact - 16});
    ASSERT_TRUE(tight.code_lut);
    EXPECT_EQ(tight.code_window, float_code_window(keys, f32.code_window.entries - 8));
    EXPECT_EQ(tight.code_window.shift, 13u);
    EXPECT_LE(tight.smem + tight.code_lut_smem + kTrashRowBytes, exact - 16);
    // Five channels (R,G,B,A,Y): a window that fits beside their counters
    Request five = ev;
    five.mode = Mode::all;
    five.count_alpha = true;
    const Shape wide = shape_of(PixelFormat::rgba_f32, five);
    ASSERT_TRUE(wide.code_lut);
    EXPECT_NE(wide.code_window.entries, 0u);
    EXPECT_LE(wide.smem + wide.code_lut_smem + kTrashRowBytes, kH200.dynamic_smem);
    EXPECT_EQ(shape_of(PixelFormat::rgba_f16, ev).code_window.entries, 0u);  // halves: the whole table is exact
    Request rgb;
    rgb.mode = Mode::rgb;
    EXPECT_EQ(shape_of(PixelFormat::rgba_f32, rgb).code_window.entries, 0u);
    EXPECT_EQ(shape_of(PixelFormat::rgba_f32, rgb).code_lut_smem, kCodeLutBytes);
}

// Float luminance takes the code table only in float edge bins with the window: its bits are
// looked up like a sample's. Uniform bins, halves and code_window=0 compute its bin.
TEST(CudaShape, FloatLuminanceInEdgeBinsTakesTheCodeWindow) {
    for (const Mode mode : {Mode::luma, Mode::all}) {
        SCOPED_TRACE(int(mode));
        Request ev;
        ev.mode = mode;
        ev.bins.edges = ev_edges(-8, 0, 32);
        const std::size_t key_bytes = (257 + 3) / 4 * 16;
        const Shape f32 = shape_of(PixelFormat::rgba_f32, ev);
        ASSERT_TRUE(f32.code_lut);
        EXPECT_EQ(f32.code_window, float_code_window(HistogramPlan(PixelFormat::rgba_f32, ev).edge_keys, 32768));
        EXPECT_EQ(f32.code_lut_smem, f32.code_window.entries * 2 + key_bytes);
        Tune whole;
        whole.code_window = 0;
        EXPECT_FALSE(shape_of(PixelFormat::rgba_f32, ev, kH200, whole).code_lut);
        EXPECT_FALSE(shape_of(PixelFormat::rgba_f16, ev).code_lut);
        // Room for the keys but for no window beside the counters
        EXPECT_FALSE(
            shape_of(PixelFormat::rgba_f32, ev, DeviceLimits{132, f32.smem + key_bytes + kTrashRowBytes + 64}).code_lut);
        Request uniform;
        uniform.mode = mode;
        EXPECT_FALSE(shape_of(PixelFormat::rgba_f32, uniform).code_lut);
    }
}

TEST(CudaShape, DescriptorsCoverEveryPixel) {
    const Shape sh = shape_of(PixelFormat::rgba8);
    const auto* aligned = reinterpret_cast<const unsigned char*>(std::uintptr_t(1) << 20);
    const Piece packed{aligned, 1920 * 1080 * 4, 1920 * 1080, 1, 0};
    const ImageDesc d = describe(sh, packed, false);
    EXPECT_EQ(d.scalar, 0u);
    EXPECT_EQ(d.rows_per_tile, 1u);
    EXPECT_EQ(d.units_per_row, 1920u * 1080 / sh.pixels_per_group);
    EXPECT_GE(std::uint64_t(d.segs) * sh.block * sh.params.gpt, d.units_per_row);
    EXPECT_EQ(d.tiles, d.segs);
    // Rows that are not aligned to whole samples of 4 bytes are read bytewise.
    const Piece odd{aligned + 2, 1000 * 4 + 2, 1000, 50, 0};
    const ImageDesc o = describe(sh, odd, false);
    EXPECT_EQ(o.scalar, 1u);
    EXPECT_GE(std::uint64_t(o.tiles) * o.rows_per_tile, odd.rows);
    EXPECT_EQ(describe(sh, packed, true).scalar, 1u);
    EXPECT_TRUE(takes_packed(sh, packed));
    EXPECT_FALSE(takes_packed(sh, odd));

    Shape psh = sh;
    const unsigned grid = decide_packed(psh, packed, false, Tune{});
    EXPECT_GE(grid, 1u);
    EXPECT_LE(grid, sh.packed_grid_cap);
    EXPECT_EQ(psh.params.total_tiles, grid);
    EXPECT_EQ(psh.params.slot_merge, 1u);
    EXPECT_EQ(psh.params.img[0].row_px, packed.row_px);
}

}  // namespace
}  // namespace imghist::cuda_detail
