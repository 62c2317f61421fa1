// Filling host staging buffers fast: a small pool of persistent copy threads, and a copy with
// non-temporal stores. API-free (no GPU headers), so tests run it on any machine.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace imghist::gpu {

// True where copy_streaming uses non-temporal stores (x86 with AVX2); elsewhere it is memcpy.
bool have_streaming_copy();

// memcpy whose stores bypass the caches (AVX2 _mm256_stream_si256 on 32-byte aligned lines,
// memcpy for the unaligned head and tail and on other CPUs). A plain copy into a buffer that
// is only read later by DMA first reads every destination line (write-allocate) and evicts
// the source; streaming stores do neither. Ends with an sfence, so the bytes are visible to
// the device (and other threads) once the caller hands the buffer on.
void copy_streaming(void* dst, const void* src, std::size_t bytes);

// Copy threads created once (on first need, up to the largest count asked for) and reused, so
// that each staged chunk costs a wake-up instead of thread creation. The calling thread takes a
// share of every job. Idle threads sleep on a condition variable. One caller at a time.
class CopyPool {
public:
    CopyPool() = default;
    ~CopyPool();  // stops and joins the threads
    CopyPool(const CopyPool&) = delete;
    CopyPool& operator=(const CopyPool&) = delete;

    // Runs task(0), ..., task(parts - 1) on up to `threads` threads (the caller included) and
    // returns when all are done; the first exception a task threw is rethrown then.
    void run(int parts, int threads, const std::function<void(int)>& task);

    // Copies `bytes` in up to `threads` parts of whole 64-byte lines (at least kMinPart bytes
    // each), with copy_streaming where `streaming`, else memcpy.
    void copy(void* dst, const void* src, std::size_t bytes, int threads, bool streaming);

    // Threads started so far, the caller not counted.
    int started() const { return int(workers_.size()); }

    // A part smaller than this is not worth a thread's wake-up.
    static constexpr std::size_t kMinPart = std::size_t(512) << 10;

private:
    void work(int index);
    void take_parts();

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    // The current job; written under mutex_ before gen_ moves, read by the helpers after.
    const std::function<void(int)>* task_ = nullptr;
    int parts_ = 0;
    int helpers_ = 0;          // workers 0 .. helpers_-1 take part in the current job
    int pending_ = 0;          // helpers not yet finished
    std::uint64_t gen_ = 0;    // job number
    bool stop_ = false;
    std::exception_ptr error_;
    std::atomic<int> next_{0};  // next part to take: parts go to whoever is free
};

}  // namespace imghist::gpu
