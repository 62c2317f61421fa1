// The read-only floor (floors.hpp). The pass sums every 64-bit word of each row into four
// accumulators, so that the loads do not wait on one another and the time is the memory
// system's; the sum goes to a volatile so that the pass cannot be optimised away.
#include "floors.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "bare_count.hpp"
#include "compare.hpp"

namespace imghist::bench {
namespace {

using testing::Pattern;

volatile std::uint64_t g_sink;

void read_every_byte(const ImageView& v) {
    const std::size_t words = std::size_t(v.width) * format_info(v.format).pixel_bytes() / 8;
    std::uint64_t s[4] = {0, 0, 0, 0};
    for (std::uint32_t y = 0; y < v.height; ++y) {
        const std::byte* row = v.row(y);
        std::size_t i = 0;
        for (; i + 4 <= words; i += 4)
            for (int k = 0; k < 4; ++k) {
                std::uint64_t w;
                std::memcpy(&w, row + (i + std::size_t(k)) * 8, 8);
                s[k] += w;
            }
        for (; i < words; ++i) {
            std::uint64_t w;
            std::memcpy(&w, row + i * 8, 8);
            s[0] += w;
        }
    }
    g_sink = s[0] + s[1] + s[2] + s[3];
}

// The increments alone of counting four samples per pixel (bare_count.hpp), on the 8-bit RGBA
// image of the same size and pattern, in the wider samples' order: as many increments as imghist
// makes for the float image.
void increment_every_sample(const ImageView& rgba8) {
    alignas(64) static BareCounts<4> counts;
    bare_count_pass<4, false, 1>(rgba8, counts);
    g_sink = counts[0][0][0] + counts[3][3][255];
}

// The table look-ups and increments alone of the same float image (bare_count.hpp).
void look_up_every_sample(const ImageView& rgba) {
    static const std::vector<std::uint16_t> f32_table = bare_table(false), f16_table = bare_table(true);
    alignas(64) static BareCounts<4> counts;
    const bool half = format_info(rgba.format).sample == SampleType::f16;
    bare_table_count_pass(rgba, (half ? f16_table : f32_table).data(), counts);
    g_sink = counts[0][0][0] + counts[3][3][255];
}

struct FloorCase {
    const char* what;
    PixelFormat format;
    bool bins256;  // 256 bins over [0, 1) rather than the format's default
};

Request rgba_request(bool bins256) {
    Request r;
    r.mode = Mode::rgb;
    r.count_alpha = true;
    if (bins256) {
        r.bins.bins = 256;
        r.bins.range = {{0.0, 1.0}};
    }
    return r;
}

}  // namespace

std::vector<FloorRow> time_floors(Engine& one_thread, int runs) {
    static constexpr FloorCase kCases[] = {
        {"RGBA f32 -> R,G,B,A, 256 bins [0,1)", PixelFormat::rgba_f32, true},
        {"RGBA f32 -> R,G,B,A, default bins", PixelFormat::rgba_f32, false},
        {"RGBA f16 -> R,G,B,A, default bins", PixelFormat::rgba_f16, false},
    };
    std::vector<FloorRow> rows;
    for (const FloorCase& c : kCases)
        for (const Pattern pattern : {Pattern::random, Pattern::natural, Pattern::constant}) {
            const auto& img = image(c.format, pattern);
            const Request request = rgba_request(c.bins256);
            FloorRow row{c.what, testing::pattern_name(pattern), {}, {}, {}, {}};
            const auto& img8 = image(PixelFormat::rgba8, pattern);
            row.read = time_ms(runs, [&] { read_every_byte(img.view); });
            row.increments = time_ms(runs, [&] { increment_every_sample(img8.view); });
            row.look_ups = time_ms(runs, [&] { look_up_every_sample(img.view); });
            row.ours = time_ms(runs, [&] { one_thread.compute(img.view, request); });
            rows.push_back(row);
            std::fprintf(stderr, "  floor %s %s done\n", c.what, row.pattern.c_str());
        }
    return rows;
}

void print_floor_table(const std::vector<FloorRow>& rows) {
    std::printf("\nRead-only floor: imghist cpu on 1 thread against one thread reading every byte of the "
                "image once (64-bit words); goal: imghist / pass <= 1.10. The increment bound: one thread making "
                "the same number of increments (4 per pixel, 8-bit indices of the RGBA8 image of the same "
                "pattern, in the kernels' order: bare_count.hpp) and nothing else; where it is above the pass, "
                "the goal sits below the increment rate of one core. The table bound: one thread making, per "
                "sample of the float image itself, the table kernels' 16-bit load, table read and increment "
                "(bare_table_count_pass) and nothing else: the least that counting through a table costs\n");
    std::printf("\n| case | image | read pass median (min), ms | increments alone median (min), ms | "
                "table look-ups + increments alone median (min), ms | imghist 1 thread median (min), ms | "
                "imghist / pass, medians (mins) | imghist / table bound, medians | met (medians) |\n");
    std::printf("|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    for (const FloorRow& r : rows) {
        const double ratio = r.ours.median_ms / r.read.median_ms;
        std::printf("| %s | %s | %s | %s | %s | %s | %.2f (%.2f) | %.2f | %s |\n", r.what.c_str(), r.pattern.c_str(),
                    ms(r.read).c_str(), ms(r.increments).c_str(), ms(r.look_ups).c_str(), ms(r.ours).c_str(), ratio,
                    r.ours.min_ms / r.read.min_ms, r.ours.median_ms / r.look_ups.median_ms, ratio <= 1.10 ? "yes" : "NO");
    }
}

}  // namespace imghist::bench
