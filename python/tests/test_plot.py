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
from imghist._plot import chart_axis  # noqa: E402


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
    assert f"gray {100 * np.mean(gray <= 0):.2f}%" in texts and ">= 1" in texts
    rgba = np.random.default_rng(2).integers(0, 65536, (20, 30, 4), dtype=np.uint16)
    ax = imghist.histogram(rgba, backend="cpu", alpha=True, mode="rgb").plot()
    assert [line.get_gid() for line in ax.get_lines()] == ["R", "G", "B", "A"]
    assert lines_of(ax, "A")[0].get_linestyle() == "--" and ax.get_xlabel() == "16-bit value"
    assert not fills_of(ax, "A")


def test_float_shares_are_captioned_as_the_table_columns():
    """Float samples at or past 0 and 1 are not clipping (1.0 is display white; scene light goes
    past it): the captions are the command line's table columns, "<= 0" and ">= 1"."""
    hdr = np.random.default_rng(3).uniform(-0.5, 40.0, (20, 30, 3)).astype(np.float32)
    texts = texts_of(imghist.histogram(hdr, backend="cpu", mode="rgb").plot())
    assert "<= 0" in texts and ">= 1" in texts
    assert not [t for t in texts if "clipped" in t]
    assert f"R {100 * np.mean(hdr[:, :, 0] >= 1):.1f}%" in texts
    assert f"B {100 * np.mean(hdr[:, :, 2] <= 0):.2f}%" in texts


def test_integer_bins_of_one_value():
    """Bins over one integer value ([5, 6) holds 5 only) are drawn, ticked at that value (their
    axis span is 0: plot() raised ValueError math domain error)."""
    image = np.random.default_rng(4).integers(3, 8, (10, 12), dtype=np.uint8)
    for h, value in ((imghist.histogram(image, backend="cpu", bins=[5, 6]), 5),
                     (imghist.histogram(image, backend="cpu", bins=1, range=(0, 1)), 0)):
        ax = h.plot()
        assert h.counts[0, 0] == np.count_nonzero(image == value)
        np.testing.assert_array_equal(lines_of(ax, "gray")[0].get_ydata()[:1], [h.counts[0, 0]])
        assert str(value) in [t.get_text() for t in ax.get_xticklabels()]


def test_without_matplotlib(monkeypatch, rgba):
    h = imghist.histogram(rgba, backend="cpu")
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)  # import fails as if not installed
    with pytest.raises(ImportError, match="needs matplotlib"):
        h.plot()


def test_edge_bins_span_their_edges():
    """Edges 0, 0.1, 0.5, 1, 4, 64: each bar spans its own edges on a value axis, ticks at round values,
    as the command line's chart draws them (tests/cli/test_chart_axis.cpp checks the same numbers)."""
    edges = [0, 0.1, 0.5, 1, 4, 64]
    h = imghist.histogram(np.full((4, 4), 10.0, dtype=np.float32), bins=np.array(edges), backend="cpu")
    axis = chart_axis(h.edges, "float")
    assert axis.kind == "value"
    np.testing.assert_array_equal(axis.bounds, np.float32(edges).astype(np.float64))  # the fp32 edges counted
    assert axis.ticks == [0, 10, 20, 30, 40, 50, 60]
    assert axis.labels == ["0", "10", "20", "30", "40", "50", "60"]
    ax = h.plot()
    (line,) = lines_of(ax, "gray")
    np.testing.assert_array_equal(line.get_xdata(), np.float32(edges))  # steps over the edges themselves
    np.testing.assert_array_equal(line.get_ydata()[:-1], [0, 0, 0, 0, 16])
    assert ax.get_xlim() == (0, 64)
    assert list(ax.get_xticks()) == axis.ticks
    assert [t.get_text() for t in ax.get_xticklabels()] == axis.labels


def test_ev_bins_on_a_stop_axis(tmp_path):
    """ev=(-12, 8, 8): 160 bars of 1/8 stop on an EV axis (x = log2 of the value), ticks at whole stops."""
    h = imghist.histogram(np.full((4, 4), 0.82, dtype=np.float32), ev=(-12, 8, 8), backend="cpu")
    axis = chart_axis(h.edges, "float")
    assert axis.kind == "ev"
    np.testing.assert_allclose(axis.bounds, -12 + np.arange(161) / 8, atol=1e-6)
    assert axis.ticks == [-12, -8, -4, 0, 4, 8]
    assert axis.labels == ["-12", "-8", "-4", "0", "4", "8"]
    ax = h.plot()
    (line,) = lines_of(ax, "gray")
    peak = line.get_xdata()[np.argmax(line.get_ydata())]
    assert abs(peak - np.log2(0.82)) <= 1 / 16  # the bar of 0.82 (-0.29 EV), just left of the 0 tick
    np.testing.assert_allclose(ax.get_xlim(), (-12, 8), atol=1e-6)
    assert [t.get_text() for t in ax.get_xticklabels()] == axis.labels
    assert ax.get_xlabel().startswith("EV")
    ax.figure.savefig(tmp_path / "ev.png")  # renders
    assert (tmp_path / "ev.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_axis_kinds_and_defaults():
    """Only edges above zero evenly spaced in log2 make an EV axis; the defaults keep their ticks."""
    assert chart_axis([1, 2, 4, 8, 16], "u16").kind == "ev"
    assert chart_axis([0, 2, 4, 8, 16], "u16").kind == "value"
    assert chart_axis([1, 2, 4, 8, 17], "float").kind == "value"
    assert chart_axis(np.linspace(1, 2, 17), "float").kind == "value"
    u8 = chart_axis(np.arange(257), "u8")
    assert u8.ticks == [0.5, 64.5, 128.5, 192.5, 255.5] and u8.labels == ["0", "64", "128", "192", "255"]
    closed = chart_axis(np.append(np.arange(257) / 256, 1.0), "float", closed_top=True)
    assert closed.bounds[-1] == 257 / 256 and closed.labels == ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]
