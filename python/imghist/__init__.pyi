"""Type stub of the imghist package (the classes live in imghist._imghist)."""
import os
from typing import Any, Callable, Dict, Iterable, Iterator, List, Literal, NamedTuple, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt
from typing_extensions import TypedDict, Unpack

__version__: str

Weights = Union[str, Tuple[int, int, int], Sequence[int]]
Device = Union[None, int, str]
# A CUDA stream for CUDA arrays: None (the producer's current stream), a cudaStream_t value, or a
# torch.cuda.Stream / cupy.cuda.Stream / object with __cuda_stream__.
Stream = Any
# roi=: None (every pixel) or (x, y, width, height); tiles=: None or (tiles_x, tiles_y).
Roi = Optional[Tuple[int, int, int, int]]
Tiles = Optional[Tuple[int, int]]
# mask=: None or a 2-D uint8 / bool array of the image's (height, width), non-zero where a pixel
# counts: a host array (numpy, or the buffer protocol or DLPack) for a host image, a CUDA array
# (torch, cupy; rows contiguous) on the image's device for a CUDA image.
# alpha_threshold=: None or a number; pixels whose alpha sample is above it count.
Mask = Optional[Union[npt.NDArray[np.uint8], npt.NDArray[np.bool_]]]
AlphaThreshold = Optional[float]
# extremes=: also each channel's exact finite min / max and +-Inf counts (half / float host images).
# bins=: None (the format's default), a number of bins, or 2 to 4097 strictly increasing edges
# (a 1-D sequence or numpy array; bin k is [e_k, e_k+1)). ev=: None or (lo, hi, bins_per_stop).
Bins = Union[None, int, Sequence[float], npt.NDArray[Any]]
EV = Optional[Tuple[float, float, int]]
# Histogram.exposure(): the command line's "exposure" object (channel, low_percent, high_percent,
# average_ev, key, exposure_ev, samples), or None.
Exposure = Optional[Dict[str, Any]]

class Error(Exception): ...
class InvalidArgument(Error, ValueError): ...
class MergeError(Error, ValueError): ...
class BackendUnavailable(Error, RuntimeError): ...
class DeviceError(Error, RuntimeError): ...
class ReadError(Error, OSError): ...

PathLike = Union[str, "os.PathLike[str]"]

class RequestKeywords(TypedDict, total=False):
    """What to count: the keywords of every histogram function, written once here. Each left out
    takes its default: mode "all", bins None (the format's default), range None, ev None,
    clamp False, closed_top False, weights "rec709", alpha False, roi None, tiles None, mask None,
    alpha_threshold None, extremes False. imghist.histogram's docstring says what each means."""
    mode: str
    bins: Bins
    range: Optional[Tuple[float, float]]
    ev: EV
    clamp: bool
    closed_top: bool
    weights: Weights
    alpha: bool
    roi: Roi
    tiles: Tiles
    mask: Mask
    alpha_threshold: AlphaThreshold
    extremes: bool
    sample_stats: Union[bool, Sequence[float]]

class ArrayKeywords(RequestKeywords, total=False):
    """RequestKeywords and, for arrays: layout (None; "chw" for channel-first arrays) and the CUDA stream
    (None: the producer's current one)."""
    layout: Optional[str]
    stream: Stream

class ReadKeywords(TypedDict, total=False):
    """How a file is read (imghist.read): max_pixels (None: no limit), untrusted_readers (False);
    camera raw files: subtract_black (False), ev_from_white (None, or EV bins per stop from white)."""
    max_pixels: Optional[int]
    untrusted_readers: bool
    subtract_black: bool
    ev_from_white: Optional[int]

class FileKeywords(RequestKeywords, ReadKeywords, total=False):
    """RequestKeywords and ReadKeywords: the keywords of histogram_file()."""
# Whether this build has imghist::io (OpenImageIO): read() and histogram_file() raise Error without it.
has_file_reader: bool

class ChannelHistogram:
    """One channel of a Histogram."""
    @property
    def name(self) -> str: ...
    @property
    def counts(self) -> npt.NDArray[np.uint64]: ...
    @property
    def edges(self) -> npt.NDArray[np.float64]: ...
    @property
    def bins(self) -> int: ...
    @property
    def nan(self) -> int: ...
    @property
    def below(self) -> int: ...
    @property
    def above(self) -> int: ...
    @property
    def clipped_low(self) -> Optional[int]: ...
    @property
    def clipped_high(self) -> Optional[int]: ...
    # histogram(..., extremes=True) of a half / float host image: the exact smallest and largest
    # finite sample (the luminance for Y; -0 as 0.0), None where no sample is finite; and the +Inf
    # / -Inf counts. All four None where unknown (not asked for, integer images, CUDA arrays).
    @property
    def finite_min(self) -> Optional[float]: ...
    @property
    def finite_max(self) -> Optional[float]: ...
    @property
    def positive_infinities(self) -> Optional[int]: ...
    @property
    def negative_infinities(self) -> Optional[int]: ...
    def stats(self) -> Dict[str, Optional[float]]: ...
    def exposure(self, *, low: float = 50.0, high: float = 95.0, key: float = 0.18) -> Exposure:
        """Auto-exposure of this channel's EV (edge) bins: average EV of the low..high percentiles and
        log2(key) - it; None without edge bins over positive values or without a non-NaN sample."""
    def plot(self, ax: Any = None, log: bool = False) -> Any:
        """Draws this channel with matplotlib (as Histogram.plot); returns the Axes."""
    def density(self) -> npt.NDArray[np.float64]:
        """numpy's density=True: counts / (samples in the bins x bin width); NaN without such samples."""

class Histogram:
    """Exact 64-bit histograms of one image, one per channel, all with the same bins."""
    @property
    def channels(self) -> Tuple[str, ...]: ...
    @property
    def counts(self) -> npt.NDArray[np.uint64]: ...
    @property
    def nan(self) -> npt.NDArray[np.uint64]: ...
    @property
    def below(self) -> npt.NDArray[np.uint64]: ...
    @property
    def above(self) -> npt.NDArray[np.uint64]: ...
    @property
    def clipped_low(self) -> Optional[npt.NDArray[np.uint64]]: ...
    @property
    def clipped_high(self) -> Optional[npt.NDArray[np.uint64]]: ...
    @property
    def finite_min(self) -> Optional[npt.NDArray[np.float64]]:
        """extremes=True: the smallest finite sample per channel, NaN where a channel has none; None if unknown."""
    @property
    def finite_max(self) -> Optional[npt.NDArray[np.float64]]:
        """extremes=True: the largest finite sample per channel, NaN where a channel has none; None if unknown."""
    @property
    def positive_infinities(self) -> Optional[npt.NDArray[np.uint64]]:
        """extremes=True: +Inf samples per channel; None if unknown."""
    @property
    def negative_infinities(self) -> Optional[npt.NDArray[np.uint64]]:
        """extremes=True: -Inf samples per channel; None if unknown."""
    @property
    def edges(self) -> npt.NDArray[np.float64]:
        """bins + 1 edges; for edge bins those compared (rounded to fp32 for half and float samples)."""
    @property
    def bins(self) -> int: ...
    @property
    def range(self) -> Tuple[float, float]: ...
    @property
    def closed_top(self) -> bool: ...
    @property
    def clamp(self) -> bool: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def format(self) -> str: ...
    @property
    def region(self) -> Tuple[int, int, int, int]:
        """(x, y, width, height) of the pixels counted: the roi, else the whole image."""
    @property
    def tile_grid(self) -> Tuple[int, int]:
        """(tiles_x, tiles_y); (1, 1) without tiles."""
    @property
    def tile_counts(self) -> npt.NDArray[np.uint64]:
        """Counts of every tile, shape (tiles_y, tiles_x, channels, bins); (1, 1, channels, bins) without tiles."""
    @property
    def tile_regions(self) -> List[Tuple[int, int, int, int]]:
        """(x, y, width, height) of every tile, row by row."""
    def tile(self, tx: int, ty: int) -> "Histogram":
        """Tile (tx, ty) as a Histogram of its own (region = the tile's); IndexError outside the grid."""
    @property
    def counted_pixels(self) -> Optional[int]:
        """With mask= or alpha_threshold=: the pixels of region they let through; None without them."""
    @property
    def tile_counted_pixels(self) -> Optional[npt.NDArray[np.uint64]]:
        """counted_pixels of every tile, shape (tiles_y, tiles_x) ((1, 1) without tiles); None without a
        mask or an alpha threshold."""
    @property
    def backend(self) -> str: ...
    @property
    def device(self) -> str: ...
    @property
    def notes(self) -> List[str]: ...
    def __getitem__(self, name: str) -> ChannelHistogram: ...
    def __contains__(self, name: object) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[ChannelHistogram]: ...
    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> npt.NDArray[Any]: ...
    def __add__(self, other: "Histogram") -> "Histogram": ...
    def __iadd__(self, other: "Histogram") -> "Histogram": ...
    def can_merge(self, other: "Histogram") -> bool:
        """Whether other may be added to this histogram: the same channels and bins (the rule of +)."""
    def stats(self) -> Dict[str, Dict[str, Optional[float]]]: ...
    def exposure(self, *, low: float = 50.0, high: float = 95.0, key: float = 0.18,
                 channel: Optional[str] = None) -> Exposure:
        """Auto-exposure of the luminance (Y or gray; or `channel`) in EV bins (histogram(..., ev=...))."""
    def to_dict(self) -> Dict[str, Any]: ...
    @staticmethod
    def from_dict(d: Dict[str, Any]) -> "Histogram": ...
    def plot(self, ax: Any = None, log: bool = False) -> Any:
        """Draws the command line's chart with matplotlib (a new figure when ax is None); returns the Axes."""
    def density(self) -> npt.NDArray[np.float64]:
        """numpy's density=True per channel, shape (channels, bins); the counts stay exact."""
    def _repr_html_(self) -> str:
        """Jupyter: the statistics per channel and the chart as inline SVG."""
    def _repr_png_(self) -> Optional[bytes]:
        """Jupyter: plot()'s chart as PNG; None without matplotlib."""

class CameraRawChannelHistogram(ChannelHistogram):
    """One channel of a CameraRawHistogram; name is 'R', 'G1', 'B' or 'G2'."""

class CameraRawHistogram(Histogram):
    """A camera raw file's histograms (histogram_file, histogram_files): channels R, G1, B, G2."""
    @property
    def camera_raw(self) -> Optional[Dict[str, Any]]:
        """The command line's JSON "camera_raw" object (pattern, bits, white_level, channels' levels and
        clipping, blocks, clipped_any, clipped_all); None for a sum of files."""
    def __getitem__(self, name: str) -> CameraRawChannelHistogram: ...
    def __iter__(self) -> Iterator[CameraRawChannelHistogram]: ...
    def __add__(self, other: Histogram) -> "CameraRawHistogram": ...
    def __iadd__(self, other: Histogram) -> "CameraRawHistogram": ...
    def sample_stats(self) -> Dict[str, Any]: ...
    @staticmethod
    def from_dict(d: Dict[str, Any]) -> "CameraRawHistogram": ...

class HistogramBatch:
    """The histograms of histogram_batch(), in the order of the images."""
    def __len__(self) -> int: ...
    def __getitem__(self, index: int) -> Histogram: ...
    def __iter__(self) -> Iterator[Histogram]: ...
    @property
    def counts(self) -> npt.NDArray[np.uint64]:
        """Counts of every image, shape (N, channels, bins)."""
    def sum(self) -> Histogram:
        """The exact sum of all histograms."""
    def density(self) -> npt.NDArray[np.float64]:
        """numpy's density=True of every image, shape (N, channels, bins)."""
    def _repr_html_(self) -> str:
        """Jupyter: the number of images, the statistics and chart of their sum."""
    def _repr_png_(self) -> Optional[bytes]:
        """Jupyter: the chart of their sum as PNG; None when empty or without matplotlib."""

def histogram(image: Any, *, backend: str = "auto", device: Device = None,
              **request: Unpack[ArrayKeywords]) -> Histogram:
    """Histograms of one image (numpy array, or torch / cupy / DLPack array on the host or a CUDA device)."""

def histogram_batch(images: Union[Sequence[Any], Iterable[Any], Any], *, backend: str = "auto",
                    device: Device = None, **request: Unpack[ArrayKeywords]) -> HistogramBatch:
    """Arrays of one format (sizes may differ), or one (N, H, W) / (N, H, W, C) array, with one engine."""

@overload
def read(path: PathLike, *, max_pixels: Optional[int] = None, untrusted_readers: bool = False,
         raw: Literal[False] = False, subtract_black: Literal[False] = False) -> npt.NDArray[Any]:
    """An image file's pixels in its own dtype: (H, W) gray, (H, W, 3) RGB or (H, W, 4) RGBA."""
@overload
def read(path: PathLike, *, max_pixels: Optional[int] = None, untrusted_readers: bool = False,
         raw: Literal[True], subtract_black: bool = False) -> Tuple[npt.NDArray[np.uint16], Dict[str, Any]]:
    """A camera raw file: its 2 x 2 blocks (H / 2, W / 2, 4: R, G1, B, G2) and its "camera_raw" object."""

def histogram_file(path: PathLike, *, backend: str = "auto", device: Device = None,
                   **request: Unpack[FileKeywords]) -> Histogram:
    """Histograms of an image file: read(path) counted by histogram(), without a numpy copy."""

class FileHistogram(NamedTuple):
    """One file's outcome of histogram_files(): its histogram, or why it failed."""
    index: int
    path: str
    histogram: Optional[Histogram]
    error: Optional[str]
    bytes: int
    decoder: str
    gpu_fallback: Optional[str]

class FileHistograms(Iterator[FileHistogram]):
    """The outcomes in input order; after the last: sums, sum, errors, files, counted, failed, bytes."""
    sums: List[Histogram]
    errors: List[Tuple[str, str]]
    files: int
    counted: int
    failed: int
    bytes: int
    def __next__(self) -> FileHistogram: ...
    def __enter__(self) -> "FileHistograms": ...
    def __exit__(self, *exception: Any) -> None: ...
    def close(self) -> None: ...
    def run(self) -> "FileHistograms": ...
    @property
    def sum(self) -> Optional[Histogram]: ...

def histogram_files(
    paths: Iterable[PathLike],
    *,
    backend: str = "auto",
    device: Device = None,
    engine: Optional["Engine"] = None,
    threads: int = 0,
    max_pending: int = 0,
    decode: str = "cpu",
    progress: Union[None, bool, Callable[[int], Any]] = None,
    **request: Unpack[FileKeywords],
) -> FileHistograms:
    """Histograms of many image files: decoded on a pool of threads, yielded in input order, summed exactly."""

class Engine:
    """A backend's device state kept across calls; may be shared by threads (calls serialize)."""
    def __init__(self, backend: str = "auto", device: Device = None, threads: int = 0) -> None: ...
    @property
    def backend(self) -> str: ...
    @property
    def device(self) -> str: ...
    def histogram(self, image: Any, **request: Unpack[ArrayKeywords]) -> Histogram: ...
    def histogram_batch(self, images: Union[Sequence[Any], Iterable[Any], Any],
                        **request: Unpack[ArrayKeywords]) -> HistogramBatch: ...
    def histogram_file(self, path: PathLike, **request: Unpack[FileKeywords]) -> Histogram: ...

def backends() -> List[Dict[str, Any]]: ...
