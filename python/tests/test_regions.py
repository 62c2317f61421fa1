"""roi= and tiles= (docs/semantics.md, "Regions and tiles"), checked against numpy.

The expected counts come from numpy alone: the contract model (contract_model.py) of the sliced
array for a roi, and of each tile's slice for tiles, the tiles cut with the document's rule
(along a side of L pixels in n tiles every tile is L // n pixels, the last also takes the
remainder: contract_model.tile_bounds), not with the library's.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import images
from contract_model import model_histogram, tile_bounds
from kept_engines import engine_for

import imghist


def expected_tiles(image: np.ndarray, roi, tiles, **request) -> tuple:
    """(counts of shape (ty, tx, channels, bins), [(x, y, w, h)] row by row) of the model."""
    height, width = image.shape[:2]
    x, y, w, h = roi if roi is not None else (0, 0, width, height)
    cols, rows = tile_bounds(x, w, tiles[0]), tile_bounds(y, h, tiles[1])
    counts, regions = [], []
    for ty0, th in rows:
        row = []
        for tx0, tw in cols:
            row.append(model_histogram(image[ty0:ty0 + th, tx0:tx0 + tw], **request).counts)
            regions.append((tx0, ty0, tw, th))
        counts.append(np.stack(row))
    return np.stack(counts), regions


def rgb8(backend: str, height: int = 37, width: int = 53, channels: int = 3, seed: int = 1) -> np.ndarray:
    """A small seeded uint8 image (the same size on every backend: these images are tiny)."""
    return images.make_image("random", np.uint8, height, width, channels, seed)


# ---------------------------------------------------------------- roi


def test_roi_rgb8_is_the_sliced_arrays_bincount(backend):
    image = rgb8(backend)
    x, y, w, h = 3, 2, 7, 5
    got = engine_for(backend).histogram(image, roi=(x, y, w, h))
    crop = image[y:y + h, x:x + w]
    assert got.channels == ("R", "G", "B", "Y")
    for c in range(3):  # plain numpy for R, G, B
        np.testing.assert_array_equal(got.counts[c], np.bincount(crop[:, :, c].ravel(), minlength=256))
    np.testing.assert_array_equal(got.counts, model_histogram(crop).counts)  # Y from the model
    assert got.counts.sum(axis=1).tolist() == [w * h] * 4
    assert got.region == (x, y, w, h)
    assert (got.width, got.height) == (image.shape[1], image.shape[0])
    assert got.tile_grid == (1, 1)
    np.testing.assert_array_equal(got.tile_counts, got.counts[None, None])


def test_roi_gray8(backend):
    image = rgb8(backend, channels=0, seed=2)
    roi = (1, 4, image.shape[1] - 1, image.shape[0] - 4)  # up to the right and bottom edges
    got = engine_for(backend).histogram(image, roi=roi)
    crop = image[4:, 1:]
    assert got.channels == ("gray",)
    np.testing.assert_array_equal(got.counts[0], np.bincount(crop.ravel(), minlength=256))


@pytest.mark.parametrize("mode,weights", [("luma", "rec709"), ("all", "rec601"), ("rgb", "rec709")])
def test_roi_modes(backend, mode, weights):
    image = rgb8(backend, channels=4, seed=3)
    got = engine_for(backend).histogram(image, roi=(2, 1, 6, 7), mode=mode, weights=weights, alpha=True)
    want = model_histogram(image[1:8, 2:8], mode=mode, weights=weights, alpha=True)
    assert got.channels == want.channels
    np.testing.assert_array_equal(got.counts, want.counts)


@pytest.mark.parametrize("spec", [dict(), dict(bins=37, range=(0.1, 0.9)), dict(bins=10, range=(0.2, 0.6), clamp=True)])
def test_roi_float32_with_bins_and_range(backend, spec):
    h, w = 40, 50
    image = images.make_image("random", np.float32, h, w, 3, seed=4)
    roi = (5, 3, w - 9, h - 6)
    got = engine_for(backend).histogram(image, roi=roi, **spec)
    want = model_histogram(image[3:h - 3, 5:w - 4], **spec)
    np.testing.assert_array_equal(got.counts, want.counts)
    np.testing.assert_array_equal(got.below, want.below)
    np.testing.assert_array_equal(got.above, want.above)
    np.testing.assert_array_equal(got.nan, want.nan)


def test_roi_of_a_strided_view(backend):
    image = rgb8(backend, 60, 70)[5:-3, 7:-5]
    got = engine_for(backend).histogram(image, roi=(2, 3, 9, 4))
    np.testing.assert_array_equal(got.counts, model_histogram(image[3:7, 2:11]).counts)


def test_whole_image_roi_equals_no_roi(backend):
    image = rgb8(backend)
    e = engine_for(backend)
    whole = e.histogram(image, roi=(0, 0, image.shape[1], image.shape[0]))
    plain = e.histogram(image)
    np.testing.assert_array_equal(whole.counts, plain.counts)
    assert whole.region == plain.region == (0, 0, image.shape[1], image.shape[0])
    assert "region" not in plain.to_dict() and "region" not in whole.to_dict()


# ---------------------------------------------------------------- tiles


@pytest.mark.parametrize("tiles", [(2, 1), (1, 3), (3, 2), (4, 5)])
def test_tiles_rgb8_against_each_tiles_slice(backend, tiles):
    image = rgb8(backend, 37, 53, seed=5)
    got = engine_for(backend).histogram(image, tiles=tiles)
    want, regions = expected_tiles(image, None, tiles)
    assert got.tile_grid == tiles
    assert got.tile_counts.shape == (tiles[1], tiles[0], 4, 256)
    assert got.tile_counts.dtype == np.uint64
    np.testing.assert_array_equal(got.tile_counts, want)
    np.testing.assert_array_equal(got.tile_counts.sum(axis=(0, 1)), got.counts)
    np.testing.assert_array_equal(got.counts, model_histogram(image).counts)
    assert got.region == (0, 0, image.shape[1], image.shape[0])
    assert got.tile_regions == regions
    for ty in range(tiles[1]):
        for tx in range(tiles[0]):
            t = got.tile(tx, ty)
            assert t.region == regions[ty * tiles[0] + tx]
            np.testing.assert_array_equal(t.counts, want[ty, tx])
            assert t.tile_grid == (1, 1)
            assert (t.width, t.height, t.format, t.backend) == (got.width, got.height, got.format, got.backend)


def test_tiles_take_the_remainder_in_the_last_row_and_column(backend):
    image = rgb8(backend, 11, 13, channels=0, seed=6)
    h, w = image.shape
    got = engine_for(backend).histogram(image, tiles=(4, 3))
    last = got.tile(3, 2).region
    assert last == (3 * (w // 4), 2 * (h // 3), w - 3 * (w // 4), h - 2 * (h // 3))
    assert got.tile(0, 0).region == (0, 0, w // 4, h // 3)


def test_roi_and_tiles(backend):
    image = rgb8(backend, 41, 47, channels=4, seed=7)
    roi = (3, 5, 23, 17)
    got = engine_for(backend).histogram(image, roi=roi, tiles=(3, 4), mode="luma")
    want, regions = expected_tiles(image, roi, (3, 4), mode="luma")
    np.testing.assert_array_equal(got.tile_counts, want)
    np.testing.assert_array_equal(got.counts, model_histogram(image[5:22, 3:26], mode="luma").counts)
    assert got.region == roi
    assert got.tile_regions == regions


def test_tiles_float32_with_bins(backend):
    h, w = 30, 34
    image = images.make_image("specials", np.float32, h, w, 3, seed=8)
    spec = dict(bins=19, range=(0.0, 0.75))
    got = engine_for(backend).histogram(image, tiles=(2, 3), roi=(1, 1, w - 2, h - 1), **spec)
    want, _ = expected_tiles(image, (1, 1, w - 2, h - 1), (2, 3), **spec)
    np.testing.assert_array_equal(got.tile_counts, want)
    tile = got.tile(1, 2)
    x, y, tw, th = tile.region
    model = model_histogram(image[y:y + th, x:x + tw], **spec)
    np.testing.assert_array_equal(tile.nan, model.nan)
    np.testing.assert_array_equal(tile.below, model.below)
    np.testing.assert_array_equal(tile.above, model.above)


def test_one_shot_functions_take_roi_and_tiles():
    image = images.make_image("random", np.uint8, 20, 24, 3, seed=9)
    h = imghist.histogram(image, backend="cpu", roi=(2, 2, 10, 10), tiles=(2, 2))
    want, _ = expected_tiles(image, (2, 2, 10, 10), (2, 2))
    np.testing.assert_array_equal(h.tile_counts, want)
    assert "region=2,2,10x10 tiles=2x2" in repr(h)


def test_tiles_merge_tile_by_tile():
    image = images.make_image("random", np.uint8, 20, 24, 3, seed=10)
    e = engine_for("cpu")
    a, b = e.histogram(image, tiles=(2, 2)), e.histogram(image[::-1].copy(), tiles=(2, 2))
    total = a + b
    np.testing.assert_array_equal(total.tile_counts, a.tile_counts + b.tile_counts)
    assert not a.can_merge(e.histogram(image, tiles=(2, 1)))
    assert not a.can_merge(e.histogram(image))
    with pytest.raises(imghist.MergeError):
        a + e.histogram(image, tiles=(1, 2))


# ---------------------------------------------------------------- histogram_batch


def test_batch_with_tiles_equals_each_images_histogram(backend):
    e = engine_for(backend)
    frames = [rgb8(backend, 31, 29, seed=s) for s in (11, 12)] + [rgb8(backend, 40, 35, seed=13)]
    batch = e.histogram_batch(frames, tiles=(2, 3), roi=(1, 2, 20, 18))
    assert len(batch) == 3
    for frame, got in zip(frames, batch):
        one = e.histogram(frame, tiles=(2, 3), roi=(1, 2, 20, 18))
        assert got == one
        want, _ = expected_tiles(frame, (1, 2, 20, 18), (2, 3))
        np.testing.assert_array_equal(got.tile_counts, want)
    np.testing.assert_array_equal(batch.sum().tile_counts, sum(h.tile_counts for h in batch))


def test_one_shot_batch_with_roi(backend):
    stack = np.stack([rgb8(backend, 24, 24, channels=0, seed=s) for s in (14, 15)])
    batch = imghist.histogram_batch(stack, backend=backend, roi=(4, 4, 8, 8))
    for frame, got in zip(stack, batch):
        np.testing.assert_array_equal(got.counts[0], np.bincount(frame[4:12, 4:12].ravel(), minlength=256))


def test_batch_roi_outside_one_image_names_it():
    small = np.zeros((8, 8), np.uint8)
    big = np.zeros((20, 20), np.uint8)
    with pytest.raises(imghist.InvalidArgument, match=r"images\[1\]: .*not inside"):
        imghist.histogram_batch([big, small, big], backend="cpu", roi=(5, 5, 10, 10))


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize("roi,match", [
    ((30, 0, 5, 5), "not inside"),
    ((0, 0, 21, 5), "not inside"),
    ((15, 15, 6, 1), "not inside"),
    ((0, 0, 0, 5), "empty"),
    ((0, 0, 4, 0), "empty"),
])
def test_roi_outside_or_empty(roi, match):
    image = np.zeros((20, 20, 3), np.uint8)
    with pytest.raises(imghist.InvalidArgument, match=match):
        imghist.histogram(image, backend="cpu", roi=roi)


@pytest.mark.parametrize("roi,match", [
    ((1, 2, 3), "4 integers"),
    ((1, 2, 3, 4, 5), "4 integers"),
    ("0,0,4,4", "4 integers"),
    (5, "4 integers"),
    ((0, 0, 4.0, 4), "roi width must be an integer"),
    ((0, True, 4, 4), "roi y must be an integer"),
    ((-1, 0, 4, 4), "roi x must be a non-negative integer"),
    ((0, 0, 2**32, 4), "below 2\\^32"),
])
def test_roi_wrong_type_or_length(roi, match):
    image = np.zeros((20, 20, 3), np.uint8)
    with pytest.raises(imghist.InvalidArgument, match=match):
        imghist.histogram(image, backend="cpu", roi=roi)
    with pytest.raises(ValueError):  # InvalidArgument is a ValueError
        imghist.Engine("cpu").histogram(image, roi=roi)


def test_roi_takes_numpy_integers_and_lists():
    image = images.make_image("random", np.uint8, 20, 20, 0, seed=16)
    a = imghist.histogram(image, backend="cpu", roi=np.array([1, 2, 3, 4]), tiles=[np.int64(2), 1])
    b = imghist.histogram(image, backend="cpu", roi=(1, 2, 3, 4), tiles=(2, 1))
    assert a == b


@pytest.mark.parametrize("tiles,match", [
    ((0, 1), "at least 1"),
    ((1, 0), "at least 1"),
    ((21, 1), "more than"),
    ((1, 11), "more than"),
    ((2,), "2 integers"),
    ((1, 2, 3), "2 integers"),
    ((1.5, 2), "must be an integer"),
    ((-2, 2), "non-negative"),
])
def test_bad_tiles(tiles, match):
    image = np.zeros((10, 20), np.uint8)
    with pytest.raises(imghist.InvalidArgument, match=match):
        imghist.histogram(image, backend="cpu", tiles=tiles)


def test_more_tiles_than_the_roi_has_pixels():
    image = np.zeros((20, 20), np.uint8)
    with pytest.raises(imghist.InvalidArgument, match="more than"):
        imghist.histogram(image, backend="cpu", roi=(0, 0, 3, 3), tiles=(4, 1))
    h = imghist.histogram(image, backend="cpu", roi=(0, 0, 3, 3), tiles=(3, 3))  # one pixel a tile
    assert h.tile_counts[:, :, 0, 0].tolist() == [[1, 1, 1]] * 3


def test_tile_index_out_of_range():
    h = imghist.histogram(np.zeros((10, 10), np.uint8), backend="cpu", tiles=(2, 3))
    for tx, ty in [(2, 0), (0, 3), (-1, 0)]:
        with pytest.raises(IndexError, match="outside the 2 x 3 tile grid"):
            h.tile(tx, ty)
    plain = imghist.histogram(np.zeros((10, 10), np.uint8), backend="cpu")
    assert plain.tile(0, 0) == plain
    with pytest.raises(IndexError):
        plain.tile(1, 0)


# ---------------------------------------------------------------- to_dict / from_dict


def test_dict_round_trip_with_tiles():
    image = images.make_image("random", np.uint8, 20, 24, 3, seed=17)
    h = imghist.histogram(image, backend="cpu", roi=(2, 3, 17, 13), tiles=(3, 2))
    d = h.to_dict()
    keys = list(d)
    assert keys.index("histograms") < keys.index("region") < keys.index("tile_grid") < keys.index("tiles") < \
        keys.index("notes")
    assert d["region"] == {"x": 2, "y": 3, "width": 17, "height": 13}
    assert d["tile_grid"] == {"x": 3, "y": 2}
    assert len(d["tiles"]) == 6
    first = d["tiles"][0]
    assert list(first) == ["region", "histograms"]
    assert first["region"] == {"x": 2, "y": 3, "width": 5, "height": 6}
    assert list(first["histograms"]) == list(d["histograms"])
    assert first["histograms"]["R"]["counts"] == h.tile(0, 0)["R"].counts.tolist()
    assert d["tiles"][5]["region"] == {"x": 12, "y": 9, "width": 7, "height": 7}
    back = imghist.Histogram.from_dict(d)
    assert back == h
    np.testing.assert_array_equal(back.tile_counts, h.tile_counts)
    assert back.region == h.region and back.tile_grid == h.tile_grid
    assert pickle.loads(pickle.dumps(h)) == h


def test_dict_of_a_roi_without_tiles():
    h = imghist.histogram(np.zeros((10, 10), np.uint8), backend="cpu", roi=(1, 1, 2, 2))
    d = h.to_dict()
    assert d["region"] == {"x": 1, "y": 1, "width": 2, "height": 2}
    assert "tile_grid" not in d and "tiles" not in d
    assert imghist.Histogram.from_dict(d) == h


def test_dict_of_a_whole_image_with_tiles_has_its_region():
    h = imghist.histogram(np.zeros((10, 10), np.uint8), backend="cpu", tiles=(2, 2))
    assert h.to_dict()["region"] == {"x": 0, "y": 0, "width": 10, "height": 10}


def test_from_dict_of_old_documents():
    h = imghist.histogram(np.zeros((10, 12), np.uint8), backend="cpu")
    d = h.to_dict()
    assert "region" not in d and "tiles" not in d
    back = imghist.Histogram.from_dict(d)
    assert back == h and back.region == (0, 0, 12, 10) and back.tile_grid == (1, 1)


def test_from_dict_refuses_broken_tiles():
    h = imghist.histogram(np.zeros((10, 10), np.uint8), backend="cpu", tiles=(2, 2))
    d = h.to_dict()
    broken = dict(d, tiles=d["tiles"][:3])
    with pytest.raises(imghist.InvalidArgument, match="3 tiles for a tile_grid of 2 x 2"):
        imghist.Histogram.from_dict(broken)
    no_grid = {k: v for k, v in d.items() if k != "tile_grid"}
    with pytest.raises(imghist.InvalidArgument, match="come together"):
        imghist.Histogram.from_dict(no_grid)


# ---------------------------------------------------------------- files


@pytest.mark.skipif(not imghist.has_file_reader, reason="built without imghist::io")
def test_histogram_file_and_files_take_roi_and_tiles(tmp_path):
    image = images.make_image("random", np.uint8, 16, 18, 0, seed=18)
    path = tmp_path / "gray.pgm"
    path.write_bytes(b"P5 18 16 255\n" + image.tobytes())
    h = imghist.histogram_file(path, backend="cpu", roi=(1, 2, 12, 10), tiles=(2, 2))
    want, _ = expected_tiles(image, (1, 2, 12, 10), (2, 2))
    np.testing.assert_array_equal(h.tile_counts, want)
    assert imghist.Engine("cpu").histogram_file(path, roi=(1, 2, 12, 10), tiles=(2, 2)) == h
    run = imghist.histogram_files([path, path], backend="cpu", roi=(1, 2, 12, 10), tiles=(2, 2)).run()
    assert run.errors == []
    np.testing.assert_array_equal(run.sum.tile_counts, 2 * want)
    outside = imghist.histogram_files([path], backend="cpu", roi=(10, 10, 10, 10)).run()
    assert outside.failed == 1 and "not inside" in outside.errors[0][1]


# ---------------------------------------------------------------- CUDA arrays


def cuda_producer(name: str):
    """A function copying a numpy array to a CUDA device with `name` (torch, cupy), or a skip."""
    if not any(b["name"] == "cuda" and b["available"] for b in imghist.backends()):
        pytest.skip("no usable CUDA backend")
    try:
        if name == "torch":
            import torch
            if not torch.cuda.is_available():
                pytest.skip("torch without CUDA")
            return lambda a: torch.from_numpy(np.ascontiguousarray(a)).to("cuda")
        import cupy
        return cupy.asarray
    except ImportError:
        pytest.skip(f"{name} is not installed")


@pytest.mark.parametrize("producer", ["torch", "cupy"])
def test_cuda_arrays_with_roi_and_tiles(producer):
    to_device = cuda_producer(producer)
    image = rgb8("cuda", 45, 51, channels=4, seed=19)
    roi, tiles = (4, 3, 40, 37), (3, 4)
    got = imghist.histogram(to_device(image), roi=roi, tiles=tiles)
    assert got.backend == "cuda"
    want, regions = expected_tiles(image, roi, tiles)
    np.testing.assert_array_equal(got.tile_counts, want)
    np.testing.assert_array_equal(got.counts, model_histogram(image[3:40, 4:44]).counts)
    assert got.tile_regions == regions
    frames = [image, rgb8("cuda", 45, 51, channels=4, seed=20)]
    batch = imghist.histogram_batch([to_device(f) for f in frames], roi=roi, tiles=tiles)
    for frame, h in zip(frames, batch):
        np.testing.assert_array_equal(h.tile_counts, expected_tiles(frame, roi, tiles)[0])
