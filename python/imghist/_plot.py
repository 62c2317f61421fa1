"""Histogram.plot() and ChannelHistogram.plot(): the command line's chart (src/cli/plot*.cpp) in
matplotlib. R, G, B (and A, dashed) are curves over luminance / gray drawn as filled grey areas;
the linear scale fits the interior bins (end bins above it are marked at the top); under the
plot, the share of each channel's samples at the lowest and highest value (for floats, at or
past 0 and 1).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np

# The command line's palette and channel styles (plot_draw.hpp, style_for in plot.cpp).
BACKGROUND, PLOT_BACKGROUND = (0.137, 0.137, 0.141), (0.086, 0.086, 0.090)
GRID, AXIS_TEXT, DIM, NOTE = (0.22, 0.22, 0.23), (0.62, 0.62, 0.64), (0.42, 0.42, 0.44), (0.95, 0.75, 0.35)


@dataclass(frozen=True)
class Style:
    colour: tuple
    fill_alpha: float
    line_alpha: float
    line_width: float
    dashed: bool
    label: str


STYLES = {
    "R": Style((1.00, 0.32, 0.30), 0.07, 0.95, 1.5, False, "Red"),
    "G": Style((0.32, 0.86, 0.38), 0.07, 0.95, 1.5, False, "Green"),
    "B": Style((0.34, 0.58, 1.00), 0.08, 0.95, 1.5, False, "Blue"),
    # A camera raw file's greens (CameraRawHistogram), styled as the command line draws them.
    "G1": Style((0.32, 0.86, 0.38), 0.07, 0.95, 1.5, False, "G1"),
    "G2": Style((0.62, 0.95, 0.45), 0.00, 0.90, 1.4, True, "G2"),
    "A": Style((0.95, 0.82, 0.45), 0.00, 0.90, 1.4, True, "Alpha"),
    "Y": Style((0.78, 0.78, 0.80), 0.34, 0.35, 1.0, False, "Luminance"),
    "gray": Style((0.80, 0.80, 0.82), 0.38, 0.85, 1.2, False, "Gray"),
}
AREAS = ("Y", "gray")  # drawn filled, behind the curves
STEP_BINS = 64  # up to this many bins the outline is drawn as steps, as the command line does


@dataclass
class Chart:
    """What the chart needs of a Histogram (or of one channel, with less known)."""
    channels: Sequence[Any]  # ChannelHistograms
    edges: np.ndarray
    sample: Optional[str] = None  # "u8", "u16", "float"; None: unknown (one channel)
    closed_top: bool = False
    clamp: bool = False
    subtitle: str = ""


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("imghist's plot() needs matplotlib, which is not installed: "
                          "pip install matplotlib") from e
    return plt


def _sample_of(format_name: str) -> str:
    if "_f" in format_name:
        return "float"
    return "u16" if format_name.endswith("16") else "u8"


def describe(bins: int, edges: np.ndarray, closed_top: bool, clamp: bool) -> str:
    """As the command line's describe_layout: '256 bins over [0, 256)'."""
    text = f"{bins} bins over [{edges[0]:g}, {edges[-1]:g}{']' if closed_top else ')'}"
    return text + (", clamped" if clamp else "")


def percent(share: float) -> str:
    if share == 0:
        return "0%"
    if share < 0.0001:
        return "<0.01%"
    return f"{share * 100:.2f}%" if share < 0.1 else f"{share * 100:.1f}%"


def si(value: float, _pos=None) -> str:
    """Tick labels of counts: 0, 500, 1k, 2.5M, ..."""
    scaled, suffix = value, ""
    for limit, s in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= limit:
            scaled, suffix = value / limit, s
            break
    return f"{scaled:.0f}{suffix}" if abs(scaled - round(scaled)) < 1e-9 else f"{scaled:.3g}{suffix}"


TARGET_TICKS = 8


@dataclass
class Axis:
    """The chart's x axis, by the command line's rule (src/cli/chart_axis.cpp): "value", or "ev" for
    EV bins (edges above zero, evenly spaced in log2); in axis units (values, or EV = log2 of the
    value) the bins + 1 boundaries of the bars and the ticks, with their labels and the axis title."""
    kind: str
    bounds: np.ndarray
    ticks: list
    labels: list
    title: str


def nice_step(span: float, target: int) -> float:
    """A round step (1, 2, 2.5 or 5 times a power of ten) giving about `target` ticks over `span`."""
    raw = span / max(1, target)
    if not raw > 0:  # the span of one integer value: none (the command line's log10(0) = -inf gives 0 too)
        return 0.0
    mag = 10.0 ** math.floor(math.log10(raw))
    for m in (1.0, 2.0, 2.5, 5.0, 10.0):
        if m * mag >= raw:
            return m * mag
    return 10 * mag


def _format_number(v: float, step: float) -> str:
    decimals = 0
    while decimals < 6 and abs(step * 10.0 ** decimals - _round_half_away(step * 10.0 ** decimals)) > 1e-9:
        decimals += 1
    return f"{v:.{decimals}f}"


def _round_half_away(v: float) -> float:
    """As C++'s std::round (Python's round() rounds halves to even)."""
    return math.copysign(math.floor(abs(v) + 0.5), v)


def _is_ev(edges: np.ndarray) -> bool:
    if len(edges) < 3 or edges[0] <= 0:
        return False
    stops = np.log2(edges.astype(np.float64))
    step = (stops[-1] - stops[0]) / (len(edges) - 1)
    return bool(np.all(np.abs(np.diff(stops) - step) <= 1e-4 * step + 1e-6))


def _ev_ticks(first: float, last: float):
    step = 1.0
    while (last - first) / step > TARGET_TICKS:
        step *= 2
    ticks, ev = [], math.ceil(first / step - 1e-9) * step
    while ev <= last + 1e-9:
        ticks.append(ev)
        ev += step
    return ticks, [_format_number(0.0 if t == 0 else t, 1) for t in ticks]


def _value_ticks(lo: float, hi: float, integer: bool):
    """Round values over [lo, hi]; an integer value sits at the centre of its unit, [v, v + 1)."""
    if integer and lo == 0 and hi in (256, 65536):
        values, step = [0, hi / 4, hi / 2, 3 * hi / 4, hi - 1], 1.0
    else:
        top = hi - 1 if integer else hi
        step = nice_step(top - lo, TARGET_TICKS)
        if integer:
            step = max(1.0, _round_half_away(step))
        values, v = [], math.ceil(lo / step) * step
        while v <= top + step * 1e-9:
            values.append(0.0 if abs(v) < step * 1e-9 else v)
            v += step
    centre = 0.5 if integer else 0.0
    return [v + centre for v in values], [_format_number(v, step) for v in values]


def chart_axis(edges, sample: Optional[str] = None, closed_top: bool = False, clamp: bool = False) -> Axis:
    """The x axis of a histogram with these edges (Histogram.edges) of `sample` values ("u8", "u16",
    "float", None: unknown): which kind, where each bar spans, the ticks and their labels. The
    closed top bin of the float rule (1.0 and above) is drawn one bin wide, right of 1.0."""
    edges = np.asarray(edges, dtype=np.float64)
    bins = len(edges) - 1
    bounds = edges.copy()
    if closed_top:
        bounds[-1] = edges[0] + (edges[-1] - edges[0]) * bins / (bins - 1)
    description = describe(bins, edges, closed_top, clamp)
    if _is_ev(edges):
        bounds = np.log2(edges)
        ticks, labels = _ev_ticks(bounds[0], bounds[-1])
        return Axis("ev", bounds, ticks, labels, f"EV  (log2 of the value, 0 = 1.0;  {description})")
    integer = sample in ("u8", "u16")
    ticks, labels = _value_ticks(edges[0], edges[-1], integer)
    if closed_top:
        title = "value  (last bin: 1.0 and above)"
    else:
        title = {"u8": "8-bit value", "u16": "16-bit value"}.get(sample or "", "value")
        if not (bins == 256 and integer and edges[0] == 0 and edges[-1] in (256, 65536)):
            title += f"  ({description})"
    return Axis("value", bounds, ticks, labels, title)


def _outline(axis: Axis, counts: np.ndarray):
    """(x, y, drawstyle): steps over the bars for few bins, else a curve through the bars' centres."""
    bounds = axis.bounds
    if len(counts) <= STEP_BINS:
        return bounds, np.append(counts, counts[-1]).astype(np.float64), "steps-post"
    return (bounds[:-1] + bounds[1:]) / 2, counts.astype(np.float64), "default"


def _counts_top(chart: Chart, log: bool) -> float:
    """Linear: fitted to the interior bins, so a spike of clipped pixels does not flatten the rest."""
    counts = np.stack([np.asarray(c.counts) for c in chart.channels])
    all_max = float(counts.max())
    interior = float(counts[:, 1:-1].max()) if counts.shape[1] > 2 else 0.0
    if log:
        return 10 ** max(math.log10(1 + all_max) * 1.06, 1.0) - 1
    return max((interior or all_max) * 1.08, 1.0)


def _draw_channels(ax, chart: Chart, axis: Axis, top: float, log: bool) -> None:
    order = [c for c in chart.channels if c.name in AREAS] + [c for c in chart.channels if c.name not in AREAS]
    for z, c in enumerate(order):
        s = STYLES[c.name]
        x, y, drawstyle = _outline(axis, np.asarray(c.counts))
        area = c.name in AREAS
        if s.fill_alpha > 0:
            ax.fill_between(x, y, step="post" if drawstyle == "steps-post" else None, color=s.colour,
                            alpha=s.fill_alpha, linewidth=0, zorder=2 + z * 0.01, gid=c.name,
                            label=s.label if area else "_" + s.label)
        ax.plot(x, y, drawstyle=drawstyle, color=s.colour, alpha=s.line_alpha, linewidth=s.line_width,
                linestyle="--" if s.dashed else "-", zorder=3 + z * 0.01, gid=c.name,
                label="_" + s.label if area else s.label)
    if not log:
        _draw_cut_markers(ax, axis, order, top)


def _draw_cut_markers(ax, axis: Axis, order, top: float) -> None:
    """End bins above the linear scale: a small triangle at the top in the channel's colour."""
    b = axis.bounds
    for end, x in ((0, (b[0] + b[1]) / 2), (-1, (b[-2] + b[-1]) / 2)):
        cut = [c for c in order if float(np.asarray(c.counts)[end]) > top]
        for stack, c in enumerate(cut):
            ax.scatter([x], [0.97 - 0.035 * stack], marker="^", s=30, color=STYLES[c.name].colour, alpha=0.95,
                       transform=ax.get_xaxis_transform(), clip_on=False, zorder=5, gid=f"cut-{c.name}")


def _style_axes(ax, chart: Chart, axis: Axis, top: float, log: bool) -> None:
    from matplotlib.ticker import FuncFormatter

    ax.set_facecolor(PLOT_BACKGROUND)
    ax.grid(True, color=GRID, linewidth=0.8)
    ax.set_axisbelow(True)
    for spine in ax.spines.values():
        spine.set_color(GRID)
    ax.tick_params(colors=AXIS_TEXT, labelsize=9)
    if log:
        ax.set_yscale("symlog", linthresh=1, linscale=0.3)  # like the command line's log10(1 + count)
    ax.set_ylim(0, top)
    ax.yaxis.set_major_formatter(FuncFormatter(si))
    ax.set_xlim(axis.bounds[0], axis.bounds[-1])
    ax.set_xticks(axis.ticks, axis.labels)
    ax.set_xlabel(axis.title, color=AXIS_TEXT)
    ax.set_ylabel("pixels per bin (log scale)" if log else "pixels per bin", color=AXIS_TEXT)
    if chart.subtitle:
        ax.set_title(chart.subtitle, loc="left", color=AXIS_TEXT, fontsize=10)


def _draw_legend(ax, chart: Chart) -> None:
    from matplotlib.patches import Patch

    handles = []
    for c in chart.channels:
        s = STYLES[c.name]
        face = s.fill_alpha * 1.6 if c.name in AREAS else 0.35
        handles.append(Patch(facecolor=(*s.colour, face), edgecolor=(*s.colour, s.line_alpha),
                             linestyle="--" if s.dashed else "-", label=s.label))
    ax.legend(handles=handles, loc="lower right", bbox_to_anchor=(1, 1.0), ncol=len(handles), frameon=False,
              fontsize=9, labelcolor=AXIS_TEXT, handlelength=1.0, borderaxespad=0.3)


# Each end's caption, in the command line's words (clip_caption, src/cli/sample_meaning.cpp): float
# shares at or past 0 and 1 are captioned as the table's columns, not as clipping, since 1.0 is
# display white and scene-referred light goes past it unclipped. None: a channel of unknown format.
CLIP_CAPTIONS = {"u8": ("clipped low (0)", "clipped high (255)"), "u16": ("clipped low (0)", "clipped high (65535)"),
                 "float": ("<= 0", ">= 1"), None: ("clipped low", "clipped high")}


def _clipping_pieces(chart: Chart, end: int) -> list:
    """(text, colour, bold) of one end's row (plot_clipping.cpp): label, each channel's share."""
    label = CLIP_CAPTIONS[chart.sample][end]
    pieces, clipping = [], []
    for c in chart.channels:
        share = c.stats()["clipped_low" if end == 0 else "clipped_high"]
        shown = percent(share) if share is not None else "-"
        pieces.append((f"{c.name} {shown}", STYLES[c.name].colour if share else DIM, bool(share and share >= 0.01)))
        if share:
            clipping.append(c.name)
    # The indicator lit in the colours that clip: white for gray, or when only Y or A clip.
    lit = [float(k in clipping) for k in "RGB"]
    if "gray" in clipping or (clipping and sum(lit) == 0):
        lit = [1.0, 1.0, 1.0]
    indicator = tuple(0.25 + 0.75 * v for v in lit) if clipping else DIM
    arrow = ("\u25c0" if end == 0 else "\u25b6", indicator, False)
    row = [(label, AXIS_TEXT, False)] + pieces
    return [arrow] + row if end == 0 else row[1:] + [row[0], arrow]


def _outside_note(chart: Chart, end: int) -> str:
    """Samples outside a custom, unclamped range were not binned: the largest share."""
    if chart.clamp or chart.closed_top:
        return ""
    worst = 0.0
    for c in chart.channels:
        n = c.stats()["count"] + c.below + c.above + c.nan
        worst = max(worst, (c.below if end == 0 else c.above) / n if n else 0.0)
    return f"{percent(worst)} {'below' if end == 0 else 'above'} the range (not binned)" if worst > 0 else ""


def _draw_clipping(ax, chart: Chart) -> None:
    from matplotlib.offsetbox import AnchoredOffsetbox, HPacker, TextArea, VPacker
    from matplotlib.transforms import offset_copy

    below_axis = offset_copy(ax.transAxes, fig=ax.figure, y=-44, units="points")
    for end in (0, 1):
        areas = [TextArea(t, textprops={"color": c, "fontweight": "bold" if b else "normal", "fontsize": 9})
                 for t, c, b in _clipping_pieces(chart, end)]
        rows = [HPacker(children=areas, sep=7, pad=0)]
        note = _outside_note(chart, end)
        if note:
            rows.append(TextArea(note, textprops={"color": NOTE, "fontsize": 8.5}))
        box = VPacker(children=rows, sep=4, pad=0, align="left" if end == 0 else "right")
        ax.add_artist(AnchoredOffsetbox(loc="upper left" if end == 0 else "upper right", child=box, pad=0,
                                        borderpad=0, frameon=False, bbox_to_anchor=(end, 0),
                                        bbox_transform=below_axis))


def draw(chart: Chart, ax=None, log: bool = False):
    """Draws the chart into `ax` (a new figure when None) and returns the Axes."""
    plt = _pyplot()
    if ax is None:
        fig, ax = plt.subplots(figsize=(9.6, 5.4))
        fig.patch.set_facecolor(BACKGROUND)
        fig.subplots_adjust(left=0.08, right=0.97, top=0.86, bottom=0.24)
    top = _counts_top(chart, log)
    axis = chart_axis(chart.edges, chart.sample, chart.closed_top, chart.clamp)
    _draw_channels(ax, chart, axis, top, log)
    _style_axes(ax, chart, axis, top, log)
    _draw_legend(ax, chart)
    _draw_clipping(ax, chart)
    return ax


def plot_histogram(self, ax=None, log: bool = False):
    """Draws the histogram as the command line's --plot does, with matplotlib; returns the Axes.

    ax   a matplotlib Axes to draw into, or None for a new figure (9.6 x 5.4 inches).
    log  counts on a log scale (symlog: 0 stays visible, like the command line's log10(1 + count)).

    R, G, B (and A, dashed) are coloured curves; luminance (Y) and gray are filled grey areas
    behind them. The x axis is in bin values (.edges), each bar at its true position; EV bins
    (edges evenly spaced in log2, as ev= makes) are on an EV axis: x = log2(value), ticks at whole
    stops (chart_axis gives the positions). With few bins (<= 64) outlines are steps.
    The linear scale fits the interior bins; an end bin above it is marked by a triangle at the
    top. Under the plot: each channel's share of samples at the lowest and the highest value ("<= 0"
    and ">= 1" for float images, whose values may go past 1 unclipped), and the share outside a custom range that was not binned. Each channel's curve has
    gid = its name (its Line2D, and the filled area of Y / gray). Needs matplotlib (ImportError
    with the fix otherwise).
    """
    edges = np.asarray(self.edges)
    subtitle = (f"{self.width} \u00d7 {self.height}  \u00b7  {self.format}  \u00b7  "
                f"{describe(self.bins, edges, self.closed_top, self.clamp)}  \u00b7  {self.backend}")
    chart = Chart(list(self), edges, _sample_of(self.format), self.closed_top, self.clamp, subtitle)
    return draw(chart, ax, log)


def plot_channel(self, ax=None, log: bool = False):
    """Draws this one channel as Histogram.plot() would (its colour, its clipped shares); returns the Axes.

    The channel does not know its pixel format, so the x axis is titled "value" and the clipping
    row names no extreme values. See Histogram.plot for ax and log.
    """
    edges = np.asarray(self.edges)
    closed_top = len(edges) > 2 and edges[-1] == edges[-2]
    return draw(Chart([self], edges, None, closed_top, False), ax, log)
