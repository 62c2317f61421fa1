"""How a Histogram and a HistogramBatch show in Jupyter: _repr_html_ (the statistics per channel
as a table, and the chart as inline SVG, drawn with plot()'s own axis, scale and colours from
_plot.py, without matplotlib) and _repr_png_ (plot()'s matplotlib chart; None, so that the
notebook shows the HTML, where matplotlib is not installed)."""

from __future__ import annotations

import html
import io
from typing import Optional

import numpy as np

from . import _plot

SVG_WIDTH, SVG_HEIGHT, MARGIN = 480, 180, 4


# The command line's table (docs/cli.md): (heading, stats() key), in bins; for 16-bit and float
# samples also in values (each bin stands for its centre); the clipped shares in percent.
BIN_COLUMNS = [("pixels", "count"), ("mean", "mean"), ("stddev", "stddev"), ("median", "median"), ("p1", "p1"),
               ("p99", "p99"), ("min", "min"), ("max", "max")]
VALUE_COLUMNS = [("mean value", "mean_value"), ("median value", "median_value"), ("min value", "min_value"),
                 ("max value", "max_value")]
CLIP_COLUMNS = [("clip low", "clipped_low"), ("clip high", "clipped_high")]


def _cell(key: str, value) -> str:
    if value is None:
        return "-"
    if key.startswith("clipped"):
        return _plot.percent(value)
    if key.endswith("_value"):
        return f"{value:.6g}"
    return f"{value:,}" if isinstance(value, int) else f"{value:,.2f}"


def _stats_table(h) -> str:
    stats = h.stats()
    columns = BIN_COLUMNS + (VALUE_COLUMNS if _plot._sample_of(h.format) != "u8" else []) + CLIP_COLUMNS
    head = "".join(f"<th>{html.escape(c)}</th>" for c in ["channel"] + [heading for heading, _ in columns])
    rows = []
    for name, values in stats.items():
        cells = "".join(f"<td>{_cell(key, values.get(key))}</td>" for _, key in columns)
        rows.append(f"<tr><th>{html.escape(name)}</th>{cells}</tr>")
    return f"<table class=\"imghist-stats\"><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _colour(rgb) -> str:
    return "#" + "".join(f"{round(255 * v):02x}" for v in rgb)


def _svg_points(xs: np.ndarray, ys: np.ndarray, steps: bool) -> list:
    """(x, y) vertices of the outline: steps over the bars, else a curve through their centres."""
    if steps:
        xs, ys = np.repeat(xs, 2)[1:], np.repeat(ys, 2)[:-1]
    return list(zip(xs.tolist(), ys.tolist()))


def chart_svg(h) -> str:
    """plot()'s chart, as inline SVG: R, G, B (A dashed) as curves over luminance / gray as filled
    areas, on the x axis plot() uses, the linear scale fitted to the interior bins (end bins above
    it are cut at the top), the plot's dark background."""
    edges = np.asarray(h.edges)
    chart = _plot.Chart(list(h), edges, _plot._sample_of(h.format), h.closed_top, h.clamp)
    axis = _plot.chart_axis(edges, chart.sample, chart.closed_top, chart.clamp)
    top = _plot._counts_top(chart, log=False)
    lo, hi = float(axis.bounds[0]), float(axis.bounds[-1])
    width, height = SVG_WIDTH - 2 * MARGIN, SVG_HEIGHT - 2 * MARGIN

    def to_svg(x, y):
        return (MARGIN + (x - lo) / (hi - lo) * width, MARGIN + height * (1 - min(y, top) / top))

    shapes = []
    order = [c for c in chart.channels if c.name in _plot.AREAS] + [c for c in chart.channels if c.name not in _plot.AREAS]
    for c in order:
        style = _plot.STYLES[c.name]
        x, y, drawstyle = _plot._outline(axis, np.asarray(c.counts))
        points = [to_svg(px, py) for px, py in _svg_points(np.asarray(x), np.asarray(y), drawstyle == "steps-post")]
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        colour = _colour(style.colour)
        if style.fill_alpha > 0:
            base = MARGIN + height
            shapes.append(f'<polygon points="{points[0][0]:.1f},{base} {path} {points[-1][0]:.1f},{base}" '
                          f'fill="{colour}" fill-opacity="{style.fill_alpha}" stroke="none"/>')
        dash = ' stroke-dasharray="4 3"' if style.dashed else ""
        shapes.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-opacity="{style.line_alpha}" '
                      f'stroke-width="{style.line_width}"{dash}><title>{html.escape(style.label)}</title></polyline>')
    title = html.escape(axis.title)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{SVG_WIDTH}" height="{SVG_HEIGHT}" '
            f'viewBox="0 0 {SVG_WIDTH} {SVG_HEIGHT}" role="img"><title>{title}</title>'
            f'<rect width="{SVG_WIDTH}" height="{SVG_HEIGHT}" fill="{_colour(_plot.PLOT_BACKGROUND)}"/>'
            f'{"".join(shapes)}</svg>')


def _caption(h) -> str:
    axis_text = _plot.describe(h.bins, np.asarray(h.edges), h.closed_top, h.clamp)
    size = f"{h.width} \u00d7 {h.height}" if h.width else "sum"
    return f"{size} \u00b7 {h.format} \u00b7 {axis_text} \u00b7 {h.backend}"


def histogram_html(self) -> str:
    """The histogram in a notebook: its description, the statistics per channel and the chart."""
    return (f"<div class=\"imghist\"><p><code>{html.escape(repr(self))}</code></p>{_stats_table(self)}"
            f"<p>{html.escape(_caption(self))}</p>{chart_svg(self)}</div>")


def batch_html(self) -> str:
    """A batch in a notebook: how many images, and the statistics and chart of their sum."""
    if len(self) == 0:
        return "<div class=\"imghist\"><p>an empty imghist.HistogramBatch</p></div>"
    total = self.sum()
    return (f"<div class=\"imghist\"><p>{len(self)} images; their sum:</p>{_stats_table(total)}"
            f"<p>{html.escape(_caption(total))}</p>{chart_svg(total)}</div>")


def _png(h) -> Optional[bytes]:
    try:
        plt = _plot._pyplot()
    except ImportError:
        return None
    ax = h.plot()
    buffer = io.BytesIO()
    ax.figure.savefig(buffer, format="png", dpi=80, facecolor=ax.figure.get_facecolor())
    plt.close(ax.figure)
    return buffer.getvalue()


def histogram_png(self) -> Optional[bytes]:
    """plot()'s chart as PNG bytes; None where matplotlib is not installed."""
    return _png(self)


def batch_png(self) -> Optional[bytes]:
    """The chart of the batch's sum as PNG bytes; None for an empty batch or without matplotlib."""
    return _png(self.sum()) if len(self) else None
