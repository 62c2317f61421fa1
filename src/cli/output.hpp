// The three report formats of the imghist command: table, JSON and CSV.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "imghist/result.hpp"

namespace imghist::cli {

// What happened to one input file: a complete result, or an error (never both).
struct FileOutcome {
    std::string file;
    std::optional<Result> result;
    std::vector<std::string> notes;  // reader notes followed by Result::notes
    std::string error;               // one line, without the file name
};

// The merged histogram over every successful file whose bins match the first one's.
struct SumOutcome {
    std::optional<Result> result;
    std::size_t files = 0;
    std::uint64_t pixels = 0;
    std::string format;  // the shared pixel format, or "mixed"
    std::vector<std::pair<std::string, std::string>> excluded;  // file, reason
};

SumOutcome sum_outcomes(const std::vector<FileOutcome>& outcomes);

void write_json(std::ostream& out, const std::vector<FileOutcome>& outcomes,
                const SumOutcome* sum);
void write_csv(std::ostream& out, const std::vector<FileOutcome>& outcomes, const SumOutcome* sum);
void write_table(std::ostream& out, const std::vector<FileOutcome>& outcomes,
                 const SumOutcome* sum);

// "256 bins over [0, 256)", "257 bins over [0, 1] (bin 256 = 1.0 and above)", ...
std::string describe_layout(const BinLayout& layout);
// Lower edge of bin k in sample units (the top bin of the float rule starts at 1.0).
double bin_lower_edge(const BinLayout& layout, std::uint32_t k);

}  // namespace imghist::cli
