"""The Python API's behaviour and errors: what is accepted, what is refused and how, results
as objects (merge, dicts, pickle), threads and the GIL. The counted values themselves are
checked against numpy's model of the contract in test_values.py."""
import json
import os
import pickle
import pydoc
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import imghist

RNG = np.random.default_rng(13)


def rgba8(h=48, w=64):
    return RNG.integers(0, 256, (h, w, 4), dtype=np.uint8)


def same(a, b):
    """Two histograms with the same channels, layouts and counts."""
    return a.channels == b.channels and a.range == b.range and np.array_equal(a.counts, b.counts) and \
        np.array_equal(a.nan, b.nan) and np.array_equal(a.below, b.below) and np.array_equal(a.above, b.above)


# --- exceptions ---------------------------------------------------------------------------------

def test_exception_hierarchy():
    assert issubclass(imghist.Error, Exception)
    for cls, std in [(imghist.InvalidArgument, ValueError), (imghist.MergeError, ValueError),
                     (imghist.BackendUnavailable, RuntimeError), (imghist.DeviceError, RuntimeError)]:
        assert issubclass(cls, imghist.Error) and issubclass(cls, std), cls
        assert cls.__module__ == "imghist"
    assert not issubclass(imghist.InvalidArgument, RuntimeError)
    assert not issubclass(imghist.BackendUnavailable, ValueError)


# --- bad input: each a clear exception, never a crash -------------------------------------------

@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint32, np.uint64, np.float64,
                                   np.bool_, np.complex64, ">u2", ">f4", object])
def test_wrong_dtype_is_a_type_error_listing_the_accepted_ones(dtype):
    with pytest.raises(TypeError) as e:
        imghist.histogram(np.zeros((4, 4, 3), dtype=dtype))
    for name in ("uint8", "uint16", "float16", "float32"):
        assert name in str(e.value)


@pytest.mark.parametrize("shape", [(8,), (4, 4, 2), (4, 4, 5), (2, 4, 4, 4), (1, 1, 1, 1, 1)])
def test_wrong_shape_is_invalid_argument(shape):
    with pytest.raises(imghist.InvalidArgument, match="shape") as e:
        imghist.histogram(np.zeros(shape, np.uint8))
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("shape", [(0, 4), (4, 0), (0, 0, 3), (4, 0, 4)])
def test_empty_array_is_invalid_argument(shape):
    with pytest.raises(imghist.InvalidArgument, match="empty"):
        imghist.histogram(np.zeros(shape, np.uint8))


@pytest.mark.parametrize("make", [
    lambda a: a[:, ::2],                   # every other pixel
    lambda a: a.swapaxes(0, 1),            # columns as rows
    lambda a: np.asfortranarray(a),        # samples of a pixel far apart
    lambda a: a[:, :, ::-1],               # samples reversed
    lambda a: a[::-1],                     # rows backwards
    lambda a: np.broadcast_to(a[:1], a.shape),  # one row repeated (row stride 0)
], ids=["pixel-step", "transposed", "fortran", "samples-reversed", "rows-reversed", "broadcast-rows"])
def test_unpacked_strides_name_the_fix(make):
    with pytest.raises(imghist.InvalidArgument, match="np.ascontiguousarray"):
        imghist.histogram(make(rgba8()))


def test_misaligned_and_odd_stride_arrays_are_refused():
    raw = np.zeros(4096, np.uint8)
    misaligned = np.frombuffer(raw.tobytes(), dtype=np.uint16, offset=1, count=64).reshape(8, 8)
    with pytest.raises(imghist.InvalidArgument, match="aligned"):
        imghist.histogram(misaligned)
    odd_rows = np.ndarray((4, 4), np.uint16, buffer=raw, strides=(9, 2))
    with pytest.raises(imghist.InvalidArgument, match="np.ascontiguousarray"):
        imghist.histogram(odd_rows)


@pytest.mark.parametrize("image", [[[1, 2], [3, 4]], "pixels", None, 3.0], ids=["list", "str", "None", "float"])
def test_not_an_array_is_a_type_error(image):
    with pytest.raises(TypeError, match="array"):
        imghist.histogram(image)


@pytest.mark.parametrize("kwargs, pattern", [
    (dict(mode="hsv"), "mode"),
    (dict(bins=0), "bins"),
    (dict(bins=-3), "bins"),
    (dict(bins=2.5), "bins"),
    (dict(bins=True), "bins"),
    (dict(bins=(1 << 20) + 1), "bins"),
    (dict(range=(1,)), "range"),
    (dict(range=(10, 5)), "range"),
    (dict(range=(0, float("nan"))), "range"),
    (dict(range=(0.5, 10)), "integer"),  # an 8-bit range has integer bounds
    (dict(range="0:10"), "range"),
    (dict(weights="rec000"), "weights"),
    (dict(weights=(1, 2, 3)), "sum"),
    (dict(weights=(-1, 5000, 5001)), "weight"),
    (dict(weights=(5000, 5000)), "weights"),
    (dict(layout="argb"), "layout"),
    (dict(layout="bgra"), "4 channels"),
    (dict(layout="rgb"), "3 channels"),
    (dict(device=-1), "device"),
])
def test_bad_keywords_are_invalid_argument(kwargs, pattern):
    with pytest.raises(imghist.InvalidArgument, match=pattern):
        image = np.zeros((8, 8, 3), np.uint8) if kwargs.get("layout") == "bgra" else rgba8(8, 8)
        imghist.histogram(image, **kwargs)


def test_bgr_layouts_are_for_uint8_only():
    with pytest.raises(imghist.InvalidArgument, match="uint8"):
        imghist.histogram(np.zeros((4, 4, 4), np.uint16), layout="bgra")
    assert imghist.histogram(np.zeros((4, 4, 3), np.uint8), layout="bgr").format == "bgr8"
    assert imghist.histogram(np.zeros((4, 4, 4), np.uint8), layout="bgra").format == "bgra8"


def test_wrongly_typed_flags_are_type_errors():
    with pytest.raises(TypeError):
        imghist.histogram(rgba8(4, 4), clamp="yes")
    with pytest.raises(TypeError):
        imghist.histogram(rgba8(4, 4), 256)  # every option is keyword-only


def test_unknown_backend_and_device():
    with pytest.raises(imghist.BackendUnavailable, match="compiled in") as e:
        imghist.histogram(rgba8(4, 4), backend="no-such-backend")
    assert isinstance(e.value, RuntimeError)
    with pytest.raises(imghist.BackendUnavailable):
        imghist.Engine("cpu", device="no such device")
    with pytest.raises(imghist.BackendUnavailable):
        imghist.Engine("")
    with pytest.raises(imghist.InvalidArgument, match="threads"):
        imghist.Engine("cpu", threads=-1)


def test_unavailable_backends_raise_backend_unavailable():
    for b in imghist.backends():
        if not b["available"]:
            with pytest.raises(imghist.BackendUnavailable):
                imghist.histogram(rgba8(4, 4), backend=b["name"])


def test_required_backends_are_available():
    """IMGHIST_REQUIRE_BACKENDS=cpu,opencl,vulkan (CI): each listed backend must run, not be skipped."""
    required = [n for n in os.environ.get("IMGHIST_REQUIRE_BACKENDS", "cpu").split(",") if n]
    available = {b["name"]: b["available"] for b in imghist.backends()}
    for name in required:
        assert available.get(name), f"backend {name} is required but {'unavailable' if name in available else 'not compiled in'}"
        assert imghist.histogram(rgba8(8, 8), backend=name).backend == name


# --- what is accepted ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype, fmt", [(np.uint8, "8"), (np.uint16, "16"), (np.float16, "_f16"), (np.float32, "_f32")])
@pytest.mark.parametrize("shape, kind", [((5, 7), "gray"), ((5, 7, 1), "gray"), ((5, 7, 3), "rgb"), ((5, 7, 4), "rgba")])
def test_dtype_and_shape_give_the_format(dtype, fmt, shape, kind):
    h = imghist.histogram(np.zeros(shape, dtype), backend="cpu")
    assert h.format == kind + fmt
    assert (h.width, h.height) == (7, 5)
    assert h.channels == (("gray",) if kind == "gray" else ("R", "G", "B", "Y"))
    assert h.counts.dtype == np.uint64 and h.counts.shape == (len(h.channels), h.bins)


def test_sliced_view_is_counted_in_place():
    image = rgba8(64, 80)
    view = image[10:-3, 7:-5]
    assert not view.flags.c_contiguous and view.base is image
    assert same(imghist.histogram(view), imghist.histogram(np.ascontiguousarray(view)))


def test_row_padding_is_never_read():
    """A view over padded rows: the padding holds a value no pixel has, which must not be counted."""
    h, w, pad = 16, 9, 12
    buffer = np.full((h, w * 4 + pad), 77, np.uint8)
    pixels = np.ndarray((h, w, 4), np.uint8, buffer=buffer, strides=(w * 4 + pad, 4, 1))
    pixels[...] = RNG.integers(0, 77, (h, w, 4))
    assert np.shares_memory(pixels, buffer)
    result = imghist.histogram(pixels, mode="rgb")
    assert result.counts[:, 77].sum() == 0
    assert same(result, imghist.histogram(np.ascontiguousarray(pixels), mode="rgb"))


def test_read_only_array():
    image = rgba8()
    frozen = image.copy()
    frozen.setflags(write=False)
    assert same(imghist.histogram(frozen), imghist.histogram(image))
    from_bytes = np.frombuffer(image.tobytes(), np.uint8).reshape(image.shape)  # read-only memory
    assert not from_bytes.flags.writeable
    assert same(imghist.histogram(from_bytes), imghist.histogram(image))


def test_input_array_is_left_unchanged():
    image = rgba8()
    before = image.copy()
    imghist.histogram(image, bins=7, range=(3, 200), clamp=True)
    assert np.array_equal(image, before)


def test_keywords_reach_the_request():
    image = rgba8(8, 8)
    assert imghist.histogram(image, mode="luma").channels == ("Y",)
    assert imghist.histogram(image, mode="rgb").channels == ("R", "G", "B")
    assert imghist.histogram(image, alpha=True).channels == ("R", "G", "B", "A", "Y")
    h = imghist.histogram(image, bins=16, range=(0, 128), clamp=True)
    assert (h.bins, h.range, h.clamp, h.closed_top) == (16, (0.0, 128.0), True, False)
    assert imghist.histogram(image, bins=np.int64(8)).bins == 8  # numpy integers are integers
    for weights in ("rec601", "2990,5870,1140", (2990, 5870, 1140), [2990, 5870, 1140]):
        assert same(imghist.histogram(image, weights=weights), imghist.histogram(image, weights="rec601"))


def test_edges_follow_np_histogram():
    h = imghist.histogram(np.zeros((4, 4), np.uint8), bins=4, range=(0, 256))
    assert h.edges.dtype == np.float64
    assert np.array_equal(h.edges, np.histogram([], bins=4, range=(0, 256))[1])
    f = imghist.histogram(np.zeros((4, 4), np.float32))
    assert f.closed_top and f.bins == 257 and f.edges.shape == (258,)
    assert f.edges[0] == 0 and f.edges[256] == 1.0 and f.edges[257] == 1.0  # the top bin holds 1.0 only
    assert np.all(np.diff(f.edges[:257]) > 0)


def test_histogram_object():
    image = rgba8()
    h = imghist.histogram(image, backend="cpu")
    assert len(h) == 4 and "Y" in h and "A" not in h and 3 not in h
    assert [c.name for c in h] == list(h.channels)
    y = h["Y"]
    assert isinstance(y, imghist.ChannelHistogram) and y.name == "Y"
    assert y.counts.dtype == np.uint64 and np.array_equal(y.counts, h.counts[3])
    assert np.array_equal(np.asarray(h), h.counts)
    with pytest.raises(KeyError, match="A"):
        h["A"]
    for name in ("nan", "below", "above", "clipped_low", "clipped_high"):
        values = getattr(h, name)
        assert values.dtype == np.uint64 and values.shape == (4,)
        assert [getattr(c, name) for c in h] == list(values)
    assert h.backend == "cpu" and h.device and isinstance(h.notes, list)
    assert repr(h).startswith("<imghist.Histogram rgba8 64x48")


def test_stats_keys_and_empty_optionals():
    h = imghist.histogram(np.zeros((4, 4), np.uint8), bins=4, range=(100, 200))  # every sample below range
    s = h.stats()["gray"]
    assert list(s) == ["count", "min", "max", "mean", "stddev", "median", "p1", "p99", "min_value", "max_value",
                       "mean_value", "stddev_value", "median_value", "p1_value", "p99_value", "samples",
                       "clipped_low_count", "clipped_high_count", "clipped_low", "clipped_high"]
    assert s["count"] == 0 and s["samples"] == 16 and s["mean"] is None and s["median_value"] is None
    assert h["gray"].stats() == s


# --- merge, dict, pickle ------------------------------------------------------------------------

def test_merge_adds_counts_exactly():
    a, b = rgba8(), rgba8(20, 30)
    ha, hb = imghist.histogram(a), imghist.histogram(b)
    total = ha + hb
    assert np.array_equal(total.counts, ha.counts + hb.counts)
    assert np.array_equal(total.clipped_low, ha.clipped_low + hb.clipped_low)
    keep = ha
    ha += hb
    assert ha is keep and same(ha, total)
    assert np.array_equal(imghist.histogram(a).counts, total.counts - hb.counts)  # `+` left its operand alone


@pytest.mark.parametrize("other", [dict(mode="luma"), dict(bins=128), dict(alpha=True), dict(range=(0, 128)),
                                   dict(bins=np.arange(257.0))])  # edges where the default bins are: edge bins
def test_merge_of_different_layouts_is_merge_error(other):
    h = imghist.histogram(rgba8())
    assert h.can_merge(imghist.histogram(rgba8(20, 30))) and not h.can_merge(imghist.histogram(rgba8(), **other))
    with pytest.raises(imghist.MergeError) as e:
        h + imghist.histogram(rgba8(), **other)
    assert isinstance(e.value, ValueError)
    with pytest.raises(imghist.MergeError):
        h += imghist.histogram(rgba8(), **other)
    with pytest.raises(imghist.MergeError):
        h + imghist.histogram(np.zeros((4, 4), np.uint8))  # gray vs RGB
    with pytest.raises(TypeError):
        h + 1


def float_image():
    img = RNG.random((12, 10, 4), dtype=np.float32) * 1.4 - 0.2
    img[0, 0] = [np.nan, np.inf, -np.inf, -0.0]
    return img


@pytest.mark.parametrize("image, kwargs", [
    (rgba8(), {}), (rgba8(), dict(alpha=True)), (RNG.integers(0, 65536, (9, 7, 3), dtype=np.uint16), {}),
    (float_image(), {}), (float_image().astype(np.float16), dict(bins=50, range=(-0.5, 0.75), clamp=True)),
    (np.zeros((3, 3), np.uint8), dict(bins=3, range=(1, 10))),
    (float_image(), dict(bins=[-0.2, 0, 0.1, 0.5, 1.2])), (rgba8(), dict(ev=(0, 8, 3))),
], ids=["rgba8", "alpha", "rgb16", "f32", "f16-custom", "gray-out-of-range", "f32-edges", "rgba8-ev"])
def test_dict_and_pickle_round_trips(image, kwargs):
    h = imghist.histogram(image, **kwargs)
    d = h.to_dict()
    assert list(d) == ["width", "height", "format", "backend", "device", "histograms", "notes"]
    back = imghist.Histogram.from_dict(d)
    assert back == h and back.to_dict() == d
    assert json.loads(json.dumps(d)) == d  # plain JSON types only
    assert pickle.loads(pickle.dumps(h)) == h
    assert imghist.Histogram.from_dict(json.loads(json.dumps(d))) == h


def test_from_dict_refuses_bad_documents():
    d = imghist.histogram(rgba8()).to_dict()
    for broken in ({k: v for k, v in d.items() if k != "histograms"},
                   {**d, "format": "rgb9"},
                   {**d, "histograms": {}},
                   {**d, "histograms": {"Q": d["histograms"]["R"]}},
                   {**d, "histograms": {**d["histograms"], "R": {**d["histograms"]["R"], "counts": [1, 2]}}},
                   {**d, "histograms": {**d["histograms"], "R": {**d["histograms"]["R"], "bins": 128}}},
                   {**d, "width": "wide"}):
        with pytest.raises(imghist.InvalidArgument):
            imghist.Histogram.from_dict(broken)
    with pytest.raises(imghist.InvalidArgument):
        imghist.Histogram.from_dict([])


def cli_json(cli, path, fmt, shape, *args):
    raw = f"{fmt}:{shape[1]}x{shape[0]}"
    out = subprocess.run([cli, "--backend", "cpu", "--format", "json", "--raw", raw, *args, path],
                         check=True, capture_output=True, text=True).stdout
    doc = json.loads(out)
    assert doc["errors"] == [] and len(doc["results"]) == 1
    result = doc["results"][0]
    del result["file"]
    return result


@pytest.mark.parametrize("image, fmt, kwargs, args", [
    (rgba8(), "rgba8", {}, []),
    (rgba8(), "rgba8", dict(alpha=True, weights="rec601"), ["--alpha", "--luma-weights", "rec601"]),
    (RNG.integers(0, 65536, (9, 7), dtype=np.uint16), "gray16", dict(bins=100), ["--bins", "100"]),
    (float_image()[..., :3].copy(), "rgb_f32", {}, []),
    (float_image().astype(np.float16), "rgba_f16", dict(bins=40, range=(-0.25, 1.5), clamp=True),
     ["--bins", "40", "--range=-0.25:1.5", "--clamp"]),
    (rgba8(), "rgba8", dict(roi=(3, 5, 40, 30)), ["--roi", "3,5,40,30"]),
    (float_image()[..., :3].copy(), "rgb_f32", dict(roi=(1, 2, 5, 6), tiles=(2, 3), bins=16),
     ["--roi", "1,2,5,6", "--tiles", "2,3", "--bins", "16"]),
    (rgba8(), "rgba8", dict(bins=[0, 0.5, 10, 100.25, 200, 256]), ["--edges", "0,0.5,10,100.25,200,256"]),
    (float_image().astype(np.float16), "rgba_f16", dict(bins=[-0.1, 0, 0.1, 1 / 3, 1], clamp=True),
     ["--edges=" + ",".join(map(repr, [-0.1, 0, 0.1, 1 / 3, 1])), "--clamp"]),  # fp32 edges in "edges"
    (float_image()[..., :3].copy(), "rgb_f32", dict(mode="luma", ev=(-8, 1, 4)), ["--mode", "luma", "--ev=-8:1:4"]),
    (RNG.integers(0, 65536, (9, 7), dtype=np.uint16), "gray16", dict(ev=(0, 16, 2), roi=(1, 1, 5, 6), tiles=(2, 2)),
     ["--ev", "0:16:2", "--roi", "1,1,5,6", "--tiles", "2,2"]),
    (rgba8(), "rgba8", dict(alpha_threshold=127.5, roi=(3, 5, 40, 30), tiles=(2, 3)),
     ["--alpha-threshold", "127.5", "--roi", "3,5,40,30", "--tiles", "2,3"]),
    (float_image(), "rgba_f32", dict(alpha_threshold=0.25, alpha=True), ["--alpha-threshold", "0.25", "--alpha"]),
], ids=["rgba8", "alpha-rec601", "gray16-bins", "rgb_f32", "f16-clamped", "roi", "roi-tiles", "edges-rgba8",
        "edges-f16-clamped", "ev-luma", "ev-gray16-tiles", "alpha-threshold-tiles", "alpha-threshold-f32"])
def test_to_dict_equals_the_command_lines_json(tmp_path, image, fmt, kwargs, args):
    assert_to_dict_is_the_command_lines_json(tmp_path, image, fmt, kwargs, args)


@pytest.mark.parametrize("image, fmt, kwargs, args", [
    (rgba8(), "rgba8", dict(roi=(3, 5, 40, 30), tiles=(3, 2)), ["--roi", "3,5,40,30", "--tiles", "3,2"]),
    (float_image(), "rgba_f32", dict(alpha_threshold=0.25), ["--alpha-threshold", "0.25"]),
    (RNG.integers(0, 65536, (9, 7), dtype=np.uint16), "gray16", dict(bins=100), ["--bins", "100"]),
], ids=["rgba8-roi-tiles", "f32-alpha-threshold", "gray16"])
def test_to_dict_with_a_mask_equals_the_command_lines_json(tmp_path, image, fmt, kwargs, args):
    height, width = image.shape[:2]
    mask = np.where(np.random.default_rng([height, width]).random((height, width)) < 0.5, 0, 200).astype(np.uint8)
    mask_path = tmp_path / "mask.pgm"
    mask_path.write_bytes(f"P5 {width} {height} 255\n".encode() + mask.tobytes())
    assert_to_dict_is_the_command_lines_json(tmp_path, image, fmt, dict(kwargs, mask=mask),
                                            ["--mask", str(mask_path), *args])


def assert_to_dict_is_the_command_lines_json(tmp_path, image, fmt, kwargs, args):
    cli = os.environ.get("IMGHIST_CLI")
    if not cli:
        pytest.skip("IMGHIST_CLI is not set (scripts/python-test.sh sets it when the command is built)")
    assert os.access(cli, os.X_OK), f"IMGHIST_CLI={cli} is not an executable"
    path = tmp_path / "pixels.raw"
    path.write_bytes(image.tobytes())
    expected = cli_json(cli, str(path), fmt, image.shape, *args)
    # The command line finds the value extremes of half and float images unless told not to.
    kwargs = dict(extremes=np.issubdtype(image.dtype, np.floating) and "--no-extremes" not in args, **kwargs)
    # ... and the sample statistics unless told not to.
    kwargs.setdefault("sample_stats", "--no-sample-stats" not in args)
    got = imghist.histogram(image, backend="cpu", **kwargs).to_dict()
    assert got == expected
    assert json.dumps(got) == json.dumps(expected)  # also the keys' order and the numbers' types
    assert imghist.Histogram.from_dict(expected) == imghist.histogram(image, backend="cpu", **kwargs)
    return expected


def extremes_image(dtype=np.float32, channels=3, seed=5):
    """Values in [-3, 70) with NaN, +Inf, -Inf, -0 and a denormal in known places."""
    rng = np.random.default_rng(seed)
    img = (rng.random((11, 13, channels)) * 73 - 3).astype(dtype)
    img[0, 0] = np.inf
    img[1, 2] = -np.inf
    img[2, 3] = np.nan
    img[3, 4, 0] = -0.0
    img[4, 5, -1] = np.finfo(dtype).smallest_subnormal
    img[5, 6, 0], img[6, 7, 0] = np.inf, -np.inf  # R alone: the channels' counts differ
    return img


@pytest.mark.parametrize("image, fmt, kwargs, args", [
    (extremes_image(), "rgb_f32", {}, []),
    (extremes_image(np.float16, 4), "rgba_f16", dict(alpha=True, bins=[-1, 0, 1, 64]),
     ["--alpha", "--edges=-1,0,1,64"]),
    (extremes_image(channels=4), "rgba_f32", dict(roi=(1, 0, 11, 9), tiles=(2, 3)),
     ["--roi", "1,0,11,9", "--tiles", "2,3"]),
    (np.full((5, 6), np.nan, np.float32), "gray_f32", {}, []),  # no finite sample: null
], ids=["rgb_f32", "rgba_f16-alpha-edges", "rgba_f32-roi-tiles", "all-nan"])
@pytest.mark.parametrize("masked", [False, True], ids=["whole", "mask"])
def test_value_extremes_equal_the_command_lines(tmp_path, image, fmt, kwargs, args, masked):
    if masked:
        height, width = image.shape[:2]
        mask = (np.arange(height * width).reshape(height, width) % 3 != 0).astype(np.uint8)
        mask_path = tmp_path / "mask.pgm"
        mask_path.write_bytes(f"P5 {width} {height} 255\n".encode() + mask.tobytes())
        kwargs, args = dict(kwargs, mask=mask), ["--mask", str(mask_path), *args]
    expected = assert_to_dict_is_the_command_lines_json(tmp_path, image, fmt, kwargs, args)
    channels = [expected["histograms"], *(t["histograms"] for t in expected.get("tiles", []))]
    for histograms in channels:  # the keys are there, after "above" and before "stats"
        for channel in histograms.values():
            keys = list(channel)
            at = keys.index("above")
            assert keys[at + 1:at + 6] == ["finite_min", "finite_max", "positive_infinities", "negative_infinities",
                                           "stats"]
    r = expected["histograms"].get("R")
    if r is not None and not masked and "roi" not in kwargs:  # the specials placed above, all counted
        assert (r["positive_infinities"], r["negative_infinities"]) == (2, 2)
        assert r["finite_min"] < 0 and r["finite_max"] > 1
    if fmt == "gray_f32":
        assert expected["histograms"]["gray"]["finite_min"] is None


def test_no_extremes_equal_the_command_lines_no_extremes(tmp_path):
    expected = assert_to_dict_is_the_command_lines_json(tmp_path, extremes_image(), "rgb_f32", {}, ["--no-extremes"])
    assert "finite_min" not in expected["histograms"]["R"]


# --- engines, threads, the GIL ------------------------------------------------------------------

def test_engine():
    engine = imghist.Engine("cpu", threads=1)
    assert engine.backend == "cpu" and "1 thread" in engine.device
    image = rgba8()
    h = engine.histogram(image, mode="rgb")
    assert h.backend == "cpu" and same(h, imghist.histogram(image, mode="rgb", backend="cpu"))
    with pytest.raises(TypeError):
        engine.histogram(image, backend="cpu")  # the engine's backend is fixed
    assert imghist.Engine().backend in [b["name"] for b in imghist.backends()]


def test_an_engine_survives_an_error():
    engine = imghist.Engine("cpu")
    with pytest.raises(imghist.InvalidArgument):
        engine.histogram(rgba8(), bins=0)
    assert engine.histogram(rgba8()).counts.sum() == 4 * 48 * 64


def run_threads(count, work):
    barrier = threading.Barrier(count)
    results, errors = [None] * count, []

    def body(i):
        try:
            barrier.wait()
            results[i] = work(i)
        except BaseException as e:  # reported below, not lost in the thread
            errors.append(e)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results


def test_threads_with_an_engine_each():
    images = [rgba8(300 + 17 * i, 400) for i in range(4)]
    expected = [imghist.histogram(img, backend="cpu") for img in images]

    def work(i):
        engine = imghist.Engine("cpu", threads=1)
        return [engine.histogram(images[i]) for _ in range(5)]

    for i, results in enumerate(run_threads(4, work)):
        assert all(same(r, expected[i]) for r in results)


def test_one_shot_calls_keep_an_engine_per_thread():
    """histogram() opens a thread's engine once per backend and device; other threads get their own."""
    from imghist import _imghist
    image = rgba8()
    imghist.histogram(image, backend="reference")
    kept = dict(_imghist._oneshot_engines.__dict__)
    imghist.histogram(image, backend="reference")
    imghist.histogram_batch([image, image], backend="reference")
    assert dict(_imghist._oneshot_engines.__dict__) == kept  # the same engine objects
    assert [e.backend for e in kept.values()].count("reference") == 1
    seen = run_threads(2, lambda i: (imghist.histogram(image, backend="reference"),
                                     list(_imghist._oneshot_engines.__dict__.values()))[1])
    ours = {id(e) for e in kept.values()}
    assert all(len(engines) == 1 and id(engines[0]) not in ours for engines in seen)
    assert id(seen[0][0]) != id(seen[1][0])


def test_one_engine_shared_by_threads():
    """The docstring's promise: an Engine may be shared; its calls run one after the other."""
    assert "shared" in imghist.Engine.__doc__
    engine = imghist.Engine("cpu")
    images = [rgba8(200, 150 + 31 * i) for i in range(4)]
    expected = [imghist.histogram(img, backend="cpu", mode="luma") for img in images]
    results = run_threads(4, lambda i: [engine.histogram(images[i], mode="luma") for _ in range(10)])
    for i, rs in enumerate(results):
        assert all(same(r, expected[i]) for r in rs)


def test_the_gil_is_released_while_counting():
    """Another Python thread keeps running during one long call (with the GIL held it could not)."""
    engine = imghist.Engine("reference")  # single-threaded: a long call on a modest image
    image = rgba8(1024, 1024)
    while True:
        start = time.perf_counter()
        engine.histogram(image)
        if time.perf_counter() - start > 0.1 or image.shape[0] >= 8192:
            break
        image = np.concatenate([image, image])
    window = []
    ticks = []
    stop = threading.Event()

    def count():
        window.append(time.perf_counter())
        engine.histogram(image)
        window.append(time.perf_counter())
        stop.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(0.001)
    try:
        worker = threading.Thread(target=count)
        worker.start()
        while not stop.is_set():
            ticks.append(time.perf_counter())
        worker.join()
    finally:
        sys.setswitchinterval(old)
    t0, t1 = window
    inside = [t for t in ticks if t0 <= t <= t1]
    assert len(inside) > 100
    # The ticks cover most of the call; with the GIL held they would stop when it began.
    assert inside[-1] - inside[0] > 0.5 * (t1 - t0), (inside[-1] - inside[0], t1 - t0)


# --- documentation ------------------------------------------------------------------------------

@pytest.mark.parametrize("obj", [imghist, imghist.histogram, imghist.Engine, imghist.Engine.histogram,
                                 imghist.Histogram, imghist.ChannelHistogram, imghist.backends, imghist.MergeError])
def test_help_text(obj):
    text = pydoc.render_doc(obj)
    assert obj.__doc__ and len(obj.__doc__) > 20
    assert len(text) > 100


def test_histogram_docstring_answers_the_questions():
    doc = imghist.histogram.__doc__
    for word in ("uint8", "float16", "TypeError", "np.ascontiguousarray", "bgra", "rec709", "Engine"):
        assert word in doc, word
    assert "1.0" in imghist.Histogram.__doc__  # the closed top bin


def test_backends_listing():
    listed = imghist.backends()
    names = [b["name"] for b in listed]
    assert "cpu" in names and "reference" in names
    for b in listed:
        assert set(b) == {"name", "summary", "available", "devices"}
        for d in b["devices"]:
            assert set(d) == {"id", "name", "is_gpu", "available", "note"}
    assert imghist.__version__.count(".") == 2
