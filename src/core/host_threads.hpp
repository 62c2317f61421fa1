// Host passes over an image's rows (the selection's gather, the value extremes): split among a
// few threads when the rows are big enough to pay for them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace imghist {

// Threads for a host pass over `rows` rows of `bytes` in all: one below 4 MiB, else up to 8
// (each share may cost a count call of its own, so not one per core of a big machine).
inline unsigned host_pass_threads(std::size_t bytes, std::uint32_t rows) {
    constexpr std::size_t kMinBytesForThreads = std::size_t(4) << 20;
    constexpr unsigned kMaxThreads = 8;
    if (bytes < kMinBytesForThreads) return 1;
    return std::max(1u, std::min({std::thread::hardware_concurrency(), kMaxThreads, rows}));
}

// First row of share t of `rows` rows in `threads` shares (t = threads gives `rows`).
inline std::uint32_t row_share_begin(std::uint32_t rows, unsigned threads, unsigned t) {
    return std::uint32_t(std::uint64_t(rows) * t / threads);
}

// Runs work(t, begin, end) for each share t of rows [0, rows): t = 0 on the caller's thread.
// `work` must not throw.
template <class Work>
void for_row_shares(std::uint32_t rows, unsigned threads, const Work& work) {
    const auto share = [&](unsigned t) { work(t, row_share_begin(rows, threads, t), row_share_begin(rows, threads, t + 1)); };
    std::vector<std::jthread> helpers;
    for (unsigned t = 1; t < threads; ++t) helpers.emplace_back(share, t);
    share(0);
}

}  // namespace imghist
