"""How histograms show in Jupyter: _repr_html_ and _repr_png_ called as a notebook calls them,
their output parsed (the HTML's table, the inline SVG as XML, the PNG decoded) and checked
against the histogram's own statistics and counts."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pytest

import imghist

SVG = "{http://www.w3.org/2000/svg}"


class _Parts(HTMLParser):
    """The table's rows (cell texts) and the inline SVG's source, from a _repr_html_."""

    def __init__(self, markup: str):
        super().__init__()
        self.rows: list = []
        self._cell = None
        start = markup.index("<svg")
        self.svg = markup[start:markup.index("</svg>") + len("</svg>")]
        self.feed(markup[:start])

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.rows[-1].append(self._cell)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def _image():
    return np.random.default_rng(11).integers(0, 256, (40, 30, 4), dtype=np.uint8)


def test_the_html_has_the_statistics_table_and_an_svg_chart_of_each_channel():
    h = imghist.histogram(_image(), backend="cpu")
    parts = _Parts(h._repr_html_())
    header, body = parts.rows[0], parts.rows[1:]
    stats = h.stats()
    # the command line's columns, 8-bit samples: in bins only
    assert header == ["channel", "pixels", "mean", "stddev", "median", "p1", "p99", "min", "max", "clip low",
                      "clip high"]
    assert [row[0] for row in body] == list(h.channels)
    for row, name in zip(body, h.channels):
        assert row[header.index("median")] == str(stats[name]["median"])
        assert row[header.index("mean")] == f"{stats[name]['mean']:.2f}"
        assert row[header.index("pixels")] == "1,200"
    svg = ET.fromstring(parts.svg)
    lines = svg.findall(f"{SVG}polyline")
    assert [line.find(f"{SVG}title").text for line in lines] == ["Luminance", "Red", "Green", "Blue"]
    # 256 bins: a curve through the bars' centres, one vertex a bin; the tallest interior bin
    # of each channel is the highest vertex of its curve (smallest y), within the plot
    for line, name in zip(lines, ["Y", "R", "G", "B"]):
        ys = np.array([float(p.split(",")[1]) for p in line.get("points").split()])
        assert len(ys) == 256
        counts = h[name].counts.astype(float)
        assert np.argmin(ys[1:-1]) in np.flatnonzero(counts[1:-1] == counts[1:-1].max())
        assert ys.min() >= 0 and ys.max() <= float(svg.get("height"))


def test_float_samples_add_the_statistics_in_values():
    image = np.random.default_rng(12).uniform(0, 1, (8, 9, 3)).astype(np.float32)
    h = imghist.histogram(image, mode="rgb", backend="cpu")
    parts = _Parts(h._repr_html_())
    header = parts.rows[0]
    assert "median value" in header and "max value" in header
    row = parts.rows[1]
    assert float(row[header.index("max value")]) == pytest.approx(h["R"].stats()["max_value"], rel=1e-5)


def test_the_html_escapes_what_it_shows():
    h = imghist.histogram(_image(), backend="cpu")
    markup = h._repr_html_()
    assert "<imghist.Histogram" not in markup and "&lt;imghist.Histogram" in markup


def test_the_png_is_plot_s_chart():
    pytest.importorskip("matplotlib")
    from matplotlib import image as mpimg

    png = imghist.histogram(_image(), backend="cpu")._repr_png_()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = mpimg.imread(io.BytesIO(png), format="png")
    assert pixels.shape[0] > 200 and pixels.shape[1] > 400  # plot()'s 9.6 x 5.4 inch figure


def test_a_batch_shows_its_images_and_the_chart_of_their_sum():
    images = [_image(), _image()[::2]]
    batch = imghist.histogram_batch(images, backend="cpu")
    parts = _Parts(batch._repr_html_())
    assert "2 images" in batch._repr_html_()
    total = batch.sum()
    column = parts.rows[0].index("pixels")
    assert [row[column] for row in parts.rows[1:]] == [f"{total.stats()[n]['count']:,}" for n in total.channels]
    ET.fromstring(parts.svg)
    pytest.importorskip("matplotlib")
    assert batch._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"


def test_without_matplotlib_the_png_is_none_and_the_html_still_shows():
    done = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import sys
        sys.modules["matplotlib"] = None  # as if not installed
        import numpy as np, imghist
        h = imghist.histogram(np.zeros((4, 4, 3), np.uint8), backend="cpu")
        print(h._repr_png_() is None, "<svg" in h._repr_html_())
        """)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]
