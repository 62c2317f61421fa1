// The three report formats of the imghist command: table, JSON and CSV.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
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

// One merged histogram: the successful files whose channels and bins all match. Files of
// another layout (16-bit among 8-bit, gray among RGB, RGBA with --alpha) get their own group,
// so no counted file is ever left out of a sum.
struct SumGroup {
    Result result;
    std::vector<std::size_t> members;  // indices into the outcomes, in input order
    std::uint64_t pixels = 0;
    std::vector<PixelFormat> formats;  // the members' pixel formats, in order of appearance
};

// The groups in order of their first file.
std::vector<SumGroup> sum_outcomes(const std::vector<FileOutcome>& outcomes);
// "rgb8", or "rgb8+rgba8" when the members differ in pixel format (but not in bins).
std::string formats_label(const SumGroup& group);

// The JSON document (schema 2, docs/cli.md). Returns false when a result could not be encoded;
// it is then listed in "errors" instead, and every other result is still written.
bool write_json(std::ostream& out, const std::vector<FileOutcome>& outcomes,
                const std::vector<SumGroup>* sums);
void write_csv(std::ostream& out, const std::vector<FileOutcome>& outcomes,
               const std::vector<SumGroup>* sums);
void write_table(std::ostream& out, const std::vector<FileOutcome>& outcomes,
                 const std::vector<SumGroup>* sums);

// Names and messages for a terminal, the table, CSV and plot titles: one line of valid UTF-8
// that nothing can act on, and that gives back the original bytes (docs/cli.md, "Names"):
// printable characters as they are; \\ for a backslash; \n, \r, \t; \xHH for other control
// bytes, DEL and bytes that are not UTF-8; \uHHHH for C1 controls, line separators and
// bidirectional controls.
std::string display_text(std::string_view bytes);
bool is_utf8(std::string_view bytes);

// "256 bins over [0, 256)", "257 bins over [0, 1] (bin 256 = 1.0 and above)", ...
std::string describe_layout(const BinLayout& layout);

}  // namespace imghist::cli
