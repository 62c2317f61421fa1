#include "sink.hpp"

#include <iostream>
#include <string>

namespace imghist::cli {

Sink::Sink(const CommandLine& line, Report& report, std::ostream& out, Progress& progress, bool results_on_terminal,
           std::size_t inputs)
    : report_(report), out_(out), progress_(progress),
      summing_(line.sum || line.sum_only || !line.plot_path.empty()), reporting_sums_(line.sum || line.sum_only),
      plotting_(!line.plot_path.empty()), chart_per_file_(line.plot_path.find("{}") != std::string::npos),
      results_on_terminal_(results_on_terminal), inputs_(inputs) {}

void Sink::take(FileOutcome& o) {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    // An error on stderr, or a result on the terminal that shows the progress, must not be
    // written into the progress line.
    std::unique_lock<std::mutex> progress_held;
    if (!o.result || results_on_terminal_) progress_held = progress_.interrupt();
    ++reported_;
    if (!o.result) failed_ = true;
    tally_.add(o);
    try {
        const std::size_t index = report_.add(o);
        out_.flush();
        if (!o.result) return;
        ++counted_;
        if (summing_) sums_.add(o, index);
        if (plotting_ && (chart_per_file_ || kept_.empty())) kept_.push_back(std::move(o));
    } catch (const std::exception& e) {  // out of memory: this file is lost, not the others
        failed_ = true;
        if (!progress_held) progress_held = progress_.interrupt();
        std::cerr << "imghist: " << display_text(o.file) << ": cannot be reported: " << display_text(e.what()) << '\n';
    }
}

bool Sink::close() {
    std::lock_guard lock(mutex_);
    return close_locked(nullptr);
}

Interruption Sink::close_interrupted(int signal) {
    std::lock_guard lock(mutex_);
    const Interruption interruption{signal, reported_, inputs_};
    (void)close_locked(&interruption);
    return interruption;
}

bool Sink::close_locked(const Interruption* interruption) {
    if (closed_) return true;
    closed_ = true;
    const bool encoded = report_.finish(reporting_sums_ ? &sums_.groups() : nullptr, interruption);
    out_.flush();
    return encoded;
}

}  // namespace imghist::cli
