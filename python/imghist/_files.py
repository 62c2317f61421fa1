"""imghist.histogram_files(): histograms of many image files, as an iterator.

The C++ pipeline (include/imghist/dataset.hpp) runs in a thread of its own: decoder threads
read the files, one engine counts them, and each file's outcome comes back here through a
bounded queue, in input order, while the caller iterates. The GIL is released while files are
decoded and counted.
"""

from __future__ import annotations

import atexit
import os
import queue
import threading
import weakref
from typing import Any, Callable, Iterable, List, NamedTuple, Optional, Tuple, Union

from . import _imghist
from ._progress import progress_of


def _point_at_nvimgcodec() -> None:
    """Lets the C++ loader find nvImageCodec where pip installed it (the wheels
    nvidia-nvimgcodec-cu13 and nvidia-nvjpeg), unless IMGHIST_NVIMGCODEC_LIBRARY says otherwise."""
    if os.environ.get("IMGHIST_NVIMGCODEC_LIBRARY"):
        return
    try:
        import importlib.util
        spec = importlib.util.find_spec("nvidia.nvimgcodec")
    except (ImportError, ValueError):
        return
    for folder in (spec.submodule_search_locations or []) if spec else []:
        library = os.path.join(folder, "libnvimgcodec.so.0")
        if os.path.exists(library):
            os.environ["IMGHIST_NVIMGCODEC_LIBRARY"] = library
            return


def gpu_decode_available():
    """(available, reason): whether histogram_files(..., decode="gpu") can run here, and if not,
    why (no cuda backend in this build, or nvImageCodec missing: pip install
    nvidia-nvimgcodec-cu13 nvidia-nvjpeg)."""
    _point_at_nvimgcodec()
    return _imghist.gpu_decode_available()


class FileHistogram(NamedTuple):
    """One file's outcome: its histogram, or why it failed (then histogram is None)."""

    index: int
    path: str
    histogram: Optional[Any]  # an imghist.Histogram
    error: Optional[str]
    bytes: int  # the file's size on disk (0 when unknown)
    decoder: str = "cpu"  # "gpu" when decode="gpu" decoded it on the GPU
    gpu_fallback: Optional[str] = None  # decode="gpu": why the GPU left this file to the CPU reader


class _Stopped(Exception):
    """Raised into the pipeline when the iterator is closed early."""


class _Final:
    """The queue's last item: the pipeline's outcome, or the exception it raised."""

    def __init__(self, outcome):
        self.outcome = outcome


# Pipelines whose thread still runs: stopped and joined at interpreter exit, since a daemon
# thread still inside the C++ pipeline when Python finalises is ended with a forced unwind,
# which aborts the process ("terminate called without an active exception").
_running: "set" = set()
_running_lock = threading.Lock()


class _Pipeline:
    """The C++ pipeline's thread and the queue it fills. It holds no reference to the
    FileHistograms that reads it, so an abandoned iterator is collected, which stops it."""

    def __init__(self, engine, paths: List[str], keywords: dict, queue_size: int):
        self.queue: "queue.Queue" = queue.Queue(maxsize=queue_size)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(engine, paths, keywords),
                                        name="imghist.histogram_files", daemon=True)
        with _running_lock:
            _running.add(self)
        self._thread.start()

    def _put(self, item) -> bool:
        """Queues item, waiting while the queue is full; False once the pipeline was stopped."""
        while not self._stop.is_set():
            try:
                self.queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _on_file(self, index, path, histogram, error, size, decoder, gpu_fallback):
        if not self._put(FileHistogram(index, path, histogram, error, size, decoder, gpu_fallback)):
            raise _Stopped()

    def _run(self, engine, paths, keywords):
        try:
            self._put(_Final(_imghist._histogram_files(engine, paths, self._on_file, **keywords)))
        except _Stopped:
            pass
        except BaseException as e:  # noqa: BLE001 - handed to the iterating thread
            self._put(_Final(e))
        finally:
            with _running_lock:
                _running.discard(self)

    def join(self) -> None:
        self._thread.join()

    def stop(self) -> None:
        """Stops the run and waits for it (the decoders finish the files they are on); from the
        pipeline's own thread (a collection there) it only asks it to stop."""
        self._stop.set()
        if threading.current_thread() is self._thread:
            return
        self._thread.join()
        while True:  # the outcomes nobody will read are freed now, not with the iterator
            try:
                self.queue.get_nowait()
            except queue.Empty:
                return


def _stop_all_at_exit() -> None:
    with _running_lock:
        pipelines = list(_running)
    for pipeline in pipelines:
        pipeline.stop()


atexit.register(_stop_all_at_exit)


class FileHistograms:
    """The files' outcomes in input order; after the last one: sums, errors and counts.

    Iterating yields an imghist.FileHistogram per file. Leaving the loop early is safe: close(),
    the end of a ``with`` block, the iterator being collected or the interpreter exiting stop
    the decoders (each finishes the file it is on). After the iteration: `sums` (one Histogram
    per kind of histogram: files whose channels or bins differ cannot be added), `sum` (the only
    sum; None when no file was counted; ValueError when there are several kinds), `errors`
    [(path, message)], `files`, `counted`, `failed`, `bytes`. A run closed before its end has
    no sums and no counts: only `errors` of the files it yielded.
    """

    def __init__(self, engine, paths: List[str], failures: List[FileHistogram], keywords: dict, progress,
                 queue_size: int):
        self._failures = list(reversed(failures))  # yielded first, as the command line reports them
        self._walk_failed = len(failures)
        self._progress = progress_of(progress, len(failures) + len(paths))
        self.errors: list = []
        self.sums: list = []
        self.files = len(failures) + len(paths)
        self.counted = self.failed = self.bytes = 0
        self._finished = False
        self._pipeline = _Pipeline(engine, paths, keywords, queue_size)
        # Stops the pipeline when this iterator is collected (the pipeline does not refer to it).
        self._stop_when_collected = weakref.finalize(self, self._pipeline.stop)

    def __iter__(self):
        return self

    def __enter__(self) -> "FileHistograms":
        return self

    def __exit__(self, *exception) -> None:
        self.close()

    def __next__(self) -> FileHistogram:
        if self._finished:
            raise StopIteration
        if self._failures:
            item = self._failures.pop()
        else:
            item = self._pipeline.queue.get()
            if isinstance(item, _Final):
                self._finish(item)
            if self._walk_failed:  # the pipeline numbers its files from 0
                item = item._replace(index=item.index + self._walk_failed)
        if item.error is not None:
            self.errors.append((item.path, item.error))
        if self._progress is not None:
            self._progress.file_done(item)
        return item

    def _finish(self, final: _Final):
        """Ends the iteration with the pipeline's outcome (or the exception it raised)."""
        self._finished = True
        self._pipeline.join()
        self._close_progress()
        if isinstance(final.outcome, BaseException):
            raise final.outcome
        self.sums, files, self.counted, failed, self.bytes = final.outcome
        self.files, self.failed = files + self._walk_failed, failed + self._walk_failed
        raise StopIteration

    def _close_progress(self) -> None:
        if self._progress is not None:
            self._progress.close()
            self._progress = None

    def close(self) -> None:
        """Stops the run (the decoders finish the files they are on)."""
        self._finished = True
        self._stop_when_collected()
        self._close_progress()

    def run(self) -> "FileHistograms":
        """Consumes every outcome (keeping only the errors) and returns self: for the sums alone."""
        for _ in self:
            pass
        return self

    @property
    def sum(self):
        return only_sum(self.sums)


def only_sum(sums: list):
    """The one sum of `sums` (None when no file was counted); ValueError when there are several kinds."""
    if len(sums) > 1:
        raise ValueError(f"the files gave {len(sums)} kinds of histograms that cannot be added "
                         "(different channels or bins): see .sums")
    return sums[0] if sums else None


def histogram_files(paths: Iterable[Any], *, mode: str = "all", bins=None, range=None, ev=None, clamp: bool = False,
                    closed_top: bool = False, weights="rec709", alpha: bool = False, roi=None, tiles=None, mask=None, alpha_threshold=None,
                    extremes: bool = False, sample_stats=False, backend: str = "auto", device=None, engine=None,
                    threads: int = 0, max_pending: int = 0, max_pixels: Optional[int] = None,
                    untrusted_readers: bool = False, subtract_black: bool = False, ev_from_white: Optional[int] = None,
                    decode: str = "cpu",
                    progress: Union[None, bool, Callable[[int], Any]] = None) -> FileHistograms:
    """Histograms of many image files, decoded on a pool of threads and counted by one engine.

    paths      an iterable of str or os.PathLike (read once, at the call; a path holding a NUL
               byte raises imghist.InvalidArgument there, since no file has such a name; one
               path alone, a str, bytes or os.PathLike, raises TypeError: give [path]). A
               directory is searched as the imghist command searches it (docs/cli.md, "Inputs"):
               recursively, hidden names and symbolic links to directories skipped, the files
               whose extension is an image format's read in sorted order, sidecars and notes
               (.xmp, .txt, .json, ...) left out, and every other file an error saying why it
               is not read (name it to have its content read). Those errors, and directories
               that cannot be read or hold no image, come first, as the command reports them.
    mode, bins, range, ev, clamp, closed_top, weights, alpha, roi, tiles, mask, alpha_threshold
               as for imghist.histogram(): the same roi (which every file must hold, else that
               file fails), tile grid, mask (every file must be its size, else that file fails)
               and alpha threshold (a file without alpha fails) for each file; the sums add tile
               by tile. These four need decode="cpu".
    sample_stats  as for imghist.histogram(): each channel's exact sample statistics; the sums'
               moments add up exactly (h.sample_stats(), h.normalize())
    extremes   as for imghist.histogram(): each half / float file's finite_min, finite_max and
               +-Inf counts per channel; the sums keep the smallest and largest and add the counts.
    backend, device   the engine to open (as for imghist.histogram()), unless `engine` is given:
               an imghist.Engine to count with (it is busy until the run ends).
    threads    decoder threads (0: one per core).
    max_pending  decoded images held at most (0: two per decoder thread): memory stays bounded
               whatever the number of files.
    max_pixels, untrusted_readers   as for imghist.read() (untrusted_readers=True is refused:
               the command line runs those readers in decoder processes of their own).
    subtract_black, ev_from_white   as for imghist.histogram_file(): camera raw files (DNG, CR2,
               NEF, ...) are counted per sensor channel, each an imghist.CameraRawHistogram
               (channels R, G1, B, G2, levels and clipping in .camera_raw); their sums are
               CameraRawHistograms too, never added to other images' histograms.
    decode     "cpu", or "gpu": JPEGs decoded on the GPU by nvImageCodec and counted there, in
               batches (backend "cuda"; imghist.gpu_decode_available() says whether it can run,
               and pip install nvidia-nvimgcodec-cu13 nvidia-nvjpeg provides it). Other files,
               and JPEGs the GPU does not take, go to the CPU reader; each FileHistogram says
               which decoder read it (decoder, gpu_fallback). GPU-decoded samples may differ
               from the CPU reader's by small amounts (another IDCT); the counts are exact for
               the pixels decoded.
    progress   True: a tqdm bar (files/s, time left) where tqdm is installed (pip install
               tqdm), else the command line's progress line on stderr (docs/cli.md, "Progress";
               plain lines, one a second, where stderr is not a terminal, as in a notebook).
               A callable is called with 1 after each file instead (tqdm's update fits).

    Returns an imghist.FileHistograms: iterate it for each file's FileHistogram in input order
    (a file that cannot be read has histogram None and its error; it never stops the run nor
    enters the sums), or call .run() for the sums alone. Bad keywords raise
    imghist.InvalidArgument at the first next(), and a package built without the file reader
    (imghist.has_file_reader False) raises imghist.Error there.
    """
    names, failures = expand_paths(path_list(paths), untrusted_readers)
    if threads < 0 or max_pending < 0:
        raise _imghist.InvalidArgument("threads and max_pending must be >= 0")
    if decode == "gpu":
        if roi is not None or tiles is not None or mask is not None or alpha_threshold is not None:
            raise _imghist.InvalidArgument("decode='gpu' counts whole images in batches: roi, tiles, mask and "
                                           "alpha_threshold need decode='cpu'")
        _point_at_nvimgcodec()
    if engine is None:
        engine = _imghist.Engine(backend, device)
    keywords = dict(mode=mode, bins=bins, range=range, ev=ev, clamp=clamp, closed_top=closed_top, weights=weights, alpha=alpha, roi=roi, tiles=tiles,
                    mask=mask, alpha_threshold=alpha_threshold, extremes=extremes, sample_stats=sample_stats, decode_threads=threads,
                    max_pending=max_pending, max_pixels=max_pixels, untrusted_readers=untrusted_readers,
                    subtract_black=subtract_black, ev_from_white=ev_from_white, decode=decode)
    return FileHistograms(engine, names, failures, keywords, progress, queue_size=max(8, 2 * (max_pending or 8)))


def path_list(paths: Iterable[Any]) -> List[str]:
    """The paths as str (os.fsdecode); TypeError for one path given alone, whose characters
    (or bytes) would otherwise be taken for paths."""
    if isinstance(paths, (str, bytes, bytearray, os.PathLike)):
        raise TypeError(f"paths must be an iterable of paths, not one path ({paths!r}): give [path], "
                        "or use imghist.histogram_file(path)")
    return [_imghist._file_path(p) for p in paths]


def expand_paths(names: List[str], untrusted_readers: bool) -> Tuple[List[str], List[FileHistogram]]:
    """(files, failures): each directory of `names` replaced by the image files the imghist
    command reads under it (its own walk), and the failures of those walks as FileHistograms,
    numbered from 0. A package without the file reader leaves the names as they are (the run
    then raises imghist.Error, saying why)."""
    if not _imghist.has_file_reader:
        return names, []
    files, failed = _imghist._expand_paths([os.fsencode(n) for n in names], untrusted_readers)
    failures = [FileHistogram(index, os.fsdecode(path), None, reason, 0) for index, (path, reason) in enumerate(failed)]
    return [os.fsdecode(f) for f in files], failures
