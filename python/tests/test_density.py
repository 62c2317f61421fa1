"""Histogram.density(): numpy's histogram(..., density=True) of the exact counts, compared with
numpy's own on the same samples (bins where both rules agree: numpy closes its last bin)."""

from __future__ import annotations

import numpy as np

import imghist


def test_density_of_8_bit_channels_is_numpy_s():
    image = np.random.default_rng(8).integers(0, 256, (31, 17, 3), dtype=np.uint8)
    h = imghist.histogram(image, mode="rgb", bins=16, range=(0, 256), backend="cpu")
    got = h.density()
    assert got.dtype == np.float64 and got.shape == (3, 16)
    for c, name in enumerate("RGB"):
        expected, _ = np.histogram(image[..., c], bins=16, range=(0, 256), density=True)
        np.testing.assert_allclose(got[c], expected, rtol=1e-15)
        np.testing.assert_allclose(h[name].density(), expected, rtol=1e-15)


def test_density_of_uneven_float_bins_leaves_out_what_is_outside_as_numpy_does():
    rng = np.random.default_rng(9)
    image = rng.uniform(-1.0, 3.9, (23, 19, 3)).astype(np.float32)
    edges = [0, 0.1, 0.5, 1, 4]
    h = imghist.histogram(image, mode="rgb", bins=edges, backend="cpu")
    assert h.below.sum() > 0  # samples outside the bins are in neither total
    for c in range(3):
        # h.edges are those compared (rounded to fp32): numpy on them counts the same samples
        expected, _ = np.histogram(image[..., c], bins=h.edges, density=True)
        np.testing.assert_allclose(h.density()[c], expected, rtol=1e-14)
        assert abs(np.sum(h.density()[c] * np.diff(h.edges)) - 1) < 1e-12


def test_a_channel_with_no_sample_in_its_bins_has_a_nan_density():
    image = np.full((4, 4), 200, dtype=np.uint8)
    h = imghist.histogram(image, bins=4, range=(0, 100), backend="cpu")
    assert np.isnan(h.density()).all()


def test_batch_density_is_each_image_s():
    rng = np.random.default_rng(10)
    images = [rng.integers(0, 256, (7, 9), dtype=np.uint8), rng.integers(0, 256, (5, 3), dtype=np.uint8)]
    batch = imghist.histogram_batch(images, bins=8, range=(0, 256), backend="cpu")
    got = batch.density()
    assert got.shape == (2, 1, 8)
    for k, image in enumerate(images):
        expected, _ = np.histogram(image, bins=8, range=(0, 256), density=True)
        np.testing.assert_allclose(got[k, 0], expected, rtol=1e-15)
