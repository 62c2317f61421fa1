// The OpenCV anchor of imghist_compare (bench/compare.cpp), timed in the same run on the same 8K
// (7680x4320) pixels:
//   RGB:        imghist mode rgb   vs  cv::calcHist once per channel (R, G, B) of the RGBA image
//   luminance:  imghist mode luma  vs  cv::cvtColor(RGBA -> GRAY) + cv::calcHist
//   RGB8:       imghist mode luma / all  vs  cv::cvtColor(RGB -> GRAY) + cv::calcHist (+ R, G, B)
//   float:      imghist mode rgb   vs  cv::calcHist per channel, 256 bins over [0, 1]
//               (imghist timed with its default 257-bin rule and with 256 bins over [0, 1))
// OpenCV and imghist run on the program's --threads (calcHist is single-threaded; cvtColor uses
// OpenCV's parallel backend on that many threads). The 8-bit RGB and float 256-bin
// counts are cross-checked against OpenCV's; 8-bit counts that differ fail the program.
// Beside each luminance row, two bounds on imghist's threads: the increments alone of its
// luminance, and the image's pixels read with one increment each (no luminance arithmetic).
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "anchors_opencv.hpp"
#include "bare_count.hpp"
#include "compare.hpp"

namespace imghist::bench {
namespace {

using imghist::Mode;
using imghist::PixelFormat;
using imghist::Request;
using imghist::testing::Pattern;

cv::Mat wrap(const imghist::ImageView& v, int type) {
    return cv::Mat(int(v.height), int(v.width), type, const_cast<void*>(v.data), v.stride_bytes);
}

cv::Mat calc_hist(const cv::Mat& m, int channel, int bins, float lo, float hi) {
    cv::Mat hist;
    const int channels[] = {channel};
    const int sizes[] = {bins};
    const float range[] = {lo, hi};
    const float* ranges[] = {range};
    cv::calcHist(&m, 1, channels, cv::Mat(), hist, 1, sizes, ranges);
    return hist;
}

bool same_counts(const imghist::Result& r, const std::vector<cv::Mat>& cv_hists) {
    for (std::size_t c = 0; c < cv_hists.size(); ++c) {
        const auto& counts = r.channels.at(c).counts;
        for (int b = 0; b < cv_hists[c].rows; ++b)
            if (double(counts.at(std::size_t(b))) != double(cv_hists[c].at<float>(b))) return false;
    }
    return true;
}

volatile std::uint32_t g_sink;

// The luminance rows' bound: the increments alone of counting `gray` (OpenCV's luminance of the
// same image: Rec. 601 where imghist counts Rec. 709, a distribution alike) on `threads` threads.
Timing luminance_bound(const cv::Mat& gray, unsigned threads, int runs) {
    return imghist::bench::time_ms(runs, [&] {
        g_sink = bare_count_values(gray.ptr<std::uint8_t>(), gray.total(), threads);
    });
}

// The second bound (one thread; nullopt with more, or without AVX-512): the 8-bit image's pixels
// read in the fused loop's shape and one byte of each counted, no luminance arithmetic.
std::optional<Timing> read_and_count_bound(const imghist::ImageView& v, unsigned threads, int runs) {
    if (threads != 1 || !bare_read_and_count_supported()) return std::nullopt;
    return imghist::bench::time_ms(runs, [&] { g_sink = bare_read_and_count(v); });
}

// The 8-bit rows, per pattern: R, G, B (three calcHist calls against one imghist pass), then
// luminance.
void time_rgba8(imghist::Engine& engine, unsigned threads, int runs, std::vector<OpenCvRow>& rows) {
    Request rgb;
    rgb.mode = Mode::rgb;
    Request luma;
    luma.mode = Mode::luma;
    for (const Pattern pattern : imghist::bench::kBenchPatterns) {
        const char* name = imghist::testing::pattern_name(pattern);
        const auto& img = imghist::bench::image(PixelFormat::rgba8, pattern);
        const cv::Mat m = wrap(img.view, CV_8UC4);

        const auto ours = imghist::bench::time_ms(runs, [&] { engine.compute(img.view, rgb); });
        const auto theirs = imghist::bench::time_ms(runs, [&] {
            for (int c = 0; c < 3; ++c) calc_hist(m, c, 256, 0, 256);
        });
        std::vector<cv::Mat> cvh;
        for (int c = 0; c < 3; ++c) cvh.push_back(calc_hist(m, c, 256, 0, 256));
        const bool equal = same_counts(engine.compute(img.view, rgb), cvh);
        rows.push_back({"RGBA8 -> R,G,B", name, ours, theirs, std::nullopt, std::nullopt, 3.0, equal ? "counts equal" : "COUNTS DIFFER",
                        !equal});

        // Luminance: cvtColor + calcHist against one imghist pass (OpenCV uses Rec.601 weights,
        // imghist Rec.709: the same work, different coefficients).
        const auto ours_y = imghist::bench::time_ms(runs, [&] { engine.compute(img.view, luma); });
        const auto theirs_y = imghist::bench::time_ms(runs, [&] {
            cv::Mat gray;
            cv::cvtColor(m, gray, cv::COLOR_RGBA2GRAY);
            calc_hist(gray, 0, 256, 0, 256);
        });
        cv::Mat gray;
        cv::cvtColor(m, gray, cv::COLOR_RGBA2GRAY);
        rows.push_back({"RGBA8 -> luminance", name, ours_y, theirs_y, luminance_bound(gray, threads, runs),
                        read_and_count_bound(img.view, threads, runs), 3.0, "-"});
        std::fprintf(stderr, "  %s done\n", name);
    }
}

// 3-byte pixels (what a JPEG decodes to): luminance, and R, G, B with it (mode all), against
// cvtColor(RGB -> GRAY) + calcHist, and that plus calcHist per channel.
void time_rgb8(imghist::Engine& engine, unsigned threads, int runs, std::vector<OpenCvRow>& rows) {
    for (const Pattern pattern : imghist::bench::kBenchPatterns) {
        const char* name = imghist::testing::pattern_name(pattern);
        const auto& img = imghist::bench::image(PixelFormat::rgb8, pattern);
        const cv::Mat m = wrap(img.view, CV_8UC3);
        for (const bool all : {false, true}) {
            Request r;
            r.mode = all ? Mode::all : Mode::luma;
            const auto ours = imghist::bench::time_ms(runs, [&] { engine.compute(img.view, r); });
            const auto theirs = imghist::bench::time_ms(runs, [&] {
                cv::Mat gray;
                cv::cvtColor(m, gray, cv::COLOR_RGB2GRAY);
                calc_hist(gray, 0, 256, 0, 256);
                for (int c = 0; all && c < 3; ++c) calc_hist(m, c, 256, 0, 256);
            });
            std::optional<Timing> bound, read_bound;
            if (!all) {
                read_bound = read_and_count_bound(img.view, threads, runs);
                cv::Mat gray;
                cv::cvtColor(m, gray, cv::COLOR_RGB2GRAY);
                bound = luminance_bound(gray, threads, runs);
            }
            rows.push_back(
                {all ? "RGB8 -> R,G,B,luminance" : "RGB8 -> luminance", name, ours, theirs, bound, read_bound, 3.0, "-"});
        }
        std::fprintf(stderr, "  rgb8 %s done\n", name);
    }
}

// The float rows: imghist's 257-bin rule and 256 bins over [0, 1) against calcHist's 256.
void time_rgba_f32(imghist::Engine& engine, int runs, std::vector<OpenCvRow>& rows) {
    Request rgb;
    rgb.mode = Mode::rgb;
    Request f256 = rgb;
    f256.bins.bins = 256;
    f256.bins.range = {{0.0, 1.0}};
    for (const Pattern pattern : {Pattern::random, Pattern::natural}) {
        const char* name = imghist::testing::pattern_name(pattern);
        const auto& img = imghist::bench::image(PixelFormat::rgba_f32, pattern);
        const cv::Mat m = wrap(img.view, CV_32FC4);
        const auto theirs = imghist::bench::time_ms(runs, [&] {
            for (int c = 0; c < 3; ++c) calc_hist(m, c, 256, 0.0f, 1.0f);
        });
        const auto ours = imghist::bench::time_ms(runs, [&] { engine.compute(img.view, rgb); });
        const auto ours_256 = imghist::bench::time_ms(runs, [&] { engine.compute(img.view, f256); });
        std::vector<cv::Mat> cvh;
        for (int c = 0; c < 3; ++c) cvh.push_back(calc_hist(m, c, 256, 0.0f, 1.0f));
        rows.push_back({"RGBA f32 -> R,G,B (imghist 257-bin rule)", name, ours, theirs, std::nullopt, std::nullopt, 2.0, "-"});
        rows.push_back({"RGBA f32 -> R,G,B (imghist 256 bins [0,1))", name, ours_256, theirs, std::nullopt, std::nullopt, 2.0,
                        same_counts(engine.compute(img.view, f256), cvh) ? "counts equal" : "COUNTS DIFFER"});
        std::fprintf(stderr, "  float %s done\n", name);
    }
}

}  // namespace

std::string opencv_description(unsigned threads) {
    cv::setNumThreads(int(threads));
    return std::string("OpenCV ") + CV_VERSION + " with " + std::to_string(cv::getNumThreads()) + " threads";
}

std::vector<OpenCvRow> time_opencv(Engine& engine, unsigned threads, int runs) {
    cv::setNumThreads(int(threads));  // OpenCV's parallel parts (cvtColor) on imghist's threads
    std::vector<OpenCvRow> rows;
    time_rgba8(engine, threads, runs, rows);
    time_rgb8(engine, threads, runs, rows);
    time_rgba_f32(engine, runs, rows);
    return rows;
}

void print_opencv_table(const std::vector<OpenCvRow>& rows, unsigned threads) {
    std::printf("\nOpenCV anchor: imghist cpu against OpenCV, both on the program's threads. The luminance bound: %u "
                "threads making one increment per pixel of the image's luminance (computed before) and nothing "
                "else (bare_count.hpp); OpenCV / bound is the most a kernel that increments a counter per pixel "
                "can reach on these threads. The read + count bound (one thread, AVX-512): the fused luminance loop's "
                "shape without its arithmetic, every pixel read (prefetched) and one byte of each counted: what "
                "the fused loop would take if its luminance cost nothing\n",
                threads);
    std::printf("\n| case | image | imghist cpu median (min), ms | OpenCV median (min), ms | speed-up (medians) | "
                "speed-up (mins) | target | met (medians) | luminance bound median (min), ms | OpenCV / bound, "
                "medians | read + count bound median (min), ms | OpenCV / read + count | cross-check |\n");
    std::printf("|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|\n");
    bool all_met = true;
    for (const OpenCvRow& r : rows) {
        const double ratio = r.theirs.median_ms / r.ours.median_ms;
        const double ratio_min = r.theirs.min_ms / r.ours.min_ms;
        const bool met = ratio >= r.target;
        all_met = all_met && met;
        char bound[96] = "-", bound_ratio[32] = "-";
        char read_bound[96] = "-", read_ratio[32] = "-";
        if (r.bound) {
            std::snprintf(bound, sizeof bound, "%.2f (%.2f)", r.bound->median_ms, r.bound->min_ms);
            std::snprintf(bound_ratio, sizeof bound_ratio, "%.2fx", r.theirs.median_ms / r.bound->median_ms);
        }
        if (r.read_bound) {
            std::snprintf(read_bound, sizeof read_bound, "%.2f (%.2f)", r.read_bound->median_ms, r.read_bound->min_ms);
            std::snprintf(read_ratio, sizeof read_ratio, "%.2fx", r.theirs.median_ms / r.read_bound->median_ms);
        }
        std::printf("| %s | %s | %.2f (%.2f) | %.2f (%.2f) | %.2fx | %.2fx | %.0fx | %s | %s | %s | %s | %s | %s |\n",
                    r.what.c_str(), r.pattern.c_str(), r.ours.median_ms, r.ours.min_ms, r.theirs.median_ms,
                    r.theirs.min_ms, ratio, ratio_min, r.target, met ? "yes" : "NO", bound, bound_ratio, read_bound,
                    read_ratio, r.check.c_str());
    }
    std::printf("\nall targets met (medians): %s\n", all_met ? "yes" : "no");
}

}  // namespace imghist::bench
