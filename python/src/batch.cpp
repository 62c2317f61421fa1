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

// array_of and view_of for image i, their messages naming it.
ImageView checked_view(nb::handle image, std::size_t i, const std::optional<std::string>& layout,
                       std::vector<HostArray>& arrays) {
    try {
        arrays.push_back(array_of(image));
        return view_of(arrays.back(), layout);
    } catch (const nb::builtin_exception& e) {
        if (e.type() != nb::exception_type::type_error) throw;
        throw nb::type_error((at(i) + e.what()).c_str());
    } catch (const InvalidArgument& e) {
        throw InvalidArgument(at(i) + e.what());
    }
}

// Image i of an (N, H, W) or (N, H, W, C) array: a view of a[i] (no copy), owned by `owner`.
HostArray image_of_batch_array(const HostArray& a, std::size_t i, nb::handle owner) {
    std::vector<std::size_t> shape;
    std::vector<std::int64_t> strides;
    for (std::size_t d = 1; d < a.ndim(); ++d) {
        shape.push_back(a.shape(d));
        strides.push_back(a.stride(d));
    }
    const auto* first = static_cast<const std::byte*>(a.data());
    const std::int64_t offset = std::int64_t(i) * a.stride(0) * std::int64_t(a.itemsize());
    return HostArray(first + offset, shape.size(), shape.data(), owner, strides.data(), a.dtype(), a.device_type(),
                     a.device_id());
}

std::vector<nb::object> images_of_batch_array(const HostArray& a, nb::handle owner) {
    if (a.ndim() != 3 && a.ndim() != 4) {
        std::string shape;
        for (std::size_t d = 0; d < a.ndim(); ++d) shape += (d ? ", " : "") + std::to_string(a.shape(d));
        throw InvalidArgument("a batch array has shape (N, H, W) or (N, H, W, C); got (" + shape +
                              "); pass a list for images of different sizes");
    }
    std::vector<nb::object> images;
    for (std::size_t i = 0; i < a.shape(0); ++i) images.push_back(nb::cast(image_of_batch_array(a, i, owner)));
    return images;
}

// The items of a list, tuple or other iterable, or the images of one batch array.
std::vector<nb::object> items_of(nb::handle images) {
    std::vector<nb::object> items;
    if (!nb::isinstance<nb::list>(images) && !nb::isinstance<nb::tuple>(images)) {
        HostArray batch;
        if (nb::try_cast(images, batch, /*convert=*/false)) return images_of_batch_array(batch, images);
        PyErr_Clear();
        if (nb::isinstance<nb::str>(images) || !nb::hasattr(images, "__iter__"))
            throw nb::type_error("images must be a list of arrays or one (N, H, W) / (N, H, W, C) array");
    }
    for (nb::handle item : images) items.push_back(nb::borrow(item));
    return items;
}

std::string format_name(const ImageView& v) { return std::string(format_info(v.format).name); }

}  // namespace

BatchImages batch_images_of(nb::handle images, const std::optional<std::string>& layout) {
    const std::vector<nb::object> items = items_of(images);
    if (items.empty()) throw InvalidArgument("histogram_batch needs at least one image; got none");
    BatchImages batch;
    batch.arrays.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
        batch.views.push_back(checked_view(items[i], i, layout, batch.arrays));
        if (batch.views[i].format != batch.views[0].format)
            throw InvalidArgument(at(i) + "its pixel format is " + format_name(batch.views[i]) + " but images[0]'s is " +
                                  format_name(batch.views[0]) +
                                  ": the images of a batch share dtype, channels and layout (sizes may differ)");
    }
    return batch;
}

std::vector<Result> count_batch(Engine& engine, const std::vector<ImageView>& views, const Request& request) {
#ifdef IMGHIST_PYTHON_CUDA
    // The CUDA engine packs host images into its staging buffers and counts them in few launches.
    if (auto* cuda_engine = dynamic_cast<cuda::Engine*>(&engine)) return cuda_engine->compute_batch(views, request);
#endif
    std::vector<Result> results;
    results.reserve(views.size());
    for (const ImageView& view : views) results.push_back(engine.compute(view, request));
    return results;
}

const char* const kHistogramBatchDoc = R"(Histograms of many images, counted with one engine.

images   a list (or other sequence) of arrays as histogram() takes them, of one dtype, channel
         count and layout (sizes and strides may differ), or one (N, H, W) / (N, H, W, C)
         array: image i is a[i], not copied. A 3-D array is N gray images, not one RGB image.
The keywords are histogram()'s. The CUDA backend counts the batch in few launches; other
backends count the images one after the other, with the GIL released once for the batch.

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
