// imghist._imghist: the extension module behind the imghist package (python/imghist/).
#include "bindings.hpp"

#if defined(IMGHIST_PYTHON_IO)
#include "imghist/io.hpp"
#endif

namespace imghist::python {

namespace {

// The Python classes of the C++ exceptions, made once at import (owned by the module).
struct ErrorClasses {
    PyObject *error, *invalid_argument, *merge_error, *backend_unavailable, *device_error, *read_error;
};
ErrorClasses classes{};

PyObject* new_error(nb::module_& m, const char* name, PyObject* bases, const char* doc) {
    const std::string qualified = std::string("imghist.") + name;
    PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
    if (!cls) throw nb::python_error();
    m.attr(name) = nb::borrow(cls);
    return cls;
}

nb::object bases(PyObject* a, PyObject* b) { return nb::make_tuple(nb::handle(a), nb::handle(b)); }

nb::list backend_list() {
    struct Info { std::string name, summary; bool available; std::vector<DeviceInfo> devices; };
    std::vector<Info> infos;
    {
        nb::gil_scoped_release unlocked;  // device enumeration talks to the drivers
        for (const Backend* b : backends())
            infos.push_back({std::string(b->name()), std::string(b->summary()), b->available(), b->devices()});
    }
    nb::list out;
    for (const Info& info : infos) {
        nb::list devices;
        for (const DeviceInfo& d : info.devices) {
            nb::dict device;
            device["id"] = d.id;
            device["name"] = d.name;
            device["is_gpu"] = d.is_gpu;
            device["available"] = d.available;
            device["note"] = d.note;
            devices.append(device);
        }
        nb::dict backend;
        backend["name"] = info.name;
        backend["summary"] = info.summary;
        backend["available"] = info.available;
        backend["devices"] = devices;
        out.append(backend);
    }
    return out;
}

// Sets the Python exception of class `cls` with the C++ exception's message.
void set_python_error(PyObject* cls, const std::exception& e) { PyErr_SetObject(cls, message_str(e.what()).ptr()); }

}  // namespace

nb::str message_str(const std::string& text) {
    return nb::steal<nb::str>(PyUnicode_DecodeUTF8(text.data(), Py_ssize_t(text.size()), "backslashreplace"));
}

void bind_errors(nb::module_& m) {
    PyObject* base = new_error(m, "Error", PyExc_Exception, "Base class of every error imghist raises.");
    classes.error = base;
    classes.invalid_argument = new_error(m, "InvalidArgument", bases(base, PyExc_ValueError).ptr(),
                                         "A bad image, request or option (also a ValueError).");
    classes.merge_error = new_error(m, "MergeError", bases(base, PyExc_ValueError).ptr(),
                                    "Histograms of different channels or bins cannot be merged (also a ValueError).");
    classes.backend_unavailable = new_error(m, "BackendUnavailable", bases(base, PyExc_RuntimeError).ptr(),
                                            "The backend is unknown, not compiled in, or has no usable device "
                                            "(also a RuntimeError).");
    classes.device_error = new_error(m, "DeviceError", bases(base, PyExc_RuntimeError).ptr(),
                                     "A device or runtime call failed (also a RuntimeError).");
    classes.read_error = new_error(m, "ReadError", bases(base, PyExc_OSError).ptr(),
                                   "An image file cannot be read: missing, not an image, truncated, corrupt or "
                                   "too large (also an OSError).");
    // Most derived first: each C++ class maps to its own Python class.
    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const InvalidArgument& e) {
            set_python_error(classes.invalid_argument, e);
        } catch (const MergeError& e) {
            set_python_error(classes.merge_error, e);
        } catch (const BackendUnavailable& e) {
            set_python_error(classes.backend_unavailable, e);
        } catch (const DeviceError& e) {
            set_python_error(classes.device_error, e);
        } catch (const Error& e) {
            set_python_error(classes.error, e);
#if defined(IMGHIST_PYTHON_IO)
        } catch (const io::ReadError& e) {
            set_python_error(classes.read_error, e);
#endif
        }
    });
}

}  // namespace imghist::python

NB_MODULE(_imghist, m) {
    using namespace imghist::python;
    m.doc() = "The compiled part of the imghist package; import imghist instead.";
    bind_errors(m);
    bind_result(m);
    bind_camera_raw(m);
    bind_engine(m);
    bind_batch(m);
    bind_files(m);
    bind_cli_rules(m);
    m.def("backends", &backend_list,
          "The compiled-in backends in 'auto' preference order: a list of dicts with name, summary, "
          "available and devices (each a dict: id, name, is_gpu, available, note).");
    m.attr("__version__") = std::string(imghist::version());
}
