"""Checks contract_model.py against the imghist command line (not a pytest file).

    python3 python/tests/check_model_against_cli.py [--imghist build/src/cli/imghist] [--backend cpu,reference]

Writes raw pixel files of all 14 formats (every 8- and 16-bit value, every half bit pattern,
fp32 specials: NaN payloads, +-Inf, +-0, denormals, k/256 and k/256 +- 1 ulp, range ends and
their neighbours, huge values, random bit patterns), with padded rows, runs the command line
with --raw ... --format json for every mode, weights, alpha, custom bins and range with clamp on
and off, and compares every count with the model. A request the model refuses must be refused by
the command line too. Prints one line per disagreement; exits 1 if there was any.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import contract_model as cm  # noqa: E402
import images  # noqa: E402

# format -> (dtype, samples per pixel, layout)
FORMATS = {
    "gray8": (np.uint8, 1, None), "rgb8": (np.uint8, 3, None), "rgba8": (np.uint8, 4, None),
    "bgra8": (np.uint8, 4, "bgra"), "bgr8": (np.uint8, 3, "bgr"),
    "gray16": (np.uint16, 1, None), "rgb16": (np.uint16, 3, None), "rgba16": (np.uint16, 4, None),
    "gray_f16": (np.float16, 1, None), "rgb_f16": (np.float16, 3, None), "rgba_f16": (np.float16, 4, None),
    "gray_f32": (np.float32, 1, None), "rgb_f32": (np.float32, 3, None), "rgba_f32": (np.float32, 4, None),
}
SIZE = {np.uint8: (61, 67), np.uint16: (256, 257), np.float16: (256, 257), np.float32: (128, 131)}

INT_BINS = [
    {"bins": 64}, {"bins": 512}, {"bins": 1}, {"bins": 3, "range": (0, 256)},
    {"bins": 7, "range": (10, 200)}, {"bins": 7, "range": (10, 200), "clamp": True},
    {"bins": 31, "range": (-10, 300), "clamp": True}, {"bins": 1, "range": (100, 101)},
    {"range": (-1000, -10)}, {"range": (-1000, -10), "clamp": True}, {"bins": 4, "range": (-10**12, 10**12)},
    {"range": (1, 255), "clamp": True},
]
U16_BINS = [
    {"bins": 1024}, {"bins": 65536}, {"bins": 4096, "range": (-5, 70000)},
    {"bins": 333, "range": (1000, 60000)}, {"bins": 333, "range": (1000, 60000), "clamp": True},
    {"bins": 1 << 20}, {"bins": 256, "range": (0, 65535), "clamp": True},
]
FLOAT_BINS = [
    {"bins": 256}, {"bins": 64}, {"bins": 1}, {"range": (-1.0, 1.0)}, {"bins": 100, "range": (-0.25, 1.25)},
    {"bins": 64, "range": (0.0, 4.0), "clamp": True}, {"bins": 1000, "range": (0.0, 1e-3)},
    {"bins": 7, "range": (0.1, 0.7)}, {"bins": 7, "range": (0.1, 0.7), "clamp": True},
    {"bins": 2, "range": (-1e-20, 1e-20)}, {"bins": 3, "range": (1 / 3, 2 / 3), "clamp": True},
    {"bins": 2, "range": (0.0, 2e-30)}, {"bins": 4096, "range": (-65504.0, 65504.0), "clamp": True},
    {"bins": 1, "range": (-1e38, 1e38)}, {"bins": 5, "range": (1.0, 1.0000001)},
]
REFUSED_FLOAT = [
    {"range": (-3.4e38, 3.4e38)}, {"bins": 1024, "range": (0.0, 1e-36)}, {"bins": 1, "range": (0.0, 3e38)},
    {"bins": 2, "range": (0.0, 1e-30)}, {"range": (1.0, 1.00000001)},
]
REFUSED_INT = [{"range": (0.5, 10)}, {"bins": 1 << 20, "range": (-10**15, 10**15)}]
COLOUR_REQUESTS = [
    {"mode": "rgb"}, {"mode": "luma"}, {"weights": "rec601"}, {"weights": "rec2020"},
    {"weights": "3333,3333,3334"}, {"weights": "10000,0,0"}, {"weights": "0,0,10000"}, {"alpha": True},
    {"mode": "luma", "alpha": True}, {"mode": "rgb", "alpha": True, "bins": 16},
]


def range_ends(requests) -> list:
    """fp32 range ends of the requests and their neighbours one ulp away."""
    out = []
    for r in requests:
        for end in r.get("range", ()):
            f = np.float32(end)
            out += [f, np.nextafter(f, np.float32(-np.inf)), np.nextafter(f, np.float32(np.inf))]
    return out


def bin_edges(requests, most=1024) -> list:
    """fp32 values at and one ulp around the nominal bin edges of the requests' ranges."""
    out = []
    for r in requests:
        lo, hi = r.get("range", (0.0, 1.0))
        n = r.get("bins", 256)
        if n <= most:
            e = np.float32(lo + (hi - lo) * np.arange(n + 1) / n)
            out += [e, np.nextafter(e, np.float32(-np.inf)), np.nextafter(e, np.float32(np.inf))]
    return out


def float_specials() -> np.ndarray:
    """fp32 values where a bin rule can go wrong, and the ends and edges of the ranges used."""
    extra = [np.float32(range_ends(FLOAT_BINS + REFUSED_FLOAT))] + bin_edges(FLOAT_BINS)
    return np.concatenate([images.float32_specials()] + [np.asarray(v, np.float32).ravel() for v in extra])


def patterns(dtype, samples, rng) -> dict:
    """name -> (H, W, samples) image of dtype."""
    h, w = SIZE[dtype]
    n = h * w

    def channels(make):
        return np.stack([make(c) for c in range(samples)], axis=-1).reshape(h, w, samples)

    if dtype in (np.uint8, np.uint16):
        top = np.iinfo(dtype).max
        every = np.arange(top + 1, dtype=np.int64)
        extremes = np.array([0, top, 1, top - 1, 255, 256 % (top + 1), top // 2], np.int64)
        out = {
            "every_value": channels(lambda c: rng.permutation(np.resize(every, n))),
            "random": channels(lambda c: rng.integers(0, top + 1, n)),
            "extremes": channels(lambda c: rng.choice(extremes, n)),
            "grey": np.repeat(rng.integers(0, top + 1, n)[:, None], samples, 1).reshape(h, w, samples),
            "constant_top": np.full((h, w, samples), top),
            "constant_zero": np.zeros((h, w, samples)),
        }
        return {k: v.astype(dtype) for k, v in out.items()}
    if dtype == np.float16:
        every = np.arange(65536, dtype=np.uint32).astype(np.uint16)
        out = {"every_half": channels(lambda c: rng.permutation(np.resize(every, n)).view(np.float16))}
    else:
        specials = float_specials()
        out = {
            "specials": channels(lambda c: rng.permutation(np.resize(specials, n))),
            "random_bits": channels(lambda c: rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)),
        }
    out["unit"] = channels(lambda c: rng.uniform(-0.1, 1.1, n)).astype(dtype)
    out["constant_one"] = np.ones((h, w, samples), dtype)
    out["constant_negzero"] = np.full((h, w, samples), -0.0, dtype)
    return out


def cli_arguments(fmt, shape, stride, request) -> list:
    args = ["--format", "json", "--no-progress", "--raw", f"{fmt}:{shape[1]}x{shape[0]}:{stride}"]
    for key, flag in (("mode", "--mode"), ("bins", "--bins"), ("weights", "--luma-weights")):
        if key in request:
            args += [flag, str(request[key])]
    if "range" in request:
        args.append(f"--range={float(request['range'][0])!r}:{float(request['range'][1])!r}")
    args += ["--clamp"] * bool(request.get("clamp")) + ["--alpha"] * bool(request.get("alpha"))
    return args


def write_padded(image: np.ndarray, path: str, pad_bytes: int) -> tuple:
    """Writes image with pad_bytes of NaN/0xFF garbage after every row; returns (view, stride)."""
    h, w = image.shape[:2]
    row = image.reshape(h, -1)
    pad = pad_bytes // image.itemsize
    buf = np.empty((h, row.shape[1] + pad), image.dtype)
    buf.view(np.uint8)[:] = 0xFF
    buf[:, : row.shape[1]] = row
    buf.tofile(path)
    view = buf[:, : row.shape[1]].reshape(image.shape)
    return view, buf.shape[1] * image.itemsize


def compare(label, model, got) -> list:
    """Differences between the model and one JSON result."""
    bad = []
    names = tuple(got["histograms"])
    if names != model.channels:
        return [f"{label}: channels {names} != model {model.channels}"]
    for c, name in enumerate(names):
        j = got["histograms"][name]
        stats = j["stats"]
        pairs = {
            "counts": (np.array(j["counts"], np.uint64), model.counts[c]),
            "nan": (j["nan"], model.nan[c]), "below": (j["below"], model.below[c]),
            "above": (j["above"], model.above[c]),
            "clipped_low": (stats["clipped_low_count"], model.clipped_low[c]),
            "clipped_high": (stats["clipped_high_count"], model.clipped_high[c]),
            "layout": ((j["bins"], float(j["range"][0]), float(j["range"][1]), j["closed_top"], j["clamp"]),
                       (model.bins, model.lo, model.hi, model.closed_top, model.clamp)),
        }
        for field, (cli, mod) in pairs.items():
            if not np.array_equal(np.asarray(cli), np.asarray(mod)):
                where = ""
                if field == "counts":
                    diff = np.nonzero(np.asarray(cli) != np.asarray(mod))[0]
                    where = f" at bins {diff[:8].tolist()}: cli {np.asarray(cli)[diff[:8]].tolist()} model {mod[diff[:8]].tolist()}"
                    cli = mod = "..."
                bad.append(f"{label} {name}.{field}: cli {cli} model {mod}{where}")
    return bad


def run_case(imghist, backend, fmt, request, images, tmp, pad_bytes) -> tuple:
    """One command-line call over every pattern of a format; returns (checked, problems)."""
    dtype, samples, layout = FORMATS[fmt]
    files, views = [], []
    for name, image in images.items():
        image = image[:, :, 0] if samples == 1 and pad_bytes else image  # gray as (H, W) and (H, W, 1)
        path = os.path.join(tmp, f"{fmt}-{name}.raw")
        view, stride = write_padded(image, path, pad_bytes)
        files.append(path)
        views.append((name, view))
    cmd = [imghist, "--backend", backend] + cli_arguments(fmt, views[0][1].shape, stride, request) + files
    proc = subprocess.run(cmd, capture_output=True, text=True)
    label = f"[{backend} {fmt} {request}]"
    try:
        model_kwargs = {k: v for k, v in request.items()}
        models = [cm.model_histogram(v, layout=layout, **model_kwargs) for _, v in views]
    except cm.ModelRefused as e:
        if proc.returncode == 0:
            return 1, [f"{label}: the model refuses ({e}) but the command line counted"]
        return 1, []
    if proc.returncode != 0:
        return 1, [f"{label}: command line failed ({proc.returncode}): {proc.stderr.strip()[:300]}"]
    results = json.loads(proc.stdout)["results"]
    if len(results) != len(views):
        return 1, [f"{label}: {len(results)} results for {len(views)} files: {proc.stdout[-300:]}"]
    problems = []
    for (name, _), model, got in zip(views, models, results):
        problems += compare(f"{label} {name}", model, got)
    return len(views), problems


def requests_for(fmt) -> list:
    dtype, samples, _ = FORMATS[fmt]
    bins = {np.uint8: INT_BINS + REFUSED_INT, np.uint16: U16_BINS + REFUSED_INT}.get(dtype, FLOAT_BINS + REFUSED_FLOAT)
    colour = COLOUR_REQUESTS if samples > 1 else [{"mode": "rgb"}, {"alpha": True}]
    luma_bins = [dict(b, mode="luma", weights="rec601") for b in bins[:4]] if samples > 1 else []
    return [{}] + colour + bins + luma_bins


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--imghist", default=os.path.join(here, "..", "..", "build", "src", "cli", "imghist"))
    parser.add_argument("--backend", default="cpu,reference")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    checked, problems = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for fmt, (dtype, samples, _) in FORMATS.items():
            images = patterns(dtype, samples, rng)
            for i, request in enumerate(requests_for(fmt)):
                for backend in args.backend.split(","):
                    pad = (i % 3) * 16  # packed rows, and rows padded with garbage
                    n, p = run_case(args.imghist, backend, fmt, request, images, tmp, pad)
                    checked += n
                    problems += p
            print(f"{fmt}: done, {len(problems)} problems so far", flush=True)
    for p in problems:
        print(p)
    print(f"{checked} results compared, {len(problems)} disagreements")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
