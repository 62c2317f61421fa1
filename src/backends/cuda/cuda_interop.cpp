// The interop calls: images in device memory (imghist::DeviceImage), counted on the caller's
// stream.
#include <algorithm>

#include "core/host_statistics.hpp"
#include "core/interop.hpp"
#include "core/selection.hpp"
#include "cuda_engine.hpp"

namespace imghist::cuda_detail {

namespace {
void validate_batch(std::span<const DeviceImage> images) {
    for (const DeviceImage& v : images) {
        v.validate();
        if (v.format != images[0].format)
            throw InvalidArgument("cuda: every image of a batch must have the same pixel format");
    }
}
unsigned long long* device_counts(std::uint64_t* device_slots) {
    if (device_slots == nullptr) throw InvalidArgument("cuda: device_slots is null");
    return reinterpret_cast<unsigned long long*>(device_slots);
}
}  // namespace

void CudaEngine::check_device_pointer(const DeviceImage& image) const {
    const void* p = reinterpret_cast<const void*>(std::uintptr_t(image.memory + image.offset_bytes));
    cudaPointerAttributes attr{};
    const cudaError_t err = cudaPointerGetAttributes(&attr, p);
    if (err != cudaSuccess) {
        cudaGetLastError();
        throw InvalidArgument(cuda_message("cudaPointerGetAttributes", err));
    }
    if (attr.type == cudaMemoryTypeUnregistered || attr.devicePointer == nullptr)
        throw InvalidArgument("cuda: the image data is not device-accessible memory (use compute() for host memory)");
    if (attr.type == cudaMemoryTypeDevice && attr.device != device_)
        throw InvalidArgument("cuda: the image is on device " + std::to_string(attr.device) +
                              ", the engine on device " + std::to_string(device_));
}

// Counts validated device images on `stream`; their counts ([image][total_slots], in the
// engine's pinned buffer until its next call) once the stream has them.
std::span<const std::uint64_t> CudaEngine::count_on_device(std::span<const DeviceImage> images,
                                                           const HistogramPlan& plan, cudaStream_t stream,
                                                           bool check_pointers) {
    Call call(*this);
    if (check_pointers)
        for (const DeviceImage& v : images) check_device_pointer(v);
    const std::vector<Piece> pieces = pieces_of(images);
    const std::span<const std::uint64_t> counts = count_pieces(pieces, make_shape(plan), stream);
    call.ok();
    return counts;
}

std::span<const std::uint64_t> CudaEngine::count_pieces(std::span<const Piece> pieces, const Shape& shape,
                                                        cudaStream_t stream, DeviceBuffer<unsigned long long>& out,
                                                        std::size_t lead) {
    const std::size_t n = lead + std::size_t(shape.params.total_slots) * pieces.size();
    out.reserve(n, false);
    result_host_.reserve(n);
    run_pieces(pieces, shape, out.ptr + lead, stream);
    IH_CHECK(cudaMemcpyAsync(result_host_.ptr, out.ptr, n * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream));
    IH_CHECK(cudaStreamSynchronize(stream));
    last_valid_ = false;
    return {result_host_.ptr, n};
}

std::vector<Result> CudaEngine::results(std::span<const DeviceImage> images, const Request& request,
                                        const HistogramPlan& plan, std::span<const std::uint64_t> slots) {
    const std::size_t ts = plan.total_slots();
    std::vector<Result> out;
    out.reserve(images.size());
    for (std::size_t i = 0; i < images.size(); ++i) {
        out.push_back(plan.make_result(images[i], slots.subspan(i * ts, ts), "cuda", device_name()));
        add_image_statistics(*this, images[i], request, plan, out.back());
    }
    return out;
}

// count_image's way in (on the legacy default stream).
void CudaEngine::accumulate_device(const DeviceImage& image, const HistogramPlan& plan,
                                   std::span<std::uint64_t> slots) {
    const std::span<const std::uint64_t> counts = count_on_device(std::span<const DeviceImage>(&image, 1), plan, nullptr);
    std::copy(counts.begin(), counts.end(), slots.begin());
}

// A mask or an alpha threshold, counted in place (KernelParams::select: packed_kernel's or
// histogram_kernel's kSelect variant) on the legacy default stream, like accumulate_device's
// counts: one read of the image and of the mask.
std::optional<std::uint64_t> CudaEngine::accumulate_selected_device(const DeviceImage& image, const DeviceImage* mask,
                                                                    const AlphaTest& alpha, const HistogramPlan& plan,
                                                                    std::span<std::uint64_t> slots) {
    Call call(*this);
    check_device_pointer(image);
    if (mask) check_device_pointer(*mask);
    Shape sh = make_shape(plan);
    KernelParams& p = sh.params;
    p.select = 1;
    if (sh.packed) {
        // packed_kernel's trash row (Drop) behind the counters.
        const std::uint32_t words = std::max(p.smem_words, p.hist_slots * 32 + kTrashRowBytes / 4);
        if (std::size_t(words) * 4 <= std::size_t(dynamic_smem_)) {
            p.smem_words = words;
            sh.smem = std::size_t(words) * 4;
            if (sh.smem + sh.code_lut_smem > std::size_t(dynamic_smem_)) sh.code_lut = false;
        } else {
            sh.packed = false;
        }
    }
    p.alpha_kind = alpha.kind;
    p.alpha_least = alpha.least;
    p.alpha_sample = std::uint32_t(std::max(image.info().alpha, 0));
    // An image whose rows follow each other is one long row (piece_of); the kernel finds a
    // pixel's mask byte at row * pitch + x, so the mask's rows must follow each other as well.
    Piece piece = piece_of(image, 0);
    if (mask) {
        p.select_mask = reinterpret_cast<const unsigned char*>(std::uintptr_t(mask->memory + mask->offset_bytes));
        p.select_mask_pitch = mask->pitch();
        if (piece.rows == 1 && image.height > 1 && mask->pitch() != image.width)
            piece = {piece.base, image.pitch(), image.width, image.height, 0};
    }
    // The running total of selected pixels (select_out_[0]) is read back with the counts that
    // follow it: a copy of its own was a second round trip to the GPU in every call, and a memset
    // before each launch a third operation on the stream.
    const std::size_t n = p.total_slots;
    if (select_out_.count < n + 1) {
        select_out_.reserve(n + 1, true);  // a new buffer, zeroed: the total starts again
        selected_total_ = 0;
    }
    p.selected = select_out_.ptr;
    const std::span<const std::uint64_t> counts =
        count_pieces(std::span<const Piece>(&piece, 1), sh, nullptr, select_out_, 1);
    call.ok();
    std::copy_n(counts.begin() + 1, n, slots.begin());
    const std::uint64_t selected = counts[0] - selected_total_;  // modulo 2^64, like the total
    selected_total_ = counts[0];
    return selected;
}

// The caller's stream, and no second pass for the clipping counts (cuda.hpp): the counts that
// the histogram proves.
Result CudaEngine::compute_device(const DeviceImage& image, const Request& request, cuda::Stream stream) {
    image.validate();
    if (request.selects_pixels()) {
        // Counted in place (accumulate_selected_device) on the legacy default stream, once the
        // caller's stream has the image (and the mask) ready.
        {
            Call call(*this);
            IH_CHECK(cudaStreamSynchronize(stream));
            call.ok();
        }
        return count_image(*this, image, request, "cuda", device_name());
    }
    if (request.roi || request.tiles.count() != 1) {
        // A roi is one crop; tiles are a batch of crops counted in one launch.
        return count_regions(image, request, [&](std::span<const DeviceImage> crops, std::span<const Request> plain) {
            const HistogramPlan plan(image.format, plain.front());
            {
                Call call(*this);
                check_device_pointer(image);
                call.ok();
            }
            return results(crops, plain.front(), plan, count_on_device(crops, plan, stream, false));
        });
    }
    const HistogramPlan plan(image.format, request);
    return std::move(results(std::span<const DeviceImage>(&image, 1), request, plan,
                             count_on_device(std::span<const DeviceImage>(&image, 1), plan, stream)).front());
}

void CudaEngine::compute_device_async(const DeviceImage& image, const Request& request,
                                      std::uint64_t* device_slots, cuda::Stream stream) {
    image.validate();
    unsigned long long* out = device_counts(device_slots);
    const Shape& shape = cached_shape(image.format, request);
    Call call(*this);
    check_device_pointer(image);
    run_device(std::span<const DeviceImage>(&image, 1), shape, out, stream);
    call.ok();
}

std::vector<Result> CudaEngine::compute_batch(std::span<const DeviceImage> images, const Request& request,
                                              cuda::Stream stream) {
    if (images.empty()) return {};
    validate_batch(images);
    const HistogramPlan plan(images[0].format, request);
    return results(images, request, plan, count_on_device(images, plan, stream));
}

void CudaEngine::compute_batch_device_async(std::span<const DeviceImage> images, const Request& request,
                                            std::uint64_t* device_slots, cuda::Stream stream) {
    if (images.empty()) return;
    unsigned long long* out = device_counts(device_slots);
    validate_batch(images);
    const HistogramPlan plan(images[0].format, request);
    Call call(*this);
    for (const DeviceImage& v : images) check_device_pointer(v);
    run_device(images, make_shape(plan), out, stream);
    call.ok();
}

std::size_t CudaEngine::slot_count(PixelFormat format, const Request& request) const {
    return HistogramPlan(format, request).total_slots();
}

Result CudaEngine::unpack(const DeviceImage& image, const Request& request, std::span<const std::uint64_t> slots) const {
    const HistogramPlan plan(image.format, request);
    if (slots.size() != plan.total_slots())
        throw InvalidArgument("cuda: unpack needs slot_count() counters, got " + std::to_string(slots.size()));
    return plan.make_result(image, slots, "cuda", device_name());
}

}  // namespace imghist::cuda_detail

namespace imghist::cuda {

Result compute(imghist::Engine& engine, const DeviceImage& image, const Request& request, Stream stream) {
    return interop_engine<Engine>(engine, "cuda").compute_device(image, request, stream);
}

}  // namespace imghist::cuda
