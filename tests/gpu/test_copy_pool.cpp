// The staging copy helpers (src/gpu/copy_pool.hpp, gpu::copy_rows), without a device: the streaming copy at
// every head/tail alignment, the pool's copies against memcpy for thread counts that change
// from call to call, every part run exactly once, and a task's exception reaching the caller
// with the pool still usable.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <stdexcept>
#include <vector>

#include "gpu/copy_pool.hpp"
#include "gpu/staging.hpp"
#include "imghist/image.hpp"

namespace imghist {
namespace {

std::vector<unsigned char> pattern(std::size_t n, unsigned seed) {
    std::vector<unsigned char> v(n);
    std::uint32_t x = seed * 2654435761u + 1;
    for (auto& b : v) {
        x = x * 1664525u + 1013904223u;
        b = static_cast<unsigned char>(x >> 24);
    }
    return v;
}

TEST(CopyPool, StreamingCopyEqualsMemcpyAtEveryAlignment) {
    std::cout << "streaming stores: " << (gpu::have_streaming_copy() ? "AVX2" : "none (memcpy)") << "\n";
    const std::vector<unsigned char> src = pattern(70000, 1);
    for (std::size_t dst_off : {0, 1, 31, 32, 33, 63})
        for (std::size_t src_off : {0, 5, 32})
            for (std::size_t n : {0, 1, 255, 256, 257, 4096, 4096 + 129, 65536 + 77}) {
                std::vector<unsigned char> dst(n + 128, 0xAB);
                gpu::copy_streaming(dst.data() + dst_off, src.data() + src_off, n);
                for (std::size_t i = 0; i < dst.size(); ++i) {
                    const bool inside = i >= dst_off && i < dst_off + n;
                    ASSERT_EQ(dst[i], inside ? src[src_off + i - dst_off] : 0xAB)
                        << "dst+" << dst_off << " src+" << src_off << " n " << n << " byte " << i;
                }
            }
}

TEST(CopyPool, CopiesEqualMemcpyWithAnyThreadCount) {
    gpu::CopyPool pool;
    const std::size_t big = 5 * gpu::CopyPool::kMinPart + 12345;
    const std::vector<unsigned char> src = pattern(big, 2);
    for (bool streaming : {false, true})
        for (int threads : {1, 4, 2, 16, 3, 0})
            for (std::size_t n : {std::size_t(0), std::size_t(100), gpu::CopyPool::kMinPart * 2, big}) {
                std::vector<unsigned char> dst(n + 64, 0xCD);
                pool.copy(dst.data() + 32, src.data(), n, threads, streaming);
                ASSERT_TRUE(std::equal(src.begin(), src.begin() + std::ptrdiff_t(n), dst.begin() + 32))
                    << "threads " << threads << " n " << n << " streaming " << streaming;
                ASSERT_EQ(dst[31], 0xCD);
                ASSERT_EQ(dst[32 + n], 0xCD);
            }
    // Up to five parts of big (kMinPart each at least): at most four helpers were needed.
    EXPECT_LE(pool.started(), 4);
}

// gpu::copy_rows on the pool (CUDA's and Vulkan's staging): rows of packed and padded images,
// from any first row, packed into the destination by 1 to 16 threads, nothing written past them.
TEST(CopyPool, RowsOfPackedAndPaddedImagesOnAnyThreadCount) {
    gpu::CopyPool pool;
    for (const std::size_t padding : {std::size_t(0), std::size_t(3), std::size_t(64)}) {
        const std::uint32_t width = 3001, height = 700;  // 12 KB rows of rgba8: parts of 43+ rows
        const std::size_t row = std::size_t(width) * 4, stride = row + padding;
        const std::vector<unsigned char> src = pattern(stride * height, unsigned(padding) + 9);
        const ImageView image{src.data(), width, height, stride, PixelFormat::rgba8};
        for (const std::uint32_t first : {0u, 1u, 299u})
            for (const std::uint32_t rows : {1u, 2u, 401u})
                for (const int threads : {1, 2, 7, 16}) {
                    std::vector<unsigned char> dst(std::size_t(rows) * row + 64, 0xAB);
                    gpu::copy_rows(pool, threads, reinterpret_cast<std::byte*>(dst.data()), image, first, rows, threads % 2 == 0);
                    for (std::uint32_t r = 0; r < rows; ++r)
                        ASSERT_TRUE(std::equal(dst.begin() + std::ptrdiff_t(r * row), dst.begin() + std::ptrdiff_t((r + 1) * row),
                                               src.begin() + std::ptrdiff_t((first + r) * stride)))
                            << "padding " << padding << ", first " << first << ", rows " << rows << ", threads " << threads
                            << ", row " << r;
                    for (std::size_t i = std::size_t(rows) * row; i < dst.size(); ++i) ASSERT_EQ(dst[i], 0xAB);
                }
    }
}

TEST(CopyPool, RunsEveryPartOnceAndRethrows) {
    gpu::CopyPool pool;
    for (int round = 0; round < 200; ++round) {
        const int parts = 1 + round % 37, threads = 1 + round % 9;
        std::vector<std::atomic<int>> hits(static_cast<std::size_t>(parts));
        pool.run(parts, threads, [&](int i) { hits[std::size_t(i)].fetch_add(1); });
        for (int i = 0; i < parts; ++i) ASSERT_EQ(hits[std::size_t(i)].load(), 1) << "round " << round << " part " << i;
    }
    EXPECT_EQ(pool.started(), 8);
    std::atomic<int> ran{0};
    EXPECT_THROW(pool.run(16, 8,
                          [&](int i) {
                              ran.fetch_add(1);
                              if (i == 5) throw std::runtime_error("part 5");
                          }),
                 std::runtime_error);
    EXPECT_EQ(ran.load(), 16) << "the other parts still ran";
    std::atomic<int> total{0};
    pool.run(10, 8, [&](int i) { total.fetch_add(i); });
    EXPECT_EQ(total.load(), 45) << "the pool works after an exception";
}

}  // namespace
}  // namespace imghist
