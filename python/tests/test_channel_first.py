"""layout="chw": channel-first (C, H, W) images and (N, C, H, W) batches, as torch tensors and
ML loaders hold them, give the histograms of the same image in (H, W, C), bit for bit: each
channel against numpy.histogram, and whole results against the channel-last call. Per-channel
counts read the planes where they lie (numpy allocates nothing the image's size); the
luminance and an alpha threshold need one packed copy, which is made for host arrays."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import imghist

DTYPES = (np.uint8, np.uint16, np.float16, np.float32)


def channel_first(rng, dtype, shape):
    """Random samples of `dtype`; floats are multiples of 1/1024 in [0, 1], exact in float16."""
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, np.iinfo(dtype).max + 1, shape, dtype=dtype)
    return (rng.integers(0, 1025, shape) / 1024).astype(dtype)


def numpy_bins(dtype):
    """(bins, range) numpy.histogram takes, with closed_top=True imghist counts alike."""
    return {np.uint8: (64, (0, 255)), np.uint16: (100, (0, 65535))}.get(dtype, (64, (0.0, 1.0)))


def channel_last(a):
    return np.ascontiguousarray(np.moveaxis(a, -3, -1))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("channels", (1, 3, 4))
def test_each_channel_is_numpys_histogram_of_its_plane(backend, dtype, channels):
    a = channel_first(np.random.default_rng(channels), dtype, (channels, 37, 53))
    bins, value_range = numpy_bins(dtype)
    h = imghist.histogram(a, layout="chw", mode="rgb", alpha=True, bins=bins, range=value_range, closed_top=True,
                          backend=backend)
    assert len(h.channels) == channels
    for c, name in enumerate(h.channels):
        expected, _ = np.histogram(a[c].astype(np.float64), bins=bins, range=value_range)
        assert np.array_equal(h[name].counts, expected), name
    same = imghist.histogram(channel_last(a) if channels > 1 else a[0], mode="rgb", alpha=True, bins=bins,
                             range=value_range, closed_top=True, backend=backend)
    assert h == same and h.to_dict() == same.to_dict()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("keywords", [
    {},  # mode "all": the luminance, from a packed copy
    {"mode": "luma", "alpha": True},
    {"mode": "rgb", "roi": (3, 4, 30, 15), "tiles": (3, 2), "sample_stats": True, "extremes": True},
    {"mode": "rgb", "mask": "every other row"},
    {"mode": "all", "alpha_threshold": 0.5},
])
def test_views_and_keywords_give_the_channel_last_result(backend, dtype, keywords):
    rng = np.random.default_rng(54)
    whole = channel_first(rng, dtype, (4, 45, 61))
    for a in (whole, whole[:, 5:-3, 2:-7], whole[::-1], whole[:3, ::2], np.broadcast_to(whole[:1], (3, 45, 61))):
        kw = dict(keywords)
        if kw.get("mask") is not None:
            kw["mask"] = np.arange(a.shape[1])[:, None].repeat(a.shape[2], 1) % 2 == 0
        if "alpha_threshold" in kw and a.shape[0] != 4:
            continue
        h = imghist.histogram(a, layout="chw", backend=backend, **kw)
        assert h == imghist.histogram(channel_last(a), backend=backend, **kw), (a.shape, a.strides)


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_batch_gives_each_images_channel_last_result(backend, dtype):
    batch = channel_first(np.random.default_rng(7), dtype, (6, 3, 24, 31))
    for b in (batch, batch[::2, :, 1:-1]):
        for keywords in ({"mode": "rgb"}, {}):
            got = imghist.histogram_batch(b, layout="chw", backend=backend, **keywords)
            expected = imghist.histogram_batch(channel_last(b), backend=backend, **keywords)
            assert len(got) == len(b) and all(x == y for x, y in zip(got, expected))
            assert got.sum() == expected.sum()
    sizes = [batch[0], batch[1, :, :20, :17], batch[2, :, ::2]]  # a list: sizes may differ
    for keywords in ({"mode": "rgb"}, {}):
        got = imghist.histogram_batch(sizes, layout="chw", backend=backend, **keywords)
        assert all(x == imghist.histogram(channel_last(a), backend=backend, **keywords) for x, a in zip(got, sizes))


def test_per_channel_counts_make_no_copy_and_the_luminance_one():
    a = np.random.default_rng(3).integers(0, 256, (3, 1500, 2000), dtype=np.uint8)
    image_bytes = a.nbytes
    for keywords, copies in (({"mode": "rgb"}, False), ({"mode": "all"}, True)):
        imghist.histogram(a[:, :8, :8], layout="chw", **keywords)  # engines opened beforehand
        tracemalloc.start()
        imghist.histogram(a, layout="chw", **keywords)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert (peak >= image_bytes) == copies, (keywords, peak, image_bytes)


def test_bad_channel_first_input_gets_one_clear_error():
    cases = [
        (np.zeros((2, 8, 8), np.uint8), "has 2 channels in axis 0"),
        (np.zeros((5, 8, 8), np.float32), "has 5 channels in axis 0"),
        (np.zeros((8, 8, 3), np.uint8), r"\(an \(H, W, C\) array takes layout=None\)"),
        (np.zeros((8, 8), np.uint8), r"channel-first \(C, H, W\) array; got shape \(8, 8\)"),
        (np.zeros((2, 3, 8, 8), np.uint8), r"got shape \(2, 3, 8, 8\)"),
        (np.zeros((3, 8, 16), np.uint8)[:, :, ::2], "a channel's plane cannot be read as it lies"),
        (np.zeros((3, 16, 8), np.uint16).transpose(0, 2, 1), "a channel's plane cannot be read as it lies"),
    ]
    for image, message in cases:
        with pytest.raises(imghist.InvalidArgument, match=message):
            imghist.histogram(image, layout="chw")
    with pytest.raises(TypeError, match="int32"):
        imghist.histogram(np.zeros((3, 8, 8), np.int32), layout="chw")
    with pytest.raises(imghist.InvalidArgument, match="takes layout='chw'"):
        imghist.histogram(np.zeros((3, 64, 48), np.uint8))
    with pytest.raises(imghist.InvalidArgument, match=r"\(N, C, H, W\) array; got shape \(3, 8, 8\)"):
        imghist.histogram_batch(np.zeros((3, 8, 8), np.uint8), layout="chw")
    with pytest.raises(imghist.InvalidArgument, match=r"images\[1\]: layout 'chw': shape \(5, 8, 8\) has 5 channels"):
        imghist.histogram_batch([np.zeros((3, 8, 8), np.uint8), np.zeros((5, 8, 8), np.uint8)], layout="chw")
    with pytest.raises(imghist.InvalidArgument, match=r"images\[1\]: its dtype, channels or device differ"):
        imghist.histogram_batch([np.zeros((3, 8, 8), np.uint8), np.zeros((4, 8, 8), np.uint8)], layout="chw")
    with pytest.raises(imghist.InvalidArgument, match="'chw'"):
        imghist.histogram(np.zeros((8, 8, 3), np.uint8), layout="hwc")
