#!/usr/bin/env python3
"""Writes examples/sample.png: a small, photo-like sunset over mountains and a lake.

Pure Python (standard library only), deterministic. The scene has what makes a histogram worth
looking at: a bright sky with a sun that clips to white, warm and cool colours that separate
R, G and B, layered mountains in the mid-tones, and a dark shore that reaches black.

    python3 examples/make_sample.py [OUTPUT.png] [WIDTH HEIGHT]
"""
import math
import random
import struct
import sys
import zlib


def lattice(seed, n):
    rnd = random.Random(seed)
    return [rnd.random() for _ in range(n)]


class ValueNoise:
    """Smooth 2-D value noise on a 256x256 wrapping lattice."""

    def __init__(self, seed):
        self.v = lattice(seed, 256 * 256)

    def __call__(self, x, y):
        xi, yi = int(math.floor(x)), int(math.floor(y))
        fx, fy = x - xi, y - yi
        fx = fx * fx * (3 - 2 * fx)
        fy = fy * fy * (3 - 2 * fy)
        v = self.v
        x0, x1 = xi & 255, (xi + 1) & 255
        y0, y1 = (yi & 255) * 256, ((yi + 1) & 255) * 256
        a = v[y0 + x0] + (v[y0 + x1] - v[y0 + x0]) * fx
        b = v[y1 + x0] + (v[y1 + x1] - v[y1 + x0]) * fx
        return a + (b - a) * fy

    def fbm(self, x, y, octaves=4):
        s, amp, norm = 0.0, 1.0, 0.0
        for _ in range(octaves):
            s += amp * self(x, y)
            norm += amp
            x, y, amp = x * 2.03, y * 2.03, amp * 0.5
        return s / norm


def ridge(seed, width, base, amplitude, roughness):
    """A mountain skyline: 1-D midpoint displacement, returned as a height per column."""
    rnd = random.Random(seed)
    n = 1
    while n < width:
        n *= 2
    pts = [0.0] * (n + 1)
    pts[0], pts[n] = rnd.uniform(-1, 1), rnd.uniform(-1, 1)
    step, scale = n, 1.0
    while step > 1:
        half = step // 2
        for i in range(half, n, step):
            pts[i] = (pts[i - half] + pts[i + half]) / 2 + rnd.uniform(-1, 1) * scale
        step, scale = half, scale * roughness
    return [base - amplitude * pts[int(i * n / width)] for i in range(width)]


def mix(a, b, t):
    return tuple(a[i] + (b[i] - a[i]) * t for i in range(3))


def smooth(e0, e1, x):
    t = min(1.0, max(0.0, (x - e0) / (e1 - e0)))
    return t * t * (3 - 2 * t)


def render(w, h):
    clouds = ValueNoise(7)
    water = ValueNoise(11)
    grain = random.Random(3)
    horizon = 0.62 * h
    sun_x, sun_y, sun_r = 0.68 * w, 0.50 * h, 0.035 * w
    far = ridge(21, w, 0.50 * h, 0.10 * h, 0.55)
    mid = ridge(22, w, 0.56 * h, 0.09 * h, 0.58)
    near = ridge(23, w, 0.86 * h, 0.06 * h, 0.62)

    zenith, high, low, glow = (0.09, 0.13, 0.32), (0.36, 0.40, 0.62), (0.98, 0.62, 0.34), (1.0, 0.92, 0.70)
    rows = []
    for y in range(h):
        row = bytearray()
        for x in range(w):
            if y < horizon:  # sky
                t = y / horizon
                c = mix(zenith, high, smooth(0.0, 0.55, t))
                c = mix(c, low, smooth(0.45, 1.0, t))
                d = math.hypot(x - sun_x, (y - sun_y) * 1.15)
                c = mix(c, glow, 0.85 * math.exp(-d / (0.16 * w)))
                cl = clouds.fbm(x / 70.0, y / 22.0)
                cover = smooth(0.52, 0.78, cl) * (0.35 + 0.65 * smooth(0.15, 0.75, t))
                lit = mix((0.30, 0.24, 0.34), (1.0, 0.70, 0.52), smooth(0.3, 1.0, t))
                c = mix(c, lit, 0.75 * cover)
                if d < sun_r:
                    c = (1.3, 1.25, 1.1)  # clips to white
                if y > far[x]:  # far range, hazy and blue
                    c = mix((0.42, 0.40, 0.55), c, 0.35 * smooth(far[x], horizon, y))
                if y > mid[x]:  # nearer range, darker
                    shade = clouds.fbm(x / 30.0 + 50, y / 30.0, 3)
                    c = mix((0.20, 0.19, 0.29), (0.30, 0.25, 0.33), shade)
            else:  # lake: the sky mirrored, rippled and darkened
                my = 2 * horizon - y + 6 * (water.fbm(x / 90.0, y / 3.0, 3) - 0.5) * (y - horizon) / 20
                my = max(0.0, min(horizon - 1, my))
                t = my / horizon
                c = mix(zenith, high, smooth(0.0, 0.55, t))
                c = mix(c, low, smooth(0.45, 1.0, t))
                d = math.hypot(x - sun_x, (my - sun_y) * 1.15)
                c = mix(c, glow, 0.75 * math.exp(-d / (0.12 * w)))
                if my > mid[x]:
                    c = (0.16, 0.15, 0.23)
                sparkle = water(x / 3.0, y * 1.7)
                if abs(x - sun_x) < 0.06 * w and sparkle > 0.88:
                    c = mix(c, (1.2, 1.1, 0.9), 0.8)
                k = 0.72 - 0.25 * (y - horizon) / (h - horizon)
                c = (c[0] * k, c[1] * k, c[2] * k * 1.05)
            if y > near[x]:  # shore and trees in silhouette, down to black
                depth = smooth(near[x], h, y)
                leaf = clouds.fbm(x / 8.0, y / 8.0, 2)
                c = mix((0.10, 0.08, 0.07), (0.0, 0.0, 0.0), depth)
                c = mix(c, (0.14, 0.12, 0.08), 0.4 * leaf * (1 - depth))
            n = (grain.random() - 0.5) * 0.012
            for v in c:
                v = max(0.0, min(1.0, v + n))
                row.append(int(255 * v ** (1 / 1.1) + 0.5))
        rows.append(bytes(row))
    return rows


def write_png(path, w, h, rows):
    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    raw = bytearray()
    prev = bytes(3 * w)
    for row in rows:  # filter 4 (Paeth) compresses smooth photos best
        raw.append(4)
        for i in range(len(row)):
            a = row[i - 3] if i >= 3 else 0
            b = prev[i]
            c = prev[i - 3] if i >= 3 else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            raw.append((row[i] - pred) & 255)
        prev = row
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) +
                chunk(b"IEND", b""))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "examples/sample.png"
    w, h = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (480, 320)
    write_png(out, w, h, render(w, h))


if __name__ == "__main__":
    main()
