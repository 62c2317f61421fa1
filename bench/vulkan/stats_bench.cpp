// imghist_vulkan_stats_bench: GPU time of the sample statistics of device images
// (sample_stats.comp: the first pass, and for float channels the second) next to the histogram
// alone on the same image (the backend's recorded work), with GPU timestamps as
// imghist_vulkan_bench takes them (median of 15 back-to-back runs after a warm-up).
//
// Usage: imghist_vulkan_stats_bench [--quick]   (--quick: 1080p, for a CPU device such as lavapipe;
// otherwise 8K). The percentiles are the default ones (p1, p50, p99), with the min and the max.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "backends/vulkan/vk_sample_stats.hpp"
#include "bench_device.hpp"
#include "bench_images.hpp"
#include "contract/exact_sum.h"
#include "core/plan.hpp"

namespace imghist {
namespace {

using vkbench::Bench;
using vkbench::HostImage;

// A buffer of `words` uint64, device-local (timed) or host-visible (read back).
vk::Allocation counters_buffer(Bench& bench, std::size_t words, bool host_visible) {
    vk::Context& ctx = bench.ctx();
    return vk::allocate_buffer(ctx.physical(), ctx.device(), VkDeviceSize(words) * 8,
                               VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, host_visible);
}

// Zeroes `words` counters of `counters`, then records `pass` into them.
void zero_then(VkCommandBuffer cmd, VkBuffer counters, std::size_t words, const std::function<void()>& pass) {
    vkCmdFillBuffer(cmd, counters, 0, VkDeviceSize(words) * 8, 0);
    vk::barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    pass();
}

// The float channels' selections of the default percentiles, from a first pass read back.
std::vector<RankSelection> selections_of(Bench& bench, vk::SampleStatsCore& stats, const HostImage& img,
                                         const HistogramPlan& plan) {
    const std::size_t words = plan.channels.size() * IH_STATS_SLOTS;
    vk::Allocation host = counters_buffer(bench, words, true);
    bench.time([&](VkCommandBuffer cmd) {
        zero_then(cmd, host.buffer.get(), words,
                  [&] { stats.record_sums(cmd, bench.arena(), bench.device_pixels(img), plan, {}, host.buffer.get(), words); });
    }, 1);
    const auto* slots = static_cast<const std::uint64_t*>(host.mapped);
    std::vector<RankSelection> selections(plan.channels.size());
    for (std::size_t c = 0; c < selections.size(); ++c) {
        if (sample_kind_of(plan, plan.sources[c]) != SampleKind::float_values) continue;
        const FloatSums sums = float_sums_of_slots(slots + c * IH_STATS_SLOTS);
        selections[c] = select_ranks(moments_of_sums(sums).moments.count, sums.top, default_percentiles());
    }
    return selections;
}

void run(Bench& bench, PixelFormat format, std::uint32_t w, std::uint32_t h) {
    const HostImage img = vkbench::generate(std::string(format_info(format).name), format, w, h, vkbench::Pattern::natural);
    bench.upload(img);
    vk::HistogramCore& core = bench.ctx().core();
    vk::SampleStatsCore stats(core);
    const HistogramPlan plan(format, Request{});
    const DeviceImage src = bench.device_pixels(img);
    const double hist = bench.time_backend(core, img, plan, nullptr);
    const std::size_t words = plan.channels.size() * IH_STATS_SLOTS;
    vk::Allocation sums = counters_buffer(bench, words, false);
    const double first = bench.time([&](VkCommandBuffer cmd) {
        zero_then(cmd, sums.buffer.get(), words,
                  [&] { stats.record_sums(cmd, bench.arena(), src, plan, {}, sums.buffer.get(), words); });
    });
    double second = 0;
    const std::vector<RankSelection> selections = selections_of(bench, stats, img, plan);
    const std::vector<std::uint32_t> targets = vk::target_words(selections);
    const std::size_t low_words = std::size_t(targets.size() - 6) * 65536;
    if (low_words > 0) {
        vk::Allocation target_buffer = counters_buffer(bench, targets.size(), true);
        std::memcpy(target_buffer.mapped, targets.data(), targets.size() * 4);
        vk::Allocation lows = counters_buffer(bench, low_words, false);
        second = bench.time([&](VkCommandBuffer cmd) {
            zero_then(cmd, lows.buffer.get(), low_words, [&] {
                stats.record_lows(cmd, bench.arena(), src, plan, {}, target_buffer.buffer.get(), lows.buffer.get(),
                                  low_words);
            });
        });
    }
    std::printf("| %s %ux%u | %zu | %.0f | %.0f | %.0f | %.2f |\n", img.label.c_str(), w, h, plan.channels.size(), hist,
                first, second, (hist + first + second) / hist);
}

}  // namespace
}  // namespace imghist

int main(int argc, char** argv) {
    using namespace imghist;
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    const std::uint32_t w = quick ? 1920 : 7680, h = quick ? 1080 : 4320;
    vkbench::Bench bench;
    std::printf("device: %s\n", bench.ctx().name().c_str());
    std::printf("| image | channels | histogram µs | statistics, first pass µs | second pass µs | (all) / histogram |\n");
    std::printf("| --- | --- | --- | --- | --- | --- |\n");
    for (PixelFormat f : {PixelFormat::rgba8, PixelFormat::gray16, PixelFormat::rgba16, PixelFormat::rgba_f16,
                          PixelFormat::rgba_f32, PixelFormat::gray_f32})
        run(bench, f, w, h);
    return 0;
}
