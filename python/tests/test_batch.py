"""imghist.histogram_batch against numpy's evaluation of the contract (contract_model.py) and
against imghist.histogram image by image, on every backend (conftest.py's `backend` fixture).
"""

from __future__ import annotations

import numpy as np
import pytest

import imghist
from contract_model import model_histogram
from images import size_for
from kept_engines import engine_for

FIELDS = ("counts", "nan", "below", "above", "clipped_low", "clipped_high")
# (dtype, channels or 0 for (H, W), layout, pattern)
FORMATS = [
    (np.uint8, 4, None, "random"), (np.uint8, 3, "bgr", "natural"), (np.uint16, 3, None, "random"),
    (np.float16, 0, None, "specials"), (np.float32, 4, None, "specials"), (np.float32, 1, None, "natural"),
]


def fmt_id(f) -> str:
    dtype, channels, layout, pattern = f
    return f"{np.dtype(dtype).name}x{channels}-{layout or 'natural'}-{pattern}"


def fields_of(h, backend: str) -> dict:
    """The numbers of a Histogram; CUDA's batch call may leave the clipping counts unknown (cuda.hpp)."""
    out = {f: getattr(h, f) for f in FIELDS}
    for f in ("clipped_low", "clipped_high"):
        if out[f] is None and backend == "cuda":
            del out[f]
    return out


def assert_same(h, want: dict, where: str) -> None:
    for field, got in fields_of(h, h.backend).items():
        got = np.asarray(got)
        assert got.dtype == np.uint64, f"{field} is {got.dtype}: {where}"
        np.testing.assert_array_equal(got, want[field], err_msg=f"{field}: {where}")


def model_fields(model) -> dict:
    return {f: getattr(model, f) for f in FIELDS}


def assert_batch_matches(batch, images, backend: str, **request) -> None:
    """Each result is the model's and imghist.histogram's; counts stack them; sum() adds them."""
    assert isinstance(batch, imghist.HistogramBatch) and len(batch) == len(images)
    models = [model_histogram(image, **request) for image in images]
    for i, (h, image, model) in enumerate(zip(batch, images, models)):
        where = f"image {i} {image.dtype}{image.shape}, backend {backend}, {request}"
        assert (h.width, h.height, h.backend) == (image.shape[1], image.shape[0], backend), where
        assert tuple(h.channels) == model.channels, where
        assert_same(h, model_fields(model), where)
        single = engine_for(backend).histogram(image, **request)
        assert_same(h, fields_of(single, backend), where + " (vs histogram())")
        assert h.edges.tolist() == single.edges.tolist(), where
    counts = np.asarray(batch.counts)
    assert counts.dtype == np.uint64 and counts.shape == (len(images),) + models[0].counts.shape
    np.testing.assert_array_equal(counts, np.stack([m.counts for m in models]))
    total = batch.sum()
    assert isinstance(total, imghist.Histogram)
    want = {f: np.sum([getattr(m, f) for m in models], axis=0, dtype=np.uint64) for f in FIELDS}
    assert_same(total, want, f"sum(), backend {backend}, {request}")


@pytest.mark.parametrize("fmt", FORMATS, ids=fmt_id)
def test_list_of_mixed_sizes(backend, make_image, fmt):
    dtype, channels, layout, pattern = fmt
    sizes = [size_for(backend, h, w) for h, w in ((40, 53), (1, 1), (17, 90), (64, 31))]
    images = [make_image(pattern, dtype, h, w, channels, seed=i) for i, (h, w) in enumerate(sizes)]
    images[2] = make_image(pattern, dtype, sizes[2][0] + 5, sizes[2][1] + 9, channels, seed=9)[3:-2, 4:-5]
    assert not images[2].flags.c_contiguous
    batch = imghist.histogram_batch(images, backend=backend, layout=layout)
    assert_batch_matches(batch, images, backend, layout=layout)


@pytest.mark.parametrize("request_keys", [
    {"mode": "luma", "weights": "rec601"}, {"mode": "rgb", "bins": 16}, {"bins": 7, "range": (10, 200), "clamp": True},
    {"alpha": True, "bins": 64, "range": (-10, 300)},
], ids=lambda r: "-".join(f"{k}={v}" for k, v in r.items()))
def test_request_keywords(backend, make_image, request_keys):
    images = [make_image("random", np.uint8, *size_for(backend, 30 + 7 * i, 41 - 5 * i), 4, seed=i) for i in range(3)]
    batch = imghist.histogram_batch(images, backend=backend, **request_keys)
    assert_batch_matches(batch, images, backend, **request_keys)


@pytest.mark.parametrize("dtype,channels", [(np.uint8, 4), (np.uint16, 3), (np.float32, 1), (np.float16, 0)])
def test_batch_array_and_its_views(backend, make_image, dtype, channels):
    """An (N, H, W, C) or (N, H, W) array: image i is a[i]; slices of it are batches too, not copied."""
    n, (h, w) = 6, size_for(backend, 36, 47)
    frames = [make_image("natural" if i % 2 else "specials", dtype, h, w, channels, seed=i) for i in range(n)]
    stack = np.stack(frames)
    views = {
        "whole": stack, "cropped": stack[:, 3:-2, 5:-4], "every other": stack[::2], "reversed": stack[::-1],
        "read-only": stack.copy(),
    }
    views["read-only"].setflags(write=False)
    for name, batch_array in views.items():
        images = list(batch_array)
        assert all(np.shares_memory(image, batch_array) for image in images), name
        batch = imghist.histogram_batch(batch_array, backend=backend)
        assert_batch_matches(batch, images, backend)


def same_counts(a, b) -> bool:
    return a.channels == b.channels and all(np.array_equal(getattr(a, f), getattr(b, f))
                                            for f in ("counts", "nan", "below", "above"))


def test_engine_batch_and_sequence_protocol(backend, make_image):
    images = [make_image("random", np.uint8, *size_for(backend, 20 + i, 30), 3, seed=i) for i in range(4)]
    engine = imghist.Engine(backend)
    batch = engine.histogram_batch(images, bins=32)
    assert_batch_matches(batch, images, backend, bins=32)
    assert_batch_matches(engine.histogram_batch(tuple(images), bins=32), images, backend, bins=32)
    assert_batch_matches(engine.histogram_batch(iter(images), bins=32), images, backend, bins=32)
    assert batch[-1] == batch[3]
    single = engine.histogram(images[0], bins=32)
    if backend == "cuda":  # its batch results leave the clipping counts unknown (None) unless proven
        assert same_counts(batch[0], single)
    else:
        assert batch[0] == single
    with pytest.raises(IndexError):
        batch[4]
    with pytest.raises(IndexError):
        batch[-5]
    total = batch[0]
    for h in list(batch)[1:]:
        total = total + h
    assert batch.sum() == total
    assert "4 images" in repr(batch) and backend in repr(batch)


def test_errors(make_image):
    rgba = make_image("random", np.uint8, 8, 9, 4)
    with pytest.raises(ValueError, match="at least one image"):
        imghist.histogram_batch([], backend="cpu")
    with pytest.raises(ValueError, match="at least one image"):
        imghist.histogram_batch(np.zeros((0, 4, 5, 3), np.uint8), backend="cpu")
    differing = [
        ([rgba, rgba, make_image("random", np.uint8, 8, 9, 3)], r"images\[2\].*rgb8.*rgba8"),
        ([rgba, make_image("random", np.uint16, 8, 9, 4)], r"images\[1\].*rgba16.*rgba8"),
        ([make_image("random", np.float32, 5, 5, 0), rgba], r"images\[1\].*rgba8.*gray_f32"),
    ]
    for images, message in differing:
        with pytest.raises(imghist.InvalidArgument, match=message):
            imghist.histogram_batch(images, backend="cpu")
    with pytest.raises(imghist.InvalidArgument, match=r"images\[1\].*empty"):
        imghist.histogram_batch([rgba, rgba[:0]], backend="cpu")
    with pytest.raises(imghist.InvalidArgument, match=r"images\[1\].*not packed"):
        imghist.histogram_batch([rgba, rgba[:, ::2]], backend="cpu")
    with pytest.raises(TypeError, match=r"images\[1\].*float64"):
        imghist.histogram_batch([rgba, rgba.astype(np.float64)], backend="cpu")
    with pytest.raises(imghist.InvalidArgument, match=r"images\[0\].*layout 'bgr'"):
        imghist.histogram_batch([rgba], layout="bgr", backend="cpu")
    for shape in ((5, 6), (2, 3, 4, 5, 3)):
        with pytest.raises(ValueError, match="batch array"):
            imghist.histogram_batch(np.zeros(shape, np.uint8), backend="cpu")
    for not_images in (None, 3, "images"):
        with pytest.raises(TypeError):
            imghist.histogram_batch(not_images, backend="cpu")
    with pytest.raises(imghist.InvalidArgument):
        imghist.histogram_batch([rgba], bins=0, backend="cpu")
    with pytest.raises(imghist.BackendUnavailable):
        imghist.histogram_batch([rgba], backend="no-such-backend")
