#include "gpu/selection_staging.hpp"

#include <algorithm>

#include "core/selection.hpp"

namespace imghist::gpu {

namespace {
constexpr std::size_t kPartAlignment = 256;
std::size_t aligned(std::size_t bytes) { return (bytes + kPartAlignment - 1) / kPartAlignment * kPartAlignment; }
}  // namespace

SelectionStager::SelectionStager(const PixelSelector& selector, std::size_t row_bytes, std::size_t pixel_bytes,
                                 int most_threads)
    : selector_(selector), row_bytes_(row_bytes), pixel_bytes_(pixel_bytes),
      most_threads_(std::uint32_t(std::max(most_threads, 1))) {}

std::uint32_t SelectionStager::parts_for(std::uint32_t rows) const {
    return std::uint32_t(std::clamp<std::uint64_t>(std::uint64_t(rows) * row_bytes_ / CopyPool::kMinPart, 1,
                                                   std::min(rows, most_threads_)));
}

std::uint32_t SelectionStager::rows_that_fit(std::size_t room, std::uint32_t rows_left) const {
    const auto fit = [&](std::size_t bytes) { return std::uint32_t(std::min<std::uint64_t>(bytes / row_bytes_, rows_left)); };
    // parts_for grows with the rows, so the slack of the rows that fit without it is enough.
    const std::size_t slack = std::size_t(parts_for(fit(room)) - 1) * (kPartAlignment - 1);
    return room > slack ? fit(room - slack) : 0;
}

std::size_t SelectionStager::gather(CopyPool& pool, std::uint32_t first, std::uint32_t rows, std::byte* chunk,
                                    std::vector<Part>& kept) {
    const std::uint32_t parts = parts_for(rows);
    const std::uint32_t per = (rows + parts - 1) / parts;
    const auto first_row = [&](std::uint32_t p) { return std::min(rows, p * per); };
    parts_.assign(parts, {});
    std::size_t at = 0;
    for (std::uint32_t p = 0; p < parts; ++p) {
        parts_[p].offset = at;
        at = aligned(at + std::size_t(first_row(p + 1) - first_row(p)) * row_bytes_);
    }
    pool.run(int(parts), int(parts), [&](int p) {
        std::uint64_t n = 0;
        std::byte* out = chunk + parts_[std::size_t(p)].offset;
        for (std::uint32_t y = first_row(std::uint32_t(p)); y < first_row(std::uint32_t(p) + 1); ++y)
            n += selector_.gather_row(first + y, out + n * pixel_bytes_);
        parts_[std::size_t(p)].pixels = n;
    });
    std::size_t end = 0;
    for (const Part& part : parts_) {
        if (part.pixels == 0) continue;
        kept.push_back(part);
        end = part.offset + part.pixels * pixel_bytes_;
    }
    return end;
}

}  // namespace imghist::gpu
