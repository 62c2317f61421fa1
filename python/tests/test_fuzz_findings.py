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


LONE_SURROGATE = "\udcff"  # a str that has no UTF-8 text (os.fsdecode makes them of bytes that are not UTF-8)


def test_text_without_utf8_is_refused_by_name():
    """weights=, device= and from_dict's channel names holding a lone surrogate are refused as
    InvalidArgument naming them, and `in` answers False (all four raised RuntimeError std::bad_cast)."""
    image = np.zeros((2, 2, 3), np.uint8)
    with pytest.raises(imghist.InvalidArgument, match="weights '.udcff' is not text that UTF-8 can hold"):
        imghist.histogram(image, backend="reference", weights=LONE_SURROGATE)
    with pytest.raises(imghist.InvalidArgument, match="device '.udcff' is not text that UTF-8 can hold"):
        imghist.Engine("cpu", LONE_SURROGATE)
    assert LONE_SURROGATE not in histogram()
    document = histogram().to_dict()
    document["histograms"][LONE_SURROGATE] = document["histograms"].pop("G")
    with pytest.raises(imghist.InvalidArgument, match="the channel name '.udcff' is not text"):
        imghist.Histogram.from_dict(document)
    document["histograms"][7] = document["histograms"].pop(LONE_SURROGATE)
    with pytest.raises(imghist.InvalidArgument, match="the channel name must be a str; got <class 'int'>"):
        imghist.Histogram.from_dict(document)
