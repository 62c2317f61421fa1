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
import struct
import zlib

import numpy as np
import pytest

import imghist


@pytest.fixture(autouse=True)
def _file_reader():
    if imghist.has_file_reader:
        return
    if os.environ.get("IMGHIST_REQUIRE_IO") == "1":
        pytest.fail("IMGHIST_REQUIRE_IO=1 but this imghist has no file reader (built without OpenImageIO)")
    pytest.skip("this imghist has no file reader (built without OpenImageIO)")


def _png(path: pathlib.Path, pixels: np.ndarray) -> None:
    """A PNG of uint8 / uint16 gray, RGB or RGBA pixels (filter 0 on every row)."""
    height, width = pixels.shape[:2]
    channels = 1 if pixels.ndim == 2 else pixels.shape[2]
    colour_type = {1: 0, 3: 2, 4: 6}[channels]
    depth = 8 * pixels.dtype.itemsize
    rows = pixels.astype(pixels.dtype.newbyteorder(">")).reshape(height, -1).view(np.uint8)
    raw = b"".join(b"\0" + row.tobytes() for row in rows)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, depth, colour_type, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
                     + chunk(b"IEND", b""))


def _pnm(path: pathlib.Path, pixels: np.ndarray) -> None:
    """A binary PGM (gray) or PPM (RGB) of uint8 / uint16 samples (big-endian, as PNM says)."""
    height, width = pixels.shape[:2]
    magic = b"P5" if pixels.ndim == 2 else b"P6"
    top = 255 if pixels.dtype == np.uint8 else 65535
    data = pixels.astype(pixels.dtype.newbyteorder(">")).tobytes()
    path.write_bytes(magic + b"\n%d %d\n%d\n" % (width, height, top) + data)


def _pfm(path: pathlib.Path, pixels: np.ndarray) -> None:
    """A PFM of float32 RGB pixels: little-endian (negative scale), rows from the bottom up."""
    height, width = pixels.shape[:2]
    data = np.ascontiguousarray(pixels[::-1]).astype("<f4").tobytes()
    path.write_bytes(b"PF\n%d %d\n-1.0\n" % (width, height) + data)


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
