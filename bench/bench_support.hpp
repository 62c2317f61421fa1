// Shared by the bench programs: 8K test images (generated once, kept for the process) and a
// median-of-N wall-clock timer.
#pragma once

#include <algorithm>
#include <chrono>
#include <thread>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "bench_common.hpp"
#include "test_images.hpp"

namespace imghist::bench {

inline constexpr std::uint32_t k8KWidth = 7680, k8KHeight = 4320;

// One image per (format, pattern, size), generated on first use.
inline const testing::TestImage& image(PixelFormat format, testing::Pattern pattern,
                                       std::uint32_t width = k8KWidth, std::uint32_t height = k8KHeight) {
    static std::map<std::tuple<PixelFormat, testing::Pattern, std::uint32_t, std::uint32_t>,
                    std::unique_ptr<testing::TestImage>>
        cache;
    auto& slot = cache[{format, pattern, width, height}];
    if (!slot) slot = std::make_unique<testing::TestImage>(testing::make_image(format, width, height, pattern, 42));
    return *slot;
}

struct Timing {
    double median_ms, min_ms;
};

// The four distributions every benchmark times (the issues' anchor inputs).
inline constexpr testing::Pattern kBenchPatterns[] = {testing::Pattern::random, testing::Pattern::natural,
                                                      testing::Pattern::constant,
                                                      testing::Pattern::bank_adversarial};

// Wall time of `runs` calls of f, in milliseconds, after one untimed warm-up call: the median,
// and the minimum (the least disturbed run, on a shared machine).
template <typename F>
Timing time_ms(int runs, F&& f) {
    // OpenCV's TBB workers keep spinning for a while after a parallel call; let them go idle so
    // they do not steal a core from whatever is timed next.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    f();
    std::vector<double> t = wall_times<std::milli>(runs, f);
    std::sort(t.begin(), t.end());
    return {t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]), t.front()};
}

}  // namespace imghist::bench
