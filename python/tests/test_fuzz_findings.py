"""Inputs the Python API fuzzer (fuzz/python/fuzz_python.py) found mishandled, each checked here."""
from __future__ import annotations

import numpy as np

import imghist


def histogram():
    image = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
    return imghist.histogram(image, backend="reference", mode="rgb")


def test_membership_of_any_object_is_an_answer():
    """`x in h` answers False for what is not a channel's name, None included (it raised TypeError)."""
    h = histogram()
    assert "R" in h and "Y" not in h
    assert None not in h and 0 not in h and b"R" not in h and ("R",) not in h
