#include "charts.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <filesystem>
#include <iostream>
#include <map>
#include <system_error>

#include "plot.hpp"

namespace imghist::cli {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kSumTitleNames = 90;  // bytes of file names in a sum chart's title

std::string stem_of(const std::string& file) {
    std::string s = fs::path(file).stem().string();
    return s.empty() ? std::string("image") : s;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
        s.replace(p, from.size(), to);
    return s;
}

// Size, format, bins and backend; and where float values pass the bins' top, how far they go
// (the value extremes), since the chart alone shows only a full last bin.
std::string subtitle_for(const Result& r, const std::string& format_text) {
    const BinLayout& layout = r.channels.front().layout;
    std::string text = std::to_string(r.width) + " \u00D7 " + std::to_string(r.height) + "  \u00B7  " + format_text +
                       "  \u00B7  " + describe_layout(layout) + "  \u00B7  " + display_text(r.backend);
    std::optional<double> top;
    for (const ChannelHistogram& c : r.channels)
        if (c.finite_max && (*c.finite_max > layout.hi || (!layout.closed_top && *c.finite_max >= layout.hi)) &&
            (!top || *c.finite_max > *top))
            top = c.finite_max;
    if (top) {
        char hi[32], value[32];
        std::snprintf(hi, sizeof hi, "%.6g", layout.hi);
        std::snprintf(value, sizeof value, "%.6g", *top);
        text += std::string("  \u00B7  values pass ") + hi + ", up to " + value;
    }
    return text;
}

// One chart to draw: where, what, and the input it stands for (named in its error).
struct Chart {
    std::string path;
    const Result* result;
    PlotOptions options;
    std::string source;
};

// Draws every chart, each failure one line on stderr; a chart never replaces a chart drawn
// earlier in this run or an input file. Returns false if any chart was not written.
bool draw_charts(const std::vector<Chart>& charts, const std::vector<std::string>& inputs) {
    const auto same_file = [](const std::string& p) {
        std::error_code ec;
        const fs::path c = fs::weakly_canonical(p, ec);
        return ec ? fs::path(p).lexically_normal() : c;
    };
    std::map<fs::path, std::string> drawn;  // chart path -> the input it was drawn for
    for (const std::string& in : inputs) drawn.emplace(same_file(in), "");
    bool ok = true;
    for (const Chart& c : charts) {
        const std::string what = "imghist: plot of " + display_text(c.source) + ": ";
        const auto [it, fresh] = drawn.emplace(same_file(c.path), c.source);
        if (!fresh) {
            std::cerr << what << display_text(c.path) << " is "
                      << (it->second.empty() ? std::string("an input file")
                                             : "already the chart of " + display_text(it->second))
                      << "; not overwritten\n";
            ok = false;
            continue;
        }
        try {
            write_plot(c.path, *c.result, c.options);
        } catch (const std::exception& e) {
            std::cerr << what << display_text(e.what()) << '\n';
            ok = false;
        }
    }
    return ok;
}

// The charts --plot asks for: one per file with {}, one per sum group for several files (a
// sum of several layouts is several charts, FILE-FORMATS.ext, and says so), else the file's.
std::vector<Chart> plan_charts(const std::string& plot_path, bool log, const std::vector<FileOutcome>& outcomes,
                               const std::vector<SumGroup>& sums) {
    std::vector<Chart> charts;
    const auto file_chart = [&](const std::string& path, const FileOutcome& o) {
        charts.push_back({path, &*o.result,
                          {display_text(fs::path(o.file).filename().string()),
                           subtitle_for(*o.result, std::string(format_info(o.result->format).name)), log,
                           o.sensor ? &*o.sensor : nullptr},
                          o.file});
    };
    if (plot_path.find("{}") != std::string::npos) {
        for (const FileOutcome& o : outcomes)
            if (o.result) file_chart(replace_all(plot_path, "{}", stem_of(o.file)), o);
        return charts;
    }
    if (sums.empty()) {
        const auto it = std::find_if(outcomes.begin(), outcomes.end(), [](const FileOutcome& o) { return o.result.has_value(); });
        if (it != outcomes.end()) file_chart(plot_path, *it);
        return charts;
    }
    const fs::path base(plot_path);
    for (const SumGroup& g : sums) {
        // Names until the title is full (the plot cuts a long title from its start).
        std::string names;
        std::size_t listed = 0;
        for (; listed < g.members.size() && names.size() < kSumTitleNames; ++listed)
            names += (names.empty() ? ": " : ", ") + display_text(fs::path(g.members[listed].file).filename().string());
        if (listed < g.members.size()) names += " and " + std::to_string(g.members.size() - listed) + " more";
        const std::string path = sums.size() == 1 ? plot_path
                                                  : (base.parent_path() / (base.stem().string() + "-" + formats_label(g) +
                                                                           base.extension().string())).string();
        charts.push_back({path, &g.result,
                          {"sum of " + std::to_string(g.members.size()) + (g.members.size() == 1 ? " file" : " files") + names,
                           std::to_string(g.pixels) + " pixels  \u00B7  " + formats_label(g) + "  \u00B7  " +
                               describe_layout(g.result.channels.front().layout) + "  \u00B7  " +
                               display_text(g.result.backend),
                           log, nullptr, g.camera_raw},
                          "the sum of " + formats_label(g)});
    }
    return charts;
}

}  // namespace

bool plot_outcomes(const std::string& plot_path, bool log, const std::vector<FileOutcome>& outcomes,
                   const std::vector<SumGroup>& sums, const std::vector<std::string>& inputs) {
    const std::vector<Chart> charts = plan_charts(plot_path, log, outcomes, sums);
    if (sums.size() > 1) {
        std::string list;
        for (const Chart& c : charts) list += (list.empty() ? "" : ", ") + display_text(c.path);
        std::cerr << "imghist: note: the files have " << sums.size() << " different layouts, so their sum is "
                  << sums.size() << " charts: " << list << '\n';
    }
    if (charts.empty()) {
        std::cerr << "imghist: plot: no file was read, so there is nothing to plot\n";
        return false;
    }
    return draw_charts(charts, inputs);
}

}  // namespace imghist::cli
