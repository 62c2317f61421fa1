"""Camera raw files (DNG) written with tifffile from mosaics of known values, and what numpy
says each sensor channel of them holds, for the camera raw tests."""

from __future__ import annotations

import pathlib

import numpy as np

CFA_CODE = {"R": 0, "G": 1, "B": 2}
PATTERNS = ("RGGB", "BGGR", "GRBG", "GBRG")
XTRANS = "GGRGGB" "GGBGGR" "BRGRBG" "GGBGGR" "GGRGGB" "RBGBRG"  # Fujifilm's 6 x 6 pattern
CHANNELS = ("R", "G1", "B", "G2")


def write_dng(path: pathlib.Path, mosaic: np.ndarray, pattern: str, black, white: int, preview: bool = False) -> None:
    """A DNG of `mosaic` (uint16, rows x columns) with a 2 x 2 `pattern` (or a 6 x 6 one, as
    X-Trans sensors have: 36 colours row by row), a black level per 2 x 2 position (row by row)
    and a white level; `preview`: a small RGB image first, the mosaic in its sub-IFD, as cameras
    write them."""
    import tifffile

    dng = [
        (50706, "B", 4, (1, 4, 0, 0), True),  # DNGVersion
        (50708, "s", 0, "imghist test camera", True),  # UniqueCameraModel
        (50713, "H", 2, (2, 2), True),  # BlackLevelRepeatDim
        (50714, "I", 4, tuple(int(b) for b in black), True),  # BlackLevel
        (50717, "I", 1, (int(white),), True),  # WhiteLevel
    ]
    side = 6 if len(pattern) == 36 else 2
    cfa = [(33421, "H", 2, (side, side), True), (33422, "B", side * side, tuple(CFA_CODE[c] for c in pattern), True)]
    with tifffile.TiffWriter(path) as tif:
        if preview:
            small = np.full((mosaic.shape[0] // 4, mosaic.shape[1] // 4, 3), 200, np.uint8)
            tif.write(small, photometric="rgb", subfiletype=1, subifds=1, extratags=dng)
            tif.write(mosaic, photometric="cfa", subfiletype=0, extratags=cfa + dng)
        else:
            tif.write(mosaic, photometric="cfa", extratags=cfa + dng)


def channel_positions(pattern: str) -> dict:
    """name -> (row, column) in the 2 x 2 block: G1 is the green of the red row."""
    red_row = pattern.index("R") // 2
    out = {}
    for p, colour in enumerate(pattern):
        row, col = divmod(p, 2)
        out[colour if colour != "G" else ("G1" if row == red_row else "G2")] = (row, col)
    return out


def expected_camera_raw(mosaic: np.ndarray, pattern: str, black, white: int) -> dict:
    """The "camera_raw" object numpy computes from the mosaic: levels, maxima, clipping and
    under-exposure (more than 8 EV below white) per channel, and the blocks clipped (the keys
    numpy can know: not the sensor's bits, which the reader takes from the file's header)."""
    channels, clipped_blocks = {}, np.zeros((mosaic.shape[0] // 2, mosaic.shape[1] // 2), np.int64)
    for name, (row, col) in channel_positions(pattern).items():
        values, level = mosaic[row::2, col::2].astype(np.int64), int(black[row * 2 + col])
        channels[name] = {"black_level": level, "maximum": int(values.max()), "clipped": int((values >= white).sum()),
                          "underexposed": int(((values - level) * 256 < white - level).sum())}
        clipped_blocks += values >= white
    return {"pattern": pattern, "white_level": white,
            "channels": {name: channels[name] for name in CHANNELS}, "blocks": int(clipped_blocks.size),
            "clipped_any": int((clipped_blocks > 0).sum()), "clipped_all": int((clipped_blocks == 4).sum())}


def made_mosaic(rng: np.random.Generator, bits: int, shape=(48, 64)) -> np.ndarray:
    """Random values of `bits` bits, one 2 x 2 block at the top of the range (clipped in all)."""
    top = (1 << bits) - 1
    mosaic = rng.integers(0, top + 1, shape, dtype=np.uint16)
    mosaic[0:2, 0:2] = top
    return mosaic
