#include "gpu/copy_pool.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define IMGHIST_STREAMING_X86 1
#endif

namespace imghist::gpu {

#ifdef IMGHIST_STREAMING_X86
namespace {

// 128 bytes (two lines) per step: four unaligned loads, four aligned streaming stores.
__attribute__((target("avx2"))) void stream_lines_avx2(unsigned char* dst, const unsigned char* src, std::size_t n) {
    for (std::size_t i = 0; i < n; i += 128) {
        const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
        const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 32));
        const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 64));
        const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 96));
        _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i), a);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i + 32), b);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i + 64), c);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i + 96), d);
    }
}

}  // namespace

bool have_streaming_copy() {
    static const bool avx2 = __builtin_cpu_supports("avx2");
    return avx2;
}

void copy_streaming(void* dst, const void* src, std::size_t bytes) {
    // Below a few lines the head and tail are all there is.
    if (bytes < 256 || !have_streaming_copy()) {
        std::memcpy(dst, src, bytes);
        return;
    }
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    const std::size_t head = (32 - (reinterpret_cast<std::uintptr_t>(d) & 31)) & 31;
    std::memcpy(d, s, head);
    const std::size_t body = (bytes - head) / 128 * 128;
    stream_lines_avx2(d + head, s + head, body);
    std::memcpy(d + head + body, s + head + body, bytes - head - body);
    // Streaming stores are weakly ordered: drain them before anyone is told the copy is done.
    _mm_sfence();
}
#else
bool have_streaming_copy() { return false; }
void copy_streaming(void* dst, const void* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }
#endif

CopyPool::~CopyPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
}

void CopyPool::take_parts() {
    for (int i = next_.fetch_add(1); i < parts_; i = next_.fetch_add(1)) {
        try {
            (*task_)(i);
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!error_) error_ = std::current_exception();
        }
    }
}

void CopyPool::work(int index) {
    std::uint64_t seen = 0;
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || gen_ != seen; });
            if (stop_) return;
            seen = gen_;
            if (index >= helpers_) continue;  // not needed for this job
        }
        take_parts();
        std::lock_guard<std::mutex> lock(mutex_);
        if (--pending_ == 0) done_.notify_one();
    }
}

void CopyPool::run(int parts, int threads, const std::function<void(int)>& task) {
    if (parts <= 0) return;
    const int helpers = std::max(0, std::min(parts, threads) - 1);
    // New threads only before a job is posted: if creating one throws, the pool is still idle
    // (and the destructor joins those that started). Reserved first: a vector that had to grow
    // while a started thread sits in emplace_back would destroy it joinable (std::terminate).
    workers_.reserve(std::size_t(helpers));
    while (int(workers_.size()) < helpers) {
        const int index = int(workers_.size());
        workers_.emplace_back([this, index] { work(index); });
    }
    if (helpers == 0) {
        for (int i = 0; i < parts; ++i) task(i);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        task_ = &task;
        parts_ = parts;
        helpers_ = helpers;
        pending_ = helpers;
        error_ = nullptr;
        next_.store(0);
        ++gen_;
    }
    wake_.notify_all();
    take_parts();
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
    task_ = nullptr;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void CopyPool::copy(void* dst, const void* src, std::size_t bytes, int threads, bool streaming) {
    const int n = int(std::clamp<std::size_t>(bytes / kMinPart, 1, std::size_t(std::max(threads, 1))));
    const std::size_t part = (bytes / std::size_t(n) + 63) / 64 * 64;
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    run(n, n, [&](int i) {
        const std::size_t off = part * std::size_t(i);
        if (off >= bytes) return;
        const std::size_t len = std::min(part, bytes - off);
        if (streaming) copy_streaming(d + off, s + off, len);
        else std::memcpy(d + off, s + off, len);
    });
}

}  // namespace imghist::gpu
