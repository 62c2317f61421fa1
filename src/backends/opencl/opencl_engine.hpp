// The opencl backend's engine: launches what the planner decided (opencl_planner.hpp) on one
// context and in-order queue, for host views (accumulate) and for the caller's cl_mem buffers
// and images (accumulate_device, through the interop calls of imghist/opencl.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "backends/opencl/cl_util.hpp"
#include "backends/opencl/opencl_devices.hpp"
#include "backends/opencl/opencl_planner.hpp"
#include "backends/opencl/opencl_tuning.hpp"
#include "core/backend_engine.hpp"
#include "gpu/growing_buffer.hpp"
#include "gpu/tile_bands.hpp"
#include "imghist/opencl.hpp"

namespace imghist::ocl {

// Read-write device buffers for gpu::GrowingBuffer. clReleaseMemObject frees only once the
// commands that use the buffer are done, so growing need not wait.
struct MemTraits {
    using Handle = cl_mem;
    cl_context context = nullptr;
    cl_mem allocate(std::size_t bytes) const;
    static void release(cl_mem& mem) noexcept { clReleaseMemObject(mem); }
    void wait_before_free() const {}
};
using GrowingBuffer = gpu::GrowingBuffer<MemTraits>;

class OpenClEngine final : public BackendEngine<> {
public:
    explicit OpenClEngine(const ClDevice& d);
    explicit OpenClEngine(cl_command_queue queue);  // the caller's queue (imghist::opencl::create_engine)
    ~OpenClEngine() override;

    std::string_view backend_name() const override { return "opencl"; }
    std::string device_name() const override { return limits_.name; }

    void accumulate(const ImageView& image, const HistogramPlan& plan, std::span<std::uint64_t> slots) override;
    // `image.memory` is a cl_mem of the engine's context: a buffer, read in place, or a 2D image.
    void accumulate_device(const DeviceImage& image, const HistogramPlan& plan,
                           std::span<std::uint64_t> slots) override;

    // Device buffers are read once: their results carry the clipping counts the histogram
    // proves, without a second pass (opencl.hpp).
    bool counts_device_clipping() const override { return false; }

    // Tiles in one pass (opencl_count.cpp): the grid's area counted by the tile kernels.
    bool counts_tiles_in_one_pass(bool device_image, bool selects_pixels) const override;
    bool accumulate_tiles(const ImageView& image, std::span<const Region> regions, const HistogramPlan& plan,
                          const HistogramPlan* clipping, std::span<const PixelSelector* const> selectors,
                          std::span<std::uint64_t> slots, std::span<std::uint64_t> extremes,
                          std::span<std::uint64_t> counted) override;
    void accumulate_tiles_device(const DeviceImage& image, std::span<const Region> regions, const HistogramPlan& plan,
                                 std::span<std::uint64_t> slots) override;

    // A mask or an alpha threshold of a buffer, counted in place (opencl_select.cpp).
    std::optional<std::uint64_t> accumulate_selected_device(const DeviceImage& image, const DeviceImage* mask,
                                                            const AlphaTest& alpha, const HistogramPlan& plan,
                                                            std::span<std::uint64_t> slots) override;

    // Sample statistics of a buffer or a 2D image, counted in place (opencl_sample_stats.cpp,
    // sample_stats.cl); a mask or an alpha threshold as accumulate_selected_device().
    bool accumulate_sample_sums_device(const DeviceImage& image, const DeviceImage* mask, const AlphaTest& alpha,
                                       const HistogramPlan& plan, std::span<std::uint64_t> sums) override;
    void accumulate_key_lows_device(const DeviceImage& image, const DeviceImage* mask, const AlphaTest& alpha,
                                    const HistogramPlan& plan, std::span<const RankSelection> selections,
                                    std::span<std::uint64_t> lows) override;

    std::optional<opencl::DeviceTimes> last_times() const { return last_times_; }

private:
    // The kernels' selection arguments (histogram.cl, IH_SELECT_PARAMS).
    struct Selection {
        cl_mem mask = nullptr;        // null: no mask
        std::uint64_t mask_base = 0;  // the mask byte of the launches' pixel or row 0
        ih_cl_select args{};
    };
    // One count's pixels: a host view, or a cl_mem; with `select`, only the pixels it selects
    // (layout.selects), whose number is one more counter after the plan's slots.
    struct PixelInput {
        PixelLayout layout;
        const ImageView* host = nullptr;
        cl_mem mem = nullptr;
        std::size_t row_bytes = 0;
        const Selection* select = nullptr;
    };

    // Which embedded program a kernel comes from.
    enum class KernelSource { histogram, sample_stats };

    // The selection of a device image's pixels (a mask, an alpha threshold) for the selection
    // variant's arguments, checked, and in.layout's selection fields set (in.select is the
    // caller's to point at it); the selected pixels' count goes to counter `count_slot`.
    Selection device_selection(PixelInput& in, const DeviceImage& image, const DeviceImage* mask,
                               const AlphaTest& alpha, std::uint32_t count_slot) const;
    // One pass of sample_stats.cl's `kernel_prefix` kernel over the selected pixels into `out`
    // (64-bit counters); `targets`, when set, is the second pass's extra argument.
    void run_stats_pass(const DeviceImage& image, const DeviceImage* mask, const AlphaTest& alpha,
                        const HistogramPlan& plan, const std::string& kernel_prefix,
                        const std::vector<std::uint32_t>* targets, std::span<std::uint64_t> out);

    void init();
    void check_context(cl_mem mem) const;
    PixelLayout device_layout(cl_mem mem, const DeviceImage& image) const;
    cl_program program(const std::string& options, KernelSource source = KernelSource::histogram);
    cl_kernel kernel(const std::string& options, const std::string& name, KernelSource source = KernelSource::histogram);
    void dump_program(cl_program prog, const std::string& dir, const std::string& opts) const;
    const KernelLimitsByName& kernel_limits(bool selects);
    cl_mem ensure(GrowingBuffer& buffer, std::size_t need);

    PixelInput host_input(const ImageView& image) const;
    PixelInput device_input(const DeviceImage& image) const;
    // Counts the pixels into slots; with `grid`, the input is the grid's area and each tile
    // counts into its own slots ([tile][total_slots]). Returns false, having counted nothing,
    // for a grid whose histogram does not fit the local memory (no tile pass).
    bool count(const PixelInput& in, const HistogramPlan& plan, std::span<std::uint64_t> slots,
               const gpu::TileBands* grid = nullptr);
    void clear_results(std::size_t total_slots, bool totals64);
    void upload_edge_keys(const HistogramPlan& plan);
    void count_tile(const PixelInput& in, const LaunchPlan& lp, std::uint64_t tile, const gpu::TileBands* grid,
                    std::size_t tile_slots);
    cl_mem stage_rows(const PixelInput& in, std::uint64_t first_row, std::uint64_t rows);
    void run_pass(const PassConfig& c, cl_mem data, std::uint64_t base_samples, std::uint64_t first,
                  std::uint64_t pixels, const Selection* select);
    void run_tile_pass(const PassConfig& c, cl_mem data, std::uint64_t base_samples, std::uint32_t first_row,
                       std::uint32_t rows, const gpu::TileBands& grid, std::size_t tile_slots);
    void launch_histogram(const PassConfig& c, cl_mem data, std::uint64_t base_samples, std::uint64_t first,
                          std::uint64_t pixels, std::size_t groups, const Selection* select);
    void launch_sum(const PassConfig& c, std::size_t groups);
    void accumulate_totals(const std::string& program_options, std::size_t total_slots);
    void read_counts(std::span<std::uint64_t> slots, bool totals64);
    void enqueue(cl_kernel k, std::size_t global, std::size_t local, const char* what);
    void abandon();

    cl_event* ev() { return profiling_ ? &pending_event_ : nullptr; }
    // Keeps the event of the command just enqueued (is_kernel: a histogram or merge kernel).
    void take_event(bool is_kernel) {
        if (pending_event_) events_.push_back({Event(std::exchange(pending_event_, nullptr)), is_kernel});
    }
    void finish_timing();

    cl_device_id device_ = nullptr;
    Context context_;
    Queue queue_;
    Tune tune_;
    DeviceLimits limits_;
    bool profiling_ = false;
    std::map<std::string, Program> programs_;
    std::map<std::string, Kernel> kernels_;
    std::map<bool, KernelLimitsByName> kernel_limits_;  // by whether the kernels select
    GrowingBuffer staging_, result32_, result64_, partials_;
    GrowingBuffer edge_keys_;
    GrowingBuffer stats_, stats_targets_;  // the sample statistics' counters and second-pass targets  // the plan's edge keys and float code table (upload_edge_keys)
    // What edge_keys_ holds: the keys, and for float plans their clamp flag (the table's codes
    // depend on it); nullopt before the first upload.
    std::optional<std::pair<std::vector<std::uint32_t>, int>> uploaded_edge_keys_;
    struct Timed {
        Event event;
        bool is_kernel;
    };
    std::vector<Timed> events_;
    cl_event pending_event_ = nullptr;
    std::optional<opencl::DeviceTimes> last_times_;
};

}  // namespace imghist::ocl
