// Numbers as the reports print them (table, CSV, layout descriptions): the shortest text that
// reads back as the same double, fixed decimals, shares and thousands separators.
#pragma once

#include <cstdint>
#include <string>

namespace imghist::cli {

// Shortest text that reads back as the same double ("256", "0.00390625").
std::string number(double v);
std::string fixed(double v, int decimals);
// "12.50%", "<0.01%", "0%".
std::string percent(double share);
// "1,234,567".
std::string thousands(std::uint64_t v);

}  // namespace imghist::cli
