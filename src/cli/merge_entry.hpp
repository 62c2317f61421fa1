// One entry of an imghist report read back for imghist merge: a per-file result, a sum or an
// error, each field checked as it is read (report_check.hpp checks how the fields agree).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "output.hpp"
#include "report_check.hpp"

namespace imghist::cli {

// Ordered: the entries' fields are read in the order the report lists them.
using ReportJson = nlohmann::ordered_json;

// The histograms of a result or a sum, with what it says it counted.
struct MergeEntry {
    Result result;
    std::vector<std::string> files;  // the result's file, or the files of the sum
    std::uint64_t pixels = 0;        // the images' pixels, as a sum's "pixels" counts them
    std::vector<PixelFormat> formats;
    bool camera_raw = false;  // histograms keyed R, G1, B, G2
    EntryPixels counted;
    std::string where;  // for messages: "p1.json: sums[0]"
};

// Throws MergeInputError "where: what".
[[noreturn]] void fail(const std::string& where, const std::string& what);

// At most `max` bytes of `text`, escaped as every message is, between `quote`s, and its length
// when it is longer, so a message never repeats a huge value whole.
std::string excerpt(std::string_view text, std::size_t max = 64, const char* quote = "");

// A {"file", "width", "height", "format", "histograms", ...} entry; throws MergeInputError.
MergeEntry result_entry(const ReportJson& entry, const std::string& where);
// A {"files", "pixels", "formats", "histograms", ...} entry; throws MergeInputError.
MergeEntry sum_entry(const ReportJson& entry, const std::string& where);
// A {"file", "error"} entry of `input`; throws MergeInputError.
FileOutcome error_entry(const ReportJson& entry, const std::string& where, const std::string& input);

}  // namespace imghist::cli
