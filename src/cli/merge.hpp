// imghist merge: the JSON and JSON Lines reports of earlier runs read back and summed, so a
// dataset can be counted in pieces (docs/cli.md, "Merging reports").
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "output.hpp"

namespace imghist::cli {

// An input that is not an imghist report: the message names the file and the field.
struct MergeInputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What the inputs hold: their sums (or their results, for a run without sums) grouped by layout,
// the errors they reported, and warnings (a file listed in several inputs).
struct MergedInputs {
    SumGroups sums;
    std::vector<FileOutcome> errors;
    std::vector<std::string> warnings;
};

// Reads every input; throws MergeInputError at the first that is not a report of schema
// kJsonSchema, so nothing is written from a partial merge.
MergedInputs read_merge_inputs(const std::vector<std::string>& files);

}  // namespace imghist::cli
