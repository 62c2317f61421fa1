"""Histogram.plot() and ChannelHistogram.plot() with matplotlib's Agg backend: what is drawn, not how it looks."""

from __future__ import annotations

import sys

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.text import Text  # noqa: E402

import imghist  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture
def rgba():
    """Random RGBA with a spike of zeros in R (cut off by the linear scale) and some 255s."""
    image = np.random.default_rng(5).integers(0, 256, (60, 70, 4), dtype=np.uint8)
    image[:20, :, 0] = 0
    image[-3:, :, 1] = 255
    return image


def lines_of(ax, name):
    return [line for line in ax.get_lines() if line.get_gid() == name]


def fills_of(ax, name):
    return [c for c in ax.collections if c.get_gid() == name]


def texts_of(ax) -> list:
    ax.figure.canvas.draw()
    return [t.get_text() for t in ax.findobj(Text)]


def is_grey(rgba) -> bool:
    r, g, b = rgba[:3]
    return max(r, g, b) - min(r, g, b) < 0.05


def test_rgb_curves_over_a_filled_luminance(rgba):
    h = imghist.histogram(rgba, backend="cpu")
    ax = h.plot()
    centres = (h.edges[:-1] + h.edges[1:]) / 2
    for c, name in enumerate(("R", "G", "B", "Y")):
        (line,) = lines_of(ax, name)
        np.testing.assert_array_equal(line.get_ydata(), h.counts[c].astype(np.float64))
        np.testing.assert_array_equal(line.get_xdata(), centres)
    # The drawn red curve is the red channel's own histogram (numpy's count).
    np.testing.assert_array_equal(lines_of(ax, "R")[0].get_ydata(), np.bincount(rgba[:, :, 0].ravel(), minlength=256))
    red, green, blue = (matplotlib.colors.to_rgba(lines_of(ax, n)[0].get_color()) for n in "RGB")
    assert red[0] > max(red[1:3]) and green[1] > max(green[0], green[2]) and blue[2] > max(blue[:2])
    (area,) = fills_of(ax, "Y")
    assert is_grey(area.get_facecolor()[0])
    # As the command line: the colours have a faint fill under their curves, the luminance a solid one.
    assert all(fills_of(ax, n)[0].get_alpha() < 0.1 < area.get_alpha() for n in "RGB")
    assert ax.get_yscale() == "linear" and ax.get_xlim() == (h.edges[0], h.edges[-1])
    assert ax.get_xlabel() == "8-bit value" and ax.get_ylabel() == "pixels per bin"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["Red", "Green", "Blue", "Luminance"]


def test_clipped_shares_and_cut_off_end_bins(rgba):
    h = imghist.histogram(rgba, backend="cpu")
    ax = h.plot()
    texts = texts_of(ax)
    share_r_low = np.mean(rgba[:, :, 0] == 0)
    share_g_high = np.mean(rgba[:, :, 1] == 255)
    # 1 decimal from 10% up, 2 below
    assert f"R {100 * share_r_low:.1f}%" in texts and f"G {100 * share_g_high:.2f}%" in texts
    assert "clipped low (0)" in texts and "clipped high (255)" in texts
    # R's bin 0 and G's bin 255 are above the linear scale: marked at the top at their ends; none in log scale.
    cut = {c.get_gid(): c.get_offsets()[0][0] for c in ax.collections if c.get_gid().startswith("cut-")}
    assert cut == {"cut-R": 0.5, "cut-G": 255.5}
    assert ax.get_ylim()[1] < h.counts[0, 0]
    log_ax = h.plot(log=True)
    assert log_ax.get_yscale() in ("log", "symlog") and log_ax.get_ylim()[1] >= h.counts.max()
    assert log_ax.get_ylabel() == "pixels per bin (log scale)"
    assert not [c for c in log_ax.collections if c.get_gid().startswith("cut-")]


def test_few_bins_are_steps_and_range_notes(rgba):
    h = imghist.histogram(rgba, backend="cpu", bins=16, range=(10, 200))
    ax = h.plot()
    for c, name in enumerate(h.channels):
        (line,) = lines_of(ax, name)
        assert line.get_drawstyle() == "steps-post"
        np.testing.assert_array_equal(line.get_xdata(), h.edges)
        np.testing.assert_array_equal(line.get_ydata()[:-1], h.counts[c].astype(np.float64))
    below = max(np.mean(rgba[:, :, c] < 10) for c in range(3))
    assert any(t.startswith(f"{100 * below:.1f}% below the range") for t in texts_of(ax))
    assert "16 bins over [10, 200)" in ax.get_xlabel()


def test_user_axes(rgba):
    fig, (left, right) = plt.subplots(1, 2)
    h = imghist.histogram(rgba, backend="cpu", mode="rgb")
    assert h.plot(ax=right) is right and right.figure is fig and len(plt.get_fignums()) == 1
    assert not left.get_lines() and len(right.get_lines()) == 3
    assert h["G"].plot(ax=left, log=True) is left
    (line,) = lines_of(left, "G")
    np.testing.assert_array_equal(line.get_ydata(), h["G"].counts.astype(np.float64))
    assert left.get_yscale() in ("log", "symlog")


def test_gray_float_and_alpha():
    """gray: one line over its area; A: dashed, never filled."""
    gray = np.random.default_rng(1).uniform(-0.1, 1.1, (30, 40)).astype(np.float32)
    h = imghist.histogram(gray, backend="cpu")
    ax = h.plot()
    (line,) = lines_of(ax, "gray")
    np.testing.assert_array_equal(line.get_ydata(), h.counts[0].astype(np.float64))
    assert is_grey(fills_of(ax, "gray")[0].get_facecolor()[0])
    assert "last bin: 1.0 and above" in ax.get_xlabel()
    texts = texts_of(ax)
    assert f"gray {100 * np.mean(gray <= 0):.2f}%" in texts and "clipped high (>= 1)" in texts
    rgba = np.random.default_rng(2).integers(0, 65536, (20, 30, 4), dtype=np.uint16)
    ax = imghist.histogram(rgba, backend="cpu", alpha=True, mode="rgb").plot()
    assert [line.get_gid() for line in ax.get_lines()] == ["R", "G", "B", "A"]
    assert lines_of(ax, "A")[0].get_linestyle() == "--" and ax.get_xlabel() == "16-bit value"
    assert not fills_of(ax, "A")


def test_without_matplotlib(monkeypatch, rgba):
    h = imghist.histogram(rgba, backend="cpu")
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)  # import fails as if not installed
    with pytest.raises(ImportError, match="needs matplotlib"):
        h.plot()
