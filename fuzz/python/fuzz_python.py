"""atheris (libFuzzer) target of the Python package's public API (python/imghist).

Each input drives one call with fuzzer-chosen arguments (fuzz_values.py draws them):
  0 histogram() / Engine.histogram() of an array of any dtype, shape and strides, every keyword
  1 histogram_batch() of several such arrays, or one array of images
  2 Histogram.from_dict() of a real histogram's dict changed in one to four places; pickling
  3 Histogram.from_dict() of the input's text read as JSON
  4 histogram_file() and read() of the payload written to a file (its first byte picks the extension)
  5 histogram_files() over several such files, closed early or with a progress callback that raises
Every histogram made is then used: its properties, stats(), exposure(), tile(), its channels,
np.asarray, to_dict() / from_dict() and pickle round trips (which must give it back), and +
with itself and with the histograms it came from.

The oracle: a call returns, or raises an exception of a documented type (imghist.Error and the
built-in ValueError, TypeError, OSError, IndexError, KeyError). Anything else (SystemError,
RuntimeError, AttributeError, MemoryError, ...), a crash, an abort, a round trip that does not
give the histogram back, or a backend that counts differently from "reference" or rejects
differently (IMGHIST_FUZZ_PY_BACKENDS, default "cpu"; a GPU backend's driver may take over the
crash handler, so that a crash keeps no input) is a finding: the exception escapes and
atheris keeps the input.

Input layout: byte 0 the action (modulo 6), byte 1 the length N of the choice bytes, then N
bytes for the choices (atheris.FuzzedDataProvider), then the payload (pixel bytes, JSON text or
file bytes). make_seeds.py writes seeds in it.
Run: python fuzz_python.py [libFuzzer options] CORPUS_DIR SEED_DIR  (scripts/fuzz-python.sh);
replay a finding: python fuzz_python.py FILE. python/tests/test_fuzz_findings.py keeps those fixed.
"""
from __future__ import annotations

import copy
import json
import os
import pickle
import sys
import tempfile
import warnings

import atheris

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
with atheris.instrument_imports():
    import imghist
    import fuzz_values as values

import numpy as np

ALLOWED = (imghist.Error, ValueError, TypeError, OSError, IndexError, KeyError)
BACKENDS = [b for b in os.environ.get("IMGHIST_FUZZ_PY_BACKENDS", "cpu").split(",") if b]
FILE_EXTENSIONS = ["png", "jpg", "tif", "exr", "ppm", "pgm", "pfm", "hdr", "bmp", "webp", "gif", "dpx", "tga",
                   "psd", "txt", "PNG", ""]
SCRATCH = tempfile.mkdtemp(prefix="imghist-fuzz-python-")


class Mismatch(AssertionError):
    """A backend, a round trip or a sum that does not give what the reference gives."""


def outcome(call):
    """(value, None) or (None, the documented exception it raised); anything else escapes."""
    try:
        return call(), None
    except ALLOWED as e:
        return None, e


def comparable(h) -> str:
    """A histogram's content, without who counted it (JSON text: NaN equals NaN)."""
    d = h.to_dict()
    for key in ("backend", "device", "notes"):
        d.pop(key, None)
    return json.dumps(d, sort_keys=True)


def same_on_every_backend(count, describe=comparable):
    """count(backend) on reference, then on each backend of BACKENDS: the same result or the same
    kind of refusal. Returns reference's result (None when it refused)."""
    expected, refusal = outcome(lambda: count("reference"))
    for backend in BACKENDS:
        got, error = outcome(lambda: count(backend))
        if type(error) is not type(refusal):
            raise Mismatch(f"{backend} {'raised ' + repr(error) if error else 'counted'}, reference "
                           f"{'raised ' + repr(refusal) if refusal else 'counted'}")
        if expected is not None and describe(got) != describe(expected):
            raise Mismatch(f"{backend} counted differently from reference:\n{describe(got)}\n{describe(expected)}")
    return expected


# --- what every histogram must stand -------------------------------------------------------------

PROPERTIES = ["channels", "counts", "nan", "below", "above", "clipped_low", "clipped_high", "finite_min",
              "finite_max", "positive_infinities", "negative_infinities", "edges", "bins", "range", "closed_top",
              "clamp", "width", "height", "format", "region", "tile_grid", "tile_counts", "tile_regions",
              "counted_pixels", "tile_counted_pixels", "backend", "device", "notes"]
CHANNEL_PROPERTIES = ["name", "counts", "edges", "bins", "nan", "below", "above", "clipped_low", "clipped_high",
                      "finite_min", "finite_max", "positive_infinities", "negative_infinities"]


def check_round_trips(h) -> None:
    again = type(h).from_dict(h.to_dict())  # a camera raw file's is a CameraRawHistogram
    if comparable(again) != comparable(h) or again.channels != h.channels:
        raise Mismatch(f"from_dict(to_dict()) changed the histogram:\n{comparable(again)}\n{comparable(h)}")
    unpickled = pickle.loads(pickle.dumps(h))
    if comparable(unpickled) != comparable(h):
        raise Mismatch(f"pickling changed the histogram:\n{comparable(unpickled)}\n{comparable(h)}")


def check_sum(a, b) -> None:
    """a + b: refused (MergeError, where can_merge says so) or the counts added."""
    total, error = outcome(lambda: a + b)
    if (error is None) != a.can_merge(b):
        raise Mismatch(f"can_merge says {a.can_merge(b)} but + {'raised ' + repr(error) if error else 'added'}")
    if total is not None:
        exercise_channels(total)
        expected = a.counts.astype(object) + b.counts.astype(object)
        if not (np.asarray(total.counts, dtype=object) == expected).all():
            raise Mismatch("a + b is not the sum of the counts")


def exercise_channels(h) -> None:
    for c in h:
        repr(c)
        for name in CHANNEL_PROPERTIES:
            getattr(c, name)
        c.stats()


def exercise(fdp, h, others=()) -> None:
    """Uses every part of a histogram, with fuzzed arguments where the call takes some."""
    repr(h)
    for name in PROPERTIES:
        getattr(h, name)
    len(h), list(h), h.stats(), np.asarray(h), h.to_dict()
    exercise_channels(h)
    name = values.pick(fdp, list(h.channels) + ["Z", "", 0, None])
    outcome(lambda: h[name])
    name in h  # noqa: B015 - __contains__ must answer any object
    low, high, key = values.any_float(fdp), values.any_float(fdp), values.any_float(fdp)
    outcome(lambda: h.exposure(low=low, high=high, key=key, channel=values.pick(fdp, [None, "Y", "R", "gray", "Q"])))
    for c in h:
        outcome(lambda: c.exposure(low=low, high=high, key=key))
    tx, ty = values.any_int(fdp), values.any_int(fdp)
    tile, _ = outcome(lambda: h.tile(tx, ty))
    if tile is not None:
        check_round_trips(tile)
        exercise_channels(tile)
    outcome(lambda: np.asarray(h, dtype=values.pick(fdp, [np.float64, np.uint8, np.int64])))
    check_round_trips(h)
    for other in (h,) + tuple(others):
        check_sum(h, other)
        check_sum(other, h)
    if values.maybe(fdp, 0.02):
        plot(h, fdp.ConsumeBool())


def plot(h, log: bool) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    try:
        h.plot(log=log)
        list(h)[0].plot(log=log)
    finally:
        plt.close("all")


# --- the actions ------------------------------------------------------------------------------------

ENGINES: dict = {}


def engine(backend: str):
    """One engine per backend for the whole run (as a caller keeps one)."""
    if backend not in ENGINES:
        ENGINES[backend] = imghist.Engine(backend)
    return ENGINES[backend]


def fuzz_histogram(fdp, payload: bytes) -> None:
    picture = values.image(fdp, payload)
    kw = values.keywords(fdp, picture, payload)
    if values.counters(kw) > values.MAX_COUNTERS:
        return
    if fdp.ConsumeBool():
        h = same_on_every_backend(lambda b: engine(b).histogram(picture, **kw))
    else:
        h = same_on_every_backend(lambda b: imghist.histogram(picture, backend=b, **kw))
    if h is not None:
        exercise(fdp, h)


def describe_batch(batch) -> str:
    return "\n".join([comparable(h) for h in batch] + [comparable(batch.sum())])


def fuzz_batch(fdp, payload: bytes) -> None:
    if fdp.ConsumeBool():
        images = [values.image(fdp, payload[i:]) for i in range(values.small_int(fdp, 3))]
    else:
        images = values.image(fdp, payload)
    kw = values.keywords(fdp, None, payload)
    kw.pop("layout", None) if fdp.ConsumeBool() else None
    if values.counters(kw) > values.MAX_COUNTERS:
        return
    batch = same_on_every_backend(lambda b: imghist.histogram_batch(images, backend=b, **kw), describe_batch)
    if batch is not None and len(batch):
        batch.counts
        exercise(fdp, batch[values.small_int(fdp, len(batch) - 1)], (batch.sum(),))


def made_histograms():
    """Real histograms of every kind of document: integer and float formats, tiles, a roi, a mask,
    edges and EV bins, value extremes, counted pixels."""
    rng = np.random.default_rng(7)
    rgba8 = rng.integers(0, 256, (9, 11, 4), dtype=np.uint8)
    gray16 = rng.integers(0, 65536, (6, 5), dtype=np.uint16)
    rgbf = rng.normal(0.5, 1.0, (7, 4, 3)).astype(np.float32)
    rgbf[0, 0] = [np.inf, -np.inf, np.nan]
    half = rng.uniform(0, 4, (5, 5, 4)).astype(np.float16)
    return [imghist.histogram(rgba8, backend="reference", tiles=(3, 2), mask=rgba8[:, :, 0] > 60, alpha=True),
            imghist.histogram(rgba8, backend="reference", mode="luma", bins=[0, 10, 100, 256]),
            imghist.histogram(gray16, backend="reference", roi=(1, 1, 3, 4), bins=64, range=(100, 60000)),
            imghist.histogram(rgbf, backend="reference", extremes=True, clamp=True, bins=[-1, 0, 0.5, 1, 2]),
            imghist.histogram(half, backend="reference", ev=(-4, 2, 2), alpha_threshold=0.5, tiles=(2, 2)),
            imghist.histogram(rgbf, backend="reference", extremes=True, mode="rgb")]


HISTOGRAMS: list = []


def fuzz_dict(fdp, payload: bytes) -> None:
    source = values.pick(fdp, HISTOGRAMS)
    document = copy.deepcopy(source.to_dict())
    for _ in range(1 + values.small_int(fdp, 3)):
        values.mutate(fdp, document)
    h, _ = outcome(lambda: imghist.Histogram.from_dict(document))
    if h is not None:
        exercise(fdp, h, (source,))
    # What pickle.loads does with a pickle's state: __setstate__ on an object made without __init__.
    blank = imghist.Histogram.__new__(imghist.Histogram)
    _, error = outcome(lambda: blank.__setstate__(document))
    if error is not None:
        outcome(lambda: repr(blank))  # an object left unmade must refuse to be used, not crash


def fuzz_json(fdp, payload: bytes) -> None:
    try:
        document = json.loads(payload.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return
    h, _ = outcome(lambda: imghist.Histogram.from_dict(document))
    if h is not None:
        exercise(fdp, h, (values.pick(fdp, HISTOGRAMS),))


def scratch_file(extension_index: int, content: bytes, name: str) -> str:
    extension = FILE_EXTENSIONS[extension_index % len(FILE_EXTENSIONS)]
    path = os.path.join(SCRATCH, f"{name}.{extension}" if extension else name)
    with open(path, "wb") as f:
        f.write(content)
    return path


# read()'s pixel limit: a file's header may ask for any size, and None (or 0) lets the decoder
# allocate it, so they are not fuzzed.
MAX_PIXELS = [1 << 22, 1 << 16, 64, 1]


def fuzz_file(fdp, payload: bytes) -> None:
    if not payload:
        return
    path = scratch_file(payload[0], payload[1:], "image")  # the extension in the payload: seeds name it
    max_pixels = values.pick(fdp, MAX_PIXELS)
    kw = values.keywords(fdp, None, payload)
    kw.pop("layout", None)
    if values.counters(kw) > values.MAX_COUNTERS:
        return
    h = same_on_every_backend(lambda b: imghist.histogram_file(path, backend=b, max_pixels=max_pixels, **kw))
    if isinstance(h, imghist.CameraRawHistogram):  # a raw file: read() gives its blocks with raw=True
        blocks, _ = outcome(lambda: imghist.read(path, raw=True, max_pixels=max_pixels))
        if blocks is None:
            raise Mismatch("histogram_file counted a camera raw file that read(raw=True) refused")
        exercise(fdp, h)
        return
    pixels, _ = outcome(lambda: imghist.read(path, max_pixels=max_pixels))
    if h is None:
        return
    if pixels is None:
        raise Mismatch("histogram_file counted a file that read() refused")
    from_array = imghist.histogram(pixels, backend="reference", **kw)
    if comparable(from_array) != comparable(h):
        raise Mismatch("histogram_file differs from histogram(read())")
    exercise(fdp, h)


class ProgressStop(Exception):
    """Raised by a progress callback: it must come out of the iteration as it is."""


def fuzz_files(fdp, payload: bytes) -> None:
    count = 1 + values.small_int(fdp, 3)
    cut = [0] + sorted(fdp.ConsumeIntInRange(0, len(payload)) for _ in range(count - 1)) + [len(payload)]
    paths = [scratch_file(values.small_int(fdp, 255), payload[cut[i]:cut[i + 1]], f"file{i}") for i in range(count)]
    paths += [values.pick(fdp, [os.path.join(SCRATCH, "missing.png"), SCRATCH])] if fdp.ConsumeBool() else []
    kw = values.keywords(fdp, None, payload)
    kw.pop("layout", None)
    if values.counters(kw) > values.MAX_COUNTERS:
        return
    threads, pending, max_pixels = values.small_int(fdp, 3), values.small_int(fdp, 3), values.pick(fdp, MAX_PIXELS)
    stop_at = values.small_int(fdp, 6)
    raise_at = values.small_int(fdp, 6) if fdp.ConsumeBool() else None

    def progress(_):
        progress.calls += 1
        if progress.calls == raise_at:
            raise ProgressStop()

    def run(backend):
        progress.calls = 0
        outcomes = []
        files = imghist.histogram_files(paths, backend=backend, threads=threads, max_pending=pending,
                                        max_pixels=max_pixels, progress=progress, **kw)
        with files:
            try:
                for f in files:
                    outcomes.append(comparable(f.histogram) if f.histogram else f.error)
                    if len(outcomes) == stop_at:
                        break
            except ProgressStop:
                return ["stopped by progress"]
        return outcomes + [comparable(s) for s in files.sums] + [str(files.errors)]

    same_on_every_backend(run, describe=str)


ACTIONS = [fuzz_histogram, fuzz_batch, fuzz_dict, fuzz_json, fuzz_file, fuzz_files]


def test_one_input(data: bytes) -> None:
    if len(data) < 2:
        return
    choices_end = 2 + data[1]
    fdp = atheris.FuzzedDataProvider(data[2:choices_end])
    ACTIONS[data[0] % len(ACTIONS)](fdp, data[choices_end:])


def main() -> None:
    # numpy's overflow in casts and nanobind's note on the unmade object are expected here.
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    HISTOGRAMS.extend(made_histograms())
    # No imghist.backends() here: enumerating the GPU drivers' devices replaces libFuzzer's
    # SIGSEGV handler, and a crash would then leave no input behind.
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
