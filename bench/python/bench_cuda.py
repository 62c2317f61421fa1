#!/usr/bin/env python3
"""imghist's Python package on torch CUDA tensors against torch and CuPy, and against the same
synchronous call from C++, all timed in one run on one GPU (the CUDA half of bench_python.py).

Images: (H, W, 4) uint8 RGBA torch tensors made on the GPU (--sizes, default 1920x1080 and
7680x4320), patterns random (torch.randint, seeded), natural (bench/cuda/bench_kernels.cu's
formula: gradients, a sine, uniform noise of +-0.02; other random numbers) and constant (the C++
bench's pixel, 77 140 200 255). Alpha is 255.

Contenders, each counting R, G, B of the same tensor (8-bit values, 256 bins):
    imghist Engine('cuda').histogram(t, mode='rgb') and mode='all' (R, G, B, Y) on a kept
        engine; the one-shot imghist.histogram(t, mode='rgb') (an engine per call); the kept
        engine's call inside `with torch.cuda.stream(s)` (a non-default stream);
    torch.bincount(t[..., c].reshape(-1), minlength=256) per channel (with .int() inside the
        timed call if bincount refuses uint8: the table says which);
    torch.histc(t[..., c].float(), bins=256, min=0, max=255) per channel (the conversion timed,
        as a user must make it);
    cupy.histogram(a[..., c], bins=256, range=(0, 256)) and cupy.bincount(a[..., c].ravel(),
        minlength=256) per channel, on a = cupy.from_dlpack(t) (zero-copy, made before timing);
        skipped (and said so) when cupy cannot be imported;
    C++: imghist_cuda_bench --sync (compute_device -> Result on the host on a non-blocking
        stream, host-clock medians of single calls; 1920x1080 and 7680x4320 only, the same
        patterns from its own generators), run as a subprocess before and after the Python
        timings; the mean of the two runs is the figure compared with.
Every timed call is followed by torch.cuda.synchronize() (imghist's call is synchronous already:
it returns with the counts on the host; the sync is there so that every contender pays it),
except the rows marked "no synchronize()", which time imghist's call alone: those are the ones
compared with C++'s (which has no such sync). Each sample is the mean of a batch of calls lasting
about --batch-ms; the table gives the median (and the smallest) of --repeats samples. Contenders
are timed round-robin (one batch each per repeat), after a warm-up of about a quarter batch.
Every contender's R, G, B counts are checked equal to imghist's Engine rgb counts; a mismatch is
printed loudly and makes the exit status 1 (torch.histc's float32 counts cannot hold more than
2^24 in a bin exactly: a difference confined to such bins is reported, not failed).

The overhead part (1920x1080 random) times alone the steps the binding takes for a CUDA
tensor: torch.cuda.current_stream(), the stream lookup, t.__dlpack__(stream=...), and for scale
torch.utils.dlpack.to_dlpack(t), an idle torch.cuda.synchronize(), and imghist on a 1x1 tensor.

Goals: imghist Engine rgb (no synchronize) / C++ compute_device <= 1.10; torch.bincount time /
imghist Engine rgb time >= 10x.

Setup (torch and cupy are preinstalled in the GPU machine's /opt/torch/.venv; run with that Python):
    python -m pip install .          # imghist into the same Python; its CUDA backend builds with the toolkit
    cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DIMGHIST_BENCH=ON -DIMGHIST_TESTS=OFF \
        -DIMGHIST_CLI=OFF -DIMGHIST_OPENCL=OFF -DIMGHIST_VULKAN=OFF -DIMGHIST_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES=90
    ninja -C build-gpu imghist_cuda_bench
Run:
    python bench/python/bench_cuda.py [--sizes 1920x1080,7680x4320] [--repeats 11] [--batch-ms 50]
                                      [--out table.md] [--json out.json] [--cxx-bench PATH | --no-cxx]
    python bench/python/bench_cuda.py --quick    # a smoke run: 1920x1080, 3 repeats
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import json
import platform
import re
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, ContextManager, Dict, List, Optional, Tuple

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CXX = "build-gpu/bench/cuda/imghist_cuda_bench"
PATTERNS = ("random", "natural", "constant")
CXX_GOAL, BINCOUNT_GOAL = 1.10, 10.0
FLOAT32_EXACT = 2**24  # float32 holds every integer up to this, not all above it
SYNC_LINE = re.compile(r"^sync rgba8 (\d+x\d+) (\S+) (rgb|all): ([0-9.]+) us$")
REF = "engine-rgb"  # the key of the reference contender: its counts are checked against, its time divides
CxxTimes = Dict[Tuple[str, str, str], List[float]]  # (size "WxH", pattern, mode) -> us of each C++ run


def parse_size(text: str) -> Tuple[int, int]:
    w, sep, h = text.strip().lower().partition("x")
    if not (sep and w.isdigit() and h.isdigit() and int(w) > 0 and int(h) > 0):
        raise argparse.ArgumentTypeError(f"a size is WxH, e.g. 1920x1080; got {text!r}")
    return int(w), int(h)


def parse_sizes(text: str) -> List[Tuple[int, int]]:
    sizes = [parse_size(s) for s in text.split(",") if s.strip()]
    if not sizes:
        raise argparse.ArgumentTypeError("--sizes needs at least one WxH")
    return sizes


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=parse_sizes, default="1920x1080,7680x4320",
                   help="comma-separated WxH of the images (1920x1080,7680x4320)")
    p.add_argument("--repeats", type=int, default=11, help="timed samples per contender (11)")
    p.add_argument("--batch-ms", type=float, default=50.0, help="length of one sample's batch of calls (50 ms)")
    p.add_argument("--seed", type=int, default=42, help="seed of the random and natural images (42)")
    p.add_argument("--quick", action="store_true", help="smoke run: 1920x1080, 3 repeats, 10 ms batches")
    p.add_argument("--cxx-bench", help=f"imghist_cuda_bench (default: {DEFAULT_CXX} in the repository)")
    p.add_argument("--no-cxx", action="store_true", help="skip the C++ figures")
    p.add_argument("--out", help="write the Markdown report here too")
    p.add_argument("--json", help="write every median here as JSON")
    a = p.parse_args()
    if a.repeats < 1 or a.batch_ms <= 0:
        p.error("--repeats must be >= 1 and --batch-ms > 0")
    if a.quick:
        a.sizes, a.repeats, a.batch_ms = [(1920, 1080)], 3, 10.0
    return a


# ---- the C++ figures (imghist_cuda_bench --sync) ----

def find_cxx_bench(args: argparse.Namespace) -> Optional[Path]:
    if args.no_cxx:
        return None
    path = Path(args.cxx_bench) if args.cxx_bench else ROOT / DEFAULT_CXX
    if not path.is_file():
        sys.exit(f"no C++ CUDA bench at {path}: build it (see --help), or pass --cxx-bench PATH or --no-cxx")
    return path


class CxxFailure(Exception):
    """imghist_cuda_bench --sync did not give its figures."""


def run_cxx_sync(binary: Path) -> Tuple[Dict[Tuple[str, str, str], float], List[str]]:
    """The `sync rgba8 WxH pattern mode: N us` lines of `binary --sync`, and its `#` lines (its
    stderr goes to ours)."""
    with subprocess.Popen([str(binary), "--sync"], stdout=subprocess.PIPE, text=True) as proc:
        first = proc.stdout.readline()
        if first and not first.startswith(("# ", "sync ")):  # an older build runs its whole report instead
            proc.kill()
            proc.wait()
            raise CxxFailure(f"{binary} --sync printed {first.strip()!r}: older than the --sync option; rebuild it")
        rest = proc.stdout.read()
    if proc.returncode != 0:
        raise CxxFailure(f"{binary} --sync failed (exit status {proc.returncode}; its error is above)")
    times, notes = {}, []
    for ln in (first + rest).splitlines():
        m = SYNC_LINE.match(ln.strip())
        if m:
            times[(m[1], m[2], m[3])] = float(m[4])
        elif ln.startswith("#"):
            notes.append(ln.lstrip("# ").strip())
    if not times:
        raise CxxFailure(f"{binary} --sync printed no 'sync rgba8 ...' line:\n{first + rest}")
    return times, notes


def add_cxx_run(binary: Optional[Path], into: CxxTimes, notes: List[str], first: bool) -> None:
    """One run's figures into `into`. The first run's failure ends the benchmark; a later one's is
    only reported (the figures of the first stand alone)."""
    if binary is None:
        return
    print(f"running {binary} --sync ...", file=sys.stderr, flush=True)
    try:
        times, run_notes = run_cxx_sync(binary)
    except CxxFailure as e:
        if first:
            sys.exit(str(e))
        print(f"*** the second C++ run gave nothing (only the first counts): {e}", file=sys.stderr, flush=True)
        return
    for key, us in times.items():
        into.setdefault(key, []).append(us)
    notes[:] = run_notes


def cxx_us(cxx: CxxTimes, size: str, pattern: str, mode: str) -> Optional[float]:
    runs = cxx.get((size, pattern, mode))
    return statistics.mean(runs) if runs else None


# ---- the images and the contenders ----

def make_image(torch: Any, pattern: str, w: int, h: int, seed: int) -> Any:
    """An (H, W, 4) uint8 RGBA tensor on the current CUDA device (alpha 255), ready when returned."""
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)
    if pattern == "random":
        img = torch.randint(0, 256, (h, w, 4), dtype=torch.uint8, device="cuda", generator=g)
    elif pattern == "natural":
        img = natural_image(torch, w, h, g)
    elif pattern == "constant":
        img = torch.tensor([77, 140, 200, 255], dtype=torch.uint8, device="cuda").expand(h, w, 4).contiguous()
    else:
        raise ValueError(f"unknown pattern {pattern!r}")
    img[..., 3] = 255
    torch.cuda.synchronize()
    return img


def natural_image(torch: Any, w: int, h: int, g: Any) -> Any:
    """bench_kernels.cu's natural(): 0.5 x/w + 0.35 y/h + 0.1 sin(0.01 x + c) + 0.05, plus uniform
    noise in [-0.02, 0.02), clamped to [0, 0.999], times 256, truncated."""
    x = torch.arange(w, dtype=torch.float32, device="cuda")
    y = torch.arange(h, dtype=torch.float32, device="cuda")[:, None]
    img = torch.empty((h, w, 4), dtype=torch.uint8, device="cuda")
    for c in range(3):
        base = 0.5 * x / w + 0.35 * y / h + 0.1 * torch.sin(0.01 * x + c) + 0.05
        noise = torch.rand((h, w), device="cuda", generator=g) * 0.04 - 0.02
        img[..., c] = ((base + noise).clamp(0.0, 0.999) * 256).to(torch.uint8)
    return img


@dataclasses.dataclass
class Contender:
    """One timed call. `counts` turns its result into R, G, B counts, (3, 256) int64 (None: not
    checked). `mode`: imghist's mode ("" for the others). `sync`: torch.cuda.synchronize() after
    each call. `around`: a context entered around the calls (not timed). `float_counts`: counts
    in float32, exact up to 2^24 per bin."""

    key: str
    name: str
    fn: Callable[[], object]
    counts: Optional[Callable[[object], np.ndarray]] = None
    mode: str = ""
    sync: bool = True
    around: Callable[[], ContextManager] = contextlib.nullcontext
    note: str = ""
    float_counts: bool = False


@dataclasses.dataclass
class Env:
    args: argparse.Namespace
    torch: Any
    imghist: Any
    cupy: Any  # None when it cannot be imported
    cupy_note: str
    engine: Any  # the kept imghist.Engine("cuda")
    side: Any  # a non-default torch.cuda.Stream


def imghist_rgb(h: Any) -> np.ndarray:
    """The R, G, B rows of an imghist.Histogram, as int64."""
    rows = [list(h.channels).index(c) for c in ("R", "G", "B")]
    return np.asarray(h.counts)[rows].astype(np.int64)


def imghist_contenders(env: Env, img: Any) -> List[Contender]:
    """The reference (REF) first."""
    e, ih, torch = env.engine, env.imghist, env.torch
    alone = "the call alone (it returns with the counts on the host): compared with C++"
    return [
        Contender(REF, "imghist Engine('cuda').histogram(t, mode='rgb')", lambda: e.histogram(img, mode="rgb"),
                  imghist_rgb, mode="rgb", note="kept engine; the reference of the checks"),
        Contender("engine-all", "imghist Engine('cuda').histogram(t, mode='all')",
                  lambda: e.histogram(img, mode="all"), imghist_rgb, mode="all", note="R, G, B, Y"),
        Contender("oneshot-rgb", "imghist.histogram(t, mode='rgb')", lambda: ih.histogram(img, mode="rgb"),
                  imghist_rgb, mode="rgb", note="one-shot: an engine per call"),
        Contender("stream-rgb", "imghist Engine('cuda') mode='rgb' in torch.cuda.stream(s)",
                  lambda: e.histogram(img, mode="rgb"), imghist_rgb, mode="rgb",
                  around=lambda: torch.cuda.stream(env.side), note="a non-default stream (entered untimed)"),
        Contender("engine-rgb-nosync", "imghist Engine('cuda') mode='rgb', no synchronize()",
                  lambda: e.histogram(img, mode="rgb"), imghist_rgb, mode="rgb", sync=False, note=alone),
        Contender("engine-all-nosync", "imghist Engine('cuda') mode='all', no synchronize()",
                  lambda: e.histogram(img, mode="all"), imghist_rgb, mode="all", sync=False, note=alone),
    ]


def tensors_counts(hs: List[Any]) -> np.ndarray:
    return np.stack([h.cpu().numpy() for h in hs]).astype(np.int64)


def bincount_input(torch: Any) -> Tuple[Callable[[Any], Any], str]:
    """How torch.bincount gets a uint8 channel: as it is, or through .int() if it refuses uint8."""
    try:
        torch.bincount(torch.zeros(4, dtype=torch.uint8, device="cuda"), minlength=256)
        return (lambda v: v), "uint8 t[..., c].reshape(-1) (a copy: the channel is strided)"
    except (RuntimeError, TypeError, NotImplementedError):
        return (lambda v: v.int()), "bincount refuses uint8 on CUDA: .int() inside the timed call"


def torch_contenders(env: Env, img: Any) -> List[Contender]:
    torch = env.torch
    chans = [img[..., c] for c in range(3)]
    convert, note = bincount_input(torch)

    def bincount() -> List[Any]:
        return [torch.bincount(convert(v.reshape(-1)), minlength=256) for v in chans]

    def histc() -> List[Any]:
        return [torch.histc(v.float(), bins=256, min=0, max=255) for v in chans]

    return [
        Contender("torch.bincount", "torch.bincount x3", bincount, tensors_counts, note=note),
        Contender("torch.histc", "torch.histc x3 (bins=256, min=0, max=255)", histc, tensors_counts,
                  note="t[..., c].float() inside the timed call; float32 counts", float_counts=True),
    ]


def cupy_contenders(env: Env, img: Any) -> List[Contender]:
    cp = env.cupy
    if cp is None:
        return []
    a = cp.from_dlpack(img)  # zero-copy, untimed
    chans = [a[..., c] for c in range(3)]

    def to_counts(hs: List[Any]) -> np.ndarray:
        return np.stack([cp.asnumpy(h) for h in hs]).astype(np.int64)

    def histogram() -> List[Any]:
        return [cp.histogram(v, bins=256, range=(0, 256))[0] for v in chans]

    def bincount() -> List[Any]:
        return [cp.bincount(v.ravel(), minlength=256) for v in chans]

    shared = "a = cupy.from_dlpack(t) (zero-copy) made before timing"
    return [
        Contender("cupy.histogram", "cupy.histogram x3 (bins=256, range=(0, 256))", histogram, to_counts,
                  note=shared),
        Contender("cupy.bincount", "cupy.bincount x3 (a[..., c].ravel(), minlength=256)", bincount, to_counts,
                  note=shared + "; ravel() copies the strided channel"),
    ]


# ---- timing and checking ----

def step_of(c: Contender, torch: Any) -> Callable[[], None]:
    if not c.sync:
        return c.fn

    def step() -> None:
        c.fn()
        torch.cuda.synchronize()

    return step


def calibrate(step: Callable[[], None], batch_s: float) -> int:
    """Warm-up calls for about batch_s / 4 (3 at least); the number of calls lasting about batch_s."""
    t0, calls = time.perf_counter(), 0
    while time.perf_counter() - t0 < batch_s / 4 or calls < 3:
        step()
        calls += 1
    return max(1, calls * 4)


def batch_mean_us(step: Callable[[], None], calls: int) -> float:
    start = time.perf_counter_ns()
    for _ in range(calls):
        step()
    return (time.perf_counter_ns() - start) / calls / 1e3


def time_round_robin(items: List[Contender], torch: Any, repeats: int, batch_s: float) -> Dict[str, List[float]]:
    """`repeats` batch means per contender, one batch of each in turn per repeat, warm-up first."""
    steps = {c.key: step_of(c, torch) for c in items}
    calls: Dict[str, int] = {}
    for c in items:
        with c.around():
            calls[c.key] = calibrate(steps[c.key], batch_s)
    samples: Dict[str, List[float]] = {c.key: [] for c in items}
    for _ in range(repeats):
        for c in items:
            with c.around():
                samples[c.key].append(batch_mean_us(steps[c.key], calls[c.key]))
    return samples


def compare(c: Contender, got: np.ndarray, ref: np.ndarray) -> str:
    """"equal", or what differs ("DIFFERS" fails the run)."""
    if got.shape != ref.shape:
        return f"DIFFERS: shape {got.shape}, imghist's {ref.shape}"
    if np.array_equal(got, ref):
        return "equal"
    off = got != ref
    worst = int(np.abs(got - ref).max())
    if c.float_counts and bool(np.all(ref[off] > FLOAT32_EXACT)):
        return f"inexact only in bins > 2^24 (float32 counts; largest difference {worst})"
    return f"DIFFERS in {int(off.sum())} bin(s) (largest difference {worst})"


def one_line(e: Exception) -> str:
    """An error's message on one line, short, with no Markdown table separator."""
    return " ".join(str(e).split())[:200].replace("|", "/")


def check(c: Contender, torch: Any, ref: np.ndarray) -> str:
    """One call of c (also a warm-up), its counts against imghist's. Another library's error is
    reported as its row's check; imghist's propagates."""
    try:
        with c.around():
            result = c.fn()
            torch.cuda.synchronize()
        got = c.counts(result)
    except Exception as e:  # noqa: BLE001 (any failure of a contender is reported, not fatal)
        if c.mode:  # imghist's own
            raise
        print(f"{c.name} failed, not timed: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        return f"ERROR: {type(e).__name__}: {one_line(e)}"
    status = compare(c, got, ref)
    if "DIFFERS" in status:
        print(f"\n*** MISMATCH: {c.name}: {status} ***\n", file=sys.stderr, flush=True)
    return status


# ---- the cases ----

def measure_case(env: Env, w: int, h: int, pattern: str) -> List[dict]:
    size = f"{w}x{h}"
    print(f"measuring {size} {pattern} ...", file=sys.stderr, flush=True)
    img = make_image(env.torch, pattern, w, h, env.args.seed)
    items = imghist_contenders(env, img) + torch_contenders(env, img) + cupy_contenders(env, img)
    ref = items[0].counts(items[0].fn())
    checks = {c.key: check(c, env.torch, ref) for c in items}
    timed = [c for c in items if not checks[c.key].startswith("ERROR")]
    samples = time_round_robin(timed, env.torch, env.args.repeats, env.args.batch_ms / 1e3)
    rows = [case_row(c, size, pattern, w * h * 4, samples.get(c.key), checks[c.key]) for c in items]
    for r in rows:  # the other libraries' time over imghist's (the reference: rows[0])
        r["vs_imghist"] = r["us"] / rows[0]["us"] if not r["mode"] and r["us"] is not None else None
    return rows


def add_cxx_ratios(rows: List[dict], cxx: CxxTimes) -> None:
    """vs_cxx: an imghist row's time over C++'s of the same size, pattern and mode (None: no such figure)."""
    for r in rows:
        base = cxx_us(cxx, r["size"], r["image"], r["mode"]) if r["mode"] else None
        r["vs_cxx"] = r["us"] / base if base and r["us"] is not None else None


def case_row(c: Contender, size: str, pattern: str, nbytes: int, samples: Optional[List[float]],
             status: str) -> dict:
    us = statistics.median(samples) if samples else None
    return {"size": size, "image": pattern, "key": c.key, "contender": c.name, "note": c.note,
            "mode": c.mode, "synchronize": c.sync, "us": us, "min_us": min(samples) if samples else None,
            "gbps": nbytes / us / 1e3 if us else None, "samples_us": samples or [], "check": status}


def overhead_items(env: Env) -> List[Contender]:
    torch, e = env.torch, env.engine
    t = make_image(torch, "random", 1920, 1080, env.args.seed)
    t8k = make_image(torch, "random", 7680, 4320, env.args.seed)
    tiny = torch.full((1, 1, 4), 7, dtype=torch.uint8, device="cuda")
    dev = t.device.index or 0
    from imghist._streams import export_cuda, producer_stream  # what the binding calls

    def item(key: str, name: str, fn: Callable[[], object], note: str = "") -> Contender:
        return Contender(key, name, fn, sync=False, note=note)

    return [
        item("current_stream", "torch.cuda.current_stream()", lambda: torch.cuda.current_stream()),
        item("dlpack_device", "t.__dlpack_device__()", lambda: t.__dlpack_device__()),
        item("producer_stream", "imghist._streams.producer_stream(t, 0)", lambda: producer_stream(t, dev),
             "the stream lookup"),
        item("export_cuda", "imghist._streams.export_cuda(t, 0)", lambda: export_cuda(t, dev),
             "the binding's export: stream lookup and to_dlpack"),
        item("dlpack", "t.__dlpack__(stream=torch.cuda.current_stream().cuda_stream or 1)",
             lambda: t.__dlpack__(stream=torch.cuda.current_stream().cuda_stream or 1),
             "torch's own protocol export, which export_cuda avoids for torch's current stream"),
        item("to_dlpack", "torch.utils.dlpack.to_dlpack(t)", lambda: torch.utils.dlpack.to_dlpack(t)),
        item("synchronize", "torch.cuda.synchronize() (idle GPU)", torch.cuda.synchronize),
        item("tiny", "Engine('cuda').histogram(1x1 tensor, mode='rgb')", lambda: e.histogram(tiny, mode="rgb"),
             "the fixed cost of a call"),
        item("1080p", "Engine('cuda').histogram(t, mode='rgb')", lambda: e.histogram(t, mode="rgb"),
             "1920x1080 random, no synchronize()"),
        item("8K", "Engine('cuda').histogram(t8k, mode='rgb')", lambda: e.histogram(t8k, mode="rgb"),
             "7680x4320 random, no synchronize(): back to back, as the C++ --sync calls"),
    ]


def runs_once(c: Contender) -> str:
    """"" when one call of c works, else the error (the overhead rows report it, untimed)."""
    try:
        c.fn()
        return ""
    except Exception as e:  # noqa: BLE001
        return f"failed: {type(e).__name__}: {one_line(e)}"


def overhead(env: Env) -> List[dict]:
    print("measuring the call overhead ...", file=sys.stderr, flush=True)
    items = overhead_items(env)
    errors = {c.key: runs_once(c) for c in items}
    samples = time_round_robin([c for c in items if not errors[c.key]], env.torch, env.args.repeats,
                               env.args.batch_ms / 1e3)
    rows = [{"key": c.key, "call": c.name, "note": errors[c.key] or c.note,
             "us": statistics.median(samples[c.key]) if c.key in samples else None,
             "min_us": min(samples[c.key]) if c.key in samples else None} for c in items]
    return rows


def add_overhead_cxx(rows: List[dict], cxx: CxxTimes) -> None:
    """C++'s random rgb times after the overhead rows, and Python's ("1080p", "8K") minus them."""
    for key, size in (("1080p", "1920x1080"), ("8K", "7680x4320")):
        base = cxx_us(cxx, size, "random", "rgb")
        py = next((r["us"] for r in rows if r["key"] == key), None)
        if base is None or py is None:
            continue
        rows.append({"key": f"cxx-{key}", "call": f"C++ compute_device, {size} random rgb (imghist_cuda_bench --sync)",
                     "note": "median of single calls", "us": base, "min_us": None})
        rows.append({"key": f"python-minus-cxx-{key}", "call": f"Python − C++ ({size} random rgb)",
                     "note": f"ratio {py / base:.3f}", "us": py - base, "min_us": None})


# ---- the report ----

def open_env(args: argparse.Namespace) -> Env:
    import torch

    import imghist

    if not torch.cuda.is_available():
        sys.exit("torch sees no CUDA device: this benchmark needs one")
    try:
        import cupy

        cupy_note = f"cupy {cupy.__version__}"
    except Exception as e:  # noqa: BLE001 (ImportError, or a CUDA library it cannot load)
        cupy, cupy_note = None, f"cupy not available ({type(e).__name__}: {e}): its rows are skipped"
    return Env(args, torch, imghist, cupy, cupy_note, imghist.Engine("cuda"), torch.cuda.Stream())


def header(env: Env, cxx_notes: List[str]) -> List[str]:
    torch, args = env.torch, env.args
    sizes = ", ".join(f"{w}x{h}" for w, h in args.sizes)
    return [f"- Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
            f"- GPU: {torch.cuda.get_device_name()} (torch's device {torch.cuda.current_device()})",
            f"- Python {platform.python_version()}, torch {torch.__version__} (CUDA {torch.version.cuda}), "
            f"{env.cupy_note}, numpy {np.__version__}, imghist {getattr(env.imghist, '__version__', '?')}",
            f"- C++: {'; '.join(cxx_notes) if cxx_notes else 'skipped (--no-cxx)'}",
            f"- Command: {shlex.join([sys.executable] + sys.argv)}",
            f"- sizes {sizes}; repeats {args.repeats}, batch {args.batch_ms:g} ms, seed {args.seed}"]


def fmt(v: Optional[float], unit: str = "") -> str:
    if v is None:
        return "—"
    return (f"{v:.2f}" if abs(v) < 100 else f"{v:.0f}") + unit


CASE_COLUMNS = ("size", "image", "contender", "µs (median)", "µs (min)", "GB/s", "theirs ÷ imghist", "÷ C++ sync",
                "check", "note")


def case_table(rows: List[dict]) -> List[str]:
    out = ["| " + " | ".join(CASE_COLUMNS) + " |", "|---|---|---|---:|---:|---:|---:|---:|---|---|"]
    for r in rows:
        cells = (r["size"], r["image"], r["contender"], fmt(r["us"]), fmt(r["min_us"]), fmt(r["gbps"]),
                 fmt(r["vs_imghist"], "×"), fmt(r["vs_cxx"]), r["check"], r["note"])
        out.append("| " + " | ".join(cells) + " |")
    return out


def cxx_table(cxx: CxxTimes) -> List[str]:
    out = ["| size | image | mode | C++ µs (each run: before, after) | mean µs |", "|---|---|---|---|---:|"]
    order = {p: i for i, p in enumerate(PATTERNS)}
    for size, pattern, mode in sorted(cxx, key=lambda k: (k[0], order.get(k[1], len(order)), k[2] != "rgb")):
        runs = cxx[(size, pattern, mode)]
        out.append(f"| {size} | {pattern} | {mode} | {', '.join(fmt(u) for u in runs)} | "
                   f"{fmt(statistics.mean(runs))} |")
    return out


def overhead_table(rows: List[dict]) -> List[str]:
    out = ["| call | µs (median) | µs (min) | note |", "|---|---:|---:|---|"]
    out += [f"| `{r['call']}` | {fmt(r['us'])} | {fmt(r['min_us'])} | {r['note']} |" for r in rows]
    return out


def row_of(rows: List[dict], size: str, pattern: str, key: str) -> Optional[dict]:
    return next((r for r in rows if r["size"] == size and r["image"] == pattern and r["key"] == key), None)


def cxx_goal(rows: List[dict], size: str, pattern: str) -> str:
    at = f"- {size} {pattern}: imghist Engine rgb ÷ C++ compute_device"
    alone, synced = row_of(rows, size, pattern, "engine-rgb-nosync"), row_of(rows, size, pattern, REF)
    v = alone["vs_cxx"]
    if v is None:
        return f"{at}: no C++ figure for this case"
    return (f"{at} = {v:.3f} (goal ≤ {CXX_GOAL:.2f}): {'met' if v <= CXX_GOAL else 'NOT met'} "
            f"({fmt(alone['us'])} µs against {fmt(alone['us'] / v)} µs; with torch.cuda.synchronize() after "
            f"each call: {fmt(synced['vs_cxx'])})")


def library_goals(rows: List[dict], size: str, pattern: str) -> List[str]:
    at = f"- {size} {pattern}:"
    out = []
    bc = row_of(rows, size, pattern, "torch.bincount")
    if bc["vs_imghist"] is not None:
        v = bc["vs_imghist"]
        out.append(f"{at} torch.bincount ÷ imghist = {v:.1f}× (goal ≥ {BINCOUNT_GOAL:g}×): "
                   f"{'met' if v >= BINCOUNT_GOAL else 'NOT met'}")
    others = [row_of(rows, size, pattern, k) for k in ("torch.histc", "cupy.histogram", "cupy.bincount")]
    shown = [f"{r['key']} {fmt(r['vs_imghist'], '×')}" for r in others if r is not None]
    if shown:
        out.append(f"{at} theirs ÷ imghist: " + ", ".join(shown))
    return out


def goals(rows: List[dict], args: argparse.Namespace) -> List[str]:
    out = []
    for w, h in args.sizes:
        for pattern in PATTERNS:
            out += [cxx_goal(rows, f"{w}x{h}", pattern)] + library_goals(rows, f"{w}x{h}", pattern)
    bad = [r for r in rows if "DIFFERS" in r["check"]]
    out.append("- Checks: " + ("every contender's R, G, B counts equal imghist's" if not bad else
                               "**DIFFERENT counts**: " + ", ".join(f"{r['size']} {r['image']} {r['contender']}"
                                                                    for r in bad)))
    return out


def report(head: List[str], env: Env, cxx: CxxTimes, rows: List[dict], over: List[dict]) -> List[str]:
    return (head
            + ["", "RGBA8 torch CUDA tensors, R, G, B (imghist 'all': R, G, B, Y). Each call is followed by "
               "torch.cuda.synchronize() except where the row says not. theirs ÷ imghist: the row's time over "
               "imghist Engine('cuda') mode='rgb' (synchronized) of the same image; ÷ C++ sync: the row's time "
               "over imghist_cuda_bench --sync's compute_device time of the same size, pattern and mode (its "
               "own images: the same formulas, other random numbers).", ""]
            + case_table(rows)
            + (["", "C++ compute_device -> Result on the host (imghist_cuda_bench --sync; host-clock medians "
                "of single calls on a non-blocking stream):", ""] + cxx_table(cxx) if cxx else [])
            + ["", "Where a Python call's time goes (1920x1080 random; no synchronize(); batch means):", ""]
            + overhead_table(over)
            + ["", "Goals:", ""] + goals(rows, env.args))


def main() -> int:
    args = parse_args()
    cxx_bin = find_cxx_bench(args)
    cxx: CxxTimes = {}
    cxx_notes: List[str] = []
    add_cxx_run(cxx_bin, cxx, cxx_notes, first=True)  # before this process opens CUDA, and again after its timings
    env = open_env(args)
    head = header(env, cxx_notes)
    print("\n".join(head), flush=True)
    rows = [r for w, h in args.sizes for pattern in PATTERNS for r in measure_case(env, w, h, pattern)]
    over = overhead(env)
    add_cxx_run(cxx_bin, cxx, cxx_notes, first=False)
    add_cxx_ratios(rows, cxx)
    add_overhead_cxx(over, cxx)
    lines = report(head, env, cxx, rows, over)
    print("\n" + "\n".join(lines[len(head):]))
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")
    failures = [r for r in rows if "DIFFERS" in r["check"]]
    if args.json:
        cxx_rows = [{"size": k[0], "image": k[1], "mode": k[2], "us_runs": v} for k, v in sorted(cxx.items())]
        Path(args.json).write_text(json.dumps({"header": head, "cxx": cxx_rows, "rows": rows, "overhead": over,
                                               "goals": goals(rows, args), "failures": len(failures)},
                                              indent=1) + "\n")
    if failures:
        print(f"\n*** {len(failures)} contender(s) counted differently from imghist (see 'check') ***",
              file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
