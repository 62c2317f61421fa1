#!/usr/bin/env python3
"""imghist's Python package against the same call from C++ and against numpy, OpenCV,
scikit-image and Pillow, all timed in one run on this machine (issue 13, the CPU half).

(a) Call overhead: imghist.histogram of a 256x256 RGBA8 array (mode "rgb", backend "cpu")
    through a kept imghist.Engine("cpu") and through the one-shot function, against the same
    calls from C++ (build/bench/imghist_bench's call/... cases: Engine::compute through a kept
    engine, and create_engine + compute). A 1x1 image gives the fixed cost alone. C++ and
    Python alternate in --rounds rounds; each sample is the mean of a batch of calls (about
    --batch-ms long, as Google Benchmark's repetitions are); the tables give the medians.
    Goal: Python at most 3 us more than C++.
(b) 8K RGBA8 (7680x4320) random, natural, constant: imghist cpu (default threads) R, G, B and
    luminance, against cv2.calcHist once per channel, np.bincount per channel (on the strided
    channel view, and on contiguous channel copies made before timing), skimage.exposure.
    histogram per channel, Pillow's Image.histogram() (one call, every channel of the RGBA
    image), and for luminance cv2.cvtColor + calcHist and Pillow's convert("L").histogram()
    (Rec.601 and rounded, so only their totals are checked). Every other result is checked equal
    to imghist's counts. Contenders are timed round-robin, one call each per repeat, after a
    warm-up call each; the C++ suite's own 8K cpu figures are run in the same process for
    comparison. Goals: >= 3x cv2.calcHist and >= 20x np.bincount.

Setup (a virtual environment with the package and the contenders; the C++ suite for (a)):
    python3 -m pip install .                                  # the imghist package
    python3 -m pip install -r bench/python/requirements.txt   # numpy, OpenCV, scikit-image, Pillow
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DIMGHIST_BENCH=ON -DIMGHIST_TESTS=OFF \
        -DIMGHIST_CLI=OFF -DIMGHIST_OPENCL=OFF -DIMGHIST_VULKAN=OFF -DIMGHIST_CUDA=OFF
    ninja -C build imghist_bench
Run:
    python3 bench/python/bench_python.py [--repeats 11] [--out table.md] [--json out.json]
    python3 bench/python/bench_python.py --quick    # a smoke run: 1080p, 3 repeats, 1 round
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import contenders as cont  # noqa: E402

CALL_CASES = ((256, "engine"), (256, "oneshot"), (1, "engine"), (1, "oneshot"))
CXX_CALL_NAME = {"engine": "call/cpu/rgba8/{s}x{s}/random/rgb", "oneshot": "call-oneshot/cpu/rgba8/{s}x{s}/random/rgb"}
CXX_8K_FILTER = "^{suite}/rgba8/(random|natural|constant)/(rgb|luma)/"
CALL_GOAL_US, CV2_GOAL, BINCOUNT_GOAL = 3.0, 3.0, 20.0


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=11, help="timed samples per contender and round (11)")
    p.add_argument("--rounds", type=int, default=3, help="C++/Python alternations of the call-overhead part (3)")
    p.add_argument("--batch-ms", type=float, default=50.0, help="length of one call-overhead sample (50 ms)")
    p.add_argument("--quick", action="store_true", help="smoke run: 1920x1080, 3 repeats, 1 round")
    p.add_argument("--size", default="7680x4320", help="WxH of the large images (7680x4320)")
    p.add_argument("--threads", type=int, default=0, help="imghist Engine threads (0: one per core)")
    p.add_argument("--cv2-threads", type=int, help="cv2.setNumThreads(N) first (default: OpenCV's own)")
    p.add_argument("--cxx-bench", help="the C++ suite (default: build/bench/imghist_bench)")
    p.add_argument("--no-cxx", action="store_true", help="skip the C++ figures")
    p.add_argument("--out", help="write the Markdown report here too")
    p.add_argument("--json", help="write every median here as JSON")
    a = p.parse_args()
    if a.quick:
        a.repeats, a.rounds, a.size, a.batch_ms = 3, 1, "1920x1080", 20.0
    return a


def find_cxx_bench(args: argparse.Namespace) -> Optional[Path]:
    if args.no_cxx:
        return None
    path = Path(args.cxx_bench) if args.cxx_bench else Path(__file__).resolve().parents[2] / "build/bench/imghist_bench"
    if not path.is_file():
        sys.exit(f"no C++ suite at {path}: build it (see --help) or pass --cxx-bench PATH or --no-cxx")
    return path


def run_cxx(binary: Path, regex: str, repeats: int, min_time_s: float) -> Dict[str, List[Tuple[float, float]]]:
    """Google Benchmark's per-repetition (real, main-thread CPU) times (us) of the cases matching `regex`."""
    cmd = [str(binary), f"--benchmark_filter={regex}", f"--benchmark_repetitions={repeats}",
           f"--benchmark_min_time={min_time_s}", "--benchmark_format=json"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    times: Dict[str, List[Tuple[float, float]]] = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") == "iteration":
            name = b["run_name"].removesuffix("/real_time")
            unit = scale[b["time_unit"]]
            times.setdefault(name, []).append((b["real_time"] * unit, b["cpu_time"] * unit))
    if not times:
        sys.exit(f"{binary} ran no case matching {regex!r}: is it older than bench_cpu.cpp?")
    return times


def batch_means_us(fn, repeats: int, batch_s: float) -> List[Tuple[float, float]]:
    """`repeats` samples, each the mean (wall, this thread's CPU) time of a batch of calls
    lasting about batch_s: the CPU time is Google Benchmark's cpu_time, which a busy machine's
    preemptions do not inflate (a 256x256 image is counted on the calling thread alone)."""
    t0, calls = time.perf_counter(), 0
    while time.perf_counter() - t0 < batch_s / 4 or calls < 3:  # warm-up, and the batch size
        fn()
        calls += 1
    per_batch = max(1, int(calls * 4))
    samples = []
    for _ in range(repeats):
        start, cpu = time.perf_counter_ns(), time.thread_time_ns()
        for _ in range(per_batch):
            fn()
        samples.append(((time.perf_counter_ns() - start) / per_batch / 1e3,
                        (time.thread_time_ns() - cpu) / per_batch / 1e3))
    return samples


def call_overhead(args: argparse.Namespace, cxx: Optional[Path]) -> List[dict]:
    import imghist

    engine = imghist.Engine("cpu", threads=args.threads)
    images = {s: cont.make_image("random", s, s) for s, _ in CALL_CASES}
    calls = {(s, "engine"): (lambda img=images[s]: engine.histogram(img, mode="rgb")) for s in images}
    calls.update({(s, "oneshot"): (lambda img=images[s]: imghist.histogram(img, mode="rgb", backend="cpu"))
                  for s in images})
    py: Dict[tuple, list] = {k: [] for k in CALL_CASES}
    cc: Dict[tuple, list] = {k: [] for k in CALL_CASES}
    for _ in range(args.rounds):
        if cxx:
            got = run_cxx(cxx, "^call", args.repeats, args.batch_ms / 1e3)
            for s, how in CALL_CASES:
                cc[(s, how)] += got[CXX_CALL_NAME[how].format(s=s)]
        for key in CALL_CASES:
            py[key] += batch_means_us(calls[key], args.repeats, args.batch_ms / 1e3)
    def med(samples: list, i: int) -> Optional[float]:
        return statistics.median(t[i] for t in samples) if samples else None

    return [{"size": f"{s}x{s}", "call": how, "python_us": med(py[(s, how)], 0), "cxx_us": med(cc[(s, how)], 0),
             "python_cpu_us": med(py[(s, how)], 1), "cxx_cpu_us": med(cc[(s, how)], 1)} for s, how in CALL_CASES]


def time_round_robin(items: List[cont.Contender], repeats: int) -> Dict[str, List[float]]:
    """One call of each contender per repeat, in turn, so that drift hits them all alike."""
    samples: Dict[str, List[float]] = {c.name: [] for c in items}
    for _ in range(repeats):
        for c in items:
            start = time.perf_counter_ns()
            c.fn()
            samples[c.name].append((time.perf_counter_ns() - start) / 1e3)
    return samples


def large_images(args: argparse.Namespace) -> List[dict]:
    width, height = (int(v) for v in args.size.lower().split("x"))
    rows = []
    for pattern in cont.PATTERNS:
        img = cont.make_image(pattern, height, width)
        items = cont.all_contenders(img, args.threads)
        refs = {k: cont.reference_counts(items, k) for k in ("rgb", "luma")}
        checks = {c.name: cont.check(c, c.fn(), refs[c.kind], width * height) for c in items}  # + warm-up
        samples = time_round_robin(items, args.repeats)
        for c in items:
            rows.append({"image": pattern, "kind": c.kind, "contender": c.name, "note": c.note,
                         "us": statistics.median(samples[c.name]), "min_us": min(samples[c.name]),
                         "check": checks[c.name]})
        del img, items
    return rows


def cxx_large(cxx: Optional[Path], args: argparse.Namespace) -> List[dict]:
    """The C++ suite's own 8K cpu figures (its images: the same generators' distributions), on
    one thread (cpu-1thread/...) when --threads 1, else on one per core (cpu/...)."""
    if cxx is None or args.size != "7680x4320" or args.threads not in (0, 1, os.cpu_count()):
        return []
    suite = "cpu-1thread" if args.threads == 1 and os.cpu_count() != 1 else "cpu"
    got = run_cxx(cxx, CXX_8K_FILTER.format(suite=suite), args.repeats, 0.05)
    return [{"image": name.split("/")[2], "kind": name.split("/")[3], "contender": f"C++ {name} (imghist_bench)",
             "note": "", "us": statistics.median(w for w, _ in t), "min_us": min(w for w, _ in t),
             "check": "(C++ suite)"}
            for name, t in sorted(got.items())]


def machine_lines(args: argparse.Namespace) -> List[str]:
    import cv2
    import PIL
    import skimage

    import imghist

    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
    versions = (f"Python {platform.python_version()}, imghist {getattr(imghist, '__version__', '?')}, "
                f"numpy {np.__version__}, opencv-python-headless {cv2.__version__} "
                f"(cv2.getNumThreads() = {cv2.getNumThreads()}), scikit-image {skimage.__version__}, "
                f"Pillow {PIL.__version__}")
    return [f"- Machine: {cpu}, {os.cpu_count()} logical CPUs; {platform.platform()}",
            f"- {versions}",
            f"- Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; "
            f"load average before: {open('/proc/loadavg').read().split()[:3]}",
            f"- Command: {' '.join([Path(sys.executable).name] + sys.argv)}",
            f"- repeats {args.repeats}, rounds {args.rounds}, batch {args.batch_ms:g} ms, "
            f"imghist threads {args.threads or 'default (one per core)'}"]


def fmt(us: Optional[float]) -> str:
    return "—" if us is None else (f"{us:.2f}" if us < 100 else f"{us:.0f}")


def call_table(rows: List[dict]) -> List[str]:
    out = ["| image | call | Python µs | C++ µs | Python − C++ µs | Python CPU µs | C++ CPU µs | Python − C++ CPU µs |",
           "|---|---|---:|---:|---:|---:|---:|---:|"]
    label = {"engine": "kept Engine('cpu') / Engine::compute",
             "oneshot": "imghist.histogram(backend='cpu') / create_engine + compute"}
    for r in rows:
        cells = []
        for key in ("us", "cpu_us"):
            py, cc = r["python_" + key], r["cxx_" + key]
            cells += [fmt(py), fmt(cc), "—" if cc is None else f"{py - cc:+.2f}"]
        out.append(f"| {r['size']} RGBA8 | {label[r['call']]} | " + " | ".join(cells) + " |")
    return out


def imghist_time(rows: List[dict], image: str, kind: str) -> float:
    return next(r["us"] for r in rows if r["image"] == image and r["kind"] == kind
                and r["contender"].startswith("imghist Engine"))


def large_table(rows: List[dict]) -> List[str]:
    out = ["| image | what | contender | µs (median) | µs (min) | imghist's speedup | check |",
           "|---|---|---|---:|---:|---:|---|"]
    for r in rows:
        speedup = r["us"] / imghist_time(rows, r["image"], r["kind"])
        name = r["contender"] + (f" ({r['note']})" if r["note"] else "")
        what = "R,G,B" if r["kind"] == "rgb" else "luminance"
        out.append(f"| {r['image']} | {what} | {name} | {fmt(r['us'])} | {fmt(r['min_us'])} | "
                   f"{speedup:.2f}× | {r['check']} |")
    return out


def goals(calls: List[dict], rows: List[dict]) -> List[str]:
    out = []
    for r in calls:
        if r["size"] == "256x256" and r["cxx_us"] is not None:
            for key, what in (("us", "wall"), ("cpu_us", "CPU")):
                d = r["python_" + key] - r["cxx_" + key]
                out.append(f"- Call overhead, 256x256, {r['call']}, {what} time: Python − C++ = {d:+.2f} µs "
                           f"(goal ≤ {CALL_GOAL_US:g} µs): {'met' if d <= CALL_GOAL_US else 'NOT met'}")
    for pattern in cont.PATTERNS:
        ours = imghist_time(rows, pattern, "rgb")
        for prefix, goal in (("cv2.calcHist", CV2_GOAL), ("np.bincount", BINCOUNT_GOAL)):
            for r in rows:
                if r["image"] == pattern and r["kind"] == "rgb" and r["contender"].startswith(prefix):
                    s = r["us"] / ours
                    out.append(f"- {pattern}: {s:.2f}× {r['contender']} (goal ≥ {goal:g}×): "
                               f"{'met' if s >= goal else 'NOT met'}")
    bad = [r for r in rows if "DIFFERS" in r["check"]]
    out.append("- Checks: " + ("every contender's counts agree with imghist's" if not bad
                               else "DIFFERENT counts: " + ", ".join(f"{r['image']}/{r['contender']}" for r in bad)))
    return out


def main() -> int:
    args = parse_args()
    if args.cv2_threads is not None:
        import cv2

        cv2.setNumThreads(args.cv2_threads)
    cxx = find_cxx_bench(args)
    head = machine_lines(args)
    print("\n".join(head), flush=True)
    calls = call_overhead(args, cxx)
    print("\n".join(call_table(calls)), flush=True)
    rows = large_images(args)
    rows += cxx_large(cxx, args)
    rows.sort(key=lambda r: cont.PATTERNS.index(r["image"]))  # stable: the C++ rows end each image's group
    report = (head + ["", "Call overhead (mode 'rgb', backend cpu, random pixels; medians of wall and "
                                  "calling-thread CPU time per call):", ""] + call_table(calls)
              + ["", f"{args.size} RGBA8, imghist cpu against the Python libraries (µs; speedup = theirs / imghist's "
                 "Engine time of the same image and channels):", ""] + large_table(rows)
              + ["", f"- load average after: {open('/proc/loadavg').read().split()[:3]}", ""] + goals(calls, rows))
    text = "\n".join(report) + "\n"
    print("\n" + "\n".join(report[len(head):]))
    if args.out:
        Path(args.out).write_text(text)
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": head, "calls": calls, "large": rows}, indent=1) + "\n")
    return 1 if any("DIFFERS" in r["check"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
