// Ending a run on Ctrl-C (SIGINT) or SIGTERM: the report is closed with what was done, so it
// stays a valid document (docs/cli.md, "Interruption"), and the command exits 128 + the signal.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace imghist::cli {

// A run that a signal ended early: the report holds the first `reported` of its `inputs`.
struct Interruption {
    int signal = 0;            // SIGINT or SIGTERM
    std::size_t reported = 0;  // inputs reported (results and errors), in input order
    std::size_t inputs = 0;    // inputs named (files, and directories that held none)
};

// "SIGINT", "SIGSEGV"; "signal 64" for one without a name.
std::string signal_name(int signal);

// 128 + the signal's number, as a shell reports a command the signal ended (130 for SIGINT).
int interrupted_status(int signal);

// {"signal":"SIGINT","reported":3,"inputs":6,"note":"..."}: the JSON report's "interrupted".
std::string interruption_json(const Interruption& interruption);

// The line on stderr: "interrupted by SIGINT: 3 of 6 inputs reported; the others were not".
std::string interruption_message(const Interruption& interruption);

// Blocks SIGINT and SIGTERM in the calling thread, so in every thread started after it, and
// starts the thread that waits for them. Call it once, before any other thread is started.
// A signal then runs the current InterruptHandler on a thread of its own and exits with
// interrupted_status; with none, or at a second signal, the process exits at once.
void watch_interrupting_signals();

// What a signal does while this object lives: `close` gets the signal, closes the report and
// returns; the process then exits. The destructor waits for a `close` in progress, so what
// `close` uses may be destroyed after it.
class InterruptHandler {
public:
    explicit InterruptHandler(std::function<void(int signal)> close);
    ~InterruptHandler();
    InterruptHandler(const InterruptHandler&) = delete;
    InterruptHandler& operator=(const InterruptHandler&) = delete;
};

}  // namespace imghist::cli
