"""Exact image histograms of numpy arrays and torch / cupy tensors, on CPUs and GPUs,
bit-identical on every backend.

Example::

    import numpy as np
    import imghist

    image = np.random.default_rng(1).integers(0, 256, (1080, 1920, 4), dtype=np.uint8)
    h = imghist.histogram(image)              # R, G, B and luminance Y, 256 bins each
    print(h.channels, h.counts.shape)         # ('R', 'G', 'B', 'Y') (4, 256)
    print(h["Y"].stats()["mean"])             # mean luminance, in bins
    print(h.density().shape)                  # numpy's density=True: (4, 256) float64
    crop = imghist.histogram(image[10:-3, 7:-5], mode="luma")   # a strided view, no copy
    tiled = imghist.histogram(image, roi=(0, 0, 960, 540), tiles=(4, 3))  # a region, in 4 x 3 tiles
    coarse = imghist.histogram(image, bins=[0, 16, 64, 192, 240, 256])  # edge bins [e_k, e_k+1), as numpy's
    as_numpy = imghist.histogram(image, bins=10, range=(0, 255), closed_top=True)  # numpy's closed last bin: 255 in it
    hdr = imghist.histogram(radiance, mode="luma", ev=(-16, 16, 8))    # float32 HDR: EV bins, 8 a stop
    print(hdr.edges[:3], hdr.exposure()["exposure_ev"])  # fp32 edges 2^-16...; the auto-exposure in stops
    hot = imghist.histogram(radiance, extremes=True)   # also the exact finite min / max and +-Inf counts
    print(hot.finite_max, hot["Y"].positive_infinities)   # per channel (float64), one channel's (int)
    print(tiled.region, tiled.tile_counts.shape, tiled.tile(3, 2).region)  # (0, 0, 960, 540) (3, 4, 4, 256) (720, 360, 240, 180)
    opaque = imghist.histogram(image, alpha_threshold=0)    # only the pixels whose alpha is above 0
    masked = imghist.histogram(image, mask=labels == 3)     # only where a 2-D bool / uint8 mask is set
    print(opaque.counted_pixels, masked.counted_pixels)     # how many pixels each counted
    engine = imghist.Engine("cpu")            # keep one for many calls
    total = engine.histogram(image) + engine.histogram(image)   # exact merge
    frames = imghist.histogram_batch([image, image[::2, ::2]])   # one engine for many images
    print(frames.counts.shape, frames.sum())  # (2, 4, 256), their exact sum
    h.plot(log=True)                          # the command line's chart (matplotlib)
    pixels = imghist.read("photo.png")        # a file's pixels, in its own dtype (OpenImageIO)
    h = imghist.histogram_file("photo.exr", mode="luma")   # or read and count in one call
    raw = imghist.histogram_file("shot.dng")  # a camera raw file: R, G1, B, G2 of the sensor (LibRaw)
    print(raw.channels, raw.camera_raw["white_level"], raw.camera_raw["channels"]["G1"]["clipped"])
    run = imghist.histogram_files(["shots/"], mode="luma", progress=True)  # folders walked as the command walks them
    for f in run: print(f.path, f.error or f.histogram["Y"].stats()["median"])
    print(run.sum, run.errors)                # the exact sum, and the files that failed
    # the same over a Dask cluster (pip install '.[dask]'; docs/scale-out.md):
    # import imghist.dask; imghist.dask.histogram_files(paths, client=Client(address)).sum

    import torch                              # a CUDA tensor is counted where it lives, on
    t = torch.from_numpy(image).cuda()        # torch's current stream, with no host copy
    print(imghist.histogram(t).counts.sum())  # (the "cuda" backend; "cpu" would refuse it)

The bin rule of every format is docs/semantics.md of the imghist repository.
"""
from ._imghist import (
    BackendUnavailable,
    CameraRawChannelHistogram,
    CameraRawHistogram,
    ChannelHistogram,
    DeviceError,
    Engine,
    Error,
    Histogram,
    HistogramBatch,
    InvalidArgument,
    MergeError,
    ReadError,
    __version__,
    backends,
    has_file_reader,
    histogram,
    histogram_batch,
    histogram_file,
    read,
)

__all__ = [
    "BackendUnavailable",
    "CameraRawChannelHistogram",
    "CameraRawHistogram",
    "ChannelHistogram",
    "DeviceError",
    "Engine",
    "Error",
    "Histogram",
    "HistogramBatch",
    "InvalidArgument",
    "MergeError",
    "ReadError",
    "__version__",
    "backends",
    "has_file_reader",
    "histogram",
    "histogram_batch",
    "histogram_file",
    "read",
]

from . import _density, _notebook, _plot
from ._files import FileHistogram, FileHistograms, gpu_decode_available, histogram_files

__all__ += ["FileHistogram", "FileHistograms", "gpu_decode_available", "histogram_files"]

# plot() is pure Python (matplotlib, imported when called).
Histogram.plot = _plot.plot_histogram
ChannelHistogram.plot = _plot.plot_channel
# density() is numpy's density=True of the exact counts (float64).
Histogram.density = _density.histogram_density
ChannelHistogram.density = _density.histogram_density
HistogramBatch.density = _density.batch_density
# How they show in Jupyter: a table and an SVG chart (HTML), and plot()'s chart (PNG).
Histogram._repr_html_ = _notebook.histogram_html
Histogram._repr_png_ = _notebook.histogram_png
HistogramBatch._repr_html_ = _notebook.batch_html
HistogramBatch._repr_png_ = _notebook.batch_png

# The classes report themselves as imghist.X (help(), repr, pickle's lookup).
for _name in ("CameraRawChannelHistogram", "CameraRawHistogram", "ChannelHistogram", "Engine", "Histogram",
              "HistogramBatch"):
    globals()[_name].__module__ = __name__
del _name
