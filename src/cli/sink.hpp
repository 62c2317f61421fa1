// The outcomes of a run on their way to the report: written in input order as they come, added
// to the sums, and the report closed once, at the end of the run or when a signal ends it.
#pragma once

#include <cstddef>
#include <mutex>
#include <ostream>
#include <vector>

#include "interrupt.hpp"
#include "options.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "read_summary.hpp"

namespace imghist::cli {

// Keeps only what the charts need (every counted file with --plot FILE-{}, else the first), so
// memory does not grow with the number of files. Every member may be called from any thread.
class Sink {
public:
    // `out` is the report's stream; `inputs` the number of inputs the run was given.
    Sink(const CommandLine& line, Report& report, std::ostream& out, Progress& progress, bool results_on_terminal,
         std::size_t inputs);

    // Writes one outcome and sends it on to `out` at once (a pipe's reader sees each file as it
    // is done); nothing once the report is closed.
    void take(FileOutcome& o);
    // Ends the report at the end of the run, with the sums when asked; false when something
    // could not be encoded. Nothing when it is closed already.
    bool close();
    // Ends the report of a run a signal stopped, once the outcome being written is: what was
    // done, the sums of it, and the interruption. Returns the interruption it reported.
    Interruption close_interrupted(int signal);

    bool failed() const { return failed_; }
    std::size_t counted() const { return counted_; }
    const std::vector<SumGroup>& sums() const { return sums_.groups(); }
    std::vector<FileOutcome>& kept() { return kept_; }
    // What was counted and why the others were not (the walk's summary line).
    const ReadTally& tally() const { return tally_; }

private:
    bool close_locked(const Interruption* interruption);  // under mutex_

    Report& report_;
    std::ostream& out_;
    Progress& progress_;
    const bool summing_, reporting_sums_, plotting_, chart_per_file_, results_on_terminal_;
    const std::size_t inputs_;
    std::mutex mutex_;  // held while an outcome, or the end of the report, is written
    bool closed_ = false;
    bool failed_ = false;
    std::size_t counted_ = 0, reported_ = 0;
    SumGroups sums_;
    std::vector<FileOutcome> kept_;
    ReadTally tally_;
};

}  // namespace imghist::cli
