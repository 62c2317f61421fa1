"""The images and the contenders of bench_python.py's large-image table.

Every contender counts the same thing as imghist (8-bit R, G, B into 256 bins, or luminance)
and returns its counts so that bench_python.py can check them against imghist's.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, List, Optional

import numpy as np

PATTERNS = ("random", "natural", "constant")


def make_image(pattern: str, height: int, width: int, seed: int = 42) -> np.ndarray:
    """An (H, W, 4) uint8 RGBA image of `pattern`, drawn like tests/support/test_images.cpp's.

    natural: a smooth gradient plus a sine per channel plus Gaussian noise (sigma 0.03), the C++
    generator's formula (other random numbers, the same distribution). Made in bands of rows to
    keep the float temporaries small.
    """
    rng = np.random.default_rng(seed)
    if pattern == "random":
        return rng.integers(0, 256, size=(height, width, 4), dtype=np.uint8)
    if pattern == "constant":
        return np.full((height, width, 4), round(rng.uniform() * 255), dtype=np.uint8)
    if pattern != "natural":
        raise ValueError(f"unknown pattern {pattern!r}")
    out = np.empty((height, width, 4), dtype=np.uint8)
    gx = np.arange(width) / max(1, width - 1)
    band = 256
    for y0 in range(0, height, band):
        gy = (np.arange(y0, min(height, y0 + band)) / max(1, height - 1))[:, None]
        for c in range(4):
            base = 0.45 * gx + 0.35 * gy + 0.1 * np.sin(0.05 * np.arange(width) + c) + 0.1
            unit = np.clip(base + rng.normal(0.0, 0.03, size=base.shape), 0.0, 1.0)
            out[y0 : y0 + band, :, c] = np.rint(unit * 255.0)
    return out


@dataclasses.dataclass
class Contender:
    """One timed call. `kind` is "rgb" (returns (3, 256) counts) or "luma" (256 counts).

    `exact` False: the contender's luminance uses other weights or rounding (Rec.601, rounded),
    so only its total is checked. `note` says what is timed and what is not.
    """

    name: str
    kind: str
    fn: Callable[[], object]
    to_counts: Callable[[object], np.ndarray]
    exact: bool = True
    note: str = ""


def imghist_contenders(img: np.ndarray, threads: int) -> List[Contender]:
    """imghist cpu through a kept Engine (the reference of the checks) and the one-shot call."""
    import imghist

    engine = imghist.Engine("cpu", threads=threads)
    counts = lambda h: np.asarray(h.counts)  # noqa: E731
    luma = lambda h: np.asarray(h.counts)[0]  # noqa: E731
    return [
        Contender("imghist Engine('cpu').histogram(mode='rgb')", "rgb",
                  lambda: engine.histogram(img, mode="rgb"), counts),
        Contender("imghist.histogram(backend='cpu', mode='rgb')", "rgb",
                  lambda: imghist.histogram(img, mode="rgb", backend="cpu"), counts,
                  note="one-shot function (the thread's kept engine)"),
        Contender("imghist Engine('cpu').histogram(mode='luma')", "luma",
                  lambda: engine.histogram(img, mode="luma"), luma),
    ]


def numpy_contenders(img: np.ndarray) -> List[Contender]:
    """np.bincount per channel, on the strided view and on contiguous copies (made untimed)."""
    flat = img.reshape(-1, 4)
    views = [flat[:, c] for c in range(3)]
    copies = [np.ascontiguousarray(v) for v in views]
    stack = lambda hs: np.stack(hs)  # noqa: E731
    return [
        Contender("np.bincount x3 (strided view a.reshape(-1, 4)[:, c])", "rgb",
                  lambda: [np.bincount(v, minlength=256) for v in views], stack),
        Contender("np.bincount x3 (contiguous channel copies)", "rgb",
                  lambda: [np.bincount(v, minlength=256) for v in copies], stack,
                  note="the copies are made before timing"),
    ]


def opencv_contenders(img: np.ndarray) -> List[Contender]:
    import cv2

    def rgb():
        return [cv2.calcHist([img], [c], None, [256], [0, 256]) for c in range(3)]

    def luma():
        return cv2.calcHist([cv2.cvtColor(img, cv2.COLOR_RGBA2GRAY)], [0], None, [256], [0, 256])

    return [
        Contender("cv2.calcHist x3", "rgb", rgb, lambda hs: np.stack([h.ravel() for h in hs])),
        Contender("cv2.cvtColor(RGBA2GRAY) + cv2.calcHist", "luma", luma, lambda h: h.ravel(),
                  exact=False),
    ]


def skimage_contenders(img: np.ndarray) -> List[Contender]:
    from skimage import exposure

    def rgb():
        return [exposure.histogram(img[:, :, c], source_range="dtype")[0] for c in range(3)]

    return [Contender("skimage.exposure.histogram x3 (strided view a[:, :, c])", "rgb", rgb, np.stack)]


def pillow_contenders(img: np.ndarray) -> List[Contender]:
    from PIL import Image

    pil = Image.fromarray(img, "RGBA")
    return [
        Contender("PIL Image.histogram() (RGBA: R, G, B, A in one call)", "rgb", pil.histogram,
                  lambda h: np.asarray(h[:768]).reshape(3, 256),
                  note="Image.fromarray (a copy) is made before timing"),
        Contender("PIL Image.convert('L').histogram()", "luma", lambda: pil.convert("L").histogram(),
                  np.asarray, exact=False),
    ]


def all_contenders(img: np.ndarray, threads: int) -> List[Contender]:
    return (imghist_contenders(img, threads) + opencv_contenders(img) + numpy_contenders(img)
            + skimage_contenders(img) + pillow_contenders(img))


def check(contender: Contender, result: object, reference: np.ndarray, pixels: int) -> str:
    """"equal" when the counts equal imghist's; for an inexact luminance, its total only."""
    counts = np.asarray(contender.to_counts(result)).astype(np.uint64)
    if not contender.exact:
        return "total equal (other weights)" if int(counts.sum()) == pixels else "TOTAL DIFFERS"
    return "equal" if np.array_equal(counts, reference) else "DIFFERS"


def reference_counts(contenders: List[Contender], kind: str) -> Optional[np.ndarray]:
    """The counts of the first imghist contender of `kind` (the Engine one)."""
    for c in contenders:
        if c.kind == kind and c.name.startswith("imghist"):
            return np.asarray(c.to_counts(c.fn())).astype(np.uint64)
    return None
