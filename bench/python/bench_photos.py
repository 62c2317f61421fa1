#!/usr/bin/env python3
"""imghist's cpu backend on real photos: scikit-image's sample photos, each tiled (not scaled,
which would smooth it) to an 8K image, counted on one thread, against OpenCV's calcHist.

The synthetic images of the C++ benchmarks (random, natural, constant) bracket real data; this
is the real data. For each photo: the share of neighbouring pixels whose R, G or B sample
repeats (random data: 1 in 256; the 8-bit kernels pick their order of sub-histograms by it,
src/backends/cpu/cpu_kernels.cpp, neighbours_repeat), then the medians of --repeats calls of
    imghist Engine("cpu", threads=1).histogram(a, mode="rgb") and with alpha=True (RGBA8), and
        mode="rgb" (RGB8);
    cv2.calcHist per channel on one thread (cv2.setNumThreads(1)), checked equal to imghist's.
Contenders are timed round-robin after a warm-up call each.

Setup: the package and the contenders (bench/python/requirements.txt), e.g. the test venv:
    bash scripts/python-test.sh     # builds build/python-venv with the package
    build/python-venv/bin/python -m pip install -r bench/python/requirements.txt
Run:
    build/python-venv/bin/python bench/python/bench_photos.py [--repeats 7] [--size 7680x4320]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

# Files of skimage.data's folder (installed with scikit-image; none is downloaded).
PHOTOS = ("astronaut.png", "coffee.png", "chelsea.png", "rocket.jpg", "hubble_deep_field.jpg", "retina.jpg",
          "motorcycle_left.png", "color.png")


def tiled(photo: np.ndarray, width: int, height: int) -> np.ndarray:
    reps = (height // photo.shape[0] + 1, width // photo.shape[1] + 1, 1)
    return np.ascontiguousarray(np.tile(photo, reps)[:height, :width])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=7, help="timed calls per contender (7)")
    p.add_argument("--size", default="7680x4320", help="WxH of the tiled images (7680x4320)")
    a = p.parse_args()
    width, height = (int(v) for v in a.size.split("x"))

    import cv2
    import skimage.data
    from PIL import Image
    import imghist

    folder = Path(skimage.data.__file__).parent

    cv2.setNumThreads(1)
    engine = imghist.Engine("cpu", threads=1)
    print(f"# {platform.processor() or platform.machine()}, imghist {imghist.__version__}, OpenCV {cv2.__version__}, "
          f"{width}x{height}, one thread, medians of {a.repeats} (ms)\n")
    print("| photo | neighbours repeat | RGBA8 R,G,B | RGBA8 R,G,B,A | RGB8 R,G,B | cv2.calcHist R,G,B (RGB8) | "
          "calcHist / imghist (RGB8) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    failed = False
    for name in PHOTOS:
        rgb = tiled(np.asarray(Image.open(folder / name).convert("RGB")), width, height)
        rgba = np.ascontiguousarray(np.concatenate([rgb, np.full(rgb.shape[:2] + (1,), 255, np.uint8)], axis=-1))
        repeat = float((rgb[:, 1:] == rgb[:, :-1]).mean())

        ours = engine.histogram(rgb, mode="rgb")
        for c in range(3):
            want = cv2.calcHist([rgb], [c], None, [256], [0, 256]).ravel().astype(np.uint64)
            if not np.array_equal(ours.counts[c], want):
                print(f"MISMATCH: {name} channel {c}: imghist and cv2.calcHist differ", file=sys.stderr)
                failed = True

        def calc_hist() -> None:
            for c in range(3):
                cv2.calcHist([rgb], [c], None, [256], [0, 256])

        contenders = {
            "rgba_rgb": lambda: engine.histogram(rgba, mode="rgb"),
            "rgba_rgba": lambda: engine.histogram(rgba, mode="rgb", alpha=True),
            "rgb_rgb": lambda: engine.histogram(rgb, mode="rgb"),
            "cv2": calc_hist,
        }
        for fn in contenders.values():
            fn()
        samples = {k: [] for k in contenders}
        for _ in range(a.repeats):
            for k, fn in contenders.items():
                t0 = time.perf_counter()
                fn()
                samples[k].append((time.perf_counter() - t0) * 1e3)
        m = {k: statistics.median(v) for k, v in samples.items()}
        print(f"| {Path(name).stem} | {repeat:.1%} | {m['rgba_rgb']:.2f} | {m['rgba_rgba']:.2f} | {m['rgb_rgb']:.2f} | "
              f"{m['cv2']:.2f} | {m['cv2'] / m['rgb_rgb']:.2f}x |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
