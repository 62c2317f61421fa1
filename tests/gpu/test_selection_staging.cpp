// The gather of masked host pixels into staging chunks (src/gpu/selection_staging.hpp), without a
// device: chunks of many sizes filled as CUDA's host path fills them (rows_that_fit, gather, a
// new chunk when none fits), by 1 to 16 threads. The pieces, read back in order, must be exactly
// the selected pixels (a plain loop of the test's own); every part starts on a 256-byte boundary
// inside the chunk, parts do not overlap, and nothing is written past the chunk's room.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/selection.hpp"
#include "gpu/selection_staging.hpp"
#include "selection_checks.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

using testing::Mask;

constexpr std::byte kGuard{0xCD};

// Fills chunks of `room` bytes until every row is gathered; returns the pieces' pixels in order.
std::vector<std::byte> stage_all(const ImageView& image, const Request& request, std::size_t room, int threads,
                                 gpu::CopyPool& pool) {
    const PixelSelector selector(image, request);
    const std::size_t pb = image.info().pixel_bytes();
    gpu::SelectionStager stager(selector, image.row_bytes(), pb, threads);
    std::vector<std::byte> chunk(room + 4096, kGuard), out;
    std::vector<gpu::SelectionStager::Part> kept;
    std::size_t used = 0;
    const auto flush = [&] {
        for (std::size_t i = room; i < chunk.size(); ++i) EXPECT_EQ(chunk[i], kGuard) << "written past the room at " << i;
        std::fill(chunk.begin(), chunk.end(), kGuard);
        used = 0;
    };
    for (std::uint32_t row = 0; row < image.height;) {
        const std::uint32_t n = stager.rows_that_fit(room > used ? room - used : 0, image.height - row);
        if (n == 0) {
            EXPECT_NE(used, 0u) << "an empty chunk of " << room << " bytes took no row";
            if (used == 0) return out;
            flush();
            continue;
        }
        EXPECT_LE(stager.parts_for(n), std::uint32_t(threads));
        kept.clear();
        const std::size_t end = stager.gather(pool, row, n, chunk.data() + used, kept);
        std::size_t previous_end = 0;
        for (const auto& part : kept) {
            EXPECT_EQ(part.offset % 256, 0u);
            EXPECT_GE(part.offset, previous_end) << "parts overlap";
            previous_end = part.offset + part.pixels * pb;
            EXPECT_LE(used + previous_end, room);
            const std::byte* p = chunk.data() + used + part.offset;
            out.insert(out.end(), p, p + part.pixels * pb);
        }
        EXPECT_EQ(end, previous_end);
        used = (used + end + 255) / 256 * 256;
        row += n;
    }
    flush();
    return out;
}

TEST(SelectionStager, PiecesHoldExactlyTheSelectedPixelsInOrder) {
    gpu::CopyPool pool;
    struct Case {
        PixelFormat format;
        std::uint32_t width, height;
        std::size_t padding;
    };
    // rgba_f32 1500 x 400 is 9.6 MB: big chunks cut it into parts of at least 512 KiB each.
    for (const Case c : {Case{PixelFormat::rgba_f32, 1500, 400, 0}, Case{PixelFormat::rgb_f16, 1001, 300, 10},
                         Case{PixelFormat::rgba8, 777, 90, 4}, Case{PixelFormat::gray8, 3, 50, 1}}) {
        const FormatInfo& info = format_info(c.format);
        const auto img = testing::make_image(c.format, c.width, c.height, testing::Pattern::random, 7, c.padding);
        const Mask noise = testing::random_mask(c.width, c.height, 3);
        Mask band = noise;  // rows a third of the way down to two thirds: nothing kept there
        for (std::uint32_t y = c.height / 3; y < 2 * c.height / 3; ++y)
            std::fill_n(band.bytes.begin() + std::ptrdiff_t(y) * c.width, c.width, std::uint8_t(0));
        const Mask none{c.width, c.height, std::vector<std::uint8_t>(noise.bytes.size(), 0)};
        const Mask all{c.width, c.height, std::vector<std::uint8_t>(noise.bytes.size(), 1)};  // fills every part's room
        struct Selection {
            const char* what;
            const Mask* mask;
            std::optional<double> threshold;
        };
        std::vector<Selection> selections{{"noise", &noise, {}}, {"band", &band, {}}, {"none", &none, {}}, {"all", &all, {}}};
        if (info.alpha >= 0) selections.push_back({"noise and alpha", &noise, info.is_float() ? 0.5 : 100.0});
        const std::size_t row = img.view.row_bytes();
        for (const auto& s : selections) {
            Request request;
            request.mask = s.mask->view();
            request.alpha_threshold = s.threshold;
            const testing::Selected want = testing::select(img.view, s.mask, s.threshold);
            // Rooms just past whole rows leave less than the parts' alignment needs (rgba_f32: 175
            // rows of 24000 bytes are 8 parts, 100 bytes to spare).
            for (const std::size_t room : {row, row + 1, 3 * row + 300, 45 * row + 10, 175 * row + 100,
                                           std::size_t(1) << 20, std::size_t(32) << 20}) {
                for (const int threads : {1, 3, 16}) {
                    const std::string what = std::string(info.name) + " " + s.what + ", room " + std::to_string(room) +
                                             ", " + std::to_string(threads) + " threads";
                    SCOPED_TRACE(what);
                    const std::vector<std::byte> got = stage_all(img.view, request, room, threads, pool);
                    ASSERT_EQ(got.size(), want.count * info.pixel_bytes());  // select() adds 16 spare bytes
                    EXPECT_TRUE(std::memcmp(got.data(), want.bytes.data(), got.size()) == 0);
                }
            }
        }
    }
}

TEST(SelectionStager, BigChunksAreGatheredByManyThreads) {
    const auto img = testing::make_image(PixelFormat::rgba_f32, 1500, 400, testing::Pattern::random, 7);
    const Mask mask = testing::random_mask(1500, 400, 3);
    Request request;
    request.mask = mask.view();
    const PixelSelector selector(img.view, request);
    const gpu::SelectionStager stager(selector, img.view.row_bytes(), 16, 16);
    // 4 MiB of rows (less each part's alignment) take 7 parts of at least 512 KiB; a row, or less
    // than 1 MiB, takes one.
    EXPECT_EQ(stager.parts_for(stager.rows_that_fit(std::size_t(4) << 20, 400)), 7u);
    EXPECT_EQ(stager.parts_for(400), 16u);
    EXPECT_EQ(stager.parts_for(1), 1u);
    EXPECT_EQ(stager.parts_for(stager.rows_that_fit(std::size_t(1) << 19, 400)), 1u);
    EXPECT_EQ(stager.rows_that_fit(img.view.row_bytes() - 1, 400), 0u);
    EXPECT_EQ(stager.rows_that_fit(img.view.row_bytes(), 400), 1u);
}

}  // namespace
}  // namespace imghist
