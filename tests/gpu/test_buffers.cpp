// The shared GPU host layer's buffers, errors and staging (src/gpu/), without a device: the
// growth policy against a fake allocator that records its calls, the one error message shape,
// and the row pieces and row copies against expectations computed here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu/api_error.hpp"
#include "gpu/growing_buffer.hpp"
#include "gpu/staging.hpp"
#include "gpu/tile_bands.hpp"
#include "imghist/error.hpp"
#include "imghist/request.hpp"

namespace imghist {
namespace {

// ---- growth policy ------------------------------------------------------------------------

// What the fake allocator was asked, in order: "alloc N -> id", "wait", "free id".
struct CallLog {
    std::vector<std::string> calls;
    int next_id = 1;
    bool fail_allocate = false;
    bool fail_wait = false;
};

struct FakeHandle {
    CallLog* log = nullptr;
    int id = 0;
};

struct FakeTraits {
    using Handle = FakeHandle;
    CallLog* log = nullptr;
    Handle allocate(std::size_t bytes) const {
        if (log->fail_allocate) throw DeviceError("out of memory");
        const int id = log->next_id++;
        log->calls.push_back("alloc " + std::to_string(bytes) + " -> " + std::to_string(id));
        return {log, id};
    }
    static void release(Handle& h) noexcept { h.log->calls.push_back("free " + std::to_string(h.id)); }
    void wait_before_free() const {
        if (log->fail_wait) throw DeviceError("device lost");
        log->calls.push_back("wait");
    }
};

using Calls = std::vector<std::string>;

TEST(GpuGrowingBuffer, GrowsToTheLargestSizeAskedAndNeverShrinks) {
    CallLog log;
    const FakeTraits traits{&log};
    {
        gpu::GrowingBuffer<FakeTraits> buffer;
        EXPECT_EQ(buffer.size(), 0u);
        EXPECT_FALSE(buffer.ensure(0, traits)) << "nothing asked, nothing allocated";
        EXPECT_TRUE(buffer.ensure(100, traits));
        EXPECT_EQ(buffer.size(), 100u);
        EXPECT_EQ(buffer.get().id, 1);
        EXPECT_FALSE(buffer.ensure(100, traits));
        EXPECT_FALSE(buffer.ensure(1, traits));
        EXPECT_EQ(buffer.size(), 100u) << "never shrinks";
        EXPECT_TRUE(buffer.ensure(101, traits));
        EXPECT_EQ(buffer.size(), 101u) << "exactly the size asked, no rounding of its own";
        EXPECT_EQ(buffer.get().id, 2);
        EXPECT_EQ(log.calls, (Calls{"alloc 100 -> 1", "wait", "free 1", "alloc 101 -> 2"}))
            << "waits for the device, frees the old allocation, then allocates";
    }
    EXPECT_EQ(log.calls.back(), "free 2") << "the destructor frees";
    EXPECT_EQ(log.calls.size(), 5u);
}

TEST(GpuGrowingBuffer, ReleaseEmptiesItOnce) {
    CallLog log;
    const FakeTraits traits{&log};
    gpu::GrowingBuffer<FakeTraits> buffer;
    buffer.release();
    EXPECT_TRUE(log.calls.empty()) << "an empty buffer frees nothing";
    buffer.ensure(8, traits);
    buffer.release();
    buffer.release();
    EXPECT_EQ(buffer.size(), 0u);
    EXPECT_TRUE(buffer.ensure(8, traits)) << "allocates again after a release, without waiting";
    EXPECT_EQ(log.calls, (Calls{"alloc 8 -> 1", "free 1", "alloc 8 -> 2"}));
}

TEST(GpuGrowingBuffer, AFailedWaitKeepsTheOldAllocationAFailedAllocationLeavesItEmpty) {
    CallLog log;
    const FakeTraits traits{&log};
    gpu::GrowingBuffer<FakeTraits> buffer;
    buffer.ensure(10, traits);
    log.fail_wait = true;
    EXPECT_THROW(buffer.ensure(20, traits), DeviceError);
    EXPECT_EQ(buffer.size(), 10u);
    EXPECT_EQ(buffer.get().id, 1);
    log.fail_wait = false;
    log.fail_allocate = true;
    EXPECT_THROW(buffer.ensure(20, traits), DeviceError);
    EXPECT_EQ(buffer.size(), 0u);
    EXPECT_EQ(log.calls, (Calls{"alloc 10 -> 1", "wait", "free 1"})) << "nothing leaks, nothing is freed twice";
    log.fail_allocate = false;
    EXPECT_TRUE(buffer.ensure(5, traits));
    EXPECT_EQ(log.calls.back(), "alloc 5 -> 2") << "an empty buffer does not wait";
}

// ---- the error message ----------------------------------------------------------------------

TEST(GpuApiError, OneShapeForEveryApi) {
    EXPECT_EQ(gpu::api_error_message("OpenCL", "clCreateBuffer", "CL_OUT_OF_RESOURCES", -5, "64 bytes"),
              "OpenCL clCreateBuffer failed: CL_OUT_OF_RESOURCES (-5): 64 bytes");
    EXPECT_EQ(gpu::api_error_message("Vulkan", "vkQueueSubmit", "VK_ERROR_DEVICE_LOST", -4),
              "Vulkan vkQueueSubmit failed: VK_ERROR_DEVICE_LOST (-4)");
    EXPECT_EQ(gpu::api_error_message("CUDA", "cudaMalloc(&p, bytes)", "cudaErrorMemoryAllocation", 2,
                                     "out of memory"),
              "CUDA cudaMalloc(&p, bytes) failed: cudaErrorMemoryAllocation (2): out of memory");
    try {
        gpu::throw_api_error("Vulkan", "vkCreateBuffer", "VK_ERROR_OUT_OF_HOST_MEMORY", -1);
        ADD_FAILURE() << "expected DeviceError";
    } catch (const DeviceError& e) {
        EXPECT_STREQ(e.what(), "Vulkan vkCreateBuffer failed: VK_ERROR_OUT_OF_HOST_MEMORY (-1)");
    }
}

// ---- row pieces -----------------------------------------------------------------------------

TEST(GpuStaging, RowsThatFit) {
    EXPECT_EQ(gpu::rows_that_fit(45, 15, 10), 3u);
    EXPECT_EQ(gpu::rows_that_fit(44, 15, 10), 2u);
    EXPECT_EQ(gpu::rows_that_fit(14, 15, 10), 0u) << "not even one row";
    EXPECT_EQ(gpu::rows_that_fit(1000, 15, 10), 10u) << "no more than are left";
    EXPECT_EQ(gpu::rows_that_fit(0, 15, 10), 0u);
}

TEST(GpuStaging, SplitRowsIntoPiecesOfTheBudget) {
    const gpu::RowPieces p = gpu::split_rows(10, 15, 45);
    EXPECT_EQ(p.rows_per_piece, 3u);
    ASSERT_EQ(p.count(), 4u);
    const std::uint64_t first[] = {0, 3, 6, 9}, rows[] = {3, 3, 3, 1};
    for (std::uint64_t i = 0; i < 4; ++i) {
        EXPECT_EQ(p[i].first, first[i]) << i;
        EXPECT_EQ(p[i].rows, rows[i]) << i;
    }
    EXPECT_EQ(gpu::split_rows(10, 15, 150).count(), 1u) << "exactly the whole image";
    EXPECT_EQ(gpu::split_rows(10, 15, 149).count(), 2u);
    EXPECT_EQ(gpu::split_rows(10, 15, std::uint64_t(1) << 40).rows_per_piece, 10u) << "never more than the image";
}

TEST(GpuStaging, ABudgetSmallerThanARowGivesOneRowPerPiece) {
    for (std::uint64_t budget : {0, 1, 14}) {
        const gpu::RowPieces p = gpu::split_rows(7, 15, budget);
        EXPECT_EQ(p.rows_per_piece, 1u) << budget;
        EXPECT_EQ(p.count(), 7u) << budget;
        EXPECT_EQ(p[6].first, 6u);
        EXPECT_EQ(p[6].rows, 1u);
    }
    EXPECT_THROW(gpu::split_rows(0, 15, 100), InvalidArgument);
    EXPECT_THROW(gpu::split_rows(5, 0, 100), InvalidArgument);
}

// Every split covers the rows once, in order, each piece within the budget (or a single row)
// and as large as the budget allows.
TEST(GpuStaging, SplitsCoverEveryRowOnceWithinTheBudget) {
    for (std::uint64_t height : {1, 2, 3, 7, 64, 1001})
        for (std::uint64_t row_bytes : {1, 3, 16, 255, 4096})
            for (std::uint64_t budget : {0, 1, 2, 17, 256, 4095, 4096, 100000}) {
                const gpu::RowPieces p = gpu::split_rows(height, row_bytes, budget);
                std::uint64_t next = 0;
                for (std::uint64_t i = 0; i < p.count(); ++i) {
                    const gpu::RowRange r = p[i];
                    ASSERT_EQ(r.first, next);
                    ASSERT_GE(r.rows, 1u);
                    ASSERT_TRUE(r.rows == 1 || r.rows * row_bytes <= budget);
                    if (i + 1 < p.count()) ASSERT_TRUE(r.rows == height || (r.rows + 1) * row_bytes > budget);
                    next += r.rows;
                }
                ASSERT_EQ(next, height) << height << " rows of " << row_bytes << ", budget " << budget;
            }
}

// ---- row copies -----------------------------------------------------------------------------

std::byte sample(std::uint32_t y, std::size_t i) { return std::byte((y * 31 + i * 7 + 3) & 0xFF); }

// An rgb8 image of `width` x `height` whose rows lie `stride` bytes apart; padding is 0xEE.
std::vector<std::byte> make_rows(std::uint32_t width, std::uint32_t height, std::size_t stride) {
    std::vector<std::byte> bytes(stride * height, std::byte{0xEE});
    for (std::uint32_t y = 0; y < height; ++y)
        for (std::size_t i = 0; i < std::size_t(width) * 3; ++i) bytes[y * stride + i] = sample(y, i);
    return bytes;
}

void expect_copied(std::uint32_t width, std::size_t src_stride, std::size_t dst_pitch, std::uint32_t first,
                   std::uint32_t rows, bool streaming = false) {
    const std::uint32_t height = 9;
    const std::vector<std::byte> src = make_rows(width, height, src_stride);
    const ImageView view{src.data(), width, height, src_stride, PixelFormat::rgb8};
    std::vector<std::byte> dst(dst_pitch * height + 5, std::byte{0xAA});
    gpu::copy_rows(dst.data(), dst_pitch, view, first, rows, streaming);
    const std::size_t row_bytes = std::size_t(width) * 3;
    for (std::size_t at = 0; at < dst.size(); ++at) {
        const std::size_t r = at / dst_pitch, i = at % dst_pitch;
        const std::byte want = r < rows && i < row_bytes ? sample(first + std::uint32_t(r), i) : std::byte{0xAA};
        ASSERT_EQ(dst[at], want) << "byte " << at << " (stride " << src_stride << ", pitch " << dst_pitch
                                 << ", rows " << first << "+" << rows << (streaming ? ", streaming" : "") << ")";
    }
}

TEST(GpuStaging, CopyRowsPacksStridedRows) {
    expect_copied(5, 17, 15, 2, 4);   // odd stride into packed rows
    expect_copied(5, 15, 15, 0, 9);   // packed both sides: the one-copy path
    expect_copied(5, 15, 15, 8, 1);
    expect_copied(5, 15, 16, 1, 3);   // packed source into padded rows: padding left alone
    expect_copied(5, 23, 19, 3, 6);   // both padded, different pitches
    expect_copied(1, 3, 3, 4, 5);
    expect_copied(5, 17, 15, 3, 0);   // no rows: nothing written
}

// With streaming stores (the CUDA host path's default below 512 MiB a call): rows long enough
// for the streamed body, with unaligned heads and tails, packed and padded.
TEST(GpuStaging, CopyRowsWithStreamingStores) {
    expect_copied(200, 613, 600, 1, 7, true);  // padded source, packed rows
    expect_copied(200, 600, 600, 0, 9, true);  // the one-copy path
    expect_copied(200, 601, 640, 2, 5, true);  // padded rows on both sides
    expect_copied(97, 300, 291, 3, 6, true);
}

// ---- tile bands ---------------------------------------------------------------------------

// A grid over `area` cut into bands of at most `band_rows` rows whose pieces number at most
// `max_pieces`: every pixel of the area lies in exactly one piece, that piece is its own tile's,
// and no band has more pieces than allowed.
void expect_bands_cover_the_grid(const Region& area, const TileGrid& grid, std::uint32_t band_rows,
                                 std::uint64_t max_pieces) {
    std::vector<Region> regions;
    for (std::uint32_t ty = 0; ty < grid.y; ++ty)
        for (std::uint32_t tx = 0; tx < grid.x; ++tx) regions.push_back(tile_region(area, grid, tx, ty));
    const gpu::TileBands bands(regions);
    ASSERT_EQ(bands.area, area);
    std::vector<int> owner(std::size_t(area.width) * area.height, -1);
    std::uint32_t row = 0;
    while (row < area.height) {
        const std::uint32_t n = bands.rows_within(row, std::min(band_rows, area.height - row), max_pieces);
        ASSERT_GT(n, 0u) << "row " << row;
        std::uint64_t pieces = 0;
        bands.for_each_piece(row, n, [&](std::uint32_t tile, std::uint32_t x, std::uint32_t width, std::uint32_t first,
                                         std::uint32_t rows) {
            ++pieces;
            ASSERT_GE(first, row);
            ASSERT_LE(first + rows, row + n);
            const Region& t = regions[tile];
            for (std::uint32_t y = first; y < first + rows; ++y)
                for (std::uint32_t c = x; c < x + width; ++c) {
                    ASSERT_GE(area.x + c, t.x);
                    ASSERT_LT(area.x + c, t.x + t.width);
                    ASSERT_GE(area.y + y, t.y);
                    ASSERT_LT(area.y + y, t.y + t.height);
                    int& o = owner[std::size_t(y) * area.width + c];
                    ASSERT_EQ(o, -1) << "pixel " << c << "," << y << " in two pieces";
                    o = int(tile);
                }
        });
        ASSERT_LE(pieces, max_pieces) << "band from row " << row;
        row += n;
    }
    for (std::size_t i = 0; i < owner.size(); ++i) ASSERT_NE(owner[i], -1) << "pixel " << i << " in no piece";
}

TEST(GpuTileBands, BandsCoverEveryPixelOnceWithinThePieceBudget) {
    expect_bands_cover_the_grid({0, 0, 40, 30}, {4, 3}, 7, 1000);           // bands across tile rows
    expect_bands_cover_the_grid({3, 5, 41, 31}, {4, 3}, 31, 1000);          // a roi's grid, one band
    expect_bands_cover_the_grid({3, 5, 41, 31}, {4, 3}, 31, 4);             // one row of tiles a band
    expect_bands_cover_the_grid({3, 5, 41, 31}, {4, 3}, 31, 9);             // two rows of tiles a band
    expect_bands_cover_the_grid({0, 0, 13, 17}, {13, 17}, 5, 13);           // one-pixel tiles
    expect_bands_cover_the_grid({0, 0, 10, 23}, {3, 4}, 1, 3);              // one row a band
    expect_bands_cover_the_grid({0, 0, 9, 7}, {1, 1}, 2, 1);
}

TEST(GpuTileBands, ABandThatCannotHoldARowOfTilesIsEmpty) {
    std::vector<Region> regions;
    for (std::uint32_t tx = 0; tx < 5; ++tx) regions.push_back(tile_region({0, 0, 10, 4}, {5, 2}, tx, 0));
    for (std::uint32_t tx = 0; tx < 5; ++tx) regions.push_back(tile_region({0, 0, 10, 4}, {5, 2}, tx, 1));
    const gpu::TileBands bands(regions);
    EXPECT_EQ(bands.rows_within(0, 4, 4), 0u);
    EXPECT_EQ(bands.rows_within(0, 4, 5), 2u);   // the first row of tiles
    EXPECT_EQ(bands.rows_within(1, 3, 5), 1u);   // the rest of it
    EXPECT_EQ(bands.rows_within(0, 4, 10), 4u);
    EXPECT_EQ(bands.rows_within(0, 0, 10), 0u);
    EXPECT_EQ(bands.tiles_x(), 5u);
}

}  // namespace
}  // namespace imghist
