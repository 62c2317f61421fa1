// The charts --plot asks for, planned from the outcomes and drawn with plot.hpp.
#pragma once

#include <string>
#include <vector>

#include "output.hpp"

namespace imghist::cli {

// Draws the charts of `plot_path` for the outcomes: one per file when the path holds {}, the
// sums' charts when `sums` is not empty, else the first counted file's. Each failure is one
// line on stderr; a chart never replaces another chart of this run or one of the `inputs`.
// Returns false when a chart was not written or there was nothing to plot.
bool plot_outcomes(const std::string& plot_path, bool log, const std::vector<FileOutcome>& outcomes,
                   const std::vector<SumGroup>& sums, const std::vector<std::string>& inputs);

}  // namespace imghist::cli
