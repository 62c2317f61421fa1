#!/usr/bin/env python3
"""Dataset throughput: imghist's command line and Python package against a Pillow script, an
OpenCV script and decode-only loops over one directory of real JPEGs and PNGs (issue 15).

The dataset (--make DIR --count N, default 2,200 files): scikit-image's offline RGB photos
(skimage.data: astronaut, chelsea, coffee, hubble_deep_field, immunohistochemistry, retina,
rocket and both stereo_motorcycle views), each file a random crop of one of them resized with
Pillow's LANCZOS to a random size between 640x480 and 1920x1080 (width and height drawn
separately, so the aspect varies), randomly flipped and made a little brighter or darker
(x0.85-1.15). About 85% are JPEGs (Pillow, quality 90, 4:2:0) and 15% PNGs (Pillow's default
compression; of those about 70% RGB, 15% RGBA with an alpha gradient, 15% gray). File i
depends only on (--seed, i), so the set is reproducible, and DIR is reused: its manifest.json
records the seed and the files, files already made are kept and only missing ones are made
(a --quick set of 200 grows into the full 2,200 by adding files). --dir DIR times any
existing directory instead (every .jpg/.jpeg/.png/.tif/.tiff/.webp/.bmp under it).

Contenders, each timed over the whole directory (the file list sorted), once per round, the
order rotated from round to round; the wall time includes whatever a user's run includes
(process or pool start-up, summing the per-file histograms):
  imghist CLI            imghist DIR --format json --sum-only (default threads and mode "all":
                         R, G, B and luminance), the JSON to a temporary file
  imghist Python         imghist.histogram_files(paths, backend="cpu").run() in this interpreter
                         (a build without histogram_files: a thread pool of Engine.histogram_file)
  imghist CLI in-process only with --cli-in-process: the CLI with --decode-in-process (no
                         decoder processes), to see what the crash isolation costs
  baseline CLI           only with --baseline PATH: another build of the CLI (and with
                         --cli-in-process its in-process row), timed in the same rounds, for a
                         before/after comparison on the same machine and files
  Pillow script          multiprocessing.Pool(N).map of Image.open(p).histogram(), the lists
                         summed per image mode
  OpenCV script          Pool(N).map of cv2.imread(p, cv2.IMREAD_UNCHANGED) + one cv2.calcHist
                         per channel, summed per channel count (OpenCV's own threads left as they
                         are, as a new user would)
  decode-only (ceilings) Pool(N).map of Pillow's Image.open(p).load(), cv2.imread(p,
                         IMREAD_UNCHANGED), imghist.read(p) (imghist's own reader: TurboJPEG
                         for JPEGs, OpenImageIO otherwise), and when the simplejpeg wheel is
                         installed simplejpeg.decode_jpeg for the JPEGs (Pillow for the
                         others); nothing is counted or sent back
N is the number of CPUs this process may run on (2 on the issue's machine; --workers N).
Every file is read once before timing, so every contender finds the files in the page cache.

The bound (reported after the goals): imghist's one-thread counting rate over about 300 of
the files decoded into memory, combined with the fastest decode-only rate as if every core
decoded and then counted its own files: 1 / (1/decode + 1/(N * count)) files/s. Counting
shares the cores with decoding, so no pipeline on those cores goes above it.

Cross-checks (they never fail the run, they are reported): the CLI's JSON sums equal the
Python package's sums exactly, layout by layout; Pillow's and OpenCV's per-file histograms
(of their last round) against imghist's per-file histograms (one untimed pass of the Python
package), by kind of file: "equal", or the files that differ and the share of differing
counts (sum of |difference| / 2 / counted samples). PNGs should be equal; JPEGs may differ
a little, as libjpeg builds and their IDCT/upsampling settings decode slightly differently.

Setup (a virtual environment with the package, the contenders and the CLI):
    python3 -m venv .venv-bench && . .venv-bench/bin/activate
    python3 -m pip install -r bench/python/requirements.txt   # numpy, OpenCV, scikit-image, Pillow, simplejpeg
    python3 -m pip install scikit-build-core nanobind
    CMAKE_BUILD_PARALLEL_LEVEL=2 python3 -m pip install --no-build-isolation .   # the imghist package
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DIMGHIST_TESTS=OFF \
        -DIMGHIST_OPENCL=OFF -DIMGHIST_VULKAN=OFF -DIMGHIST_CUDA=OFF
    ninja -C build imghist_cli                                # build/src/cli/imghist
Run:
    python3 bench/python/bench_dataset.py --make dataset [--count 2200] [--rounds 3] \
        [--out table.md] [--json out.json]
    python3 bench/python/bench_dataset.py --make dataset --quick   # smoke: 200 files, 1 round
    python3 bench/python/bench_dataset.py --make dataset --make-only   # only make the dataset

Reading the table: files/s is the median over the rounds (min-max beside it), MB/s is file
bytes read per second, MP/s decoded megapixels per second. "vs ceiling" divides by the fastest
decode-only loop's median files/s: a decoder that only decodes, on every core, is as fast as a
histogram tool that decodes with it can get, so imghist's goal is >= 0.90 there. "vs Pillow"
divides by the Pillow script's files/s (the goal is about 1.5x or more). Compare rows of one
run only: the load averages before and after show whether the machine was quiet; a wide
min-max range means it was not. The imghist rows decode with OpenImageIO, so their ceiling in
practice is the OpenImageIO decode-only row unless the decoder is changed.
"""

from __future__ import annotations

import argparse
import datetime
import json
import multiprocessing
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

REPO = Path(__file__).resolve().parents[2]
GENERATOR = 1  # bump when make_one() changes what a (seed, index) gives
EXTENSIONS = (".jpg", ".jpeg", ".png", ".tif", ".tiff", ".webp", ".bmp")
JPEG_SHARE, PNG_KINDS = 0.85, ((0.70, "RGB"), (0.85, "RGBA"), (1.0, "L"))
SIZE_MIN, SIZE_MAX = (640, 480), (1920, 1080)
CEILING_GOAL = 0.90


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--make", metavar="DIR", help="make (or reuse) the dataset in DIR, then time it")
    where.add_argument("--dir", metavar="DIR", help="time the images already under DIR (nothing is made)")
    p.add_argument("--count", type=int, help="files in the dataset (2200; 200 with --quick)")
    p.add_argument("--seed", type=int, default=15, help="the dataset's seed (15)")
    p.add_argument("--make-only", action="store_true", help="make the dataset and stop")
    p.add_argument("--rounds", type=int, default=3, help="timed rounds, each contender once per round (3)")
    p.add_argument("--workers", type=int, help="processes of the Pool scripts (default: the CPUs this process may use)")
    p.add_argument("--imghist", default=str(REPO / "build/src/cli/imghist"), help="the CLI (build/src/cli/imghist)")
    p.add_argument("--baseline", metavar="PATH",
                   help="also time this other build of the CLI (rows 'baseline CLI'), in the same rounds")
    p.add_argument("--cli-in-process", action="store_true",
                   help="also time the CLI with --decode-in-process (no decoder processes): their cost")
    p.add_argument("--skip", action="append", default=[], metavar="NAME",
                   help="leave out contenders whose name contains NAME (repeatable), e.g. --skip OpenCV")
    p.add_argument("--quick", action="store_true", help="smoke run: 200 files (unless --count), 1 round")
    p.add_argument("--out", help="write the Markdown report here too")
    p.add_argument("--json", help="write every round's numbers here as JSON")
    a = p.parse_args()
    if a.count is None:
        a.count = 200 if a.quick else 2200
    if a.quick:
        a.rounds = 1
    a.workers = a.workers or len(os.sched_getaffinity(0))
    if a.count < 1 or a.rounds < 1 or a.workers < 1:
        p.error("--count, --rounds and --workers must be >= 1")
    return a


# ---------------------------------------------------------------------------------------------
# The dataset

SOURCES: List[Tuple[str, np.ndarray]] = []


def load_sources() -> List[Tuple[str, np.ndarray]]:
    """Every RGB photo skimage.data ships (no download; cat is chelsea again, colorwheel and
    logo are drawings)."""
    import skimage.data as data

    out = []
    for name in ("astronaut", "chelsea", "coffee", "hubble_deep_field", "immunohistochemistry", "retina",
                 "rocket"):
        try:
            out.append((name, np.ascontiguousarray(getattr(data, name)()[..., :3])))
        except Exception as e:  # noqa: BLE001 - an older/newer scikit-image: use what there is
            print(f"  (skimage.data.{name} unavailable: {type(e).__name__})", file=sys.stderr)
    try:
        left, right, _ = data.stereo_motorcycle()
        out += [("stereo_motorcycle-left", left), ("stereo_motorcycle-right", right)]
    except Exception as e:  # noqa: BLE001
        print(f"  (skimage.data.stereo_motorcycle unavailable: {type(e).__name__})", file=sys.stderr)
    if not out:
        sys.exit("no photo in skimage.data: install scikit-image")
    return out


def _init_maker() -> None:
    SOURCES[:] = load_sources()


def plan_one(seed: int, index: int) -> dict:
    """What file `index` of the dataset of `seed` is (depends on nothing else)."""
    rng = random.Random(f"imghist-dataset:{GENERATOR}:{seed}:{index}")
    plan = {"source": rng.randrange(1 << 30), "width": rng.randint(SIZE_MIN[0], SIZE_MAX[0]),
            "height": rng.randint(SIZE_MIN[1], SIZE_MAX[1]), "scale": rng.uniform(0.55, 1.0),
            "x": rng.random(), "y": rng.random(), "flip_lr": rng.random() < 0.5, "flip_tb": rng.random() < 0.15,
            "brightness": rng.uniform(0.85, 1.15)}
    if rng.random() < JPEG_SHARE:
        plan["kind"], plan["mode"] = "jpeg", "RGB"
    else:
        u = rng.random()
        plan["kind"], plan["mode"] = "png", next(m for limit, m in PNG_KINDS if u < limit)
    plan["name"] = f"img_{index:05d}." + ("jpg" if plan["kind"] == "jpeg" else "png")
    return plan


def make_one(job: Tuple[str, dict]) -> Tuple[str, int]:
    from PIL import Image, ImageEnhance

    directory, plan = job
    name, photo = SOURCES[plan["source"] % len(SOURCES)]
    sh, sw = photo.shape[:2]
    w, h = plan["width"], plan["height"]
    aspect = w / h
    cw = min(sw, sh * aspect) * plan["scale"]
    ch = cw / aspect
    x0, y0 = plan["x"] * (sw - cw), plan["y"] * (sh - ch)
    im = Image.fromarray(photo).resize((w, h), Image.Resampling.LANCZOS, box=(x0, y0, x0 + cw, y0 + ch))
    if plan["flip_lr"]:
        im = im.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    if plan["flip_tb"]:
        im = im.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    im = ImageEnhance.Brightness(im).enhance(plan["brightness"])
    path = Path(directory) / plan["name"]
    tmp = path.with_name(path.name + ".part")
    if plan["kind"] == "jpeg":
        im.save(tmp, format="JPEG", quality=90, subsampling=2)  # 2 = 4:2:0
    else:
        if plan["mode"] == "L":
            im = im.convert("L")
        elif plan["mode"] == "RGBA":
            alpha = Image.linear_gradient("L").resize((w, h)).point(lambda v: 64 + v * 191 // 255)
            im.putalpha(alpha)
        im.save(tmp, format="PNG")
    os.replace(tmp, path)
    return plan["name"], path.stat().st_size


def make_dataset(directory: Path, count: int, seed: int, workers: int) -> None:
    """Makes the files of (seed, 0..count-1) that DIR lacks; removes files of an earlier
    manifest that are no longer in the set. Only names the manifest lists are ever removed."""
    directory.mkdir(parents=True, exist_ok=True)
    manifest_path = directory / "manifest.json"
    old: dict = {}
    if manifest_path.is_file():
        try:
            old = json.loads(manifest_path.read_text())
        except ValueError:
            old = {}
    plans = [plan_one(seed, i) for i in range(count)]
    keep = set()
    if old.get("generator") == GENERATOR and old.get("seed") == seed:
        keep = {n for n in old.get("files", []) if (directory / n).is_file()}
    wanted = {p["name"] for p in plans}
    for n in old.get("files", []):
        if n not in wanted or n not in keep:
            (directory / n).unlink(missing_ok=True)
    todo = [p for p in plans if p["name"] not in keep]
    if todo:
        print(f"Making {len(todo)} of {count} files in {directory} (seed {seed}, {workers} processes)...", flush=True)
        t0 = time.perf_counter()
        # The manifest is written first with nothing kept, so an interrupted run only keeps what it had.
        manifest_path.write_text(json.dumps({"generator": GENERATOR, "seed": seed, "count": len(keep),
                                             "files": sorted(keep)}) + "\n")
        with multiprocessing.Pool(workers, initializer=_init_maker) as pool:
            for k, _ in enumerate(pool.imap_unordered(make_one, [(str(directory), p) for p in todo], chunksize=4)):
                if (k + 1) % 200 == 0:
                    print(f"  {k + 1}/{len(todo)} ({time.perf_counter() - t0:.0f} s)", flush=True)
        print(f"  made in {time.perf_counter() - t0:.1f} s", flush=True)
    kinds: Dict[str, int] = {}
    for p in plans:
        key = f"{p['kind']} {p['mode']}"
        kinds[key] = kinds.get(key, 0) + 1
    manifest_path.write_text(json.dumps({"generator": GENERATOR, "seed": seed, "count": count, "kinds": kinds,
                                         "size_min": SIZE_MIN, "size_max": SIZE_MAX,
                                         "sources": [n for n, _ in load_sources()] if todo else old.get("sources"),
                                         "files": sorted(wanted)}, indent=1) + "\n")


def list_images(directory: Path) -> List[str]:
    return sorted(str(p) for p in directory.rglob("*")
                  if p.suffix.lower() in EXTENSIONS and p.is_file() and not p.name.startswith("."))


def describe(paths: List[str]) -> dict:
    """Bytes, pixels and kinds of the files (headers only), and a read of each into the page cache."""
    from PIL import Image

    total_bytes = total_px = 0
    kinds: Dict[str, int] = {}
    for p in paths:
        with open(p, "rb") as f:
            while f.read(1 << 20):
                pass
        total_bytes += os.path.getsize(p)
        with Image.open(p) as im:
            total_px += im.width * im.height
            key = f"{im.format} {im.mode}"
        kinds[key] = kinds.get(key, 0) + 1
    return {"files": len(paths), "bytes": total_bytes, "pixels": total_px, "kinds": kinds}


# ---------------------------------------------------------------------------------------------
# Workers of the Pool scripts (module level, so that every start method can pickle them)

def pil_histogram(p: str):
    from PIL import Image

    with Image.open(p) as im:
        return im.mode, im.histogram()


def cv2_histogram(p: str):
    import cv2

    img = cv2.imread(p, cv2.IMREAD_UNCHANGED)
    channels = 1 if img.ndim == 2 else img.shape[2]
    return np.stack([cv2.calcHist([img], [c], None, [256], [0, 256]).ravel() for c in range(channels)])


def pil_decode(p: str) -> None:
    from PIL import Image

    with Image.open(p) as im:
        im.load()


def cv2_decode(p: str) -> None:
    import cv2

    cv2.imread(p, cv2.IMREAD_UNCHANGED)


def oiio_decode(p: str) -> None:
    import imghist

    imghist.read(p)


def simplejpeg_decode(p: str) -> None:
    if p.lower().endswith((".jpg", ".jpeg")):
        import simplejpeg

        with open(p, "rb") as f:
            simplejpeg.decode_jpeg(f.read())
    else:
        pil_decode(p)


# ---------------------------------------------------------------------------------------------
# Contenders: fn() runs the whole directory and returns what the cross-checks need

class Contender:
    def __init__(self, name: str, fn: Callable[[], object], ceiling: bool = False, note: str = ""):
        self.name, self.fn, self.ceiling, self.note = name, fn, ceiling, note
        self.seconds: List[float] = []
        self.result: object = None


def pool_map(worker, paths: List[str], workers: int) -> list:
    with multiprocessing.Pool(workers) as pool:
        return pool.map(worker, paths)


def contenders(args: argparse.Namespace, directory: Path, paths: List[str], notes: List[str]) -> List[Contender]:
    import imghist

    out: List[Contender] = []
    n = args.workers
    def run_cli(cli: Path, extra: Tuple[str, ...] = ()):
        with tempfile.TemporaryFile() as f:
            r = subprocess.run([str(cli), str(directory), "--format", "json", "--sum-only", *extra], stdout=f,
                               stderr=subprocess.PIPE, text=False)
            f.seek(0)
            doc = json.loads(f.read())
        if r.returncode not in (0, 1):
            raise RuntimeError(f"imghist exited {r.returncode}: {r.stderr.decode(errors='replace')[-500:]}")
        return doc

    builds = [("imghist CLI", Path(args.imghist))]
    if args.baseline:
        builds.append(("baseline CLI", Path(args.baseline)))
    for name, cli in builds:
        if not (cli.is_file() and os.access(cli, os.X_OK)):
            notes.append(f"{name}: no executable at {cli} (build it, or pass --imghist PATH): left out")
            continue
        out.append(Contender(name, lambda cli=cli: run_cli(cli), note=f"{cli} DIR --format json --sum-only"))
        if args.cli_in_process:
            out.append(Contender(f"{name} in-process", lambda cli=cli: run_cli(cli, ("--decode-in-process",)),
                                 note=f"{cli} DIR --format json --sum-only --decode-in-process"))

    if hasattr(imghist, "histogram_files"):
        def run_py():
            r = imghist.histogram_files(paths, backend="cpu").run()
            return {"sums": r.sums, "failed": r.failed, "errors": r.errors}
        out.append(Contender("imghist Python", run_py, note='histogram_files(paths, backend="cpu").run()'))
    else:
        from concurrent.futures import ThreadPoolExecutor
        import threading

        local = threading.local()

        def one(p):
            if not hasattr(local, "engine"):
                local.engine = imghist.Engine("cpu", threads=1)
            return local.engine.histogram_file(p)

        def run_py_loop():
            sums: dict = {}
            with ThreadPoolExecutor(n) as ex:
                for h in ex.map(one, paths):
                    key = (h.channels, h.bins)  # as the CLI's --sum: rgb8 and rgba8 files add up
                    sums[key] = h if key not in sums else sums[key] + h
            return {"sums": list(sums.values()), "failed": 0, "errors": []}
        out.append(Contender("imghist Python", run_py_loop,
                             note=f"this build has no histogram_files: {n} threads of Engine('cpu').histogram_file"))
        notes.append("imghist Python: this imghist build has no histogram_files(); timed a thread pool of "
                     "Engine.histogram_file instead (rebuild the package from a tree that has python/imghist/_files.py)")

    def run_pil():
        hists = pool_map(pil_histogram, paths, n)
        sums: Dict[str, np.ndarray] = {}
        for mode, h in hists:
            sums[mode] = sums.get(mode, 0) + np.asarray(h, dtype=np.int64)
        return {"per_file": hists, "sums": sums}
    out.append(Contender("Pillow script", run_pil, note=f"Pool({n}).map(Image.open(p).histogram())"))

    try:
        import cv2  # noqa: F401

        def run_cv2():
            hists = pool_map(cv2_histogram, paths, n)
            sums: Dict[int, np.ndarray] = {}
            for h in hists:
                sums[h.shape[0]] = sums.get(h.shape[0], 0) + h.astype(np.float64)
            return {"per_file": hists, "sums": sums}
        out.append(Contender("OpenCV script", run_cv2,
                             note=f"Pool({n}).map(cv2.imread(UNCHANGED) + cv2.calcHist per channel)"))
        out.append(Contender("decode-only OpenCV", lambda: pool_map(cv2_decode, paths, n), ceiling=True,
                             note=f"Pool({n}).map(cv2.imread(p, IMREAD_UNCHANGED))"))
    except ImportError:
        notes.append("OpenCV: cv2 is not installed (opencv-python-headless): its rows are left out")
    out.append(Contender("decode-only Pillow", lambda: pool_map(pil_decode, paths, n), ceiling=True,
                         note=f"Pool({n}).map(Image.open(p).load())"))
    out.append(Contender("decode-only imghist.read", lambda: pool_map(oiio_decode, paths, n), ceiling=True,
                         note=f"Pool({n}).map(imghist.read(p))"))
    try:
        import simplejpeg  # noqa: F401

        out.append(Contender("decode-only simplejpeg", lambda: pool_map(simplejpeg_decode, paths, n), ceiling=True,
                             note=f"Pool({n}).map(simplejpeg.decode_jpeg), PNGs by Pillow"))
    except ImportError:
        notes.append("simplejpeg: not installed (pip install simplejpeg; no wheel for this platform?): "
                     "its ceiling is left out")
    return [c for c in out if not any(s.lower() in c.name.lower() for s in args.skip)]


def time_rounds(items: List[Contender], rounds: int) -> None:
    for r in range(rounds):
        order = items[r % len(items):] + items[: r % len(items)]
        for c in order:
            t0 = time.perf_counter()
            c.result = c.fn()
            c.seconds.append(time.perf_counter() - t0)
            print(f"  round {r + 1}/{rounds}: {c.name:<24} {c.seconds[-1]:7.2f} s", flush=True)


# ---------------------------------------------------------------------------------------------
# Cross-checks

def channel_counts_of(h) -> Dict[str, np.ndarray]:
    """An imghist.Histogram as {channel name: counts}."""
    counts = np.asarray(h.counts).reshape(len(h.channels), -1)
    return {name: counts[i].astype(np.int64) for i, name in enumerate(h.channels)}


def layout_key(channels, bins, fmt) -> str:
    return f"{fmt} {','.join(channels)} x{bins}"


def cli_sums(doc: dict) -> Dict[str, Dict[str, np.ndarray]]:
    out = {}
    for s in doc.get("sums", []):
        hs = s["histograms"]
        bins = next(iter(hs.values()))["bins"]
        key = layout_key(list(hs), bins, "/".join(s.get("formats", [])))
        out[key] = {name: np.asarray(v["counts"], dtype=np.int64) for name, v in hs.items()}
    return out


def py_sums(result: dict) -> Dict[str, Dict[str, np.ndarray]]:
    return {layout_key(h.channels, h.bins, h.format): channel_counts_of(h) for h in result["sums"]}


def imghist_per_file(paths: List[str]) -> List[Optional[Dict[str, np.ndarray]]]:
    import imghist

    if hasattr(imghist, "histogram_files"):
        return [None if f.histogram is None else channel_counts_of(f.histogram)
                for f in imghist.histogram_files(paths, backend="cpu")]
    engine = imghist.Engine("cpu")
    return [channel_counts_of(engine.histogram_file(p)) for p in paths]


def pil_as_channels(mode: str, h: list) -> Dict[str, np.ndarray]:
    a = np.asarray(h, dtype=np.int64).reshape(-1, 256)
    names = {"RGB": "RGB", "RGBA": "RGBA", "L": "Y"}.get(mode, mode)
    return {c: a[i] for i, c in enumerate(names)}


def cv2_as_channels(h: np.ndarray) -> Dict[str, np.ndarray]:
    a = np.rint(h).astype(np.int64)
    names = {1: "Y", 3: "BGR", 4: "BGRA"}[a.shape[0]]
    return {c: a[i] for i, c in enumerate(names)}


def compare_files(ref: List[Optional[Dict[str, np.ndarray]]], theirs: List[Dict[str, np.ndarray]],
                  kinds: List[str]) -> Dict[str, dict]:
    """Per kind of file: files, files equal, and counts moved (sum of |difference| / 2) out of the
    samples compared: R, G, B of colour files, the gray channel of gray ones (alpha and
    imghist's luminance are left out)."""
    out: Dict[str, dict] = {}
    for r, t, kind in zip(ref, theirs, kinds):
        g = out.setdefault(kind, {"files": 0, "equal": 0, "moved": 0, "samples": 0, "incomparable": 0})
        g["files"] += 1
        mine = {("Y" if c == "gray" else c): v for c, v in (r or {}).items()}
        names = ("R", "G", "B") if "R" in mine else ("Y",)
        if r is None or any(c not in t or t[c].shape != mine[c].shape for c in names):
            g["incomparable"] += 1
            continue
        moved = sum(int(np.abs(mine[c] - t[c]).sum()) for c in names) // 2
        g["equal"] += moved == 0
        g["moved"] += moved
        g["samples"] += sum(int(mine[c].sum()) for c in names)
    return out


def cross_checks(items: List[Contender], paths: List[str]) -> List[str]:
    from PIL import Image

    lines = []
    by = {c.name: c for c in items}
    py = by.get("imghist Python")
    for cli in (c for c in items if c.name.startswith(("imghist CLI", "baseline CLI"))):
        if py is None:
            break
        a, b = cli_sums(cli.result), py_sums(py.result)
        # the CLI names a layout by its files' formats: match the sums by channels and counts
        matched, pending = 0, list(b.values())
        for ca in a.values():
            hit = next((i for i, cb in enumerate(pending)
                        if set(ca) == set(cb) and all(np.array_equal(ca[k], cb[k]) for k in ca)), None)
            if hit is not None:
                pending.pop(hit)
                matched += 1
        if matched == len(a) == len(b):
            lines.append(f"- {cli.name} JSON sums = Python package sums: equal ({len(a)} layouts: "
                         + "; ".join(sorted(a)) + ")")
        else:
            lines.append(f"- {cli.name} JSON sums vs Python package sums: DIFFER ({matched} of {len(a)} CLI layouts "
                         f"equal one of the package's {len(b)}): CLI {sorted(a)}, package {sorted(b)}")
        errs = len(cli.result.get("errors", [])), py.result["failed"]
        if any(errs):
            lines.append(f"- imghist errors: {cli.name} {errs[0]}, Python {errs[1]}")
    theirs = [(name, conv) for name, conv in (("Pillow script", lambda x: pil_as_channels(*x)),
                                              ("OpenCV script", cv2_as_channels)) if name in by]
    if not theirs:
        return lines
    t0 = time.perf_counter()
    ref = imghist_per_file(paths)
    kinds = []
    for p in paths:
        with Image.open(p) as im:
            kinds.append(f"{im.format} {im.mode}")
    print(f"  (per-file imghist pass for the cross-checks: {time.perf_counter() - t0:.1f} s)", flush=True)
    for name, conv in theirs:
        res = compare_files(ref, [conv(x) for x in by[name].result["per_file"]], kinds)
        parts = []
        for kind, g in sorted(res.items()):
            if g["equal"] == g["files"]:
                parts.append(f"{kind}: equal ({g['files']} files)")
            else:
                share = g["moved"] / g["samples"] if g["samples"] else 0.0
                parts.append(f"{kind}: {g['files'] - g['equal']} of {g['files']} files differ, "
                             f"{share:.4%} of counts differ" + (f" ({g['incomparable']} not comparable)"
                                                                 if g["incomparable"] else ""))
        lines.append(f"- {name} per file vs imghist (R, G, B; gray: Y): " + "; ".join(parts))
    return lines


# ---------------------------------------------------------------------------------------------
# The report

def machine_lines(args: argparse.Namespace, info: dict, directory: Path, load_before) -> List[str]:
    import PIL

    import imghist

    versions = [f"Python {platform.python_version()}", f"imghist {getattr(imghist, '__version__', '?')}",
                f"numpy {np.__version__}", f"Pillow {PIL.__version__}"]
    try:
        import cv2

        versions.append(f"opencv-python-headless {cv2.__version__} (cv2.getNumThreads() = {cv2.getNumThreads()})")
    except ImportError:
        pass
    try:
        import simplejpeg

        versions.append(f"simplejpeg {simplejpeg.__version__}")
    except ImportError:
        pass
    try:
        cli = subprocess.run([args.imghist, "--version"], capture_output=True, text=True, timeout=30).stdout
        versions.append(f"CLI: {cli.strip().splitlines()[0] if cli.strip() else '?'}")
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        model = next(ln.split(":", 1)[1].strip() for ln in subprocess.run(
            ["lscpu"], capture_output=True, text=True).stdout.splitlines() if ln.startswith("Model name"))
    except (OSError, StopIteration):
        model = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
    try:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip() or "?"
        if subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                          capture_output=True, text=True).stdout.strip():
            commit += " (with uncommitted changes)"
    except OSError:
        commit = "?"
    kinds = ", ".join(f"{v} {k}" for k, v in sorted(info["kinds"].items(), key=lambda kv: -kv[1]))
    return [f"- Machine: {model}, {os.cpu_count()} logical CPUs ({len(os.sched_getaffinity(0))} usable); "
            f"{platform.platform()}",
            f"- {', '.join(versions)}",
            f"- Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; commit {commit}",
            f"- Command: {' '.join([Path(sys.executable).name] + sys.argv)}",
            f"- Dataset {directory}: {info['files']} files ({kinds}), {info['bytes'] / 1e6:.1f} MB, "
            f"mean {info['pixels'] / max(1, info['files']) / 1e6:.2f} MP a file",
            f"- rounds {args.rounds}, Pool({args.workers}) for the scripts; "
            f"load average before: {' '.join(f'{v:.2f}' for v in load_before)}"]


def rows_of(items: List[Contender], info: dict) -> List[dict]:
    rows = []
    for c in items:
        rates = [info["files"] / s for s in c.seconds]
        med_s = statistics.median(c.seconds)
        rows.append({"contender": c.name, "note": c.note, "ceiling": c.ceiling, "seconds": c.seconds,
                     "files_per_s": info["files"] / med_s, "min_files_per_s": min(rates),
                     "max_files_per_s": max(rates), "mb_per_s": info["bytes"] / 1e6 / med_s,
                     "mp_per_s": info["pixels"] / 1e6 / med_s,
                     "mb_per_s_rounds": [info["bytes"] / 1e6 / s for s in c.seconds]})
    ceil = max((r for r in rows if r["ceiling"]), key=lambda r: r["files_per_s"], default=None)
    pil = next((r for r in rows if r["contender"] == "Pillow script"), None)
    for r in rows:
        r["vs_ceiling"] = r["files_per_s"] / ceil["files_per_s"] if ceil else None
        r["vs_pillow"] = r["files_per_s"] / pil["files_per_s"] if pil else None
    return rows


def table(rows: List[dict]) -> List[str]:
    ceil = max((r for r in rows if r["ceiling"]), key=lambda r: r["files_per_s"], default=None)
    out = ["| contender | what is timed | files/s (median) | files/s (min–max) | MB/s | MP/s | "
           f"vs ceiling{' (' + ceil['contender'] + ')' if ceil else ''} | vs Pillow script |",
           "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        ratio = lambda v: "—" if v is None else f"{v:.2f}×"  # noqa: E731
        out.append(f"| {r['contender']} | {r['note']} | {r['files_per_s']:.1f} | {r['min_files_per_s']:.1f}–"
                   f"{r['max_files_per_s']:.1f} | {r['mb_per_s']:.1f} | {r['mp_per_s']:.1f} | "
                   f"{ratio(r['vs_ceiling'])} | {ratio(r['vs_pillow'])} |")
    return out


def count_only_bound(paths: List[str], rows: List[dict], workers: int, sample: int = 300) -> List[str]:
    """The most a pipeline that decodes and counts on the same cores can reach: each core decodes
    its files at the fastest decode-only loop's rate per core and counts them at imghist's
    one-thread rate over the same kind of pixels (the CLI's request: R, G, B and luminance),
    measured on `sample` files spread over the set, decoded into memory first."""
    import imghist

    ceil = max((r for r in rows if r["ceiling"]), key=lambda r: r["files_per_s"], default=None)
    if ceil is None:
        return []
    picked = paths[:: max(1, len(paths) // sample)][:sample]
    images = [imghist.read(p) for p in picked]
    engine = imghist.Engine("cpu", threads=1)
    for im in images[:20]:
        engine.histogram(im)  # warm: tables, caches
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        for im in images:
            engine.histogram(im)
        times.append(time.perf_counter() - t0)
    count_rate = len(images) / statistics.median(times)  # files/s on one core
    decode = ceil["files_per_s"]
    bound = 1.0 / (1.0 / decode + 1.0 / (workers * count_rate))
    return [f"- The bound of decoding and counting on the same {workers} cores: counting alone (one thread, "
            f"{len(images)} decoded files in memory, median of 5) {count_rate:.0f} files/s a core, so with "
            f"{ceil['contender']} at {decode:.1f} files/s the cores can give at most {bound:.1f} files/s = "
            f"{bound / decode:.2f}× the fastest decode-only loop (goal {CEILING_GOAL:.2f}×)"]


def goals(rows: List[dict]) -> List[str]:
    out = []
    for r in rows:
        if r["contender"].startswith(("imghist", "baseline")) and r["vs_ceiling"] is not None:
            out.append(f"- {r['contender']}: {r['vs_ceiling']:.2f}× the fastest decode-only loop (goal ≥ "
                       f"{CEILING_GOAL:.2f}×): {'met' if r['vs_ceiling'] >= CEILING_GOAL else 'NOT met'}"
                       + (f"; {r['vs_pillow']:.2f}× the Pillow script" if r["vs_pillow"] else ""))
    return out


def main() -> int:
    args = parse_args()
    if args.make:
        directory = Path(args.make)
        make_dataset(directory, args.count, args.seed, args.workers)
    else:
        directory = Path(args.dir)
        if not directory.is_dir():
            sys.exit(f"{directory} is not a directory")
    paths = list_images(directory)
    if not paths:
        sys.exit(f"no image under {directory}")
    info = describe(paths)
    print(f"Dataset {directory}: {info['files']} files, {info['bytes'] / 1e6:.1f} MB, "
          f"mean {info['pixels'] / info['files'] / 1e6:.2f} MP a file ({info['kinds']})", flush=True)
    if args.make_only:
        return 0
    notes: List[str] = []
    items = contenders(args, directory, paths, notes)
    load_before = os.getloadavg()
    head = machine_lines(args, info, directory, load_before)
    print("\n".join(head), flush=True)
    time_rounds(items, args.rounds)
    load_after = os.getloadavg()
    checks = cross_checks(items, paths)
    rows = rows_of(items, info)
    bound = count_only_bound(paths, rows, args.workers)
    report = (head + ["", f"{info['files']} files, every contender over the whole directory once per round "
                          "(medians of the rounds; MB/s = file bytes, MP/s = decoded megapixels):", ""]
              + table(rows)
              + ["", f"- load average after: {' '.join(f'{v:.2f}' for v in load_after)}"]
              + goals(rows) + bound + checks + [f"- Note: {n}" for n in notes])
    text = "\n".join(report) + "\n"
    print("\n" + "\n".join(report[len(head):]))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"machine": head, "dataset": info, "rows": rows, "checks": checks,
                                               "notes": notes, "load_before": load_before,
                                               "load_after": load_after}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
