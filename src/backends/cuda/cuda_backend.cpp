// The CUDA backend: host side. Kernels are in histogram.cu (see its header comment).
//
// Three ways in:
// - Engine::compute (host memory): pieces of the image are packed into pinned staging
//   buffers (several CPU threads copy), sent with cudaMemcpyAsync on one of kStreams streams,
//   and counted there, so the copy of one chunk overlaps the counting of the previous one and
//   the CPU fill of the next. Kernels only add into the engine's 64-bit accumulator; one
//   copy-back at the end.
// - compute_device / compute_device_async: one launch on the caller's stream; the last block
//   of the launch writes the finished counts and re-zeroes the accumulator.
// - compute_batch: many images in one launch (their descriptors copied to device memory), one
//   accumulator and output per image; blocks walk contiguous tile ranges across images.
//
// Every CUDA call is checked; a failure throws DeviceError naming the call and CUDA's message,
// and marks the engine so that the next call first re-zeroes the accumulators.
#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <cuda_runtime_api.h>

#include "core/backend_engine.hpp"
#include "core/backend_list.hpp"
#include "core/device_select.hpp"
#include "core/plan.hpp"
#include "core/tune.hpp"
#include "imghist/cuda.hpp"
#include "kernel_params.hpp"

namespace imghist {
namespace {

using namespace cuda_detail;

constexpr int kStreams = 3;

std::string cuda_message(const char* call, cudaError_t err) {
    return std::string("CUDA ") + call + " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
           ")";
}

#define IH_CHECK(call)                                                      \
    do {                                                                    \
        const cudaError_t ih_err_ = (call);                                 \
        if (ih_err_ != cudaSuccess) throw DeviceError(cuda_message(#call, ih_err_)); \
    } while (0)

// packed_kernel looks float codes up (Tune::float_lut = 1) from images of this many pixels: each
// block copies the 128 KiB table into shared memory first.
constexpr std::uint64_t kCodeLutMinPixels = std::uint64_t(1) << 20;

// Tuning knobs, for benchmarks and tests: IMGHIST_CUDA_TUNE="key=value,...", keys block, gpt,
// layout (lanes32|lanes16|copies|global), flush, blocks_per_sm, scalar, chunk_mb, copy_threads,
// acc_stride, prefetch, packed, packed_float, ahead, early, slot_merge, float_lut, graph. The
// defaults are what measured best on an H200 (docs/performance.md).
struct Tune {
    int block = 1024;
    int gpt = 0;          // 0: the format's maximum
    int layout = -1;      // -1: automatic; else a Layout
    int flush = 0;        // 0: automatic; else at most this many tiles between flushes
    int blocks_per_sm = 0;  // 0: from the occupancy calculator
    bool scalar = false;  // force bytewise loads
    std::size_t chunk = 0;  // 0: automatic (16 to 64 MiB)
    int copy_threads = 0;  // 0: automatic
    int acc_stride = 1;    // counters between two slots of the global accumulator (device path)
    bool prefetch = false;
    bool packed = true;    // one packed gray8/rgba8/bgra8 image: packed_kernel (vector-even split)
    // One packed gray/rgba f16/f32 image: packed_kernel too (compile-time channels, per-lane
    // 32-bit counters); 0: the generic tiled kernel, as before.
    bool packed_float = true;
    // packed_kernel, 8-bit: load the next step before counting the current one. Off: on the H200 it
    // was no faster at 8K and 16384^2 and 0.3-1.6 us slower on 1080p, luminance and R,G,B,Y.
    bool ahead = false;
    bool early = true;       // packed_kernel, 8-bit without luminance: first loads before the counters are zeroed
    // packed_kernel: merge per slot with arrival counts (KernelParams::slot_merge) where the
    // slots allow it; 0: the fence, ticket and last-block pass of finish_image.
    bool slot_merge = true;
    // packed_kernel, half and float samples without luminance: look codes up in a 65536-entry
    // table in shared memory (KernelParams::code_lut). 1: for images of kCodeLutMinPixels or more
    // (each block copies the 128 KiB table in); 2: always; 0: never.
    int float_lut = 1;
    bool graph = true;     // single device images: replay the launch from a cached CUDA graph

    static Tune from_env() {
        Tune t;
        for (const TuneKnob& k : tune_knobs("IMGHIST_CUDA_TUNE")) {
            const std::string& key = k.key;
            if (key == "layout") {
                if (k.value == "lanes32") t.layout = kLanes32;
                else if (k.value == "lanes16") t.layout = kLanes16;
                else if (k.value == "copies") t.layout = kCopies;
                else if (k.value == "global") t.layout = kGlobal;
                else throw InvalidArgument("IMGHIST_CUDA_TUNE: layout is lanes32, lanes16, copies or global");
                continue;
            }
            const std::uint64_t n = k.number();
            if (key == "block") t.block = int(std::clamp<std::uint64_t>(n, 32, kMaxBlock)) / 32 * 32;
            else if (key == "gpt") t.gpt = int(std::min<std::uint64_t>(n, 64));
            else if (key == "flush") t.flush = int(std::min<std::uint64_t>(n, 0x7FFFFFFF));
            else if (key == "blocks_per_sm") t.blocks_per_sm = int(std::min<std::uint64_t>(n, 64));
            else if (key == "scalar") t.scalar = n != 0;
            else if (key == "chunk_mb") t.chunk = std::size_t(std::clamp<std::uint64_t>(n, 1, 4096)) << 20;
            else if (key == "copy_threads") t.copy_threads = int(std::min<std::uint64_t>(n, 256));
            else if (key == "acc_stride") t.acc_stride = int(std::clamp<std::uint64_t>(n, 1, 64));
            else if (key == "prefetch") t.prefetch = n != 0;
            else if (key == "packed") t.packed = n != 0;
            else if (key == "packed_float") t.packed_float = n != 0;
            else if (key == "ahead") t.ahead = n != 0;
            else if (key == "early") t.early = n != 0;
            else if (key == "slot_merge") t.slot_merge = n != 0;
            else if (key == "float_lut") t.float_lut = int(std::min<std::uint64_t>(n, 2));
            else if (key == "graph") t.graph = n != 0;
            else k.unknown("block, gpt, layout, flush, blocks_per_sm, scalar, chunk_mb, copy_threads, acc_stride, "
                           "prefetch, packed, packed_float, ahead, early, slot_merge, float_lut, graph");
        }
        return t;
    }
};

KernelFormat kernel_format(const FormatInfo& fi) {
    const int base = fi.sample == SampleType::u8 ? 0 : fi.sample == SampleType::u16 ? 3 : fi.sample == SampleType::f16 ? 6 : 9;
    const int ch = fi.channels == 1 ? 0 : fi.channels == 3 ? 1 : 2;
    return KernelFormat(base + ch);
}

// Makes `device` current for the scope of a call and restores the caller's device after.
class DeviceScope {
public:
    explicit DeviceScope(int device) : device_(device) {
        IH_CHECK(cudaGetDevice(&previous_));
        if (previous_ != device_) IH_CHECK(cudaSetDevice(device_));
    }
    ~DeviceScope() {
        if (previous_ != device_ && previous_ >= 0) cudaSetDevice(previous_);
    }
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;

private:
    int device_;
    int previous_ = -1;
};

// Memory that only grows: on the device (cudaMalloc) or pinned on the host (cudaHostAlloc).
// Growing waits for the device first, so nothing queued can still use the old allocation.
enum class BufferKind { device, pinned };
template <typename T, BufferKind M>
struct GrowingBuffer {
    T* ptr = nullptr;
    std::size_t count = 0;
    void release() {
        if (ptr) {
            if constexpr (M == BufferKind::device) cudaFree(ptr);
            else cudaFreeHost(ptr);
        }
        ptr = nullptr;
        count = 0;
    }
    // Grows (contents lost); `zero` clears the new buffer.
    void reserve(std::size_t n, bool zero = false) {
        if (n <= count) return;
        if (ptr) IH_CHECK(cudaDeviceSynchronize());
        release();
        void** p = reinterpret_cast<void**>(&ptr);
        if constexpr (M == BufferKind::device) IH_CHECK(cudaMalloc(p, n * sizeof(T)));
        else IH_CHECK(cudaHostAlloc(p, n * sizeof(T), cudaHostAllocDefault));
        count = n;
        if (!zero) return;
        if constexpr (M == BufferKind::device) {
            IH_CHECK(cudaMemset(ptr, 0, n * sizeof(T)));
            IH_CHECK(cudaDeviceSynchronize());
        } else {
            std::memset(ptr, 0, n * sizeof(T));
        }
    }
};
template <typename T>
using DeviceBuffer = GrowingBuffer<T, BufferKind::device>;
template <typename T>
using PinnedBuffer = GrowingBuffer<T, BufferKind::pinned>;

// One contiguous run of rows to count: an image, or a staged piece of one.
struct Piece {
    const unsigned char* base;
    std::uint64_t pitch;
    std::uint64_t row_px;
    std::uint32_t rows;
    std::uint32_t slot;
};

// The piece of an ImageView: a packed image is one long row.
Piece piece_of(const ImageView& v, std::uint32_t slot) {
    const std::size_t row_bytes = v.row_bytes();
    if (v.stride_bytes == row_bytes || v.height == 1)
        return {static_cast<const unsigned char*>(v.data), row_bytes, v.pixel_count(), 1, slot};
    return {static_cast<const unsigned char*>(v.data), v.stride_bytes, v.width, v.height, slot};
}

// Copies `bytes` bytes with up to `threads` threads (pinned staging is filled this way).
void parallel_copy(void* dst, const void* src, std::size_t bytes, int threads) {
    constexpr std::size_t kMinPerThread = std::size_t(2) << 20;
    const int n = int(std::min<std::size_t>(std::size_t(threads), bytes / kMinPerThread));
    if (n <= 1) {
        std::memcpy(dst, src, bytes);
        return;
    }
    std::vector<std::thread> pool;
    const std::size_t part = (bytes / std::size_t(n) + 63) / 64 * 64;
    for (int i = 1; i < n; ++i) {
        const std::size_t off = part * std::size_t(i);
        if (off >= bytes) break;
        pool.emplace_back([=] { std::memcpy(static_cast<char*>(dst) + off, static_cast<const char*>(src) + off, std::min(part, bytes - off)); });
    }
    std::memcpy(dst, src, std::min(part, bytes));
    for (auto& t : pool) t.join();
}

class CudaEngine final : public BackendEngine<cuda::Engine> {
public:
    explicit CudaEngine(int device) : device_(device), tune_(Tune::from_env()) {
        DeviceScope scope(device_);
        IH_CHECK(cudaGetDeviceProperties(&props_, device_));
        try {
            for (int i = 0; i < kStreams; ++i) {
                IH_CHECK(cudaStreamCreateWithFlags(&streams_[i], cudaStreamNonBlocking));
                IH_CHECK(cudaEventCreateWithFlags(&copied_[i], cudaEventDisableTiming));
                IH_CHECK(cudaEventCreateWithFlags(&done_[i], cudaEventDisableTiming));
            }
            IH_CHECK(cudaEventCreateWithFlags(&last_use_, cudaEventDisableTiming));
            dynamic_smem_ = int(props_.sharedMemPerBlockOptin);
            for (int f = 0; f < kKernelFormats; ++f)
                IH_CHECK(allow_shared_memory(KernelFormat(f), int(props_.sharedMemPerBlockOptin), &dynamic_smem_));
            acc_.reserve(std::size_t(kParamImages) * 5 * 259, true);
            tickets_.reserve(kParamImages, true);
            copy_threads_ = tune_.copy_threads > 0
                                ? tune_.copy_threads
                                : int(std::clamp(std::thread::hardware_concurrency() / 2, 1u, 8u));
        } catch (...) {
            release();
            throw;
        }
    }
    ~CudaEngine() override {
        int previous = -1;
        cudaGetDevice(&previous);
        cudaSetDevice(device_);
        for (cudaStream_t s : streams_)
            if (s) cudaStreamSynchronize(s);
        // The caller's last stream may be gone by now: wait for the whole device instead.
        if (last_valid_) cudaDeviceSynchronize();
        cudaGetLastError();  // leave no error of ours for the caller's next CUDA call
        release();
        if (previous >= 0 && previous != device_) cudaSetDevice(previous);
    }

    std::string_view backend_name() const override { return "cuda"; }
    std::string device_name() const override { return props_.name; }

    // ---- host memory ---------------------------------------------------------------------
    void accumulate(const ImageView& image, const HistogramPlan& plan, std::span<std::uint64_t> slots) override {
        Call call(*this);
        run_host(std::span<const ImageView>(&image, 1), plan, slots);
        call.ok();
    }

    // ---- device memory -------------------------------------------------------------------
    Result compute_device(const ImageView& image, const Request& request, cuda::Stream stream) override {
        image.validate();
        HistogramPlan plan(image.format, request);
        Call call(*this);
        check_device_pointer(image.data);
        const std::size_t ts = plan.total_slots();
        out_.reserve(ts, false);
        result_host_.reserve(ts);
        run_device(std::span<const ImageView>(&image, 1), make_shape(plan), out_.ptr, stream);
        IH_CHECK(cudaMemcpyAsync(result_host_.ptr, out_.ptr, ts * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream));
        IH_CHECK(cudaStreamSynchronize(stream));
        last_valid_ = false;
        call.ok();
        return plan.make_result(image, std::span<const std::uint64_t>(result_host_.ptr, ts), "cuda", device_name());
    }

    void compute_device_async(const ImageView& image, const Request& request, std::uint64_t* device_slots,
                              cuda::Stream stream) override {
        image.validate();
        if (device_slots == nullptr) throw InvalidArgument("cuda: device_slots is null");
        // A new request is checked (HistogramPlan throws) before the call can mark the engine.
        std::optional<HistogramPlan> plan;
        if (!shape_cached(image.format, request)) plan.emplace(image.format, request);
        Call call(*this);
        const Shape& shape = plan ? cache_shape(*plan, image.format, request) : shape_cache_;
        check_device_pointer(image.data);
        run_device(std::span<const ImageView>(&image, 1), shape,
                   reinterpret_cast<unsigned long long*>(device_slots), stream);
        call.ok();
    }

    std::vector<Result> compute_batch(std::span<const ImageView> images, const Request& request,
                                      cuda::Memory memory, cuda::Stream stream) override {
        if (images.empty()) return {};
        validate_batch(images);
        HistogramPlan plan(images[0].format, request);
        const std::size_t ts = plan.total_slots();
        std::vector<std::uint64_t> slots(ts * images.size(), 0);
        Call call(*this);
        if (memory == cuda::Memory::host) {
            run_host(images, plan, slots);
        } else {
            for (const ImageView& v : images) check_device_pointer(v.data);
            out_.reserve(ts * images.size(), false);
            result_host_.reserve(ts * images.size());
            run_device(images, make_shape(plan), out_.ptr, stream);
            IH_CHECK(cudaMemcpyAsync(result_host_.ptr, out_.ptr, ts * images.size() * sizeof(std::uint64_t),
                                     cudaMemcpyDeviceToHost, stream));
            IH_CHECK(cudaStreamSynchronize(stream));
            last_valid_ = false;
            std::copy(result_host_.ptr, result_host_.ptr + slots.size(), slots.begin());
        }
        call.ok();
        std::vector<Result> out;
        out.reserve(images.size());
        for (std::size_t i = 0; i < images.size(); ++i)
            out.push_back(plan.make_result(images[i], std::span<const std::uint64_t>(slots.data() + i * ts, ts),
                                           "cuda", device_name()));
        return out;
    }

    void compute_batch_device_async(std::span<const ImageView> images, const Request& request,
                                    std::uint64_t* device_slots, cuda::Stream stream) override {
        if (images.empty()) return;
        if (device_slots == nullptr) throw InvalidArgument("cuda: device_slots is null");
        validate_batch(images);
        HistogramPlan plan(images[0].format, request);
        Call call(*this);
        for (const ImageView& v : images) check_device_pointer(v.data);
        run_device(images, make_shape(plan), reinterpret_cast<unsigned long long*>(device_slots), stream);
        call.ok();
    }

    std::size_t slot_count(PixelFormat format, const Request& request) const override {
        return HistogramPlan(format, request).total_slots();
    }
    Result unpack(const ImageView& image, const Request& request,
                  std::span<const std::uint64_t> slots) const override {
        HistogramPlan plan(image.format, request);
        if (slots.size() != plan.total_slots())
            throw InvalidArgument("cuda: unpack needs slot_count() counters, got " + std::to_string(slots.size()));
        return plan.make_result(image, slots, "cuda", device_name());
    }

private:
    // Scope of one public call: current device, recovery after an earlier failure, and marking
    // the engine for recovery if this call throws.
    class Call {
    public:
        explicit Call(CudaEngine& e) : e_(e), scope_(e.device_) {
            if (e_.dirty_) e_.recover();
        }
        ~Call() {
            if (!ok_) e_.dirty_ = true;
        }
        void ok() { ok_ = true; }

    private:
        CudaEngine& e_;
        DeviceScope scope_;
        bool ok_ = false;
    };

    void release() {
        acc_.release();
        tickets_.release();
        descs_dev_.release();
        out_.release();
        result_host_.release();
        for (int i = 0; i < kStreams; ++i) {
            stage_dev_[i].release();
            descs_stage_[i].release();
            stage_host_[i].release();
            if (copied_[i]) cudaEventDestroy(copied_[i]);
            if (done_[i]) cudaEventDestroy(done_[i]);
            if (streams_[i]) cudaStreamDestroy(streams_[i]);
            copied_[i] = done_[i] = nullptr;
            streams_[i] = nullptr;
        }
        if (last_use_) cudaEventDestroy(last_use_);
        last_use_ = nullptr;
    }

    // After a failed call: wait for whatever is still queued, then zero the accumulators and
    // tickets that a half-finished launch may have left behind.
    void recover() {
        cudaGetLastError();
        for (cudaStream_t s : streams_) IH_CHECK(cudaStreamSynchronize(s));
        sync_last();
        IH_CHECK(cudaMemset(acc_.ptr, 0, acc_.count * sizeof(unsigned long long)));
        IH_CHECK(cudaMemset(tickets_.ptr, 0, tickets_.count * sizeof(std::uint32_t)));
        IH_CHECK(cudaDeviceSynchronize());
        dirty_ = false;
    }

    void check_device_pointer(const void* p) const {
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

    static void validate_batch(std::span<const ImageView> images) {
        for (const ImageView& v : images) {
            v.validate();
            if (v.format != images[0].format)
                throw InvalidArgument("cuda: every image of a batch must have the same pixel format");
        }
    }

    // Work ordering: the accumulator is shared by every call, so work on a stream waits for the
    // last work the engine queued on another stream. The event is recorded only when the stream
    // changes, so repeated calls on one stream pay for no event.
    void order_after_last(cudaStream_t s) {
        if (last_valid_ && last_stream_ != s) {
            wait_for_last(s);
        }
    }
    void mark_last(cudaStream_t s) {
        last_stream_ = s;
        last_valid_ = true;
    }
    // Makes `s` wait for everything queued so far on the last stream (if that stream is gone,
    // waits for the whole device instead).
    void wait_for_last(cudaStream_t s) {
        if (cudaEventRecord(last_use_, last_stream_) != cudaSuccess) {
            cudaGetLastError();
            IH_CHECK(cudaDeviceSynchronize());
        } else {
            IH_CHECK(cudaStreamWaitEvent(s, last_use_, 0));
        }
    }
    void sync_last() {
        if (!last_valid_) return;
        if (cudaEventRecord(last_use_, last_stream_) != cudaSuccess || cudaEventSynchronize(last_use_) != cudaSuccess) {
            cudaGetLastError();
            cudaDeviceSynchronize();
        }
        last_valid_ = false;
    }

    // ---- launch shape ----------------------------------------------------------------------
    struct Shape {
        KernelParams params{};  // plan and layout fields filled; work fields per launch
        KernelFormat format{};
        unsigned block = 0;
        std::size_t smem = 0;
        unsigned grid_cap = 0;
        std::uint32_t pixel_bytes = 0, pixels_per_group = 0, align = 0, edge_rows_cap = 0;
        // The packed fast path (packed_kernel), when the plan has one.
        bool packed = false;
        unsigned packed_grid_cap = 0;
        std::uint32_t packed_flush_steps = 0;
        bool slot_merge = false;  // its last flush may merge per slot (KernelParams::slot_merge)
        bool code_lut = false;    // it may look float codes up (KernelParams::code_lut)
        unsigned code_lut_grid_cap = 0;
    };

    // make_shape of the last (format, request) of compute_device_async, kept for repeated calls
    // (a plan and a shape cost more host time than the launch should).
    static bool same_request(const Request& a, const Request& b) {
        return a.mode == b.mode && a.weights.r == b.weights.r && a.weights.g == b.weights.g &&
               a.weights.b == b.weights.b && a.bins.bins == b.bins.bins && a.bins.range == b.bins.range &&
               a.bins.clamp == b.bins.clamp && a.count_alpha == b.count_alpha;
    }
    bool shape_cached(PixelFormat format, const Request& request) const {
        return shape_cache_valid_ && shape_cache_format_ == format && same_request(shape_cache_request_, request);
    }
    const Shape& cache_shape(const HistogramPlan& plan, PixelFormat format, const Request& request) {
        shape_cache_valid_ = false;
        shape_cache_ = make_shape(plan);
        shape_cache_format_ = format;
        shape_cache_request_ = request;
        shape_cache_valid_ = true;
        return shape_cache_;
    }

    int occupancy(const Shape& sh, int layout, int nch = 0, bool luma = false) {
        const auto key = std::make_tuple(((int(sh.format) * 8 + layout) * 8 + nch) * 2 + (luma ? 1 : 0), sh.block, sh.smem);
        auto it = occupancy_.find(key);
        if (it == occupancy_.end()) {
            int n = 0;
            IH_CHECK(blocks_per_sm(sh.format, layout, int(sh.block), sh.smem, &n, nch, luma));
            it = occupancy_.emplace(key, std::max(n, 1)).first;
        }
        return it->second;
    }

    Shape make_shape(const HistogramPlan& plan) {
        Shape sh;
        KernelParams& p = sh.params;
        const FormatInfo& fi = plan.info;
        sh.format = kernel_format(fi);
        sh.pixel_bytes = std::uint32_t(fi.pixel_bytes());
        sh.pixels_per_group = std::uint32_t(group_bytes(int(sh.pixel_bytes))) / sh.pixel_bytes;
        sh.align = 1;
        while (sh.align < 16 && sh.pixel_bytes % (sh.align * 2) == 0) sh.align *= 2;

        p.nch = std::uint32_t(plan.channels.size());
        p.spc = plan.slots_per_channel();
        p.bins = plan.bins();
        p.total_slots = std::uint32_t(plan.total_slots());
        for (std::size_t c = 0; c < plan.channels.size(); ++c) p.src[c] = plan.sources[c];
        p.has_luma = plan.has_luma() ? 1u : 0u;
        p.luma_src[0] = std::uint32_t(std::max(fi.red, 0));
        p.luma_src[1] = std::uint32_t(std::max(fi.green, 0));
        p.luma_src[2] = std::uint32_t(std::max(fi.blue, 0));
        p.int_mode = plan.int_mode;
        p.shift = plan.shift;
        p.closed_top = plan.closed_top;
        p.clamp = plan.clamp;
        static_cast<KernelScalars&>(p) = plan;

        // Counters: per-lane 32-bit sub-histograms when they fit in a block's shared memory (up to
        // 5 channels of 256 values, or of 259 slots; measured faster than packed 16-bit ones at two
        // blocks per multiprocessor), then packed 16-bit ones, then plain copies, then 64-bit
        // global atomics (never for 8-bit images: 256 values per channel always fit).
        p.value_mode = fi.sample == SampleType::u8 ? 1u : 0u;
        const std::uint64_t slots = p.value_mode ? std::uint64_t(p.nch) * 256 : p.total_slots;
        p.hist_slots = std::uint32_t(slots);
        // What a block may have beside the kernel's own static shared memory.
        const std::uint64_t optin = std::uint64_t(dynamic_smem_);
        const std::uint64_t lanes32 = slots * 32 * 4, lanes16 = (slots + 1) / 2 * 32 * 4;
        auto fits = [&](int layout, std::uint64_t limit) {
            switch (layout) {
                case kLanes32: return lanes32 <= limit;
                case kLanes16: return lanes16 <= limit;
                case kCopies: return slots * 4 <= limit;
                default: return true;
            }
        };
        int layout = -1;
        if (tune_.layout >= 0 && fits(tune_.layout, optin) && !(p.value_mode && tune_.layout == kGlobal))
            layout = tune_.layout;
        else if (fits(kLanes32, optin)) layout = kLanes32;
        else if (fits(kLanes16, optin)) layout = kLanes16;
        else if (fits(kCopies, optin)) layout = kCopies;
        else layout = kGlobal;
        p.layout = std::uint32_t(layout);
        std::uint64_t words = 0;
        p.copies = 1;
        p.copy_stride = 0;
        switch (layout) {
            case kLanes32: words = slots * 32; break;
            case kLanes16: words = (slots + 1) / 2 * 32; break;
            case kCopies: {
                p.copy_stride = std::uint32_t(slots | 1);  // odd: copies start on different banks
                p.copies = std::uint32_t(std::clamp<std::uint64_t>(optin / 4 / p.copy_stride, 1, 8));
                words = std::uint64_t(p.copies) * p.copy_stride;
                break;
            }
            default: words = 0;
        }
        p.smem_words = std::uint32_t((words + 3) / 4 * 4);
        p.acc_stride = 1;
        p.prefetch = tune_.prefetch ? 1u : 0u;
        sh.smem = std::size_t(p.smem_words) * 4;

        sh.block = unsigned(tune_.block);
        const int max_groups = max_gpt(int(sh.pixel_bytes));
        p.gpt = std::uint32_t(tune_.gpt > 0 ? std::min(tune_.gpt, max_groups) : max_groups);
        sh.edge_rows_cap = std::max(1u, sh.block * 2 / sh.pixels_per_group);

        // Flush before any counter could overflow: bound the increments one counter can get in
        // one tile (a thread counts at most gpt groups plus a few edge pixels per tile).
        const std::uint64_t per_thread = std::uint64_t(p.gpt) * sh.pixels_per_group +
                                         (std::uint64_t(sh.edge_rows_cap) * 2 * sh.pixels_per_group + sh.block - 1) / sh.block;
        const std::uint64_t sharing = layout == kCopies ? sh.block : (sh.block + 31) / 32;
        const std::uint64_t per_tile = per_thread * sharing * 2;  // extra: nan/below/above share nothing, x2 margin
        const std::uint64_t limit = layout == kLanes16 ? 0xFFFFu : 0xFFFFFFFFu;
        std::uint64_t flush = std::max<std::uint64_t>(1, limit / per_tile);
        if (tune_.flush > 0) flush = std::min<std::uint64_t>(flush, std::uint64_t(tune_.flush));
        p.flush_tiles = std::uint32_t(std::min<std::uint64_t>(flush, 0x7FFFFFFFu));

        const int per_sm = tune_.blocks_per_sm > 0 ? tune_.blocks_per_sm : occupancy(sh, layout);
        sh.grid_cap = unsigned(per_sm) * unsigned(props_.multiProcessorCount);

        // The packed fast path: per step a thread counts kPackedSteps vectors of 16 / pixel_bytes
        // pixels, and one lane's counter is shared by block / 32 threads (a float sample's second
        // add, for clipped values, goes to another slot, so a counter still gets at most one add
        // per pixel); flush with room for the block's last partial step and the image's edge pixels.
        const bool luma = p.has_luma != 0;
        bool fixed_sources = true;  // float: the plan's sources are the kernel's (packed_float_source)
        for (std::uint32_t c = 0; c < p.nch && c < std::uint32_t(kMaxChannels); ++c)
            fixed_sources = fixed_sources && p.src[c] == packed_float_source(int(fi.channels), int(p.nch), luma ? 1 : 0, int(c));
        if (luma) fixed_sources = fixed_sources && p.luma_src[0] == 0 && p.luma_src[1] == 1 && p.luma_src[2] == 2;
        sh.packed = tune_.packed && !tune_.scalar && has_packed(sh.format) && layout == kLanes32 && p.nch >= 1 &&
                    p.nch <= std::uint32_t(kMaxChannels) && (p.value_mode || (tune_.packed_float && fixed_sources)) &&
                    has_packed_kernel(sh.format, int(p.nch), luma);
        if (sh.packed) {
            const std::uint64_t per_step = std::uint64_t(kPackedSteps) * (16 / sh.pixel_bytes) * ((sh.block + 31) / 32);
            std::uint64_t steps = std::max<std::uint64_t>(1, 0xFFFFFFFFull / per_step - 3);
            if (tune_.flush > 0) steps = std::min<std::uint64_t>(steps, std::uint64_t(tune_.flush));
            sh.packed_flush_steps = std::uint32_t(std::min<std::uint64_t>(steps, 0x7FFFFFFFu));
            const int packed_per_sm = tune_.blocks_per_sm > 0 ? tune_.blocks_per_sm
                                                              : occupancy(sh, kPacked, int(p.nch), luma);
            sh.packed_grid_cap = unsigned(packed_per_sm) * unsigned(props_.multiProcessorCount);
            // The per-slot merge needs every counter slot to be one output slot: floats count
            // slots; 8-bit values qualify when each value is its own bin of 256 (the default).
            bool values_are_bins = p.bins == 256;
            for (std::uint32_t v = 0; v < 256 && values_are_bins; ++v) values_are_bins = plan.classify_int(v) == v;
            sh.slot_merge = tune_.slot_merge && (!p.value_mode || values_are_bins);
            // The code table sits behind the counters; a slot must fit its 14 bits.
            if (tune_.float_lut != 0 && !p.value_mode && !luma && p.spc < 0x4000u &&
                sh.smem + kCodeLutBytes <= std::size_t(dynamic_smem_)) {
                Shape with = sh;
                with.smem = sh.smem + kCodeLutBytes;
                sh.code_lut = true;
                sh.code_lut_grid_cap = unsigned(occupancy(with, kPacked, int(p.nch), luma)) *
                                       unsigned(props_.multiProcessorCount);
            }
        }
        return sh;
    }

    ImageDesc describe(const Shape& sh, const Piece& pc) const {
        ImageDesc d{};
        d.base = pc.base;
        d.pitch = pc.pitch;
        d.row_px = pc.row_px;
        d.rows = pc.rows;
        d.slot_index = pc.slot;
        const auto addr = reinterpret_cast<std::uintptr_t>(pc.base);
        d.scalar = (tune_.scalar || addr % sh.align != 0 || (pc.rows > 1 && pc.pitch % sh.align != 0)) ? 1u : 0u;
        // Rows too short for one group still get one (empty) unit: their pixels are all edges.
        d.units_per_row = d.scalar ? pc.row_px : std::max<std::uint64_t>(1, pc.row_px / sh.pixels_per_group);
        const std::uint64_t tile_units = std::uint64_t(sh.block) * sh.params.gpt;
        if (d.units_per_row >= tile_units) {
            d.rows_per_tile = 1;
            d.segs = std::uint32_t((d.units_per_row + tile_units - 1) / tile_units);
        } else {
            std::uint64_t r = tile_units / std::max<std::uint64_t>(d.units_per_row, 1);
            if (!d.scalar) r = std::min<std::uint64_t>(r, sh.edge_rows_cap);
            d.rows_per_tile = std::uint32_t(std::clamp<std::uint64_t>(r, 1, pc.rows));
            d.segs = 1;
        }
        const std::uint64_t tiles = (std::uint64_t(pc.rows) + d.rows_per_tile - 1) / d.rows_per_tile * d.segs;
        if (tiles > 0x3FFFFFFFu) throw InvalidArgument("cuda: image too large for one launch");
        d.tiles = std::uint32_t(tiles);
        return d;
    }

    // Launches the pieces on `stream`: one launch (more only past kMaxLaunchImages images or
    // 2^32 tiles). Up to kParamImages descriptors travel in the parameters, more are copied to
    // `descs` (device memory used by this stream only) first.
    void launch(Shape& sh, std::span<const Piece> pieces, unsigned long long* acc, unsigned long long* out,
                bool finalize, cudaStream_t stream, DeviceBuffer<ImageDesc>& descs, LaunchGraph* graph = nullptr) {
        std::size_t first = 0;
        std::vector<ImageDesc>& host_descs = host_descs_;
        while (first < pieces.size()) {
            KernelParams& p = sh.params;
            std::uint64_t total = 0;
            std::size_t n = 0;
            host_descs.clear();
            while (first + n < pieces.size() && n < std::size_t(kMaxLaunchImages)) {
                ImageDesc d = describe(sh, pieces[first + n]);
                if (n > 0 && total + d.tiles > 0xFFFFFFFFull) break;
                d.tile_begin = std::uint32_t(total);
                total += d.tiles;
                host_descs.push_back(d);
                ++n;
            }
            p.nimg = std::uint32_t(n);
            p.total_tiles = std::uint32_t(total);
            p.finalize = finalize ? 1u : 0u;
            p.slot_merge = 0;  // packed_kernel only
            p.acc = acc;
            p.out = out;
            p.tickets = tickets_.ptr;
            if (finalize) {
                // Slots are relative to this launch: acc/out/tickets per launch.
                const std::uint32_t base = host_descs[0].slot_index;
                for (ImageDesc& d : host_descs) d.slot_index -= base;
                p.out = out + std::uint64_t(base) * p.total_slots;
            }
            p.img_dev = nullptr;
            if (n <= std::size_t(kParamImages)) {
                for (std::size_t k = 0; k < n; ++k) p.img[k] = host_descs[k];
            } else {
                descs.reserve(n, false);
                // From pageable memory: the call returns once the data is staged.
                IH_CHECK(cudaMemcpyAsync(descs.ptr, host_descs.data(), n * sizeof(ImageDesc), cudaMemcpyHostToDevice,
                                         stream));
                p.img_dev = descs.ptr;
            }
            const unsigned grid = unsigned(std::min<std::uint64_t>(total, sh.grid_cap));
            const cudaError_t err = launch_histogram(sh.format, p, grid, sh.block, sh.smem, stream, graph);
            if (err != cudaSuccess) throw DeviceError(cuda_message("histogram kernel launch", err));
            first += n;
        }
    }

    // Device images: one launch on the caller's stream, finished counts in `out`
    // ([image][total_slots]).
    void run_device(std::span<const ImageView> images, const Shape& shape, unsigned long long* out,
                    cudaStream_t stream) {
        Shape sh = shape;
        const std::size_t per_launch = std::min<std::size_t>(images.size(), kMaxLaunchImages);
        if (images.size() <= 4) sh.params.acc_stride = std::uint32_t(tune_.acc_stride);
        acc_.reserve(per_launch * sh.params.total_slots * sh.params.acc_stride, true);
        tickets_.reserve(per_launch, true);
        if (images.size() == 1) {
            const Piece pc = piece_of(images[0], 0);
            order_after_last(stream);
            LaunchGraph* graph = tune_.graph ? &graph_ : nullptr;
            if (sh.packed && pc.rows == 1 && reinterpret_cast<std::uintptr_t>(pc.base) % sh.pixel_bytes == 0)
                launch_packed(sh, pc, acc_.ptr, out, stream, graph);
            else
                launch(sh, std::span<const Piece>(&pc, 1), acc_.ptr, out, true, stream, descs_dev_, graph);
            mark_last(stream);
            return;
        }
        std::vector<Piece> pieces;
        pieces.reserve(images.size());
        for (std::size_t i = 0; i < images.size(); ++i)
            pieces.push_back(piece_of(images[i], std::uint32_t(i)));
        order_after_last(stream);
        launch(sh, pieces, acc_.ptr, out, true, stream, descs_dev_);
        mark_last(stream);
    }

    // One packed image (one long row, pixel-aligned) on packed_kernel: its 16-byte
    // vectors split evenly over at least a vector per thread of every block, up to the grid cap.
    void launch_packed(Shape& sh, const Piece& pc, unsigned long long* acc, unsigned long long* out,
                       cudaStream_t stream, LaunchGraph* graph) {
        KernelParams& p = sh.params;
        const std::uint64_t vectors = pc.row_px * sh.pixel_bytes / 16;
        const bool lut = use_code_lut(sh, pc, stream);
        const unsigned grid = unsigned(std::clamp<std::uint64_t>((vectors + sh.block - 1) / sh.block, 1,
                                                                 lut ? sh.code_lut_grid_cap : sh.packed_grid_cap));
        p.code_lut = lut ? code_lut(sh, stream) : nullptr;
        const std::size_t smem = sh.smem + (lut ? kCodeLutBytes : 0);
        ImageDesc& d = p.img[0];
        d = ImageDesc{};
        d.base = pc.base;
        d.pitch = pc.pitch;
        d.row_px = pc.row_px;
        d.units_per_row = vectors;
        d.rows = 1;
        d.rows_per_tile = 1;
        d.segs = grid;
        d.tile_begin = 0;
        d.tiles = grid;  // finish_image: every block of the launch takes part
        d.slot_index = 0;
        p.packed = 1;
        p.ahead = tune_.ahead ? 1u : 0u;
        // Early loads measured 0.3-0.4 us faster on 8-bit R, G, B (A) at 8K, and 0.5-2 us slower
        // with luminance and on float samples (three H200 runs): only the former take them.
        p.early = tune_.early && p.value_mode && !p.has_luma ? 1u : 0u;
        p.slot_merge = sh.slot_merge && grid <= kMaxArrivals && pc.row_px < (1ull << kArrivalShift) ? 1u : 0u;
        p.flush_tiles = sh.packed_flush_steps;
        p.nimg = 1;
        p.total_tiles = grid;
        p.finalize = 1;
        p.acc = acc;
        p.out = out;
        p.tickets = tickets_.ptr;
        p.img_dev = nullptr;
        const cudaError_t err = launch_histogram(sh.format, p, grid, sh.block, smem, stream, graph);
        if (err != cudaSuccess) throw DeviceError(cuda_message("histogram kernel launch", err));
    }

    // Whether this launch looks float codes up: the shape allows it, the image is big enough to
    // pay for each block's copy of the table (or float_lut=2), and the stream is not being
    // captured into the caller's graph: that graph would keep reading the engine's one table,
    // which a later call with another request rewrites (and a pageable copy cannot be captured).
    bool use_code_lut(const Shape& sh, const Piece& pc, cudaStream_t stream) {
        if (!sh.code_lut || (tune_.float_lut != 2 && pc.row_px < kCodeLutMinPixels)) return false;
        cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
        IH_CHECK(cudaStreamIsCapturing(stream, &capture));
        return capture == cudaStreamCaptureStatusNone;
    }

    // What a code table depends on: the sample type and the plan's float classify arguments.
    struct CodeLutKey {
        bool half = false;
        std::uint32_t bins = 0, lo_bits = 0, scale_bits = 0, lo_key = 0, hi_key = 0, closed_top = 0, clamp = 0;
        static CodeLutKey of(const Shape& sh) {
            const KernelParams& p = sh.params;
            return {sh.format == kGrayF16 || sh.format == kRgbaF16, p.bins, std::bit_cast<std::uint32_t>(p.lo_float),
                    std::bit_cast<std::uint32_t>(p.scale_float), p.lo_key, p.hi_key, p.closed_top, p.clamp};
        }
        bool operator==(const CodeLutKey&) const = default;
    };

    // The device table for the shape's plan (core/plan.hpp's half_codes or float_top16_codes,
    // with the kernel's own classify arguments), rebuilt and uploaded on `stream` when they
    // change; the engine's calls are ordered, so no queued launch still reads the previous table
    // when the copy runs.
    const std::uint16_t* code_lut(const Shape& sh, cudaStream_t stream) {
        const CodeLutKey key = CodeLutKey::of(sh);
        if (code_lut_valid_ && code_lut_key_ == key) return code_lut_dev_.ptr;
        code_lut_valid_ = false;
        const KernelParams& p = sh.params;
        auto classify = [&](float v) {
            return ih_classify_float(v, p.bins, p.lo_float, p.scale_float, p.lo_key, p.hi_key, p.closed_top, p.clamp);
        };
        const std::vector<std::uint32_t> codes = key.half ? half_codes(classify) : float_top16_codes(classify);
        code_lut_host_.resize(kCodeLutEntries);
        for (std::uint32_t i = 0; i < kCodeLutEntries; ++i) {
            const std::uint32_t c = codes[i];
            code_lut_host_[i] = c == kCodeUnresolved ? std::uint16_t(kCodeLutUnresolved)
                                                     : std::uint16_t((c & IH_SLOT_MASK) | ((c >> IH_EXTRA_SHIFT) << 14));
        }
        code_lut_dev_.reserve(kCodeLutEntries);
        // From pageable memory: the call returns once the table is staged.
        IH_CHECK(cudaMemcpyAsync(code_lut_dev_.ptr, code_lut_host_.data(), kCodeLutBytes, cudaMemcpyHostToDevice, stream));
        code_lut_key_ = key;
        code_lut_valid_ = true;
        return code_lut_dev_.ptr;
    }

    // Host images: staged through pinned buffers on kStreams streams, accumulated in acc
    // ([image][total_slots]), copied back once.
    void run_host(std::span<const ImageView> images, const HistogramPlan& plan, std::span<std::uint64_t> slots) {
        Shape sh = make_shape(plan);
        const std::size_t ts = sh.params.total_slots;
        acc_.reserve(images.size() * ts, true);
        result_host_.reserve(images.size() * ts);
        // Chunks of about an eighth of the data, 16 to 64 MiB (measured on the H200 host: 8K
        // 16 MiB x 8 copy threads, 16384^2 64 MiB x 16 threads were best).
        std::uint64_t total_bytes = 0;
        for (const ImageView& v : images) total_bytes += std::uint64_t(v.row_bytes()) * v.height;
        std::size_t chunk = tune_.chunk != 0
                                ? tune_.chunk
                                : std::size_t(std::clamp<std::uint64_t>(total_bytes / 8, std::uint64_t(16) << 20,
                                                                        std::uint64_t(64) << 20));
        for (const ImageView& v : images) chunk = std::max(chunk, v.row_bytes() + 256);
        // Pieces start on 256-byte boundaries inside the chunk; a chunk that is not a multiple of
        // 256 would let the rounded-up fill level pass the buffer's end (and the copy of `used`
        // bytes fail with cudaErrorInvalidValue).
        chunk = (chunk + 255) / 256 * 256;
        const int copy_threads = tune_.copy_threads > 0 ? tune_.copy_threads
                                 : total_bytes >= (std::uint64_t(512) << 20)
                                     ? int(std::clamp(std::thread::hardware_concurrency(), 1u, 16u))
                                     : copy_threads_;
        for (int i = 0; i < kStreams; ++i) {
            stage_host_[i].reserve(chunk);
            stage_dev_[i].reserve(chunk, false);
        }
        for (cudaStream_t s : streams_) order_after_last(s);

        const std::size_t pb = sh.pixel_bytes;
        const std::size_t px_align = std::size_t(group_bytes(int(pb))) / pb;  // whole groups per piece
        int stream = 0;
        std::size_t used = 0;
        std::vector<Piece> pieces;
        bool stream_busy[kStreams] = {};

        auto begin_chunk = [&] {
            if (stream_busy[stream]) IH_CHECK(cudaEventSynchronize(copied_[stream]));
            used = 0;
            pieces.clear();
        };
        auto dispatch = [&] {
            if (pieces.empty()) return;
            cudaStream_t s = streams_[stream];
            IH_CHECK(cudaMemcpyAsync(stage_dev_[stream].ptr, stage_host_[stream].ptr, used, cudaMemcpyHostToDevice, s));
            IH_CHECK(cudaEventRecord(copied_[stream], s));
            launch(sh, pieces, acc_.ptr, nullptr, false, s, descs_stage_[stream]);
            stream_busy[stream] = true;
            stream = (stream + 1) % kStreams;
            begin_chunk();
        };
        begin_chunk();
        for (std::size_t i = 0; i < images.size(); ++i) {
            const ImageView& v = images[i];
            const std::size_t row_bytes = v.row_bytes();
            const bool packed = v.stride_bytes == row_bytes || v.height == 1;
            if (packed) {
                // A packed image is a byte range: cut it into pieces of whole groups.
                const auto* src = static_cast<const unsigned char*>(v.data);
                std::uint64_t px_left = v.pixel_count();
                while (px_left > 0) {
                    std::size_t room = chunk > used ? (chunk - used) / pb : 0;
                    if (room < px_left) room = room / px_align * px_align;
                    if (room == 0 && pieces.empty()) throw Error("cuda: staging buffer smaller than a pixel group");
                    if (room == 0 || pieces.size() == std::size_t(kMaxLaunchImages)) {
                        dispatch();
                        continue;
                    }
                    const std::uint64_t n = std::min<std::uint64_t>(px_left, room);
                    parallel_copy(stage_host_[stream].ptr + used, src, n * pb, copy_threads);
                    pieces.push_back({stage_dev_[stream].ptr + used, n * pb, n, 1, std::uint32_t(i)});
                    used = (used + n * pb + 255) / 256 * 256;
                    src += n * pb;
                    px_left -= n;
                }
            } else {
                // Rows with padding: packed into the staging buffer row after row.
                std::uint32_t row = 0;
                while (row < v.height) {
                    const std::size_t room = chunk > used ? (chunk - used) / row_bytes : 0;
                    if (room == 0 || pieces.size() == std::size_t(kMaxLaunchImages)) {
                        dispatch();
                        continue;
                    }
                    const std::uint32_t n = std::uint32_t(std::min<std::uint64_t>(v.height - row, room));
                    unsigned char* dst = stage_host_[stream].ptr + used;
                    for (std::uint32_t r = 0; r < n; ++r)
                        std::memcpy(dst + std::size_t(r) * row_bytes, v.row(row + r), row_bytes);
                    pieces.push_back({stage_dev_[stream].ptr + used, std::uint64_t(n) * row_bytes,
                                      std::uint64_t(n) * v.width, 1, std::uint32_t(i)});
                    used = (used + std::size_t(n) * row_bytes + 255) / 256 * 256;
                    row += n;
                }
            }
        }
        dispatch();

        // Join the streams, copy the counts back, re-zero the accumulator.
        cudaStream_t s0 = streams_[0];
        for (int i = 1; i < kStreams; ++i) {
            IH_CHECK(cudaEventRecord(done_[i], streams_[i]));
            IH_CHECK(cudaStreamWaitEvent(s0, done_[i], 0));
        }
        const std::size_t n = images.size() * ts;
        IH_CHECK(cudaMemcpyAsync(result_host_.ptr, acc_.ptr, n * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, s0));
        IH_CHECK(cudaMemsetAsync(acc_.ptr, 0, n * sizeof(std::uint64_t), s0));
        IH_CHECK(cudaStreamSynchronize(s0));
        last_valid_ = false;
        for (std::size_t k = 0; k < n; ++k) slots[k] += result_host_.ptr[k];
    }

    int device_;
    Tune tune_;
    cudaDeviceProp props_{};
    cudaStream_t streams_[kStreams] = {};
    cudaEvent_t copied_[kStreams] = {};
    cudaEvent_t done_[kStreams] = {};
    cudaEvent_t last_use_ = nullptr;
    cudaStream_t last_stream_ = nullptr;
    bool last_valid_ = false;
    bool dirty_ = false;
    int copy_threads_ = 1;
    int dynamic_smem_ = 0;  // dynamic shared memory a block of any kernel may have
    DeviceBuffer<unsigned long long> acc_;
    DeviceBuffer<std::uint32_t> tickets_;
    DeviceBuffer<unsigned long long> out_;
    PinnedBuffer<std::uint64_t> result_host_;
    DeviceBuffer<unsigned char> stage_dev_[kStreams];
    DeviceBuffer<ImageDesc> descs_dev_;                // batch descriptors, device path
    DeviceBuffer<std::uint16_t> code_lut_dev_;         // KernelParams::code_lut (code_lut())
    std::vector<std::uint16_t> code_lut_host_;
    CodeLutKey code_lut_key_{};                        // what code_lut_dev_ was built from
    bool code_lut_valid_ = false;
    LaunchGraph graph_;                                // single device images (Tune::graph)
    DeviceBuffer<ImageDesc> descs_stage_[kStreams];    // batch descriptors, per staging stream
    PinnedBuffer<unsigned char> stage_host_[kStreams];
    std::map<std::tuple<int, unsigned, std::size_t>, int> occupancy_;
    std::vector<ImageDesc> host_descs_;  // launch(): descriptors of the launch being built
    Shape shape_cache_;
    PixelFormat shape_cache_format_{};
    Request shape_cache_request_;
    bool shape_cache_valid_ = false;
};

class CudaBackend final : public Backend {
public:
    std::string_view name() const override { return "cuda"; }
    std::string_view summary() const override {
        return "NVIDIA GPUs through the CUDA runtime: per-lane shared-memory sub-histograms, one launch";
    }

    std::vector<DeviceInfo> devices() const override {
        std::vector<DeviceInfo> out;
        int n = 0;
        const cudaError_t err = cudaGetDeviceCount(&n);
        if (err != cudaSuccess || n == 0) {
            cudaGetLastError();
            out.push_back({"0", "no CUDA device", true, false,
                           err != cudaSuccess ? cuda_message("cudaGetDeviceCount", err)
                                              : std::string("cudaGetDeviceCount found no device")});
            return out;
        }
        for (int i = 0; i < n; ++i) {
            cudaDeviceProp p{};
            DeviceInfo d;
            d.id = std::to_string(i);
            d.is_gpu = true;
            const cudaError_t e = cudaGetDeviceProperties(&p, i);
            if (e != cudaSuccess) {
                cudaGetLastError();
                d.name = "CUDA device " + d.id;
                d.note = cuda_message("cudaGetDeviceProperties", e);
            } else {
                d.name = p.name;
                d.available = p.major * 10 + p.minor >= 75;
                d.note = "compute capability " + std::to_string(p.major) + "." + std::to_string(p.minor) + ", " +
                         std::to_string(p.multiProcessorCount) + " SMs, " +
                         std::to_string(p.totalGlobalMem >> 20) + " MiB" +
                         (d.available ? "" : " (needs compute capability 7.5 or newer)");
            }
            out.push_back(std::move(d));
        }
        return out;
    }

    std::unique_ptr<Engine> create_engine(const EngineOptions& options) const override {
        // The shared rule: --device, else IMGHIST_CUDA_DEVICE; an index or a name substring.
        const std::vector<DeviceInfo> devs = devices();
        const DeviceInfo* pick = &devs[select_device("cuda", devs, options.device, "IMGHIST_CUDA_DEVICE")];
        try {
            return std::make_unique<CudaEngine>(std::stoi(pick->id));
        } catch (const DeviceError& e) {
            throw BackendUnavailable(std::string("cuda: could not set up the device: ") + e.what());
        }
    }
};

}  // namespace

const Backend& cuda_backend() {
    static const CudaBackend backend;
    return backend;
}

namespace cuda {
std::unique_ptr<Engine> create_engine(const EngineOptions& options) {
    std::unique_ptr<imghist::Engine> e = cuda_backend().create_engine(options);
    return std::unique_ptr<Engine>(static_cast<Engine*>(e.release()));
}
}  // namespace cuda

}  // namespace imghist
