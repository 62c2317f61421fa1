"""closed_top=True: numpy.histogram's closed last bin (docs/semantics.md, "Closed top").

The expected counts are numpy.histogram's own, on the same samples with the same bins and range
(or edges): imghist must give them bit for bit for uint8, uint16, float16 and float32 images,
with samples on every edge, just beside it, at the top itself, and outside the range. Every test
that counts runs on every available backend.
"""

from __future__ import annotations

import numpy as np
import pytest

from kept_engines import engine_for

import imghist


def around_edges(edges: np.ndarray, dtype) -> np.ndarray:
    """Samples of `dtype` on, just below and just above every edge (numpy's edges in that dtype)."""
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        near = np.concatenate([np.floor(edges) - 1, np.floor(edges), np.ceil(edges), np.ceil(edges) + 1])
        return np.clip(near, info.min, info.max).astype(dtype)
    on = edges.astype(dtype)
    return np.concatenate([on, np.nextafter(on, dtype(-np.inf)), np.nextafter(on, dtype(np.inf))]).astype(dtype)


def gray_image(samples: np.ndarray, seed: int, extra) -> np.ndarray:
    """A gray image holding `samples`, `extra` and random samples of their dtype, shuffled."""
    rng = np.random.default_rng(seed)
    dtype = samples.dtype
    if np.issubdtype(dtype, np.integer):
        noise = rng.integers(0, np.iinfo(dtype).max, 4000, endpoint=True, dtype=dtype)
    else:
        noise = rng.uniform(-0.25, 1.25, 4000).astype(dtype)
    values = np.concatenate([samples, np.asarray(extra, dtype=dtype), noise])
    rng.shuffle(values)
    return values.reshape(-1, 50) if values.size % 50 == 0 else np.pad(values, (0, -values.size % 50),
                                                                        constant_values=samples[0]).reshape(-1, 50)


def assert_as_numpy(backend: str, image: np.ndarray, **bins) -> imghist.Histogram:
    h = engine_for(backend).histogram(image, closed_top=True, **bins)
    expected, edges = np.histogram(image, **bins)
    assert h.counts.shape == (1, expected.size)
    np.testing.assert_array_equal(h.counts[0], expected.astype(np.uint64))
    # Every edge as numpy's but the top, which is the sample type's next value above it.
    np.testing.assert_array_equal(h.edges[:-1], edges[:-1].astype(np.float64))
    return h


UNIFORM = [(10, (0, 255)), (7, (0, 255)), (3, (10, 200)), (256, (0, 255)), (1, (0, 255)), (13, (5, 250))]


@pytest.mark.parametrize("bins, value_range", UNIFORM)
def test_uint8_uniform_bins_are_numpys(backend, bins, value_range):
    edges = np.histogram_bin_edges(np.empty(0, np.uint8), bins, value_range)
    image = gray_image(np.arange(256, dtype=np.uint8), bins, around_edges(edges, np.uint8))
    h = assert_as_numpy(backend, image, bins=bins, range=value_range)
    assert h.edges[-1] == np.floor(value_range[1]) + 1  # the top value itself is in the last bin
    # numpy's example: every 255 in the last bin, none above.
    assert h["gray"].above == int(np.count_nonzero(image > value_range[1]))


@pytest.mark.parametrize("bins, value_range", [(10, (0, 65535)), (13, (100, 60000)), (4096, (0, 65535))])
def test_uint16_uniform_bins_are_numpys(backend, bins, value_range):
    edges = np.histogram_bin_edges(np.empty(0, np.uint16), bins, value_range)
    image = gray_image(around_edges(edges, np.uint16), bins, [0, 65535, value_range[1]])
    assert_as_numpy(backend, image, bins=bins, range=value_range)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("bins, value_range", [(10, (0.0, 1.0)), (7, (0.0, 1.0)), (3, (-0.5, 0.1)), (256, (0.0, 1.0)),
                                               (100, (-1000.0, 3000.0))])
def test_float_uniform_bins_are_numpys(backend, dtype, bins, value_range):
    # numpy's edges are in the array's own float type: float16 edges for float16 arrays.
    edges = np.histogram_bin_edges(np.empty(0, dtype), bins, value_range)
    special = [value_range[1], -0.0, np.inf, -np.inf, np.nan, 2.0, -1.0]
    image = gray_image(around_edges(edges, dtype), bins, special)
    h = assert_as_numpy(backend, image, bins=bins, range=value_range)
    assert h["gray"].nan == 1  # numpy leaves NaN out; imghist counts it apart


def test_edges_close_at_the_last_edge(backend):
    edges = [0, 50.5, 100, 255]
    image = gray_image(np.arange(256, dtype=np.uint8), 3, [255, 255])
    assert_as_numpy(backend, image, bins=edges)
    floats = np.array([0.0, 0.25, 0.5, 1.0])  # fp32 values: numpy compares them exactly too
    image = gray_image(around_edges(floats, np.float32), 4, [1.0])
    assert_as_numpy(backend, image, bins=floats)


def test_every_channel_of_an_rgb_image_is_numpys(backend):
    rng = np.random.default_rng(7)
    image = rng.integers(0, 256, (37, 41, 3), dtype=np.uint8)
    image[0, :3] = 255
    h = engine_for(backend).histogram(image, mode="rgb", bins=10, range=(0, 255), closed_top=True)
    for c, name in enumerate("RGB"):
        expected, _ = np.histogram(image[..., c], bins=10, range=(0, 255))
        np.testing.assert_array_equal(h[name].counts, expected.astype(np.uint64))


def test_the_issues_example_counts_255_in_the_last_bin():
    image = np.full((4, 4), 255, dtype=np.uint8)
    open_top = imghist.histogram(image, bins=10, range=(0, 255), backend="cpu")
    closed = imghist.histogram(image, bins=10, range=(0, 255), closed_top=True, backend="cpu")
    assert open_top.counts[0, -1] == 0 and open_top["gray"].above == 16
    assert closed.counts[0, -1] == 16 and closed["gray"].above == 0


@pytest.mark.parametrize("keywords, message", [
    (dict(), "closed_top needs a range or edges"),
    (dict(bins=10), "closed_top needs a range or edges"),
    (dict(bins=5000, range=(0, 255)), "at most 4096 bins"),
    (dict(bins=4, range=(3, 3)), "LO < HI"),
])
def test_closed_top_refuses_what_it_cannot_close(keywords, message):
    with pytest.raises(imghist.InvalidArgument, match=message):
        imghist.histogram(np.zeros((2, 2), np.uint8), closed_top=True, backend="cpu", **keywords)
