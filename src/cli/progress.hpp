// The command's progress on stderr: files done, rates, errors and the time left.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>

namespace imghist::cli {

// Where the progress goes: nowhere, one line redrawn in place on a terminal, or plain lines
// (a log file) with a summary at the end.
enum class ProgressMode { off, terminal, log };

// What the line shows, as of the last file done.
struct ProgressState {
    std::size_t done = 0;
    std::optional<std::size_t> total;  // unknown: no percent and no ETA
    std::uint64_t bytes = 0;           // input bytes of the files done
    std::size_t errors = 0;            // files done that failed
    std::string file;                  // the last file done, as named
};

// The progress line, at most `width` columns; with a known total, e.g.
// "[12/20 60%]  3.0 files/s  0.9 MB/s  1 error  ETA 0:03  dir/a.png". Rates are "--" while no
// time has passed, the ETA "--:--" before a second and a file (docs/cli.md, "Progress"); the
// file name is shortened from the left to fit, and left out where fewer than 8 columns remain.
std::string progress_line(const ProgressState& state, double elapsed_s, std::size_t width);

// The log's last line: "imghist: 20 files in 4.0 s (5.0 files/s, 0.9 MB/s), 1 error".
std::string progress_summary(const ProgressState& state, double elapsed_s);

// Columns of the terminal at `fd`; 80 when it is not a terminal or does not say.
std::size_t terminal_width(int fd);

// Seconds on the steady clock, from an arbitrary start.
double steady_seconds();

// Draws the progress as workers finish files; every member may be called from any thread.
class Progress {
public:
    using Clock = std::function<double()>;        // seconds, from any fixed start
    using Width = std::function<std::size_t()>;  // the terminal's columns, asked at each redraw

    Progress(ProgressMode mode, std::optional<std::size_t> total, std::ostream& out, Width width,
             Clock clock = steady_seconds);

    bool shown() const { return mode_ != ProgressMode::off; }

    // One file done: redraws the line at most 10 times a second on a terminal (always for
    // the last file), a log line at most once a second (always for the first file).
    void done(const std::string& file, std::uint64_t bytes_read, bool failed);

    // Clears the terminal's line and holds the stream until the returned lock is released, so
    // a message written meanwhile (an error) starts on a line of its own; the next file redraws.
    [[nodiscard]] std::unique_lock<std::mutex> interrupt();

    // Clears the terminal's line, or writes the log's summary. Once; nothing after it is drawn.
    void finish();

private:
    void clear_line();  // under mutex_

    ProgressMode mode_;
    std::ostream& out_;
    Width width_;
    Clock clock_;
    double start_s_;
    std::optional<double> last_draw_s_;  // none before the first line
    bool line_shown_ = false;            // a terminal line is on screen
    bool finished_ = false;
    ProgressState state_;
    std::mutex mutex_;
};

}  // namespace imghist::cli
