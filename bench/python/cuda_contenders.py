"""The images, the contenders and the checks of bench_cuda.py.

make_image draws an (H, W, 4) uint8 RGBA torch CUDA tensor of a pattern; Contender is one timed
call (imghist's, torch's or CuPy's, each counting R, G, B of the same tensor), Env what the calls
need (torch, imghist, cupy, the kept engine, a side stream); imghist_contenders, torch_contenders
and cupy_contenders give a case's calls (imghist's Engine rgb, REF, first), overhead_items the
steps of a call timed alone; check runs a contender once and compares its counts with imghist's.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
from typing import Any, Callable, ContextManager, List, Optional, Tuple

import numpy as np

PATTERNS = ("random", "natural", "constant")
FLOAT32_EXACT = 2**24  # float32 holds every integer up to this, not all above it
REF = "engine-rgb"  # the key of the reference contender: its counts are checked against, its time divides


# ---- the images ----

def make_image(torch: Any, pattern: str, w: int, h: int, seed: int) -> Any:
    """An (H, W, 4) uint8 RGBA tensor on the current CUDA device (alpha 255), ready when returned."""
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)
    if pattern == "random":
        img = torch.randint(0, 256, (h, w, 4), dtype=torch.uint8, device="cuda", generator=g)
    elif pattern == "natural":
        img = natural_image(torch, w, h, g)
    elif pattern == "constant":
        img = torch.tensor([77, 140, 200, 255], dtype=torch.uint8, device="cuda").expand(h, w, 4).contiguous()
    else:
        raise ValueError(f"unknown pattern {pattern!r}")
    img[..., 3] = 255
    torch.cuda.synchronize()
    return img


def natural_image(torch: Any, w: int, h: int, g: Any) -> Any:
    """bench_kernels.cu's natural(): 0.5 x/w + 0.35 y/h + 0.1 sin(0.01 x + c) + 0.05, plus uniform
    noise in [-0.02, 0.02), clamped to [0, 0.999], times 256, truncated."""
    x = torch.arange(w, dtype=torch.float32, device="cuda")
    y = torch.arange(h, dtype=torch.float32, device="cuda")[:, None]
    img = torch.empty((h, w, 4), dtype=torch.uint8, device="cuda")
    for c in range(3):
        base = 0.5 * x / w + 0.35 * y / h + 0.1 * torch.sin(0.01 * x + c) + 0.05
        noise = torch.rand((h, w), device="cuda", generator=g) * 0.04 - 0.02
        img[..., c] = ((base + noise).clamp(0.0, 0.999) * 256).to(torch.uint8)
    return img


# ---- the contenders ----

@dataclasses.dataclass
class Contender:
    """One timed call. `counts` turns its result into R, G, B counts, (3, 256) int64 (None: not
    checked). `mode`: imghist's mode ("" for the others). `sync`: torch.cuda.synchronize() after
    each call. `around`: a context entered around the calls (not timed). `float_counts`: counts
    in float32, exact up to 2^24 per bin."""

    key: str
    name: str
    fn: Callable[[], object]
    counts: Optional[Callable[[object], np.ndarray]] = None
    mode: str = ""
    sync: bool = True
    around: Callable[[], ContextManager] = contextlib.nullcontext
    note: str = ""
    float_counts: bool = False


@dataclasses.dataclass
class Env:
    args: argparse.Namespace
    torch: Any
    imghist: Any
    cupy: Any  # None when it cannot be imported
    cupy_note: str
    engine: Any  # the kept imghist.Engine("cuda")
    side: Any  # a non-default torch.cuda.Stream


def imghist_rgb(h: Any) -> np.ndarray:
    """The R, G, B rows of an imghist.Histogram, as int64."""
    rows = [list(h.channels).index(c) for c in ("R", "G", "B")]
    return np.asarray(h.counts)[rows].astype(np.int64)


def imghist_contenders(env: Env, img: Any) -> List[Contender]:
    """The reference (REF) first."""
    e, ih, torch = env.engine, env.imghist, env.torch
    alone = "the call alone (it returns with the counts on the host): compared with C++"
    return [
        Contender(REF, "imghist Engine('cuda').histogram(t, mode='rgb')", lambda: e.histogram(img, mode="rgb"),
                  imghist_rgb, mode="rgb", note="kept engine; the reference of the checks"),
        Contender("engine-all", "imghist Engine('cuda').histogram(t, mode='all')",
                  lambda: e.histogram(img, mode="all"), imghist_rgb, mode="all", note="R, G, B, Y"),
        Contender("oneshot-rgb", "imghist.histogram(t, mode='rgb')", lambda: ih.histogram(img, mode="rgb"),
                  imghist_rgb, mode="rgb", note="one-shot function (the thread's kept engine)"),
        Contender("stream-rgb", "imghist Engine('cuda') mode='rgb' in torch.cuda.stream(s)",
                  lambda: e.histogram(img, mode="rgb"), imghist_rgb, mode="rgb",
                  around=lambda: torch.cuda.stream(env.side), note="a non-default stream (entered untimed)"),
        Contender("engine-rgb-nosync", "imghist Engine('cuda') mode='rgb', no synchronize()",
                  lambda: e.histogram(img, mode="rgb"), imghist_rgb, mode="rgb", sync=False, note=alone),
        Contender("engine-all-nosync", "imghist Engine('cuda') mode='all', no synchronize()",
                  lambda: e.histogram(img, mode="all"), imghist_rgb, mode="all", sync=False, note=alone),
    ]


def tensors_counts(hs: List[Any]) -> np.ndarray:
    return np.stack([h.cpu().numpy() for h in hs]).astype(np.int64)


def bincount_input(torch: Any) -> Tuple[Callable[[Any], Any], str]:
    """How torch.bincount gets a uint8 channel: as it is, or through .int() if it refuses uint8."""
    try:
        torch.bincount(torch.zeros(4, dtype=torch.uint8, device="cuda"), minlength=256)
        return (lambda v: v), "uint8 t[..., c].reshape(-1) (a copy: the channel is strided)"
    except (RuntimeError, TypeError, NotImplementedError):
        return (lambda v: v.int()), "bincount refuses uint8 on CUDA: .int() inside the timed call"


def torch_contenders(env: Env, img: Any) -> List[Contender]:
    torch = env.torch
    chans = [img[..., c] for c in range(3)]
    convert, note = bincount_input(torch)

    def bincount() -> List[Any]:
        return [torch.bincount(convert(v.reshape(-1)), minlength=256) for v in chans]

    def histc() -> List[Any]:
        return [torch.histc(v.float(), bins=256, min=0, max=255) for v in chans]

    return [
        Contender("torch.bincount", "torch.bincount x3", bincount, tensors_counts, note=note),
        Contender("torch.histc", "torch.histc x3 (bins=256, min=0, max=255)", histc, tensors_counts,
                  note="t[..., c].float() inside the timed call; float32 counts", float_counts=True),
    ]


def cupy_contenders(env: Env, img: Any) -> List[Contender]:
    cp = env.cupy
    if cp is None:
        return []
    a = cp.from_dlpack(img)  # zero-copy, untimed
    chans = [a[..., c] for c in range(3)]

    def to_counts(hs: List[Any]) -> np.ndarray:
        return np.stack([cp.asnumpy(h) for h in hs]).astype(np.int64)

    def histogram() -> List[Any]:
        return [cp.histogram(v, bins=256, range=(0, 256))[0] for v in chans]

    def bincount() -> List[Any]:
        return [cp.bincount(v.ravel(), minlength=256) for v in chans]

    shared = "a = cupy.from_dlpack(t) (zero-copy) made before timing"
    return [
        Contender("cupy.histogram", "cupy.histogram x3 (bins=256, range=(0, 256))", histogram, to_counts,
                  note=shared),
        Contender("cupy.bincount", "cupy.bincount x3 (a[..., c].ravel(), minlength=256)", bincount, to_counts,
                  note=shared + "; ravel() copies the strided channel"),
    ]


def overhead_items(env: Env) -> List[Contender]:
    torch, e = env.torch, env.engine
    t = make_image(torch, "random", 1920, 1080, env.args.seed)
    t8k = make_image(torch, "random", 7680, 4320, env.args.seed)
    tiny = torch.full((1, 1, 4), 7, dtype=torch.uint8, device="cuda")
    dev = t.device.index or 0
    from imghist._streams import export_cuda, producer_stream  # what the binding calls

    def item(key: str, name: str, fn: Callable[[], object], note: str = "") -> Contender:
        return Contender(key, name, fn, sync=False, note=note)

    return [
        item("current_stream", "torch.cuda.current_stream()", lambda: torch.cuda.current_stream()),
        item("dlpack_device", "t.__dlpack_device__()", lambda: t.__dlpack_device__()),
        item("producer_stream", "imghist._streams.producer_stream(t, 0)", lambda: producer_stream(t, dev),
             "the stream lookup"),
        item("export_cuda", "imghist._streams.export_cuda(t, 0)", lambda: export_cuda(t, dev),
             "the binding's export: stream lookup and to_dlpack"),
        item("dlpack", "t.__dlpack__(stream=torch.cuda.current_stream().cuda_stream or 1)",
             lambda: t.__dlpack__(stream=torch.cuda.current_stream().cuda_stream or 1),
             "torch's own protocol export, which export_cuda avoids for torch's current stream"),
        item("to_dlpack", "torch.utils.dlpack.to_dlpack(t)", lambda: torch.utils.dlpack.to_dlpack(t)),
        item("synchronize", "torch.cuda.synchronize() (idle GPU)", torch.cuda.synchronize),
        item("tiny", "Engine('cuda').histogram(1x1 tensor, mode='rgb')", lambda: e.histogram(tiny, mode="rgb"),
             "the fixed cost of a call"),
        item("1080p", "Engine('cuda').histogram(t, mode='rgb')", lambda: e.histogram(t, mode="rgb"),
             "1920x1080 random, no synchronize()"),
        item("8K", "Engine('cuda').histogram(t8k, mode='rgb')", lambda: e.histogram(t8k, mode="rgb"),
             "7680x4320 random, no synchronize(): back to back, as the C++ --sync calls"),
    ]


# ---- the checks ----

def compare(c: Contender, got: np.ndarray, ref: np.ndarray) -> str:
    """"equal", or what differs ("DIFFERS" fails the run)."""
    if got.shape != ref.shape:
        return f"DIFFERS: shape {got.shape}, imghist's {ref.shape}"
    if np.array_equal(got, ref):
        return "equal"
    off = got != ref
    worst = int(np.abs(got - ref).max())
    if c.float_counts and bool(np.all(ref[off] > FLOAT32_EXACT)):
        return f"inexact only in bins > 2^24 (float32 counts; largest difference {worst})"
    return f"DIFFERS in {int(off.sum())} bin(s) (largest difference {worst})"


def one_line(e: Exception) -> str:
    """An error's message on one line, short, with no Markdown table separator."""
    return " ".join(str(e).split())[:200].replace("|", "/")


def check(c: Contender, torch: Any, ref: np.ndarray) -> str:
    """One call of c (also a warm-up), its counts against imghist's. Another library's error is
    reported as its row's check; imghist's propagates."""
    try:
        with c.around():
            result = c.fn()
            torch.cuda.synchronize()
        got = c.counts(result)
    except Exception as e:  # noqa: BLE001 (any failure of a contender is reported, not fatal)
        if c.mode:  # imghist's own
            raise
        print(f"{c.name} failed, not timed: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        return f"ERROR: {type(e).__name__}: {one_line(e)}"
    status = compare(c, got, ref)
    if "DIFFERS" in status:
        print(f"\n*** MISMATCH: {c.name}: {status} ***\n", file=sys.stderr, flush=True)
    return status
