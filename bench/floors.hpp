// The read-only floor of imghist_compare: one thread reading every byte of an 8K float image
// once, against imghist on one thread counting R, G, B and A of the same image, and the
// increments alone (the store bound of four counts per pixel). Issue 14's float goal is imghist
// within 10% of the pass; unlike the anchors it needs no other library.
#pragma once

#include <string>
#include <vector>

#include "bench_support.hpp"
#include "imghist/imghist.hpp"

namespace imghist::bench {

struct FloorRow {
    std::string what, pattern;
    // the read-only pass, the increments alone, the table look-ups and increments alone, imghist on one thread
    Timing read, increments, look_ups, ours;
};

// Times the floor rows (RGBA f32 with 256 bins over [0, 1) and with its default bins, RGBA
// f16 with its default bins; random, natural, constant) with `one_thread`, an engine with
// EngineOptions::threads = 1.
std::vector<FloorRow> time_floors(Engine& one_thread, int runs);
// Prints them as a Markdown table: imghist's time over the pass's (goal: at most 1.10).
void print_floor_table(const std::vector<FloorRow>& rows);

}  // namespace imghist::bench
