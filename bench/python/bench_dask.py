#!/usr/bin/env python3
"""imghist.dask.histogram_files on a LocalCluster of 1, 2, ... worker processes against the
single-process pipeline, over one directory of real files, and Dask's fixed costs (issue 16).

The dataset is bench_dataset.py's (--make DIR [--count N] makes or reuses it; --dir DIR takes
any directory of images); the first --files of its sorted files are timed (2,000). Every file is
read once first, so all runs find them in the page cache.

Rows, each the median of --rounds (min-max beside it):
  single process   imghist.histogram_files(paths, backend="cpu").run() in this interpreter
  Dask, N workers  imghist.dask.histogram_files(paths, client=client, partition_size=P,
                   backend="cpu") on LocalCluster(n_workers=N, threads_per_worker=1,
                   processes=True): each task's pipeline gets the worker's cores (the default)
Every Dask run's sums are checked bit for bit against the single-process sums.

Fixed costs, on the cluster with the fewest workers (its tasks run one after another):
  cluster start-up    LocalCluster(...) and Client(cluster) until the workers are up, then the
                      first call (the workers import imghist)
  call                imghist.dask.histogram_files([], client=client): the keywords checked on a
                      worker, one round trip
  Dask task           a bag of --tasks no-op partitions, reduced: per task
  imghist task        --tasks copies of one tiny PNG, partition_size=1: per task, less the
                      single-process time per tiny file (a task's pipeline start, its result
                      sent back and folded)

Run (the package installed with the dask extra, e.g. build/python-venv of scripts/python-test.sh):
    python3 bench/python/bench_dask.py --make dataset [--files 2000] [--workers 1,2] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, List

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_dataset  # noqa: E402  (the dataset maker and its file list)

import dask.bag  # noqa: E402
import distributed  # noqa: E402
import imghist  # noqa: E402
import imghist.dask  # noqa: E402


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--make", metavar="DIR", help="make (or reuse) bench_dataset.py's dataset in DIR")
    where.add_argument("--dir", metavar="DIR", help="time the images already under DIR")
    p.add_argument("--count", type=int, default=2200, help="files of the dataset --make makes (2200)")
    p.add_argument("--files", type=int, default=2000, help="files timed: the first N, sorted (2000)")
    p.add_argument("--workers", default="1,2", help="worker processes of each cluster, comma-separated (1,2)")
    p.add_argument("--partition-size", type=int, default=imghist.dask.DEFAULT_PARTITION_SIZE,
                   help=f"files per task ({imghist.dask.DEFAULT_PARTITION_SIZE})")
    p.add_argument("--rounds", type=int, default=2, help="timed runs of each row (2)")
    p.add_argument("--tasks", type=int, default=200, help="tasks of the fixed-cost probes (200)")
    p.add_argument("--json", help="write the numbers here as JSON too")
    a = p.parse_args()
    a.workers = [int(w) for w in a.workers.split(",")]
    if min(a.workers) < 1 or a.files < 1 or a.rounds < 1 or a.tasks < 1 or a.partition_size < 1:
        p.error("--workers, --files, --rounds, --tasks and --partition-size must be >= 1")
    return a


def timed(fn: Callable[[], object], rounds: int) -> List[float]:
    walls = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
    return walls


def spread(walls: List[float]) -> str:
    return f"{statistics.median(walls):.2f} ({min(walls):.2f}–{max(walls):.2f})"


def same_sums(a, b) -> bool:
    return [s.counts.tobytes() for s in a.sums] == [s.counts.tobytes() for s in b.sums] and a.errors == b.errors


def _noop_partition(items) -> list:
    return [len(list(items))]


def fixed_costs(client, tasks: int, single_per_tiny: float) -> dict:
    out = {}
    calls = timed(lambda: imghist.dask.histogram_files([], client=client), 20)
    out["call_ms"] = 1e3 * statistics.median(calls)
    noop = dask.bag.from_sequence(range(tasks), npartitions=tasks).map_partitions(_noop_partition)
    walls = timed(lambda: client.compute(noop.reduction(sum, sum)).result(), 3)
    out["dask_task_ms"] = 1e3 * statistics.median(walls) / tasks
    with tempfile.TemporaryDirectory() as folder:
        tiny = os.path.join(folder, "tiny.png")
        from PIL import Image

        Image.fromarray(np.zeros((4, 4, 3), np.uint8)).save(tiny)
        walls = timed(lambda: imghist.dask.histogram_files([tiny] * tasks, client=client, partition_size=1,
                                                           backend="cpu"), 3)
        out["imghist_task_ms"] = 1e3 * (statistics.median(walls) / tasks - single_per_tiny)
    return out


def tiny_file_cost(rounds: int = 3, files: int = 200) -> float:
    """Seconds per tiny file in the single-process pipeline (subtracted from a task's cost)."""
    with tempfile.TemporaryDirectory() as folder:
        from PIL import Image

        tiny = os.path.join(folder, "tiny.png")
        Image.fromarray(np.zeros((4, 4, 3), np.uint8)).save(tiny)
        walls = timed(lambda: imghist.histogram_files([tiny] * files, backend="cpu").run(), rounds)
    return statistics.median(walls) / files


def main() -> int:
    args = parse_args()
    directory = Path(args.make or args.dir)
    if args.make:
        bench_dataset.make_dataset(directory, args.count, seed=15, workers=len(os.sched_getaffinity(0)))
    paths = bench_dataset.list_images(directory)[: args.files]
    if not paths:
        sys.exit(f"no images under {directory}")
    total_bytes = sum(len(Path(p).read_bytes()) for p in paths)  # also fills the page cache
    cores = len(os.sched_getaffinity(0))
    print(f"{len(paths)} files, {total_bytes / 1e6:.1f} MB, {cores} cores; load {os.getloadavg()[0]:.2f}", flush=True)

    reference = imghist.histogram_files(paths, backend="cpu").run()
    single = timed(lambda: imghist.histogram_files(paths, backend="cpu").run(), args.rounds)
    rows = [{"row": "single process", "workers": 0, "start_s": None, "walls": single}]
    print(f"single process: {spread(single)} s", flush=True)
    costs = {}
    for workers in args.workers:
        t0 = time.perf_counter()
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster, distributed.Client(cluster) as client:
            client.wait_for_workers(workers)
            up = time.perf_counter() - t0
            imghist.dask.histogram_files(paths[:2], client=client)  # the workers import imghist
            start = time.perf_counter() - t0
            outcomes = []

            def run():
                outcomes.append(imghist.dask.histogram_files(paths, client=client,
                                                             partition_size=args.partition_size, backend="cpu"))

            walls = timed(run, args.rounds)
            if not all(same_sums(o, reference) for o in outcomes):
                sys.exit(f"{workers} workers: the sums differ from the single process's")
            rows.append({"row": f"Dask, {workers} worker{'s' if workers > 1 else ''}", "workers": workers,
                         "start_s": start, "cluster_up_s": up, "walls": walls,
                         "partitions": outcomes[0].partitions})
            print(f"{workers} worker(s): started in {start:.2f} s, {spread(walls)} s", flush=True)
            if workers == min(args.workers):  # serial: the per-task costs are not divided between workers
                costs = fixed_costs(client, args.tasks, tiny_file_cost())
                costs["cluster_start_s"] = start
    print(f"load after: {os.getloadavg()[0]:.2f}\n")

    base = statistics.median(single)
    print(f"| run ({len(paths)} files, partition_size {args.partition_size}) | start-up s | wall s, median (min–max) "
          "| files/s | ÷ single process |")
    print("|---|---:|---:|---:|---:|")
    for r in rows:
        wall = statistics.median(r["walls"])
        start = "–" if r["start_s"] is None else f"{r['start_s']:.2f}"
        print(f"| {r['row']} | {start} | {spread(r['walls'])} | {len(paths) / wall:.1f} | {base / wall:.2f} |")
    if costs:
        print(f"\nFixed costs ({min(args.workers)} worker(s)): cluster start-up {costs['cluster_start_s']:.2f} s; "
              f"a call's keyword check {costs['call_ms']:.1f} ms; a Dask task {costs['dask_task_ms']:.2f} ms; "
              f"an imghist task {costs['imghist_task_ms']:.2f} ms (beyond its files' own time)")
    if args.json:
        Path(args.json).write_text(json.dumps({"files": len(paths), "bytes": total_bytes, "cores": cores,
                                               "partition_size": args.partition_size, "rows": rows,
                                               "fixed_costs": costs}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
