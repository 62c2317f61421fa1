// The launches of one count (OpenClEngine::count): the planner's passes over each tile, the
// 32-bit results of a tile added into 64-bit totals, the counts read back. Nothing here
// decides; every size comes from the LaunchPlan (opencl_planner.cpp).
#include <algorithm>
#include <optional>

#include "backends/opencl/opencl_engine.hpp"
#include "core/plan.hpp"
#include "gpu/staging.hpp"

namespace imghist::ocl {

OpenClEngine::PixelInput OpenClEngine::host_input(const ImageView& image) const {
    PixelInput in;
    in.layout = {PixelSource::host, image.width, image.height, image.stride_bytes, 0};
    in.host = &image;
    in.row_bytes = image.row_bytes();
    return in;
}

OpenClEngine::PixelInput OpenClEngine::device_input(const DeviceImage& image) const {
    PixelInput in;
    in.mem = as_cl_mem(image.memory);
    in.layout = device_layout(in.mem, image);
    in.row_bytes = image.row_bytes();
    return in;
}

void OpenClEngine::accumulate(const ImageView& image, const HistogramPlan& plan, std::span<std::uint64_t> slots) {
    count(host_input(image), plan, slots);
}

void OpenClEngine::accumulate_device(const DeviceImage& image, const HistogramPlan& plan,
                                     std::span<std::uint64_t> slots) {
    count(device_input(image), plan, slots);
}

// Tiles in one pass: the grid's area is counted as an image is, by rows, with the tile kernels
// (ih_hist_tiles_*), which send each work-group's counts to its tile's slots.
bool OpenClEngine::counts_tiles_in_one_pass(bool, bool selects_pixels) const { return !selects_pixels; }

bool OpenClEngine::accumulate_tiles(const ImageView& image, std::span<const Region> regions, const HistogramPlan& plan,
                                    const HistogramPlan* clipping, std::span<const PixelSelector* const>,
                                    std::span<std::uint64_t> slots, std::span<std::uint64_t>,
                                    std::span<std::uint64_t>) {
    const gpu::TileBands grid(regions);
    if (!count(host_input(image.crop(grid.area)), plan, slots, &grid)) accumulate_each_tile(image, regions, plan, slots);
    return clipping == nullptr;
}

void OpenClEngine::accumulate_tiles_device(const DeviceImage& image, std::span<const Region> regions,
                                           const HistogramPlan& plan, std::span<std::uint64_t> slots) {
    const gpu::TileBands grid(regions);
    if (!count(device_input(image.crop(grid.area)), plan, slots, &grid)) accumulate_each_tile(image, regions, plan, slots);
}

// Where the pixels of a device image are, checked against its cl_mem.
PixelLayout OpenClEngine::device_layout(cl_mem mem, const DeviceImage& image) const {
    check_context(mem);
    cl_mem_object_type type = 0;
    check(clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof type, &type, nullptr), "clGetMemObjectInfo(CL_MEM_TYPE)");
    if (type == CL_MEM_OBJECT_IMAGE2D) {
        std::size_t w = 0, h = 0;
        check(clGetImageInfo(mem, CL_IMAGE_WIDTH, sizeof w, &w, nullptr), "clGetImageInfo(CL_IMAGE_WIDTH)");
        check(clGetImageInfo(mem, CL_IMAGE_HEIGHT, sizeof h, &h, nullptr), "clGetImageInfo(CL_IMAGE_HEIGHT)");
        if (w != image.width || h != image.height || image.offset_bytes != 0)
            throw InvalidArgument("opencl: a 2D image is counted whole (its size, no offset)");
        return {PixelSource::image, image.width, image.height, image.row_bytes(), 0};
    }
    if (type != CL_MEM_OBJECT_BUFFER) throw InvalidArgument("opencl: the cl_mem is neither a buffer nor a 2D image");
    std::size_t size = 0;
    check(clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, nullptr), "clGetMemObjectInfo(CL_MEM_SIZE)");
    const std::uint64_t extent = image.offset_bytes + image.extent_bytes();
    if (extent > size)
        throw InvalidArgument("imghist::opencl::compute: the image needs " + std::to_string(extent) +
                              " bytes but the buffer holds " + std::to_string(size));
    return {PixelSource::buffer, image.width, image.height, image.pitch(), image.offset_bytes};
}

bool OpenClEngine::count(const PixelInput& in, const HistogramPlan& plan, std::span<std::uint64_t> slots,
                         const gpu::TileBands* grid) {
    events_.clear();
    last_times_.reset();
    try {
        PixelLayout layout = in.layout;
        layout.tile_grid = grid != nullptr;
        const LaunchPlan lp = plan_launch(plan, layout, limits_, kernel_limits(layout.selects), tune_);
        if (grid && lp.passes.front().global) return false;
        if (!lp.note.empty()) add_note(lp.note);
        const std::size_t counters = plan.total_slots() * (grid ? grid->tiles() : 1) + (in.select ? 1 : 0);
        const bool totals64 = lp.tiling.tiles > 1;
        clear_results(counters, totals64);
        upload_edge_keys(plan);
        for (std::uint64_t t = 0; t < lp.tiling.tiles; ++t) {
            count_tile(in, lp, t, grid, plan.total_slots());
            if (totals64) accumulate_totals(lp.passes.front().program_options, counters);
        }
        read_counts(slots, totals64);
    } catch (...) {
        abandon();
        throw;
    }
    finish_timing();
    return true;
}

// Never leaves commands behind that read the caller's memory.
void OpenClEngine::abandon() {
    if (pending_event_) {
        clReleaseEvent(pending_event_);
        pending_event_ = nullptr;
    }
    clFinish(queue_.get());
    events_.clear();
}

void OpenClEngine::clear_results(std::size_t total_slots, bool totals64) {
    ensure(result32_, total_slots * 4);
    const cl_uint zero = 0;
    check(clEnqueueFillBuffer(queue_.get(), result32_.get(), &zero, sizeof zero, 0, total_slots * 4, 0, nullptr,
                              ev()),
          "clEnqueueFillBuffer");
    take_event(false);
    if (!totals64) return;
    ensure(result64_, total_slots * 8);
    const cl_ulong zero64 = 0;
    check(clEnqueueFillBuffer(queue_.get(), result64_.get(), &zero64, sizeof zero64, 0, total_slots * 8, 0,
                              nullptr, nullptr),
          "clEnqueueFillBuffer");
}

// The plan's edge keys for the kernels' edge_keys argument (one unread word for uniform bins),
// written when they change. The write blocks, so the kernels never read a later plan's keys.
void OpenClEngine::upload_edge_keys(const HistogramPlan& plan) {
    // Uniform bins never read the buffer (a word for the kernel argument): what it holds serves
    // them, so the one-bin clipping pass between two edge-bin counts does not make the next one
    // build its code table again.
    if (!plan.has_edges() && edge_keys_.size() != 0) return;
    const int table = plan.has_edges() && plan.is_float() ? 1 + int(plan.clamp) : 0;
    auto key = std::make_pair(plan.has_edges() ? plan.edge_keys : std::vector<std::uint32_t>{}, table);
    if (edge_keys_.size() != 0 && uploaded_edge_keys_ == key) return;
    uploaded_edge_keys_.reset();
    const std::vector<std::uint32_t> words = edge_key_words(plan);
    const std::size_t bytes = words.size() * sizeof(std::uint32_t);
    check(clEnqueueWriteBuffer(queue_.get(), ensure(edge_keys_, bytes), CL_TRUE, 0, bytes, words.data(), 0, nullptr,
                               nullptr),
          "clEnqueueWriteBuffer(edge keys)");
    uploaded_edge_keys_ = std::move(key);
}

// Every pass over tile `tile`: a pixel range of a packed buffer, or whole rows (read in place
// from a strided buffer, or staged).
void OpenClEngine::count_tile(const PixelInput& in, const LaunchPlan& lp, std::uint64_t tile, const gpu::TileBands* grid,
                              std::size_t tile_slots) {
    const Tiling& tl = lp.tiling;
    const std::uint64_t width = in.layout.width;
    if (tl.by_pixels) {
        const std::uint64_t first = tile * tl.tile_pixels;
        const std::uint64_t n = std::min<std::uint64_t>(tl.tile_pixels, width * in.layout.height - first);
        for (const PassConfig& c : lp.passes) run_pass(c, in.mem, tl.base_samples, first, n, in.select);
        return;
    }
    const auto [y0, rows] = gpu::RowPieces{in.layout.height, tl.tile_rows}[tile];
    cl_mem data = in.mem;
    std::uint64_t base = tl.base_samples + y0 * tl.stride_samples;
    if (tl.staged) {
        data = stage_rows(in, y0, rows);
        base = 0;
    }
    // The launches count rows from the tile's first: so does the mask.
    std::optional<Selection> tile_select;
    if (in.select) {
        tile_select = *in.select;
        tile_select->mask_base += y0 * in.select->args.mask_pitch;
    }
    for (const PassConfig& c : lp.passes) {
        if (grid) run_tile_pass(c, data, base, std::uint32_t(y0), std::uint32_t(rows), *grid, tile_slots);
        else run_pass(c, data, base, 0, rows * width, tile_select ? &*tile_select : nullptr);
    }
}

// Rows [first_row, first_row + rows) of a host view or an image, packed into the staging buffer.
cl_mem OpenClEngine::stage_rows(const PixelInput& in, std::uint64_t first_row, std::uint64_t rows) {
    const cl_mem data = ensure(staging_, rows * in.row_bytes);
    if (in.host == nullptr) {  // an image
        const std::size_t origin[3] = {0, std::size_t(first_row), 0};
        const std::size_t region[3] = {in.layout.width, std::size_t(rows), 1};
        check(clEnqueueCopyImageToBuffer(queue_.get(), in.mem, data, origin, region, 0, 0, nullptr, ev()),
              "clEnqueueCopyImageToBuffer");
    } else if (in.host->stride_bytes == in.row_bytes || rows == 1) {
        check(clEnqueueWriteBuffer(queue_.get(), data, CL_FALSE, 0, rows * in.row_bytes,
                                   in.host->row(std::uint32_t(first_row)), 0, nullptr, ev()),
              "clEnqueueWriteBuffer");
    } else {
        const std::size_t origin[3] = {0, 0, 0};
        const std::size_t region[3] = {in.row_bytes, std::size_t(rows), 1};
        check(clEnqueueWriteBufferRect(queue_.get(), data, CL_FALSE, origin, origin, region, in.row_bytes, 0,
                                       in.host->stride_bytes, 0, in.host->row(std::uint32_t(first_row)), 0, nullptr,
                                       ev()),
              "clEnqueueWriteBufferRect");
    }
    take_event(false);
    return data;
}

// Counts pixels [first, first + pixels) (packed) or rows [first, first + pixels / width) (row
// mode) for one pass, in launches that keep every counter in range.
void OpenClEngine::run_pass(const PassConfig& c, cl_mem data, std::uint64_t base_samples, std::uint64_t first,
                            std::uint64_t pixels, const Selection* select) {
    const unsigned ppu = c.pixels_per_unit();
    const std::uint64_t width = c.launch.width;
    const bool packed = c.launch.packed != 0;
    std::uint64_t n = 0;
    for (std::uint64_t done = 0; done < pixels; done += n) {
        n = std::min<std::uint64_t>(pixels - done, c.launch_units * ppu);
        if (!packed) n = std::max<std::uint64_t>(width, n / width * width);  // whole rows
        else if (c.fast && n < pixels - done) n &= ~std::uint64_t(3);        // vectors stay aligned
        const std::uint64_t launch_first = packed ? first + done : first + done / width;
        const std::uint64_t groups = std::min<std::uint64_t>(c.max_groups, ceil_div(ceil_div(n, ppu), c.work_group));
        launch_histogram(c, data, base_samples, launch_first, n, std::size_t(std::max<std::uint64_t>(1, groups)), select);
    }
}

// Rows [first_row, first_row + rows) of a tile grid's area for one pass, in launches of whole
// rows that keep every counter in range; `base_samples` is where first_row starts. Each launch
// gives every piece (a tile's columns of its rows) enough work-groups to fill the device.
void OpenClEngine::run_tile_pass(const PassConfig& c, cl_mem data, std::uint64_t base_samples, std::uint32_t first_row,
                                 std::uint32_t rows, const gpu::TileBands& grid, std::size_t tile_slots) {
    const std::uint64_t width = c.launch.width;
    const auto rows_per_launch = std::uint32_t(std::clamp<std::uint64_t>(c.launch_units / width, 1, rows));
    const cl_kernel k = kernel(c.program_options, c.kernel_name);
    for (std::uint32_t done = 0; done < rows;) {
        const std::uint32_t n = std::min(rows - done, rows_per_launch);
        ih_cl_tiles tl{};
        tl.tiles_x = grid.tiles_x();
        tl.tiles_y = grid.tiles_y();
        tl.area_height = grid.area.height;
        tl.first_row = first_row + done;
        tl.rows = n;
        tl.first_tile_row = grid.tile_row_of(tl.first_row);
        tl.tile_slots = std::uint32_t(tile_slots);
        const std::uint64_t pieces = std::uint64_t(tl.tiles_x) * (grid.tile_row_of(tl.first_row + n - 1) - tl.first_tile_row + 1);
        const std::uint64_t piece_pixels = ceil_div(std::uint64_t(n) * width, pieces);
        tl.groups_per_piece = std::uint32_t(std::clamp<std::uint64_t>(
            ceil_div(c.max_groups, pieces), 1, std::max<std::uint64_t>(1, ceil_div(piece_pixels, c.work_group * 4))));
        cl_uint ai = 0;
        set_arg(k, ai++, data);
        set_arg(k, ai++, cl_ulong(base_samples + std::uint64_t(done) * c.launch.stride));
        set_arg(k, ai++, tl);
        set_arg(k, ai++, c.bins);
        set_arg(k, ai++, c.launch);
        set_arg(k, ai++, edge_keys_.get());
        check(clSetKernelArg(k, ai++, std::size_t(c.launch.words) * c.launch.copies * 4, nullptr), "clSetKernelArg(local)");
        set_arg(k, ai++, result32_.get());
        enqueue(k, std::size_t(pieces * tl.groups_per_piece) * c.work_group, c.work_group, "tile histogram kernel");
        done += n;
    }
}

void OpenClEngine::launch_histogram(const PassConfig& c, cl_mem data, std::uint64_t base_samples,
                                    std::uint64_t first, std::uint64_t pixels, std::size_t groups,
                                    const Selection* select) {
    const cl_kernel k = kernel(c.program_options, c.kernel_name);
    cl_uint ai = 0;
    set_arg(k, ai++, data);
    set_arg(k, ai++, cl_ulong(c.fast ? base_samples / 16 : base_samples));  // ih_hist_u8x4: 16-byte units
    set_arg(k, ai++, cl_ulong(first));
    set_arg(k, ai++, cl_uint(pixels));
    set_arg(k, ai++, c.bins);
    set_arg(k, ai++, c.launch);
    set_arg(k, ai++, edge_keys_.get());
    cl_mem out = result32_.get();
    if (!c.global) {
        check(clSetKernelArg(k, ai++, std::size_t(c.launch.words) * c.launch.copies * 4, nullptr),
              "clSetKernelArg(local)");
        if (!c.launch.merge) out = ensure(partials_, groups * c.local_slot_count() * 4);
    }
    set_arg(k, ai++, out);
    if (select) {
        ih_cl_select args = select->args;
        if (c.first_channel != 0) args.count_slot = IH_CL_NO_COUNT;  // the first channels' pass counts them
        set_arg(k, ai++, select->mask);
        set_arg(k, ai++, cl_ulong(select->mask_base));
        set_arg(k, ai++, args);
        set_arg(k, ai++, result32_.get());
    }
    enqueue(k, groups * c.work_group, c.work_group, c.global ? "global-atomic histogram kernel" : "histogram kernel");
    if (!c.launch.merge) launch_sum(c, groups);
}

// The summing merge: adds the work-groups' partial histograms into the result.
void OpenClEngine::launch_sum(const PassConfig& c, std::size_t groups) {
    const cl_kernel sum = kernel(c.program_options, "ih_sum_partials");
    set_arg(sum, 0, partials_.get());
    set_arg(sum, 1, cl_uint(groups));
    set_arg(sum, 2, c.bins);
    set_arg(sum, 3, c.launch);
    set_arg(sum, 4, edge_keys_.get());
    set_arg(sum, 5, result32_.get());
    enqueue(sum, ceil_div(c.local_slot_count(), 64) * 64, 64, "ih_sum_partials");
}

// Adds the tile's 32-bit result into the 64-bit totals and clears it.
void OpenClEngine::accumulate_totals(const std::string& program_options, std::size_t total_slots) {
    const cl_kernel acc = kernel(program_options, "ih_accumulate64");
    set_arg(acc, 0, result32_.get());
    set_arg(acc, 1, result64_.get());
    set_arg(acc, 2, cl_uint(total_slots));
    enqueue(acc, ceil_div(total_slots, 64) * 64, 64, "ih_accumulate64");
}

void OpenClEngine::enqueue(cl_kernel k, std::size_t global, std::size_t local, const char* what) {
    check(clEnqueueNDRangeKernel(queue_.get(), k, 1, nullptr, &global, &local, 0, nullptr, ev()),
          "clEnqueueNDRangeKernel", what);
    take_event(true);
}

namespace {

template <typename Counter>
void read_into(cl_command_queue queue, cl_mem mem, std::span<std::uint64_t> slots, cl_event* event) {
    std::vector<Counter> counts(slots.size());
    check(clEnqueueReadBuffer(queue, mem, CL_TRUE, 0, counts.size() * sizeof(Counter), counts.data(), 0, nullptr,
                              event),
          "clEnqueueReadBuffer");
    for (std::size_t i = 0; i < slots.size(); ++i) slots[i] += counts[i];
}

}  // namespace

void OpenClEngine::read_counts(std::span<std::uint64_t> slots, bool totals64) {
    if (totals64) read_into<cl_ulong>(queue_.get(), result64_.get(), slots, ev());
    else read_into<cl_uint>(queue_.get(), result32_.get(), slots, ev());
    take_event(false);
}

}  // namespace imghist::ocl
