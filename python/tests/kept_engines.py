"""One imghist.Engine per backend, kept for the whole test run.

The value tests count thousands of images; opening an engine for each (as the one-shot
imghist.histogram() does) costs about 0.25 s on NVIDIA's Vulkan and OpenCL drivers, and a process
that opens and closes hundreds of Vulkan instances is what once exhausted a driver's static TLS
in the C++ tests. The one-shot functions themselves are tested in test_api.py and test_batch.py.
"""
import gc

import imghist

_engines = {}


def engine_for(backend: str) -> imghist.Engine:
    if backend not in _engines:
        _engines[backend] = imghist.Engine(backend)
    return _engines[backend]


def close_all() -> None:
    """Drops the kept engines (conftest.py, at the end of the session): nanobind reports the
    objects still alive when the interpreter exits as leaks."""
    _engines.clear()
    gc.collect()
