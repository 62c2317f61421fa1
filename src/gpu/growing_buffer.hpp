// One growth policy for the GPU backends' scratch and staging memory: a buffer grows to the
// largest size asked of it and never shrinks; growing loses the contents, and first waits for
// the device where the runtime would free memory still in use (Traits::wait_before_free).
#pragma once

#include <cstddef>

namespace imghist::gpu {

// Traits, one small value type per kind of memory:
//   using Handle = ...;                        Handle{} holds nothing
//   Handle allocate(std::size_t bytes) const;  throws when the runtime fails
//   static void release(Handle&) noexcept;     frees a handle allocate() returned
//   void wait_before_free() const;             returns once the device no longer uses the old
//                                              allocation (nothing to do where the runtime
//                                              defers the free itself)
template <typename Traits>
class GrowingBuffer {
public:
    using Handle = typename Traits::Handle;

    GrowingBuffer() = default;
    GrowingBuffer(const GrowingBuffer&) = delete;
    GrowingBuffer& operator=(const GrowingBuffer&) = delete;
    ~GrowingBuffer() { release(); }

    // Makes the buffer hold at least `bytes`: a smaller one is replaced by exactly `bytes`.
    // Returns whether it allocated (the contents are then undefined). Exception safety: a
    // failed wait keeps the old allocation, a failed allocation leaves the buffer empty.
    bool ensure(std::size_t bytes, const Traits& traits = Traits{}) {
        if (bytes <= size_) return false;
        if (size_ != 0) traits.wait_before_free();
        release();
        handle_ = traits.allocate(bytes);
        size_ = bytes;
        return true;
    }

    void release() noexcept {
        if (size_ != 0) Traits::release(handle_);
        handle_ = Handle{};
        size_ = 0;
    }

    const Handle& get() const { return handle_; }
    std::size_t size() const { return size_; }

private:
    Handle handle_{};
    std::size_t size_ = 0;
};

}  // namespace imghist::gpu
