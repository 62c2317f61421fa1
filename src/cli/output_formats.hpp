// The report formats behind make_report (output.hpp), a file each: output_json.cpp (json and
// jsonl), output_csv.cpp and output_table.cpp.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>

#include "output.hpp"

namespace imghist::cli {

// Table and CSV: errors on stderr as they come.
class TextReport : public Report {
public:
    TextReport(std::ostream& out, bool per_file) : out_(out), per_file_(per_file) {}
    std::size_t add(const FileOutcome& o) override;

protected:
    virtual void write(const FileOutcome& o) = 0;
    std::ostream& out_;
    bool per_file_;
    std::size_t results_ = 0;
};

// One JSON document, or (JSON Lines) one entry a line as it comes.
std::unique_ptr<Report> make_json_report(std::ostream& out, bool per_file, const std::optional<ExposureSettings>& exposure);
std::unique_ptr<Report> make_json_lines_report(std::ostream& out, bool per_file,
                                               const std::optional<ExposureSettings>& exposure);
std::unique_ptr<Report> make_csv_report(std::ostream& out, bool per_file);
std::unique_ptr<Report> make_table_report(std::ostream& out, bool per_file,
                                          const std::optional<ExposureSettings>& exposure);

}  // namespace imghist::cli
