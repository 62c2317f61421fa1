// The line that ends a run which searched directories and did not read every file it found:
// how many inputs were counted, how many not, and why, so a walk never reads fewer files than
// it found without saying so (docs/cli.md, "Inputs").
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "output.hpp"

namespace imghist::cli {

class ReadTally {
public:
    // Counts one reported outcome: a result, or an error with its reason.
    void add(const FileOutcome& o);
    // "1 counted, 4 not read: HEIC needs --untrusted-readers (2), ..." (the commonest reasons
    // first, names escaped); "" when every input was read.
    std::string summary() const;

private:
    std::size_t counted_ = 0, not_read_ = 0;
    std::vector<std::pair<std::string, std::size_t>> reasons_;  // in order of first appearance, bounded
};

}  // namespace imghist::cli
