#include "gpu/launch_plan.hpp"

#include <algorithm>

namespace imghist::gpu {

std::string_view name(CounterLayout layout) {
    switch (layout) {
        case CounterLayout::global: return "global";
        case CounterLayout::copies: return "copies";
        case CounterLayout::packed_copies: return "packed-copies";
        case CounterLayout::lanes32: return "lanes32";
        case CounterLayout::lanes16: return "lanes16";
        case CounterLayout::lane_pairs: return "lane-pairs";
    }
    return "?";
}

unsigned channels_per_pass(unsigned channels, unsigned fit, PassSplit rule) {
    return rule == PassSplit::balance ? unsigned(ceil_div(channels, ceil_div(channels, fit))) : fit;
}

std::vector<ChannelPass> split_channel_passes(unsigned channels, unsigned fit, PassSplit rule) {
    const unsigned per = channels_per_pass(channels, fit, rule);
    std::vector<ChannelPass> passes;
    for (unsigned first = 0; first < channels; first += per) passes.push_back({first, std::min(per, channels - first)});
    return passes;
}

std::string describe(const LaunchDescription& plan) {
    std::string s = plan.backend + " " + std::to_string(plan.width) + "x" + std::to_string(plan.height) + ": " +
                    std::to_string(plan.passes.size()) + " pass(es), " + std::to_string(plan.tiles.size()) +
                    " tile(s) by " + (plan.tiles_by_rows ? "rows" : "pixels") + ", local limit " +
                    std::to_string(plan.local_limit) + " B\n";
    for (const PassDescription& p : plan.passes)
        s += "  channels " + std::to_string(p.channels.first) + "+" + std::to_string(p.channels.count) + " " +
             p.kernel + " " + std::string(name(p.layout)) + " x" + std::to_string(p.copies) +
             (p.value_mode ? " values" : " codes") + " local " + std::to_string(p.local_bytes) + " B, wg " +
             std::to_string(p.work_group) + ", groups " + std::to_string(p.groups) + ", launch pixels " +
             std::to_string(p.launch_pixels) + "\n";
    const std::size_t shown = std::min<std::size_t>(plan.tiles.size(), 3);
    for (std::size_t i = 0; i < shown; ++i)
        s += "  tile " + std::to_string(plan.tiles[i].first) + "+" + std::to_string(plan.tiles[i].count) + "\n";
    if (plan.tiles.size() > shown) s += "  ...\n";
    if (!plan.note.empty()) s += "  note: " + plan.note + "\n";
    return s;
}

}  // namespace imghist::gpu
