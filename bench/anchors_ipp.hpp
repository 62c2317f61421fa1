// The Intel IPP anchor of imghist_compare (built when CMake finds IPP under IMGHIST_IPP_ROOT;
// bash scripts/install-ipp.sh fetches it): imghist `cpu` against ippiHistogram_* on the 8K
// RGBA8, RGB8 and RGBA f32 images, imghist on one thread (IPP's histogram has no threaded
// variant) and on the program's threads.
#pragma once

#include <string>
#include <vector>

#include "bench_support.hpp"
#include "imghist/imghist.hpp"

namespace imghist::bench {

struct IppRow {
    std::string what, pattern;
    Timing one_thread, threaded, ipp;  // imghist on 1 thread, imghist on the engine's threads, IPP
    Timing increments, stores;         // the bounds: one increment, one store per counted sample (bare_count.hpp)
    std::string check;                 // the cross-check's outcome
    bool failed = false;               // 8-bit counts differ from IPP's
};

// The library's name, version and build date, the CPU-specific code it dispatched to (e.g. k0:
// AVX-512) and the CPU features it found: one line each.
std::vector<std::string> ipp_description();
// Times every IPP row (median of `runs` calls after one warm-up); `one_thread` is an engine
// with EngineOptions::threads = 1, `threaded` the one with the program's threads.
std::vector<IppRow> time_ipp(Engine& one_thread, Engine& threaded, int runs);
// Prints the rows as a Markdown table, ratios IPP time / imghist time (above 1: imghist is
// faster), and what IPP cannot count (half floats).
void print_ipp_table(const std::vector<IppRow>& rows, unsigned threads);

}  // namespace imghist::bench
