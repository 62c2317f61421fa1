// How many tiles --tiles may ask for: every tile holds a histogram of every channel, so the
// counters of one file grow as tiles x channels x bins, in memory and in the JSON report.
#pragma once

#include <cstdint>
#include <string>

#include "imghist/request.hpp"

namespace imghist::cli {

// 8 Mi counters: 64 MiB a file. 64 x 64 tiles of R, G, B, A, Y in 257 bins (5.3 Mi) write 16 MB
// of JSON, in some 330 MB while it is built. The library lets a Result hold 8 times more (its
// own bound, in src/core/engine.cpp), but each counter costs some 50 bytes while the report is
// written: beyond this a report of many such files would fit nowhere.
inline constexpr std::uint64_t kMaxReportTileCounters = std::uint64_t(1) << 23;

// The most counters `request`'s tiles take for one file of any pixel format: tiles x the most
// channels a format gives x the most bins a sample type gets.
std::uint64_t tile_counters(const Request& request);

// Throws UsageError (options.hpp) when tile_counters(request) is above kMaxReportTileCounters, saying
// how many and what to change; `tiles_text` is the --tiles value as typed.
void check_tile_counters(const Request& request, const std::string& tiles_text);

}  // namespace imghist::cli
