// The CUDA engine (the backend's host side; kernels in histogram*.cu). Three ways in:
// - Engine::compute (host memory, cuda_host.cpp): pieces of the image are packed into pinned
//   staging buffers (the engine's pool of copy threads fills them), sent with cudaMemcpyAsync on
//   one of Tune::stages streams, and counted there, so the copy of one chunk overlaps the
//   counting of the previous one and the CPU fill of the next. Kernels only add into the engine's 64-bit accumulator; one
//   copy-back at the end.
// - compute_device / compute_device_async (cuda_interop.cpp): one launch on the caller's stream;
//   the last block of the launch writes the finished counts and re-zeroes the accumulator.
// - compute_batch: many images in one launch (their descriptors copied to device memory), one
//   accumulator and output per image; blocks walk contiguous tile ranges across images.
// Launch shapes are decided in cuda_shape.cpp; this engine launches them (cuda_engine.cpp).
//
// Every CUDA call is checked; a failure throws DeviceError naming the call and CUDA's message,
// and marks the engine so that the next call first re-zeroes the accumulators.
#pragma once

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <cuda_runtime_api.h>

#include "core/backend_engine.hpp"
#include "core/plan.hpp"
#include "cuda_shape.hpp"
#include "cuda_support.hpp"
#include "cuda_tune.hpp"
#include "gpu/copy_pool.hpp"
#include "gpu/tile_bands.hpp"
#include "imghist/cuda.hpp"
#include "imghist/cuda_decode.hpp"
#include "kernel_params.hpp"

namespace imghist::cuda_detail {

class CudaEngine final : public BackendEngine<cuda::Engine> {
public:
    explicit CudaEngine(int device);
    ~CudaEngine() override;

    std::string_view backend_name() const override { return "cuda"; }
    std::string device_name() const override { return props_.name; }
    int device() const { return device_; }  // the CUDA device ordinal
    // cuda::jpeg_decoder(): the engine's own JPEG decoder, made there on first use.
    std::unique_ptr<cuda::JpegDecoder>& own_jpeg_decoder() { return jpeg_decoder_; }

    // host memory (cuda_host.cpp)
    void accumulate(const ImageView& image, const HistogramPlan& plan, std::span<std::uint64_t> slots) override;
    std::vector<Result> compute_batch(std::span<const ImageView> images, const Request& request) override;
    std::optional<std::uint64_t> accumulate_selected(const ImageView& image, const PixelSelector& selector,
                                                     const HistogramPlan& plan, const HistogramPlan* clipping,
                                                     std::span<std::uint64_t> slots,
                                                     std::span<std::uint64_t> extremes) override;
    bool counts_tiles_in_one_pass(bool device_image, bool selects_pixels) const override;
    // compute_device's selections, like its whole images, carry the clipping counts the
    // histogram proves, without a second pass (cuda.hpp).
    bool counts_device_clipping() const override { return false; }
    bool accumulate_tiles(const ImageView& image, std::span<const Region> regions, const HistogramPlan& plan,
                          const HistogramPlan* clipping, std::span<const PixelSelector* const> selectors,
                          std::span<std::uint64_t> slots, std::span<std::uint64_t> extremes,
                          std::span<std::uint64_t> counted) override;

    // device memory (cuda_interop.cpp)
    void accumulate_device(const DeviceImage& image, const HistogramPlan& plan, std::span<std::uint64_t> slots) override;
    std::optional<std::uint64_t> accumulate_selected_device(const DeviceImage& image, const DeviceImage* mask,
                                                            const AlphaTest& alpha, const HistogramPlan& plan,
                                                            std::span<std::uint64_t> slots) override;
    // The sample statistics of device images (cuda_sample_stats.cpp; kernels in sample_stats.cu).
    bool accumulate_sample_sums_device(const DeviceImage& image, const DeviceImage* mask, const AlphaTest& alpha,
                                       const HistogramPlan& plan, std::span<std::uint64_t> sums) override;
    void accumulate_key_lows_device(const DeviceImage& image, const DeviceImage* mask, const AlphaTest& alpha,
                                    const HistogramPlan& plan, std::span<const RankSelection> selections,
                                    std::span<std::uint64_t> lows) override;
    Result compute_device(const DeviceImage& image, const Request& request, cuda::Stream stream) override;
    void compute_device_async(const DeviceImage& image, const Request& request, std::uint64_t* device_slots,
                              cuda::Stream stream) override;
    std::vector<Result> compute_batch(std::span<const DeviceImage> images, const Request& request,
                                      cuda::Stream stream) override;
    void compute_batch_device_async(std::span<const DeviceImage> images, const Request& request,
                                    std::uint64_t* device_slots, cuda::Stream stream) override;
    std::size_t slot_count(PixelFormat format, const Request& request) const override;
    Result unpack(const DeviceImage& image, const Request& request, std::span<const std::uint64_t> slots) const override;

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

    void setup();
    void release();
    void recover();
    void check_device_pointer(const DeviceImage& image) const;
    // The Results of counted device images, with their statistics (core/host_statistics.hpp).
    std::vector<Result> results(std::span<const DeviceImage> images, const Request& request, const HistogramPlan& plan,
                                std::span<const std::uint64_t> slots);
    int stats_blocks(const DeviceImage& image) const;  // the sample statistics kernels' grid
    // With check_pointers false, the caller has checked the memory the images lie in.
    std::span<const std::uint64_t> count_on_device(std::span<const DeviceImage> images, const HistogramPlan& plan,
                                                   cudaStream_t stream, bool check_pointers = true);
    // The counts of `pieces` (image i is slot_index i), finished on `stream` into `out` after its
    // first `lead` words, and read back with those words: [lead words][counts], in the engine's
    // pinned buffer until its next call.
    std::span<const std::uint64_t> count_pieces(std::span<const Piece> pieces, const Shape& shape, cudaStream_t stream,
                                                DeviceBuffer<unsigned long long>& out, std::size_t lead = 0);
    std::span<const std::uint64_t> count_pieces(std::span<const Piece> pieces, const Shape& shape, cudaStream_t stream) {
        return count_pieces(pieces, shape, stream, out_);
    }

    // Work ordering (cuda_engine.cpp): the accumulator is shared by every call, so work on a
    // stream waits for the last work the engine queued on another stream.
    void order_after_last(cudaStream_t s);
    void mark_last(cudaStream_t s);
    void wait_for_last(cudaStream_t s);
    void sync_last();

    // Launch shapes (cuda_shape.cpp decides them).
    Shape make_shape(const HistogramPlan& plan);
    int occupancy(KernelFormat format, int layout, unsigned block, std::size_t smem, int nch, bool luma);
    const Shape& cached_shape(PixelFormat format, const Request& request);

    // Launches.
    void launch(Shape& sh, std::span<const Piece> pieces, unsigned long long* acc, unsigned long long* out,
                bool finalize, cudaStream_t stream, DeviceBuffer<ImageDesc>& descs, LaunchGraph* graph = nullptr);
    void set_work(KernelParams& p, std::span<ImageDesc> descs, unsigned long long* acc, unsigned long long* out,
                  bool finalize, cudaStream_t stream, DeviceBuffer<ImageDesc>& device_descs);
    void run_device(std::span<const DeviceImage> images, const Shape& shape, unsigned long long* out,
                    cudaStream_t stream);
    void run_pieces(std::span<const Piece> pieces, const Shape& shape, unsigned long long* out, cudaStream_t stream);
    void launch_packed(Shape& sh, const Piece& pc, unsigned long long* acc, unsigned long long* out,
                       cudaStream_t stream, LaunchGraph* graph);
    bool use_code_lut(const Shape& sh, const Piece& pc, cudaStream_t stream);
    const std::uint16_t* code_lut(const Shape& sh, cudaStream_t stream);
    const std::uint32_t* edge_keys(const std::vector<std::uint32_t>& keys);

    // Host images (cuda_host.cpp).
    struct Staging;
    void run_host(std::span<const ImageView> images, const HistogramPlan& plan, std::span<std::uint64_t> slots);
    void run_staged(std::span<const ImageView> sized_by, const HistogramPlan& plan, std::size_t counts,
                    std::span<std::uint64_t> slots, const std::function<void(Staging&)>& stage);
    void stage_tiles(Staging& st, const ImageView& area, const gpu::TileBands& bands);
    std::uint64_t run_selected(const ImageView& image, const PixelSelector& selector, const HistogramPlan& plan,
                               std::span<std::uint64_t> slots);
    std::uint64_t stage_selected(Staging& st, const ImageView& v, const PixelSelector& selector);
    void dispatch(Staging& st);
    void stage_packed(Staging& st, const ImageView& v, std::uint32_t slot);
    void stage_rows(Staging& st, const ImageView& v, std::uint32_t slot);
    void copy_rows(const Staging& st, unsigned char* dst, const ImageView& v, std::uint32_t first, std::uint32_t n);
    void collect_host(std::size_t n, std::span<std::uint64_t> slots);
    int stages() const { return std::clamp(tune_.stages, 2, kMaxStages); }

    int device_;
    Tune tune_;
    cudaDeviceProp props_{};
    cudaStream_t streams_[kMaxStages] = {};
    cudaEvent_t copied_[kMaxStages] = {};
    cudaEvent_t done_[kMaxStages] = {};
    cudaEvent_t last_use_ = nullptr;
    cudaStream_t last_stream_ = nullptr;
    bool last_valid_ = false;
    bool dirty_ = false;
    int copy_threads_ = 1;
    int dynamic_smem_ = 0;  // dynamic shared memory a block of any kernel may have
    DeviceBuffer<unsigned long long> acc_;
    DeviceBuffer<std::uint32_t> tickets_;
    DeviceBuffer<unsigned long long> out_;
    // Selections of device images (accumulate_selected_device): word 0 is KernelParams::selected,
    // a running total of the pixels they counted that is never reset, so that no memset is queued
    // before each launch (a call's count is the difference from selected_total_, the total read
    // back last time); their counts follow it.
    DeviceBuffer<unsigned long long> select_out_;
    std::uint64_t selected_total_ = 0;
    PinnedBuffer<std::uint64_t> result_host_;
    // The sample statistics' counters (cuda_sample_stats.cpp), apart from result_host_: results()
    // reads a batch's counts from there while it finds each image's statistics.
    DeviceBuffer<unsigned long long> stats_dev_;
    PinnedBuffer<std::uint64_t> stats_host_;
    DeviceBuffer<std::uint32_t> stats_targets_;
    DeviceBuffer<unsigned char> stage_dev_[kMaxStages];
    DeviceBuffer<ImageDesc> descs_dev_;                // batch descriptors, device path
    // KernelParams::code_lut (code_lut()): the tables of the last plans used, each with what it
    // was built from. More than one, because a selection's passes alternate between its plan and
    // its clipping plan, and a table costs about half a millisecond of host time to build.
    struct CodeTable {
        DeviceBuffer<std::uint16_t> dev;
        std::optional<ih_bin_args> args;
        std::vector<std::uint32_t> edges;
        FloatCodeWindow window;  // the window behind the table (float edge bins: the shape's)
        std::uint64_t used = 0;  // code_table_uses_ when last returned
    };
    std::array<CodeTable, 4> code_tables_;
    std::uint64_t code_table_uses_ = 0;
    std::vector<std::uint16_t> code_lut_host_;
    std::map<std::vector<std::uint32_t>, DeviceBuffer<std::uint32_t>> edge_keys_dev_;  // edge_keys()
    LaunchGraph graph_;                                // single device images (Tune::graph)
    LaunchGraph select_graph_;                         // their selections (a kernel of its own)
    DeviceBuffer<ImageDesc> descs_stage_[kMaxStages];    // batch descriptors, per staging stream
    PinnedBuffer<unsigned char> stage_host_[kMaxStages];
    std::map<std::tuple<int, int, unsigned, std::size_t, int, bool>, int> occupancy_;
    std::vector<ImageDesc> host_descs_;  // launch(): descriptors of the launch being built
    // make_shape of the last (format, request) of compute_device_async, kept for repeated calls
    // (a plan and a shape cost more host time than the launch should). Keyed by the whole
    // request (Request::operator==), so no field can be left out of the key.
    struct ShapeKey {
        PixelFormat format;
        Request request;
        bool operator==(const ShapeKey&) const = default;
    };
    std::optional<ShapeKey> shape_key_;
    Shape shape_cache_;
    // Copy threads filling the staging buffers; started on the first host image that needs them.
    gpu::CopyPool copy_pool_;
    // Last, so that it goes first: it counts on this engine.
    std::unique_ptr<cuda::JpegDecoder> jpeg_decoder_;
};

}  // namespace imghist::cuda_detail
