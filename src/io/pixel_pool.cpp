#include "io/pixel_pool.hpp"

#include <new>

namespace imghist::io {

PixelPool::~PixelPool() {
    for (const Buffer& b : buffers_) delete[] b.memory;
}

decltype(LoadedImage::pixels) PixelPool::allocate(std::size_t bytes) {
    if (bytes > kReusedPixelBytes) return allocate_on_heap(bytes);
    std::lock_guard lock(mutex_);
    // The smallest free buffer that fits; else the largest free one grows (or a new one).
    Buffer *fit = nullptr, *largest = nullptr;
    for (Buffer& b : buffers_) {
        if (b.lent) continue;
        if (b.bytes >= bytes && (!fit || b.bytes < fit->bytes)) fit = &b;
        if (!largest || b.bytes > largest->bytes) largest = &b;
    }
    Buffer* pick = fit ? fit : largest;
    if (!pick || pick->bytes < bytes) {
        auto* memory = new (std::nothrow) std::byte[bytes];
        if (!memory) return allocate_on_heap(bytes);  // for its "out of memory" ReadError
        if (pick) delete[] pick->memory;
        else pick = &buffers_.emplace_back();
        *pick = {memory, bytes, false};
    }
    pick->lent = true;
    return decltype(LoadedImage::pixels)(pick->memory, PixelRelease{0, this});
}

void PixelPool::take_back(std::byte* pixels) noexcept {
    std::lock_guard lock(mutex_);
    for (Buffer& b : buffers_)
        if (b.memory == pixels) b.lent = false;
}

}  // namespace imghist::io
