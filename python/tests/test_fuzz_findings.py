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


# A PNG whose chunk after IHDR has a type of bytes that are not UTF-8 and claims more bytes than
# the file holds: the reader's message quotes the type.
CORRUPT_PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x07\x00\x00\x00\x05\x10\x02\x02\xc8\xe6"
               b"\xd1\x90\xda \xe4dj\xe3\xa5\x036q" + bytes(26))


def test_read_errors_quoting_bytes_that_are_not_utf8_keep_their_message(tmp_path, file_reader):
    """The message keeps the bytes as \\xNN escapes, as the command line shows them (histogram_file
    raised ReadError with an empty message, and histogram_files ended with RuntimeError)."""
    path = tmp_path / "corrupt.png"
    path.write_bytes(CORRUPT_PNG)
    expected = r"corrupt PNG: chunk '\xa5" + "\x03" + "6q' at byte 33 claims 3831786211 bytes"
    with pytest.raises(imghist.ReadError) as raised:
        imghist.histogram_file(path, backend="reference")
    assert expected in str(raised.value)
    run = imghist.histogram_files([path], backend="reference").run()
    assert run.failed == 1 and expected in run.errors[0][1]
