#!/usr/bin/env python3
"""imghist's Python package on torch CUDA tensors against torch and CuPy, and against the same
synchronous call from C++, all timed in one run on one GPU (the CUDA half of bench_python.py).

Images: (H, W, 4) uint8 RGBA torch tensors made on the GPU (--sizes, default 1920x1080 and
7680x4320), patterns random (torch.randint, seeded), natural (bench/cuda/bench_kernels.cu's
formula: gradients, a sine, uniform noise of +-0.02; other random numbers) and constant (the C++
bench's pixel, 77 140 200 255). Alpha is 255.

Contenders, each counting R, G, B of the same tensor (8-bit values, 256 bins):
    imghist Engine('cuda').histogram(t, mode='rgb') and mode='all' (R, G, B, Y) on a kept
        engine; the one-shot imghist.histogram(t, mode='rgb') (the thread's kept engine); the kept
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

Files: this script (the options, the timing, the flow); cuda_contenders.py (the images, the
contenders, the checks); cuda_report.py (the C++ figures, the report).

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
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cuda_contenders as cc  # noqa: E402
import cuda_report as rep  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CXX = "build-gpu/bench/cuda/imghist_cuda_bench"


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


def find_cxx_bench(args: argparse.Namespace) -> Optional[Path]:
    if args.no_cxx:
        return None
    path = Path(args.cxx_bench) if args.cxx_bench else ROOT / DEFAULT_CXX
    if not path.is_file():
        sys.exit(f"no C++ CUDA bench at {path}: build it (see --help), or pass --cxx-bench PATH or --no-cxx")
    return path


# ---- timing ----

def step_of(c: cc.Contender, torch: Any) -> Callable[[], None]:
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


def time_round_robin(items: List[cc.Contender], torch: Any, repeats: int, batch_s: float) -> Dict[str, List[float]]:
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


# ---- the cases ----

def measure_case(env: cc.Env, w: int, h: int, pattern: str) -> List[dict]:
    size = f"{w}x{h}"
    print(f"measuring {size} {pattern} ...", file=sys.stderr, flush=True)
    img = cc.make_image(env.torch, pattern, w, h, env.args.seed)
    items = cc.imghist_contenders(env, img) + cc.torch_contenders(env, img) + cc.cupy_contenders(env, img)
    ref = items[0].counts(items[0].fn())
    checks = {c.key: cc.check(c, env.torch, ref) for c in items}
    timed = [c for c in items if not checks[c.key].startswith("ERROR")]
    samples = time_round_robin(timed, env.torch, env.args.repeats, env.args.batch_ms / 1e3)
    rows = [case_row(c, size, pattern, w * h * 4, samples.get(c.key), checks[c.key]) for c in items]
    for r in rows:  # the other libraries' time over imghist's (the reference: rows[0])
        r["vs_imghist"] = r["us"] / rows[0]["us"] if not r["mode"] and r["us"] is not None else None
    return rows


def case_row(c: cc.Contender, size: str, pattern: str, nbytes: int, samples: Optional[List[float]],
             status: str) -> dict:
    us = statistics.median(samples) if samples else None
    return {"size": size, "image": pattern, "key": c.key, "contender": c.name, "note": c.note,
            "mode": c.mode, "synchronize": c.sync, "us": us, "min_us": min(samples) if samples else None,
            "gbps": nbytes / us / 1e3 if us else None, "samples_us": samples or [], "check": status}


def runs_once(c: cc.Contender) -> str:
    """"" when one call of c works, else the error (the overhead rows report it, untimed)."""
    try:
        c.fn()
        return ""
    except Exception as e:  # noqa: BLE001
        return f"failed: {type(e).__name__}: {cc.one_line(e)}"


def overhead(env: cc.Env) -> List[dict]:
    print("measuring the call overhead ...", file=sys.stderr, flush=True)
    items = cc.overhead_items(env)
    errors = {c.key: runs_once(c) for c in items}
    samples = time_round_robin([c for c in items if not errors[c.key]], env.torch, env.args.repeats,
                               env.args.batch_ms / 1e3)
    rows = [{"key": c.key, "call": c.name, "note": errors[c.key] or c.note,
             "us": statistics.median(samples[c.key]) if c.key in samples else None,
             "min_us": min(samples[c.key]) if c.key in samples else None} for c in items]
    return rows


def open_env(args: argparse.Namespace) -> cc.Env:
    import torch

    import imghist

    if not torch.cuda.is_available():
        sys.exit("torch sees no CUDA device: this benchmark needs one")
    try:
        import cupy

        cupy_note = f"cupy {cupy.__version__}"
    except Exception as e:  # noqa: BLE001 (ImportError, or a CUDA library it cannot load)
        cupy, cupy_note = None, f"cupy not available ({type(e).__name__}: {e}): its rows are skipped"
    return cc.Env(args, torch, imghist, cupy, cupy_note, imghist.Engine("cuda"), torch.cuda.Stream())


def main() -> int:
    args = parse_args()
    cxx_bin = find_cxx_bench(args)
    cxx: rep.CxxTimes = {}
    cxx_notes: List[str] = []
    rep.add_cxx_run(cxx_bin, cxx, cxx_notes, first=True)  # before this process opens CUDA, and again after its timings
    env = open_env(args)
    head = rep.header(env, cxx_notes)
    print("\n".join(head), flush=True)
    rows = [r for w, h in args.sizes for pattern in cc.PATTERNS for r in measure_case(env, w, h, pattern)]
    over = overhead(env)
    rep.add_cxx_run(cxx_bin, cxx, cxx_notes, first=False)
    rep.add_cxx_ratios(rows, cxx)
    rep.add_overhead_cxx(over, cxx)
    lines = rep.report(head, env, cxx, rows, over)
    print("\n" + "\n".join(lines[len(head):]))
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")
    failures = [r for r in rows if "DIFFERS" in r["check"]]
    if args.json:
        cxx_rows = [{"size": k[0], "image": k[1], "mode": k[2], "us_runs": v} for k, v in sorted(cxx.items())]
        Path(args.json).write_text(json.dumps({"header": head, "cxx": cxx_rows, "rows": rows, "overhead": over,
                                               "goals": rep.goals(rows, args), "failures": len(failures)},
                                              indent=1) + "\n")
    if failures:
        print(f"\n*** {len(failures)} contender(s) counted differently from imghist (see 'check') ***",
              file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
