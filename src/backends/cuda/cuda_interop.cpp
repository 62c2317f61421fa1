// The interop calls: images in device memory (imghist::DeviceImage), counted on the caller's
// stream.
#include <algorithm>

#include "core/extremes.hpp"
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
    const std::size_t n = plan.total_slots() * images.size();
    out_.reserve(n, false);
    result_host_.reserve(n);
    run_device(images, make_shape(plan), out_.ptr, stream);
    IH_CHECK(cudaMemcpyAsync(result_host_.ptr, out_.ptr, n * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream));
    IH_CHECK(cudaStreamSynchronize(stream));
    last_valid_ = false;
    call.ok();
    return {result_host_.ptr, n};
}

std::vector<Result> CudaEngine::results(std::span<const DeviceImage> images, const Request& request,
                                        const HistogramPlan& plan, std::span<const std::uint64_t> slots) const {
    const std::size_t ts = plan.total_slots();
    std::vector<Result> out;
    out.reserve(images.size());
    for (std::size_t i = 0; i < images.size(); ++i) {
        out.push_back(plan.make_result(images[i], slots.subspan(i * ts, ts), "cuda", device_name()));
        add_value_extremes(images[i], request, plan, nullptr, out.back());  // a note: device memory
    }
    return out;
}

// count_image's way in (on the legacy default stream).
void CudaEngine::accumulate_device(const DeviceImage& image, const HistogramPlan& plan,
                                   std::span<std::uint64_t> slots) {
    const std::span<const std::uint64_t> counts = count_on_device(std::span<const DeviceImage>(&image, 1), plan, nullptr);
    std::copy(counts.begin(), counts.end(), slots.begin());
}

// A mask or an alpha threshold: the selected pixels of `rows`, packed by ih_gather_selected
// (select.cu) on the legacy default stream, like accumulate_device's counts.
std::optional<DeviceImage> CudaEngine::gather_device(const DeviceImage& rows, const DeviceImage* mask,
                                                     const AlphaTest& alpha) {
    Call call(*this);
    check_device_pointer(rows);
    if (mask) check_device_pointer(*mask);
    const FormatInfo& info = rows.info();
    gathered_.reserve(std::size_t(rows.pixel_count()) * info.pixel_bytes());
    gathered_count_.reserve(1);
    IH_CHECK(cudaMemsetAsync(gathered_count_.ptr, 0, sizeof(unsigned int), nullptr));
    GatherParams p{};
    p.image = reinterpret_cast<const unsigned char*>(std::uintptr_t(rows.memory + rows.offset_bytes));
    p.image_pitch = rows.pitch();
    if (mask) {
        p.mask = reinterpret_cast<const unsigned char*>(std::uintptr_t(mask->memory + mask->offset_bytes));
        p.mask_pitch = mask->pitch();
    }
    p.out = gathered_.ptr;
    p.selected = gathered_count_.ptr;
    p.width = rows.width;
    p.rows = rows.height;
    p.pixel_bytes = std::uint32_t(info.pixel_bytes());
    p.alpha_kind = alpha.kind;
    p.alpha_least = alpha.least;
    p.alpha_at = info.alpha < 0 ? 0 : std::uint32_t(info.alpha * info.bytes_per_sample);
    p.alpha_type = std::uint32_t(info.sample);
    IH_CHECK(launch_gather_selected(p, nullptr));
    unsigned int selected = 0;
    IH_CHECK(cudaMemcpy(&selected, gathered_count_.ptr, sizeof selected, cudaMemcpyDeviceToHost));
    call.ok();
    if (selected == 0) return std::nullopt;
    DeviceImage packed;
    packed.memory = std::uint64_t(reinterpret_cast<std::uintptr_t>(gathered_.ptr));
    packed.width = selected;
    packed.height = 1;
    packed.format = rows.format;
    return packed;
}

// The caller's stream, and no second pass for the clipping counts (cuda.hpp): the counts that
// the histogram proves.
Result CudaEngine::compute_device(const DeviceImage& image, const Request& request, cuda::Stream stream) {
    image.validate();
    if (request.selects_pixels()) {
        // Gathered and counted in rounds on the legacy default stream, once the caller's
        // stream has the image (and the mask) ready.
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
