"""The fuzzed values of fuzz_python.py: arrays of any dtype, shape and strides, histogram()'s
keywords, and the mutations of a histogram's dict. Each is drawn from an atheris
FuzzedDataProvider, mostly from values the API accepts and sometimes from those it must refuse.
"""
from __future__ import annotations

import math

import numpy as np

# Every dtype numpy has: the four the API counts, in both byte orders, and those it must refuse.
DTYPES = [np.uint8, np.uint16, np.float16, np.float32, ">u2", ">f2", ">f4", np.int8, np.int16, np.int32,
          np.uint32, np.int64, np.uint64, np.float64, np.longdouble, np.bool_, np.complex64, "V2", "U1", object]
COUNTED_DTYPES = 4  # the first four are those histogram() counts
# Bounded so that a request stays far below the fuzzer's memory limit: pixels and counters.
MAX_SIDE = 48
MAX_COUNTERS = 1 << 20
STRINGS = ["all", "rgb", "luma", "gray", "rgba", "bgr", "bgra", "rec709", "rec601", "rec2020", "2126,7152,722",
           "0,0,0", "1,2", "", "R", "G", "B", "A", "Y", "\x00", "\udcff", "auto", "cpu", "reference"]
SPECIAL_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, 255.0, 256.0, 65535.0, 65536.0, 1e-45, 6e-8, 65504.0, 3.4e38, 1e300,
                  math.inf, -math.inf, math.nan]
SPECIAL_INTS = [0, 1, 2, 3, -1, 255, 256, 4096, 4097, 65535, 65536, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 63,
                2 ** 64, -2 ** 63]


def maybe(fdp, p: float) -> bool:
    """True with probability p; False once the choice bytes have run out, so that a short input
    takes the common path (a counted dtype, no keyword) rather than every rare one."""
    return fdp.ConsumeProbability() > 1 - p


def pick(fdp, values):
    return values[fdp.ConsumeIntInRange(0, len(values) - 1)]


def small_int(fdp, top=8):
    return fdp.ConsumeIntInRange(0, top)


def any_int(fdp):
    return pick(fdp, SPECIAL_INTS) if fdp.ConsumeBool() else fdp.ConsumeIntInRange(-3, 300)


def any_float(fdp):
    return pick(fdp, SPECIAL_FLOATS) if fdp.ConsumeBool() else fdp.ConsumeRegularFloat()


def scalar(fdp):
    """Any value a keyword might be given: right or wrong type."""
    kind = small_int(fdp, 9)
    if kind == 0:
        return None
    if kind == 1:
        return any_int(fdp)
    if kind == 2:
        return any_float(fdp)
    if kind == 3:
        return fdp.ConsumeBool()
    if kind == 4:
        return pick(fdp, STRINGS)
    if kind == 5:
        return fdp.ConsumeBytes(small_int(fdp, 3))
    if kind == 6:
        return np.int64(any_int(fdp) % 2 ** 63) if fdp.ConsumeBool() else np.float32(any_float(fdp))
    if kind == 7:
        return [any_int(fdp) for _ in range(small_int(fdp, 4))]
    if kind == 8:
        return tuple(any_float(fdp) for _ in range(small_int(fdp, 4)))
    return {"x": 1}


# --- arrays ----------------------------------------------------------------------------------

def _filled(fdp, dtype, shape, payload: bytes) -> np.ndarray:
    """A new array whose bytes repeat the payload (so floats hold NaN, Inf and subnormals)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "OU" or dtype.itemsize == 0:
        return np.zeros(shape, dtype=dtype)
    size = int(np.prod(shape)) * dtype.itemsize
    raw = (payload or b"\x80") * (size // max(len(payload), 1) + 1)
    return np.frombuffer(raw[:size], dtype=dtype).reshape(shape).copy()


def _strided(fdp, base: np.ndarray) -> np.ndarray:
    """A view of base that the API reads without a copy (a crop, rows any step apart, rows far
    apart in a large buffer, read-only) or, one time in four, one it must refuse."""
    if base.ndim == 0:
        return base
    if maybe(fdp, 0.25):
        return _refused_view(fdp, base)
    kind = small_int(fdp, 3)
    if kind == 1:  # a crop, every k-th row
        rows = slice(small_int(fdp, 3) or None, -small_int(fdp, 3) or None, pick(fdp, [1, 2, 3, 7]))
        return base[rows, small_int(fdp, 3):] if base.ndim >= 2 else base[rows]
    if kind == 2 and base.size:  # rows far apart in one large buffer
        return _spread(fdp, base, axis=0)
    if kind == 3:
        view = base[...]
        view.flags.writeable = False
        return view
    return base


def _spread(fdp, base: np.ndarray, axis: int) -> np.ndarray:
    """base as every gap-th row (axis 0) or pixel (axis 1) of a larger buffer, up to 16 MB."""
    gap = min(pick(fdp, [1, 7, 4096, 1 << 20]), max(1, (16 << 20) // base.nbytes))
    shape = list(base.shape)
    shape[axis] *= gap
    big = np.zeros(shape, dtype=base.dtype)
    index = (slice(None),) * axis + (slice(None, None, gap),)
    big[index] = base
    return big[index]


def _refused_view(fdp, base: np.ndarray) -> np.ndarray:
    """Views histogram() refuses: backwards, transposed, broadcast, pixels apart, zero-size."""
    kind = small_int(fdp, 5)
    if kind == 0:  # backwards, or every k-th pixel
        index = tuple(slice(None, None, pick(fdp, [-1, -2, 2, 3])) for _ in range(base.ndim))
        return base[index]
    if kind == 1:
        return base.swapaxes(0, 1) if base.ndim >= 2 else base[::-1]
    if kind == 2 and base.shape[0]:  # stride 0: every row the same memory
        return np.broadcast_to(base[:1], (small_int(fdp, 40),) + base.shape[1:])
    if kind == 3 and base.ndim >= 2 and base.size:
        return _spread(fdp, base, axis=1)
    if kind == 4:  # a zero-size view with any strides: nothing to read
        shape = list(base.shape)
        shape[small_int(fdp, len(shape) - 1)] = 0
        strides = [pick(fdp, [0, 1, -1, 1 << 40]) * base.itemsize for _ in shape]
        return np.lib.stride_tricks.as_strided(base, shape=shape, strides=strides)
    return base.reshape(-1) if fdp.ConsumeBool() else base[np.newaxis]


def image(fdp, payload: bytes):
    """An image for histogram(): mostly a counted dtype and shape, sometimes anything else."""
    if maybe(fdp, 0.06):
        return scalar(fdp) if fdp.ConsumeBool() else memoryview(payload[:24])
    dtype = pick(fdp, DTYPES) if maybe(fdp, 0.15) else DTYPES[small_int(fdp, COUNTED_DTYPES - 1)]
    height = small_int(fdp, MAX_SIDE) or 1
    width = small_int(fdp, MAX_SIDE) or 1
    ndim = pick(fdp, [1, 4, 0]) if maybe(fdp, 0.1) else pick(fdp, [3, 2])
    channels = pick(fdp, [2, 5, 0]) if maybe(fdp, 0.1) else pick(fdp, [1, 3, 4])
    shape = {0: (), 1: (width,), 2: (height, width), 3: (height, width, channels),
             4: (2, height, width, channels)}[ndim]
    return _strided(fdp, _filled(fdp, dtype, shape, payload))


def mask_for(fdp, picture, payload: bytes):
    """mask=: usually a 2-D uint8 / bool array of the image's size, sometimes the wrong one."""
    shape = getattr(picture, "shape", (1, 1))[:2]
    if len(shape) < 2 or maybe(fdp, 0.15):
        shape = (small_int(fdp, MAX_SIDE), small_int(fdp, MAX_SIDE))
    dtype = pick(fdp, [np.uint8, np.bool_, np.bool_, np.uint8, np.int8, np.float32])
    mask = _filled(fdp, np.uint8, shape, payload[::-1]).astype(dtype)
    return _strided(fdp, mask) if fdp.ConsumeBool() else mask


# --- keywords ---------------------------------------------------------------------------------

def _edges(fdp):
    """Edges of bins: mostly 2 to 17 increasing finite values at the scale of some format's samples;
    sometimes too few or many, out of order, or holding Inf / NaN."""
    if maybe(fdp, 0.1):
        count = pick(fdp, [0, 1, 4098])
        edges = [any_float(fdp) for _ in range(min(count, 64))]
        return edges + [1e6 + k for k in range(count - len(edges))]
    scale = pick(fdp, [1.0, 256.0, 65536.0, 8.0])
    edges = sorted({fdp.ConsumeFloatInRange(-0.25, 1.25) * scale for _ in range(pick(fdp, [2, 3, 5, 17]))})
    if maybe(fdp, 0.1) and len(edges) > 1:
        edges[small_int(fdp, len(edges) - 1)] = any_float(fdp)
    return np.array(edges) if fdp.ConsumeBool() else edges


def _sensible_range(fdp) -> tuple:
    """(lo, hi) at the scale of some format's samples; whole numbers (as integer formats need) or not."""
    scale = pick(fdp, [1.0, 256.0, 65536.0])
    lo, hi = sorted(scale * fdp.ConsumeFloatInRange(-0.5, 1.5) for _ in range(2))
    return (float(round(lo)), float(round(hi))) if fdp.ConsumeBool() else (lo, hi)


def _bin_keywords(fdp, kw: dict) -> None:
    """bins=, range= and ev=: one way of giving the bins, rarely two that conflict."""
    kind = small_int(fdp, 4)
    conflict = maybe(fdp, 0.05)
    if kind == 1 or conflict:
        kw["bins"] = pick(fdp, [1, 2, 16, 256, 257, 4096, 65536]) if not maybe(fdp, 0.1) else \
            pick(fdp, [0, -1, 2 ** 32, True, 2.0, np.int16(7), np.array([[0.0, 1.0], [2.0, 3.0]]), scalar(fdp)])
    if (kind == 1 and maybe(fdp, 0.6)) or kind == 2 or conflict:
        kw["range"] = _tuple_of(fdp, 2, any_float) if maybe(fdp, 0.2) else \
            _sensible_range(fdp)
    if kind == 3 or (conflict and fdp.ConsumeBool()):
        kw["bins"] = _edges(fdp)
    if kind == 4:
        kw["ev"] = scalar(fdp) if maybe(fdp, 0.1) else \
            (fdp.ConsumeIntInRange(-20, 4), fdp.ConsumeIntInRange(-4, 20), pick(fdp, [1, 2, 8, 0, -1, 2 ** 32]))


def _tuple_of(fdp, count, value):
    return tuple(value(fdp) for _ in range(small_int(fdp, 5) if maybe(fdp, 0.1) else count))


def _roi(fdp, picture):
    """(x, y, width, height) inside the image, or rarely anywhere."""
    shape = getattr(picture, "shape", ())
    if len(shape) < 2 or maybe(fdp, 0.15):
        return _tuple_of(fdp, 4, lambda f: any_int(f) if maybe(f, 0.3) else small_int(f, MAX_SIDE + 2))
    height, width = max(shape[0], 1), max(shape[1], 1)
    x, y = small_int(fdp, width - 1), small_int(fdp, height - 1)
    return x, y, 1 + small_int(fdp, width - x - 1), 1 + small_int(fdp, height - y - 1)


def _tiles(fdp):
    if fdp.ConsumeBool():
        return None
    return _tuple_of(fdp, 2, lambda f: any_int(f) if maybe(f, 0.1) else small_int(f, 9))


def keywords(fdp, picture, payload: bytes) -> dict:
    """histogram()'s keywords, each present with its own chance, valid or not."""
    kw = {}
    wrong = 0.1  # a keyword given is of a wrong type or shape this often

    def given(p):
        return maybe(fdp, p)
    if given(0.4):
        kw["mode"] = scalar(fdp) if given(wrong) else pick(fdp, ["all", "rgb", "luma"])
    _bin_keywords(fdp, kw)
    if given(0.3):
        kw["clamp"] = fdp.ConsumeBool()
    if given(0.2):
        kw["weights"] = _tuple_of(fdp, 3, any_int) if given(wrong) else \
            pick(fdp, ["rec709", "rec601", "rec2020", "2126,7152,722", (3333, 3333, 3334), (10000, 0, 0), [0, 0, 10000]])
    if given(0.3):
        kw["alpha"] = fdp.ConsumeBool()
    if given(0.3):
        kw["roi"] = _roi(fdp, picture)
    if given(0.3):
        kw["tiles"] = _tiles(fdp)
    if given(0.25):
        kw["mask"] = scalar(fdp) if given(wrong) else mask_for(fdp, picture, payload)
    if given(0.25):
        kw["alpha_threshold"] = scalar(fdp) if given(wrong) else any_float(fdp)
    if given(0.3):
        kw["extremes"] = fdp.ConsumeBool()
    if given(0.1):
        kw["layout"] = pick(fdp, [None, "gray", "rgb", "rgba", "bgr", "bgra", "xyz", ""])
    if given(0.03):
        kw[pick(fdp, ["bin", "stream", "threads"])] = scalar(fdp)
    if given(0.03):  # a device name is matched as a substring of each backend's own device names
        kw["device"] = pick(fdp, [0, "0", None, "auto", -1, 1.5, b"0", "", "\udcff", 2 ** 70])
    return kw


def counters(kw: dict) -> int:
    """Roughly how many counters a request asks for (bins times tiles), to keep it in memory."""
    bins, tiles = kw.get("bins"), kw.get("tiles")
    n = bins if isinstance(bins, int) and not isinstance(bins, bool) else 4097
    if isinstance(tiles, tuple) and len(tiles) == 2 and all(isinstance(t, int) for t in tiles):
        n *= max(tiles[0], 1) * max(tiles[1], 1)
    return abs(n)


# --- dict mutations (Histogram.from_dict) -------------------------------------------------------

def _containers(value, path=()):
    """Every (path, container) inside a to_dict() document, the document first."""
    yield path, value
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        if isinstance(child, (dict, list)):
            yield from _containers(child, path + (key,))


def mutate(fdp, document) -> None:
    """Changes, deletes or adds one member somewhere in the document (in place)."""
    places = list(_containers(document))
    _, place = places[fdp.ConsumeIntInRange(0, len(places) - 1)]
    keys = list(place.keys()) if isinstance(place, dict) else list(range(len(place)))
    action = small_int(fdp, 5)
    if not keys or action == 0:  # a new member
        if isinstance(place, dict):
            place[pick(fdp, DICT_KEYS)] = _member_value(fdp)
        else:
            place.append(_member_value(fdp))
        return
    key = keys[fdp.ConsumeIntInRange(0, len(keys) - 1)]
    if action == 1:
        del place[key]
    elif action == 2 and isinstance(place[key], (int, float)) and not isinstance(place[key], bool):
        place[key] = place[key] + pick(fdp, [1, -1, 2 ** 32, 2 ** 64, -2 ** 64, 0.5])
    else:
        place[key] = _member_value(fdp)


# The members of to_dict()'s documents (and the command line's "sums" entries).
DICT_KEYS = ["width", "height", "format", "formats", "backend", "device", "histograms", "R", "G", "B", "A", "Y",
             "gray", "bins", "range", "edges", "closed_top", "clamp", "counts", "nan", "below", "above",
             "finite_min", "finite_max", "positive_infinities", "negative_infinities", "stats",
             "clipped_low_count", "clipped_high_count", "counted_pixels", "region", "x", "y", "tile_grid",
             "tiles", "notes", "pixels"]
FORMATS = ["gray8", "rgb8", "rgba8", "bgr8", "bgra8", "gray16", "rgb16", "rgba16", "gray_f16", "rgb_f16",
           "rgba_f16", "gray_f32", "rgb_f32", "rgba_f32", "rgb", "f32"]


def _member_value(fdp):
    kind = small_int(fdp, 6)
    if kind == 0:
        return pick(fdp, FORMATS)
    if kind == 1:
        return {pick(fdp, DICT_KEYS): scalar(fdp) for _ in range(small_int(fdp, 3))}
    if kind == 2:
        return [any_int(fdp) for _ in range(small_int(fdp, 6))]
    return scalar(fdp)
