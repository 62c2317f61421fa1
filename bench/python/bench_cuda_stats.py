#!/usr/bin/env python3
"""torch's per-channel statistics on CUDA tensors, for the side-by-side with
`imghist_cuda_bench --stats` (8K device-resident RGBA images, R, G, B; run both in one call).

For each of uint8, int16-range (uint16 values held as int32: torch has no uint16 arithmetic),
float16 and float32 RGBA 7680x4320 tensors (natural pattern: bench_cuda.py's), times:
    mean/std    t[..., :3].to(float32 or float64).mean((0, 1)) and .std((0, 1))
                (the conversion timed: torch reduces integers only after one);
    quantile    p1, p50, p99 per channel: torch.quantile refuses more than 2^24 elements, so
                torch.kthvalue of each rank (nearest rank), three per channel;
each the median of --repeats event-timed calls after a warm-up, in microseconds. Neither is exact:
torch's float32 mean accumulates in float32 (a tree order that differs between CPU and CUDA).

Run with the GPU machine's torch (/opt/torch/.venv/bin/python bench/python/bench_cuda_stats.py).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cuda_contenders as cc  # noqa: E402


def median_us(torch, fn, repeats: int) -> float:
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0)
    return statistics.median(times)


def tensors(torch, w: int, h: int, seed: int):
    """The four sample types of one natural RGBA image: (name, tensor, accumulation dtype)."""
    rgba8 = cc.make_image(torch, "natural", w, h, seed)
    unit = rgba8.float() / 255.0
    yield "rgba8", rgba8, torch.float32
    yield "rgba16", (unit * 65535).to(torch.int32), torch.float64
    yield "rgba_f16", unit.half(), torch.float32
    yield "rgba_f32", unit, torch.float32


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    import torch

    w, h = 7680, 4320
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}, {w}x{h} RGBA natural, R, G, B")
    print(f"{'format':<10} {'mean/std us':>12} {'quantile us':>12}")
    for name, t, acc in tensors(torch, w, h, args.seed):
        rgb = t[..., :3]

        def moments():
            v = rgb.to(acc)
            return v.mean((0, 1)), v.std((0, 1))

        n = w * h
        ranks = [max(1, -(-p * n // 100)) for p in (1, 50, 99)]

        def quantiles():
            flat = rgb.reshape(-1, 3)
            return [torch.kthvalue(flat[:, c].to(acc), k).values for c in range(3) for k in ranks]

        print(f"{name:<10} {median_us(torch, moments, args.repeats):12.1f} {median_us(torch, quantiles, max(3, args.repeats // 5)):12.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
