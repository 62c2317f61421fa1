#!/usr/bin/env python3
"""imghist's exact sample statistics on the CPU beside numpy's and OpenCV's, in one run.

For each of uint8, uint16, float16 and float32 RGBA 3840x2160 images (the natural pattern of
contenders.py, scaled to the type; floats in [0, 1.5), so that some pass the default bins), R, G, B:
    histogram         imghist's histogram alone (Engine("cpu"), mode "rgb")
    + moments         the same with sample_stats=[]: exact count, sums, min, max, no percentile
    + p1/p50/p99      the same with sample_stats=[1, 50, 99]
    numpy mean/std    x.mean((0, 1), dtype=float64) and x.std(...) of the R, G, B view
    numpy percentile  np.percentile(x, [1, 50, 99], axis=(0, 1)) (sorts; method "linear")
    cv2.meanStdDev    per image (uint8, uint16 and float32 only; the alpha channel masked off by
                      reading 3 channels of a contiguous copy, whose copy is not timed)
each the median of --repeats calls after one warm-up, in milliseconds, and the ratio to the
histogram alone. The largest difference between imghist's mean and numpy's is printed too: numpy's
is pairwise summation in float64, imghist's the exact mean rounded once.

    python3 bench/python/bench_stats_cpu.py [--repeats 5] [--threads 0]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import contenders  # noqa: E402

PERCENTS = [1, 50, 99]


def median_ms(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def image_of(dtype: np.dtype, base: np.ndarray) -> np.ndarray:
    if dtype == np.uint8:
        return base
    if dtype == np.uint16:
        return (base.astype(np.uint16) * 257) ^ np.uint16(0x5A)  # every 16-bit value's low bits busy
    return (base.astype(np.float32) * np.float32(1.5 / 255)).astype(dtype)


def rows_for(img: np.ndarray, engine, repeats: int):
    rgb = img[..., :3]
    hist = lambda **kw: engine.histogram(img, mode="rgb", **kw)  # noqa: E731
    rows = [("histogram", median_ms(hist, repeats)),
            ("+ moments", median_ms(lambda: hist(sample_stats=[]), repeats)),
            ("+ p1/p50/p99", median_ms(lambda: hist(sample_stats=PERCENTS), repeats)),
            ("numpy mean/std", median_ms(lambda: (rgb.mean((0, 1), dtype=np.float64),
                                                   rgb.std((0, 1), dtype=np.float64)), repeats)),
            ("numpy percentile", median_ms(lambda: np.percentile(rgb, PERCENTS, axis=(0, 1)), max(1, repeats // 2)))]
    try:
        import cv2

        if img.dtype != np.float16:
            packed = np.ascontiguousarray(rgb)
            rows.append(("cv2.meanStdDev", median_ms(lambda: cv2.meanStdDev(packed), repeats)))
    except ImportError:
        pass
    h = hist(sample_stats=PERCENTS)
    exact = np.array([h[c].sample_stats()["mean"] for c in ("R", "G", "B")])
    finite = np.where(np.isfinite(rgb), rgb, 0).astype(np.float64)
    deviation = float(np.max(np.abs(finite.mean((0, 1)) - exact)))
    return rows, deviation


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=0, help="imghist's threads (0: the machine's)")
    args = ap.parse_args()
    import imghist

    engine = imghist.Engine("cpu", threads=args.threads)
    base = contenders.make_image("natural", 2160, 3840)
    print(f"imghist {imghist.__version__}, numpy {np.__version__}; 3840x2160 RGBA, R, G, B; ms (median of {args.repeats})")
    for dtype in (np.uint8, np.uint16, np.float16, np.float32):
        img = image_of(np.dtype(dtype), base)
        rows, deviation = rows_for(img, engine, args.repeats)
        alone = rows[0][1]
        print(f"\n{np.dtype(dtype).name}: |numpy mean - exact mean| <= {deviation:.3g}")
        for name, ms in rows:
            print(f"  {name:<18} {ms:9.2f} ms  {ms / alone:6.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
