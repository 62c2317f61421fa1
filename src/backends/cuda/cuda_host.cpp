// Host images: staged through pinned buffers on Tune::stages streams, accumulated in the
// engine's accumulator ([image][total_slots]), copied back once. The buffers are filled by the
// engine's copy pool (persistent threads), with streaming stores where Tune::stream_stores.
#include <algorithm>
#include <cstring>
#include <functional>
#include <thread>

#include "core/host_statistics.hpp"
#include "core/selection.hpp"
#include "cuda_engine.hpp"
#include "gpu/selection_staging.hpp"
#include "gpu/staging.hpp"

namespace imghist::cuda_detail {

namespace {

std::uint64_t total_bytes(std::span<const ImageView> images) {
    std::uint64_t total = 0;
    for (const ImageView& v : images) total += std::uint64_t(v.row_bytes()) * v.height;
    return total;
}

// `bytes`, or more so that the longest row fits, as a multiple of 256. Pieces start on 256-byte
// boundaries inside the chunk; a chunk that is not a multiple of 256 would let the rounded-up
// fill level pass the buffer's end (and the copy of `used` bytes fail with
// cudaErrorInvalidValue).
std::size_t at_least_a_row(std::span<const ImageView> images, std::size_t bytes) {
    for (const ImageView& v : images) bytes = std::max(bytes, v.row_bytes() + 256);
    return (bytes + 255) / 256 * 256;
}

// Calls of kBigCall bytes or more stage in 32 MiB chunks with plain copies; from kMidCall,
// 8 MiB chunks, every core copying (run_host).
constexpr std::uint64_t kBigCall = std::uint64_t(512) << 20;
constexpr std::uint64_t kMidCall = std::uint64_t(64) << 20;

// Chunks by the call's bytes, and at least a row. Measured on the H200 host (--host-sweep,
// docs/performance.md): 8K RGBA8 (133 MB) was fastest with 8 MiB chunks, 16384^2 (1 GiB) with
// 32 MiB; below 64 MiB a call stays one chunk of up to 16 MiB.
std::size_t chunk_bytes(std::span<const ImageView> images, std::uint64_t total, const Tune& tune) {
    std::size_t chunk = tune.chunk;
    if (chunk == 0) chunk = total >= kBigCall ? std::size_t(32) << 20 : total >= kMidCall ? std::size_t(8) << 20
                                                                                         : std::size_t(16) << 20;
    return at_least_a_row(images, chunk);
}

}  // namespace

// The staging state of one run_host: which stream's buffers are being filled, and with what.
struct CudaEngine::Staging {
    Shape sh;
    std::size_t chunk = 0;  // the buffers' size
    std::size_t limit = 0;  // this chunk's size: `chunk`, or less while ramping up (Tune::ramp)
    int copy_threads = 1;
    bool streaming = false;  // streaming stores into the staging buffers (Tune::stream_stores)
    int stages = 2;
    int stream = 0;
    std::size_t used = 0;
    std::vector<Piece> pieces;
    bool stream_busy[kMaxStages] = {};

    bool full() const { return pieces.size() == std::size_t(kMaxLaunchImages); }
    std::size_t room() const { return limit > used ? limit - used : 0; }
};

void CudaEngine::accumulate(const ImageView& image, const HistogramPlan& plan, std::span<std::uint64_t> slots) {
    Call call(*this);
    run_host(std::span<const ImageView>(&image, 1), plan, slots);
    call.ok();
}

std::vector<Result> CudaEngine::compute_batch(std::span<const ImageView> images, const Request& request) {
    if (images.empty()) return {};
    for (const ImageView& v : images) {
        v.validate();
        if (v.format != images[0].format)
            throw InvalidArgument("cuda: every image of a batch must have the same pixel format");
    }
    const HistogramPlan plan(images[0].format, request);  // refuses a roi, tiles and selections
    std::vector<Result> out;
    out.reserve(images.size());
    const std::size_t ts = plan.total_slots();
    std::vector<std::uint64_t> slots(ts * images.size(), 0);
    {
        Call call(*this);
        run_host(images, plan, slots);
        call.ok();
    }
    for (std::size_t i = 0; i < images.size(); ++i)
        out.push_back(plan.make_result(images[i], std::span<const std::uint64_t>(slots.data() + i * ts, ts), "cuda",
                                       device_name()));
    // The clipping counts that the bins do not prove (edge or EV bins, most ranges), as compute()
    // counts them for a host image: the clipping plan over the whole batch, in one more run,
    // made only where a result lacks them.
    if (const std::optional<HistogramPlan> clipping = plan.clipping_plan(request)) {
        const std::size_t cs = clipping->total_slots();
        std::vector<std::uint64_t> clipping_slots;
        for (std::size_t i = 0; i < images.size(); ++i)
            count_clipping(*clipping, out[i], [&](std::span<std::uint64_t> into) {
                if (clipping_slots.empty()) {
                    clipping_slots.assign(cs * images.size(), 0);
                    Call call(*this);
                    run_host(images, *clipping, clipping_slots);
                    call.ok();
                }
                std::copy_n(clipping_slots.begin() + std::ptrdiff_t(i * cs), cs, into.begin());
            });
    }
    for (std::size_t i = 0; i < images.size(); ++i) add_host_statistics(images[i], request, plan, nullptr, out[i]);
    return out;
}

void CudaEngine::run_host(std::span<const ImageView> images, const HistogramPlan& plan, std::span<std::uint64_t> slots) {
    run_staged(images, plan, images.size(), slots, [&](Staging& st) {
        for (std::size_t i = 0; i < images.size(); ++i) {
            const ImageView& v = images[i];
            if (v.stride_bytes == v.row_bytes() || v.height == 1) stage_packed(st, v, std::uint32_t(i));
            else stage_rows(st, v, std::uint32_t(i));
        }
    });
}

// One staged run: the chunks and copy threads sized by the bytes of `sized_by`, `stage` filling
// them (it dispatches full ones), then the last chunk sent and the counts of `counts` slot sets
// ([set][total_slots]) added into slots.
void CudaEngine::run_staged(std::span<const ImageView> sized_by, const HistogramPlan& plan, std::size_t counts,
                            std::span<std::uint64_t> slots, const std::function<void(Staging&)>& stage) {
    Staging st;
    st.sh = make_shape(plan);
    const std::size_t ts = st.sh.params.total_slots;
    acc_.reserve(counts * ts, true);
    result_host_.reserve(counts * ts);
    const std::uint64_t total = total_bytes(sized_by);
    st.chunk = chunk_bytes(sized_by, total, tune_);
    st.limit = tune_.ramp ? at_least_a_row(sized_by, st.chunk / 8) : st.chunk;
    // Every core copies from 64 MiB a call: 8K took 3.0 ms with 16 threads, 3.2-3.7 with 8.
    st.copy_threads = tune_.copy_threads > 0 ? tune_.copy_threads
                      : total >= kMidCall ? int(std::clamp(std::thread::hardware_concurrency(), 1u, 16u))
                                          : copy_threads_;
    // Streaming stores measured faster below 512 MiB a call (8K: 79 against 63-73 % of the
    // pinned bandwidth), plain copies above (16384^2: 94 against 81-87 %).
    st.streaming = tune_.stream_stores >= 0 ? tune_.stream_stores == 1 : total < kBigCall;
    st.stages = stages();
    for (int i = 0; i < st.stages; ++i) {
        stage_host_[i].reserve(st.chunk);
        stage_dev_[i].reserve(st.chunk, false);
    }
    for (int i = 0; i < st.stages; ++i) order_after_last(streams_[i]);
    stage(st);
    dispatch(st);
    collect_host(counts * ts, slots);
}

// Masks and alpha thresholds of host images (SlotCounter::accumulate_selected): the copy threads
// gather the selected pixels straight into the staging chunks (stage_selected) where they would
// otherwise copy the rows, so the selection costs the mask's bytes on the host and no call of
// its own. The clipping plan, where the request needs it and the counts do not prove the
// extremes (HistogramPlan::proven_extremes), is a second staged pass.
std::optional<std::uint64_t> CudaEngine::accumulate_selected(const ImageView& image, const PixelSelector& selector,
                                                             const HistogramPlan& plan, const HistogramPlan* clipping,
                                                             std::span<std::uint64_t> slots,
                                                             std::span<std::uint64_t> extremes) {
    Call call(*this);
    const std::uint64_t counted = run_selected(image, selector, plan, slots);
    if (clipping && !plan.proven_extremes(slots, extremes)) {
        std::vector<std::uint64_t> clipping_slots(clipping->total_slots(), 0);
        run_selected(image, selector, *clipping, clipping_slots);
        clipping->extremes_of(clipping_slots, extremes);
    }
    call.ok();
    return counted;
}

std::uint64_t CudaEngine::run_selected(const ImageView& image, const PixelSelector& selector, const HistogramPlan& plan,
                                       std::span<std::uint64_t> slots) {
    std::uint64_t counted = 0;
    run_staged(std::span<const ImageView>(&image, 1), plan, 1, slots,
               [&](Staging& st) { counted = stage_selected(st, image, selector); });
    return counted;
}

// Each chunk takes the selected pixels of as many rows as it has room for, gathered by the copy
// threads (gpu::SelectionStager); each thread's part is a packed piece of its own, and only the
// chunk up to the last kept pixel is copied to the device. Returns how many pixels were selected.
std::uint64_t CudaEngine::stage_selected(Staging& st, const ImageView& v, const PixelSelector& selector) {
    gpu::SelectionStager stager(selector, v.row_bytes(), st.sh.pixel_bytes, st.copy_threads);
    std::vector<gpu::SelectionStager::Part> kept;
    std::uint64_t counted = 0;
    std::uint32_t row = 0;
    while (row < v.height) {
        const std::uint32_t n = stager.rows_that_fit(st.room(), v.height - row);
        if (n == 0 || st.pieces.size() + stager.parts_for(n) > std::size_t(kMaxLaunchImages)) {
            if (st.pieces.empty()) throw Error("cuda: staging buffer smaller than a row");
            dispatch(st);
            continue;
        }
        kept.clear();
        const std::size_t end =
            stager.gather(copy_pool_, row, n, reinterpret_cast<std::byte*>(stage_host_[st.stream].ptr + st.used), kept);
        for (const gpu::SelectionStager::Part& part : kept) {
            st.pieces.push_back({stage_dev_[st.stream].ptr + st.used + part.offset, part.pixels * st.sh.pixel_bytes,
                                 part.pixels, 1, 0});
            counted += part.pixels;
        }
        st.used = (st.used + end + 255) / 256 * 256;  // unchanged when nothing was kept
        row += n;
    }
    return counted;
}

// Tiles in one pass (SlotCounter::accumulate_tiles) of host images: the rows of the grid's area
// are staged in bands, as stage_rows stages an image, and each band is described to the kernel
// as one piece per tile it crosses (the tile's columns of the band's rows, into the tile's
// slots), so every tile of the grid is counted in the launches of the image's chunks.
bool CudaEngine::counts_tiles_in_one_pass(bool, bool selects_pixels) const { return !selects_pixels; }

bool CudaEngine::accumulate_tiles(const ImageView& image, std::span<const Region> regions, const HistogramPlan& plan,
                                  const HistogramPlan* clipping, std::span<const PixelSelector* const>,
                                  std::span<std::uint64_t> slots, std::span<std::uint64_t>,
                                  std::span<std::uint64_t>) {
    const gpu::TileBands bands(regions);
    const ImageView area = image.crop(bands.area);
    Call call(*this);
    if (bands.tiles_x() <= std::uint32_t(kMaxLaunchImages) / 2) {
        run_staged(std::span<const ImageView>(&area, 1), plan, regions.size(), slots, [&](Staging& st) {
            stage_tiles(st, area, bands);
        });
    } else {  // a row of tiles is more pieces than a launch takes: each tile a strided image of the batch
        std::vector<ImageView> crops;
        crops.reserve(regions.size());
        for (const Region& region : regions) crops.push_back(image.crop(region));
        run_host(crops, plan, slots);
    }
    call.ok();
    return clipping == nullptr;
}

void CudaEngine::stage_tiles(Staging& st, const ImageView& area, const gpu::TileBands& bands) {
    const std::size_t row_bytes = area.row_bytes(), pb = st.sh.pixel_bytes;
    std::uint32_t row = 0;
    while (row < area.height) {
        const std::uint64_t room_pieces = std::uint64_t(kMaxLaunchImages) - st.pieces.size();
        std::uint32_t n = std::uint32_t(gpu::rows_that_fit(st.room(), row_bytes, area.height - row));
        n = bands.rows_within(row, n, room_pieces);
        if (n == 0) {
            if (st.pieces.empty()) throw Error("cuda: a row of tiles does not fit one launch");
            dispatch(st);
            continue;
        }
        unsigned char* staged = stage_host_[st.stream].ptr + st.used;
        copy_rows(st, staged, area, row, n);
        const unsigned char* on_device = stage_dev_[st.stream].ptr + st.used;
        bands.for_each_piece(row, n, [&](std::uint32_t slot, std::uint32_t x, std::uint32_t width, std::uint32_t first,
                                         std::uint32_t rows) {
            st.pieces.push_back({on_device + std::size_t(first - row) * row_bytes + std::size_t(x) * pb, row_bytes, width,
                                 rows, slot});
        });
        st.used = (st.used + std::size_t(n) * row_bytes + 255) / 256 * 256;
        row += n;
    }
}

// Sends the staged chunk of the current stream and counts it there; the next stream's buffers
// are taken once their last copy is done (st.stages chunks back). Every byte of the chunk was
// written (and streaming stores fenced) by the copy pool before it returned.
void CudaEngine::dispatch(Staging& st) {
    if (st.pieces.empty()) return;
    cudaStream_t s = streams_[st.stream];
    IH_CHECK(cudaMemcpyAsync(stage_dev_[st.stream].ptr, stage_host_[st.stream].ptr, st.used, cudaMemcpyHostToDevice, s));
    IH_CHECK(cudaEventRecord(copied_[st.stream], s));
    launch(st.sh, st.pieces, acc_.ptr, nullptr, false, s, descs_stage_[st.stream]);
    st.stream_busy[st.stream] = true;
    st.stream = (st.stream + 1) % st.stages;
    if (st.stream_busy[st.stream]) IH_CHECK(cudaEventSynchronize(copied_[st.stream]));
    st.used = 0;
    st.pieces.clear();
    st.limit = std::min(st.chunk, st.limit * 2);
}

// A packed image is a byte range: cut into pieces of whole pixel groups.
void CudaEngine::stage_packed(Staging& st, const ImageView& v, std::uint32_t slot) {
    const std::size_t pb = st.sh.pixel_bytes;
    const std::size_t px_align = std::size_t(group_bytes(int(pb))) / pb;
    const auto* src = static_cast<const unsigned char*>(v.data);
    std::uint64_t px_left = v.pixel_count();
    while (px_left > 0) {
        std::size_t room = st.room() / pb;
        if (room < px_left) room = room / px_align * px_align;
        if (room == 0 && st.pieces.empty()) throw Error("cuda: staging buffer smaller than a pixel group");
        if (room == 0 || st.full()) {
            dispatch(st);
            continue;
        }
        const std::uint64_t n = std::min<std::uint64_t>(px_left, room);
        copy_pool_.copy(stage_host_[st.stream].ptr + st.used, src, n * pb, st.copy_threads, st.streaming);
        st.pieces.push_back({stage_dev_[st.stream].ptr + st.used, n * pb, n, 1, slot});
        st.used = (st.used + n * pb + 255) / 256 * 256;
        src += n * pb;
        px_left -= n;
    }
}

// Rows with padding: packed into the staging buffer row after row.
void CudaEngine::stage_rows(Staging& st, const ImageView& v, std::uint32_t slot) {
    const std::size_t row_bytes = v.row_bytes();
    std::uint32_t row = 0;
    while (row < v.height) {
        const std::uint32_t n = std::uint32_t(gpu::rows_that_fit(st.room(), row_bytes, v.height - row));
        if (n == 0 || st.full()) {
            dispatch(st);
            continue;
        }
        copy_rows(st, stage_host_[st.stream].ptr + st.used, v, row, n);
        st.pieces.push_back({stage_dev_[st.stream].ptr + st.used, std::uint64_t(n) * row_bytes,
                             std::uint64_t(n) * v.width, 1, slot});
        st.used = (st.used + std::size_t(n) * row_bytes + 255) / 256 * 256;
        row += n;
    }
}

// Rows [first, first + n) of v packed into dst, in parts of whole rows on the copy threads.
void CudaEngine::copy_rows(const Staging& st, unsigned char* dst, const ImageView& v, std::uint32_t first,
                           std::uint32_t n) {
    gpu::copy_rows(copy_pool_, st.copy_threads, reinterpret_cast<std::byte*>(dst), v, first, n, st.streaming);
}

// Joins the streams, copies the n counts back into slots, re-zeroes the accumulator.
void CudaEngine::collect_host(std::size_t n, std::span<std::uint64_t> slots) {
    cudaStream_t s0 = streams_[0];
    for (int i = 1; i < stages(); ++i) {
        IH_CHECK(cudaEventRecord(done_[i], streams_[i]));
        IH_CHECK(cudaStreamWaitEvent(s0, done_[i], 0));
    }
    IH_CHECK(cudaMemcpyAsync(result_host_.ptr, acc_.ptr, n * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, s0));
    IH_CHECK(cudaMemsetAsync(acc_.ptr, 0, n * sizeof(std::uint64_t), s0));
    IH_CHECK(cudaStreamSynchronize(s0));
    last_valid_ = false;
    for (std::size_t k = 0; k < n; ++k) slots[k] += result_host_.ptr[k];
}

}  // namespace imghist::cuda_detail
