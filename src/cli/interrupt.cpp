#include "interrupt.hpp"

#include <nlohmann/json.hpp>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <iostream>
#include <mutex>
#include <thread>

namespace imghist::cli {

namespace {

// The handler of the run, if any; never destroyed, as the waiting thread outlives main().
struct Watch {
    std::mutex mutex;  // held while the handler closes the report
    std::function<void(int)> close;
    std::atomic<bool> signalled{false};
};
Watch& watch() {
    static Watch* const w = new Watch;
    return *w;
}

// The first signal: the report is closed on this thread, while the waiting thread stays ready
// for a second signal (a report that cannot be written, such as a stdout nobody reads, must not
// keep the command from ending).
[[noreturn]] void close_and_exit(int signal) {
    Watch& w = watch();
    {
        std::lock_guard lock(w.mutex);
        if (w.close) w.close(signal);
        else std::cerr << "imghist: interrupted by " << signal_name(signal) << '\n';
    }
    ::_exit(interrupted_status(signal));
}

[[noreturn]] void wait_for_signals(sigset_t signals) {
    for (;;) {
        int signal = 0;
        if (::sigwait(&signals, &signal) != 0) continue;
        if (watch().signalled.exchange(true)) ::_exit(interrupted_status(signal));  // the second: at once
        std::thread(close_and_exit, signal).detach();
    }
}

}  // namespace

std::string signal_name(int signal) {
    const char* abbrev = ::sigabbrev_np(signal);
    return abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(signal);
}

int interrupted_status(int signal) { return 128 + signal; }

std::string interruption_json(const Interruption& i) {
    const nlohmann::ordered_json j = {
        {"signal", signal_name(i.signal)},
        {"reported", i.reported},
        {"inputs", i.inputs},
        {"note", "the run was interrupted: the report holds the first " + std::to_string(i.reported) + " of " +
                     std::to_string(i.inputs) + " inputs, in input order (their results, errors and sums); the "
                     "others were not counted"}};
    return j.dump();
}

std::string interruption_message(const Interruption& i) {
    return "interrupted by " + signal_name(i.signal) + ": " + std::to_string(i.reported) + " of " +
           std::to_string(i.inputs) + " inputs reported; the others were not counted";
}

void watch_interrupting_signals() {
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    ::pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    (void)watch();
    std::thread(wait_for_signals, signals).detach();
}

InterruptHandler::InterruptHandler(std::function<void(int)> close) {
    std::lock_guard lock(watch().mutex);
    watch().close = std::move(close);
}

InterruptHandler::~InterruptHandler() {
    std::lock_guard lock(watch().mutex);
    watch().close = nullptr;
}

}  // namespace imghist::cli
