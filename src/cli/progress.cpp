#include "progress.hpp"

#include <sys/ioctl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "output.hpp"

namespace imghist::cli {

namespace {

constexpr double kTerminalInterval = 0.1;  // seconds between redraws of the terminal's line
constexpr double kLogInterval = 1.0;       // seconds between the log's lines
constexpr std::size_t kMinNameColumns = 8;

std::string fixed1(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", v);
    return text;
}

// Per second, "--" while no time has passed.
std::string rate_text(double amount, double elapsed_s) { return elapsed_s > 0 ? fixed1(amount / elapsed_s) : "--"; }

std::string counted(std::size_t n, const char* noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// m:ss, or h:mm:ss from an hour on.
std::string clock_text(double seconds) {
    const long long s = std::llround(seconds);
    char text[32];
    if (s >= 3600) std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
    else std::snprintf(text, sizeof text, "%lld:%02lld", s / 60, s % 60);
    return text;
}

// From the rate so far, once it means something: a second and a file.
std::string eta_text(const ProgressState& state, double elapsed_s) {
    if (state.done == 0 || elapsed_s < 1.0) return "--:--";
    const std::size_t left = *state.total - std::min(state.done, *state.total);
    return clock_text(double(left) * elapsed_s / double(state.done));
}

// Columns of one UTF-8 byte, counted high where unsure: a code point from U+1000 on (lead
// byte 0xE1 and above) may be a wide East Asian one, so it counts 2. The line then ends
// before the terminal's edge, never past it. Continuation bytes count 0.
std::size_t byte_columns(unsigned char c) { return c < 0x80 ? 1 : c < 0xC0 ? 0 : c < 0xE1 ? 1 : 2; }

std::size_t columns(std::string_view text) {
    std::size_t n = 0;
    for (const char c : text) n += byte_columns(static_cast<unsigned char>(c));
    return n;
}

// `text` in at most `width` columns: its end kept (a file's name is there) behind "...", cut
// between code points.
std::string shortened_from_left(std::string_view text, std::size_t width) {
    if (columns(text) <= width) return std::string(text);
    if (width < 3) return std::string();
    std::size_t start = text.size(), used = 0;
    for (std::size_t i = text.size(); i-- > 0;) {
        const std::size_t c = byte_columns(static_cast<unsigned char>(text[i]));
        if (c == 0) continue;
        if (used + c > width - 3) break;
        used += c;
        start = i;
    }
    return "..." + std::string(text.substr(start));
}

}  // namespace

std::string progress_line(const ProgressState& state, double elapsed_s, std::size_t width) {
    std::string line = "[" + std::to_string(state.done);
    if (state.total) {
        const std::size_t percent = *state.total ? state.done * 100 / *state.total : 100;
        line += "/" + std::to_string(*state.total) + " " + std::to_string(percent) + "%";
    }
    line += "]  " + rate_text(double(state.done), elapsed_s) + " files/s  " +
            rate_text(double(state.bytes) / 1e6, elapsed_s) + " MB/s  " + counted(state.errors, "error");
    if (state.total) line += "  ETA " + eta_text(state, elapsed_s);
    // All ASCII so far: a byte is a column.
    if (line.size() >= width) return line.substr(0, width);
    const std::size_t room = width - line.size();
    if (!state.file.empty() && room >= 2 + kMinNameColumns)
        line += "  " + shortened_from_left(display_text(state.file), room - 2);
    return line;
}

std::string progress_summary(const ProgressState& state, double elapsed_s) {
    return "imghist: " + counted(state.done, "file") + " in " + fixed1(elapsed_s) + " s (" +
           rate_text(double(state.done), elapsed_s) + " files/s, " + rate_text(double(state.bytes) / 1e6, elapsed_s) +
           " MB/s), " + counted(state.errors, "error");
}

std::size_t terminal_width(int fd) {
    struct winsize size {};
    if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
    return 80;
}

double steady_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Progress::Progress(ProgressMode mode, std::optional<std::size_t> total, std::ostream& out, Width width, Clock clock)
    : mode_(mode), out_(out), width_(std::move(width)), clock_(std::move(clock)), start_s_(clock_()) {
    state_.total = total;
}

void Progress::done(const std::string& file, std::uint64_t bytes_read, bool failed) {
    if (mode_ == ProgressMode::off) return;
    std::lock_guard lock(mutex_);
    if (finished_) return;
    ++state_.done;
    state_.bytes += bytes_read;
    if (failed) ++state_.errors;
    state_.file = file;
    const double now = clock_();
    const bool last = state_.total && state_.done >= *state_.total;
    // The last column stays free, so the cursor never wraps to a new line.
    const std::size_t width = std::max<std::size_t>(width_(), 2) - 1;
    if (mode_ == ProgressMode::terminal) {
        // A line cleared for a message is drawn again at once.
        if (line_shown_ && !last && now - *last_draw_s_ < kTerminalInterval) return;
        out_ << "\r\033[K" << progress_line(state_, now - start_s_, width) << std::flush;
        line_shown_ = true;
    } else {
        if (last_draw_s_ && now - *last_draw_s_ < kLogInterval) return;
        out_ << progress_line(state_, now - start_s_, width) << '\n' << std::flush;
    }
    last_draw_s_ = now;
}

std::unique_lock<std::mutex> Progress::interrupt() {
    std::unique_lock lock(mutex_);
    clear_line();
    return lock;
}

void Progress::finish() {
    if (mode_ == ProgressMode::off) return;
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    if (mode_ == ProgressMode::terminal) clear_line();
    else out_ << progress_summary(state_, clock_() - start_s_) << '\n' << std::flush;
}

void Progress::clear_line() {
    if (!line_shown_) return;
    out_ << "\r\033[K" << std::flush;
    line_shown_ = false;
}

}  // namespace imghist::cli
