// The OpenCV anchor of imghist_compare (built when CMake finds OpenCV): imghist `cpu` against
// cv::calcHist (and cv::cvtColor for luminance) on the 8K RGBA8 and RGBA f32 images.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "imghist/imghist.hpp"

namespace imghist::bench {

struct OpenCvRow {
    std::string what, pattern;
    Timing ours, theirs;
    std::optional<Timing> bound;  // luminance: the increments alone on imghist's threads (bare_count.hpp)
    std::optional<Timing> read_bound;  // luminance: the pixels read and one increment each (bare_count.hpp)
    double target;      // the speed-up imghist is meant to reach (medians)
    std::string check;  // the cross-check's outcome, "-" where the rules differ
    bool failed = false;  // 8-bit counts differ from OpenCV's
};

// Sets OpenCV's threads and returns "OpenCV <version> with <n> threads".
std::string opencv_description(unsigned threads);
// Times every OpenCV row with `engine` (median of `runs` calls after one warm-up).
std::vector<OpenCvRow> time_opencv(Engine& engine, unsigned threads, int runs);
// Prints the rows as a Markdown table and whether every target was met.
void print_opencv_table(const std::vector<OpenCvRow>& rows, unsigned threads);

}  // namespace imghist::bench
