// imghist_vulkan_bench: times the vulkan backend's shader with GPU timestamps (warm-up, then the
// median of 15 back-to-back runs in one command buffer) on images already in device memory, next to
//   - the floor: a shader that reads every byte once and does nothing else (floor.comp);
//   - the seed's shader as printed (seed.comp; rgba8 storage image, luminance only);
// and sweeps the shader's tuning (shared copies, units per invocation, bank swizzle).
//
// Usage: imghist_vulkan_bench [--quick] [--no-sweep] [--masks] [--out DIR]
//   --quick: 1080p images and a small sweep (for a CPU device such as lavapipe)
//   --no-sweep: the compiled-in default tuning only (and, for float edge bins, that tuning
//               without the code window, in the same run)
//   --masks: only the table of 8K device masks and alpha thresholds (1080p with --quick),
//            against the whole image and a read of the mask's bytes
// Writes DIR/vulkan_table.txt (the table for docs/performance.md) and DIR/vulkan_sweep.csv.
// IMGHIST_VULKAN_DEVICE picks the device. (The device plumbing is in bench_device.cpp.)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "bench_device.hpp"
#include "bench_images.hpp"
#include "core/backend_engine.hpp"
#include "core/selection.hpp"
#include "imghist/imghist.hpp"

namespace imghist {
namespace {

using Clock = std::chrono::steady_clock;
using bench::dist_name;
using vkbench::Bench;
using vkbench::generate;
using vkbench::HostImage;
using vkbench::Pattern;

// --- the sweep ----------------------------------------------------------------------------
std::string tuning_name(const vk::Tuning& t) {
    const char* layouts[] = {"copies", "lanes", "pairs"};
    std::string name = layouts[int(t.layout)];
    if (t.layout == vk::SharedLayout::copies) name += "<=" + std::to_string(t.max_copies);
    return name + (t.value_mode ? " values" : " bins") + " rounds=" + std::to_string(t.rounds) +
           (t.swizzle > 0 ? " swizzle" : t.swizzle == 0 ? " no-swizzle" : "") + " wg=" + std::to_string(t.group_size) +
           (t.code_window != vk::Tuning{}.code_window ? " code_window=" + std::to_string(t.code_window) : "");
}

struct Row {
    std::string image, pattern, request;
    int tuning;  // index into the sweep
    double us, floor_us;
    std::uint32_t copies, passes;
    vk::SharedLayout layout;
};

// The sweep; index 0 is the backend's compiled-in default. (An earlier sweep over copies
// 1..32, swizzle and rounds 1..8 of the copies layout is in docs/performance.md.)
std::vector<vk::Tuning> make_tunings(bool sweep) {
    std::vector<vk::Tuning> tunings{vk::Tuning{}};
    auto add = [&](vk::SharedLayout layout, bool values, std::uint32_t copies, std::uint32_t rounds,
                   int swizzle, std::uint32_t group = 256) {
        vk::Tuning t;
        t.group_size = group;
        t.layout = layout;
        t.value_mode = values;
        t.max_copies = copies;
        t.rounds = rounds;
        t.swizzle = swizzle;
        tunings.push_back(t);
    };
    if (sweep) {
        using L = vk::SharedLayout;
        // NVIDIA's driver runs fewer work-groups per SM when each takes more shared memory:
        // bigger work-groups keep the SM busy with the same 32-48 KiB.
        add(L::pairs, true, 1, 8, 0, 1024);
        // The default (one copy, value swizzle) without the swizzle, and two and four copies
        // with it. Work-groups of 256 and 512, 32 lanes (which falls back to copies where it
        // does not fit) and counting bins instead of values were swept on 2026-11-29
        // (docs/performance.md).
        add(L::copies, true, 1, 8, 0, 1024);
        add(L::copies, true, 2, 8, 1, 1024);
        add(L::copies, true, 4, 8, 1, 1024);
    }
    // Last, with or without the sweep: the default without the code window (float edge bins only).
    tunings.push_back(vk::Tuning{});
    tunings.back().code_window = 0;
    return tunings;
}

struct Spec {
    std::string label;
    PixelFormat format;
    std::uint32_t w, h;
    std::vector<Pattern> patterns;
    std::vector<Mode> modes;
    std::vector<double> edges = {};  // edge bins instead of the default bins (issue 17)
};

std::vector<Spec> make_specs(bool quick) {
    const std::vector<Pattern> four(std::begin(bench::kDists), std::end(bench::kDists));
    std::vector<Spec> specs;
    if (quick) {
        specs.push_back({"1080p rgba8", PixelFormat::rgba8, 1920, 1080, four, {Mode::rgb, Mode::all, Mode::luma}});
    } else {
        specs.push_back({"8K rgba8", PixelFormat::rgba8, 7680, 4320, four, {Mode::rgb, Mode::all, Mode::luma}});
        specs.push_back({"16384^2 rgba8", PixelFormat::rgba8, 16384, 16384, four, {Mode::rgb, Mode::all, Mode::luma}});
        specs.push_back({"8K rgba_f32", PixelFormat::rgba_f32, 7680, 4320, {Pattern::random, Pattern::natural},
                         {Mode::all, Mode::rgb}});
        specs.push_back({"8K rgba_f32 256 EV bins", PixelFormat::rgba_f32, 7680, 4320,
                         {Pattern::random, Pattern::natural}, {Mode::all, Mode::rgb}, imghist::ev_edges(-8, 0, 32)});
    }
    return specs;
}

// Everything the measurements share, and what they collect.
struct Sweep {
    Bench& bench;
    const std::vector<vk::Tuning>& tunings;
    const std::vector<std::unique_ptr<vk::HistogramCore>>& cores;
    Engine& cpu;
    std::ofstream& csv;
    std::vector<Row> rows;
    std::map<std::string, double> seed_us;
};

// The default's counts against the CPU backend (8K, request `all`; elsewhere, that every pixel
// was counted once): every other tuning must then agree with it exactly.
bool default_counts_ok(Engine& cpu, const Spec& spec, const HostImage& img, Mode mode, const HistogramPlan& plan,
                       const std::vector<std::uint64_t>& got) {
    std::vector<std::uint64_t> want(plan.total_slots(), 0);
    if (spec.w * spec.h <= 7680u * 4320u && mode == Mode::all)
        slot_counter(cpu).accumulate(img.view(), plan, want);
    else
        want = got;
    std::uint64_t binned = 0;
    for (std::uint32_t k = 0; k < plan.bins(); ++k) binned += got[k];
    if (spec.format == PixelFormat::rgba8 && binned != std::uint64_t(spec.w) * spec.h) want.clear();
    return want == got;
}

// Every tuning on one image and request: a row and a CSV line each. False on a mismatch.
bool measure_request(Sweep& s, const Spec& spec, const HostImage& img, Mode mode, double floor_us) {
    const std::string key = spec.label + "/" + dist_name(img.pattern);
    Request request;
    request.mode = mode;
    request.bins.edges = spec.edges;
    HistogramPlan plan(spec.format, request);
    std::vector<std::uint64_t> first, got;
    for (std::size_t t = 0; t < s.tunings.size(); ++t) {
        // Float images: the default only, and with edge bins the default without the code window.
        const bool without_window = s.tunings[t].code_window == 0;
        if (without_window && !(plan.is_float() && plan.has_edges())) continue;
        if (spec.format != PixelFormat::rgba8 && t != 0 && !without_window) continue;
        const double us = s.bench.time_backend(*s.cores[t], img, plan, &got);
        if (first.empty()) {
            first = got;
            if (!default_counts_ok(s.cpu, spec, img, mode, plan, got)) {
                std::fprintf(stderr, "MISMATCH vs cpu: %s %s\n", key.c_str(), std::string(mode_name(mode)).c_str());
                return false;
            }
        } else if (got != first) {
            std::fprintf(stderr, "MISMATCH between tunings: %s %s %s\n", key.c_str(),
                         std::string(mode_name(mode)).c_str(), tuning_name(s.tunings[t]).c_str());
            return false;
        }
        const DeviceImage src{0, 0, img.width, img.height, 0, img.format};
        const auto shape = s.cores[t]->shape(src, plan);
        s.rows.push_back({spec.label, dist_name(img.pattern), std::string(mode_name(mode)), int(t), us, floor_us,
                          shape.copies, shape.passes, shape.layout});
        s.csv << spec.label << ',' << dist_name(img.pattern) << ',' << mode_name(mode) << ",\""
              << tuning_name(s.tunings[t]) << "\"," << int(shape.layout) << ',' << shape.value_mode << ','
              << shape.copies << ',' << shape.passes << ',' << us << ',' << floor_us << '\n';
    }
    return true;
}

// One image of a spec: its floor and seed shader, then every request. False on a mismatch.
bool measure_image(Sweep& s, const Spec& spec, Pattern pattern) {
    const auto t0 = Clock::now();
    const HostImage img = generate(spec.label, spec.format, spec.w, spec.h, pattern);
    s.bench.upload(img);
    const double floor_us = s.bench.time_floor(img);
    const double seed = s.bench.time_seed(img);
    if (seed > 0) s.seed_us[spec.label + "/" + dist_name(pattern)] = seed;
    std::printf("%s %s: floor %.1f us (%.0f GB/s), seed %.1f us  [prepared in %.1f s]\n", spec.label.c_str(),
                dist_name(pattern), floor_us, img.bytes() / floor_us / 1e3, seed,
                std::chrono::duration<double>(Clock::now() - t0).count());
    for (Mode mode : spec.modes)
        if (!measure_request(s, spec, img, mode, floor_us)) return false;
    return true;
}

// --- the tables ---------------------------------------------------------------------------
// Share of the floor: the floor of an image size is its fastest read (on the H200 the
// read-only shader was 2.3x slower on the `natural` images than on the others, while
// the histogram shader was not).
void use_size_floors(std::vector<Row>& rows) {
    std::map<std::string, double> size_floor;
    for (const Row& r : rows)
        size_floor[r.image] = size_floor.count(r.image) ? std::min(size_floor[r.image], r.floor_us) : r.floor_us;
    for (Row& r : rows) r.floor_us = size_floor[r.image];
}

// Tunings are ranked by the geometric mean share over every rgba8 image and request; the
// worst share is printed beside it.
struct Ranking {
    std::vector<double> worst, geomean;
    std::vector<int> order;  // best first
};

Ranking rank(const std::vector<Row>& rows, std::size_t tunings) {
    Ranking k{std::vector<double>(tunings, 1e30), std::vector<double>(tunings), std::vector<int>(tunings)};
    std::vector<double> logsum(tunings, 0);
    std::vector<int> n(tunings, 0);
    for (const Row& r : rows)
        if (r.image.find("rgba8") != std::string::npos) {
            k.worst[r.tuning] = std::min(k.worst[r.tuning], r.floor_us / r.us);
            logsum[r.tuning] += std::log(r.floor_us / r.us);
            ++n[r.tuning];
        }
    for (std::size_t i = 0; i < tunings; ++i) k.geomean[i] = n[i] ? std::exp(logsum[i] / n[i]) : 0;
    for (std::size_t i = 0; i < tunings; ++i) k.order[i] = int(i);
    std::sort(k.order.begin(), k.order.end(), [&](int a, int b) { return k.geomean[a] > k.geomean[b]; });
    return k;
}

void print_table(std::ostringstream& table, const Sweep& s, int tuning, const char* title) {
    char line[512];
    table << "### " << title << ": " << tuning_name(s.tunings[tuning]) << "\n\n";
    table << "| image | pattern | request | imghist µs | floor µs | share of floor | GB/s | seed shader µs |\n";
    table << "|---|---|---|---:|---:|---:|---:|---:|\n";
    for (const Row& r : s.rows) {
        if (r.tuning != tuning) continue;
        std::string seed = "";
        auto it = s.seed_us.find(r.image + "/" + r.pattern);
        if (r.request == "luma" && it != s.seed_us.end()) {
            std::snprintf(line, sizeof line, "%.1f", it->second);
            seed = line;
        }
        const double bytes = r.image.find("16384") != std::string::npos ? 16384.0 * 16384 * 4
                             : r.image.find("f32") != std::string::npos ? 7680.0 * 4320 * 16
                             : r.image.find("1080p") != std::string::npos ? 1920.0 * 1080 * 4
                                                                         : 7680.0 * 4320 * 4;
        std::snprintf(line, sizeof line, "| %s | %s | %s | %.1f | %.1f | %.0f%% | %.0f | %s |\n", r.image.c_str(),
                      r.pattern.c_str(), r.request.c_str(), r.us, r.floor_us, 100 * r.floor_us / r.us,
                      bytes / r.us / 1e3, seed.c_str());
        table << line;
    }
    table << "\n";
}

void print_ranking(std::ostringstream& table, const Sweep& s, const Ranking& k) {
    char line[512];
    table << "### Sweep: share of the floor over every rgba8 image and request, per tuning\n\n";
    for (int i : k.order) {
        if (k.geomean[i] == 0) {  // a tuning timed on no rgba8 case (code_window=0: float edge bins only)
            std::snprintf(line, sizeof line, "- %d: %s: no rgba8 case\n", i, tuning_name(s.tunings[i]).c_str());
        } else {
            std::snprintf(line, sizeof line, "- %d: %s: geometric mean %.0f%%, worst %.0f%%\n", i,
                          tuning_name(s.tunings[i]).c_str(), 100 * k.geomean[i], 100 * k.worst[i]);
        }
        table << line;
    }
}

// Every case against every tuning (share of the floor; tuning numbers as in the ranking).
void print_matrix(std::ostringstream& table, const Sweep& s) {
    char line[512];
    std::map<std::string, std::vector<double>> matrix;
    std::vector<std::string> keys;
    for (const Row& r : s.rows) {
        const std::string key = r.image + " " + r.pattern + " " + r.request;
        if (!matrix.count(key)) keys.push_back(key);
        auto& v = matrix[key];
        v.resize(s.tunings.size(), 0);
        v[r.tuning] = r.floor_us / r.us;
    }
    table << "\n| case |";
    for (std::size_t i = 0; i < s.tunings.size(); ++i) table << ' ' << i << " |";
    table << "\n|---|";
    for (std::size_t i = 0; i < s.tunings.size(); ++i) table << "---:|";
    table << '\n';
    for (const auto& key : keys) {
        table << "| " << key << " |";
        for (double share : matrix[key]) {
            if (share > 0) std::snprintf(line, sizeof line, " %.0f%% |", 100 * share);
            else std::snprintf(line, sizeof line, " - |");
            table << line;
        }
        table << '\n';
    }
}

std::string tables(Sweep& s, const char* device_name) {
    use_size_floors(s.rows);
    const Ranking k = rank(s.rows, s.tunings.size());
    const int best = k.order[0];
    std::ostringstream table;
    table << "device: " << device_name << "\n\n";
    print_table(table, s, 0, "Compiled-in default tuning");
    if (best != 0 && s.tunings[best].code_window != 0)
        print_table(table, s, best, "Best tuning of this sweep (geometric mean share of the floor, rgba8)");
    const int without_window = int(s.tunings.size()) - 1;
    if (std::any_of(s.rows.begin(), s.rows.end(), [&](const Row& r) { return r.tuning == without_window; }))
        print_table(table, s, without_window, "Float edge bins without the code window");
    print_ranking(table, s, k);
    if (s.tunings.size() > 1) print_matrix(table, s);
    return table.str();
}

// --masks: R,G,B of natural RGBA8 and RGBA f32 images, whole and through device masks (every
// pixel, a centred disc, noise: bench_mask_bytes) and an alpha threshold of one half, counted by
// histogram.comp's selection (GPU time of the recorded work); the mask's read is the budget a
// mask may add. Each selection's counts are checked against the CPU backend's host mask.
int masks_table(Bench& bench, Engine& cpu, bool quick) {
    const std::uint32_t w = quick ? 1920 : 7680, h = quick ? 1080 : 4320;
    vk::HistogramCore& core = bench.ctx().core();
    std::printf("\n%ux%u, device masks and alpha thresholds (histogram.comp's selection, GPU time)\n", w, h);
    std::printf("%-34s %9s %9s %12s\n", "input", "us", "x whole", "mask read us");
    int mismatches = 0;
    for (const PixelFormat format : {PixelFormat::rgba8, PixelFormat::rgba_f32}) {
        const HostImage img = generate("masks", format, w, h, Pattern::natural);
        bench.upload(img);
        Request rgb;
        rgb.mode = Mode::rgb;
        const HistogramPlan plan(format, rgb);
        const double whole = bench.time_backend(core, img, plan, nullptr);
        const std::string name = format == PixelFormat::rgba8 ? "RGBA8" : "RGBA f32";
        std::printf("%-34s %9.1f %8.2fx\n", (name + " R,G,B whole").c_str(), whole, 1.0);
        // One selection: its time, and its counts against the CPU backend's.
        const auto measure = [&](const std::string& what, const vk::Selection& selection, const Request& host) {
            std::vector<std::uint64_t> totals;
            const double us = bench.time_backend(core, img, plan, &totals, &selection);
            const Result want = cpu.compute(img.view(), host);
            const Result got = plan.make_result(img.view(), std::span(totals).subspan(1), "vulkan", "");
            bool same = totals[0] == want.counted_pixels;
            for (std::size_t c = 0; c < want.channels.size(); ++c)
                same = same && got.channels[c].counts == want.channels[c].counts && got.channels[c].nan == want.channels[c].nan;
            if (!same) {
                std::fprintf(stderr, "MISMATCH vs cpu: %s %s\n", name.c_str(), what.c_str());
                ++mismatches;
            }
            return us;
        };
        for (const char* kind : {"all", "disc", "noise"}) {
            const std::vector<std::uint8_t> bytes = bench::bench_mask_bytes(kind, w, h);
            const DeviceImage mask = bench.upload_mask(bytes, w, h);
            Request host = rgb;
            host.mask = ImageView::packed(bytes.data(), w, h, PixelFormat::gray8);
            const double us = measure(kind, vk::Selection{&mask, {}}, host);
            std::printf("%-34s %9.1f %8.2fx %12.1f\n", (name + " R,G,B mask " + kind).c_str(), us, us / whole,
                        bench.time_mask_floor(bytes.size()));
        }
        Request host = rgb;
        host.alpha_threshold = format == PixelFormat::rgba8 ? 127.5 : 0.5;
        const double us =
            measure("alpha", vk::Selection{nullptr, alpha_test_of(host.alpha_threshold, format_info(format).sample)}, host);
        std::printf("%-34s %9.1f %8.2fx\n", (name + " R,G,B alpha above half").c_str(), us, us / whole);
    }
    return mismatches == 0 ? 0 : 2;
}

int run(bool quick, bool sweep, bool masks, const std::string& out_dir) {
    Bench bench;
    const auto& props = bench.ctx().core().properties();
    std::printf("device: %s (shared memory %u bytes)\n", props.deviceName, props.limits.maxComputeSharedMemorySize);
    if (masks) {
        auto cpu = create_engine("cpu");
        return masks_table(bench, *cpu, quick);
    }
    const std::vector<vk::Tuning> tunings = make_tunings(sweep);
    std::vector<std::unique_ptr<vk::HistogramCore>> cores;
    for (const auto& t : tunings)
        cores.push_back(std::make_unique<vk::HistogramCore>(bench.ctx().physical(), bench.ctx().device(), t,
                                                            bench.ctx().float_controls()));
    const std::vector<Spec> specs = make_specs(quick);
    std::ofstream csv(out_dir + "/vulkan_sweep.csv");
    csv << "image,pattern,request,tuning,layout,value_mode,copies,passes,us,floor_us\n";
    auto cpu = create_engine("cpu");
    Sweep s{bench, tunings, cores, *cpu, csv, {}, {}};
    for (const Spec& spec : specs)
        for (Pattern pattern : spec.patterns)
            if (!measure_image(s, spec, pattern)) return 2;
    const std::string table = tables(s, props.deviceName);
    std::printf("\n%s", table.c_str());
    std::ofstream(out_dir + "/vulkan_table.txt") << table;
    return 0;
}

}  // namespace
}  // namespace imghist

int main(int argc, char** argv) {
    bool quick = false, sweep = true, masks = false;
    std::string out_dir = ".";
    (void)imghist::bench::parse_args(argc, argv,
                                     {{"--quick", &quick}, {"--no-sweep", &sweep, false}, {"--masks", &masks}},
                                     {{"--out", [&](const char* v) { out_dir = v; }}});
    try {
        return imghist::run(quick, sweep, masks, out_dir);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "imghist_vulkan_bench: %s\n", e.what());
        return 1;
    }
}
