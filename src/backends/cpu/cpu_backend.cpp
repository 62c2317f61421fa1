// The fast CPU backend (docs/performance.md has the measurements): the engine.
//
// Shape of the work:
// - The image, in raster order, is cut into chunks of contiguous pixels, which the worker
//   threads take one at a time from a shared counter (the caller's thread is worker 0; tiny
//   images get no extra threads), so that a faster or less busy core takes more of them.
// - Each worker counts its chunks with a table kernel (cpu_kernel.hpp) into its own Counters
//   (cpu_counters.hpp), through code tables built from the plan (cpu_tables.hpp); luminance
//   of 8-bit pixels of three or four samples is computed in SIMD (cpu_luma.hpp), by the best
//   instruction set the CPU has or a lower one IMGHIST_CPU_ISA names (cpu_isa.hpp).
// - Anything else (huge bin counts, tiny images, layouts no kernel is compiled for) takes the
//   direct path (cpu_direct.cpp): classify and count_code per sample into 64-bit counters,
//   still threaded when the image is big.
// - A whole image's value extremes and sample statistics are found in the same pass: each
//   worker hands the pieces it has just counted to their finders (SampleStatsInPass), and
//   16-bit samples with statistics are counted by value, their bins folded from those counts.
//
// Threading promise (engine.hpp): an engine is used by one thread at a time; the tables it
// caches between calls are owned by the engine, and worker threads only read them.
#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "core/cpu_isa.hpp"
#include "backends/cpu/cpu_luma.hpp"
#include "backends/cpu/cpu_kernels.hpp"
#include "core/backend_engine.hpp"
#include "core/extremes.hpp"
#include "core/backend_list.hpp"
#include "core/device_select.hpp"
#include "core/plan.hpp"
#include "core/sample_stats_pass.hpp"
#include "core/selection.hpp"

namespace imghist {
namespace {

using cpu::Classifier;
using cpu::Counters;
using cpu::KernelFn;
using cpu::Tables;

constexpr std::uint32_t kMaxTableBins = 1u << 16;  // larger layouts use the direct path
constexpr std::uint64_t kMinPixelsPerThread = 1ull << 16;
// Chunks per worker: enough that a core running at half speed (the other programs on it, a
// hybrid CPU's efficiency cores, a shared VM's vCPU) leaves little to wait for, few enough that
// each chunk stays large (8K on two workers: 1M pixels). See docs/performance.md.
constexpr std::uint64_t kChunksPerWorker = 16;
constexpr std::uint64_t kMinPixelsForTables = 1ull << 10;      // below: the direct path
constexpr std::uint64_t kMinSamplesForBigTables = 1ull << 14;  // 65536-entry tables pay off
// Selected pixels are counted from a worker's buffer of this many (8 bytes each at most for the
// formats that matter most: 128-512 KiB, within a core's L2).
constexpr std::size_t kSelectedPixels = std::size_t(1) << 15;
// A mask's runs of at least this many kept pixels are counted in place instead of copied: a
// kernel call costs about what copying a few dozen pixels does.
constexpr std::uint32_t kMinRunInPlace = 256;
// Value extremes and the sample statistics' first pass in the counting pass: found in pieces of
// this many pixels right after they are counted (16 bytes a pixel at most: 256 KiB, within a
// core's L2).
constexpr std::uint64_t kExtremesPiecePixels = std::uint64_t(1) << 14;

unsigned resolve_threads(unsigned requested) {
    if (requested != 0) return requested;
    return std::max(1u, std::thread::hardware_concurrency());
}

std::string host_device_name(unsigned threads) {
    return "host (" + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)");
}

// Runs work(t) for t in [0, workers): t = 0 on the caller's thread, the others on threads of
// their own; rethrows the first worker's exception once all have finished.
template <class Work>
void run_workers(std::uint64_t workers, const Work& work) {
    std::vector<std::thread> pool;
    std::vector<std::exception_ptr> errors(workers);
    const auto guarded = [&](std::uint64_t t) {
        try {
            work(t);
        } catch (...) {
            errors[t] = std::current_exception();
        }
    };
    try {
        for (std::uint64_t t = 1; t < workers; ++t) pool.emplace_back(guarded, t);
    } catch (...) {
        for (auto& th : pool) th.join();
        throw;
    }
    guarded(0);
    for (auto& th : pool) th.join();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
}

// The count -> slot rule of binning.h for 8-bit values counted raw (CpuEngine::values_plan):
// each value's code under the plan, and its extreme under the clipping plan, found once; then
// value v's count goes to its slots and extremes, for every channel and tile.
class ValueFold {
public:
    ValueFold(const HistogramPlan& values, const HistogramPlan& plan, const HistogramPlan* clipping)
        : values_(values), plan_(plan) {
        codes_.resize(values.bins());
        extremes_.resize(values.bins(), 0);
        for (std::uint32_t v = 0; v < values.bins(); ++v) {
            codes_[v] = plan.classify_int(v);
            if (clipping) extremes_[v] = clipping->extreme_of(clipping->classify_int(v));
        }
    }
    // Adds the raw values' slots of one image (or tile) to its slots and extremes.
    void add(std::span<const std::uint64_t> value_slots, std::span<std::uint64_t> slots,
             std::span<std::uint64_t> extremes) const {
        for (std::size_t c = 0; c < plan_.channels.size(); ++c) {
            const std::uint64_t* from = value_slots.data() + c * values_.slots_per_channel();
            std::uint64_t* to = slots.data() + c * plan_.slots_per_channel();
            for (std::size_t v = 0; v < codes_.size(); ++v) {
                const std::uint64_t n = from[v];
                if (n == 0) continue;
                to[ih_code_slot(codes_[v])] += n;
                if (ih_code_has_extra(codes_[v])) to[ih_code_extra_slot(codes_[v], plan_.bins())] += n;
                if (extremes_[v] != 0) extremes[2 * c + (extremes_[v] == IH_SLOT_BELOW ? 0 : 1)] += n;
            }
        }
    }

private:
    const HistogramPlan& values_;
    const HistogramPlan& plan_;
    std::vector<std::uint32_t> codes_;
    std::vector<std::uint32_t> extremes_;  // IH_SLOT_BELOW, IH_SLOT_ABOVE or 0 (always 0 without clipping)
};

class CpuEngine final : public BackendEngine<> {
public:
    explicit CpuEngine(unsigned threads) : threads_(resolve_threads(threads)) {}
    std::string_view backend_name() const override { return "cpu"; }
    std::string device_name() const override { return host_device_name(threads_); }

    void accumulate(const ImageView& image, const HistogramPlan& plan,
                    std::span<std::uint64_t> slots) override {
        count(image, plan, nullptr, slots, {}, nullptr);
    }

    // Every path counts the extremes: the tables give them slots of their own, so on the
    // table paths they cost no extra increment.
    bool accumulate_with_extremes(const ImageView& image, const HistogramPlan& plan, const HistogramPlan& clipping,
                                  std::span<std::uint64_t> slots, std::span<std::uint64_t> extremes) override {
        count(image, plan, &clipping, slots, extremes, nullptr);
        return true;
    }

    // Value extremes and the sample statistics' first pass of a whole image: in count()'s pass.
    bool finds_value_extremes() const override { return true; }
    bool finds_sample_stats() const override { return true; }

    // A mask or an alpha threshold: each worker gathers the selected pixels of its rows into a
    // buffer of its own, small enough to stay in its core's cache, and counts them from there.
    std::optional<std::uint64_t> accumulate_selected(const ImageView& image, const PixelSelector& selector,
                                                     const HistogramPlan& plan, const HistogramPlan* clipping,
                                                     std::span<std::uint64_t> slots,
                                                     std::span<std::uint64_t> extremes) override {
        return count(image, plan, clipping, slots, extremes, &selector);
    }

    // Tiles in one pass: the workers take whole tiles from a shared counter, count each on
    // their own thread (no per-tile hand-off: a tile of 1024 in 8K is too small to split), with
    // a selection through the worker's buffer as accumulate_selected does, and move their totals
    // into the tile's slots.
    bool counts_tiles_in_one_pass(bool device_image, bool) const override { return !device_image; }
    bool accumulate_tiles(const ImageView& image, std::span<const Region> regions, const HistogramPlan& plan,
                          const HistogramPlan* clipping, std::span<const PixelSelector* const> selectors,
                          std::span<std::uint64_t> slots, std::span<std::uint64_t> extremes,
                          std::span<std::uint64_t> counted) override {
        if (const std::optional<HistogramPlan> values = values_plan(plan, clipping)) {
            const std::size_t per_tile = values->total_slots();
            std::vector<std::uint64_t> value_slots(regions.size() * per_tile, 0);
            accumulate_tiles(image, regions, *values, nullptr, selectors, value_slots, {}, counted);
            const ValueFold fold(*values, plan, clipping);
            const std::size_t ts = plan.total_slots(), es = clipping ? 2 * plan.channels.size() : 0;
            for (std::size_t i = 0; i < regions.size(); ++i)
                fold.add(std::span<const std::uint64_t>(value_slots).subspan(i * per_tile, per_tile),
                         slots.subspan(i * ts, ts), extremes.subspan(i * es, es));
            return true;
        }
        const Counting counting = prepare(image, plan, clipping);
        const std::uint64_t workers = std::min<std::uint64_t>(
            {threads_, regions.size(), std::max<std::uint64_t>(1, image.pixel_count() / kMinPixelsPerThread)});
        const std::size_t slots_per_tile = plan.total_slots(), extremes_per_tile = clipping ? 2 * plan.channels.size() : 0;
        std::atomic<std::size_t> next{0};
        run_workers(workers, [&](std::uint64_t) {
            Counters k;
            k.init(plan, clipping, counting.kernel ? &counting.tables->slots : nullptr);
            std::vector<std::uint64_t> buffer;  // the selected pixels of a tile's rows
            for (;;) {
                const std::size_t i = next.fetch_add(1, std::memory_order_relaxed);
                if (i >= regions.size()) break;
                const ImageView tile = image.crop(regions[i]);
                if (selectors.empty()) {
                    counting.count_pixels(k, tile, 0, tile.pixel_count());
                    counted[i] = tile.pixel_count();
                } else {
                    std::atomic<std::uint64_t> rows{0};
                    counted[i] = count_selected_rows(k, counting, tile, *selectors[i], tile.pixel_count(), rows, buffer);
                }
                if (counting.kernel) k.flush();
                std::copy(k.totals.begin(), k.totals.end(), slots.begin() + std::ptrdiff_t(i * slots_per_tile));
                std::copy(k.extremes.begin(), k.extremes.end(), extremes.begin() + std::ptrdiff_t(i * extremes_per_tile));
                std::fill(k.totals.begin(), k.totals.end(), 0);
                std::fill(k.extremes.begin(), k.extremes.end(), 0);
            }
        });
        return true;
    }

private:
    // The kernel and tables a count of `pixels` pixels uses (none: the direct path).
    struct Counting {
        KernelFn kernel = nullptr;
        const Tables* tables = nullptr;
        cpu::Context ctx;
        void count_pixels(Counters& k, const ImageView& view, std::uint64_t begin, std::uint64_t end) const {
            if (kernel) kernel(k, ctx, view, begin, end);
            else cpu::count_direct(k, view, begin, end);
        }
    };
    Counting prepare(const ImageView& image, const HistogramPlan& plan, const HistogramPlan* clipping) {
        Counting c;
        const cpu::ChannelSet cs = cpu::channel_set(plan);
        const std::uint64_t pixels = image.pixel_count();
        if (cs.ok && pixels >= kMinPixelsForTables && plan.bins() <= kMaxTableBins) {
            c.tables = &tables_for(Classifier{plan, clipping}, pixels * plan.channels.size(), cs.luma);
            c.kernel = cpu::pick_kernel(plan, *c.tables, cs, image);
        }
        c.ctx = cpu::Context{&plan, c.tables};
        return c;
    }

    // 8-bit samples whose bins are not their values (edge bins, other ranges or bin counts, or
    // with the extremes) are counted as raw values by the identity kernels, and each of the 256
    // values then moves to its slots once (ValueFold): a table read per sample cost 1.6-1.75x
    // the identity kernels (8K RGBA8 R,G,B, Zen 5: 15.2-17.0 ms against 9.8). So are 16-bit
    // samples whose sample statistics are wanted (`codes_wanted`): the statistics then come from
    // the same counts, with no counting of their own (4K RGBA16 R,G,B,Y, 2-vCPU EPYC, moments:
    // 46-58 ms against 55-67 for the values' sums and extremes beside the bins). This is the
    // plan of those raw values.
    static std::optional<HistogramPlan> values_plan(const HistogramPlan& plan, const HistogramPlan* clipping,
                                                    bool codes_wanted = false) {
        if (codes_wanted && plan.info.sample == SampleType::u16 && !counts_are_values(plan))
            return plan.with_layout(resolve_layout(SampleType::u16, BinSpec{.bins = 1u << 16}));
        if (plan.info.sample != SampleType::u8 || (plan.int_mode == IH_INT_SHIFT && plan.shift == 0 && !clipping))
            return std::nullopt;
        return plan.with_layout(resolve_layout(SampleType::u8, BinSpec{}));
    }
    // Counts every pixel of `image`, or with a selector the pixels it lets through; returns how
    // many were counted.
    std::uint64_t count(const ImageView& image, const HistogramPlan& plan, const HistogramPlan* clipping,
                        std::span<std::uint64_t> slots, std::span<std::uint64_t> extremes,
                        const PixelSelector* selector) {
        // The sample statistics' first pass, where the count is of a whole image.
        SampleStatsInPass* const stats = selector ? nullptr : sample_stats_in_pass();
        if (const std::optional<HistogramPlan> values = values_plan(plan, clipping, stats != nullptr)) {
            std::vector<std::uint64_t> value_slots(values->total_slots(), 0);
            set_sample_stats_in_pass(nullptr);  // the values' counts are the statistics' codes
            const std::uint64_t counted = count(image, *values, nullptr, value_slots, {}, selector);
            set_sample_stats_in_pass(stats);
            if (stats) stats->take_codes(*values, value_slots);
            ValueFold(*values, plan, clipping).add(value_slots, slots, extremes);
            return counted;
        }
        const std::uint64_t pixels = image.pixel_count();
        const Counting counting = prepare(image, plan, clipping);
        const KernelFn kernel = counting.kernel;

        const std::uint64_t workers =
            std::min<std::uint64_t>(threads_, std::max<std::uint64_t>(1, pixels / kMinPixelsPerThread));
        std::vector<Counters> counters(workers);
        for (auto& k : counters) k.init(plan, clipping, kernel ? &counting.tables->slots : nullptr);
        const std::uint64_t chunk =
            workers == 1 ? pixels : std::max(kMinPixelsPerThread, pixels / (workers * kChunksPerWorker));
        std::atomic<std::uint64_t> next{0};
        std::vector<std::uint64_t> selected(workers, 0);
        // Value extremes in this pass: each worker finds them in the pieces it has just counted,
        // while they are still in its cache (a pass of their own would read the image again).
        ExtremesFinder* const found = selector ? nullptr : value_extremes_finder();
        std::vector<std::optional<ExtremesFinder>> finders(workers);
        // The sample statistics' first pass likewise, piece by piece.
        if (stats) stats->start(workers);
        run_workers(workers, [&](std::uint64_t t) {
            Counters& k = counters[t];
            if (selector) {
                std::vector<std::uint64_t> buffer;
                selected[t] = count_selected_rows(k, counting, image, *selector, chunk, next, buffer);
            } else {
                if (found) {
                    finders[t].emplace(plan);
                    if (plan.has_luma() && kernel) {
                        // Every float kernel computes the luminance it counts (Kernel::block):
                        // the finder takes it from there instead of computing it again.
                        finders[t]->take_luminance_from_caller();
                        k.luma_extremes = &*finders[t];
                    } else if (plan.has_luma()) {
                        finders[t]->set_luminance(simd_luminance(plan));
                    }
                }
                for (;;) {
                    const std::uint64_t begin = next.fetch_add(chunk, std::memory_order_relaxed);
                    if (begin >= pixels) break;
                    const std::uint64_t end = std::min(pixels, begin + chunk);
                    if (!found && !stats) {
                        counting.count_pixels(k, image, begin, end);
                        continue;
                    }
                    for (std::uint64_t piece = begin; piece < end; piece += kExtremesPiecePixels) {
                        const std::uint64_t piece_end = std::min(end, piece + kExtremesPiecePixels);
                        counting.count_pixels(k, image, piece, piece_end);
                        if (found) finders[t]->add(image, piece, piece_end);
                        if (stats) stats->add(t, image, piece, piece_end);
                    }
                }
            }
            if (kernel) k.flush();
            k.luma_extremes = nullptr;
        });
        for (const std::optional<ExtremesFinder>& f : finders)
            if (f) found->merge(*f);
        std::uint64_t counted = selector ? 0 : pixels;
        for (std::size_t t = 0; t < counters.size(); ++t) {
            const Counters& k = counters[t];
            for (std::size_t i = 0; i < slots.size(); ++i) slots[i] += k.totals[i];
            for (std::size_t i = 0; i < k.extremes.size(); ++i) extremes[i] += k.extremes[i];
            counted += selected[t];
        }
        return counted;
    }

    // One worker's share of a selection: rows taken from `next` about `chunk` pixels at a time,
    // their selected pixels gathered into a buffer of kSelectedPixels (at least a row) and
    // counted from it as one packed row; returns how many.
    static std::uint64_t count_selected_rows(Counters& k, const Counting& counting, const ImageView& image,
                                             const PixelSelector& selector, std::uint64_t chunk,
                                             std::atomic<std::uint64_t>& next, std::vector<std::uint64_t>& buffer) {
        const std::size_t pixel_bytes = image.info().pixel_bytes();
        const std::size_t capacity = std::max<std::size_t>(image.width, kSelectedPixels);
        buffer.resize(std::max(buffer.size(), (capacity * pixel_bytes + 7) / 8));  // 8-byte aligned, kept by the worker
        auto* packed = reinterpret_cast<std::byte*>(buffer.data());
        const std::uint64_t rows_per_chunk = std::max<std::uint64_t>(1, chunk / image.width);
        std::uint64_t total = 0;
        std::size_t n = 0;
        const auto flush = [&] {
            if (n) counting.count_pixels(k, ImageView::packed(packed, std::uint32_t(n), 1, image.format), 0, n);
            total += n;
            n = 0;
        };
        // Long runs of a mask's kept pixels are counted where they lie, without the copy.
        const std::byte* row = nullptr;
        const PixelSelector::RunCounter in_place = [&](std::uint32_t x, std::uint32_t run) {
            counting.count_pixels(k, ImageView::packed(row + std::size_t(x) * pixel_bytes, run, 1, image.format), 0, run);
            total += run;
        };
        for (;;) {
            const std::uint64_t first = next.fetch_add(rows_per_chunk, std::memory_order_relaxed);
            if (first >= image.height) break;
            const std::uint64_t last = std::min<std::uint64_t>(image.height, first + rows_per_chunk);
            for (std::uint64_t y = first; y < last; ++y) {
                if (capacity - n < image.width) flush();
                row = image.row(std::uint32_t(y));
                n += selector.gather_row(std::uint32_t(y), packed + n * pixel_bytes, kMinRunInPlace, in_place);
            }
        }
        flush();
        return total;
    }

    // The kernels' exact SIMD luminance (cpu_luma.hpp) for the extremes' Y channel.
    static ExtremesFinder::Luminance simd_luminance(const HistogramPlan& plan) {
        const int rgb[3] = {plan.info.red, plan.info.green, plan.info.blue};
        const cpu::Isa level = cpu::isa();
        return [&plan, rgb, level](const std::byte* p, std::size_t n, float* out) -> std::size_t {
            return cpu::luma_float_simd(level, plan.info.sample == SampleType::f16, plan.info.channels, rgb, p,
                                        std::uint32_t(n), out, plan.weight_float);
        };
    }

    // The tables depend on the plan only through its sample type and layout, and on whether
    // extremes are counted (the clipping plan is the same for every request of a sample type).
    const Tables& tables_for(const Classifier& cl, std::uint64_t samples, bool luma) {
        const HistogramPlan& plan = cl.plan;
        const bool extremes = cl.clipping != nullptr;
        if (!tables_ || tables_->sample != plan.info.sample || !(tables_->layout == plan.layout) ||
            tables_->extremes != extremes)
            tables_ = std::make_unique<Tables>(plan.info.sample, plan.layout, extremes);
        const bool big = samples >= kMinSamplesForBigTables;
        cpu::build_tables(*tables_, cl, big, luma);
        return *tables_;
    }

    unsigned threads_;
    std::unique_ptr<Tables> tables_;  // lookup tables of the last layout, reused between calls
};

class CpuBackend final : public Backend {
public:
    std::string_view name() const override { return "cpu"; }
    std::string_view summary() const override { return "multi-threaded host code (the default without a GPU)"; }
    std::vector<DeviceInfo> devices() const override {
        return {{"0", host_device_name(resolve_threads(0)), false, true, ""}};
    }
    std::unique_ptr<Engine> create_engine(const EngineOptions& options) const override {
        // One device, but a wrong --device is still an error that lists it.
        (void)select_device(name(), devices(), options.device, nullptr);
        if (!cpu::isa_knob_error().empty()) throw InvalidArgument(cpu::isa_knob_error());
        return std::make_unique<CpuEngine>(options.threads);
    }
};

}  // namespace

const Backend& cpu_backend() {
    static const CpuBackend backend;
    return backend;
}

}  // namespace imghist
