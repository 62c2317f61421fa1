// Vulkan interop: histograms of pixels that already live in a VkBuffer on the caller's own
// VkDevice, e.g. a rendered frame copied to a buffer for auto-exposure. The result is written
// into a VkBuffer the caller provides, by commands recorded into the caller's command buffer,
// so neither the pixels nor the counts go through the host. Defined only when imghist was
// built with the vulkan backend (imghist::find_backend("vulkan") != nullptr).
//
// Requirements on the caller's device:
//   - Vulkan 1.1 or later, created with VkPhysicalDeviceFeatures::shaderInt64 enabled;
//   - the command buffers given to record() belong to a queue family with VK_QUEUE_COMPUTE_BIT.
// Buffers: the pixel buffer and the result buffer need VK_BUFFER_USAGE_STORAGE_BUFFER_BIT.
//
// Result layout (what record() writes at result_offset): for each channel of
// result_layout(format, request).channels, in order, `bins + 3` uint64 counters: the bins,
// then nan, below and above (src/contract/binning.h). to_result() turns them into a Result.
// Clipping: to_result() sets the exact clipping counts only where the histogram proves them;
// elsewhere ChannelHistogram::clipped_low_count / clipped_high_count are empty, meaning
// unknown (docs/semantics.md, "Statistics"). compute() counts them, as Engine::compute does.
// compute() also finds Request::sample_stats on the device, bit for bit those of the same pixels
// in host memory (docs/semantics.md, "Sample statistics"); record() writes the histogram only.
//
// The call shape of every interop API (opencl.hpp, cuda.hpp) is here too:
//   auto engine = imghist::vulkan::create_engine(context, queue);
//   imghist::Result r = imghist::vulkan::compute(*engine, imghist::vulkan::device_image(buffer, 0, w, h, 0, format));
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "imghist/engine.hpp"
#include "imghist/exposure.hpp"
#include "imghist/image.hpp"
#include "imghist/request.hpp"
#include "imghist/result.hpp"

namespace imghist::vulkan {

// The caller's device; imghist never destroys any of these.
struct DeviceContext {
    VkPhysicalDevice physical_device = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    std::uint32_t queue_family = 0;  // where record()ed commands and compute() run
    // Set when the device was created with VK_KHR_shader_float_controls enabled: fp32 images
    // are then counted with denormals preserved where shaderDenormPreserveFloat32 is offered.
    // Known gap: on a device that flushes fp32 denormals anyway (the H200's NVIDIA driver
    // did, with this flag set), the luminance of pixels whose products are
    // denormal can land in another slot than the contract's (e.g. a tiny negative Y is not
    // counted as `below`). The Engine path detects this and counts fp32 luminance on the CPU.
    bool float_controls_enabled = false;
};

// Images are imghist::DeviceImage (image.hpp) whose `memory` is a VkBuffer's handle value
// (memory_of, or device_image below): pixel (x, y) starts at offset_bytes + y * stride_bytes +
// x * pixel size, samples in the format's native-endian layout (as ImageView). offset_bytes and
// stride_bytes must be multiples of the sample size; stride 0 means tightly packed rows.
// Offsets that are multiples of 16 with packed rows take the fast path. The buffer must extend
// to the next multiple of 4 bytes after the last pixel.
inline std::uint64_t memory_of(VkBuffer buffer) { return reinterpret_cast<std::uint64_t>(buffer); }
inline VkBuffer buffer_of(const DeviceImage& image) { return reinterpret_cast<VkBuffer>(image.memory); }
inline DeviceImage device_image(VkBuffer buffer, VkDeviceSize offset, std::uint32_t width, std::uint32_t height,
                                VkDeviceSize stride_bytes, PixelFormat format) {
    return {memory_of(buffer), offset, width, height, stride_bytes, format};
}

struct ResultLayout {
    std::vector<Channel> channels;
    BinLayout bins;
    std::uint32_t slots_per_channel = 0;  // bins + 3
    VkDeviceSize bytes = 0;               // channels * slots_per_channel * 8
};

class Histogrammer {
public:
    // Creates its layouts and scratch buffer on the caller's device (pipelines are built on
    // first use from SPIR-V embedded in imghist). Throws DeviceError.
    explicit Histogrammer(const DeviceContext& context);
    ~Histogrammer();
    Histogrammer(const Histogrammer&) = delete;
    Histogrammer& operator=(const Histogrammer&) = delete;

    ResultLayout result_layout(PixelFormat format, const Request& request = {}) const;
    // Largest bin count this device supports: one channel must fit the work-group shared
    // memory (12285 bins with 48 KiB, 8189 with 32 KiB). record() rejects more.
    std::uint32_t max_bins() const;

    // Records the histogram of `image` into `cmd` (in the recording state). The counts land in
    // `result` at `result_offset` (a multiple of 8) as result_layout() describes; nothing is
    // read back. Before: make the pixel writes visible to VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT /
    // VK_ACCESS_SHADER_READ_BIT. After: add a barrier from COMPUTE_SHADER / SHADER_WRITE before
    // reading `result`. Recordings of one Histogrammer share its scratch counters, so they must
    // execute in submission order on one queue (each starts with a barrier). The descriptor
    // sets of every record() stay allocated until release_recordings().
    // Throws InvalidArgument for a bad image, request or offset.
    void record(VkCommandBuffer cmd, const DeviceImage& image, const Request& request, VkBuffer result,
                VkDeviceSize result_offset = 0);
    // Frees the descriptor sets of earlier record() calls; only once none of the command
    // buffers they were recorded into is pending.
    void release_recordings();

    // Convenience: records into its own command buffer, submits to `queue` (of queue_family),
    // waits, and returns the Result (the pixels still never leave the device).
    Result compute(VkQueue queue, const DeviceImage& image, const Request& request = {});

    // A Result from counters read back from a result buffer.
    Result to_result(const DeviceImage& image, const Request& request, std::span<const std::uint64_t> slots) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// An Engine (backend "vulkan") on the caller's device: a Histogrammer whose compute() submits
// to `queue` (of context.queue_family). It counts device images, through compute() below; its
// Engine::compute() of host images throws InvalidArgument (the vulkan backend's own engine,
// imghist::create_engine("vulkan"), counts those). Throws DeviceError.
std::unique_ptr<Engine> create_engine(const DeviceContext& context, VkQueue queue);

// Histogrammer::compute on an engine made by create_engine(); an engine of another backend, or
// the vulkan backend's own, throws InvalidArgument.
Result compute(Engine& engine, const DeviceImage& image, const Request& request = {});

// The auto-exposure state ExposureStep keeps in a caller's buffer, 6 words (docs/realtime.md
// gives the GLSL block a tonemapper reads): ExposureState's fields, the flags as 0 or 1. Write
// GpuExposureState{} there before the first frame.
struct GpuExposureState {
    float ev = 0, scale = 1, average_ev = 0, target_ev = 0;
    std::uint32_t started = 0, metered = 0;
};
static_assert(sizeof(GpuExposureState) == 24);

// One frame's auto-exposure on the device (docs/semantics.md, "Auto-exposure"): reads the
// luminance counters record() wrote, meters them exactly and adapts the state in the caller's
// buffer, bit for bit imghist::adapt() on the same counts (`scale` is the device's exp2).
// Frames in flight: each record() uses descriptor set `frame % ring`, so the frame recorded
// `ring` frames earlier must have finished; nothing is allocated after construction.
class ExposureStep {
public:
    // `bins`: the luminance channel's layout, EV bins (ev_edges); `max_pixels`: the most pixels
    // a metered frame has (the exact 64-bit mean needs pixels * 10000 * (2 bins + 2 |LO| *
    // per_stop + 2 per_stop) below 2^63); `ring`: 1 to 16 frames in flight. Throws InvalidArgument.
    ExposureStep(const DeviceContext& context, const BinLayout& bins, const ExposureControl& control,
                 std::uint64_t max_pixels, std::uint32_t ring);
    ~ExposureStep();
    ExposureStep(const ExposureStep&) = delete;
    ExposureStep& operator=(const ExposureStep&) = delete;

    // Records the step into `cmd`: the counters at `counters_offset` (a multiple of 8) are one
    // channel's bins + 3 slots; the state at `state_offset` (a multiple of 4) is read and
    // written. Before: a barrier from the counters' writes (COMPUTE_SHADER / SHADER_WRITE) to
    // COMPUTE_SHADER / SHADER_READ. After: one from COMPUTE_SHADER / SHADER_WRITE to the reader.
    // `seconds` is the frame's time (finite, >= 0). Throws InvalidArgument, recording nothing.
    void record(VkCommandBuffer cmd, std::uint64_t frame, VkBuffer counters, VkDeviceSize counters_offset,
                VkBuffer state, VkDeviceSize state_offset, float seconds);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// A frame loop's auto-exposure: each frame's luminance histogram, then ExposureStep on it,
// recorded into the caller's command buffer with no host wait. Each of the `ring` frames in
// flight has its own counters and descriptor sets, made by the first frames and reused after;
// the frame recorded `ring` frames earlier must have finished on the device. Frames execute in
// submission order on one queue (they share work counters, and the state).
class ExposureRecorder {
public:
    // `request`: a luminance histogram (Mode::luma) in EV bins of frames of `format` with at
    // most `max_pixels` pixels; `control`, `ring` as ExposureStep's. Throws InvalidArgument.
    ExposureRecorder(const DeviceContext& context, PixelFormat format, const Request& request,
                     const ExposureControl& control, std::uint64_t max_pixels, std::uint32_t ring);
    ~ExposureRecorder();
    ExposureRecorder(const ExposureRecorder&) = delete;
    ExposureRecorder& operator=(const ExposureRecorder&) = delete;

    // Records frame `frame`: `image` as Histogrammer::record() takes it (the same barrier
    // before), the state as ExposureStep::record() (the same barrier after). Throws
    // InvalidArgument for a bad image, offset or time, recording nothing.
    void record(VkCommandBuffer cmd, std::uint64_t frame, const DeviceImage& image, VkBuffer state,
                VkDeviceSize state_offset, float seconds);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace imghist::vulkan
