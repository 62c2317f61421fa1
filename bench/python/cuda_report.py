"""The C++ figures and the Markdown report of bench_cuda.py.

run_cxx_sync and add_cxx_run run imghist_cuda_bench --sync and parse its `sync rgba8 WxH pattern
mode: N us` lines into CxxTimes; add_cxx_ratios and add_overhead_cxx set the rows' ratios to
those figures; header, the tables, goals and report format what bench_cuda.py prints and writes
with --out (fmt, the one number format of every table).
"""

from __future__ import annotations

import argparse
import datetime
import platform
import re
import shlex
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

import cuda_contenders as cc

CXX_GOAL, BINCOUNT_GOAL = 1.10, 10.0
SYNC_LINE = re.compile(r"^sync rgba8 (\d+x\d+) (\S+) (rgb|all): ([0-9.]+) us$")
CxxTimes = Dict[Tuple[str, str, str], List[float]]  # (size "WxH", pattern, mode) -> us of each C++ run


# ---- the C++ figures (imghist_cuda_bench --sync) ----

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


def add_cxx_ratios(rows: List[dict], cxx: CxxTimes) -> None:
    """vs_cxx: an imghist row's time over C++'s of the same size, pattern and mode (None: no such figure)."""
    for r in rows:
        base = cxx_us(cxx, r["size"], r["image"], r["mode"]) if r["mode"] else None
        r["vs_cxx"] = r["us"] / base if base and r["us"] is not None else None


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

def header(env: cc.Env, cxx_notes: List[str]) -> List[str]:
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
    order = {p: i for i, p in enumerate(cc.PATTERNS)}
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
    alone, synced = row_of(rows, size, pattern, "engine-rgb-nosync"), row_of(rows, size, pattern, cc.REF)
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
        for pattern in cc.PATTERNS:
            out += [cxx_goal(rows, f"{w}x{h}", pattern)] + library_goals(rows, f"{w}x{h}", pattern)
    bad = [r for r in rows if "DIFFERS" in r["check"]]
    out.append("- Checks: " + ("every contender's R, G, B counts equal imghist's" if not bad else
                               "**DIFFERENT counts**: " + ", ".join(f"{r['size']} {r['image']} {r['contender']}"
                                                                    for r in bad)))
    return out


def report(head: List[str], env: cc.Env, cxx: CxxTimes, rows: List[dict], over: List[dict]) -> List[str]:
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
