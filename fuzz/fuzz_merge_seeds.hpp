// Seeds of the merge fuzz target: reports of the command's current schema, written with its own
// report writers (src/cli/output.cpp) from results the `reference` backend counts.
#pragma once

#include <string>

namespace imghist::fuzz {

// Writes the seed reports into `dir` (made if missing).
void write_merge_seeds(const std::string& dir);

}  // namespace imghist::fuzz
