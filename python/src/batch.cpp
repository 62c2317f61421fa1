// imghist.histogram_batch(): many images of one format counted with one engine, and
// imghist.HistogramBatch, the results (a sequence of Histogram with their exact sum).
#include "bindings.hpp"

#ifdef IMGHIST_PYTHON_CUDA
#include "imghist/cuda.hpp"
#endif

namespace imghist::python {

namespace {

struct HistogramBatch {
    std::vector<Result> results;
};

std::string at(std::size_t i) { return "images[" + std::to_string(i) + "]: "; }

// `work()` for image i, its messages naming it.
template <class Work>
auto naming(std::size_t i, Work work) {
    try {
        return work();
    } catch (const nb::builtin_exception& e) {
        if (e.type() != nb::exception_type::type_error) throw;
        throw nb::type_error((at(i) + e.what()).c_str());
    } catch (const InvalidArgument& e) {
        throw InvalidArgument(at(i) + e.what());
    }
}

// Image i of an (N, H, W) or (N, H, W, C) array: a view of a[i] (no copy), owned by `owner`.
Array image_of_batch_array(const Array& a, std::size_t i, nb::handle owner) {
    std::vector<std::size_t> shape;
    std::vector<std::int64_t> strides;
    for (std::size_t d = 1; d < a.ndim(); ++d) {
        shape.push_back(a.shape(d));
        strides.push_back(a.stride(d));
    }
    const auto* first = static_cast<const std::byte*>(a.data());
    const std::int64_t offset = std::int64_t(i) * a.stride(0) * std::int64_t(a.itemsize());
    return Array(first + offset, shape.size(), shape.data(), owner, strides.data(), a.dtype(), a.device_type(),
                 a.device_id());
}

void check_batch_array_shape(const Array& a) {
    if (a.ndim() == 3 || a.ndim() == 4) return;
    std::string shape;
    for (std::size_t d = 0; d < a.ndim(); ++d) shape += (d ? ", " : "") + std::to_string(a.shape(d));
    throw InvalidArgument("a batch array has shape (N, H, W) or (N, H, W, C); got (" + shape +
                          "); pass a list for images of different sizes");
}

// One (N, H, W[, C]) array rather than a sequence of images: anything that exports its memory.
bool is_one_array(nb::handle images) {
    if (nb::isinstance<nb::list>(images) || nb::isinstance<nb::tuple>(images)) return false;
    return PyObject_CheckBuffer(images.ptr()) || nb::hasattr(images, "__dlpack__") ||
           PyCapsule_CheckExact(images.ptr());
}

void add_batch_array(BatchImages& batch, nb::handle images, nb::handle stream, const std::optional<std::string>& layout) {
    const Array whole = array_of(images, stream, batch.where);
    check_batch_array_shape(whole);
    for (std::size_t i = 0; i < whole.shape(0); ++i) {
        batch.arrays.push_back(image_of_batch_array(whole, i, images));
        batch.views.push_back(naming(i, [&] { return view_of(batch.arrays.back(), layout); }));
    }
}

std::string placement_text(const Placement& where) {
    return where.cuda ? "on CUDA device " + std::to_string(where.device) : "in host memory";
}

void add_sequence(BatchImages& batch, nb::handle images, nb::handle stream, const std::optional<std::string>& layout) {
    if (nb::isinstance<nb::str>(images) || !nb::hasattr(images, "__iter__"))
        throw nb::type_error("images must be a list of arrays or one (N, H, W) / (N, H, W, C) array");
    std::size_t i = 0;
    for (nb::handle item : images) {
        Placement where;
        batch.arrays.push_back(naming(i, [&] { return array_of(item, stream, where); }));
        batch.views.push_back(naming(i, [&] { return view_of(batch.arrays.back(), layout); }));
        if (i == 0) batch.where = where;
        if (where.cuda != batch.where.cuda || where.device != batch.where.device)
            throw InvalidArgument(at(i) + "it is " + placement_text(where) + " but images[0] is " +
                                  placement_text(batch.where) +
                                  ": the images of a batch are all host arrays or all on one CUDA device");
        if (where.stream != batch.where.stream)
            throw InvalidArgument(at(i) + "its producer works on another CUDA stream than images[0]'s: pass stream=");
        ++i;
    }
}

std::string format_name(const ImageView& v) { return std::string(format_info(v.format).name); }

}  // namespace

BatchImages batch_images_of(nb::handle images, nb::handle stream, const std::optional<std::string>& layout) {
    BatchImages batch;
    if (is_one_array(images))
        add_batch_array(batch, images, stream, layout);
    else
        add_sequence(batch, images, stream, layout);
    if (batch.views.empty()) throw InvalidArgument("histogram_batch needs at least one image; got none");
    for (std::size_t i = 1; i < batch.views.size(); ++i)
        if (batch.views[i].format != batch.views[0].format)
            throw InvalidArgument(at(i) + "its pixel format is " + format_name(batch.views[i]) + " but images[0]'s is " +
                                  format_name(batch.views[0]) +
                                  ": the images of a batch share dtype, channels and layout (sizes may differ)");
    return batch;
}

std::vector<Result> count_batch(Engine& engine, const BatchImages& images, const Request& request) {
    if (request.roi || request.tiles.count() != 1 || request.selects_pixels()) {
        // The batch calls count whole images: a roi, tiles, a mask or an alpha threshold are
        // counted image by image by Engine::compute (or the CUDA engine's compute_device), on
        // every backend.
        std::vector<Result> results;
        results.reserve(images.views.size());
        for (std::size_t i = 0; i < images.views.size(); ++i)
            results.push_back(naming(i, [&] {
                if (images.where.cuda) return std::move(compute_on_cuda(engine, {images.views[i]}, request, images.where).front());
                return engine.compute(images.views[i], request);
            }));
        return results;
    }
    if (images.where.cuda) return compute_on_cuda(engine, images.views, request, images.where);
#ifdef IMGHIST_PYTHON_CUDA
    // The CUDA engine packs host images into its staging buffers and counts them in few launches;
    // its batch call finds no value extremes, which Engine::compute finds image by image below.
    if (auto* cuda_engine = dynamic_cast<cuda::Engine*>(&engine); cuda_engine && !request.value_extremes)
        return cuda_engine->compute_batch(images.views, request);
#endif
    std::vector<Result> results;
    results.reserve(images.views.size());
    for (const ImageView& view : images.views) results.push_back(engine.compute(view, request));
    return results;
}

const char* const kHistogramBatchDoc = R"(Histograms of many images, counted with one engine.

images   a list (or other sequence) of arrays as histogram() takes them, of one dtype, channel
         count and layout (sizes and strides may differ), or one (N, H, W) / (N, H, W, C)
         array: image i is a[i], not copied. A 3-D array is N gray images, not one RGB image.
         With layout="chw", one (N, C, H, W) array or a list of (C, H, W) ones, each counted as
         histogram() counts a (C, H, W) array.
         CUDA arrays (torch, cupy) are counted where they live, like histogram()'s; the images
         of a batch are all host arrays or all on one CUDA device.
The keywords are histogram()'s. The CUDA backend counts the batch in few launches; other
backends count the images one after the other, with the GIL released once for the batch. With
roi, tiles, mask or alpha_threshold every image is counted alone (on every backend), with the
same roi, tile grid, mask and threshold: each image must hold the roi and be the mask's size
("images[3]: ..." otherwise). With extremes=True the CUDA backend counts host images one by
one too (its batch call finds no extremes).

Returns an imghist.HistogramBatch (a sequence of Histogram, .counts of shape (N, channels,
bins), .sum()). Raises imghist.InvalidArgument (a ValueError) for an empty batch, and for a bad
image or one whose format differs from images[0]'s, naming it ("images[3]: ...").)";

void bind_batch(nb::module_& m) {
    using B = HistogramBatch;
    nb::class_<B>(m, "HistogramBatch",
                  "The histograms of histogram_batch(), in the order of the images: a sequence of Histogram "
                  "(len, indexing, iteration) with .counts and .sum().")
        .def("__len__", [](const B& b) { return b.results.size(); })
        .def("__getitem__", [](const B& b, std::int64_t i) {
            const auto n = std::int64_t(b.results.size());
            if (i < -n || i >= n) throw nb::index_error("HistogramBatch index out of range");
            return b.results[std::size_t(i < 0 ? i + n : i)];
        }, "The Histogram of image i (negative i counts from the end).")
        .def("__iter__", [](const B& b) { return nb::iter(nb::cast(b.results)); }, "Iterates over the Histograms.")
        .def_prop_ro("counts", [](const B& b) {
            const Result& first = b.results.front();
            const std::size_t channels = first.channels.size(), bins = first.channels.front().layout.bins;
            std::vector<std::uint64_t> counts;
            counts.reserve(b.results.size() * channels * bins);
            for (const Result& r : b.results)
                for (const ChannelHistogram& c : r.channels) counts.insert(counts.end(), c.counts.begin(), c.counts.end());
            return numpy_array(std::move(counts), {b.results.size(), channels, bins});
        }, "Counts of every image (uint64, shape (N, channels, bins)).")
        .def("sum", [](const B& b) {
            Result total = b.results.front();
            for (std::size_t i = 1; i < b.results.size(); ++i) total.merge(b.results[i]);
            return total;
        }, "The exact sum of all histograms (Result::merge): one Histogram, with images[0]'s width and height.")
        .def("__repr__", [](const B& b) {
            const Result& first = b.results.front();
            std::string channels;
            for (const ChannelHistogram& c : first.channels)
                channels += (channels.empty() ? "" : ",") + std::string(channel_name(c.channel));
            return "<imghist.HistogramBatch " + std::to_string(b.results.size()) + " images " +
                   std::string(format_info(first.format).name) + " channels=" + channels +
                   " bins=" + std::to_string(first.channels.front().layout.bins) + " backend=" + first.backend + ">";
        });
}

nb::object batch_object(std::vector<Result> results) { return nb::cast(HistogramBatch{std::move(results)}); }

}  // namespace imghist::python
