// Outcomes finished in any order by the workers, handed on in input order.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>

#include "output.hpp"

namespace imghist::cli {

// Holds the outcomes that finish before an earlier one and hands each to `take` once every
// earlier one has been. A worker waits before starting a file `window` places past the next one
// due, so at most about `window` outcomes are ever held, whatever the number of files.
class InOrder {
public:
    InOrder(std::size_t window, std::function<void(FileOutcome&)> take) : window_(window), take_(std::move(take)) {}

    // Blocks until input `index` is within the window.
    void wait_turn(std::size_t index) {
        std::unique_lock lock(mutex_);
        turn_.wait(lock, [&] { return index < next_ + window_; });
    }

    // `take` runs under the lock, so the outcomes reach it one at a time.
    void done(std::size_t index, FileOutcome outcome) {
        std::lock_guard lock(mutex_);
        held_.emplace(index, std::move(outcome));
        const std::size_t before = next_;
        for (auto it = held_.begin(); it != held_.end() && it->first == next_; it = held_.erase(it), ++next_)
            take_(it->second);
        if (next_ != before) turn_.notify_all();
    }

private:
    std::size_t window_;
    std::function<void(FileOutcome&)> take_;
    std::mutex mutex_;
    std::condition_variable turn_;
    std::size_t next_ = 0;
    std::map<std::size_t, FileOutcome> held_;
};

}  // namespace imghist::cli
