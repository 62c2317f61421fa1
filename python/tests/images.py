"""Seeded test images for the value tests (conftest.py's fixtures and check_model_against_cli.py).

make_image(pattern, dtype, height, width, channels, seed) -> a C-contiguous numpy array of shape
(H, W) when channels is 0, else (H, W, channels). Patterns:
  random      uniform over the integer range; floats over [-0.05, 1.05] (some below / above)
  natural     smooth gradients with a little noise, like a photo
  constant    one mid value;  constant_top: the largest value (8/16-bit max, 1.0): all clipped
  bank        values 32 apart (b, b + 32, ... b + 224), the GPU's shared-memory bank worst case
  specials    integers: the extremes and their neighbours; floats: NaN with payloads, +-Inf,
              +-0, denormals, k/256 and k/256 +- 1 ulp, huge values, random bit patterns
"""

from __future__ import annotations

import numpy as np

PATTERNS = ("random", "natural", "constant", "constant_top", "bank", "specials")
DTYPES = (np.uint8, np.uint16, np.float16, np.float32)
GPU_BACKENDS = ("opencl", "vulkan", "cuda")


def size_for(backend: str, height: int, width: int) -> tuple:
    """(height, width) for a backend: GPU backends (PoCL and lavapipe on 2 cores in CI) get half of each side."""
    if backend in GPU_BACKENDS:
        return max(1, height // 2), max(1, width // 2)
    return height, width


def unit_fractions(dtype) -> np.ndarray:
    """k/256 for k = 0..256 and their neighbours one ulp away, in dtype."""
    k = (np.arange(257, dtype=np.float32) / np.float32(256)).astype(dtype)
    lower, upper = dtype(-np.inf), dtype(np.inf)
    return np.concatenate([k, np.nextafter(k, lower), np.nextafter(k, upper)])


def float32_specials() -> np.ndarray:
    """fp32 values where the float rule can go wrong."""
    nan_bits = np.array([0x7FC00000, 0x7FC00001, 0x7F800001, 0x7FBFFFFF, 0xFFC00000, 0xFFFFFFFF], np.uint32)
    denormals = np.array([1, 2, 0x7FFFFF, 0x400000, 0x12345], np.uint32).view(np.float32)
    values = [
        nan_bits.view(np.float32), unit_fractions(np.float32), denormals, -denormals,
        np.float32([0.0, -0.0, np.inf, -np.inf, 2.0**-126, -(2.0**-126), 2.0**-100, -(2.0**-100)]),
        np.float32([3.4e38, -3.4e38, 1e30, -1e30, 65504, -65504, 1e10, 2.0, -1.0, 0.5, 1e-30, -1e-30]),
    ]
    return np.concatenate([np.asarray(v, np.float32).ravel() for v in values])


def half_specials() -> np.ndarray:
    """Half values where the float rule can go wrong (every half is a float: widened exactly)."""
    bits = np.array([0x7C01, 0x7E00, 0x7FFF, 0xFE00, 0xFFFF,  # NaN with payloads
                     0x7C00, 0xFC00, 0x0000, 0x8000,  # +-Inf, +-0
                     0x0001, 0x03FF, 0x0200, 0x8001, 0x83FF,  # denormals
                     0x7BFF, 0xFBFF, 0x3C00, 0x3C01, 0x3BFF], np.uint16)  # 65504, 1 and its neighbours
    return np.concatenate([bits.view(np.float16), unit_fractions(np.float16)])


def _natural(rng, height, width, channels) -> np.ndarray:
    """Values around [0, 1]: a smooth picture per channel plus noise."""
    y, x = np.mgrid[0:height, 0:width] / max(height, width, 2)
    planes = []
    for c in range(max(channels, 1)):
        wave = np.sin(2 * np.pi * (1.3 * x + 0.2 * c)) * np.cos(2 * np.pi * (0.7 * y - 0.1 * c))
        planes.append(0.5 + 0.4 * wave + 0.1 * (x - y) + rng.normal(0, 0.02, (height, width)))
    return np.stack(planes, axis=-1).reshape(-1, max(channels, 1))


def _integer_image(pattern, dtype, rng, n, channels, natural) -> np.ndarray:
    top = int(np.iinfo(dtype).max)
    step = 1 if dtype == np.uint8 else 256  # values 32 bins apart
    if pattern == "random":
        v = rng.integers(0, top + 1, (n, channels))
    elif pattern == "natural":
        v = np.clip(np.rint(natural * top), 0, top)
    elif pattern == "constant":
        v = np.full((n, channels), (top + 1) // 2 - 3)
    elif pattern == "constant_top":
        v = np.full((n, channels), top)
    elif pattern == "bank":
        base = rng.integers(0, 32, channels) * step
        v = base + 32 * step * (np.arange(n)[:, None] % 8) + rng.integers(0, step, (n, channels))
    elif pattern == "specials":
        v = rng.choice(np.array([0, top, 1, top - 1, 255, 256, top // 2]), (n, channels))
    else:
        raise ValueError(f"unknown pattern {pattern!r}")
    return v.astype(dtype)


def _float_image(pattern, dtype, rng, n, channels, natural) -> np.ndarray:
    if pattern == "random":
        v = rng.uniform(-0.05, 1.05, (n, channels))
    elif pattern == "natural":
        v = natural
    elif pattern == "constant":
        v = np.full((n, channels), 0.375)
    elif pattern == "constant_top":
        v = np.ones((n, channels))
    elif pattern == "bank":
        v = (rng.integers(0, 32, channels) + 32 * (np.arange(n)[:, None] % 8)) / 256.0
    elif pattern == "specials":
        return float_specials_image(dtype, rng, n, channels)
    else:
        raise ValueError(f"unknown pattern {pattern!r}")
    return v.astype(dtype)


def float_specials_image(dtype, rng, n, channels) -> np.ndarray:
    """(n, channels) samples: the specials (each channel shuffled on its own) and random bits."""
    specials = float32_specials() if dtype == np.float32 else half_specials()
    bits = np.uint32 if dtype == np.float32 else np.uint16
    planes = []
    for _ in range(channels):
        random_bits = rng.integers(0, np.iinfo(bits).max + 1, n, dtype=np.uint64).astype(bits).view(dtype)
        plane = np.where(rng.random(n) < 0.75, np.resize(rng.permutation(specials), n), random_bits)
        planes.append(plane.astype(dtype))
    return np.stack(planes, axis=-1)


def make_image(pattern: str, dtype, height: int, width: int, channels: int = 3, seed: int = 0) -> np.ndarray:
    """A seeded (H, W) image when channels is 0, else (H, W, channels); see the module docstring."""
    dtype = np.dtype(dtype).type
    rng = np.random.default_rng([seed, height, width, channels, PATTERNS.index(pattern), DTYPES.index(dtype)])
    n, c = height * width, max(channels, 1)
    natural = _natural(rng, height, width, channels)
    make = _integer_image if np.issubdtype(dtype, np.integer) else _float_image
    v = make(pattern, dtype, rng, n, c, natural)
    shape = (height, width) if channels == 0 else (height, width, channels)
    return np.ascontiguousarray(v.reshape(shape))
