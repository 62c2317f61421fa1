"""What Python refuses to read: OpenImageIO's untrusted readers, and paths holding a NUL byte.

Python decodes in its own process, so a reader that corrupts memory takes the interpreter and
every result with it: histogram_files([good, IFF, good], untrusted_readers=True) died of a double
free (tests/data/repro/oiio_iff_rle_heap_overflow.iff, the review of tests/data/repro/README.md).
The command line runs those readers in decoder processes of its own; Python refuses them,
naming the command line. A path holding a NUL byte was read as the name before the NUL
("x\\0evil.png" read "x"); it is refused as Python's own open() refuses it.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import imghist
from image_files import write_pnm

REPRO = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "repro"
IFF = REPRO / "oiio_iff_rle_heap_overflow.iff"


pytestmark = pytest.mark.usefixtures("file_reader")


def write_pgm(path: pathlib.Path, seed: int) -> np.ndarray:
    pixels = np.random.default_rng(seed).integers(0, 256, (9, 14), dtype=np.uint8)
    write_pnm(path, pixels)
    return pixels


def test_the_reviewers_untrusted_iff_run_is_refused_and_python_lives(tmp_path):
    good = [tmp_path / "a.pgm", tmp_path / "b.pgm"]
    for i, path in enumerate(good):
        write_pgm(path, i)
    code = textwrap.dedent("""
        import sys, imghist
        try:
            list(imghist.histogram_files(sys.argv[1:], untrusted_readers=True))
        except imghist.InvalidArgument as e:
            print("refused:", e)
    """)
    proc = subprocess.run([sys.executable, "-c", code, str(good[0]), str(IFF), str(good[1])],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    assert proc.stdout.startswith("refused:") and "--untrusted-readers" in proc.stdout, proc.stdout


def test_untrusted_readers_are_refused_by_every_reading_call(tmp_path):
    path = tmp_path / "good.pgm"
    write_pgm(path, 3)
    calls = {
        "read": lambda: imghist.read(path, untrusted_readers=True),
        "histogram_file": lambda: imghist.histogram_file(path, untrusted_readers=True),
        "Engine.histogram_file": lambda: imghist.Engine("cpu").histogram_file(path, untrusted_readers=True),
        "histogram_files": lambda: imghist.histogram_files([path], untrusted_readers=True).run(),
    }
    for name, call in calls.items():
        with pytest.raises(imghist.InvalidArgument, match="command line") as caught:
            call()
        assert "imghist --untrusted-readers" in str(caught.value), name


def test_with_the_trusted_readers_the_iff_fails_alone_and_the_good_files_count(tmp_path):
    pixels = [write_pgm(tmp_path / "a.pgm", 1), write_pgm(tmp_path / "b.pgm", 2)]
    outcomes = list(imghist.histogram_files([tmp_path / "a.pgm", IFF, tmp_path / "b.pgm"], mode="luma"))
    assert [f.error is None for f in outcomes] == [True, False, True]
    assert "untrusted-readers" in outcomes[1].error
    for f, p in zip((outcomes[0], outcomes[2]), pixels):
        np.testing.assert_array_equal(f.histogram.counts[0], np.bincount(p.ravel(), minlength=256))


def test_a_path_holding_a_nul_byte_is_refused(tmp_path):
    write_pgm(tmp_path / "x", 4)  # the file the part before the NUL names
    nul_path = str(tmp_path / "x") + "\0evil.png"
    calls = {
        "read": lambda: imghist.read(nul_path),
        "read bytes": lambda: imghist.read(nul_path.encode()),
        "histogram_file": lambda: imghist.histogram_file(nul_path),
        "Engine.histogram_file": lambda: imghist.Engine("cpu").histogram_file(nul_path),
        "histogram_files": lambda: imghist.histogram_files([tmp_path / "x", nul_path]),
    }
    for name, call in calls.items():
        with pytest.raises(imghist.InvalidArgument, match="NUL byte") as caught:
            call()
        assert isinstance(caught.value, ValueError), name  # as open() raises ValueError
    # The file the name stops at is still readable by its own name.
    assert imghist.read(tmp_path / "x").shape == (9, 14)


def test_dask_refuses_a_path_holding_a_nul_byte_at_the_call(tmp_path):
    pytest.importorskip("dask")
    import imghist.dask

    write_pgm(tmp_path / "x", 5)
    with pytest.raises(imghist.InvalidArgument, match="NUL byte"):
        imghist.dask.histogram_files([tmp_path / "x", str(tmp_path / "x") + "\0.png"])
