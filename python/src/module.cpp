#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include "imghist/imghist.hpp"
namespace nb = nanobind;
NB_MODULE(_imghist, m) {
    m.def("histogram", [](nb::ndarray<nb::ro> a) { return a.ndim(); }, nb::arg("image").noconvert());
}
