"""imghist.histogram against numpy's evaluation of the contract (contract_model.py), bit for bit.

Every test runs on every backend the build has (the `backend` fixture of conftest.py; a backend
named in IMGHIST_REQUIRE_BACKENDS that is missing fails). The model sees the very array the
library counts, so every count, nan/below/above and clipping count must be equal.
"""

from __future__ import annotations

import numpy as np
import pytest

import imghist
from contract_model import ModelRefused, model_histogram
from images import DTYPES, GPU_BACKENDS, size_for, unit_fractions
from kept_engines import engine_for

# (dtype, shape of the channel axis or 0 for (H, W), layout)
FORMATS = [
    (np.uint8, 0, None), (np.uint8, 1, None), (np.uint8, 3, None), (np.uint8, 4, None),
    (np.uint8, 3, "bgr"), (np.uint8, 4, "bgra"),
    (np.uint16, 0, None), (np.uint16, 1, None), (np.uint16, 3, None), (np.uint16, 4, None),
    (np.float16, 0, None), (np.float16, 1, None), (np.float16, 3, None), (np.float16, 4, None),
    (np.float32, 0, None), (np.float32, 1, None), (np.float32, 3, None), (np.float32, 4, None),
]
PATTERNS = ("random", "natural", "constant", "constant_top", "bank", "specials")
REQUEST_KEYS = ("mode", "bins", "range", "clamp", "weights", "alpha", "layout")


def format_id(f) -> str:
    dtype, channels, layout = f
    return f"{np.dtype(dtype).name}x{channels}" + (f"-{layout}" if layout else "")


def assert_matches_model(image: np.ndarray, backend: str, **request):
    """Counts the image with imghist and with the model; every number must be the same."""
    model = model_histogram(image, **request)
    h = engine_for(backend).histogram(image, **request)
    where = f"backend {backend}, {image.dtype}{image.shape}, {request}"
    assert tuple(h.channels) == model.channels, where
    for field in ("counts", "nan", "below", "above", "clipped_low", "clipped_high"):
        got = np.asarray(getattr(h, field))
        assert got.dtype == np.uint64, f"{field} is {got.dtype}: {where}"
        np.testing.assert_array_equal(got, getattr(model, field), err_msg=f"{field}: {where}")
    for c, name in enumerate(model.channels):
        np.testing.assert_array_equal(np.asarray(h[name].counts), model.counts[c], err_msg=f"h[{name!r}]: {where}")
    assert (h.bins, tuple(h.range), h.closed_top, h.clamp) == (model.bins, (model.lo, model.hi),
                                                               model.closed_top, model.clamp), where
    assert_edges_match(np.asarray(h.edges), model.edges, where)
    assert (h.width, h.height) == (image.shape[1], image.shape[0]), where
    return h, model


def assert_edges_match(got: np.ndarray, want: np.ndarray, where: str) -> None:
    """Edges are float64 nominal edges: the ends exact, the inner ones within a few ulp of the range."""
    assert got.dtype == np.float64 and got.shape == want.shape, where
    assert (got[0], got[-1]) == (want[0], want[-1]), where
    span = max(abs(want[0]), abs(want[-1]))
    np.testing.assert_allclose(got, want, rtol=0, atol=4 * np.finfo(np.float64).eps * span, err_msg=where)
    assert np.all(np.diff(got) >= 0), where


def test_required_backends_are_available(backends):
    # The `backends` fixture fails when IMGHIST_REQUIRE_BACKENDS names one that is missing.
    assert "cpu" in backends and "reference" in backends


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("fmt", FORMATS, ids=format_id)
def test_every_format_and_pattern(backend, make_image, fmt, pattern):
    dtype, channels, layout = fmt
    height, width = size_for(backend, 96, 131)
    image = make_image(pattern, dtype, height, width, channels, seed=1)
    assert_matches_model(image, backend, layout=layout)


@pytest.mark.parametrize("channels", [3, 4])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("mode,weights,alpha", [
    ("all", "rec709", False), ("rgb", "rec709", True), ("luma", "rec601", False), ("all", "rec2020", True),
    ("luma", (3333, 3333, 3334), False), ("all", "10000,0,0", False), ("luma", (0, 0, 10000), True),
])
def test_modes_weights_and_alpha(backend, make_image, dtype, channels, mode, weights, alpha):
    pattern = "random" if dtype in (np.uint8, np.uint16) else "specials"
    image = make_image(pattern, dtype, *size_for(backend, 64, 77), channels=channels, seed=2)
    assert_matches_model(image, backend, mode=mode, weights=weights, alpha=alpha)


@pytest.mark.parametrize("mode", ["all", "luma"])
def test_gray_is_its_own_luminance(backend, make_image, mode):
    image = make_image("natural", np.uint16, *size_for(backend, 40, 50), channels=0, seed=3)
    h, _ = assert_matches_model(image, backend, mode=mode, alpha=True)
    assert tuple(h.channels) == ("gray",)


INTEGER_BINS = [
    {"bins": 64}, {"bins": 512}, {"bins": 1}, {"bins": 7, "range": (10, 200)}, {"bins": 31, "range": (-10, 300)},
    {"range": (1, 255)}, {"bins": 3, "range": (-1000, -10)}, {"bins": 4096, "range": (100, 60000)},
]
FLOAT_BINS = [
    {"bins": 256}, {"bins": 64}, {"bins": 1}, {"range": (-1.0, 1.0)}, {"bins": 100, "range": (-0.25, 1.25)},
    {"bins": 64, "range": (0.0, 4.0)}, {"bins": 7, "range": (0.1, 0.7)}, {"bins": 2, "range": (-1e-20, 1e-20)},
    {"bins": 1000, "range": (0.0, 1e-3)}, {"bins": 4096, "range": (-65504.0, 65504.0)},
]


def spec_id(spec) -> str:
    return "-".join(f"{k}={v}" for k, v in spec.items())


CUSTOM_BINS = [(dtype, spec) for dtype in (np.uint8, np.uint16) for spec in INTEGER_BINS] + [
    (dtype, spec) for dtype in (np.float16, np.float32) for spec in FLOAT_BINS]


@pytest.mark.parametrize("clamp", [False, True], ids=["noclamp", "clamp"])
@pytest.mark.parametrize("dtype,spec", CUSTOM_BINS, ids=lambda x: spec_id(x) if isinstance(x, dict) else np.dtype(x).name)
def test_custom_bins(backend, make_image, dtype, spec, clamp):
    """Integer formats: random values; float formats: the specials, so the range ends and NaN are hit."""
    pattern = "random" if dtype in (np.uint8, np.uint16) else "specials"
    image = make_image(pattern, dtype, *size_for(backend, 48, 61), channels=3, seed=4)
    assert_matches_model(image, backend, clamp=clamp, **spec)


@pytest.mark.parametrize("spec", [
    {"range": (-3.4e38, 3.4e38)}, {"bins": 1024, "range": (0.0, 1e-36)}, {"bins": 1, "range": (0.0, 3e38)},
    {"bins": 2, "range": (0.0, 1e-30)}, {"bins": 0}, {"bins": (1 << 20) + 1}, {"range": (1.0, 1.0)},
], ids=spec_id)
def test_ranges_the_contract_refuses(backend, spec):
    image = np.zeros((4, 5), np.float32)
    with pytest.raises(ModelRefused):
        model_histogram(image, **spec)
    with pytest.raises(imghist.InvalidArgument):
        imghist.histogram(image, backend=backend, **spec)


def test_float_edges_at_every_bin_boundary(backend):
    """k/256 and its neighbours, and the nominal edges of an odd range, one ulp either side."""
    values = np.concatenate([unit_fractions(np.float32), np.float32([-0.0, np.nan, np.inf, -np.inf])])
    edges = np.float32(0.1 + 0.6 * np.arange(8) / 7)
    values = np.concatenate([values, edges, np.nextafter(edges, np.float32(0)), np.nextafter(edges, np.float32(1))])
    image = np.resize(values, (7, (values.size + 6) // 7)).astype(np.float32)
    assert_matches_model(image, backend)
    assert_matches_model(image, backend, bins=7, range=(0.1, 0.7))
    assert_matches_model(image, backend, bins=7, range=(0.1, 0.7), clamp=True)


def test_luminance_of_tiny_and_special_floats(backend):
    """Luminance that rounds to a denormal, -0 or NaN (Inf - Inf, Inf * 0): exact on every backend."""
    tiny = np.float32([2.0**-126, -(2.0**-126), 2.0**-149, -(2.0**-149), 1e-38, -1e-38, 0.0, -0.0])
    special = np.float32([np.inf, -np.inf, np.nan, 1.0, 0.5])
    r, g, b = np.meshgrid(np.concatenate([tiny, special]), np.concatenate([tiny, special]), np.concatenate([tiny, special]))
    image = np.stack([r, g, b], axis=-1).reshape(-1, 13 * 13, 3)
    for weights in ("rec709", (10000, 0, 0), (1, 1, 9998)):
        assert_matches_model(image, backend, mode="luma", weights=weights)
        assert_matches_model(image.astype(np.float16), backend, mode="luma", weights=weights)


def test_sliced_views(backend, make_image):
    """a[10:-3, 7:-5]: the row stride is the big array's, passed without a copy."""
    for dtype in DTYPES:
        for channels in (0, 1, 3, 4):
            big = make_image("random", dtype, *size_for(backend, 90, 120), channels=channels, seed=6)
            view = big[10:-3, 7:-5]
            assert not view.flags.c_contiguous
            assert_matches_model(view, backend)


def test_padded_rows(backend, make_image):
    """A view of a wider buffer: each row is followed by samples that must not be counted."""
    for dtype in DTYPES:
        for channels in (0, 3, 4):
            h, w = size_for(backend, 45, 70)
            c = max(channels, 1)
            buf = make_image("specials" if dtype != np.uint16 else "random", dtype, h, w * c + 9, 0, seed=7)
            rows = buf[:, : w * c]
            view = rows.reshape(h, w, c) if channels else rows
            assert view.strides[0] == buf.strides[0] and not view.flags.c_contiguous
            assert_matches_model(view, backend)


def test_read_only_arrays(backend, make_image):
    for dtype in DTYPES:
        image = make_image("natural", dtype, *size_for(backend, 33, 47), channels=4, seed=8)
        image.setflags(write=False)
        assert_matches_model(image, backend)
        assert_matches_model(image[2:-2, 3:-1], backend, mode="luma", bins=16)


@pytest.mark.parametrize("shape", [(1, 1), (1, 257), (257, 1), (7, 3), (333, 517)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_odd_sizes(backend, make_image, shape):
    for dtype, channels in ((np.uint8, 4), (np.uint16, 3), (np.float16, 0), (np.float32, 3)):
        image = make_image("random", dtype, *shape, channels=channels, seed=9)
        assert_matches_model(image, backend)


def photo_variants(img: np.ndarray) -> dict:
    """The photo as uint8 RGB, BGR, BGRA, and converted exactly to uint16, float16 and float32."""
    alpha = np.full(img.shape[:2] + (1,), 255, np.uint8)
    unit = img.astype(np.float32) / np.float32(255)
    return {
        "rgb8": (img, None),
        "bgr8": (np.ascontiguousarray(img[:, :, ::-1]), "bgr"),
        "bgra8": (np.concatenate([img[:, :, ::-1], alpha], axis=-1), "bgra"),
        "rgb16": (img.astype(np.uint16) * np.uint16(257), None),
        "rgb_f16": (unit.astype(np.float16), None),
        "rgb_f32": (unit, None),
    }


@pytest.mark.parametrize("variant", ["rgb8", "bgr8", "bgra8", "rgb16", "rgb_f16", "rgb_f32"])
@pytest.mark.parametrize("name", ["astronaut", "chelsea", "coffee"])
def test_photos(backend, photos, name, variant):
    img = photos[name]
    if backend in GPU_BACKENDS:
        img = img[::2, ::2].copy()  # a quarter of the pixels: the same picture, faster on software GPUs
    image, layout = photo_variants(img)[variant]
    h, model = assert_matches_model(image, backend, layout=layout)
    if layout is not None:  # the same pixels in another order: the same histograms as RGB
        np.testing.assert_array_equal(model.counts, model_histogram(img).counts)
    assert_matches_model(image, backend, layout=layout, mode="luma", weights="rec601", bins=64)
