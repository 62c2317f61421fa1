// Pixel memory reused from file to file by a pipeline that reads many files (histogram_files,
// the command's workers): a fresh buffer per file costs a page fault and a zeroed page per
// 4 KiB, more than decoding's own writes to them (docs/performance.md, "Datasets of files").
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

#include "imghist/io.hpp"

namespace imghist::io {

// Buffers larger than this are not kept for the next file: one huge image does not stay in
// memory for the rest of a run, and its own pages cost little beside its decoding.
inline constexpr std::size_t kReusedPixelBytes = std::size_t(64) << 20;

// Heap buffers lent to images, taken back when an image is destroyed and lent again; a
// PixelAllocator for read_image. Thread-safe; it must outlive every image it lends to.
class PixelPool final : public PixelLender {
public:
    PixelPool() = default;
    PixelPool(const PixelPool&) = delete;
    PixelPool& operator=(const PixelPool&) = delete;
    ~PixelPool();

    decltype(LoadedImage::pixels) allocate(std::size_t bytes);
    void take_back(std::byte* pixels) noexcept override;

private:
    struct Buffer {
        std::byte* memory;
        std::size_t bytes;
        bool lent;
    };
    std::mutex mutex_;
    std::vector<Buffer> buffers_;  // as many as images were ever held at once
};

}  // namespace imghist::io
