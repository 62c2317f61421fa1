#include "cuda_engine.hpp"

#include <algorithm>
#include <cstring>
#include <thread>

namespace imghist::cuda_detail {

CudaEngine::CudaEngine(int device) : device_(device) {
    DeviceScope scope(device_);
    IH_CHECK(cudaGetDeviceProperties(&props_, device_));
    tune_ = tune_for({"NVIDIA", props_.name, true});
    try {
        setup();
    } catch (...) {
        release();
        throw;
    }
}

void CudaEngine::setup() {
    for (int i = 0; i < kMaxStages; ++i) {
        IH_CHECK(cudaStreamCreateWithFlags(&streams_[i], cudaStreamNonBlocking));
        IH_CHECK(cudaEventCreateWithFlags(&copied_[i], cudaEventDisableTiming));
        IH_CHECK(cudaEventCreateWithFlags(&done_[i], cudaEventDisableTiming));
    }
    IH_CHECK(cudaEventCreateWithFlags(&last_use_, cudaEventDisableTiming));
    dynamic_smem_ = int(props_.sharedMemPerBlockOptin);
    for (int f = 0; f < kKernelFormats; ++f)
        IH_CHECK(allow_shared_memory(KernelFormat(f), int(props_.sharedMemPerBlockOptin), &dynamic_smem_));
    acc_.reserve(std::size_t(kParamImages) * kMaxChannels * (IH_VALUE_SLOTS + IH_EXTRA_SLOTS), true);
    tickets_.reserve(kParamImages, true);
    copy_threads_ = tune_.copy_threads > 0 ? tune_.copy_threads
                                           : int(std::clamp(std::thread::hardware_concurrency() / 2, 1u, 8u));
}

CudaEngine::~CudaEngine() {
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

void CudaEngine::release() {
    acc_.release();
    tickets_.release();
    descs_dev_.release();
    out_.release();
    select_out_.release();
    result_host_.release();
    stats_dev_.release();
    stats_host_.release();
    stats_targets_.release();
    for (int i = 0; i < kMaxStages; ++i) {
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
void CudaEngine::recover() {
    cudaGetLastError();
    for (cudaStream_t s : streams_) IH_CHECK(cudaStreamSynchronize(s));
    sync_last();
    IH_CHECK(cudaMemset(acc_.ptr, 0, acc_.count * sizeof(unsigned long long)));
    IH_CHECK(cudaMemset(tickets_.ptr, 0, tickets_.count * sizeof(std::uint32_t)));
    if (select_out_.ptr != nullptr) IH_CHECK(cudaMemset(select_out_.ptr, 0, sizeof(unsigned long long)));
    selected_total_ = 0;
    IH_CHECK(cudaDeviceSynchronize());
    dirty_ = false;
}

// The event is recorded only when the stream changes, so repeated calls on one stream pay for
// no event.
void CudaEngine::order_after_last(cudaStream_t s) {
    if (last_valid_ && last_stream_ != s) wait_for_last(s);
}
void CudaEngine::mark_last(cudaStream_t s) {
    last_stream_ = s;
    last_valid_ = true;
}
// Makes `s` wait for everything queued so far on the last stream (if that stream is gone,
// waits for the whole device instead).
void CudaEngine::wait_for_last(cudaStream_t s) {
    if (cudaEventRecord(last_use_, last_stream_) != cudaSuccess) {
        cudaGetLastError();
        IH_CHECK(cudaDeviceSynchronize());
    } else {
        IH_CHECK(cudaStreamWaitEvent(s, last_use_, 0));
    }
}
void CudaEngine::sync_last() {
    if (!last_valid_) return;
    if (cudaEventRecord(last_use_, last_stream_) != cudaSuccess || cudaEventSynchronize(last_use_) != cudaSuccess) {
        cudaGetLastError();
        cudaDeviceSynchronize();
    }
    last_valid_ = false;
}

// ---- launch shapes ------------------------------------------------------------------------

int CudaEngine::occupancy(KernelFormat format, int layout, unsigned block, std::size_t smem, int nch, bool luma) {
    const auto key = std::make_tuple(int(format), layout, block, smem, nch, luma);
    auto it = occupancy_.find(key);
    if (it == occupancy_.end()) {
        int n = 0;
        IH_CHECK(blocks_per_sm(format, layout, int(block), smem, &n, nch, luma));
        it = occupancy_.emplace(key, std::max(n, 1)).first;
    }
    return it->second;
}

Shape CudaEngine::make_shape(const HistogramPlan& plan) {
    const DeviceLimits limits{unsigned(props_.multiProcessorCount), std::size_t(dynamic_smem_)};
    Shape sh = decide_shape(plan, limits, tune_, [this](KernelFormat f, int layout, unsigned block, std::size_t smem,
                                                        int nch, bool luma) {
        return occupancy(f, layout, block, smem, nch, luma);
    });
    sh.edge_keys_host = plan.edge_keys;
    sh.params.edge_keys = edge_keys(plan.edge_keys);
    return sh;
}

// One device copy of each distinct set of edge keys, kept while the engine lives: cached shapes
// and graphs the caller captured keep pointing at it (at most 16 KiB a set). Copied
// synchronously, so the copy is never part of a stream being captured.
const std::uint32_t* CudaEngine::edge_keys(const std::vector<std::uint32_t>& keys) {
    if (keys.empty()) return nullptr;
    DeviceBuffer<std::uint32_t>& copy = edge_keys_dev_[keys];
    if (copy.ptr == nullptr) {
        copy.reserve(keys.size());
        IH_CHECK(cudaMemcpy(copy.ptr, keys.data(), keys.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    }
    return copy.ptr;
}

// A new request is checked (HistogramPlan throws) here, before a Call can mark the engine.
const Shape& CudaEngine::cached_shape(PixelFormat format, const Request& request) {
    const ShapeKey key{format, request};
    if (shape_key_ == key) return shape_cache_;
    shape_key_.reset();
    const HistogramPlan plan(format, request);
    {
        Call call(*this);
        shape_cache_ = make_shape(plan);
        call.ok();
    }
    shape_key_ = key;
    return shape_cache_;
}

// ---- launches -----------------------------------------------------------------------------

// The work fields of one launch of `descs`: up to kParamImages descriptors travel in the
// parameters, more are copied to `device_descs` (device memory used by this stream only) first.
void CudaEngine::set_work(KernelParams& p, std::span<ImageDesc> descs, unsigned long long* acc,
                          unsigned long long* out, bool finalize, cudaStream_t stream,
                          DeviceBuffer<ImageDesc>& device_descs) {
    const std::size_t n = descs.size();
    p.nimg = std::uint32_t(n);
    p.finalize = finalize ? 1u : 0u;
    p.slot_merge = 0;  // packed_kernel only
    p.acc = acc;
    p.out = out;
    p.tickets = tickets_.ptr;
    if (finalize) {
        // Slots are relative to this launch: acc/out/tickets per launch.
        const std::uint32_t base = descs[0].slot_index;
        for (ImageDesc& d : descs) d.slot_index -= base;
        p.out = out + std::uint64_t(base) * p.total_slots;
    }
    p.img_dev = nullptr;
    if (n <= std::size_t(kParamImages)) {
        std::copy(descs.begin(), descs.end(), p.img);
        return;
    }
    device_descs.reserve(n, false);
    // From pageable memory: the call returns once the data is staged.
    IH_CHECK(cudaMemcpyAsync(device_descs.ptr, descs.data(), n * sizeof(ImageDesc), cudaMemcpyHostToDevice, stream));
    p.img_dev = device_descs.ptr;
}

// Launches the pieces on `stream`: one launch (more only past kMaxLaunchImages images or 2^32
// tiles).
void CudaEngine::launch(Shape& sh, std::span<const Piece> pieces, unsigned long long* acc, unsigned long long* out,
                        bool finalize, cudaStream_t stream, DeviceBuffer<ImageDesc>& descs, LaunchGraph* graph) {
    std::size_t first = 0;
    while (first < pieces.size()) {
        std::uint64_t total = 0;
        host_descs_.clear();
        while (first + host_descs_.size() < pieces.size() && host_descs_.size() < std::size_t(kMaxLaunchImages)) {
            ImageDesc d = describe(sh, pieces[first + host_descs_.size()], tune_.scalar);
            if (!host_descs_.empty() && total + d.tiles > 0xFFFFFFFFull) break;
            d.tile_begin = std::uint32_t(total);
            total += d.tiles;
            host_descs_.push_back(d);
        }
        sh.params.total_tiles = std::uint32_t(total);
        set_work(sh.params, host_descs_, acc, out, finalize, stream, descs);
        const unsigned grid = unsigned(std::min<std::uint64_t>(total, sh.grid_cap));
        const cudaError_t err = launch_histogram(sh.format, sh.params, grid, sh.block, sh.smem, stream, graph);
        check(err, "histogram kernel launch");
        first += host_descs_.size();
    }
}

// Device images: one launch on the caller's stream, finished counts in `out`
// ([image][total_slots]).
void CudaEngine::run_device(std::span<const DeviceImage> images, const Shape& shape, unsigned long long* out,
                            cudaStream_t stream) {
    const std::vector<Piece> pieces = pieces_of(images);
    run_pieces(pieces, shape, out, stream);
}

void CudaEngine::run_pieces(std::span<const Piece> pieces, const Shape& shape, unsigned long long* out,
                            cudaStream_t stream) {
    Shape sh = shape;
    const std::size_t per_launch = std::min<std::size_t>(pieces.size(), kMaxLaunchImages);
    if (pieces.size() <= 4) sh.params.acc_stride = std::uint32_t(tune_.acc_stride);
    acc_.reserve(per_launch * sh.params.total_slots * sh.params.acc_stride, true);
    tickets_.reserve(per_launch, true);
    order_after_last(stream);
    if (pieces.size() == 1) {
        // A selection's kernel has a graph of its own, so that neither rebuilds the other's.
        LaunchGraph* graph = !tune_.graph ? nullptr : sh.params.select ? &select_graph_ : &graph_;
        if (takes_packed(sh, pieces[0])) launch_packed(sh, pieces[0], acc_.ptr, out, stream, graph);
        else launch(sh, pieces, acc_.ptr, out, true, stream, descs_dev_, graph);
    } else {
        launch(sh, pieces, acc_.ptr, out, true, stream, descs_dev_);
    }
    mark_last(stream);
}

// One packed image (one long row, pixel-aligned) on packed_kernel.
void CudaEngine::launch_packed(Shape& sh, const Piece& pc, unsigned long long* acc, unsigned long long* out,
                               cudaStream_t stream, LaunchGraph* graph) {
    const bool lut = use_code_lut(sh, pc, stream);
    const unsigned grid = decide_packed(sh, pc, lut, tune_);
    KernelParams& p = sh.params;
    p.code_lut = lut ? code_lut(sh, stream) : nullptr;
    p.window_shift = sh.code_window.shift;
    p.window_first = sh.code_window.first;
    p.window_entries = lut ? sh.code_window.entries : 0;
    p.acc = acc;
    p.out = out;
    p.tickets = tickets_.ptr;
    const std::size_t smem = sh.smem + (lut ? sh.code_lut_smem : 0);
    const cudaError_t err = launch_histogram(sh.format, p, grid, sh.block, smem, stream, graph);
    check(err, "histogram kernel launch");
}

// Whether this launch looks float codes up: the shape allows it, the image is big enough to
// pay for each block's copy of the table (or float_lut=2), and the stream is not being
// captured into the caller's graph: that graph would keep reading the engine's one table,
// which a later call with another request rewrites (and a pageable copy cannot be captured).
bool CudaEngine::use_code_lut(const Shape& sh, const Piece& pc, cudaStream_t stream) {
    if (!sh.code_lut || (tune_.float_lut != 2 && pc.row_px < kCodeLutMinPixels)) return false;
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    IH_CHECK(cudaStreamIsCapturing(stream, &capture));
    return capture == cudaStreamCaptureStatusNone;
}

// The device table for the shape's plan (core/plan.hpp's half_codes or float_top16_codes of the
// kernel's own classify arguments): a kept one built from the same arguments (all of ih_bin_args,
// compared bytewise, and the edge keys), or else the least recently used one rebuilt and uploaded
// on `stream`; the engine's calls are ordered, so no queued launch still reads the table being
// replaced when the copy runs.
const std::uint16_t* CudaEngine::code_lut(const Shape& sh, cudaStream_t stream) {
    const ih_bin_args& a = sh.params.bin;
    CodeTable* table = &code_tables_[0];
    for (CodeTable& t : code_tables_) {
        if (t.args && std::memcmp(&*t.args, &a, sizeof a) == 0 && t.edges == sh.edge_keys_host &&
            t.window == sh.code_window) {
            t.used = ++code_table_uses_;
            return t.dev.ptr;
        }
        if (t.used < table->used) table = &t;
    }
    table->args.reset();
    auto classify = [&](float v) { return ih_args_classify_float(v, a, sh.edge_keys_host.data()); };
    const bool half = ih_format_sample_type(a.format) == IH_T_F16;
    code_lut_host_ = code16_table(half ? half_codes(classify) : float_top16_codes(classify), sh.edge_keys_host);
    // Float edge bins: the window decide_shape chose follows.
    if (!half) {
        const std::vector<std::uint16_t> window = code16_window(classify, sh.edge_keys_host, sh.code_window);
        code_lut_host_.insert(code_lut_host_.end(), window.begin(), window.end());
    }
    table->dev.reserve(code_lut_host_.size());
    // From pageable memory: the call returns once the table is staged.
    IH_CHECK(cudaMemcpyAsync(table->dev.ptr, code_lut_host_.data(), code_lut_host_.size() * 2,
                             cudaMemcpyHostToDevice, stream));
    table->args = a;
    table->edges = sh.edge_keys_host;
    table->window = sh.code_window;
    table->used = ++code_table_uses_;
    return table->dev.ptr;
}

}  // namespace imghist::cuda_detail
