// The vulkan backend without a device: its decisions (vk_launch.hpp; made-up limits and tunings
// in, the launch plan out, checked against what the plan and the contract say it must be) and
// its error messages.
#include <gtest/gtest.h>

#include "backends/vulkan/vk_launch.hpp"
#include "backends/vulkan/vk_util.hpp"
#include "imghist/error.hpp"

namespace imghist {
namespace {

// NVIDIA-like limits: 48 KiB of shared memory, 1024 invocations.
vk::DeviceLimits nvidia_like() {
    vk::DeviceLimits l;
    l.shared_bytes = 48 * 1024;
    l.max_invocations = 1024;
    l.max_groups_x = 65535;
    l.max_groups_y = 65535;
    l.offset_alignment = 16;
    l.max_range = 0xFFFFFFFFu;
    return l;
}

DeviceImage packed(std::uint32_t w, std::uint32_t h, PixelFormat f) { return {1, 0, w, h, 0, f}; }

TEST(VulkanLaunchPlan, OnePassPerImageWhenTheChannelsFit) {
    HistogramPlan plan(PixelFormat::bgra8, Request{});  // R, G, B, Y
    const vk::LaunchPlan l = vk::plan_launch(plan, packed(640, 480, plan.format), 0, nvidia_like(), vk::Tuning{});
    EXPECT_TRUE(l.shape.value_mode);
    EXPECT_FALSE(l.shape.strided);
    ASSERT_EQ(l.passes.size(), 1u);
    const vk::PassLaunch& p = l.passes[0];
    EXPECT_EQ(p.spec.channels, plan.channels.size());
    // The constants are the pass's ih_bin_args: sources, colour positions, bin math.
    const ih_bin_args want = plan.bin_args();
    for (std::uint32_t c = 0; c < want.channels; ++c) EXPECT_EQ(p.spec.sources[c], ih_args_source(want, c));
    EXPECT_EQ(p.spec.red, ih_format_red(IH_FMT_BGRA8));
    EXPECT_EQ(p.spec.blue, ih_format_blue(IH_FMT_BGRA8));
    EXPECT_EQ(p.spec.has_luma, 1u);
    EXPECT_EQ(p.spec.bins, want.bins);
    EXPECT_EQ(p.bin.lo_key, want.lo_key);
    EXPECT_EQ(l.total_slots, plan.total_slots());
    ASSERT_EQ(l.tiles.size(), 1u);
    EXPECT_EQ(l.tiles[0].pixels, 640u * 480u);
}

TEST(VulkanLaunchPlan, ChannelsThatDoNotFitSplitIntoPasses) {
    Request r;
    r.bins.bins = 4096;
    r.bins.range = {{0, 65536}};
    r.count_alpha = true;
    HistogramPlan plan(PixelFormat::rgba16, r);  // 5 channels of 4099 slots: 80 KiB with one copy
    vk::Tuning t;
    t.max_copies = 4;
    const vk::LaunchPlan l = vk::plan_launch(plan, packed(100, 10, plan.format), 0, nvidia_like(), t);
    ASSERT_GT(l.passes.size(), 1u);
    std::uint32_t counted = 0;
    for (const vk::PassLaunch& p : l.passes) {
        EXPECT_EQ(p.out_slot, counted * plan.slots_per_channel());
        EXPECT_EQ(p.bin.channels, p.spec.channels);
        counted += p.spec.channels;
    }
    EXPECT_EQ(counted, plan.channels.size());
    EXPECT_EQ(l.shape.copies, 1u);  // two copies of 2 x 4099 slots do not fit 48 KiB
}

TEST(VulkanLaunchPlan, TilesCoverTheImageOnce) {
    HistogramPlan plan(PixelFormat::rgb8, Request{});
    vk::Tuning t;
    t.max_tile_pixels = 4096;
    // Strided rows (a padded pitch) at an odd offset: whole rows per tile.
    const DeviceImage strided{1, 3, 1000, 301, 3008, plan.format};
    const vk::LaunchPlan s = vk::plan_launch(plan, strided, 8, nvidia_like(), t);
    EXPECT_TRUE(s.shape.strided);
    std::uint64_t pixels = 0;
    for (const vk::TileLaunch& tile : s.tiles) {
        EXPECT_EQ(tile.bind_offset % 16, 0u);
        EXPECT_EQ(tile.pixels % 1000, 0u);
        pixels += tile.pixels;
    }
    EXPECT_EQ(pixels, 1000u * 301u);
    EXPECT_EQ(s.first_total, 1u);  // totals at byte 8, bound from 0
    const vk::LaunchPlan p = vk::plan_launch(plan, packed(1000, 301, plan.format), 0, nvidia_like(), t);
    EXPECT_EQ(p.tiles.size(), (1000u * 301u + 4095) / 4096);
    EXPECT_EQ(p.tiles.front().base_byte, 0u);
}

// A device selection: every pass tests it, the first counts the selected pixels into work
// counter 0 before the plan's; a packed mask from a 16-byte offset keeps the packed path (its
// tiles' mask bytes bound from 16-byte boundaries), any other mask takes strided rows, whose
// tiles the mask's rows also fit.
TEST(VulkanLaunchPlan, SelectionsBindTheMaskBesideEveryTile) {
    HistogramPlan plan(PixelFormat::rgba_f32, Request{});  // R, G, B, Y
    vk::DeviceLimits limits = nvidia_like();
    limits.shared_bytes = 4 * 1024;  // 4 channels of 259 slots do not fit one pass
    vk::Tuning t;
    t.max_tile_pixels = 4096;
    const DeviceImage image = packed(1000, 301, plan.format);
    const DeviceImage packed_mask{2, 32, 1000, 301, 0, PixelFormat::gray8};
    const vk::Selection selection{&packed_mask, alpha_test_of(0.5, SampleType::f32)};
    const vk::LaunchPlan plain = vk::plan_launch(plan, image, 0, limits, t);
    const vk::LaunchPlan l = vk::plan_launch(plan, image, 0, limits, t, &selection);
    ASSERT_GT(l.passes.size(), 1u);
    EXPECT_TRUE(l.counts_selected);
    EXPECT_EQ(l.total_slots, plain.total_slots + 1);
    EXPECT_FALSE(l.shape.strided);
    for (std::size_t i = 0; i < l.passes.size(); ++i) {
        EXPECT_EQ(l.passes[i].out_slot, plain.passes[i].out_slot + 1);
        EXPECT_EQ(l.passes[i].spec.select_mask, 1u);
        EXPECT_EQ(l.passes[i].spec.alpha_kind, IH_ALPHA_KEY);
        EXPECT_EQ(l.passes[i].spec.alpha_sample, 3u);
        EXPECT_EQ(l.passes[i].spec.count_selected, i == 0 ? 1u : 0u);
    }
    ASSERT_EQ(l.tiles.size(), plain.tiles.size());
    std::uint64_t first = 0;
    for (const vk::TileLaunch& tile : l.tiles) {
        EXPECT_EQ(tile.mask.base_byte % 16, 0u);
        EXPECT_EQ(tile.mask.bind_offset + tile.mask.base_byte, 32 + first);
        EXPECT_GE(tile.mask.bind_bytes, tile.mask.base_byte + tile.pixels);
        first += tile.pixels;
    }
    // A pitched mask, or one at an odd offset: strided rows, the mask's own rows bound.
    for (const DeviceImage mask : {DeviceImage{2, 32, 1000, 301, 1024, PixelFormat::gray8},
                                   DeviceImage{2, 3, 1000, 301, 0, PixelFormat::gray8}}) {
        const vk::Selection s{&mask, {}};
        const vk::LaunchPlan strided = vk::plan_launch(plan, image, 0, limits, t, &s);
        EXPECT_TRUE(strided.shape.strided);
        std::uint64_t row = 0;
        for (const vk::TileLaunch& tile : strided.tiles) {
            EXPECT_EQ(tile.pixels % 1000, 0u);
            EXPECT_EQ(tile.mask.bind_offset + tile.mask.base_byte, mask.offset_bytes + row * mask.pitch());
            EXPECT_GE(tile.mask.bind_bytes, tile.mask.base_byte + (tile.pixels / 1000 - 1) * mask.pitch() + 1000);
            EXPECT_EQ(strided.passes.front().spec.strided, 1u);
            EXPECT_EQ(strided.passes.front().spec.alpha_kind, IH_ALPHA_ALL);
            row += tile.pixels / 1000;
        }
        EXPECT_EQ(row, 301u);
    }
}

TEST(VulkanLaunchPlan, LayoutsFallBackWhereTheyDoNotFit) {
    Request rgb;
    rgb.mode = Mode::rgb;
    HistogramPlan plan(PixelFormat::rgba8, rgb);
    vk::Tuning t;
    t.layout = vk::SharedLayout::pairs;
    EXPECT_EQ(vk::decide_shape(plan, packed(64, 64, plan.format), nvidia_like(), t).layout, vk::SharedLayout::pairs);
    vk::DeviceLimits small = nvidia_like();
    small.shared_bytes = 16 * 1024;  // three channels of 256 values x 16 pairs need 48 KiB
    EXPECT_EQ(vk::decide_shape(plan, packed(64, 64, plan.format), small, t).layout, vk::SharedLayout::copies);
}

// Edge bins copy their keys, and float edge bins the code window, into shared memory where
// they fit beside the counters; the specialization constants say so.
TEST(VulkanLaunchPlan, FloatEdgeBinsKeepTheCodeWindowWhereItFits) {
    Request ev;
    ev.mode = Mode::rgb;
    ev.bins.edges = ev_edges(-8, 0, 32);
    const HistogramPlan f32(PixelFormat::rgba_f32, ev);
    const auto shape_of = [](const HistogramPlan& plan, const vk::DeviceLimits& limits, const vk::Tuning& t) {
        return vk::decide_shape(plan, packed(64, 64, plan.format), limits, t);
    };
    const vk::Shape s = shape_of(f32, nvidia_like(), vk::Tuning{});
    EXPECT_TRUE(s.shared_keys);
    EXPECT_EQ(s.code_window, float_code_window(f32.edge_keys, vk::Tuning{}.code_window));
    EXPECT_EQ(s.code_window.shift, 14u);
    const vk::LaunchPlan l = vk::plan_launch(f32, packed(64, 64, f32.format), 0, nvidia_like(), vk::Tuning{});
    for (const vk::PassLaunch& p : l.passes) {
        EXPECT_EQ(p.spec.window_words * 2, s.code_window.entries);
        EXPECT_EQ(p.spec.window_shift, 14u);
        EXPECT_EQ(p.spec.shared_keys, 1u);
    }
    vk::Tuning none;
    none.code_window = 0;
    EXPECT_EQ(shape_of(f32, nvidia_like(), none).code_window.entries, 0u);
    EXPECT_TRUE(shape_of(f32, nvidia_like(), none).shared_keys);
    // 8 KiB: the counters and the keys fit, the window does not
    vk::DeviceLimits small = nvidia_like();
    small.shared_bytes = 8 * 1024;
    EXPECT_EQ(shape_of(f32, small, vk::Tuning{}).code_window.entries, 0u);
    EXPECT_TRUE(shape_of(f32, small, vk::Tuning{}).shared_keys);
    // integers: keys only; uniform bins: neither
    Request int_edges;
    int_edges.bins.edges = {0, 100, 1000, 65536};
    const vk::Shape u16 = shape_of(HistogramPlan(PixelFormat::rgba16, int_edges), nvidia_like(), vk::Tuning{});
    EXPECT_TRUE(u16.shared_keys);
    EXPECT_EQ(u16.code_window.entries, 0u);
    const vk::Shape uniform = shape_of(HistogramPlan(PixelFormat::rgba_f32, Request{}), nvidia_like(), vk::Tuning{});
    EXPECT_FALSE(uniform.shared_keys);
    EXPECT_EQ(uniform.code_window.entries, 0u);
}

TEST(VulkanLaunchPlan, RejectsWhatTheDeviceCannotCount) {
    Request r;
    r.bins.bins = vk::max_bins(nvidia_like()) + 1;
    HistogramPlan plan(PixelFormat::gray16, r);
    EXPECT_THROW(vk::plan_launch(plan, packed(8, 8, plan.format), 0, nvidia_like(), vk::Tuning{}), InvalidArgument);
    HistogramPlan ok(PixelFormat::gray16, Request{});
    EXPECT_THROW(vk::plan_launch(ok, packed(8, 8, ok.format), 4, nvidia_like(), vk::Tuning{}), InvalidArgument);
}

TEST(VulkanErrors, NameTheCallAndTheResult) {
    try {
        vk::check(VK_ERROR_DEVICE_LOST, "vkQueueSubmit");
        ADD_FAILURE() << "expected DeviceError";
    } catch (const DeviceError& e) {
        EXPECT_NE(std::string(e.what()).find("vkQueueSubmit"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("VK_ERROR_DEVICE_LOST"), std::string::npos);
    }
    EXPECT_NO_THROW(vk::check(VK_SUCCESS, "vkCreateBuffer"));
}

}  // namespace
}  // namespace imghist
