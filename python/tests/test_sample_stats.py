"""Sample statistics (docs/semantics.md, "Sample statistics") against this test's own exact
evaluation: every finite sample added as a fractions.Fraction, the derived numbers rounded once by
Python's correctly rounded int division, percentiles read off the sorted samples (nearest rank,
and numpy's linear rule computed exactly) and compared with numpy.percentile as well, on every
backend, for real photos, 16-bit, half and float images with values above 1, NaN and Inf."""

from __future__ import annotations

import math
import pickle
from fractions import Fraction

import numpy as np
import pytest

import imghist

PERCENTS = [0, 1, 12.5, 50, 99, 100]


def sqrt_rounded(x: Fraction) -> float:
    """sqrt(x) rounded once to the nearest double: s <= sqrt(x)·2^k < s + 1 with s of 60+ bits,
    where no rounding boundary lies strictly between s and s + 1."""
    if x == 0:
        return 0.0
    k = max(0, 130 - (x.numerator.bit_length() - x.denominator.bit_length())) // 2 + 2
    scaled, rest = divmod(x.numerator << (2 * k), x.denominator)
    s = math.isqrt(scaled)
    exact = rest == 0 and s * s == scaled
    return float(Fraction(2 * s + (0 if exact else 1), 1 << (k + 1)))


def expected(samples: np.ndarray, percents=PERCENTS) -> dict:
    """This test's own evaluation of one channel's samples."""
    values = sorted(Fraction(float(v)) for v in samples.ravel() if math.isfinite(float(v)))
    n = len(values)
    out = {"count": n, "sum": sum(values, Fraction(0)), "sum_of_squares": sum((v * v for v in values), Fraction(0))}
    if n == 0:
        return out
    spread = n * out["sum_of_squares"] - out["sum"] ** 2
    out.update(mean=float(out["sum"] / n), variance=float(spread / n**2), stddev=sqrt_rounded(spread / n**2),
               min=float(values[0]), max=float(values[-1]))
    if n > 1:
        out.update(sample_variance=float(spread / (n * (n - 1))), sample_stddev=sqrt_rounded(spread / (n * (n - 1))))
    out["nearest_rank"], out["percentiles"] = {}, {}
    for p in percents:
        k = max(1, math.ceil(Fraction(p) * n / 100))
        out["nearest_rank"][p] = float(values[k - 1])
        h = (n - 1) * Fraction(p) / 100
        i = math.floor(h)
        low = values[i]
        out["percentiles"][p] = float(low + (h - i) * (values[min(i + 1, n - 1)] - low))
    return out


def check_channel(got: dict, want: dict, name: str) -> None:
    for key in want:
        assert got[key] == want[key], f"{name} {key}: {got[key]!r} != {want[key]!r}"


def channel_samples(image: np.ndarray, name: str) -> np.ndarray:
    return image[..., "RGBA".index(name)] if image.ndim == 3 else image


def colour_channels(result):
    return [c.name for c in result if c.name in ("R", "G", "B", "A", "gray")]


def test_real_photos_on_every_backend(photos, backend):
    for name, photo in photos.items():
        h = imghist.histogram(photo, backend=backend, sample_stats=PERCENTS)
        for channel in colour_channels(h):
            check_channel(h[channel].sample_stats(), expected(channel_samples(photo, channel)), f"{name} {channel}")


@pytest.mark.parametrize("dtype", [np.uint16, np.float16, np.float32])
def test_wide_formats_with_specials(backend, dtype):
    rng = np.random.default_rng(7)
    if dtype == np.uint16:
        image = rng.integers(0, 65536, size=(37, 41, 4), dtype=np.uint16)
    else:
        image = (rng.random((37, 41, 4)) * 3).astype(dtype)  # HDR: values up to 3
        flat = image.reshape(-1)
        flat[::97] = np.nan
        flat[5::101] = np.inf
        flat[7::103] = -np.inf
        flat[11::89] = -0.0
        flat[13::83] = np.finfo(dtype).smallest_subnormal
        flat[17::79] = -np.finfo(dtype).max
    h = imghist.histogram(image, backend=backend, alpha=True, sample_stats=PERCENTS)
    for channel in colour_channels(h):
        check_channel(h[channel].sample_stats(), expected(channel_samples(image, channel)), channel)


def test_percentiles_match_numpy(photos):
    photo = photos["astronaut"]
    stats = imghist.histogram(photo, sample_stats=PERCENTS).sample_stats()
    for i, channel in enumerate("RGB"):
        samples = photo[..., i].ravel()
        for p in PERCENTS:
            assert stats[channel]["nearest_rank"][p] == np.percentile(samples, p, method="inverted_cdf")
            assert stats[channel]["percentiles"][p] == pytest.approx(np.percentile(samples, p), rel=1e-12)
        assert stats[channel]["median"] == stats[channel]["percentiles"][50]


def test_hdr_mean_is_the_samples_not_the_folded_top_bin():
    image = np.linspace(0, 3, 3000, dtype=np.float32).reshape(30, 100)
    h = imghist.histogram(image, sample_stats=True)
    assert h["gray"].sample_stats()["mean"] == expected(image)["mean"]
    assert abs(h["gray"].sample_stats()["mean"] - 1.5) < 1e-6
    assert h["gray"].stats()["mean_value"] < 0.9  # the bins fold everything above 1 into one


def test_sums_merge_exactly_and_normalize_for_torchvision(photos):
    images = [photos["astronaut"], photos["coffee"], photos["chelsea"]]
    total = None
    for image in images:
        h = imghist.histogram(image, mode="rgb", sample_stats=True)
        total = h if total is None else total + h
    norm = total.normalize()
    for i, channel in enumerate("RGB"):
        samples = np.concatenate([image[..., i].ravel() for image in images])
        want = expected(samples, percents=[1, 50, 99])
        check_channel(total[channel].sample_stats(), want, channel)  # 8-bit sums keep their percentiles
        n, s, q = want["count"], want["sum"], want["sum_of_squares"]
        assert norm["mean"][i] == float(s / (n * 255))
        assert norm["std"][i] == sqrt_rounded((n * q - s * s) / (n * n * 255 * 255))


def test_round_trips_keep_the_exact_sums(photos):
    image = (photos["coffee"].astype(np.float32) / 7).astype(np.float32)
    h = imghist.histogram(image, sample_stats=True)
    again = imghist.Histogram.from_dict(h.to_dict())
    assert again.sample_stats() == h.sample_stats()
    assert pickle.loads(pickle.dumps(h)).sample_stats() == h.sample_stats()
    assert isinstance(h["R"].sample_stats()["sum"], Fraction)


def test_bad_requests_and_missing_statistics():
    image = np.zeros((4, 4, 3), np.uint8)
    for bad in ([101], [-1], "50", [float("nan")]):
        with pytest.raises((imghist.InvalidArgument, TypeError)):
            imghist.histogram(image, sample_stats=bad)
    h = imghist.histogram(image)
    assert h["R"].sample_stats() is None
    with pytest.raises(imghist.InvalidArgument, match="sample_stats=True"):
        h.normalize()
