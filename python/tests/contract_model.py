"""numpy's own evaluation of the imghist contract (docs/semantics.md).

This is the tests' oracle: an independent reading of the document, written from its rules and
not from the C++ code. Every pixel operation is vectorised numpy; where the document says
fp32, the arithmetic is np.float32 throughout (one IEEE operation per ufunc call, so nothing is
contracted into an FMA), and range comparisons are made on the total-order keys of the float
bit patterns, as the document specifies.

    model_histogram(array, mode="all", bins=None, range=None, clamp=False,
                    weights="rec709", alpha=False, layout=None, mask=None,
                    alpha_threshold=None) -> ModelResult
    selection(array, alpha_index, mask, alpha_threshold) -> (H, W) bool or None   "Masks and alpha"
    model_extremes(array, mode=..., mask=..., ...) -> {channel: Extremes} or None   "Value extremes"
    tile_bounds(start, length, n) -> [(first, size)]   the tiles of one side ("Regions and tiles")

A request the document refuses (bad bins, a range the fp32 sequence cannot count alike
everywhere, weights that do not sum to 10000) raises ModelRefused.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

WEIGHT_SUM = 10000
NAMED_WEIGHTS = {
    "rec709": (2126, 7152, 722),
    "rec601": (2990, 5870, 1140),
    "rec2020": (2627, 6780, 593),
}
MAX_BINS = 1 << 20
MAX_FLOAT_SCALE = 2.0**100
MIN_NORMAL_F32 = 2.0**-126

# dtype -> (format family, sample kind, largest integer value or None for floats)
_SAMPLE_TYPES = {
    np.dtype(np.uint8): ("8", "u8", 255),
    np.dtype(np.uint16): ("16", "u16", 65535),
    np.dtype(np.float16): ("_f16", "f16", None),
    np.dtype(np.float32): ("_f32", "f32", None),
}
# samples per pixel -> (format prefix, sample index of R, G, B, A)
_NATURAL_ORDER = {1: ("gray", 0, 0, 0, None), 3: ("rgb", 0, 1, 2, None), 4: ("rgba", 0, 1, 2, 3)}
_SWAPPED_ORDER = {"bgr": (3, "bgr", 2, 1, 0, None), "bgra": (4, "bgra", 2, 1, 0, 3)}


class ModelRefused(ValueError):
    """The document refuses this request (the library must raise InvalidArgument)."""


@dataclass(frozen=True)
class BinLayout:
    """The resolved bins of one request: [lo, hi) in `bins` bins, or [lo, hi] with closed_top."""

    bins: int
    lo: float
    hi: float
    closed_top: bool
    clamp: bool
    integer: bool

    @property
    def edges(self) -> np.ndarray:
        """bins + 1 edges like np.histogram's; the closed top bin is [hi, hi]."""
        steps = self.bins - 1 if self.closed_top else self.bins
        k = np.arange(self.bins + 1, dtype=np.float64)
        edges = self.lo + (self.hi - self.lo) * k / steps
        edges[-1] = self.hi
        return edges


@dataclass
class ModelResult:
    """What the contract says one request gives: per channel, counts and the extra counters."""

    format: str
    channels: tuple
    counts: np.ndarray  # uint64, (channels, bins)
    nan: np.ndarray  # uint64, (channels,)
    below: np.ndarray
    above: np.ndarray
    clipped_low: np.ndarray
    clipped_high: np.ndarray
    layout: BinLayout
    counted_pixels: int | None = None  # with a mask or an alpha threshold: the pixels they let through

    @property
    def bins(self) -> int:
        return self.layout.bins

    @property
    def lo(self) -> float:
        return self.layout.lo

    @property
    def hi(self) -> float:
        return self.layout.hi

    @property
    def closed_top(self) -> bool:
        return self.layout.closed_top

    @property
    def clamp(self) -> bool:
        return self.layout.clamp

    @property
    def edges(self) -> np.ndarray:
        return self.layout.edges

    def channel(self, name: str) -> dict:
        """One channel's numbers as a dict (counts, nan, below, above, clipped_low/high)."""
        c = self.channels.index(name)
        return {
            "counts": self.counts[c],
            "nan": self.nan[c],
            "below": self.below[c],
            "above": self.above[c],
            "clipped_low": self.clipped_low[c],
            "clipped_high": self.clipped_high[c],
        }


# ---------------------------------------------------------------- formats and channels


def pixel_format(array: np.ndarray, layout: str | None = None):
    """(format name, sample kind, largest integer value, sample index of R, G, B, A)."""
    if array.dtype not in _SAMPLE_TYPES:
        raise TypeError(f"the contract has no format for dtype {array.dtype}")
    suffix, kind, max_value = _SAMPLE_TYPES[array.dtype]
    if array.ndim == 2:
        samples = 1
    elif array.ndim == 3 and array.shape[2] in _NATURAL_ORDER:
        samples = array.shape[2]
    else:
        raise ValueError(f"shape {array.shape} is not (H, W) or (H, W, 1 | 3 | 4)")
    if layout in _SWAPPED_ORDER:
        want, prefix, r, g, b, a = _SWAPPED_ORDER[layout]
        if kind != "u8" or samples != want:
            raise ValueError(f"layout {layout!r} needs uint8 with {want} samples")
    elif layout in (None, "gray", "rgb", "rgba"):
        prefix, r, g, b, a = _NATURAL_ORDER[samples]
        if layout is not None and layout != prefix:
            raise ValueError(f"layout {layout!r} does not match {samples} samples")
    else:
        raise ValueError(f"unknown layout {layout!r}")
    return prefix + suffix, kind, max_value, r, g, b, a


def channel_names(prefix_gray: bool, mode: str, alpha: bool, has_alpha: bool) -> tuple:
    """The channels of a request in output order (docs/semantics.md, "Channels")."""
    if mode not in ("all", "rgb", "luma"):
        raise ModelRefused(f"unknown mode {mode!r}")
    if prefix_gray:
        return ("gray",)  # whatever the mode: a gray image's luminance is itself
    names = []
    if mode != "luma":
        names += ["R", "G", "B"]
    if alpha and has_alpha:
        names.append("A")
    if mode != "rgb":
        names.append("Y")
    return tuple(names)


def parse_weights(weights) -> tuple:
    """(wr, wg, wb) integers over 10000 from a name, "WR,WG,WB" or a triple."""
    if isinstance(weights, str):
        if weights in NAMED_WEIGHTS:
            return NAMED_WEIGHTS[weights]
        parts = weights.split(",")
        if len(parts) != 3 or not all(p.isdigit() for p in parts):
            raise ModelRefused(f"weights {weights!r} are not a name or WR,WG,WB")
        weights = tuple(int(p) for p in parts)
    w = tuple(int(x) for x in weights)
    if len(w) != 3 or any(x < 0 for x in w) or sum(w) != WEIGHT_SUM:
        raise ModelRefused(f"weights {weights!r} must be 3 non-negative integers summing to {WEIGHT_SUM}")
    return w


# ---------------------------------------------------------------- bins and range


def resolve_layout(kind: str, bins=None, range=None, clamp=False) -> BinLayout:
    """The bins a request gives a sample kind ("Default bins", "Custom bins and range")."""
    integer = kind in ("u8", "u16")
    default_hi = {"u8": 256.0, "u16": 65536.0}.get(kind, 1.0)
    if bins is None and range is None:
        if integer:
            return BinLayout(256, 0.0, default_hi, False, bool(clamp), True)
        return BinLayout(257, 0.0, 1.0, True, bool(clamp), False)
    n = 256 if bins is None else int(bins)
    lo, hi = (0.0, default_hi) if range is None else (float(range[0]), float(range[1]))
    if not 1 <= n <= MAX_BINS:
        raise ModelRefused(f"bins must be between 1 and {MAX_BINS}")
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise ModelRefused("range must be finite with LO < HI")
    layout = BinLayout(n, lo, hi, False, bool(clamp), integer)
    if integer:
        _check_integer_range(layout)
    else:
        _check_float_range(layout)
    return layout


def _check_integer_range(layout: BinLayout) -> None:
    if layout.lo != np.floor(layout.lo) or layout.hi != np.floor(layout.hi):
        raise ModelRefused("an integer format's range must have integer bounds")
    if (int(layout.hi) - int(layout.lo)) * layout.bins >= 2**63:
        raise ModelRefused("(hi - lo) * bins must stay below 2^63")
    # The library also refuses |lo| or |hi| above 1e15 (src/core/request.cpp); docs/semantics.md
    # does not say so, and the tests do not go there.


def float_scale(layout: BinLayout) -> np.float32:
    """float(N / (hi - lo)): divided in double, rounded once to fp32 (256 bins below 1.0 when closed)."""
    below_hi = layout.bins - 1 if layout.closed_top else layout.bins
    return np.float32(below_hi / (layout.hi - layout.lo))


def _check_float_range(layout: BinLayout) -> None:
    with np.errstate(over="ignore"):
        lo_f, hi_f = np.float32(layout.lo), np.float32(layout.hi)
        # Ends that round to one fp32 value: the document's limits do not name this case (every
        # value would be below or above); the library refuses it, and so does the model.
        if not (np.isfinite(lo_f) and np.isfinite(hi_f) and lo_f < hi_f):
            raise ModelRefused("range must be distinct finite values in fp32")
        if not np.isfinite(hi_f - lo_f):
            raise ModelRefused("hi - lo overflows fp32")
        scale = float_scale(layout)
    if not (np.isfinite(scale) and scale >= MIN_NORMAL_F32):
        raise ModelRefused("the bin scale is not a normal fp32 number")
    if layout.bins > 1 and scale >= MAX_FLOAT_SCALE:
        raise ModelRefused("bins narrower than 2^-100")


# ---------------------------------------------------------------- classification


@dataclass
class _Counted:
    """One channel: its bin index per binned sample and its extra counters."""

    binned: np.ndarray  # bin index of every sample that lands in a bin
    nan: int
    below: int
    above: int
    clipped_low: int
    clipped_high: int


def _classify_int(v: np.ndarray, layout: BinLayout, max_value: int) -> _Counted:
    """Integer samples: k = floor((v - lo) * N / (hi - lo)) in exact 64-bit arithmetic."""
    v = v.astype(np.int64, copy=False)
    lo, hi, n = int(layout.lo), int(layout.hi), layout.bins
    below, above = v < lo, v >= hi
    inside = ~(below | above)
    k = (v[inside] - lo) * n // (hi - lo)
    parts = [k]
    if layout.clamp:
        parts += [np.zeros(np.count_nonzero(below), np.int64), np.full(np.count_nonzero(above), n - 1, np.int64)]
    return _Counted(np.concatenate(parts), 0, int(np.count_nonzero(below)), int(np.count_nonzero(above)),
                    int(np.count_nonzero(v == 0)), int(np.count_nonzero(v == max_value)))


def float_key(values: np.ndarray) -> np.ndarray:
    """The total order of fp32 bit patterns, with -0 folded onto +0 (docs: ih_float_key)."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    bits = np.where(bits == np.uint32(0x80000000), np.uint32(0), bits)
    negative = (bits & np.uint32(0x80000000)) != 0
    return np.where(negative, ~bits, bits | np.uint32(0x80000000)).astype(np.uint32)


def _key_of(x: float) -> np.uint32:
    return float_key(np.array([x], dtype=np.float32))[0]


def _classify_float(v: np.ndarray, layout: BinLayout) -> _Counted:
    """fp32 samples: the one specified sequence of "Custom bins and range" (and the default rule)."""
    v = np.ascontiguousarray(v, dtype=np.float32).ravel()
    is_nan = np.isnan(v)
    v, key = v[~is_nan], float_key(v[~is_nan])
    n = layout.bins
    lo_f = np.float32(layout.lo)
    lo_key, hi_key = _key_of(lo_f), _key_of(np.float32(layout.hi))
    if layout.closed_top:  # [lo, hi]: the ends are binned, only beyond them is below / above
        low_end, high_end = key <= lo_key, key >= hi_key
        below, above = key < lo_key, key > hi_key
    else:
        low_end, high_end = key < lo_key, key >= hi_key
        below, above = low_end, high_end
    inside = ~(low_end | high_end)
    offset = v[inside] - lo_f  # fp32 - fp32: one rounding
    scaled = offset * float_scale(layout)  # fp32 * fp32: one rounding
    assert scaled.dtype == np.float32
    k = np.where(scaled < np.float32(n), scaled, np.float32(n - 1)).astype(np.int64)
    parts = [k]
    if layout.clamp or layout.closed_top:
        parts += [np.zeros(np.count_nonzero(low_end), np.int64), np.full(np.count_nonzero(high_end), n - 1, np.int64)]
    zero_key, one_key = _key_of(0.0), _key_of(1.0)
    return _Counted(np.concatenate(parts), int(np.count_nonzero(is_nan)), int(np.count_nonzero(below)),
                    int(np.count_nonzero(above)), int(np.count_nonzero(key <= zero_key)),
                    int(np.count_nonzero(key >= one_key)))


def luma_int(r: np.ndarray, g: np.ndarray, b: np.ndarray, w: tuple) -> np.ndarray:
    """Y = floor((wr R + wg G + wb B) / 10000), exact integer arithmetic."""
    r, g, b = (x.astype(np.int64) for x in (r, g, b))
    return (w[0] * r + w[1] * g + w[2] * b) // WEIGHT_SUM


def luma_float(r: np.ndarray, g: np.ndarray, b: np.ndarray, w: tuple) -> np.ndarray:
    """Y = (wr r + wg g) + wb b in fp32, weights float(w / 10000.0), each operation rounded alone."""
    wr, wg, wb = (np.float32(x / float(WEIGHT_SUM)) for x in w)
    r, g, b = (np.asarray(x, dtype=np.float32) for x in (r, g, b))
    with np.errstate(all="ignore"):  # Inf * 0 and Inf - Inf give NaN, as the contract does
        y = (wr * r + wg * g) + wb * b
    assert y.dtype == np.float32
    return y


# ---------------------------------------------------------------- the request


def tile_bounds(start: int, length: int, n: int) -> list:
    """[(first, size)] of n tiles over [start, start + length): every tile is length // n pixels,
    the last also takes the remainder ("Regions and tiles")."""
    size = length // n
    return [(start + k * size, size if k < n - 1 else length - (n - 1) * size) for k in range(n)]


def selection(array: np.ndarray, alpha_index, mask=None, alpha_threshold=None):
    """The (H, W) pixels a mask and an alpha threshold let through ("Masks and alpha"), or None
    without either: a pixel counts where the mask is non-zero and its alpha sample is above the
    threshold, compared in double (NaN alpha is never above; a == T is not above)."""
    if mask is None and alpha_threshold is None:
        return None
    keep = np.ones(array.shape[:2], dtype=bool)
    if mask is not None:
        mask = np.asarray(mask)
        if mask.shape != array.shape[:2]:
            raise ModelRefused(f"a mask of shape {mask.shape} for an image of {array.shape[:2]}")
        keep &= mask != 0
    if alpha_threshold is not None:
        if alpha_index is None:
            raise ModelRefused("an alpha threshold needs a format with alpha")
        if np.isnan(alpha_threshold):
            raise ModelRefused("a NaN alpha threshold")
        alpha = array.reshape(array.shape[0], array.shape[1], -1)[:, :, alpha_index].astype(np.float64)
        keep &= alpha > float(alpha_threshold)  # every sample type widens exactly to double
    return keep


def _check_denormals_kept() -> None:
    """The model needs IEEE fp32 with denormals (a library that sets FTZ/DAZ would break it)."""
    tiny = np.array([2.0**-140], dtype=np.float32)
    if not (tiny * np.float32(0.5))[0] > 0:
        raise RuntimeError("this process flushes fp32 denormals: the contract model would be wrong")


def model_histogram(array, *, mode="all", bins=None, range=None, clamp=False, weights="rec709",
                    alpha=False, layout=None, mask=None, alpha_threshold=None) -> ModelResult:
    """The histogram docs/semantics.md defines for a numpy image (see the module docstring)."""
    _check_denormals_kept()
    array = np.asarray(array)
    fmt, kind, max_value, ri, gi, bi, ai = pixel_format(array, layout)
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise ModelRefused("an empty image")
    w = parse_weights(weights)
    bin_layout = resolve_layout(kind, bins, range, clamp)
    pixels = array.reshape(array.shape[0], array.shape[1], -1)
    keep = selection(array, ai, mask, alpha_threshold)
    if keep is not None:
        pixels = pixels[keep][None]  # one row of the selected pixels, in any order (counts only)
    names = channel_names(fmt.startswith("gray"), mode, alpha, ai is not None)
    is_float = kind in ("f16", "f32")

    def sample(index):
        s = pixels[:, :, index].ravel()
        return s.astype(np.float32) if is_float else s  # half -> float is exact

    sources = {"gray": 0, "R": ri, "G": gi, "B": bi, "A": ai}
    counted = []
    for name in names:
        if name == "Y":
            rgb = (sample(ri), sample(gi), sample(bi))
            values = luma_float(*rgb, w) if is_float else luma_int(*rgb, w)
        else:
            values = sample(sources[name])
        counted.append(_classify_float(values, bin_layout) if is_float else
                       _classify_int(values, bin_layout, max_value))
    result = _result(fmt, names, counted, bin_layout)
    if keep is not None:
        result.counted_pixels = int(np.count_nonzero(keep))
    return result


@dataclass(frozen=True)
class Extremes:
    """One channel's value extremes: the smallest and largest finite sample (None when no sample
    is finite) and the +Inf and -Inf counts."""

    finite_min: float | None
    finite_max: float | None
    positive_infinities: int
    negative_infinities: int


def extremes_of(values: np.ndarray) -> Extremes:
    """The extremes of fp32 samples: NaN ignored, -0 reported as +0 (the total order folds it)."""
    finite = values[np.isfinite(values)]
    lo = hi = None
    if finite.size:
        # + 0.0 turns -0.0 into +0.0 and leaves every other value as it is.
        lo, hi = float(np.min(finite)) + 0.0, float(np.max(finite)) + 0.0
    return Extremes(lo, hi, int(np.count_nonzero(values == np.inf)), int(np.count_nonzero(values == -np.inf)))


def model_extremes(array, *, mode="all", weights="rec709", alpha=False, layout=None, mask=None,
                   alpha_threshold=None) -> dict | None:
    """{channel: Extremes} of the pixels a request counts ("Value extremes"), the luminance Y
    computed by the fp32 rule; None for integer images, which have none."""
    _check_denormals_kept()
    array = np.asarray(array)
    fmt, kind, _, ri, gi, bi, ai = pixel_format(array, layout)
    if kind not in ("f16", "f32"):
        return None
    pixels = array.reshape(array.shape[0], array.shape[1], -1).astype(np.float32)  # half -> float is exact
    keep = selection(array, ai, mask, alpha_threshold)
    if keep is not None:
        pixels = pixels[keep][None]
    sources = {"gray": 0, "R": ri, "G": gi, "B": bi, "A": ai}
    out = {}
    for name in channel_names(fmt.startswith("gray"), mode, alpha, ai is not None):
        if name == "Y":
            values = luma_float(pixels[:, :, ri], pixels[:, :, gi], pixels[:, :, bi], parse_weights(weights))
        else:
            values = pixels[:, :, sources[name]]
        out[name] = extremes_of(values.ravel())
    return out


def _result(fmt: str, names: tuple, counted: list, layout: BinLayout) -> ModelResult:
    counts = np.stack([np.bincount(c.binned, minlength=layout.bins) for c in counted]).astype(np.uint64)
    assert counts.shape == (len(names), layout.bins)

    def column(field):
        return np.array([getattr(c, field) for c in counted], dtype=np.uint64)

    return ModelResult(fmt, names, counts, column("nan"), column("below"), column("above"),
                       column("clipped_low"), column("clipped_high"), layout)


__all__ = ["BinLayout", "Extremes", "ModelRefused", "ModelResult", "NAMED_WEIGHTS", "extremes_of", "float_key",
           "luma_float", "luma_int", "model_extremes", "model_histogram", "pixel_format", "resolve_layout", "selection",
           "tile_bounds"]
