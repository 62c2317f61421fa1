"""Inputs the Python API fuzzer (fuzz/python/fuzz_python.py) found mishandled, each checked here."""
from __future__ import annotations

import numpy as np
import pytest

import imghist


def histogram():
    image = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
    return imghist.histogram(image, backend="reference", mode="rgb")


def test_membership_of_any_object_is_an_answer():
    """`x in h` answers False for what is not a channel's name, None included (it raised TypeError)."""
    h = histogram()
    assert "R" in h and "Y" not in h
    assert None not in h and 0 not in h and b"R" not in h and ("R",) not in h


def test_from_dict_refuses_a_range_no_engine_makes():
    """A range that is inverted, empty or not finite is refused, as the command line's merge does (an
    inverted one was accepted, and plot() then failed with "math domain error")."""
    document = histogram().to_dict()
    for bad_range in ([4294967396, 60000], [5, 5], [float("nan"), 256], [0, float("inf")]):
        for channel in document["histograms"].values():
            channel["range"] = bad_range
        with pytest.raises(imghist.InvalidArgument, match="'range' must be finite with lo < hi"):
            imghist.Histogram.from_dict(document)


def test_from_dict_without_stats_has_unknown_clipping():
    """A channel without "stats" has unknown clipped counts (reading them crashed the interpreter)."""
    document = histogram().to_dict()
    del document["histograms"]["G"]["stats"]
    h = imghist.Histogram.from_dict(document)
    assert h["G"].clipped_low is None and h["G"].clipped_high is None
    assert h["R"].clipped_low == histogram()["R"].clipped_low
    np.testing.assert_array_equal(h.counts, histogram().counts)
