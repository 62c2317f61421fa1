// Shared by imghist_compare's anchors (anchors_opencv.cpp, anchors_ipp.cpp): the load average
// line, the cross-check of imghist's counts against another library's, and how a timing is
// printed. Each anchor times its rows, then prints its own table (bench/compare.cpp).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench_support.hpp"
#include "imghist/imghist.hpp"

namespace imghist::bench {

// /proc/loadavg without its newline ("?" where there is none): the 2 cores may be shared.
inline std::string load_average() {
    std::FILE* f = std::fopen("/proc/loadavg", "r");
    if (f == nullptr) return "?";
    char buf[128] = {0};
    const bool ok = std::fgets(buf, sizeof buf, f) != nullptr;
    std::fclose(f);
    std::string s = ok ? buf : "?";
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
}

// How far one channel's bins are from another library's: bins that differ, and the sum over
// bins of |ours - theirs| (a sample one bin off counts 2, one only one side binned counts 1).
struct CountDiff {
    std::uint64_t bins = 0, samples = 0;
    bool equal() const { return bins == 0; }
    void add(std::uint64_t ours, std::uint64_t theirs) {
        if (ours == theirs) return;
        ++bins;
        samples += ours > theirs ? ours - theirs : theirs - ours;
    }
    void add(const CountDiff& o) {
        bins += o.bins;
        samples += o.samples;
    }
    std::string text() const {
        if (equal()) return "counts equal";
        return std::to_string(bins) + " bins differ, sum |diff| " + std::to_string(samples) + " samples";
    }
};

// "median (min)" in milliseconds.
inline std::string ms(const Timing& t) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f (%.2f)", t.median_ms, t.min_ms);
    return buf;
}

}  // namespace imghist::bench
