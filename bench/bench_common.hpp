// What every bench program shares, plain C++ (no GPU API, no test images, so the GPU benches
// need not link the test generators): option parsing, medians of timed runs, the names of the
// four image distributions, a thread per core for the image generators.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <thread>
#include <vector>

namespace imghist::bench {

// An option without a value: sets *target to `value`.
struct Flag {
    const char* name;
    bool* target;
    bool value = true;
};
// An option followed by its value (the next argument).
struct Valued {
    const char* name;
    std::function<void(const char*)> set;
};

// Reads every argument; returns false if any was none of the options (a valued option as the
// last argument, without its value, included). Each program decides what an unknown one means.
inline bool parse_args(int argc, char** argv, std::initializer_list<Flag> flags,
                       std::initializer_list<Valued> valued) {
    bool all_known = true;
    for (int i = 1; i < argc; ++i) {
        bool known = false;
        for (const Valued& v : valued)
            if (!known && !std::strcmp(argv[i], v.name) && i + 1 < argc) {
                v.set(argv[++i]);
                known = true;
            }
        for (const Flag& f : flags)
            if (!known && !std::strcmp(argv[i], f.name)) {
                *f.target = f.value;
                known = true;
            }
        all_known = all_known && known;
    }
    return all_known;
}

// The middle sample (the upper one of the two middles for an even count; 0 for none).
template <typename T>
T median(std::vector<T> samples) {
    std::sort(samples.begin(), samples.end());
    return samples.empty() ? T(0) : samples[samples.size() / 2];
}

// The median of `runs` calls of sample(), each returning one run's time.
template <typename F>
auto median_of(int runs, F&& sample) {
    std::vector<decltype(sample())> t;
    for (int i = 0; i < runs; ++i) t.push_back(sample());
    return median(std::move(t));
}

// The host clock's time of each of `runs` calls of f, in Unit (std::milli, std::micro).
template <typename Unit, typename F>
std::vector<double> wall_times(int runs, F&& f) {
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double, Unit>(std::chrono::steady_clock::now() - start).count());
    }
    return t;
}

// Calls f until `ms` milliseconds have passed (at least once). A GPU lowers its clocks within
// milliseconds of going idle (nvidia-smi showed an H100 at 885-990 MHz instead of 1980 during a
// bench's host work) and takes tens of milliseconds to raise them again, so a measurement that
// follows host work first keeps the GPU busy this long; a few warm-up calls were not enough.
template <typename F>
void keep_busy(double ms, F&& f) {
    const auto start = std::chrono::steady_clock::now();
    do f();
    while (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() < ms);
}
inline constexpr double kGpuWarmMs = 200;

// The four distributions of the GPU benches, in their table order (tests/support's kinds).
enum class Dist { random, natural, constant, bank };
inline constexpr Dist kDists[] = {Dist::random, Dist::natural, Dist::constant, Dist::bank};
inline const char* dist_name(Dist d) {
    switch (d) {
        case Dist::random: return "random";
        case Dist::natural: return "natural";
        case Dist::constant: return "constant";
        case Dist::bank: return "bank-adversarial";
    }
    return "?";
}

// The masks of the mask benchmarks (issue 17), as gray8 bytes of a w x h image: `all` keeps every
// pixel, `disc` a centred disc (78% of the pixels, long runs, as a painted mask), `noise` every
// other pixel at random (50%, no runs).
inline std::vector<std::uint8_t> bench_mask_bytes(const char* kind, std::uint32_t w, std::uint32_t h) {
    std::vector<std::uint8_t> m(std::size_t(w) * h);
    std::uint32_t state = 12345;
    for (std::uint32_t y = 0; y < h; ++y)
        for (std::uint32_t x = 0; x < w; ++x) {
            const double dx = (double(x) - w / 2.0) / (w / 2.0), dy = (double(y) - h / 2.0) / (h / 2.0);
            state = state * 1664525u + 1013904223u;
            const bool on = kind[0] == 'a' || (kind[0] == 'd' ? dx * dx + dy * dy < 1 : (state >> 31) != 0);
            m[std::size_t(y) * w + x] = on ? 255 : 0;
        }
    return m;
}

// body(t, n) on n threads, one per core (at least one), t = 0 .. n-1; returns when all are done.
template <typename F>
void on_every_core(F&& body) {
    const unsigned n = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < n; ++t) pool.emplace_back([&body, t, n] { body(t, n); });
    for (auto& th : pool) th.join();
}

}  // namespace imghist::bench
