"""Edge bins, EV bins and auto-exposure (docs/semantics.md, "Edges", "EV bins", "Auto-exposure").

The expected counts come from numpy alone, from the document's rules: bin k holds [e_k, e_k+1);
integer samples (and integer luminance) are compared exactly, v >= ceil(e_k); half and float
samples are compared with the edges rounded once to fp32, as total-order keys of the fp32 bit
patterns (-0 is +0); below e_0 is `below`, at or above e_N `above`; clamp folds them into the end
bins; NaN is `nan`. The channels' samples (luminance included) are those of the contract model
(contract_model.py). Every test that counts runs on every available backend.
"""

from __future__ import annotations

import json
from fractions import Fraction
import math
import os
import pickle
import subprocess

import numpy as np
import pytest

import images
from contract_model import channel_names, float_key, luma_float, luma_int, model_histogram, parse_weights, pixel_format
from kept_engines import engine_for

import imghist

# ---------------------------------------------------------------- the oracle


def channel_values(image: np.ndarray, mode="all", weights="rec709", alpha=False):
    """(names, {name: samples}, integer): each channel's samples, luminance from the contract model."""
    fmt, kind, _, ri, gi, bi, ai = pixel_format(image)
    names = channel_names(fmt.startswith("gray"), mode, alpha, ai is not None)
    is_float = kind in ("f16", "f32")
    pixels = image.reshape(image.shape[0], image.shape[1], -1)

    def sample(index):
        s = pixels[:, :, index].ravel()
        return s.astype(np.float32) if is_float else s.astype(np.int64)  # half -> float is exact

    w = parse_weights(weights)
    values = {}
    for name in names:
        if name == "Y":
            rgb = (sample(ri), sample(gi), sample(bi))
            values[name] = luma_float(*rgb, w) if is_float else luma_int(*rgb, w)
        else:
            values[name] = sample({"gray": 0, "R": ri, "G": gi, "B": bi, "A": ai}[name])
    return names, values, not is_float


def edge_bins(values: np.ndarray, edges, integer: bool, clamp: bool = False) -> dict:
    """counts, nan, below, above of `values` in the edge bins, by the document's rules."""
    n = len(edges) - 1
    values = np.asarray(values).ravel()
    if integer:
        # v >= e_k, exactly: for an integer v that is v >= ceil(e_k). Explicit comparisons with every edge.
        thresholds = np.ceil(np.asarray(edges, np.float64)).astype(np.int64)
        position = (values.astype(np.int64)[:, None] >= thresholds[None, :]).sum(axis=1)
        nan = 0
    else:
        v = np.asarray(values, np.float32)
        is_nan = np.isnan(v)
        nan = int(is_nan.sum())
        keys = float_key(np.asarray(edges, np.float64).astype(np.float32))  # rounded once, to nearest
        assert np.all(np.diff(keys.astype(np.int64)) > 0), "the test's edges must stay distinct in fp32"
        position = np.searchsorted(keys, float_key(v[~is_nan]), side="right")  # edges <= v
    below, above = position == 0, position == n + 1
    binned = [position[~(below | above)] - 1]
    if clamp:
        binned += [np.zeros(int(below.sum()), np.int64), np.full(int(above.sum()), n - 1, np.int64)]
    counts = np.bincount(np.concatenate(binned).astype(np.int64), minlength=n).astype(np.uint64)
    return {"counts": counts, "nan": nan, "below": int(below.sum()), "above": int(above.sum())}


def check(got: imghist.Histogram, image: np.ndarray, edges, clamp=False, mode="all", weights="rec709",
          alpha=False) -> None:
    """got against the oracle, channel by channel, and its layout against the edges."""
    names, values, integer = channel_values(image, mode, weights, alpha)
    assert got.channels == names
    n = len(edges) - 1
    want_edges = np.asarray(edges, np.float64) if integer else \
        np.asarray(edges, np.float64).astype(np.float32).astype(np.float64)
    np.testing.assert_array_equal(got.edges, want_edges)
    assert got.edges.dtype == np.float64
    assert (got.bins, got.range, got.closed_top, got.clamp) == (n, (want_edges[0], want_edges[-1]), False, clamp)
    for c, name in enumerate(names):
        want = edge_bins(values[name], edges, integer, clamp)
        np.testing.assert_array_equal(got.counts[c], want["counts"], err_msg=name)
        assert (got.nan[c], got.below[c], got.above[c]) == (want["nan"], want["below"], want["above"]), name
        np.testing.assert_array_equal(got[name].edges, want_edges)
    # The clipping counts do not depend on the bins.
    model = model_histogram(image, mode=mode, weights=weights, alpha=alpha)
    np.testing.assert_array_equal(got.clipped_low, model.clipped_low)
    np.testing.assert_array_equal(got.clipped_high, model.clipped_high)


def small(backend: str, height: int, width: int) -> tuple:
    return images.size_for(backend, height, width)


# ---------------------------------------------------------------- the oracle itself


def test_the_oracle_on_the_documents_examples():
    # [0.5, 1.5) holds the value 1; a bin with no integer in it stays empty.
    got = edge_bins(np.array([0, 1, 2, 3]), [0.5, 1.5, 1.7, 3], integer=True)
    assert got["counts"].tolist() == [1, 0, 1] and (got["below"], got["above"]) == (1, 1)
    # Floats: -0 is +0, the last edge is above, NaN is nan, +-Inf below / above.
    v = np.float32([-0.0, 0.0, 1.0, np.nan, np.inf, -np.inf, 0.5])
    got = edge_bins(v, [0, 0.5, 1], integer=False)
    assert got["counts"].tolist() == [2, 1] and (got["nan"], got["below"], got["above"]) == (1, 1, 2)
    got = edge_bins(v, [0, 0.5, 1], integer=False, clamp=True)
    assert got["counts"].tolist() == [3, 3] and (got["below"], got["above"]) == (1, 2)


# ---------------------------------------------------------------- integer samples

U8_EDGES = [
    [-5, 0.5, 1, 1.5, 10, 10.2, 10.9, 128, 200.5, 255, 256.5],  # fractions, empty bins, beyond both ends
    [3, 17, 100, 250],                                          # samples below and above
    [0, 256],                                                   # one bin
    list(np.arange(257, dtype=np.float64)),                     # the default bins' positions, as edges
]


@pytest.mark.parametrize("edges", U8_EDGES, ids=["fractions", "inside", "one-bin", "unit"])
@pytest.mark.parametrize("clamp", [False, True])
@pytest.mark.parametrize("channels", [0, 3, 4])
def test_uint8(backend, edges, clamp, channels):
    h, w = small(backend, 29, 41)
    image = images.make_image("random", np.uint8, h, w, channels, seed=1)
    image.flat[:8] = [0, 255, 1, 254, 10, 11, 128, 200]  # values on and beside the edges
    got = engine_for(backend).histogram(image, bins=edges, clamp=clamp, alpha=True)
    check(got, image, edges, clamp, alpha=True)


@pytest.mark.parametrize("pattern", ["random", "specials", "natural"])
@pytest.mark.parametrize("clamp", [False, True])
def test_uint16(backend, pattern, clamp):
    h, w = small(backend, 31, 37)
    image = images.make_image(pattern, np.uint16, h, w, 3, seed=2)
    edges = [0.5, 1, 255.5, 256, 1000.25, 4096, 32767.5, 32768, 65000, 65535, 65535.5]
    got = engine_for(backend).histogram(image, bins=np.array(edges), clamp=clamp)
    check(got, image, edges, clamp)


@pytest.mark.parametrize("weights", ["rec709", "rec601", (0, 0, 10000)])
def test_integer_luminance(backend, weights):
    h, w = small(backend, 33, 35)
    image = images.make_image("natural", np.uint8, h, w, 3, seed=3)
    edges = [10.5, 50, 50.5, 99.999, 128, 128.0001, 180, 240.5]
    got = engine_for(backend).histogram(image, bins=edges, mode="luma", weights=weights)
    check(got, image, edges, mode="luma", weights=weights)
    sixteen = images.make_image("random", np.uint16, h, w, 3, seed=3)
    edges16 = [1000.5, 20000, 20000.5, 40000, 65535]
    check(engine_for(backend).histogram(sixteen, bins=edges16, weights=weights), sixteen, edges16, weights=weights)


def test_integer_edges_by_hand(backend):
    image = np.arange(16, dtype=np.uint8).reshape(4, 4)
    got = engine_for(backend).histogram(image, bins=[0.5, 1.5, 1.7, 3, 15])
    assert got.counts[0].tolist() == [1, 0, 1, 12]  # 1 | none | 2 | 3..14
    assert (got.below[0], got.above[0]) == (1, 1)    # 0 below, 15 (the last edge) above
    assert got.edges.tolist() == [0.5, 1.5, 1.7, 3, 15]  # integer layouts keep the edges as given


# ---------------------------------------------------------------- half and float samples

FLOAT_EDGES = [
    [-1e30, -1, -0.5, 0, 2.0**-140, 2.0**-126, 0.1, 0.25, 1 / 3, 0.5, 0.7, 1, 1.5, 65504, 1e30],
    [0, 1 / 256, 0.5, 1],
    [-0.05, 0.1, 0.9, 1.05],
]


def edge_neighbours(edges, dtype) -> np.ndarray:
    """Every edge as counted (fp32) and its neighbours one ulp away, in dtype, plus the specials."""
    e = np.asarray(edges, np.float64).astype(np.float32)
    near = np.concatenate([e, np.nextafter(e, np.float32(-np.inf)), np.nextafter(e, np.float32(np.inf))])
    specials = np.float32([np.nan, np.inf, -np.inf, -0.0, 0.0, 2.0**-149, -(2.0**-149), 3.4e38, -3.4e38])
    with np.errstate(over="ignore"):  # beyond half's range: +-Inf
        return np.concatenate([near, specials]).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("edges", FLOAT_EDGES, ids=["wide", "unit", "around-unit"])
@pytest.mark.parametrize("clamp", [False, True])
def test_float(backend, dtype, edges, clamp):
    h, w = small(backend, 30, 34)
    image = images.make_image("specials", dtype, h, w, 4, seed=4)
    on_edges = edge_neighbours(edges, dtype)
    image.reshape(-1)[:on_edges.size] = on_edges  # NaN, +-Inf, -0, values on, below and above each edge
    got = engine_for(backend).histogram(image, bins=edges, clamp=clamp, alpha=True)
    check(got, image, edges, clamp, alpha=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("pattern", ["random", "natural"])
def test_float_luminance(backend, dtype, pattern):
    h, w = small(backend, 28, 36)
    image = images.make_image(pattern, dtype, h, w, 3, seed=5)
    image.reshape(-1)[:6] = [np.nan, np.inf, -np.inf, -0.0, 1.0, 0.5]
    edges = [-0.1, 0, 0.1, 0.2, 1 / 3, 0.5, 0.6, 0.7, 0.9, 1]
    for mode, weights in (("all", "rec709"), ("luma", "rec2020")):
        got = engine_for(backend).histogram(image, bins=edges, mode=mode, weights=weights)
        check(got, image, edges, mode=mode, weights=weights)


def test_float_edges_by_hand(backend):
    tenth = np.float32(0.1)  # 0.100000001490116..., the edge 0.1 as counted
    below_tenth = np.nextafter(tenth, np.float32(0))
    image = np.float32([[-0.0, 0.0, below_tenth, tenth, 0.5, 1.0],
                        [np.nan, np.inf, -np.inf, -1e-45, 0.99999994, 2.0]])
    got = engine_for(backend).histogram(image, bins=[0, 0.1, 1])
    assert got.edges.tolist() == [0.0, float(tenth), 1.0] and float(tenth) != 0.1
    assert got.counts[0].tolist() == [3, 3]  # -0, 0, below_tenth | tenth, 0.5, 0.99999994
    assert (got.nan[0], got.below[0], got.above[0]) == (1, 2, 3)  # -Inf, -1e-45 | 1, 2, +Inf
    clamped = engine_for(backend).histogram(image, bins=[0, 0.1, 1], clamp=True)
    assert clamped.counts[0].tolist() == [5, 6] and (clamped.below[0], clamped.above[0]) == (2, 3)
    half = engine_for(backend).histogram(image.astype(np.float16), bins=[0, 0.1, 1])
    # In half both tenths are 0.0999755859375, below the fp32 edge; -1e-45 is -0; 0.99999994 is 1.0 (above).
    assert half.counts[0].tolist() == [5, 1] and (half.below[0], half.above[0]) == (1, 4)


@pytest.mark.parametrize("dtype", [np.uint16, np.float32, np.float16])
def test_most_edges(backend, dtype):
    """4097 edges (4096 bins), the most there may be."""
    h, w = small(backend, 64, 64)
    rng = np.random.default_rng(6)
    if dtype == np.uint16:
        edges = np.sort(rng.choice(np.arange(0, 65536 * 2) / 2.0, 4097, replace=False))
        image = images.make_image("random", dtype, h, w, 3, seed=6)
    else:
        edges = np.unique(rng.uniform(-0.1, 1.1, 6000).astype(np.float32))[:4097].astype(np.float64)
        image = images.make_image("specials" if dtype == np.float32 else "random", dtype, h, w, 3, seed=6)
        on_edges = image.reshape(-1)[::3]  # samples on the edges
        on_edges[:] = np.resize(edges.astype(dtype), on_edges.size)
    assert len(edges) == 4097
    got = engine_for(backend).histogram(image, bins=edges)
    assert got.bins == 4096
    # No notes, but where a Vulkan device flushes fp32 denormals (NVIDIA's): the specials'
    # luminance is then counted on the CPU, and the result says so.
    assert all("flushes fp32 denormals" in note for note in got.notes), got.notes
    assert not got.notes or (backend == "vulkan" and dtype == np.float32)
    check(got, image, edges)


# ---------------------------------------------------------------- EV bins


@pytest.mark.parametrize("lo, hi, per_stop", [(-4, 0, 1), (-16, 16, 8), (-10, 6, 4), (-126, -120, 3),
                                              (120, 127, 1), (0, 0.5, 2), (-2.5, 2.5, 2), (-3, 5, 512)])
def test_ev_edges_are_powers_of_two_rounded_to_fp32(lo, hi, per_stop):
    k = np.arange(round((hi - lo) * per_stop) + 1)
    want = np.float32(2.0 ** (lo + k / per_stop)).astype(np.float64)
    for image in (np.zeros((2, 2), np.float32), np.zeros((2, 2), np.uint16)):
        got = imghist.histogram(image, ev=(lo, hi, per_stop), backend="cpu")
        np.testing.assert_array_equal(got.edges, want)  # fp32 edges for integer samples too
        assert got.bins == len(k) - 1


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_ev_bins_count_like_their_edges(backend, dtype):
    h, w = small(backend, 32, 40)
    rng = np.random.default_rng(7)
    image = np.exp2(rng.uniform(-14, 4, (h, w, 3))).astype(dtype)  # HDR values, 2^-14 .. 2^4
    specials = np.float32([0, -0.0, -1, -np.inf, np.inf, np.nan, 2.0**-12, 2.0**-12.25, 8, 16, 15.99, 2.0**-20])
    image.reshape(-1)[:specials.size] = specials.astype(dtype)
    lo, hi, per_stop = -12, 4, 4
    edges = np.float32(2.0 ** (lo + np.arange((hi - lo) * per_stop + 1) / per_stop)).astype(np.float64)
    got = engine_for(backend).histogram(image, ev=(lo, hi, per_stop))
    check(got, image, edges)
    assert got.below[3] >= 1 and got.above[0] >= 1  # Y: zero and negatives below; R: 16 and +Inf above
    same_edges = engine_for(backend).histogram(image, bins=edges)
    assert same_edges == got  # ev= is bins=ev_edges(...)


def test_ev_bins_of_integer_samples(backend):
    h, w = small(backend, 20, 30)
    image = images.make_image("random", np.uint16, h, w, 0, seed=8)
    image.flat[:4] = [0, 1, 2, 65535]
    got = engine_for(backend).histogram(image, ev=(0, 16, 2))
    edges = np.float32(2.0 ** (np.arange(33) / 2)).astype(np.float64)
    check(got, image, edges)
    assert got.below[0] >= 1  # 0 has no EV


# ---------------------------------------------------------------- auto-exposure


def worked_example(dtype=np.float32) -> np.ndarray:
    """docs/semantics.md: two samples each in [2^-4, 2^-3), [2^-3, 2^-2), [2^-2, 2^-1), [2^-1, 2^0)."""
    return np.array([[0.0625, 0.1, 0.125, 0.2], [0.25, 0.4, 0.5, 0.75]], dtype)


def nearest_fp32(q: Fraction) -> float:
    """q rounded once to the nearest fp32, ties to the even one: what exposure() gives for EV bins."""
    f = np.float32(float(q))
    around = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
    return float(min(around, key=lambda c: (abs(Fraction(float(c)) - q), int(np.array(c).view(np.uint32)) & 1)))


def test_exposure_worked_example(backend):
    got = engine_for(backend).histogram(worked_example(), ev=(-4, 0, 1))
    assert got.counts[0].tolist() == [2, 2, 2, 2]
    e = got.exposure()
    assert list(e) == ["channel", "low_percent", "high_percent", "average_ev", "key", "exposure_ev", "samples"]
    average = (2 * Fraction(-3, 2) + Fraction(16, 10) * Fraction(-1, 2)) / Fraction(36, 10)  # -19/18
    assert e["channel"] == "gray" and (e["low_percent"], e["high_percent"], e["key"]) == (50, 95, 0.18)
    assert e["average_ev"] == nearest_fp32(average) and round(e["average_ev"], 4) == -1.0556
    assert e["exposure_ev"] == float(np.float32(math.log2(0.18)) - np.float32(e["average_ev"]))
    assert abs(e["exposure_ev"] - -1.4183755) < 1e-7  # the documentation's figure
    assert math.isclose(e["samples"], 3.6, rel_tol=1e-12)
    assert got["gray"].exposure() == e
    assert got.exposure(channel="gray") == e


def test_exposure_settings(backend):
    got = engine_for(backend).histogram(worked_example(), ev=(-4, 0, 1))
    whole = got.exposure(low=0, high=100, key=0.5)
    assert whole["average_ev"] == -2.0  # the mean of -3.5, -2.5, -1.5, -0.5
    assert whole["exposure_ev"] == -1 + 2.0 and whole["samples"] == 8
    assert (whole["low_percent"], whole["high_percent"], whole["key"]) == (0, 100, 0.5)
    # below stands for e_0's EV, above for e_N's: with clamp they are in the end bins already.
    wider = worked_example()
    wider[0, 0], wider[1, 3] = 2.0**-9, 4.0
    unclamped = engine_for(backend).histogram(wider, ev=(-4, 0, 1)).exposure(low=0, high=100)
    clamped = engine_for(backend).histogram(wider, ev=(-4, 0, 1), clamp=True).exposure(low=0, high=100)
    assert unclamped["average_ev"] == nearest_fp32(Fraction(-4 * 2 - 7 - 2 * 5 - 2 * 3 - 1 + 0, 2 * 8))
    assert clamped["average_ev"] == nearest_fp32(Fraction(2 * -7 - 2 * 5 - 2 * 3 - 2 * 1, 2 * 8))


def test_exposure_of_rgb_takes_the_luminance(backend):
    grey = worked_example()
    image = np.repeat(grey[:, :, None], 3, axis=2)
    image[0, 0] = [0.9, 0.01, 0.01]  # R differs from Y
    got = engine_for(backend).histogram(image, ev=(-8, 0, 2))
    y, r = got.exposure(), got.exposure(channel="R")
    assert y["channel"] == "Y" and r["channel"] == "R" and y != r
    assert y == got["Y"].exposure() and r == got["R"].exposure()
    assert engine_for(backend).histogram(image, ev=(-8, 0, 2), mode="luma").exposure() == y
    with pytest.raises(KeyError, match="Y or gray"):
        engine_for(backend).histogram(image, ev=(-8, 0, 2), mode="rgb").exposure()
    with pytest.raises(KeyError, match="A"):
        got.exposure(channel="A")


def test_no_exposure_is_none(backend):
    e = engine_for(backend)
    assert e.histogram(worked_example()).exposure() is None  # uniform bins
    assert e.histogram(worked_example(), bins=[0, 0.5, 1]).exposure() is None  # edges from 0: no EV
    assert e.histogram(worked_example(), bins=[-1, 0.5, 1]).exposure() is None
    nan = np.full((2, 2), np.nan, np.float32)
    assert e.histogram(nan, ev=(-4, 0, 1)).exposure() is None  # no non-NaN sample
    assert e.histogram(worked_example(), bins=[0.01, 0.5, 1]).exposure() is not None


@pytest.mark.parametrize("settings", [dict(low=60, high=50), dict(low=50, high=50), dict(low=-1), dict(high=101),
                                      dict(key=0), dict(key=-0.18), dict(key=float("inf")), dict(low=float("nan"))])
def test_bad_exposure_settings(settings):
    h = imghist.histogram(worked_example(), ev=(-4, 0, 1), backend="cpu")
    for call in (h.exposure, h["gray"].exposure):
        with pytest.raises(imghist.InvalidArgument, match="percentiles|key"):
            call(**settings)
    with pytest.raises(TypeError):
        h.exposure(50)  # keywords only


def test_exposure_equals_the_command_lines(tmp_path):
    cli = os.environ.get("IMGHIST_CLI")
    if not cli:
        pytest.skip("IMGHIST_CLI is not set (scripts/python-test.sh sets it when the command is built)")
    rng = np.random.default_rng(9)
    image = np.exp2(rng.uniform(-12, 3, (24, 31, 3))).astype(np.float32)
    path = tmp_path / "hdr.raw"
    path.write_bytes(image.tobytes())
    for args, kwargs, settings in (
            (["--ev=-10:6:4", "--exposure"], dict(ev=(-10, 6, 4)), {}),
            (["--exposure", "--exposure-percentiles", "10:90", "--key", "0.25"], dict(ev=(-16, 16, 8)),
             dict(low=10, high=90, key=0.25)),
    ):
        out = subprocess.run([cli, "--backend", "cpu", "--format", "json", "--raw", "rgb_f32:31x24", *args, str(path)],
                             check=True, capture_output=True, text=True).stdout
        result = json.loads(out)["results"][0]
        got = imghist.histogram(image, backend="cpu", extremes=True, sample_stats=True, **kwargs)  # the command line's defaults
        assert got.exposure(**settings) == result.pop("exposure")
        del result["file"]
        assert got.to_dict() == result


# ---------------------------------------------------------------- results: dicts, pickle, merge, tiles


@pytest.mark.parametrize("image, kwargs", [
    (images.make_image("random", np.uint8, 9, 11, 4, seed=10), dict(bins=[0, 0.5, 99.5, 200, 256])),
    (images.make_image("specials", np.float32, 9, 11, 3, seed=10), dict(bins=[-1, 0.1, 1 / 3, 1], clamp=True)),
    (images.make_image("random", np.float16, 9, 11, 0, seed=10), dict(ev=(-8, 1, 3))),
], ids=["u8", "f32-clamped", "f16-ev"])
def test_dict_and_pickle_keep_the_edges(image, kwargs):
    h = imghist.histogram(image, backend="cpu", **kwargs)
    d = h.to_dict()
    for channel in d["histograms"].values():
        assert list(channel)[:4] == ["bins", "range", "edges", "closed_top"]  # as the command line writes them
        assert channel["edges"] == h.edges.tolist() and len(channel["edges"]) == channel["bins"] + 1
    back = imghist.Histogram.from_dict(json.loads(json.dumps(d)))
    assert back == h and back.to_dict() == d
    np.testing.assert_array_equal(back.edges, h.edges)
    assert pickle.loads(pickle.dumps(h)) == h
    total = back + h  # from_dict restored the layout's edges: the two merge
    np.testing.assert_array_equal(total.counts, 2 * h.counts)
    assert "edges" not in imghist.histogram(image, backend="cpu").to_dict()["histograms"][h.channels[0]]


def test_from_dict_refuses_bad_edges():
    d = imghist.histogram(np.arange(16, dtype=np.uint8).reshape(4, 4), bins=[0, 4, 8, 16], backend="cpu").to_dict()

    def edited(**channel):
        return {**d, "histograms": {"gray": {**d["histograms"]["gray"], **channel}}}

    for broken in (edited(edges=[0, 4, 16]), edited(edges=[0, 8, 4, 16]), edited(edges=[0, 4, 8, 17]),
                   edited(edges=[1, 4, 8, 16]), edited(edges="0,4,8,16"), edited(edges=[0, 4, "8", 16]),
                   edited(edges=[0, 4, float("nan"), 16])):
        with pytest.raises(imghist.InvalidArgument, match="edges"):
            imghist.Histogram.from_dict(broken)


def test_merging_edge_histograms(backend):
    e = engine_for(backend)
    a = images.make_image("random", np.uint8, 10, 12, 3, seed=11)
    b = images.make_image("random", np.uint8, 7, 5, 3, seed=12)
    edges = [0, 10.5, 100, 256]
    ha, hb = e.histogram(a, bins=edges), e.histogram(b, bins=edges)
    assert ha.can_merge(hb)
    np.testing.assert_array_equal((ha + hb).counts, ha.counts + hb.counts)
    for other in (e.histogram(b, bins=[0, 10.5, 100, 255]), e.histogram(b, bins=3, range=(0, 256)),
                  e.histogram(b, bins=np.arange(257.0)), e.histogram(b)):
        assert not ha.can_merge(other) and not other.can_merge(ha)
        with pytest.raises(imghist.MergeError):
            ha + other
    assert not e.histogram(a, bins=np.arange(257.0)).can_merge(e.histogram(a))  # edges are not uniform bins


def test_tiles_and_roi_with_edges(backend):
    image = images.make_image("random", np.float32, 23, 29, 3, seed=13)
    edges = [-0.05, 0, 0.25, 1 / 3, 0.5, 1, 1.05]
    got = engine_for(backend).histogram(image, bins=edges, roi=(2, 3, 20, 17), tiles=(3, 2))
    np.testing.assert_array_equal(got.tile_counts.sum(axis=(0, 1)), got.counts)
    check(got.tile(0, 0), np.ascontiguousarray(image[3:11, 2:8]), edges)
    check(engine_for(backend).histogram(image, bins=edges, roi=(2, 3, 20, 17)), image[3:20, 2:22], edges)
    assert "edges" in repr(got) and "edges" in repr(got["Y"])


# ---------------------------------------------------------------- every entry point takes them


def test_every_call_takes_edges_and_ev(backend):
    image = images.make_image("random", np.float32, 12, 13, 3, seed=14)
    second = images.make_image("random", np.float32, 12, 13, 3, seed=15)
    edges = [-0.05, 0.1, 0.5, 0.9, 1.05]
    ev = (-6, 1, 2)
    e = engine_for(backend)
    for keywords in (dict(bins=edges), dict(bins=np.array(edges)), dict(bins=tuple(edges)), dict(ev=ev)):
        want = e.histogram(image, **keywords)
        assert imghist.histogram(image, backend=backend, **keywords) == want
        for batch in (e.histogram_batch([image, second], **keywords),
                      imghist.histogram_batch(np.stack([image, second]), backend=backend, **keywords)):
            assert batch[0] == want and batch[1] == e.histogram(second, **keywords)
    check(e.histogram(image, bins=edges), image, edges)


def _pgm(path, pixels: np.ndarray) -> None:
    """A binary 16-bit PGM (big-endian, as PNM says)."""
    height, width = pixels.shape
    path.write_bytes(b"P5\n%d %d\n65535\n" % (width, height) + pixels.astype(">u2").tobytes())


def test_files_take_edges_and_ev(tmp_path, backend):
    if not imghist.has_file_reader:
        if os.environ.get("IMGHIST_REQUIRE_IO") == "1":
            pytest.fail("IMGHIST_REQUIRE_IO=1 but this imghist has no file reader (built without OpenImageIO)")
        pytest.skip("this imghist has no file reader (built without OpenImageIO)")
    pixels = [images.make_image("random", np.uint16, 9 + i, 14, 0, seed=16 + i) for i in range(3)]
    paths = []
    for i, p in enumerate(pixels):
        paths.append(tmp_path / f"{i}.pgm")
        _pgm(paths[-1], p)
    e = engine_for(backend)
    edges = [0.5, 1000, 30000.5, 65535]
    for keywords in (dict(bins=edges), dict(ev=(0, 16, 1))):
        want = [e.histogram(p, **keywords) for p in pixels]
        assert imghist.histogram_file(paths[0], backend=backend, **keywords).counts.tolist() == want[0].counts.tolist()
        got = e.histogram_file(str(paths[1]), **keywords)
        assert got.counts.tolist() == want[1].counts.tolist() and got.edges.tolist() == want[1].edges.tolist()
        run = imghist.histogram_files(paths, engine=e, **keywords)
        outcomes = list(run)
        for f, w in zip(outcomes, want):
            assert f.error is None and f.histogram.counts.tolist() == w.counts.tolist()
        np.testing.assert_array_equal(run.sum.counts, sum(w.counts for w in want))
        np.testing.assert_array_equal(run.sum.edges, want[0].edges)
    check(e.histogram_file(paths[2], bins=edges), pixels[2], edges)
    with pytest.raises(imghist.InvalidArgument, match="range"):
        list(imghist.histogram_files(paths, bins=edges, range=(0, 10), engine=e))


def test_dask_sums_edge_histograms(tmp_path):
    """Results cross processes as to_dict / from_dict: the edges must come back for the sums to add."""
    if not imghist.has_file_reader:
        if os.environ.get("IMGHIST_REQUIRE_IO") == "1":
            pytest.fail("IMGHIST_REQUIRE_IO=1 but this imghist has no file reader (built without OpenImageIO)")
        pytest.skip("imghist.dask needs the file reader")
    import dask  # a test dependency (pyproject.toml), as for test_dask.py

    from imghist import dask as imghist_dask

    paths = []
    for i in range(4):
        paths.append(tmp_path / f"{i}.pgm")
        _pgm(paths[-1], images.make_image("random", np.uint16, 8 + i, 9, 0, seed=30 + i))
    keywords = dict(bins=[0.5, 1000, 30000.5, 65535], backend="cpu")
    local = imghist.histogram_files(paths, **keywords).run()
    with dask.config.set(scheduler="processes", num_workers=2):
        run = imghist_dask.histogram_files([str(p) for p in paths], client=None, partition_size=1, **keywords)
    assert run.sum == local.sum and run.counted == 4
    np.testing.assert_array_equal(run.sum.edges, [0.5, 1000, 30000.5, 65535])


# ---------------------------------------------------------------- refused


@pytest.mark.parametrize("kwargs, pattern", [
    (dict(bins=[0, 2, 1]), "strictly increasing"),
    (dict(bins=[0, 1, 1]), "strictly increasing"),
    (dict(bins=[5]), "2 to 4097"),
    (dict(bins=[]), "2 to 4097"),
    (dict(bins=np.arange(4098.0)), "2 to 4097"),
    (dict(bins=[0, float("nan"), 2]), "not finite"),
    (dict(bins=[0, 1, float("inf")]), "not finite"),
    (dict(bins=[-float("inf"), 1]), "not finite"),
    (dict(bins=[0, 10], range=(0, 10)), "range"),
    (dict(bins=np.zeros((2, 3))), "one-dimensional"),
    (dict(bins=[0, "1"]), "edge 1 must be a number"),
    (dict(bins=[0, [1]]), "edge 1 must be a number"),
    (dict(bins=[False, True]), "edge 0 must be a number"),
    (dict(bins="0,1,2"), "bins"),
    (dict(bins={0, 1}), "bins"),
    (dict(ev=(1, 0, 1)), "LO < HI"),
    (dict(ev=(0, 0, 4)), "LO < HI"),
    (dict(ev=(0, float("nan"), 4)), "LO < HI"),
    (dict(ev=(0, 1, 0)), "bins_per_stop"),
    (dict(ev=(0, 1, -2)), "bins_per_stop"),
    (dict(ev=(0, 1, 2.5)), "bins_per_stop"),
    (dict(ev=(0, 1.5, 1)), "whole number"),
    (dict(ev=(-16, 16, 256)), "more than 4096"),
    (dict(ev=(-130, -120, 1)), "normal fp32"),
    (dict(ev=(120, 130, 1)), "normal fp32"),
    (dict(ev=(0, 1)), r"\(lo, hi, bins_per_stop\)"),
    (dict(ev="0:1:2"), r"\(lo, hi, bins_per_stop\)"),
    (dict(ev=(-4, 0, 1), bins=4), "ev="),
    (dict(ev=(-4, 0, 1), bins=[1, 2]), "ev="),
    (dict(ev=(-4, 0, 1), range=(0, 1)), "ev="),
])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_bad_edges_are_invalid_argument(kwargs, pattern, dtype):
    image = np.zeros((4, 4), dtype)
    with pytest.raises(imghist.InvalidArgument, match=pattern) as e:
        imghist.histogram(image, backend="cpu", **kwargs)
    assert isinstance(e.value, ValueError)
    for call in (imghist.Engine("cpu").histogram, lambda i, **k: imghist.histogram_batch([i], backend="cpu", **k)):
        with pytest.raises(imghist.InvalidArgument, match=pattern):
            call(image, **kwargs)


@pytest.mark.parametrize("edges, pattern", [
    ([1.0, 1.0 + 1e-12], "one value in fp32"),      # distinct doubles, one fp32 value
    ([0.1, 0.1000000001, 0.2], "one value in fp32"),
    ([0, 1e39], "overflows fp32"),
])
def test_edges_float_samples_cannot_tell_apart(edges, pattern):
    for dtype in (np.float32, np.float16):
        with pytest.raises(imghist.InvalidArgument, match=pattern):
            imghist.histogram(np.zeros((2, 2), dtype), bins=edges, backend="cpu")
    imghist.histogram(np.zeros((2, 2), np.uint16), bins=edges, backend="cpu")  # integer samples compare exactly


def test_edges_and_integers_are_told_apart():
    image = np.zeros((4, 4), np.uint8)
    assert imghist.histogram(image, bins=np.int64(3)).bins == 3  # a numpy integer is a number of bins
    assert imghist.histogram(image, bins=np.array(3)).bins == 3  # and so is a 0-d integer array
    assert imghist.histogram(image, bins=np.array([3, 5])).bins == 1  # a 1-D array holds edges
    assert imghist.histogram(image, bins=range(0, 256, 16)).edges.tolist() == list(range(0, 256, 16))
    assert imghist.histogram(image, bins=np.float32([0, 0.5, 2])).edges.tolist() == [0, 0.5, 2]
    with pytest.raises(imghist.InvalidArgument, match="bins"):
        imghist.histogram(image, bins=np.float64(3.0))


def test_documentation_names_edges_and_ev():
    for word in ("edges", "ev", "fp32", "ceil"):
        assert word in imghist.histogram.__doc__, word
    assert "exposure" in imghist.Histogram.exposure.__doc__ and "channel" in imghist.Histogram.exposure.__doc__
    assert "edge" in imghist.Histogram.__doc__
