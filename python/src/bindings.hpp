// The pieces of the imghist._imghist module, one file each (module.cpp puts them together).
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <string>

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

// CLI JSON schema of one result (docs/cli.md), as Python objects, and back (result_dict.cpp).
nb::dict result_to_dict(const Result& result);
Result result_from_dict(nb::handle dict);
nb::dict stats_dict(const ChannelHistogram& channel);

void bind_errors(nb::module_& m);
void bind_result(nb::module_& m);
void bind_engine(nb::module_& m);

}  // namespace imghist::python
