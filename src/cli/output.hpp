// The report formats of the imghist command: table, JSON, JSON Lines and CSV, and their sums.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "imghist/io.hpp"
#include "imghist/exposure.hpp"
#include "imghist/result.hpp"
#include "interrupt.hpp"

namespace imghist::cli {

// What happened to one input file: a complete result, or an error (never both).
struct FileOutcome {
    std::string file;
    std::optional<Result> result;
    std::vector<std::string> notes;  // reader notes followed by Result::notes
    std::string error;               // one line, without the file name
    // With --decode gpu: "gpu" or "cpu" (the reader that decoded it), and why the GPU left it.
    std::string decoder, gpu_fallback;
    // A camera raw file's levels and clipping; its result's R, G, B, A are R, G1, B, G2.
    std::optional<io::SensorChannels> sensor;
};

// A file counted in a sum: its name and its index among the report's results (npos where the
// report lists no results, as with --sum-only).
struct SumMember {
    std::string file;
    std::size_t result_index = 0;
};

// One merged histogram: the successful files whose channels and bins all match. Files of
// another layout (16-bit among 8-bit, gray among RGB, RGBA with --alpha) get their own group,
// so no counted file is ever left out of a sum.
struct SumGroup {
    Result result;
    std::vector<SumMember> members;  // in input order
    std::uint64_t pixels = 0;
    std::vector<PixelFormat> formats;  // the members' pixel formats, in order of appearance
    // Camera raw files (channels R, G1, B, G2), summed apart from images of the same layout.
    bool camera_raw = false;
};

// The sums, grown one result at a time so no result is kept: groups in order of their first file.
class SumGroups {
public:
    // Merges `r` into the first group Result::merge accepts, or starts a group. `pixels` and
    // `formats` are those of the members (a group read back from JSON brings several).
    void add(const Result& r, std::vector<SumMember> members, std::uint64_t pixels,
             const std::vector<PixelFormat>& formats, bool camera_raw = false);
    void add(const FileOutcome& o, std::size_t result_index);
    const std::vector<SumGroup>& groups() const { return groups_; }

private:
    std::vector<SumGroup> groups_;
};

// "rgb8", or "rgb8+rgba8" when the members differ in pixel format (but not in bins); for
// camera raw files "camera-raw-rgba16", apart from rgba16 images in CSV and chart names.
std::string formats_label(const SumGroup& group);
inline std::string camera_raw_label(const std::string& format) { return "camera-raw-" + format; }

inline constexpr std::size_t kNoResult = std::size_t(-1);

// The version of the JSON layout (docs/cli.md, "JSON"); imghist merge reads it and the ones
// back to kOldestMergedSchema (schema 2 is schema 3 without sample statistics).
inline constexpr int kJsonSchema = 3;
inline constexpr int kOldestMergedSchema = 2;

// A report written as the outcomes come, in input order, so none is kept: table, json, jsonl
// or csv (docs/cli.md). Errors go on stderr, except in json and jsonl.
class Report {
public:
    virtual ~Report() = default;
    // Writes one outcome and returns its index among the results written (kNoResult for an
    // error, a result not encoded, or a report without per-file results).
    virtual std::size_t add(const FileOutcome& o) = 0;
    // Ends the report, with the sums when not null, and the interruption when a signal ended the
    // run (json and jsonl say so in the report, the others on stderr). False when something could
    // not be encoded (it is then an error entry, and every other entry is still written).
    virtual bool finish(const std::vector<SumGroup>* sums, const Interruption* interruption) = 0;
};

// `per_file` false: only errors and the sums (--sum-only). `exposure` (--exposure): each result
// and sum also reports the auto-exposure of its luminance (csv leaves it out).
std::unique_ptr<Report> make_report(const std::string& format, std::ostream& out, bool per_file,
                                    const std::optional<ExposureSettings>& exposure = std::nullopt);

// Names and messages for a terminal, the table, CSV and plot titles: one line of valid UTF-8
// that nothing can act on, and that gives back the original bytes (docs/cli.md, "Names"):
// printable characters as they are; \\ for a backslash; \n, \r, \t; \xHH for other control
// bytes, DEL and bytes that are not UTF-8; \uHHHH for C1 controls, line separators and
// bidirectional controls.
std::string display_text(std::string_view bytes);
bool is_utf8(std::string_view bytes);
// A file name for a JSON string: the name itself when it is UTF-8, else with U+FFFD for each
// byte that is not (the exact bytes then go beside it, as hex_bytes).
std::string utf8_or_replaced(std::string_view bytes);
// "6a70": two lowercase hex digits a byte.
std::string hex_bytes(std::string_view bytes);


// "256 bins over [0, 256)", "257 bins over [0, 1] (bin 256 = 1.0 and above)", ...
std::string describe_layout(const BinLayout& layout);

}  // namespace imghist::cli
