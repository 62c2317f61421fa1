#!/usr/bin/env python3
"""Masks on CUDA arrays (issue 17): imghist.Engine('cuda').histogram(t, mode='rgb', mask=m) with
the image t and the mask m torch CUDA tensors, against the same call without the mask, 8K.

Images: (4320, 7680, 4) uint8 (random 0..255) and float32 (random [0, 1)), seeded numpy copied
to the GPU. Masks (uint8): 'all' every pixel, 'disc' a centred disc (78 %, long runs, as a
painted mask), 'noise' half the pixels at random. Each figure is the median of 20 calls after 3
warm-ups, each call followed by torch.cuda.synchronize() (imghist's call returns with the counts
on the host already). Run with IMGHIST_CUDA_TUNE=float_lut=0 to see what the float code table
costs the float rows (the selection alternates two plans, and the table is rebuilt for each).

Usage: PYTHONPATH=<imghist package> python3 bench/python/bench_cuda_masks.py
"""
import statistics
import time

import numpy as np
import torch

import imghist

HEIGHT, WIDTH = 4320, 7680


def median_us(call) -> float:
    for _ in range(3):
        call()
    times = []
    for _ in range(20):
        torch.cuda.synchronize()
        start = time.perf_counter()
        call()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def masks(rng) -> dict:
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    disc = ((xx - WIDTH / 2) / (WIDTH / 2)) ** 2 + ((yy - HEIGHT / 2) / (HEIGHT / 2)) ** 2 < 1
    return {"all": np.ones((HEIGHT, WIDTH), np.uint8), "disc": disc.astype(np.uint8),
            "noise": (rng.random((HEIGHT, WIDTH)) < 0.5).astype(np.uint8)}


def main() -> None:
    rng = np.random.default_rng(1)
    engine = imghist.Engine("cuda")
    device_masks = {name: torch.from_numpy(m).cuda() for name, m in masks(rng).items()}
    print(f"# {torch.cuda.get_device_name()}, {WIDTH}x{HEIGHT}, R,G,B; medians of 20 synchronous calls (us)")
    for dtype in (np.uint8, np.float32):
        pixels = (rng.integers(0, 256, (HEIGHT, WIDTH, 4), dtype=np.uint8) if dtype == np.uint8
                  else rng.random((HEIGHT, WIDTH, 4), dtype=np.float32))
        image = torch.from_numpy(pixels).cuda()
        whole = median_us(lambda: engine.histogram(image, mode="rgb"))
        print(f"{np.dtype(dtype).name:8} whole       {whole:9.1f}")
        for name, mask in device_masks.items():
            us = median_us(lambda: engine.histogram(image, mode="rgb", mask=mask))
            print(f"{np.dtype(dtype).name:8} mask {name:6} {us:9.1f}  ({us / whole:.2f}x whole)")


if __name__ == "__main__":
    main()
