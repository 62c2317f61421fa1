// imghist.Engine and imghist.histogram(): the GIL is released while an engine counts.
#include "bindings.hpp"

#include <memory>
#include <mutex>

namespace imghist::python {

namespace {

// One call's input, checked and converted once, before any engine is opened: the pixels (whose
// array keeps them alive until the count returns) and the request (which keeps its mask's).
// layout="chw" (planes.cpp): the planes, counted where they lie; where the request needs a
// pixel's samples together, `planes` is empty and the pixels are a packed (H, W, C) copy.
struct Prepared {
    Pixels pixels;
    CheckedRequest checked;
    std::optional<PlaneImages> planes;
};
Prepared prepare(nb::handle image, nb::handle stream, const RequestArgs& args,
                 const std::optional<std::string>& layout) {
    Prepared p;
    if (is_channel_first(layout)) {
        PlaneImages planes = planes_of(image, stream, false);
        p.pixels.where = planes.planes.where;  // the backend and device follow it
        p.checked = request_of(args, &planes.planes.where);
        if (needs_interleaved(p.checked.request, planes.channels))
            p.pixels = pixels_of(interleaved_copy(image, planes.planes.where), stream, std::nullopt);
        else
            p.planes = std::move(planes);
        return p;
    }
    p.pixels = pixels_of(image, stream, layout);  // the image's errors come before the keywords'
    p.checked = request_of(args, &p.pixels.where);
    return p;
}
struct PreparedBatch {
    BatchImages images;  // keeps the pixels alive
    CheckedRequest checked;
    std::optional<PlaneImages> planes;  // layout="chw", as Prepared's
};
PreparedBatch prepare_batch(nb::handle images, nb::handle stream, const RequestArgs& args,
                            const std::optional<std::string>& layout) {
    if (is_channel_first(layout)) {
        PlaneImages planes = planes_of(images, stream, true);
        PreparedBatch batch{{}, request_of(args, &planes.planes.where), {}};
        batch.images.where = planes.planes.where;  // the backend and device follow it
        if (needs_interleaved(batch.checked.request, planes.channels))
            batch.images = batch_images_of(interleaved_copy(images, planes.planes.where), stream, std::nullopt);
        else
            batch.planes = std::move(planes);
        return batch;
    }
    PreparedBatch batch{batch_images_of(images, stream, layout), {}, {}};
    batch.checked = request_of(args, &batch.images.where);
    return batch;
}

// histogram_file()'s keywords, checked before the file is read.
struct CheckedFile {
    CheckedRequest checked;
    FileReadArgs read;
};
CheckedFile check_file(const RequestArgs& args, const FileReadArgs& read) {
    check_file_bins(args, read);
    return {request_of(args), read};
}

// A C++ Engine may be used by one thread at a time (engine.hpp): the lock lets Python threads
// share one safely, one call after the other.
struct PyEngine {
    std::unique_ptr<Engine> engine;
    std::mutex busy;

    PyEngine(const std::string& backend, const EngineOptions& options) {
        nb::gil_scoped_release unlocked;  // opening a device can take a while
        engine = create_engine(backend, options);
    }

    Result histogram(const Prepared& in) {
        const Pixels& p = in.pixels;
        check_engine_for(*engine, p.where);
        nb::gil_scoped_release unlocked;
        std::lock_guard<std::mutex> one_at_a_time(busy);
        const Request& request = in.checked.request;
        if (in.planes) return std::move(count_planes(*engine, *in.planes, request).front());
        if (p.where.cuda) return std::move(compute_on_cuda(*engine, {p.view}, request, p.where).front());
        return engine->compute(p.view, request);
    }

    // A file read by imghist::io into host memory: a Histogram, or a camera raw file's
    // CameraRawHistogram.
    nb::object histogram_file(const io::LoadedImage& image, const Request& request) {
        Result counted;
        {
            nb::gil_scoped_release unlocked;
            std::lock_guard<std::mutex> one_at_a_time(busy);
            counted = count_file(*engine, image, request);
        }
        return histogram_object(std::move(counted), image.sensor.has_value(), image.sensor);
    }

    // The GIL is released once, for the whole batch.
    nb::object histogram_batch(const PreparedBatch& in) {
        check_engine_for(*engine, in.images.where);
        std::vector<Result> results;
        {
            nb::gil_scoped_release unlocked;
            std::lock_guard<std::mutex> one_at_a_time(busy);
            results = in.planes ? count_planes(*engine, *in.planes, in.checked.request)
                                : count_batch(*engine, in.images, in.checked.request);
        }
        return batch_object(std::move(results));
    }
};

// The one-shot functions' engines: one per (backend, device) in each thread, opened by the
// thread's first call and kept for its later ones (a GPU engine takes up to 0.25 s to open).
// They live in a threading.local owned by the module, so they close when their thread ends or
// the interpreter exits (before the drivers' own exit handlers).
nb::handle oneshot_module;

PyEngine& oneshot_engine(const std::string& backend, const std::string& device) {
    nb::object kept = oneshot_module.attr("_oneshot_engines").attr("__dict__");
    const nb::str key((backend + "\n" + device).c_str());
    if (PyObject* found = PyDict_GetItemWithError(kept.ptr(), key.ptr())) return nb::cast<PyEngine&>(nb::handle(found));
    if (PyErr_Occurred()) throw nb::python_error();
    nb::object engine = oneshot_module.attr("Engine")(backend, device.empty() ? nb::none() : nb::object(nb::str(device.c_str())));
    kept[key] = engine;
    return nb::cast<PyEngine&>(engine);
}

EngineOptions options_of(std::string device, std::int64_t threads) {
    if (threads < 0) throw InvalidArgument("threads must be >= 0 (0: one per core); got " + std::to_string(threads));
    EngineOptions options;
    options.device = std::move(device);
    options.threads = unsigned(threads);
    return options;
}

constexpr const char* kHistogramDoc = R"(Histograms of one image, counted exactly (64-bit) by an imghist backend.

image    an array, not copied: a numpy array (or anything with the buffer protocol), or a torch
         / cupy tensor or other DLPack array, on the host or on a CUDA device. (H, W) or
         (H, W, 1) gray, (H, W, 3) RGB, (H, W, 4) RGBA; dtype uint8, uint16, float16 or float32
         (never converted: another dtype raises TypeError). Rows may be strided (a[10:-3, 7:-5]);
         pixels and samples must be packed, else ValueError (use np.ascontiguousarray).
mode     "all" (R, G, B and luminance Y), "rgb" or "luma".
bins     number of bins, or None for the format's default (256; 257 over [0, 1] for floats);
         or a 1-D sequence / numpy array of 2 to 4097 strictly increasing finite edges
         e_0 < ... < e_N (numpy's bins=array): N bins, bin k holding [e_k, e_k+1) (a sample
         equal to e_N is above). Integer samples are compared exactly (v >= ceil(e_k)); half and
         float samples with the edges rounded once to fp32, which Histogram.edges reports.
range    (lo, hi) of the bins, or None for the default. Not with edges (they give the range).
ev       None, or (lo, hi, bins_per_stop): EV (log2) edge bins, edge k = 2^(lo + k /
         bins_per_stop) rounded to fp32, from 2^lo to 2^hi, at most 4096 bins; zero and
         negative values are below. Not with bins or range. Histogram.exposure() reads them.
clamp    count samples outside the range (or the edges) in the end bins instead of below/above.
closed_top  numpy.histogram's last bin: [e_N-1, e_N] holds the top of the range (or the last
         edge) itself, so histogram(a, bins=10, range=(0, 255), closed_top=True).counts[c] is
         np.histogram(a[..., c], bins=10, range=(0, 255))[0], bit for bit, for uint8, uint16,
         float16 and float32 arrays: numpy's edges (np.linspace) in the array's own type, as
         numpy makes them. Needs range or bin edges; at most 4096 bins. Counted as edge bins whose top edge is the sample
         type's next value above the top (256 for range=(0, 255) of integers), which
         Histogram.edges reports; Histogram.closed_top stays the default float rule's flag.
weights  luminance weights: "rec709", "rec601", "rec2020", "WR,WG,WB" or (wr, wg, wb) over 10000.
alpha    also count the alpha channel (channel "A") of an RGBA image.
roi      None (every pixel) or (x, y, width, height): count only columns [x, x + width) of rows
         [y, y + height). A region that is empty or not wholly inside the image raises
         InvalidArgument (it is never cropped silently). Histogram.region says what was counted.
tiles    None or (tiles_x, tiles_y): also one histogram per tile of a grid of tiles_x columns by
         tiles_y rows over the counted pixels (Histogram.tile_counts, .tile(tx, ty)). Along a
         side of L pixels in n tiles every tile is L // n pixels and the last also takes the
         remainder; a count of 0, or more tiles than pixels along a side, raises InvalidArgument.
         The channels' counts stay those of the whole region (the tiles' exact sum).
mask     None, or a 2-D array of uint8 or bool, of shape (H, W) like the image's: count
         only the pixels where it is non-zero (True). A roi and tiles select from it at the same
         coordinates. Read without a copy where its rows are packed (a column slice or one
         channel of an image, mask=rgba[..., 3], is copied: one byte a pixel). Another dtype,
         dimension or size raises InvalidArgument. A CUDA image takes a CUDA mask on its device
         (torch, cupy; rows contiguous), read in place on the image's stream.
alpha_threshold  None, or a number: count only the pixels whose alpha sample is above it, in
         the sample's own units (0..255, 0..65535, or the half / float value), compared exactly;
         NaN alpha is never above. The colour is counted as stored (never premultiplied).
         Needs an image with alpha (RGBA, BGRA); NaN raises InvalidArgument. With mask, a pixel
         counts where both let it through. Histogram.counted_pixels says how many did. Works on
         CUDA arrays too (selected on the GPU).
extremes also find each channel's exact smallest and largest finite value (the luminance
         itself for Y) and its +Inf and -Inf counts, over the counted pixels (each tile its
         own), for float16 and float32 images in host memory: ChannelHistogram.finite_min,
         .finite_max, .positive_infinities, .negative_infinities. -0 is reported as 0.0, NaN is
         ignored. One more pass over the pixels, on the host. Integer images never have them,
         nor do CUDA arrays (a note says so); they stay None there and when not asked for.
layout   None (natural order), "gray", "rgb", "rgba", or "bgr" / "bgra" for uint8 BGR(A) data;
         "chw" for a channel-first (C, H, W) array (torch's order), C being 1, 3 or 4: the
         histograms the (H, W, C) image gives. Each channel is read where it lies (host or
         CUDA, no copy; each plane's rows packed), except where the pixels' samples are needed
         together: the luminance Y (mode "all", the default, and "luma" of 3 or 4 channels) and
         alpha_threshold count one packed (H, W, C) copy of a host array and refuse a CUDA one.
backend  "auto" (a GPU if one is available, else "cpu") or a name from imghist.backends().
device   None (the backend's default), a device index, or a case-insensitive name substring.
stream   CUDA arrays only: the stream to count on. None: the producer's current stream
         (torch.cuda.current_stream(), cupy's current stream; the legacy default stream for
         other producers). Else a torch.cuda.Stream, a cupy.cuda.Stream or a cudaStream_t int.

CUDA arrays are counted where they live by the "cuda" backend ("auto" picks it; device None
means the array's own device), after the work already queued on the stream, with no host copy
of the pixels (DLPack's stream protocol). Any other backend raises InvalidArgument: imghist
never copies a tensor to the host silently. Results of CUDA arrays have clipped_low /
clipped_high None where the histogram alone does not prove them.

Returns an imghist.Histogram. Raises imghist.InvalidArgument (a ValueError) for bad input,
imghist.BackendUnavailable / DeviceError (RuntimeErrors) for backend problems. A thread's first
call with a backend and device opens its engine, which that thread's later calls reuse (it
closes when the thread ends); imghist.Engine gives control over an engine's life.)";

constexpr const char* kEngineDoc = R"(A backend's device state (contexts, queues, compiled kernels), kept across calls.

Engine(backend="auto", device=None, threads=0): threads is the number of CPU worker threads of
the cpu backend (0: one per core). Raises imghist.BackendUnavailable when the backend is
unknown, not compiled in, or has no usable device.

Threads: an Engine may be shared by several Python threads; its calls then run one after the
other (a lock). For counting in parallel, give each thread its own Engine: the GIL is released
while counting, so engines in different threads run at the same time.)";

}  // namespace

Engine& engine_of(nb::handle py_engine, std::unique_lock<std::mutex>& lock) {
    PyEngine& e = nb::cast<PyEngine&>(py_engine);
    lock = std::unique_lock<std::mutex>(e.busy, std::defer_lock);
    return *e.engine;
}

void bind_engine(nb::module_& m) {
    using namespace nb::literals;
    oneshot_module = m;
    m.attr("_oneshot_engines") = nb::module_::import_("threading").attr("local")();
    nb::class_<PyEngine>(m, "Engine", kEngineDoc)
        .def("__init__", [](PyEngine* self, const std::string& backend, nb::handle device, std::int64_t threads) {
            new (self) PyEngine(backend, options_of(device_of(device), threads));
        }, "backend"_a = "auto", "device"_a = nb::none(), "threads"_a = 0)
        .def("histogram", [](PyEngine& e, nb::handle image, const std::string& mode, nb::object bins, nb::object range, nb::object ev,
                             bool clamp, bool closed_top, nb::object weights, bool alpha, nb::object roi, nb::object tiles, nb::object mask,
                             nb::object alpha_threshold, bool extremes, nb::object sample_stats, std::optional<std::string> layout, nb::handle stream) {
            return e.histogram(prepare(image, stream, args_of(mode, bins, range, ev, clamp, closed_top, weights, alpha, roi, tiles, mask,
                                                              alpha_threshold, extremes, sample_stats), layout));
        }, "image"_a.noconvert().none(), nb::kw_only(), "mode"_a = "all", "bins"_a = nb::none(), "range"_a = nb::none(), "ev"_a = nb::none(),
           "clamp"_a = false, "closed_top"_a = false, "weights"_a = "rec709", "alpha"_a = false, "roi"_a = nb::none(), "tiles"_a = nb::none(), "mask"_a = nb::none(),
           "alpha_threshold"_a = nb::none(), "extremes"_a = false, "sample_stats"_a = false, "layout"_a = nb::none(), "stream"_a = nb::none(),
           "Like imghist.histogram(), on this engine's backend and device (a CUDA array needs a 'cuda' engine).")
        .def("histogram_batch", [](PyEngine& e, nb::handle images, const std::string& mode, nb::object bins,
                                   nb::object range, nb::object ev, bool clamp, bool closed_top, nb::object weights, bool alpha, nb::object roi, nb::object tiles,
                                   nb::object mask, nb::object alpha_threshold, bool extremes, nb::object sample_stats, std::optional<std::string> layout,
                                   nb::handle stream) {
            return e.histogram_batch(prepare_batch(
                images, stream,
                args_of(mode, bins, range, ev, clamp, closed_top, weights, alpha, roi, tiles, mask, alpha_threshold, extremes, sample_stats), layout));
        }, "images"_a.none(), nb::kw_only(), "mode"_a = "all", "bins"_a = nb::none(), "range"_a = nb::none(), "ev"_a = nb::none(),
           "clamp"_a = false, "closed_top"_a = false, "weights"_a = "rec709", "alpha"_a = false, "roi"_a = nb::none(), "tiles"_a = nb::none(), "mask"_a = nb::none(),
           "alpha_threshold"_a = nb::none(), "extremes"_a = false, "sample_stats"_a = false, "layout"_a = nb::none(), "stream"_a = nb::none(),
           "Like imghist.histogram_batch(), on this engine's backend and device.")
        .def("histogram_file", [](PyEngine& e, nb::handle path, const std::string& mode, nb::object bins,
                                  nb::object range, nb::object ev, bool clamp, bool closed_top, nb::object weights, bool alpha, nb::object roi, nb::object tiles,
                                  nb::object mask, nb::object alpha_threshold, bool extremes, nb::object sample_stats, std::optional<std::uint64_t> max_pixels,
                                  bool untrusted_readers, bool subtract_black, std::optional<std::uint32_t> ev_from_white) {
            const CheckedFile in = check_file(
                args_of(mode, bins, range, ev, clamp, closed_top, weights, alpha, roi, tiles, mask, alpha_threshold, extremes, sample_stats),
                {max_pixels, untrusted_readers, subtract_black, ev_from_white});
            return e.histogram_file(*read_file(path, in.read), in.checked.request);
        }, "path"_a, nb::kw_only(), "mode"_a = "all", "bins"_a = nb::none(), "range"_a = nb::none(), "ev"_a = nb::none(),
           "clamp"_a = false, "closed_top"_a = false, "weights"_a = "rec709", "alpha"_a = false, "roi"_a = nb::none(), "tiles"_a = nb::none(), "mask"_a = nb::none(),
           "alpha_threshold"_a = nb::none(), "extremes"_a = false, "sample_stats"_a = false, "max_pixels"_a = nb::none(), "untrusted_readers"_a = false,
           "subtract_black"_a = false, "ev_from_white"_a = nb::none(),
           "Like imghist.histogram_file(), on this engine's backend and device.")
        .def_prop_ro("backend", [](const PyEngine& e) { return std::string(e.engine->backend_name()); },
                     "The backend's name, e.g. 'cpu'.")
        .def_prop_ro("device", [](const PyEngine& e) { return e.engine->device_name(); }, "The device's name.")
        .def("__repr__", [](const PyEngine& e) {
            return "<imghist.Engine " + std::string(e.engine->backend_name()) + " on " + e.engine->device_name() + ">";
        });

    m.def("histogram", [](nb::handle image, const std::string& mode, nb::object bins, nb::object range, nb::object ev, bool clamp, bool closed_top,
                          nb::object weights, bool alpha, nb::object roi, nb::object tiles, nb::object mask, nb::object alpha_threshold,
                          bool extremes, nb::object sample_stats, std::optional<std::string> layout, const std::string& backend, nb::handle device,
                          nb::handle stream) {
        // Checked before an engine is opened: bad input costs no device setup.
        const Prepared in = prepare(
            image, stream, args_of(mode, bins, range, ev, clamp, closed_top, weights, alpha, roi, tiles, mask, alpha_threshold, extremes, sample_stats),
            layout);
        const Placement& where = in.pixels.where;
        return oneshot_engine(backend_for(where, backend), device_for(where, device)).histogram(in);
    }, "image"_a.noconvert().none(), nb::kw_only(), "mode"_a = "all", "bins"_a = nb::none(), "range"_a = nb::none(), "ev"_a = nb::none(),
       "clamp"_a = false, "closed_top"_a = false, "weights"_a = "rec709", "alpha"_a = false, "roi"_a = nb::none(), "tiles"_a = nb::none(), "mask"_a = nb::none(),
       "alpha_threshold"_a = nb::none(), "extremes"_a = false, "sample_stats"_a = false, "layout"_a = nb::none(), "backend"_a = "auto",
       "device"_a = nb::none(), "stream"_a = nb::none(),
       kHistogramDoc);

    m.def("histogram_file", [](nb::handle path, const std::string& mode, nb::object bins, nb::object range, nb::object ev,
                               bool clamp, bool closed_top, nb::object weights, bool alpha, nb::object roi, nb::object tiles, nb::object mask,
                               nb::object alpha_threshold, bool extremes, nb::object sample_stats, const std::string& backend, nb::handle device,
                               std::optional<std::uint64_t> max_pixels, bool untrusted_readers, bool subtract_black,
                               std::optional<std::uint32_t> ev_from_white) {
        // The keywords are checked before the file is decoded, and the file before an engine opens.
        const CheckedFile in = check_file(
            args_of(mode, bins, range, ev, clamp, closed_top, weights, alpha, roi, tiles, mask, alpha_threshold, extremes, sample_stats),
            {max_pixels, untrusted_readers, subtract_black, ev_from_white});
        const ImageFile file = read_file(path, in.read);
        const Placement host;
        return oneshot_engine(backend_for(host, backend), device_for(host, device)).histogram_file(*file, in.checked.request);
    }, "path"_a, nb::kw_only(), "mode"_a = "all", "bins"_a = nb::none(), "range"_a = nb::none(), "ev"_a = nb::none(), "clamp"_a = false, "closed_top"_a = false,
       "weights"_a = "rec709", "alpha"_a = false, "roi"_a = nb::none(), "tiles"_a = nb::none(), "mask"_a = nb::none(),
       "alpha_threshold"_a = nb::none(), "extremes"_a = false, "sample_stats"_a = false, "backend"_a = "auto", "device"_a = nb::none(), "max_pixels"_a = nb::none(),
       "untrusted_readers"_a = false, "subtract_black"_a = false, "ev_from_white"_a = nb::none(), kHistogramFileDocText);

    m.def("histogram_batch", [](nb::handle images, const std::string& mode, nb::object bins, nb::object range, nb::object ev,
                                bool clamp, bool closed_top, nb::object weights, bool alpha, nb::object roi, nb::object tiles, nb::object mask,
                                nb::object alpha_threshold, bool extremes, nb::object sample_stats, std::optional<std::string> layout, const std::string& backend,
                                nb::handle device, nb::handle stream) {
        // Checked before an engine is opened: bad input costs no device setup.
        const PreparedBatch in = prepare_batch(
            images, stream, args_of(mode, bins, range, ev, clamp, closed_top, weights, alpha, roi, tiles, mask, alpha_threshold, extremes, sample_stats),
            layout);
        const Placement& where = in.images.where;
        return oneshot_engine(backend_for(where, backend), device_for(where, device)).histogram_batch(in);
    }, "images"_a.none(), nb::kw_only(), "mode"_a = "all", "bins"_a = nb::none(), "range"_a = nb::none(), "ev"_a = nb::none(),
       "clamp"_a = false, "closed_top"_a = false, "weights"_a = "rec709", "alpha"_a = false, "roi"_a = nb::none(), "tiles"_a = nb::none(), "mask"_a = nb::none(),
       "alpha_threshold"_a = nb::none(), "extremes"_a = false, "sample_stats"_a = false, "layout"_a = nb::none(), "backend"_a = "auto",
       "device"_a = nb::none(), "stream"_a = nb::none(),
       kHistogramBatchDoc);
}

}  // namespace imghist::python
