// The values of options, parsed: counts, numbers, ranges, edges and integer lists. A value that
// does not parse is a UsageError naming the option.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace imghist::cli {

// --max-pixels: an integer, optionally with a K/M/G suffix (powers of 1000).
std::uint64_t parse_count(const std::string& text);
// A finite number; `what` names the option in the error.
double parse_double(const std::string& text, const std::string& what);
// LO:HI with LO below HI ("-1:2" works).
std::pair<double, double> parse_range(const std::string& text, const std::string& what = "--range");
// --edges E0,E1,... or @FILE.
std::vector<double> parse_edges(const std::string& text);
// --ev LO:HI:BINS_PER_STOP: the log2 edges.
std::vector<double> parse_ev(const std::string& text);
// --percentiles P,P,...: numbers in [0, 100].
std::vector<double> parse_percentiles(const std::string& text);
// N comma-separated unsigned 32-bit integers, for --roi and --tiles.
std::vector<std::uint32_t> parse_integers(const std::string& text, std::size_t n, const std::string& what,
                                          const std::string& shape);

}  // namespace imghist::cli
