"""mask= and alpha_threshold= (docs/semantics.md, "Masks and alpha"), checked against numpy.

The expected numbers come from numpy alone: the contract model (contract_model.py) counts the
pixels numpy selects, image[mask != 0] and image[alpha > T] (contract_model.selection), and the
counted pixels are np.count_nonzero of that selection. The pixels a selection drops hold the
samples that would show if they were counted (NaN and +-Inf for floats, 0 and the top value for
integers), so a dropped pixel that is counted changes nan, below, above or the clipping counts.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import images
from contract_model import model_histogram, selection, tile_bounds
from fake_dlpack import CPU, CUDA, FakeDeviceArray
from kept_engines import engine_for
from test_regions import cuda_producer

import imghist

# format -> (dtype, channels; 0 is an (H, W) gray array)
FORMATS = {
    "gray8": (np.uint8, 0),
    "rgb8": (np.uint8, 3),
    "rgba8": (np.uint8, 4),
    "rgba16": (np.uint16, 4),
    "rgba_f16": (np.float16, 4),
    "rgba_f32": (np.float32, 4),
}
FIELDS = ("counts", "nan", "below", "above", "clipped_low", "clipped_high")


def image_of(fmt: str, height: int = 29, width: int = 37, seed: int = 1) -> np.ndarray:
    dtype, channels = FORMATS[fmt]
    return images.make_image("random", dtype, height, width, channels, seed)


def random_mask(shape, dtype, seed: int, density: float = 0.5) -> np.ndarray:
    """A seeded mask: bool, or uint8 whose set pixels hold 1, 2, 128 or 255 (non-zero counts, not just 1)."""
    rng = np.random.default_rng([seed, *shape])
    keep = rng.random(shape) < density
    if dtype is bool:
        return keep
    return np.where(keep, rng.choice(np.array([1, 2, 128, 255]), shape), 0).astype(np.uint8)


def poison(image: np.ndarray, dropped: np.ndarray, seed: int, samples=slice(None)) -> np.ndarray:
    """A copy with the extreme samples in every dropped pixel (only `samples` of them), and for
    floats NaN in some kept pixels too, so that the kept ones have a NaN count to get right."""
    out = image.copy()
    rng = np.random.default_rng(seed)
    pixels = out.reshape(out.shape[0], out.shape[1], -1)
    chosen = pixels[:, :, samples]
    if np.issubdtype(out.dtype, np.floating):
        specials = np.array([np.nan, np.inf, -np.inf], out.dtype)
        chosen[dropped] = specials[rng.integers(0, 3, chosen[dropped].shape)]
        some_kept = ~dropped & (rng.random(dropped.shape) < 0.1)
        chosen[some_kept, 0] = np.nan
    else:
        top = np.iinfo(out.dtype).max
        chosen[dropped] = rng.choice(np.array([0, top], out.dtype), chosen[dropped].shape)
    pixels[:, :, samples] = chosen
    return out


def assert_like_model(got, want, device: bool = False) -> None:
    """got against want; `device`: got was counted from device memory, whose results carry only
    the clipping counts the histogram proves (the others are None)."""
    assert got.channels == want.channels
    for field in FIELDS:
        if device and field.startswith("clipped") and getattr(got, field) is None:
            continue
        np.testing.assert_array_equal(np.asarray(getattr(got, field)), getattr(want, field), err_msg=field)
    assert got.counted_pixels == want.counted_pixels


def alpha_of(fmt: str) -> bool:
    return FORMATS[fmt][1] == 4


# ---------------------------------------------------------------- masks


@pytest.mark.parametrize("mask_dtype", [bool, np.uint8], ids=["bool", "uint8"])
@pytest.mark.parametrize("mode", ["rgb", "luma", "all"])
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_mask_against_numpy(backend, fmt, mode, mask_dtype):
    plain = image_of(fmt, seed=2)
    mask = random_mask(plain.shape[:2], mask_dtype, seed=3)
    image = poison(plain, mask == 0, seed=4)
    got = engine_for(backend).histogram(image, mask=mask, mode=mode, alpha=alpha_of(fmt))
    want = model_histogram(image, mask=mask, mode=mode, alpha=alpha_of(fmt))
    assert_like_model(got, want)
    assert got.counted_pixels == np.count_nonzero(mask) > 0
    assert got.region == (0, 0, image.shape[1], image.shape[0])  # the region is the image; the mask selects in it
    # Every counted sample is in a bin or a counter, and no dropped one is.
    if not got.closed_top:
        np.testing.assert_array_equal(got.counts.sum(axis=1) + got.nan + got.below + got.above,
                                      [got.counted_pixels] * len(got.channels))
    if np.issubdtype(image.dtype, np.floating) and "R" in got:  # the NaN of the kept pixels only
        kept = image[mask != 0]
        assert got["R"].nan == np.count_nonzero(np.isnan(kept[:, 0])) > 0


@pytest.mark.parametrize("fmt", ["gray8", "rgba16", "rgba_f32"])
def test_all_zero_mask_counts_nothing(backend, fmt):
    plain = image_of(fmt, seed=5)
    image = poison(plain, np.ones(plain.shape[:2], bool), seed=6)
    mask = np.zeros(image.shape[:2], np.uint8)
    got = engine_for(backend).histogram(image, mask=mask)
    assert got.counted_pixels == 0
    for field in FIELDS:
        assert not np.asarray(getattr(got, field)).any(), field
    assert_like_model(got, model_histogram(image, mask=mask))


def test_mask_of_ones_equals_no_mask(backend):
    image = image_of("rgba8", seed=7)
    e = engine_for(backend)
    got = e.histogram(image, mask=np.ones(image.shape[:2], bool), alpha=True)
    plain = e.histogram(image, alpha=True)
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(got, field), getattr(plain, field), err_msg=field)
    assert got.counted_pixels == image.shape[0] * image.shape[1] and plain.counted_pixels is None


def strided_masks(mask: np.ndarray) -> dict:
    """Views of the same mask values laid out in other ways than packed rows."""
    h, w = mask.shape
    big = np.zeros((2 * h + 3, 3 * w + 5), mask.dtype)
    big[3::2, 1::3][:h, :w] = mask
    rows = np.zeros((h + 4, w + 9), mask.dtype)
    rows[2:2 + h, 3:3 + w] = mask
    planes = np.zeros((h, w, 4), mask.dtype)
    planes[:, :, 3] = mask
    return {
        "every-other-row-and-third-column": big[3::2, 1::3][:h, :w],
        "rows-of-a-wider-array": rows[2:2 + h, 3:3 + w],  # packed pixels, row stride beyond the width
        "one-channel-of-an-image": planes[:, :, 3],
        "rows-backwards": np.ascontiguousarray(mask[::-1])[::-1],
        "fortran-order": np.asfortranarray(mask),
    }


@pytest.mark.parametrize("mask_dtype", [bool, np.uint8], ids=["bool", "uint8"])
def test_strided_masks(backend, mask_dtype):
    plain = image_of("rgba8", seed=8)
    mask = random_mask(plain.shape[:2], mask_dtype, seed=9)
    image = poison(plain, mask == 0, seed=10)
    want = model_histogram(image, mask=mask)
    for name, view in strided_masks(mask).items():
        np.testing.assert_array_equal(view, mask)
        assert_like_model(engine_for(backend).histogram(image, mask=view), want)


def test_a_mask_for_a_strided_image(backend):
    base = image_of("rgba_f32", 50, 60, seed=11)
    mask = random_mask((42, 48), bool, seed=12)
    base[5:-3, 7:-5] = poison(base[5:-3, 7:-5], ~mask, seed=13)
    view = base[5:-3, 7:-5]  # the mask's (0, 0) is the view's first pixel
    assert_like_model(engine_for(backend).histogram(view, mask=mask), model_histogram(view, mask=mask))


def test_a_dlpack_host_mask_is_read_like_numpys():
    image = image_of("rgb8", seed=14)
    mask = random_mask(image.shape[:2], np.uint8, seed=15)
    fake = FakeDeviceArray(mask.shape, np.uint8, device_type=CPU, address=mask.ctypes.data)
    got = imghist.histogram(image, mask=fake, backend="cpu")
    assert_like_model(got, model_histogram(image, mask=mask))


def test_a_mask_with_bgra_layout():
    image = image_of("rgba8", seed=16)
    mask = random_mask(image.shape[:2], bool, seed=17)
    got = imghist.histogram(image, mask=mask, layout="bgra", alpha=True, backend="cpu")
    assert_like_model(got, model_histogram(image, mask=mask, layout="bgra", alpha=True))


# ---------------------------------------------------------------- roi and tiles


@pytest.mark.parametrize("fmt", ["rgba8", "rgba_f32"])
def test_mask_with_roi_and_tiles(backend, fmt):
    plain = image_of(fmt, 41, 47, seed=18)
    mask = random_mask(plain.shape[:2], np.uint8, seed=19, density=0.4)
    image = poison(plain, mask == 0, seed=20)
    roi, tiles = (3, 5, 23, 17), (3, 4)
    got = engine_for(backend).histogram(image, mask=mask, roi=roi, tiles=tiles, mode="luma")
    x, y, w, h = roi
    assert_like_model(got, model_histogram(image[y:y + h, x:x + w], mask=mask[y:y + h, x:x + w], mode="luma"))
    assert got.counted_pixels == np.count_nonzero(mask[y:y + h, x:x + w])
    counted = np.zeros((tiles[1], tiles[0]), np.uint64)
    for ty, (y0, th) in enumerate(tile_bounds(y, h, tiles[1])):
        for tx, (x0, tw) in enumerate(tile_bounds(x, w, tiles[0])):
            part = (slice(y0, y0 + th), slice(x0, x0 + tw))
            want = model_histogram(image[part], mask=mask[part], mode="luma")
            tile = got.tile(tx, ty)
            assert tile.region == (x0, y0, tw, th)
            assert_like_model(tile, want)
            np.testing.assert_array_equal(got.tile_counts[ty, tx], want.counts)
            counted[ty, tx] = np.count_nonzero(mask[part])
    assert got.tile_counted_pixels.dtype == np.uint64
    np.testing.assert_array_equal(got.tile_counted_pixels, counted)
    assert got.tile_counted_pixels.sum() == got.counted_pixels


def test_mask_with_a_roi_only(backend):
    image = image_of("gray8", seed=21)
    mask = random_mask(image.shape[:2], bool, seed=22)
    got = engine_for(backend).histogram(image, mask=mask, roi=(2, 3, 20, 11))
    assert_like_model(got, model_histogram(image[3:14, 2:22], mask=mask[3:14, 2:22]))
    assert got.tile_counted_pixels.shape == (1, 1) and got.tile_counted_pixels[0, 0] == got.counted_pixels
    assert got.tile(0, 0).counted_pixels == got.counted_pixels


def test_without_a_selection_nothing_is_counted_apart():
    h = imghist.histogram(image_of("rgba8"), backend="cpu", tiles=(2, 2))
    assert h.counted_pixels is None and h.tile_counted_pixels is None and h.tile(1, 1).counted_pixels is None
    d = h.to_dict()
    assert "counted_pixels" not in d and all("counted_pixels" not in t for t in d["tiles"])
    assert "counted=" not in repr(h)


# ---------------------------------------------------------------- alpha thresholds


def rgba8_with_every_alpha(seed: int) -> np.ndarray:
    image = image_of("rgba8", 16, 40, seed=seed)
    image[:, :, 3] = np.random.default_rng(seed).permutation(np.arange(16 * 40) % 256).reshape(16, 40)
    return image


@pytest.mark.parametrize("threshold", [127.5, 128, -1, 255, 0, 254.5, 1e300, -np.inf])
def test_alpha_threshold_8bit(backend, threshold):
    image = rgba8_with_every_alpha(seed=23)
    alpha = image[:, :, 3]
    image = poison(image, ~(alpha > threshold), seed=24, samples=slice(0, 3))  # colour only: alpha selects
    got = engine_for(backend).histogram(image, alpha_threshold=threshold, alpha=True)
    assert_like_model(got, model_histogram(image, alpha_threshold=threshold, alpha=True))
    assert got.counted_pixels == np.count_nonzero(alpha > threshold)
    if threshold == 128:  # equal to the threshold is not above it
        assert got.counted_pixels == np.count_nonzero(alpha >= 128) - np.count_nonzero(alpha == 128)
        assert got["A"].counts[128] == 0 and got["A"].counts[129] == np.count_nonzero(alpha == 129) > 0


@pytest.mark.parametrize("threshold", [127, 127.5])
def test_alpha_threshold_bgra8(threshold):
    image = rgba8_with_every_alpha(seed=25)
    got = imghist.histogram(image, layout="bgra", alpha_threshold=threshold, backend="cpu")
    assert_like_model(got, model_histogram(image, layout="bgra", alpha_threshold=threshold))


@pytest.mark.parametrize("threshold", [0, 32767.5, 65534, 65535, -0.5, 1000])
def test_alpha_threshold_16bit(backend, threshold):
    image = image_of("rgba16", seed=26)
    image[0, :4, 3] = [0, 1000, 65534, 65535]  # the edges of the thresholds
    image = poison(image, ~(image[:, :, 3] > threshold), seed=27, samples=slice(0, 3))
    got = engine_for(backend).histogram(image, alpha_threshold=threshold, alpha=True, mode="rgb")
    assert_like_model(got, model_histogram(image, alpha_threshold=threshold, alpha=True, mode="rgb"))
    assert got.counted_pixels == np.count_nonzero(image[:, :, 3] > threshold)


FLOAT_ALPHAS = [np.nan, np.inf, -np.inf, 0.5, 0.0, -0.0, 1.0, 2.0**-20, -(2.0**-20), 0.25]


@pytest.mark.parametrize("threshold", [0.5, 0, -np.inf, 1.0, np.float32(0.25), -1e-30])
@pytest.mark.parametrize("fmt", ["rgba_f16", "rgba_f32"])
def test_alpha_threshold_float(backend, fmt, threshold):
    image = image_of(fmt, seed=28)
    rng = np.random.default_rng(29)
    alphas = np.array(FLOAT_ALPHAS, image.dtype)
    image[:, :, 3] = np.where(rng.random(image.shape[:2]) < 0.6, alphas[rng.integers(0, len(alphas), image.shape[:2])],
                              image[:, :, 3])
    alpha = image[:, :, 3].astype(np.float64)
    image = poison(image, ~(alpha > float(threshold)), seed=30, samples=slice(0, 3))
    got = engine_for(backend).histogram(image, alpha_threshold=threshold, alpha=True)
    assert_like_model(got, model_histogram(image, alpha_threshold=threshold, alpha=True))
    assert got.counted_pixels == np.count_nonzero(alpha > float(threshold))
    assert got["A"].nan == 0  # NaN alpha is never above a threshold
    if threshold == -np.inf:
        assert got.counted_pixels == np.count_nonzero(~np.isnan(alpha) & (alpha != -np.inf))
    if threshold == 0.5:  # 0.5 itself is not above 0.5
        assert np.count_nonzero(alpha == 0.5) > 0
        assert got.counted_pixels == np.count_nonzero(alpha >= 0.5) - np.count_nonzero(alpha == 0.5)


@pytest.mark.parametrize("fmt", ["rgba8", "rgba_f32"])
def test_mask_and_alpha_threshold_together(backend, fmt):
    image = image_of(fmt, 33, 27, seed=31)
    threshold = 100 if fmt == "rgba8" else 0.4
    mask = random_mask(image.shape[:2], np.uint8, seed=32)
    keep = selection(image, 3, mask, threshold)
    assert keep.any() and (keep != (mask != 0)).any() and (keep != (image[:, :, 3] > threshold)).any()
    image = poison(image, ~keep, seed=33, samples=slice(0, 3))
    got = engine_for(backend).histogram(image, mask=mask, alpha_threshold=threshold, tiles=(2, 3))
    assert_like_model(got, model_histogram(image, mask=mask, alpha_threshold=threshold))
    assert got.counted_pixels == np.count_nonzero((mask != 0) & (image[:, :, 3] > threshold))


# ---------------------------------------------------------------- one-shot, batch and files


def test_one_shot_equals_the_engines():
    image = image_of("rgba8", seed=34)
    mask = random_mask(image.shape[:2], bool, seed=35)
    a = imghist.histogram(image, mask=mask, alpha_threshold=64, backend="cpu")
    assert a == imghist.Engine("cpu").histogram(image, mask=mask, alpha_threshold=64)
    assert f"counted={a.counted_pixels}" in repr(a)


def test_batch_with_a_mask(backend):
    e = engine_for(backend)
    frames = np.stack([image_of("rgba8", seed=s) for s in (36, 37, 38)])
    mask = random_mask(frames.shape[1:3], np.uint8, seed=39)
    for batch in (e.histogram_batch(frames, mask=mask, alpha_threshold=30, tiles=(2, 2)),
                  imghist.histogram_batch(list(frames), mask=mask, alpha_threshold=30, backend=backend)):
        assert len(batch) == 3
        for frame, got in zip(frames, batch):
            assert_like_model(got, model_histogram(frame, mask=mask, alpha_threshold=30))
        total = batch.sum()
        assert total.counted_pixels == sum(np.count_nonzero((mask != 0) & (f[:, :, 3] > 30)) for f in frames)


def test_batch_image_of_another_size_than_the_mask_names_it():
    frames = [image_of("gray8", seed=40), image_of("gray8", 29, 36, seed=41)]
    with pytest.raises(imghist.InvalidArgument, match=r"images\[1\]: .*a mask must be the image's size"):
        imghist.histogram_batch(frames, mask=np.ones((29, 37), bool), backend="cpu")


@pytest.mark.skipif(not imghist.has_file_reader, reason="built without imghist::io")
def test_files_take_a_mask_and_an_alpha_threshold(tmp_path):
    image = image_of("gray8", 16, 18, seed=42)
    path, small = tmp_path / "gray.pgm", tmp_path / "small.pgm"
    path.write_bytes(b"P5 18 16 255\n" + image.tobytes())
    small.write_bytes(b"P5 17 16 255\n" + image[:, :17].tobytes())
    mask = random_mask(image.shape, bool, seed=43)
    want = model_histogram(image, mask=mask)
    h = imghist.histogram_file(path, mask=mask, backend="cpu")
    assert_like_model(h, want)
    assert imghist.Engine("cpu").histogram_file(path, mask=mask) == h
    run = imghist.histogram_files([path, small, path], mask=mask, tiles=(2, 2), backend="cpu").run()
    assert run.counted == 2 and run.failed == 1
    assert run.errors[0][0] == str(small) and "a mask must be the image's size" in run.errors[0][1]
    np.testing.assert_array_equal(run.sum.counts, 2 * want.counts)
    assert run.sum.counted_pixels == 2 * np.count_nonzero(mask)
    gray = imghist.histogram_files([path], alpha_threshold=10, backend="cpu").run()
    assert gray.failed == 1 and "alpha" in gray.errors[0][1]
    with pytest.raises(imghist.InvalidArgument, match="need decode='cpu'"):
        imghist.histogram_files([path], mask=mask, decode="gpu")
    with pytest.raises(imghist.InvalidArgument, match="mask dtype float32"):
        imghist.histogram_files([path], mask=mask.astype(np.float32), backend="cpu").run()


@pytest.mark.skipif(not imghist.has_file_reader, reason="built without imghist::io")
def test_dask_sends_the_mask_to_every_task(tmp_path):
    import dask
    import imghist.dask

    image = image_of("gray8", 12, 10, seed=49)
    mask = random_mask(image.shape, np.uint8, seed=50)
    paths = []
    for i in range(5):
        paths.append(tmp_path / f"f{i}.pgm")
        paths[-1].write_bytes(b"P5 10 12 255\n" + image.tobytes())
    paths.insert(3, tmp_path / "other.pgm")
    paths[3].write_bytes(b"P5 12 10 255\n" + image.tobytes())
    with dask.config.set(scheduler="sync"):  # Dask's own scheduler, in this process
        result = imghist.dask.histogram_files(paths, partition_size=2, backend="cpu", mask=mask)
    assert result.partitions == 3 and [path for path, _ in result.errors] == [str(paths[3])]
    np.testing.assert_array_equal(result.sum.counts, 5 * model_histogram(image, mask=mask).counts)
    assert result.sum.counted_pixels == 5 * np.count_nonzero(mask)


# ---------------------------------------------------------------- errors


def both_calls(image, **keywords):
    """The one-shot function and an Engine's method, each raising the same error."""
    return [lambda: imghist.histogram(image, backend="cpu", **keywords),
            lambda: imghist.Engine("cpu").histogram(image, **keywords)]


@pytest.mark.parametrize("mask,match", [
    (np.ones((29, 36), bool), r"the mask is 36 x 29 pixels, the image 37 x 29: a mask must be the image's size"),
    (np.ones((37, 29), np.uint8), r"the mask is 29 x 37 pixels"),
    (np.ones((29, 37), np.float32), r"mask dtype float32 is not supported: a mask is a 2-D uint8 or bool array"),
    (np.ones((29, 37), np.uint16), r"mask dtype uint16 is not supported"),
    (np.ones((29, 37), np.int8), r"mask dtype int8 is not supported"),
    (np.ones((29, 37, 1), np.uint8), r"mask shape \(29, 37, 1\) is not 2-D"),
    (np.ones(29 * 37, bool), r"mask shape \(1073,\) is not 2-D"),
    ([[1] * 37] * 29, r"mask must be None or an array"),
    ("mask", r"mask must be None or an array"),
    (np.ones((0, 37), np.uint8), r"mask shape \(0, 37\) is empty"),
])
def test_bad_masks(mask, match):
    for call in both_calls(image_of("rgb8"), mask=mask):
        with pytest.raises(imghist.InvalidArgument, match=match):
            call()


@pytest.mark.parametrize("threshold,match", [
    (float("nan"), "alpha_threshold is NaN"),
    (np.float32("nan"), "alpha_threshold is NaN"),
    ("128", "alpha_threshold must be a number"),
    (True, "alpha_threshold must be a number"),
    ((1, 2), "alpha_threshold must be a number"),
])
def test_bad_alpha_thresholds(threshold, match):
    for call in both_calls(image_of("rgba8"), alpha_threshold=threshold):
        with pytest.raises(imghist.InvalidArgument, match=match):
            call()


@pytest.mark.parametrize("fmt", ["gray8", "rgb8", "rgba_f32"])
def test_alpha_threshold_needs_alpha(fmt):
    image = image_of(fmt)[..., :3] if fmt == "rgba_f32" else image_of(fmt)
    for call in both_calls(np.ascontiguousarray(image), alpha_threshold=10):
        with pytest.raises(imghist.InvalidArgument, match="needs a format with alpha"):
            call()


def test_a_cuda_mask_is_refused():
    image = image_of("rgb8")
    fake = FakeDeviceArray(image.shape[:2], np.uint8, device_type=CUDA)
    for call in both_calls(image, mask=fake):
        with pytest.raises(imghist.InvalidArgument, match="mask: the array lives on CUDA device 0 but the image in "
                                                          "host memory: a host image takes a host mask"):
            call()
    assert fake.exports == 0  # refused from __dlpack_device__, never exported


@pytest.mark.parametrize("producer", ["torch", "cupy"])
def test_cuda_images_take_an_alpha_threshold_but_not_a_host_mask(producer):
    to_device = cuda_producer(producer)
    image = image_of("rgba_f32")
    want = imghist.histogram(image, alpha_threshold=0.5, mode="all", backend="cpu")
    assert 0 < want.counted_pixels < image.shape[0] * image.shape[1]
    got = imghist.histogram(to_device(image), alpha_threshold=0.5, mode="all")
    assert got.backend == "cuda"
    assert_like_model(got, want, device=True)
    for h in imghist.histogram_batch([to_device(image), to_device(image)], alpha_threshold=0.5, mode="all"):
        assert_like_model(h, want, device=True)
    mask = np.ones(image.shape[:2], bool)
    with pytest.raises(imghist.InvalidArgument, match="mask: the image lives on CUDA device 0 but the mask in host"):
        imghist.histogram(to_device(image), mask=mask)
    with pytest.raises(imghist.InvalidArgument, match="mask: the image lives on CUDA device 0 but the mask in host"):
        imghist.histogram_batch([to_device(image), to_device(image)], mask=mask)


@pytest.mark.parametrize("mask_dtype", [bool, np.uint8], ids=["bool", "uint8"])
@pytest.mark.parametrize("fmt", ["gray8", "rgb8", "rgba8", "rgba16", "rgba_f16", "rgba_f32"])
@pytest.mark.parametrize("producer", ["torch", "cupy"])
def test_cuda_masks_against_numpy(producer, fmt, mask_dtype):
    to_device = cuda_producer(producer)
    plain = image_of(fmt, seed=61)
    mask = random_mask(plain.shape[:2], mask_dtype, seed=62)
    image = poison(plain, mask == 0, seed=63)
    got = imghist.histogram(to_device(image), mask=to_device(mask), mode="all", alpha=alpha_of(fmt))
    assert got.backend == "cuda"
    assert_like_model(got, model_histogram(image, mask=mask, mode="all", alpha=alpha_of(fmt)), device=True)
    assert got.counted_pixels == np.count_nonzero(mask) > 0
    if alpha_of(fmt):  # both: the pixels the mask keeps whose alpha is above the threshold
        threshold = 0.25 if np.issubdtype(image.dtype, np.floating) else 100
        both = imghist.histogram(to_device(image), mask=to_device(mask), alpha_threshold=threshold)
        want_both = imghist.histogram(image, mask=mask, alpha_threshold=threshold, backend="cpu")
        assert_like_model(both, want_both, device=True)
        assert both.counted_pixels == np.count_nonzero(selection(image, 3, mask, threshold))


@pytest.mark.parametrize("producer", ["torch", "cupy"])
def test_cuda_masks_with_regions_batches_and_bad_layouts(producer):
    to_device = cuda_producer(producer)
    image = image_of("rgba8", 40, 45, seed=64)
    mask = random_mask(image.shape[:2], np.uint8, seed=65)
    host = imghist.histogram(image, mask=mask, roi=(2, 3, 40, 33), tiles=(3, 2), backend="cpu")
    got = imghist.histogram(to_device(image), mask=to_device(mask), roi=(2, 3, 40, 33), tiles=(3, 2))
    assert_like_model(got, host, device=True)
    assert got.region == host.region
    np.testing.assert_array_equal(got.tile_counts, host.tile_counts)
    np.testing.assert_array_equal(got.tile_counted_pixels, host.tile_counted_pixels)
    batch = imghist.histogram_batch([to_device(image), to_device(image)], mask=to_device(mask))
    want = imghist.histogram(image, mask=mask, backend="cpu")
    for h in batch:
        assert_like_model(h, want, device=True)
    # A mask of another size, and one whose rows are not contiguous, are refused by name.
    with pytest.raises(imghist.InvalidArgument, match="must be the image's size"):
        imghist.histogram(to_device(image), mask=to_device(mask[:-1]))
    with pytest.raises(imghist.InvalidArgument, match="rows must be contiguous"):
        imghist.histogram(to_device(image), mask=to_device(np.ones((45, 40), np.uint8)).T)


# ---------------------------------------------------------------- to_dict / from_dict, merge


def test_dict_round_trip_with_counted_pixels():
    image = image_of("rgba8", 20, 24, seed=44)
    mask = random_mask(image.shape[:2], np.uint8, seed=45)
    h = imghist.histogram(image, mask=mask, alpha_threshold=50, roi=(2, 3, 17, 13), tiles=(3, 2), backend="cpu")
    d = h.to_dict()
    keys = list(d)
    assert keys.index("histograms") < keys.index("counted_pixels") < keys.index("region") < keys.index("tiles")
    keep = selection(image, 3, mask, 50)
    assert d["counted_pixels"] == np.count_nonzero(keep[3:16, 2:19])
    assert [list(t) for t in d["tiles"]] == [["region", "counted_pixels", "histograms"]] * 6
    first = d["tiles"][0]["region"]
    assert d["tiles"][0]["counted_pixels"] == np.count_nonzero(
        keep[first["y"]:first["y"] + first["height"], first["x"]:first["x"] + first["width"]])
    assert [t["counted_pixels"] for t in d["tiles"]] == h.tile_counted_pixels.ravel().tolist()
    back = imghist.Histogram.from_dict(d)
    assert back == h and back.counted_pixels == h.counted_pixels
    np.testing.assert_array_equal(back.tile_counted_pixels, h.tile_counted_pixels)
    assert pickle.loads(pickle.dumps(h)) == h
    untiled = imghist.histogram(image, mask=mask, backend="cpu")
    assert untiled.to_dict()["counted_pixels"] == np.count_nonzero(mask) and "tiles" not in untiled.to_dict()
    assert imghist.Histogram.from_dict(untiled.to_dict()) == untiled


def test_from_dict_without_counted_pixels_has_none():
    masked = imghist.histogram(image_of("gray8"), mask=random_mask((29, 37), bool, seed=46), backend="cpu")
    d = masked.to_dict()
    del d["counted_pixels"]
    back = imghist.Histogram.from_dict(d)
    assert back.counted_pixels is None and back.tile_counted_pixels is None and back != masked


@pytest.mark.parametrize("value", ["7", -1, 1.5, None])
def test_from_dict_refuses_a_bad_counted_pixels(value):
    d = imghist.histogram(image_of("gray8"), mask=np.ones((29, 37), bool), backend="cpu").to_dict()
    with pytest.raises(imghist.InvalidArgument, match="counted_pixels"):
        imghist.Histogram.from_dict({**d, "counted_pixels": value})


def test_merge_adds_counted_pixels():
    image = image_of("rgba8", 20, 24, seed=47)
    mask = random_mask(image.shape[:2], bool, seed=48)
    e = engine_for("cpu")
    masked = e.histogram(image, mask=mask, tiles=(2, 2))
    plain = e.histogram(image, tiles=(2, 2))
    total = masked + masked
    assert total.counted_pixels == 2 * np.count_nonzero(mask)
    np.testing.assert_array_equal(total.tile_counted_pixels, 2 * masked.tile_counted_pixels)
    mixed = masked + plain  # a side without a selection counted its whole region
    assert mixed.counted_pixels == np.count_nonzero(mask) + 20 * 24
    np.testing.assert_array_equal(mixed.tile_counted_pixels, masked.tile_counted_pixels + 10 * 12)
    np.testing.assert_array_equal(mixed.counts, masked.counts + plain.counts)
