"""imghist.dask.histogram_files(): one dataset's exact histogram, computed on a Dask cluster.

The paths become a dask.bag split into partitions of `partition_size` files. Each partition is
one task: on a worker it runs imghist.histogram_files (the threaded C++ pipeline: decoder
threads and one engine) over its files and sends back that partition's exact sums, errors and
counts. The partitions' sums are added with Histogram's exact + (uint64 counts) in partition
order, so the result equals one process's ``imghist.histogram_files(paths, ...).run()`` bit for
bit, with the same kinds of sums in the same order and the same errors in input order.

Needs Dask and its distributed scheduler: pip install '.[dask]' from the checkout. docs/scale-out.md says how
to run it on a real cluster and what it costs.
"""

from __future__ import annotations

import inspect
import os
from typing import Any, Iterable, List, NamedTuple, Optional, Tuple

try:
    import dask
    import dask.bag
    import distributed
except ImportError as e:  # Dask is optional: the rest of imghist works without it
    raise ImportError(f"imghist.dask needs Dask and its distributed scheduler, which are not installed ({e}): "
                      "pip install 'dask[bag]' 'distributed>=2024.1'") from e

from . import _files

__all__ = ["DaskHistograms", "histogram_files"]

DEFAULT_PARTITION_SIZE = 64
# Objects of the calling process, which a worker cannot use.
_LOCAL_ONLY = {
    "engine": "an Engine cannot be sent to the workers: give backend= and device= (each task opens its own)",
    "progress": "a progress callback cannot run on the workers: watch the Dask dashboard instead",
}


class _Partial(NamedTuple):
    """What one or more partitions gave: their sums and errors, in input order, and counts."""

    sums: list
    errors: list
    files: int
    counted: int
    failed: int
    bytes: int


class DaskHistograms:
    """The outcome of imghist.dask.histogram_files(), with the attributes of imghist.FileHistograms
    after its iteration.

    sums       one exact Histogram per kind of histogram (files whose channels or bins differ,
               such as RGB and gray, or 8-bit and 16-bit files, cannot be added), in the order
               each kind first appears in the paths.
    sum        the only sum (None when no file was counted; ValueError when there are several).
    errors     [(path, message)] of every file that could not be read or counted, in input
               order; none of them is in the sums.
    files, counted, failed, bytes   files given, counted and failed; bytes read (all files).
    partitions the tasks the paths were split into.
    per_file   with per_file=True: a dask.bag of imghist.FileHistogram, one per file in input
               order (index is the position in paths of the path that named the file: the
               files a directory's walk found share its index), held in the workers' memory;
               e.g. ``.map(lambda f: {"path": f.path, "error": f.error}).to_dataframe()``.
               None otherwise.
    """

    def __init__(self, total: _Partial, partitions: int, per_file: Optional["dask.bag.Bag"]):
        self.sums = total.sums
        self.errors = total.errors
        self.files, self.counted, self.failed, self.bytes = total.files, total.counted, total.failed, total.bytes
        self.partitions = partitions
        self.per_file = per_file

    @property
    def sum(self):
        return _files.only_sum(self.sums)

    def __repr__(self) -> str:
        return (f"<imghist.dask.DaskHistograms files={self.files} counted={self.counted} failed={self.failed} "
                f"kinds={len(self.sums)} partitions={self.partitions}>")


def _checked_request(request: dict) -> dict:
    """The keywords of imghist.histogram_files, refused here as it would refuse them (TypeError)."""
    for name, why in _LOCAL_ONLY.items():
        if name in request:
            raise TypeError(f"imghist.dask.histogram_files: {name}= is not accepted: {why}")
    try:
        inspect.signature(_files.histogram_files).bind([], **request)
    except TypeError as e:
        raise TypeError(f"imghist.dask.histogram_files: {e} (it takes the keywords of imghist.histogram_files)") from None
    return request


def _for_this_worker(request: dict) -> dict:
    """The request, with decoder threads shared fairly between the worker's concurrent tasks
    unless the caller chose them (the pipeline's default, one per core, is right for one task)."""
    if "threads" in request:
        return request
    try:
        worker = distributed.get_worker()
    except ValueError:  # not on a distributed worker (dask's local schedulers)
        return request
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return {**request, "threads": max(1, cores // max(1, worker.state.nthreads))}


def _check_on_worker(request: dict) -> None:
    """Raises what a run with these keywords raises before reading a file (bad mode, bins, weights,
    a backend the worker lacks), so that it is reported once, not by every partition."""
    _files.histogram_files([], **_for_this_worker(request)).run()


def _run_partition(indexed_paths: Iterable[Tuple[int, str]], request: dict, keep_files: bool) -> list:
    """One task: the pipeline over a partition's files. Returns [(its _Partial, its FileHistograms)]."""
    indexed = list(indexed_paths)
    run = _files.histogram_files([path for _, path in indexed], **_for_this_worker(request))
    files = []
    for f in run:
        if keep_files:  # the index within the partition becomes the index within all paths
            files.append(f._replace(index=_position_in(indexed, f.path)))
    return [(_Partial(run.sums, run.errors, run.files, run.counted, run.failed, run.bytes), files)]


def _position_in(indexed: List[Tuple[int, str]], path: str) -> int:
    """The position in paths of the path that named `path`: itself, or the directory whose walk found it."""
    for position, named in indexed:
        if path == named or path.startswith(named.rstrip("/") + "/"):
            return position
    raise ValueError(f"{path!r} was named by no path of its partition")


def _partial_of(outcomes: Iterable[tuple]) -> _Partial:
    return _fold([partial for partial, _ in outcomes])


def _files_of(outcomes: Iterable[tuple]) -> list:
    return [f for _, files in outcomes for f in files]


def _fold(partials: List[_Partial]) -> _Partial:
    """Adds partials in order: each sum goes into the first kind that can take it, as the pipeline's
    own sums do (src/io/dataset.cpp, add_to_sums), so the kinds keep their first-seen order."""
    partials = list(partials)
    sums: list = []
    errors: list = []
    for partial in partials:
        for histogram in partial.sums:
            # A camera raw sum holds R, G1, B, G2 as R, G, B, A: never added to an RGBA image's.
            kind = next((i for i, s in enumerate(sums) if type(s) is type(histogram) and s.can_merge(histogram)), None)
            if kind is None:
                sums.append(histogram)
            else:
                sums[kind] = sums[kind] + histogram
        errors += partial.errors
    return _Partial(sums, errors, *(sum(getattr(p, field) for p in partials)
                                    for field in ("files", "counted", "failed", "bytes")))


def histogram_files(paths: Iterable[Any], *, client: Optional["distributed.Client"] = None,
                    partition_size: int = DEFAULT_PARTITION_SIZE, per_file: bool = False, retries: int = 2,
                    **request) -> DaskHistograms:
    """Histograms of many image files, counted on a Dask cluster and summed exactly.

    paths           str or os.PathLike, as every worker sees them (a shared file system, or the
                    same copy on every machine); read once, at the call. A directory is
                    searched as imghist.histogram_files searches it, by the worker whose
                    partition holds it.
    client          the dask.distributed.Client to run on (e.g. Client("tcp://scheduler:8786"));
                    None: the current default client, or where there is none Dask's default
                    scheduler in this process.
    partition_size  files per task (64). Each task runs the threaded pipeline over its files;
                    larger tasks cost less overhead, smaller ones balance and retry better.
    per_file        also keep each file's imghist.FileHistogram, as the bag .per_file.
    retries         times Dask re-runs a task that raised (a device error, say). A worker that
                    dies is handled by the scheduler itself, which runs its tasks elsewhere.
                    Files that cannot be read never raise: they are errors of the result.
    **request       the keywords of imghist.histogram_files (mode, bins, range, ev, clamp, weights,
                    alpha, roi, tiles, mask, alpha_threshold, extremes, sample_stats, backend, device,
                    threads,
                    max_pending, max_pixels, untrusted_readers, decode), checked as it checks them (a mask
                    is sent to every task). threads defaults to the worker's cores shared
                    between its task threads. engine and progress are refused: they belong to
                    this process.

    Returns an imghist.dask.DaskHistograms (sums, sum, errors, files, counted, failed, bytes,
    partitions, per_file). Bad keywords raise here, before any file is read: TypeError for an
    unknown one, imghist.InvalidArgument or BackendUnavailable (from a worker) for a bad value.
    """
    names = _files.path_list(paths)
    request = _checked_request(request)
    if partition_size < 1:
        raise _files._imghist.InvalidArgument(f"partition_size must be >= 1, not {partition_size}")
    if client is None:
        try:
            client = distributed.default_client()
        except ValueError:  # no distributed client: Dask's own scheduler runs it here
            client = None

    if client is not None:
        client.submit(_check_on_worker, request, pure=False).result()
    else:
        _check_on_worker(request)

    if not names:
        return DaskHistograms(_fold([]), 0, dask.bag.from_sequence([]) if per_file else None)
    bag = dask.bag.from_sequence(list(enumerate(names)), partition_size=partition_size)
    outcomes = bag.map_partitions(_run_partition, request=request, keep_files=per_file)
    if per_file:  # computed once and kept on the workers, for both the sums and the bag
        outcomes = client.persist(outcomes, retries=retries) if client is not None else outcomes.persist()
    total = outcomes.reduction(_partial_of, _fold)
    if client is not None:
        result = client.compute(total, retries=retries).result()
    else:
        (result,) = dask.compute(total)
    return DaskHistograms(result, bag.npartitions, outcomes.map_partitions(_files_of) if per_file else None)
