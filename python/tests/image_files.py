"""Image files written byte by byte from numpy arrays (PNG with zlib, PNM, PFM), so that what
the reader returns can be checked against the array that made the file."""

from __future__ import annotations

import pathlib
import struct
import zlib

import numpy as np


def write_png(path: pathlib.Path, pixels: np.ndarray) -> None:
    """A PNG of uint8 / uint16 gray, RGB or RGBA pixels (filter 0 on every row)."""
    height, width = pixels.shape[:2]
    channels = 1 if pixels.ndim == 2 else pixels.shape[2]
    colour_type = {1: 0, 3: 2, 4: 6}[channels]
    depth = 8 * pixels.dtype.itemsize
    rows = pixels.astype(pixels.dtype.newbyteorder(">")).reshape(height, -1).view(np.uint8)
    raw = b"".join(b"\0" + row.tobytes() for row in rows)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, depth, colour_type, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
                     + chunk(b"IEND", b""))


def write_pnm(path: pathlib.Path, pixels: np.ndarray) -> None:
    """A binary PGM (gray) or PPM (RGB) of uint8 / uint16 samples (big-endian, as PNM says)."""
    height, width = pixels.shape[:2]
    magic = b"P5" if pixels.ndim == 2 else b"P6"
    top = 255 if pixels.dtype == np.uint8 else 65535
    data = pixels.astype(pixels.dtype.newbyteorder(">")).tobytes()
    path.write_bytes(magic + b"\n%d %d\n%d\n" % (width, height, top) + data)


def write_pfm(path: pathlib.Path, pixels: np.ndarray) -> None:
    """A PFM of float32 RGB pixels: little-endian (negative scale), rows from the bottom up."""
    height, width = pixels.shape[:2]
    data = np.ascontiguousarray(pixels[::-1]).astype("<f4").tobytes()
    path.write_bytes(b"PF\n%d %d\n-1.0\n" % (width, height) + data)
