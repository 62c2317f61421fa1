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
CHANNELS = [1, 3, 4, 2, 5, 0]
# Bounded so that a request stays far below the fuzzer's memory limit: pixels and counters.
MAX_SIDE = 48
MAX_COUNTERS = 1 << 20
STRINGS = ["all", "rgb", "luma", "gray", "rgba", "bgr", "bgra", "rec709", "rec601", "rec2020", "2126,7152,722",
           "0,0,0", "1,2", "", "R", "G", "B", "A", "Y", "\x00", "\udcff", "auto", "cpu", "reference"]
SPECIAL_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, 255.0, 256.0, 65535.0, 65536.0, 1e-45, 6e-8, 65504.0, 3.4e38, 1e300,
                  math.inf, -math.inf, math.nan]
SPECIAL_INTS = [0, 1, 2, 3, -1, 255, 256, 4096, 4097, 65535, 65536, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 63,
                2 ** 64, -2 ** 63]


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
    """A view of base: sliced (any step, backwards), transposed, broadcast, or with a huge row stride."""
    kind = small_int(fdp, 7)
    if kind == 0 or base.ndim == 0:
        return base
    if kind == 1:  # a slice along each axis
        index = tuple(slice(small_int(fdp, 3) or None, -small_int(fdp, 3) or None,
                            pick(fdp, [1, 1, 2, 3, -1, -2])) for _ in range(base.ndim))
        return base[index]
    if kind == 2:
        return base.swapaxes(0, 1) if base.ndim >= 2 else base[::-1]
    if kind == 3:  # stride 0: every row (or pixel) the same memory
        row = base[:1] if base.shape[0] else base
        return np.broadcast_to(row, (small_int(fdp, 40),) + base.shape[1:])
    if kind == 4 and base.ndim >= 2 and base.size:  # rows (or pixels) far apart in one large buffer
        gap = min(pick(fdp, [1, 7, 4096, 1 << 20]), max(1, (16 << 20) // base.nbytes))
        axis = 0 if fdp.ConsumeProbability() < 0.7 else 1
        shape = list(base.shape)
        shape[axis] *= gap
        big = np.zeros(shape, dtype=base.dtype)
        index = (slice(None, None, gap),) if axis == 0 else (slice(None), slice(None, None, gap))
        big[index] = base
        return big[index]
    if kind == 5:  # a zero-size view with any strides: nothing to read
        shape = list(base.shape)
        shape[small_int(fdp, len(shape) - 1)] = 0
        strides = [pick(fdp, [0, 1, -1, 1 << 40]) * base.itemsize for _ in shape]
        return np.lib.stride_tricks.as_strided(base, shape=shape, strides=strides)
    if kind == 6:
        view = base[...]
        view.flags.writeable = False
        return view
    return base.reshape(-1) if fdp.ConsumeBool() else base[np.newaxis]


def image(fdp, payload: bytes):
    """An image for histogram(): mostly a counted dtype and shape, sometimes anything else."""
    if fdp.ConsumeProbability() < 0.06:
        return scalar(fdp) if fdp.ConsumeBool() else memoryview(payload[:24])
    dtype = DTYPES[small_int(fdp, COUNTED_DTYPES - 1)] if fdp.ConsumeProbability() < 0.85 else pick(fdp, DTYPES)
    height = small_int(fdp, MAX_SIDE) or 1
    width = small_int(fdp, MAX_SIDE) or 1
    ndim = pick(fdp, [3, 3, 2, 2, 1, 4, 0])
    channels = pick(fdp, CHANNELS)
    shape = {0: (), 1: (width,), 2: (height, width), 3: (height, width, channels),
             4: (2, height, width, channels)}[ndim]
    return _strided(fdp, _filled(fdp, dtype, shape, payload))


def mask_for(fdp, picture, payload: bytes):
    """mask=: usually a 2-D uint8 / bool array of the image's size, sometimes the wrong one."""
    shape = getattr(picture, "shape", (1, 1))[:2]
    if len(shape) < 2 or fdp.ConsumeProbability() < 0.15:
        shape = (small_int(fdp, MAX_SIDE), small_int(fdp, MAX_SIDE))
    dtype = pick(fdp, [np.uint8, np.bool_, np.bool_, np.uint8, np.int8, np.float32])
    mask = _filled(fdp, np.uint8, shape, payload[::-1]).astype(dtype)
    return _strided(fdp, mask) if fdp.ConsumeBool() else mask


# --- keywords ---------------------------------------------------------------------------------

def _bins(fdp):
    kind = small_int(fdp, 6)
    if kind == 0:
        return None
    if kind == 1:
        return pick(fdp, [1, 2, 16, 256, 257, 4096, 65536, 0, -1, 2 ** 32, True, 2.0, np.int16(7)])
    if kind in (2, 3):  # edges, increasing or not
        count = pick(fdp, [2, 3, 5, 17, 1, 0, 4098])
        edges = sorted(any_float(fdp) for _ in range(min(count, 64)))
        edges += [edges[-1] + k + 1 for k in range(count - len(edges))] if edges else []
        if kind == 3 and len(edges) > 1:
            edges[small_int(fdp, len(edges) - 1)] = any_float(fdp)
        return np.array(edges) if fdp.ConsumeBool() else edges
    if kind == 4:
        return np.array([[0.0, 1.0], [2.0, 3.0]])
    return scalar(fdp)


def _tuple_of(fdp, count, value):
    return tuple(value(fdp) for _ in range(count if fdp.ConsumeProbability() < 0.9 else small_int(fdp, 5)))


def _roi(fdp):
    if fdp.ConsumeBool():
        return None
    return _tuple_of(fdp, 4, lambda f: small_int(f, MAX_SIDE + 2) if f.ConsumeProbability() < 0.9 else any_int(f))


def _tiles(fdp):
    if fdp.ConsumeBool():
        return None
    return _tuple_of(fdp, 2, lambda f: small_int(f, 9) if f.ConsumeProbability() < 0.9 else any_int(f))


def keywords(fdp, picture, payload: bytes) -> dict:
    """histogram()'s keywords, each present with its own chance, valid or not."""
    kw = {}
    chance = fdp.ConsumeProbability
    if chance() < 0.4:
        kw["mode"] = pick(fdp, ["all", "rgb", "luma"]) if chance() < 0.9 else scalar(fdp)
    if chance() < 0.5:
        kw["bins"] = _bins(fdp)
    if chance() < 0.3:
        kw["range"] = _tuple_of(fdp, 2, any_float) if chance() < 0.9 else scalar(fdp)
    if chance() < 0.2:
        kw["ev"] = (any_float(fdp), any_float(fdp), pick(fdp, [1, 2, 8, 0, -1, 2 ** 32])) if chance() < 0.9 \
            else scalar(fdp)
    if chance() < 0.3:
        kw["clamp"] = fdp.ConsumeBool()
    if chance() < 0.2:
        kw["weights"] = pick(fdp, STRINGS[7:13]) if fdp.ConsumeBool() else _tuple_of(fdp, 3, any_int)
    if chance() < 0.3:
        kw["alpha"] = fdp.ConsumeBool()
    if chance() < 0.3:
        kw["roi"] = _roi(fdp)
    if chance() < 0.3:
        kw["tiles"] = _tiles(fdp)
    if chance() < 0.25:
        kw["mask"] = mask_for(fdp, picture, payload) if chance() < 0.9 else scalar(fdp)
    if chance() < 0.25:
        kw["alpha_threshold"] = any_float(fdp) if chance() < 0.9 else scalar(fdp)
    if chance() < 0.3:
        kw["extremes"] = fdp.ConsumeBool()
    if chance() < 0.1:
        kw["layout"] = pick(fdp, [None, "gray", "rgb", "rgba", "bgr", "bgra", "xyz", ""])
    if chance() < 0.03:
        kw[pick(fdp, ["bin", "device", "stream", "threads"])] = scalar(fdp)
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
