#include "fuzz_merge_seeds.hpp"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <sstream>
#include <vector>

#include "cli/output.hpp"
#include "imghist/imghist.hpp"
#include "scratch.hpp"

namespace imghist::fuzz {

namespace {

// One file's outcome: `request` counted on a `width` x `height` image of `format` whose bytes
// count up (with NaN, infinities and values past 1 in float images).
cli::FileOutcome counted(const std::string& file, PixelFormat format, const Request& request) {
    constexpr std::uint32_t width = 7, height = 5;
    const std::size_t bytes = std::size_t(width) * height * format_info(format).pixel_bytes();
    std::vector<std::uint64_t> storage(bytes / 8 + 1);
    auto* p = reinterpret_cast<std::uint8_t*>(storage.data());
    for (std::size_t i = 0; i < bytes; ++i) p[i] = std::uint8_t(i * 37 + 11);
    if (format_info(format).sample == SampleType::f32) {
        auto* f = reinterpret_cast<float*>(storage.data());
        const std::size_t n = bytes / 4;
        for (std::size_t i = 0; i < n; ++i) f[i] = float(i % 23) / 16.0f;
        f[1] = std::numeric_limits<float>::quiet_NaN(), f[2] = std::numeric_limits<float>::infinity(), f[3] = -f[2];
    }
    cli::FileOutcome o;
    o.file = file;
    o.result = create_engine("reference")->compute(ImageView::packed(storage.data(), width, height, format), request);
    return o;
}

// A report of `outcomes` in `format`, with their sums when `sums` (as --sum / --sum-only do).
std::string report(const std::vector<cli::FileOutcome>& outcomes, const std::string& format, bool per_file, bool sums) {
    std::ostringstream out;
    const auto writer = cli::make_report(format, out, per_file);
    cli::SumGroups groups;
    for (const cli::FileOutcome& o : outcomes) {
        const std::size_t index = writer->add(o);
        if (o.result) groups.add(o, index);
    }
    (void)writer->finish(sums ? &groups.groups() : nullptr, nullptr);
    return out.str();
}

}  // namespace

void write_merge_seeds(const std::string& dir) {
    std::filesystem::create_directories(dir);
    Request ev;  // EV bins with value extremes: what --exposure reads
    ev.bins.edges = ev_edges(-8, 2, 4);
    ev.value_extremes = true;
    Request regions;  // a roi, tiles and a mask (of the 7 x 5 images counted())
    std::vector<std::uint8_t> mask(7 * 5);
    for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = std::uint8_t(i % 3);
    regions.mask = ImageView::packed(mask.data(), 7, 5, PixelFormat::gray8);
    regions.roi = Region{1, 1, 5, 4};
    regions.tiles = {2, 2};
    Request uniform;  // uniform bins over a range, clamped, with alpha
    uniform.bins.bins = 64;
    uniform.bins.range = std::pair{-1.0, 3.0};
    uniform.bins.clamp = true;
    uniform.count_alpha = true;
    cli::FileOutcome failed;
    failed.file = "bad\xff name.png";
    failed.error = "cannot read";
    const std::vector<cli::FileOutcome> mixed = {counted("a.png", PixelFormat::rgb8, {}),
                                                 counted("b.png", PixelFormat::gray8, {}), failed,
                                                 counted("c.png", PixelFormat::rgba8, {})};
    const std::vector<cli::FileOutcome> floats = {counted("d.exr", PixelFormat::rgba_f32, ev),
                                                  counted("e.exr", PixelFormat::gray_f32, ev)};
    const std::vector<cli::FileOutcome> others = {counted("f.tif", PixelFormat::rgb16, regions),
                                                  counted("g.exr", PixelFormat::rgba_f32, uniform)};
    const auto write = [&](const char* name, const std::string& text) {
        write_file(std::filesystem::path(dir) / name, text);
    };
    write("mixed_sum.json", report(mixed, "json", true, true));
    write("mixed_sum.jsonl", report(mixed, "jsonl", true, true));
    write("mixed_results.jsonl", report(mixed, "jsonl", true, false));
    write("mixed_results.json", report(mixed, "json", true, false));
    write("floats_ev_sum_only.json", report(floats, "json", false, true));
    write("floats_ev_results.jsonl", report(floats, "jsonl", true, false));
    write("regions_uniform_sum.json", report(others, "json", true, true));
    // Two and three inputs (split at NUL), the same files in several of them.
    write("two_inputs", report(mixed, "json", true, true) + '\0' + report(mixed, "jsonl", true, false));
    write("three_inputs", report(floats, "json", false, true) + '\0' + report(others, "jsonl", true, true) + '\0' +
                              report(floats, "jsonl", true, false));
}

}  // namespace imghist::fuzz
