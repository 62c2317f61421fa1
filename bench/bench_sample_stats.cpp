// What the exact sample statistics (Request::sample_stats) cost on the `cpu` backend: a 4K image's
// histogram alone, then the same call with the moments only (no percentiles) and with the default
// percentiles, in one run, so that the ratios docs/performance.md quotes come from one machine.
// "Time" is wall time, "CPU" the process's CPU time (all threads).
//   build/bench/imghist_bench_stats --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "bench_support.hpp"
#include "imghist/imghist.hpp"

namespace {

using imghist::PixelFormat;
using imghist::Request;
using imghist::testing::Pattern;

constexpr std::uint32_t k4KWidth = 3840, k4KHeight = 2160;

// What is asked beside the histogram of R, G and B.
enum class Statistics { none, moments, with_percentiles };

Request request_of(Statistics statistics) {
    Request r;
    r.sample_stats = statistics != Statistics::none;
    if (statistics == Statistics::moments) r.percentiles.clear();
    return r;
}

void run(benchmark::State& state, PixelFormat format, Pattern pattern, Statistics statistics) {
    const auto& img = imghist::bench::image(format, pattern, k4KWidth, k4KHeight);
    auto engine = imghist::create_engine("cpu");
    const Request request = request_of(statistics);
    for (auto _ : state) {
        imghist::Result r = engine->compute(img.view, request);
        benchmark::DoNotOptimize(r.channels.data());
    }
    state.SetItemsProcessed(std::int64_t(state.iterations()) * std::int64_t(img.view.pixel_count()));
}

// Registered as the program starts: benchmark_main runs them.
const bool registered = [] {
    struct Named {
        const char* name;
        Statistics statistics;
    };
    constexpr Named kStatistics[] = {
        {"hist", Statistics::none}, {"moments", Statistics::moments}, {"stats", Statistics::with_percentiles}};
    // Named here: format_info()'s table may not be made yet while the program starts.
    struct Format {
        const char* name;
        PixelFormat format;
    };
    constexpr Format kFormats[] = {{"rgba8", PixelFormat::rgba8},
                                   {"rgba16", PixelFormat::rgba16},
                                   {"rgba_f16", PixelFormat::rgba_f16},
                                   {"rgba_f32", PixelFormat::rgba_f32}};
    for (const auto& [format_name, f] : kFormats)
        for (const Pattern p : {Pattern::random, Pattern::natural})
            for (const Named& s : kStatistics) {
                const std::string name = std::string("cpu/4k/") + format_name + "/" +
                                         imghist::testing::pattern_name(p) + "/" + s.name;
                benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) { run(st, f, p, s.statistics); })
                    ->Unit(benchmark::kMillisecond)
                    ->MeasureProcessCPUTime()  // every thread's time: steadier than wall time on a shared machine
                    ->UseRealTime();
            }
    return true;
}();

}  // namespace
