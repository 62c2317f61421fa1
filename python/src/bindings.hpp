// The pieces of the imghist._imghist module, one file each (module.cpp puts them together).
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "imghist/imghist.hpp"

namespace imghist::python {

namespace nb = nanobind;

// Any array on the host, read-only or not, of any dtype: the checks are ours, so that a wrong
// dtype is named instead of converted (view.cpp).
using HostArray = nb::ndarray<nb::ro>;

// The array behind `image`, zero-copy, or TypeError / InvalidArgument naming what is wrong.
HostArray array_of(nb::handle image);
// A view of the array's pixels (no copy): its dtype, shape and row stride give the format.
ImageView view_of(const HostArray& array, const std::optional<std::string>& layout);

// The keywords of histogram() as a Request (request.cpp); throws InvalidArgument.
struct RequestArgs {
    std::string mode = "all";
    nb::object bins, range;
    bool clamp = false;
    nb::object weights;
    bool alpha = false;
};
Request request_of(const RequestArgs& args);
// EngineOptions::device from None, an index or a name substring.
std::string device_of(nb::handle device);

// A new numpy array that owns `values` (moved to the heap, freed with the array). Returned as an
// object: the getters' default policy (reference_internal) does not apply to an owned array.
template <class T>
nb::object numpy_array(std::vector<T> values, std::initializer_list<std::size_t> shape) {
    auto* owned = new std::vector<T>(std::move(values));
    nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
    return nb::cast(nb::ndarray<nb::numpy, T>(owned->data(), shape, owner), nb::rv_policy::take_ownership);
}
// Counts (uint64, shape (channels, bins)) of one result (result.cpp).
nb::object counts_of(const Result& result);

// CLI JSON schema of one result (docs/cli.md), as Python objects, and back (result_dict.cpp).
nb::dict result_to_dict(const Result& result);
Result result_from_dict(nb::handle dict);
nb::dict stats_dict(const ChannelHistogram& channel);

void bind_errors(nb::module_& m);
void bind_result(nb::module_& m);
void bind_engine(nb::module_& m);
void bind_batch(nb::module_& m);

// histogram_batch (batch.cpp): the images of a batch as views into arrays kept alive here.
struct BatchImages {
    std::vector<HostArray> arrays;
    std::vector<ImageView> views;
};
// `images`: a sequence of arrays of one format, or one (N, H, W) / (N, H, W, C) array.
BatchImages batch_images_of(nb::handle images, const std::optional<std::string>& layout);
// One engine, one call where the backend has a batch call (CUDA), else image by image.
// Called without the GIL.
std::vector<Result> count_batch(Engine& engine, const std::vector<ImageView>& views, const Request& request);
// An imghist.HistogramBatch of the results.
nb::object batch_object(std::vector<Result> results);
extern const char* const kHistogramBatchDoc;

}  // namespace imghist::python
