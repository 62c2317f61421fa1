"""histogram(..., extremes=True): each channel's finite min / max and +-Inf counts, checked
against numpy (docs/semantics.md, "Value extremes").

The expected values come from numpy alone (contract_model.model_extremes): np.min / np.max of
the samples np.isfinite keeps, -0 reported as +0, np.count_nonzero of == +-inf, the luminance Y
computed in float32 one rounding at a time, over the pixels numpy selects (a roi and tiles as
slices, a mask and an alpha threshold as contract_model.selection). The images put NaN, +-Inf,
-0, denormals, values above 1 and below 0, and values whose luminance overflows, in random places.
"""

from __future__ import annotations

import json
import math
import os
import pickle

import numpy as np
import pytest

import images
from contract_model import extremes_of, model_extremes, tile_bounds
from kept_engines import engine_for
from test_regions import cuda_producer

import imghist

FIELDS = ("finite_min", "finite_max", "positive_infinities", "negative_infinities")


def mixed_image(dtype, height: int, width: int, channels: int, seed: int) -> np.ndarray:
    """Values over many magnitudes, both signs, and the specials: NaN, +-Inf, +-0, denormals,
    the largest finite values (whose luminance can overflow to +-Inf)."""
    rng = np.random.default_rng([seed, height, width, channels, np.dtype(dtype).itemsize])
    shape = (height, width) if channels == 0 else (height, width, channels)
    info = np.finfo(dtype)
    v = rng.uniform(-1, 1, shape) * 10.0 ** rng.uniform(-3, 3, shape)
    tiny = info.smallest_subnormal * rng.integers(1, 64, shape)
    choice = rng.random(shape)
    v = np.where(choice < 0.05, np.nan, v)
    v = np.where((choice >= 0.05) & (choice < 0.08), np.inf, v)
    v = np.where((choice >= 0.08) & (choice < 0.11), -np.inf, v)
    v = np.where((choice >= 0.11) & (choice < 0.14), -0.0, v)
    v = np.where((choice >= 0.14) & (choice < 0.17), 0.0, v)
    v = np.where((choice >= 0.17) & (choice < 0.20), tiny, v)
    v = np.where((choice >= 0.20) & (choice < 0.23), -tiny, v)
    v = np.where((choice >= 0.23) & (choice < 0.25), float(info.max), v)
    v = np.where((choice >= 0.25) & (choice < 0.27), -float(info.max), v)
    out = v.astype(dtype)
    flat = out.reshape(-1)  # each special at least once, whatever the draw
    flat[:6] = [-0.0, np.inf, -np.inf, np.nan, info.smallest_subnormal, info.max]
    return out


def float_image(pattern: str, dtype, backend: str, channels: int, seed: int = 1) -> np.ndarray:
    height, width = images.size_for(backend, 23, 31)
    if pattern == "mixed":
        return mixed_image(dtype, height, width, channels, seed)
    return images.make_image(pattern, dtype, height, width, channels, seed)


def assert_same_value(got, want, what: str) -> None:
    """Equal as floats, and with the same sign (a zero must be +0.0)."""
    if want is None:
        assert got is None, f"{what}: {got!r}, numpy has no finite sample"
        return
    assert isinstance(got, float), f"{what}: {got!r} is not a float"
    assert got == want and math.copysign(1.0, got) == math.copysign(1.0, want), f"{what}: {got!r} != {want!r}"


def assert_extremes(h, want: dict, where: str = "") -> None:
    """A Histogram's extremes, channel by channel and as its per-channel arrays, are numpy's."""
    assert h.channels == tuple(want), where
    for name, e in want.items():
        c = h[name]
        at = f"{where}{name}"
        assert_same_value(c.finite_min, e.finite_min, f"{at}.finite_min")
        assert_same_value(c.finite_max, e.finite_max, f"{at}.finite_max")
        assert (c.positive_infinities, c.negative_infinities) == (e.positive_infinities, e.negative_infinities), at
        assert type(c.positive_infinities) is int and type(c.negative_infinities) is int
    nan = float("nan")
    for field, dtype in zip(FIELDS, (np.float64, np.float64, np.uint64, np.uint64)):
        column = getattr(h, field)
        assert column.dtype == dtype and column.shape == (len(want),), f"{where}{field}"
        expected = [nan if getattr(e, field) is None else getattr(e, field) for e in want.values()]
        np.testing.assert_array_equal(column, np.array(expected, dtype), err_msg=f"{where}{field}")
    for field in ("finite_min", "finite_max"):  # a zero is +0.0
        column = getattr(h, field)
        assert not np.signbit(column[column == 0]).any(), f"{where}{field}"


def assert_no_notes_but_denormal_fallback(h, backend, dtype, mode) -> None:
    """No notes, except the one a Vulkan device that flushes fp32 denormals (NVIDIA's) gives when
    it hands fp32 luminance to the CPU (vulkan_backend.cpp, why_on_the_cpu); lavapipe keeps them."""
    if backend == "vulkan" and dtype == np.float32 and mode in ("luma", "all"):
        assert all("flushes fp32 denormals" in note for note in h.notes), h.notes
    else:
        assert h.notes == []


def assert_unknown(h) -> None:
    for c in h:
        assert all(getattr(c, field) is None for field in FIELDS), c.name
    assert all(getattr(h, field) is None for field in FIELDS)
    for channel in h.to_dict()["histograms"].values():
        assert not set(FIELDS) & set(channel)


# ---------------------------------------------------------------- values


@pytest.mark.parametrize("mode", ["rgb", "luma", "all"])
@pytest.mark.parametrize("channels", [0, 3, 4], ids=["gray", "rgb", "rgba"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32], ids=["f16", "f32"])
@pytest.mark.parametrize("pattern", ["mixed", "specials", "random"])
def test_extremes_are_numpys(backend, pattern, dtype, channels, mode):
    image = float_image(pattern, dtype, backend, channels)
    alpha = channels == 4 and mode == "all"  # A too
    got = engine_for(backend).histogram(image, mode=mode, alpha=alpha, extremes=True)
    assert_extremes(got, model_extremes(image, mode=mode, alpha=alpha))
    assert_no_notes_but_denormal_fallback(got, backend, dtype, mode)


@pytest.mark.parametrize("weights", ["rec601", (3333, 3334, 3333), (0, 0, 10000)])
def test_luminance_extremes_follow_the_weights(backend, weights):
    image = float_image("mixed", np.float32, backend, 3, seed=2)
    got = engine_for(backend).histogram(image, mode="luma", weights=weights, extremes=True)
    assert_extremes(got, model_extremes(image, mode="luma", weights=weights))


def test_the_luminance_is_the_fp32_rule_not_double(backend):
    """Y's extremes are the fp32 sum's, rounded one operation at a time, written out here: for
    these pixels the same weights summed in double and rounded once give another float."""
    wr, wg, wb = (np.float32(w / 10000) for w in (2126, 7152, 722))
    rgb = np.random.default_rng(3).uniform(0, 1, (64, 3)).astype(np.float32)
    y32 = (wr * rgb[:, 0] + wg * rgb[:, 1]) + wb * rgb[:, 2]
    y64 = (float(wr) * rgb[:, 0].astype(np.float64) + float(wg) * rgb[:, 1]) + float(wb) * rgb[:, 2]
    assert y32.dtype == np.float32 and y64.dtype == np.float64
    differ = np.flatnonzero(y32 != y64.astype(np.float32))
    assert differ.size >= 5  # the test tells the two apart
    for i in differ[:5]:
        got = engine_for(backend).histogram(rgb[i].reshape(1, 1, 3), mode="luma", extremes=True)["Y"]
        assert got.finite_min == got.finite_max == float(y32[i]), i


@pytest.mark.parametrize("dtype", [np.float16, np.float32], ids=["f16", "f32"])
def test_minus_zero_is_reported_as_plus_zero(backend, dtype):
    # G: -0 is the smallest finite sample; B: -0 the largest; R: only -0 (and NaN, Inf).
    image = np.array([[[-0.0, -0.0, -0.0], [np.nan, 2.5, -1.5], [np.inf, 0.0, -np.inf]],
                      [[-0.0, 0.5, -0.0], [-0.0, -0.0, -3.0], [np.nan, np.nan, np.nan]]], dtype)
    got = engine_for(backend).histogram(image, extremes=True)
    want = model_extremes(image)
    assert_extremes(got, want)
    for name in ("R", "G"):
        assert got[name].finite_min == 0.0 and math.copysign(1.0, got[name].finite_min) == 1.0
    for name in ("R", "B"):
        assert got[name].finite_max == 0.0 and math.copysign(1.0, got[name].finite_max) == 1.0
    assert got.to_dict()["histograms"]["R"]["finite_min"] == 0


@pytest.mark.parametrize("dtype", [np.float16, np.float32], ids=["f16", "f32"])
@pytest.mark.parametrize("channels", [0, 3], ids=["gray", "rgb"])
def test_no_finite_sample(backend, dtype, channels):
    shape = (7, 9) if channels == 0 else (7, 9, channels)
    nan = np.full(shape, np.nan, dtype)
    got = engine_for(backend).histogram(nan, extremes=True)
    for c in got:
        assert (c.finite_min, c.finite_max, c.positive_infinities, c.negative_infinities) == (None, None, 0, 0)
    assert np.isnan(got.finite_min).all() and np.isnan(got.finite_max).all()
    assert got.positive_infinities.tolist() == [0] * len(got.channels)
    d = got.to_dict()["histograms"][got.channels[0]]
    assert (d["finite_min"], d["finite_max"], d["positive_infinities"]) == (None, None, 0)
    # Infinities alone: still no finite sample.
    every_other = np.arange(7 * 9).reshape(7, 9) % 2 == 0  # pixels: Y is +Inf there too
    infinities = np.where(every_other if channels == 0 else every_other[..., None], np.inf, nan).astype(dtype)
    got = engine_for(backend).histogram(infinities, extremes=True)
    assert_extremes(got, model_extremes(infinities))
    assert got.positive_infinities.min() > 0 and np.isnan(got.finite_max).all()


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
@pytest.mark.parametrize("channels", [0, 3, 4])
def test_integer_images_have_no_extremes(backend, dtype, channels):
    image = images.make_image("specials", dtype, 9, 11, channels, seed=4)
    got = engine_for(backend).histogram(image, extremes=True, alpha=True)
    assert model_extremes(image) is None
    assert_unknown(got)
    assert got.notes == []


def test_extremes_are_off_by_default(backend):
    image = float_image("mixed", np.float32, backend, 4)
    assert_unknown(engine_for(backend).histogram(image))
    assert_unknown(engine_for(backend).histogram(image, extremes=False, roi=(1, 1, 5, 5), tiles=(2, 2)))


# ---------------------------------------------------------------- what is counted


def expected_tile_extremes(image, roi, tiles, mask=None, **request):
    """{(tx, ty): numpy's extremes of the tile's pixels} and those of the whole region."""
    height, width = image.shape[:2]
    x, y, w, h = roi if roi is not None else (0, 0, width, height)

    def of(y0, rows, x0, cols):
        part_mask = None if mask is None else mask[y0:y0 + rows, x0:x0 + cols]
        return model_extremes(image[y0:y0 + rows, x0:x0 + cols], mask=part_mask, **request)

    tiled = {}
    for ty, (ty0, th) in enumerate(tile_bounds(y, h, tiles[1])):
        for tx, (tx0, tw) in enumerate(tile_bounds(x, w, tiles[0])):
            tiled[(tx, ty)] = of(ty0, th, tx0, tw)
    return tiled, of(y, h, x, w)


@pytest.mark.parametrize("dtype", [np.float16, np.float32], ids=["f16", "f32"])
@pytest.mark.parametrize("selection", ["none", "mask", "alpha_threshold", "both"])
def test_roi_tiles_and_selections(backend, dtype, selection):
    image = float_image("mixed", dtype, backend, 4, seed=3)
    height, width = image.shape[:2]
    rng = np.random.default_rng(7)
    mask = (rng.random((height, width)) < 0.6).astype(np.uint8) if selection in ("mask", "both") else None
    threshold = 0.0 if selection in ("alpha_threshold", "both") else None
    roi, tiles = (2, 1, width - 5, height - 3), (3, 2)
    request = dict(mode="all", alpha=True, alpha_threshold=threshold)
    got = engine_for(backend).histogram(image, roi=roi, tiles=tiles, mask=mask, extremes=True, **request)
    tiled, whole = expected_tile_extremes(image, roi, tiles, mask, **request)
    assert_extremes(got, whole, "whole region ")
    for (tx, ty), want in tiled.items():
        assert_extremes(got.tile(tx, ty), want, f"tile ({tx}, {ty}) ")
    # Each tile has its own in the dict too, as the command line writes them.
    d = got.to_dict()
    for t, tile in enumerate(d["tiles"]):
        want = tiled[(t % tiles[0], t // tiles[0])]
        for name, channel in tile["histograms"].items():
            assert channel["positive_infinities"] == want[name].positive_infinities
            assert channel["finite_max"] == want[name].finite_max


def test_pixels_outside_the_selection_are_not_looked_at(backend):
    """Infinities and huge values in the pixels a roi, a mask or the alpha threshold drop."""
    image = np.full((6, 8, 4), 0.5, np.float32)
    image[:, :, 3] = 1.0
    image[0, :] = [np.inf, -np.inf, 1e30, 1.0]  # row 0: outside the roi
    image[1:, 0] = [-np.inf, np.inf, -1e30, 1.0]  # column 0: masked
    image[5, 1:] = [3e38, -3e38, np.inf, 0.0]  # row 5: alpha 0, not above the threshold
    image[2, 3] = [0.25, 2.0, -0.0, 1.0]  # the only pixel that differs among those counted
    mask = np.ones((6, 8), bool)
    mask[:, 0] = False
    got = engine_for(backend).histogram(image, roi=(0, 1, 8, 5), mask=mask, alpha_threshold=0.5, extremes=True)
    assert got.counted_pixels == 4 * 7  # rows 1-4, columns 1-7
    want = model_extremes(image[1:6], mask=mask[1:6], alpha_threshold=0.5)
    assert_extremes(got, want)
    assert (got["R"].finite_min, got["G"].finite_max, got["B"].finite_min) == (0.25, 2.0, 0.0)
    assert got.positive_infinities.tolist() == [0, 0, 0, 0]


def test_nothing_selected(backend):
    image = float_image("mixed", np.float32, backend, 3)
    none = np.zeros(image.shape[:2], np.uint8)
    got = engine_for(backend).histogram(image, mask=none, extremes=True, tiles=(2, 2))
    assert got.counted_pixels == 0
    for h in (got, got.tile(1, 1)):
        for c in h:
            assert (c.finite_min, c.finite_max, c.positive_infinities, c.negative_infinities) == (None, None, 0, 0)


# ---------------------------------------------------------------- every way in


def test_batches(backend):
    frames = [float_image("mixed", np.float32, backend, 3, seed=s) for s in (1, 2)]
    engine = engine_for(backend)
    for batch in (engine.histogram_batch(frames, extremes=True),
                  engine.histogram_batch(np.stack(frames), extremes=True, mode="luma"),
                  imghist.histogram_batch(frames, extremes=True, backend=backend, roi=(1, 1, 9, 9))):
        for frame, h in zip(frames, batch):
            x, y, w, hh = h.region
            assert_extremes(h, model_extremes(frame[y:y + hh, x:x + w], mode="luma" if h.channels == ("Y",) else "all"))
    assert_unknown(engine.histogram_batch(frames)[0])
    # The batch's sum: numpy's extremes of both frames' pixels.
    both = np.concatenate([f.reshape(-1, 3) for f in frames])[None]
    assert_extremes(engine.histogram_batch(frames, extremes=True).sum(), model_extremes(both))


def test_one_shot_call():
    image = mixed_image(np.float16, 13, 17, 4, seed=9)
    assert_extremes(imghist.histogram(image, extremes=True, backend="cpu", mode="luma"),
                    model_extremes(image, mode="luma"))


def needs_file_reader() -> None:
    """As test_files.py: skip without a file reader, unless IMGHIST_REQUIRE_IO=1 says it must be there."""
    if imghist.has_file_reader:
        return
    if os.environ.get("IMGHIST_REQUIRE_IO") == "1":
        pytest.fail("IMGHIST_REQUIRE_IO=1 but this imghist has no file reader (built without OpenImageIO)")
    pytest.skip("this imghist has no file reader (built without OpenImageIO)")


@pytest.fixture
def pfm_files(tmp_path):
    """Two PFM files (float32 RGB) holding the specials, and their pixels."""
    needs_file_reader()
    from test_files import _pfm

    paths, arrays = [], []
    for seed in (1, 2):
        pixels = mixed_image(np.float32, 9 + seed, 12, 3, seed)
        path = tmp_path / f"hdr{seed}.pfm"
        _pfm(path, pixels)
        np.testing.assert_array_equal(imghist.read(path), pixels)  # the file holds these samples
        paths.append(str(path))
        arrays.append(pixels)
    return paths, arrays


def test_files(pfm_files):
    paths, arrays = pfm_files
    engine = imghist.Engine("cpu")
    for path, pixels in zip(paths, arrays):
        assert_extremes(imghist.histogram_file(path, extremes=True, backend="cpu"), model_extremes(pixels))
        assert_extremes(engine.histogram_file(path, extremes=True, mode="luma"), model_extremes(pixels, mode="luma"))
        assert_unknown(imghist.histogram_file(path, backend="cpu"))
    run = imghist.histogram_files(paths, extremes=True, backend="cpu")
    for f in run:
        assert_extremes(f.histogram, model_extremes(arrays[f.index]))
    both = np.concatenate([a.reshape(-1, 3) for a in arrays])[None]
    assert_extremes(run.sum, model_extremes(both))
    assert_unknown(imghist.histogram_files(paths, backend="cpu").run().sum)


def test_dask_files(pfm_files):
    dask = pytest.importorskip("dask")
    import imghist.dask

    paths, arrays = pfm_files
    with dask.config.set(scheduler="sync"):
        result = imghist.dask.histogram_files(paths, client=None, partition_size=1, backend="cpu", extremes=True)
    both = np.concatenate([a.reshape(-1, 3) for a in arrays])[None]
    assert result.partitions == 2
    assert_extremes(result.sum, model_extremes(both))


@pytest.mark.parametrize("value", ["yes", 1, 0, None, 1.0, np.bool_(True)])
def test_extremes_must_be_a_bool(value):
    """As the other flags (clamp, alpha): anything but True / False is a TypeError."""
    image = np.zeros((2, 2), np.float32)
    calls = [lambda: imghist.histogram(image, extremes=value, backend="cpu"),
             lambda: imghist.Engine("cpu").histogram(image, extremes=value),
             lambda: imghist.histogram_batch([image], extremes=value, backend="cpu"),
             lambda: imghist.histogram_file("no-such-file.pfm", extremes=value, backend="cpu")]
    for call in calls:
        with pytest.raises(TypeError, match="extremes|incompatible"):
            call()


# ---------------------------------------------------------------- sums, dicts, pickle


def test_merge(backend):
    a = float_image("mixed", np.float32, backend, 4, seed=5)
    b = float_image("mixed", np.float32, backend, 4, seed=6)[:-3]  # another size: merging needs channels and bins
    engine = engine_for(backend)
    ha, hb = engine.histogram(a, extremes=True), engine.histogram(b, extremes=True)
    both = np.concatenate([a.reshape(-1, 4), b.reshape(-1, 4)])[None]
    assert_extremes(ha + hb, model_extremes(both))
    total = engine.histogram(b, extremes=True)
    total += ha
    assert_extremes(total, model_extremes(both))
    # Unknown on either side: unknown in the sum (never the known side's alone).
    assert_unknown(ha + engine.histogram(b))
    assert_unknown(engine.histogram(b) + ha)
    # Tiles merge tile by tile.
    a2 = float_image("mixed", np.float32, backend, 4, seed=7)
    tiled = engine.histogram(a, tiles=(2, 2), extremes=True) + engine.histogram(a2, tiles=(2, 2), extremes=True)
    height, width = a.shape[:2]
    for ty, (y, h) in enumerate(tile_bounds(0, height, 2)):
        for tx, (x, w) in enumerate(tile_bounds(0, width, 2)):
            pixels = np.concatenate([a[y:y + h, x:x + w].reshape(-1, 4), a2[y:y + h, x:x + w].reshape(-1, 4)])[None]
            assert_extremes(tiled.tile(tx, ty), model_extremes(pixels), f"tile ({tx}, {ty}) ")


def test_merge_keeps_a_channel_without_a_finite_sample():
    nan = np.full((3, 3), np.nan, np.float32)
    some = np.array([[np.nan, -np.inf, 4.0]], np.float32)
    total = imghist.histogram(nan, extremes=True, backend="cpu") + imghist.histogram(some, extremes=True, backend="cpu")
    assert_extremes(total, {"gray": extremes_of(np.concatenate([nan.ravel(), some.ravel()]))})
    assert (total["gray"].finite_min, total["gray"].negative_infinities) == (4.0, 1)


EYE = np.eye(23, 31, dtype=bool)


@pytest.mark.parametrize("kwargs, want", [
    (dict(), lambda image: model_extremes(image)),
    (dict(roi=(1, 2, 15, 11), tiles=(3, 2), mode="luma"), lambda image: model_extremes(image[2:13, 1:16], mode="luma")),
    (dict(mask=EYE, alpha=True), lambda image: model_extremes(image, mask=EYE, alpha=True)),
], ids=["whole", "roi-tiles", "mask"])
def test_dict_and_pickle_round_trips(kwargs, want):
    image = mixed_image(np.float16, 23, 31, 4, seed=11)
    h = imghist.histogram(image, extremes=True, backend="cpu", **kwargs)
    d = h.to_dict()
    back = imghist.Histogram.from_dict(json.loads(json.dumps(d)))
    assert back == h and back.to_dict() == d
    assert_extremes(back, want(image))
    for ty in range(h.tile_grid[1]):
        for tx in range(h.tile_grid[0]):
            assert back.tile(tx, ty) == h.tile(tx, ty)
    assert pickle.loads(pickle.dumps(h)) == h
    # Written only where known, after "above" and before "stats"; integral values as ints (the CLI's numbers).
    for channel in d["histograms"].values():
        keys = list(channel)
        assert keys[keys.index("above") + 1:keys.index("stats")] == list(FIELDS)
        for key in ("finite_min", "finite_max"):
            v = channel[key]
            assert v is None or (type(v) is int) == (float(v).is_integer() and abs(v) < 9.0e15)


def without_extremes(d):
    """A copy of a document with no value extremes, as older ones and --no-extremes write."""
    d = json.loads(json.dumps(d))
    for part in [d, *d.get("tiles", [])]:
        for channel in part["histograms"].values():
            for field in FIELDS:
                del channel[field]
    return d


def test_documents_without_them_read_back_as_unknown():
    image = mixed_image(np.float32, 8, 9, 3, seed=12)
    h = imghist.histogram(image, extremes=True, backend="cpu", tiles=(2, 2))
    old = imghist.Histogram.from_dict(without_extremes(h.to_dict()))
    assert_unknown(old)
    assert_unknown(old.tile(1, 0))
    assert old == imghist.histogram(image, backend="cpu", tiles=(2, 2))
    assert old != h


@pytest.mark.parametrize("change, message", [
    (dict(finite_min="0.5"), "finite_min"),
    (dict(finite_min=True), "finite_min"),
    (dict(finite_max=float("nan")), "finite_max"),
    (dict(finite_max=float("inf")), "finite_max"),
    (dict(finite_min=None), "both"),
    (dict(finite_min=2.0, finite_max=1.0), "min <= max"),
    (dict(positive_infinities=-1), "positive_infinities"),
    (dict(negative_infinities=1.5), "negative_infinities"),
    (dict(negative_infinities="DELETE"), "negative_infinities"),
    (dict(finite_max="DELETE"), "finite_max"),
])
def test_from_dict_refuses_bad_extremes(change, message):
    d = imghist.histogram(mixed_image(np.float32, 8, 9, 0, seed=13), extremes=True, backend="cpu").to_dict()
    channel = d["histograms"]["gray"]
    assert channel["finite_min"] is not None
    for key, value in change.items():
        if value == "DELETE":
            del channel[key]
        else:
            channel[key] = value
    with pytest.raises(imghist.InvalidArgument, match=message):
        imghist.Histogram.from_dict(d)


# ---------------------------------------------------------------- CUDA


@pytest.mark.parametrize("producer", ["torch", "cupy"])
def test_cuda_arrays_have_no_extremes_and_say_so(producer):
    to_device = cuda_producer(producer)
    image = mixed_image(np.float32, 21, 19, 3, seed=14)
    got = imghist.histogram(to_device(image), extremes=True)
    assert got.backend == "cuda"
    assert_unknown(got)
    assert "value extremes are found for images in host memory only" in got.notes
    batch = imghist.histogram_batch([to_device(image), to_device(image)], extremes=True)
    assert all("value extremes are found for images in host memory only" in h.notes for h in batch)
    # Host images on the CUDA engine do get them, in a batch too.
    engine = imghist.Engine("cuda")
    assert_extremes(engine.histogram(image, extremes=True), model_extremes(image))
    for h in engine.histogram_batch([image, image], extremes=True):
        assert_extremes(h, model_extremes(image))
