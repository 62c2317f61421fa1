"""imghist.read() and imghist.histogram_file(): image files through imghist::io (OpenImageIO).

The files are written here byte by byte from known numpy arrays (PNG with zlib, PNM, PFM), so
what read() returns is checked against the array that made the file, and the counts against
numpy's own evaluation. Without a file reader in the build these tests skip, unless
IMGHIST_REQUIRE_IO=1 (set by scripts/python-test.sh wherever the command line, which needs the
reader, is built): then they fail.
"""

from __future__ import annotations

import os
import pathlib

import numpy as np
import pytest

import imghist
from image_files import write_pfm as _pfm, write_png as _png, write_pnm as _pnm


pytestmark = pytest.mark.usefixtures("file_reader")


def _pixels(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-0.25, 1.5, shape).astype(dtype)
    return rng.integers(0, np.iinfo(dtype).max + 1, shape, dtype=dtype)


# (file name, writer, pixels): every sample type the reader keeps as it is, odd sizes.
CASES = [
    ("gray8.png", _png, (37, 53), np.uint8),
    ("rgb8.png", _png, (41, 29, 3), np.uint8),
    ("rgba8.png", _png, (23, 67, 4), np.uint8),
    ("rgb16.png", _png, (19, 31, 3), np.uint16),
    ("rgba16.png", _png, (17, 13, 4), np.uint16),
    ("gray16.pgm", _pnm, (29, 11), np.uint16),
    ("rgb8.ppm", _pnm, (31, 47, 3), np.uint8),
    ("rgb_f32.pfm", _pfm, (13, 21, 3), np.float32),
]


@pytest.mark.parametrize("name,write,shape,dtype", CASES, ids=[c[0] for c in CASES])
def test_read_returns_the_pixels_that_made_the_file(tmp_path, name, write, shape, dtype):
    pixels = _pixels(shape, dtype, seed=len(name))
    path = tmp_path / name
    write(path, pixels)
    got = imghist.read(str(path))
    assert got.dtype == np.dtype(dtype)
    assert got.shape == pixels.shape
    np.testing.assert_array_equal(got, pixels)
    assert got.flags.owndata or got.base is not None  # it owns (or keeps alive) its pixels
    got[0, 0] = got[0, 0]  # writable


@pytest.mark.parametrize("name,write,shape,dtype", CASES, ids=[c[0] for c in CASES])
def test_histogram_file_counts_the_file_like_histogram_of_its_pixels(tmp_path, name, write, shape, dtype):
    pixels = _pixels(shape, dtype, seed=len(name) + 100)
    path = tmp_path / name
    write(path, pixels)
    mode = "luma" if pixels.ndim == 2 else "all"
    from_file = imghist.histogram_file(path, mode=mode, backend="cpu")  # a pathlib.Path
    from_array = imghist.histogram(pixels, mode=mode, backend="cpu")
    assert from_file.channels == from_array.channels
    np.testing.assert_array_equal(from_file.counts, from_array.counts)
    assert from_file.counts.sum(axis=1).tolist() == [pixels.shape[0] * pixels.shape[1]] * len(from_file.channels)
    engine = imghist.Engine("cpu", threads=2)
    np.testing.assert_array_equal(engine.histogram_file(str(path), mode=mode).counts, from_array.counts)


def test_counts_of_an_eight_bit_file_equal_numpys(tmp_path):
    # Independent of imghist's own histogram(): numpy's bincount of the pixels that made the file.
    pixels = _pixels((61, 43, 4), np.uint8, seed=7)
    path = tmp_path / "rgba.png"
    _png(path, pixels)
    h = imghist.histogram_file(path, mode="rgb", alpha=True)
    assert h.channels == ("R", "G", "B", "A")
    for c in range(4):
        np.testing.assert_array_equal(h.counts[c], np.bincount(pixels[..., c].ravel(), minlength=256))


def test_every_backend_counts_a_file_alike(tmp_path, backend):
    pixels = _pixels((33, 35, 3), np.uint16, seed=3)
    path = tmp_path / "rgb16.png"
    _png(path, pixels)
    expected = imghist.histogram(pixels, backend="reference")
    np.testing.assert_array_equal(imghist.histogram_file(path, backend=backend).counts, expected.counts)


def test_unreadable_files_raise_read_error_naming_the_problem(tmp_path):
    good = _pixels((16, 16, 3), np.uint8, seed=1)
    png = tmp_path / "good.png"
    _png(png, good)
    truncated = tmp_path / "truncated.png"
    truncated.write_bytes(png.read_bytes()[:60])
    text = tmp_path / "notes.txt"
    text.write_text("not an image\n")
    cases = {
        tmp_path / "missing.png": "no such file",
        truncated: "",
        text: "",
        tmp_path: "directory",
    }
    for path, says in cases.items():
        for call in (imghist.read, imghist.histogram_file):
            with pytest.raises(imghist.ReadError) as caught:
                call(path)
            assert isinstance(caught.value, OSError) and isinstance(caught.value, imghist.Error)
            message = str(caught.value).lower()
            assert message, path
            assert says in message, (path, message)
    # The good file is still read after the bad ones.
    np.testing.assert_array_equal(imghist.read(png), good)


def test_max_pixels_refuses_big_images_from_the_header(tmp_path):
    path = tmp_path / "big.pgm"
    _pnm(path, _pixels((100, 100), np.uint8, seed=2))
    with pytest.raises(imghist.ReadError, match="exceeds"):
        imghist.read(path, max_pixels=9999)
    assert imghist.read(path, max_pixels=10000).shape == (100, 100)
    with pytest.raises(imghist.ReadError, match="exceeds"):
        imghist.histogram_file(path, max_pixels=5000)


def test_bad_keywords_are_refused_before_the_file_is_read(tmp_path):
    # The file does not exist: the keyword's error comes first, as for histogram().
    with pytest.raises(imghist.InvalidArgument, match="mode"):
        imghist.histogram_file(tmp_path / "missing.png", mode="lightness")
    with pytest.raises(TypeError):
        imghist.read(tmp_path / "x.png", max_pixels=-1)


def _dataset(tmp_path, count=30):
    """PNG and PPM files of known pixels, with bad ones among them: (paths, expected or None)."""
    paths, expected = [], []
    for i in range(count):
        if i % 7 == 3:
            path = tmp_path / f"bad{i}.png"
            path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 20)  # a signature, then nothing
            expected.append(None)
        elif i % 11 == 5:
            path = tmp_path / f"missing{i}.png"
            expected.append(None)
        else:
            pixels = _pixels((5 + i % 9, 7 + i % 5, 3), np.uint8, seed=i)
            path = tmp_path / (f"f{i}.png" if i % 2 else f"f{i}.ppm")
            (_png if i % 2 else _pnm)(path, pixels)
            expected.append(pixels)
        paths.append(path)
    return paths, expected


def test_histogram_files_yields_every_file_in_order_and_the_exact_sum(tmp_path):
    paths, expected = _dataset(tmp_path)
    done = []
    run = imghist.histogram_files(paths, backend="cpu", threads=3, max_pending=2, progress=done.append)
    outcomes = list(run)
    assert [f.index for f in outcomes] == list(range(len(paths)))
    assert [f.path for f in outcomes] == [str(p) for p in paths]
    want_sum = np.zeros((4, 256), np.uint64)
    for f, pixels in zip(outcomes, expected):
        if pixels is None:
            assert f.histogram is None and f.error, f
            continue
        assert f.error is None, f
        want = imghist.histogram(pixels, backend="reference")
        np.testing.assert_array_equal(f.histogram.counts, want.counts)
        for c in range(3):  # and numpy's own count of the channel
            np.testing.assert_array_equal(f.histogram.counts[c], np.bincount(pixels[..., c].ravel(), minlength=256))
        want_sum += want.counts
        assert f.bytes == os.path.getsize(f.path)
    assert done == [1] * len(paths)  # progress: one call per file, tqdm's update(1)
    bad = [str(p) for p, e in zip(paths, expected) if e is None]
    assert [path for path, _ in run.errors] == bad
    assert (run.files, run.counted, run.failed) == (len(paths), len(paths) - len(bad), len(bad))
    np.testing.assert_array_equal(run.sum.counts, want_sum)
    assert run.bytes == sum(os.path.getsize(p) for p in paths if os.path.exists(p))


def test_histogram_files_run_an_engine_and_kinds_that_cannot_be_added(tmp_path):
    eight = _pixels((9, 9), np.uint8, seed=1)
    sixteen = _pixels((9, 9), np.uint16, seed=2)
    _pnm(tmp_path / "a.pgm", eight)
    _pnm(tmp_path / "b.pgm", sixteen)
    _pnm(tmp_path / "c.pgm", eight)
    engine = imghist.Engine("cpu")
    run = imghist.histogram_files(sorted(tmp_path.iterdir()), mode="luma", engine=engine).run()
    assert len(run.sums) == 2 and run.errors == []
    np.testing.assert_array_equal(run.sums[0].counts, 2 * imghist.histogram(eight, mode="luma").counts)
    np.testing.assert_array_equal(run.sums[1].counts, imghist.histogram(sixteen, mode="luma").counts)
    with pytest.raises(ValueError, match="2 kinds"):
        run.sum
    # The engine is free again after the run.
    np.testing.assert_array_equal(engine.histogram(eight, mode="luma").counts, run.sums[0].counts // 2)


def test_histogram_files_stops_early_and_reports_bad_keywords(tmp_path):
    paths, _ = _dataset(tmp_path, count=60)
    run = imghist.histogram_files(paths, backend="cpu", max_pending=1)
    first = next(run)
    assert first.index == 0
    run.close()  # the decoders stop; nothing hangs
    assert list(run) == []
    with pytest.raises(imghist.InvalidArgument):
        list(imghist.histogram_files(paths, weights=(1, 2, 3)))
    assert imghist.histogram_files([], backend="cpu").run().sum is None


def test_histogram_files_says_which_decoder_read_each_file(tmp_path):
    paths, expected = _dataset(tmp_path, count=6)
    for f in imghist.histogram_files(paths, backend="cpu"):
        assert f.decoder == "cpu" and f.gpu_fallback is None, f


def test_decode_gpu_is_refused_clearly_where_it_cannot_run(tmp_path):
    paths, _ = _dataset(tmp_path, count=3)
    # Only the cuda backend decodes on the GPU; the refusal comes before any file is read.
    with pytest.raises(imghist.InvalidArgument, match="cuda backend"):
        imghist.histogram_files(paths, backend="cpu", decode="gpu").run()
    with pytest.raises(imghist.InvalidArgument, match="decode must be"):
        imghist.histogram_files(paths, backend="cpu", decode="nvjpeg").run()
    available, why = imghist.gpu_decode_available()
    assert isinstance(available, bool)
    assert available or why, "an unavailable GPU decoder must say why"


def test_a_file_name_that_is_not_utf8_is_read_by_its_bytes(tmp_path):
    # A Latin-1 name, as old cameras and archives write them: bytes, or the str os.fsdecode makes.
    pixels = _pixels((6, 9), np.uint8, seed=8)
    name = os.fsencode(tmp_path) + b"/caf\xe9.pgm"
    _pnm(pathlib.Path(os.fsdecode(name)), pixels)
    good = tmp_path / "good.pgm"
    _pnm(good, pixels)
    want = np.bincount(pixels.ravel(), minlength=256)
    for path in (name, os.fsdecode(name)):
        np.testing.assert_array_equal(imghist.read(path), pixels)
        np.testing.assert_array_equal(imghist.histogram_file(path, mode="luma").counts[0], want)
    outcomes = list(imghist.histogram_files([name, good], mode="luma"))
    assert [f.path for f in outcomes] == [os.fsdecode(name), str(good)]
    assert [f.error for f in outcomes] == [None, None]
    np.testing.assert_array_equal(outcomes[0].histogram.counts[0], want)

