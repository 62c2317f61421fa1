"""Camera raw files through the imghist command, against numpy and rawpy (ctest CameraRaw.*).

DNG files are written here with tifffile, from mosaics of known values: every Bayer pattern,
12- and 14-bit values, a different black level for each position, with and without an
embedded preview first. Each file's counts per CFA channel are compared bit for bit with
numpy over the known mosaic, and its levels and clipping with numpy too; rawpy (LibRaw's
Python binding) decodes the same files independently, and must see the same mosaic, colours
and levels. Then bad files (truncated, absurd dimensions, black above white) beside a good
one: one error each, and the good one still counted; the absurd size also without a pixel limit.

Usage: camera_raw_check.py IMGHIST SCRATCH_DIR. Missing numpy, tifffile, rawpy or PIL is a failure.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys

import numpy as np
import rawpy
import tifffile
from PIL import Image

CFA_CODE = {"R": 0, "G": 1, "B": 2}
PATTERNS = ("RGGB", "BGGR", "GRBG", "GBRG")
# LibRaw's colour index of each channel imghist reports (rawpy.raw_colors uses the same).
CHANNELS = {"R": 0, "G1": 1, "B": 2, "G2": 3}


def dng_tags(black, white):
    return [
        (50706, "B", 4, (1, 4, 0, 0), True),  # DNGVersion
        (50708, "s", 0, "imghist test camera", True),  # UniqueCameraModel
        (50713, "H", 2, (2, 2), True),  # BlackLevelRepeatDim
        (50714, "I", 4, tuple(int(b) for b in black), True),  # BlackLevel, row by row
        (50717, "I", 1, (int(white),), True),  # WhiteLevel
    ]


def cfa_tags(pattern):
    return [(33421, "H", 2, (2, 2), True), (33422, "B", 4, tuple(CFA_CODE[c] for c in pattern), True)]


def write_dng(path, mosaic, pattern, black, white, preview=False):
    """A DNG of `mosaic` (uint16, rows x columns); `black` per 2 x 2 position, row by row."""
    with tifffile.TiffWriter(path) as tif:
        if preview:  # a small RGB image first, the mosaic in its sub-IFD (as cameras write)
            small = np.full((mosaic.shape[0] // 4, mosaic.shape[1] // 4, 3), 200, np.uint8)
            tif.write(small, photometric="rgb", subfiletype=1, subifds=1, extratags=dng_tags(black, white))
            tif.write(mosaic, photometric="cfa", subfiletype=0, extratags=cfa_tags(pattern) + dng_tags(black, white))
        else:
            tif.write(mosaic, photometric="cfa", extratags=cfa_tags(pattern) + dng_tags(black, white))


def channel_positions(pattern):
    """(row, column) of each channel in the 2 x 2 block: G1 is the green of the red row."""
    at = {(p // 2, p % 2): colour for p, colour in enumerate(pattern)}
    red_row = next(pos[0] for pos, colour in at.items() if colour == "R")
    out = {}
    for pos, colour in at.items():
        out[colour if colour != "G" else ("G1" if pos[0] == red_row else "G2")] = pos
    return out


def run(imghist, args):
    return subprocess.run([imghist, *args], capture_output=True, text=True, timeout=120)


def counted(imghist, path):
    r = run(imghist, ["--format", "json", "--bins", "65536", "--range", "0:65536", path])
    assert r.returncode == 0, f"{path}: exit {r.returncode}\n{r.stdout}{r.stderr}"
    results = json.loads(r.stdout)["results"]
    assert len(results) == 1, r.stdout
    return results[0]


def check_file(imghist, path, mosaic, pattern, black, white, preview):
    result = counted(imghist, path)
    where = f"{os.path.basename(path)}"
    raw = result["camera_raw"]
    assert raw["pattern"] == pattern, (where, raw["pattern"])
    assert raw["white_level"] == white, (where, raw)
    assert result["width"] == mosaic.shape[1] // 2 and result["height"] == mosaic.shape[0] // 2, where
    positions = channel_positions(pattern)
    clipped_blocks = np.zeros((mosaic.shape[0] // 2, mosaic.shape[1] // 2), np.int64)
    for name, (row, col) in positions.items():
        values = mosaic[row::2, col::2]
        expected = np.bincount(values.ravel(), minlength=65536)
        got = np.asarray(result["histograms"][name]["counts"], dtype=np.int64)
        assert np.array_equal(got, expected), f"{where}: channel {name} counts differ from numpy"
        info = raw["channels"][name]
        assert info["black_level"] == black[row * 2 + col], (where, name, info)
        assert info["maximum"] == int(values.max()), (where, name, info)
        assert info["clipped"] == int((values >= white).sum()), (where, name, info)
        above_black = values.astype(np.int64) - black[row * 2 + col]
        assert info["underexposed"] == int((above_black * 256 < white - black[row * 2 + col]).sum()), (where, name)
        clipped_blocks += values >= white
    assert raw["clipped_any"] == int((clipped_blocks > 0).sum()), (where, raw)
    assert raw["clipped_all"] == int((clipped_blocks == 4).sum()), (where, raw)
    assert any("preview was not counted" in n for n in result["notes"]) == preview, (where, result["notes"])
    # rawpy decodes the same file on its own: the same mosaic, colours and levels.
    with rawpy.imread(path) as r:
        assert np.array_equal(r.raw_image_visible, mosaic), f"{where}: rawpy sees another mosaic"
        assert r.white_level == white, (where, r.white_level)
        for name, (row, col) in positions.items():
            colour = int(r.raw_colors_visible[row, col])
            assert colour == CHANNELS[name], (where, name, colour)
            assert r.black_level_per_channel[colour] == raw["channels"][name]["black_level"], (where, name)


def good_files(scratch):
    rng = np.random.default_rng(53)
    made = []
    for bits in (12, 14):
        top = (1 << bits) - 1
        for k, pattern in enumerate(PATTERNS):
            for preview in (False, True):
                mosaic = rng.integers(0, top + 1, (48, 64), dtype=np.uint16)
                mosaic[0:2, 0:2] = top  # one block clipped in every channel
                white = top - 37 * (k + 1)  # a white level below the largest value written
                black = [64 * bits + 16 * i for i in range(4)]
                path = os.path.join(scratch, f"{pattern}_{bits}bit_{'preview' if preview else 'bare'}.dng")
                write_dng(path, mosaic, pattern, black, white, preview)
                made.append((path, mosaic, pattern, black, white, preview))
    return made


def tag_value_offset(path, name):
    with tifffile.TiffFile(path) as tif:
        return tif.pages[0].tags[name].valueoffset


def ev_from_white_expected(values, black, white, per_stop):
    """numpy's EV histogram of one channel: log2((v - black) / (white - black)) in bins of
    1/per_stop stop over [-16, 0); (counts, below, above)."""
    above_black = values.astype(np.int64).ravel() - black
    inside = (above_black > 0) & (above_black < white - black)
    ev = np.log2(above_black[inside] / (white - black))
    bins = np.floor((ev + 16) * per_stop).astype(np.int64)
    counts = np.bincount(bins, minlength=16 * per_stop)
    return counts, int((above_black <= 0).sum()), int((above_black >= white - black).sum())


def boundary_mosaic(black, span):
    """A 14-bit mosaic holding each whole stop below white exactly (black + span / 2^j) and its
    neighbours, where a rounding of the edges would move samples to the next bin."""
    values = [black - 1, black, black + 1, black + span - 1, black + span, black + span + 1]
    for j in range(1, 13):
        values += [black + (span >> j) + d for d in (-1, 0, 1)]
    flat = np.resize(np.asarray(values, np.uint16), 48 * 64)
    return flat.reshape(48, 64)


def check_ev_from_white(imghist, scratch, made):
    """--ev-from-white N: each channel against numpy's log2 of the known mosaic; files with
    different levels add up on the one axis; other options' bins are refused."""
    black, span = 512, 4096  # whole stops below white land on whole numbers
    mosaic = boundary_mosaic(black, span)
    exact = os.path.join(scratch, "ev_boundaries.dng")
    write_dng(exact, mosaic, "GRBG", [black] * 4, black + span)
    cases = [(exact, mosaic, "GRBG", [black] * 4, black + span)] + [m[:5] for m in made[::5]]
    for per_stop in (1, 3, 8):
        for subtract in ([], ["--subtract-black"]):
            r = run(imghist, ["--format", "json", "--ev-from-white", str(per_stop), *subtract, *[c[0] for c in cases]])
            assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}{r.stderr}"
            for result, (path, values, pattern, blacks, white) in zip(json.loads(r.stdout)["results"], cases, strict=True):
                assert result["camera_raw"]["axis"] == "EV below white", result["camera_raw"]
                for name, (row, col) in channel_positions(pattern).items():
                    got = result["histograms"][name]
                    counts, below, above = ev_from_white_expected(values[row::2, col::2], blacks[row * 2 + col], white, per_stop)
                    where = f"{os.path.basename(path)} {name} --ev-from-white {per_stop} {subtract}"
                    assert np.array_equal(np.asarray(got["counts"]), counts), where
                    assert (got["below"], got["above"]) == (below, above), (where, got["below"], got["above"], below, above)
                    assert got["edges"][0] == -16 and got["edges"][-1] == 0 and len(got["edges"]) == 16 * per_stop + 1
    # Two files of different levels add up on the one axis, bin by bin.
    two = [cases[1][0], cases[2][0]]
    r = run(imghist, ["--format", "json", "--sum-only", "--ev-from-white", "3", *two])
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}{r.stderr}"
    summed = json.loads(r.stdout)["sums"][0]["histograms"]
    alone = [json.loads(run(imghist, ["--format", "json", "--ev-from-white", "3", p]).stdout)["results"][0] for p in two]
    for name in CHANNELS:
        assert summed[name]["counts"] == [a + b for a, b in zip(*(x["histograms"][name]["counts"] for x in alone))], name
    # imghist merge reads the EV axis back as EV, not as 16-bit values: a file merged with itself
    # has its own bin statistics in EV (numpy's mean of the bins' middles), not whole numbers.
    report = os.path.join(scratch, "ev_alone.json")
    with open(report, "w") as f:
        f.write(run(imghist, ["--format", "json", "--ev-from-white", "3", two[0]]).stdout)
    r = run(imghist, ["merge", "--format", "json", report, report])
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}{r.stderr}"
    merged = json.loads(r.stdout)["sums"][0]["histograms"]
    for name in CHANNELS:
        got = merged[name]
        middles = (np.asarray(got["edges"][:-1]) + np.asarray(got["edges"][1:])) / 2
        binned = np.asarray(got["counts"], dtype=np.float64)
        expected = float((binned * middles).sum() / binned.sum())
        assert abs(got["stats"]["mean_value"] - expected) < 1e-9, (name, got["stats"]["mean_value"], expected)
        assert got["stats"]["mean_value"] == alone[0]["histograms"][name]["stats"]["mean_value"], name
    r = run(imghist, ["--ev-from-white", "3", "--bins", "64", exact])
    assert r.returncode == 2 and "--ev-from-white" in r.stderr, (r.returncode, r.stderr)
    r = run(imghist, ["--ev-from-white", "0", exact])
    assert r.returncode == 2, (r.returncode, r.stderr)


def check_sums_and_csv(imghist, scratch, made):
    """Sums of raw files keep the channels' names and stay apart from an rgba16 image of the same
    bins; imghist merge reads them back; CSV names the channels and gives the sensor's rows."""
    rgba = os.path.join(scratch, "rgba16.tif")
    tifffile.imwrite(rgba, np.full((8, 8, 4), 1000, np.uint16), photometric="rgb", extrasamples=["unassalpha"])
    raws = [made[0][0], made[3][0]]
    # --mode rgb --alpha: the image's channels are R, G, B, A, as a raw file's are held.
    r = run(imghist, ["--format", "json", "--sum", "--mode", "rgb", "--alpha", *raws, rgba])
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}{r.stderr}"
    report = json.loads(r.stdout)
    sums = {tuple(s["histograms"]): s for s in report["sums"]}
    assert set(sums) == {("R", "G1", "B", "G2"), ("R", "G", "B", "A")}, list(sums)
    assert [os.path.basename(f) for f in sums[("R", "G1", "B", "G2")]["files"]] == [os.path.basename(p) for p in raws]
    results = report["results"][:2]
    for name in CHANNELS:
        expected = [a + b for a, b in zip(*(x["histograms"][name]["counts"] for x in results))]
        assert sums[("R", "G1", "B", "G2")]["histograms"][name]["counts"] == expected, name
    saved = os.path.join(scratch, "raw_report.json")
    open(saved, "w").write(r.stdout)
    r = run(imghist, ["merge", "--format", "json", saved])  # refused "unknown channel G1" before
    assert r.returncode == 0, f"merge: exit {r.returncode}\n{r.stdout}{r.stderr}"
    merged = {tuple(s["histograms"]): s for s in json.loads(r.stdout)["sums"]}
    assert merged[("R", "G1", "B", "G2")]["histograms"] == sums[("R", "G1", "B", "G2")]["histograms"]
    # CSV: the channels by name, and per channel the levels, maximum, clipping and under-exposure.
    path, mosaic, pattern, black, white, _ = made[1]
    r = run(imghist, ["--format", "csv", path])
    assert r.returncode == 0, f"csv: exit {r.returncode}\n{r.stderr}"
    rows = {(row["channel"], row["kind"]): row for row in csv.DictReader(io.StringIO(r.stdout)) if row["kind"] != "bin"}
    blocks = (mosaic.shape[0] // 2) * (mosaic.shape[1] // 2)
    clipped_blocks = np.zeros((mosaic.shape[0] // 2, mosaic.shape[1] // 2), np.int64)
    for name, (row, col) in channel_positions(pattern).items():
        values, b = mosaic[row::2, col::2].astype(np.int64), black[row * 2 + col]
        clipped_blocks += values >= white
        expected = {"black_level": (b, b, blocks), "white_level": (white, white, blocks),
                    "maximum": (values.max(), values.max(), blocks), "clipped": (white, float("inf"), (values >= white).sum()),
                    "underexposed": (float("-inf"), b + (white - b) / 256, ((values - b) * 256 < white - b).sum())}
        for kind, (lo, hi, count) in expected.items():
            got = rows[(name, kind)]
            assert (float(got["lo"]), float(got["hi"]), int(got["count"])) == (lo, hi, count), (name, kind, got)
        assert rows[(name, "below")]["format"] == "camera-raw-rgba16", rows[(name, "below")]
    assert int(rows[("any", "clipped_blocks")]["count"]) == int((clipped_blocks > 0).sum())
    assert int(rows[("all", "clipped_blocks")]["count"]) == int((clipped_blocks == 4).sum())


def mark_pixels(png, at, first, last):
    """Pixels of the level marks' colour in the chart's column at axis value `at` (an axis from
    `first` to `last`), over the plot's height; the chart's frame is that of plot_draw.hpp."""
    left, width, top, bottom, scale = 76, 960 - 76 - 30, 84, 540 - 104, 2
    x = round(left + width * (at - first) / (last - first))
    pixels = np.asarray(Image.open(png).convert("RGB"), np.int64)[top * scale : bottom * scale, scale * x - 1 : scale * x + 4]
    mark = np.array([204, 128, 255])  # kLevelMark
    return int((np.abs(pixels - mark).max(axis=2) < 40).sum())


def check_level_marks(imghist, scratch):
    """The chart of a raw file marks each channel's black level and the white level on raw
    units, and the white level and 8 EV below it on the EV axis from white; nothing elsewhere."""
    mosaic = np.random.default_rng(4).integers(400, 4096, (64, 96), dtype=np.uint16)
    path = os.path.join(scratch, "levels.dng")
    write_dng(path, mosaic, "RGGB", [512, 512, 528, 512], 4000)  # G2 (row 1, column 1) darker
    raw_units, ev_axis = os.path.join(scratch, "levels.png"), os.path.join(scratch, "levels_ev.png")
    for args in (["--bins", "4096", "--range", "0:4096", "--plot", raw_units], ["--ev-from-white", "8", "--plot", ev_axis]):
        r = run(imghist, [*args, path])
        assert r.returncode == 0, f"{args}: exit {r.returncode}\n{r.stderr}"
    for png, first, last, marked, unmarked in ((raw_units, 0, 4096, (512.5, 528.5, 4000.5), (2000.5, 3000.5)),
                                               (ev_axis, -16, 0, (-8, 0), (-12, -4))):
        for at in marked:
            assert mark_pixels(png, at, first, last) > 100, (png, at, mark_pixels(png, at, first, last))
        for at in unmarked:
            assert mark_pixels(png, at, first, last) == 0, (png, at, mark_pixels(png, at, first, last))


def check_table_shares(imghist, made):
    """The table's share columns of a raw file say what they count: the 16-bit container's
    ends (0 and 65535), not the camera's clipping at its white level, and hold numpy's shares."""
    path, mosaic, pattern, _, white, _ = made[0]
    r = run(imghist, [path])
    assert r.returncode == 0, r.stderr
    assert "clip = share" not in r.stdout and "not the camera's clipping" in r.stdout, r.stdout
    for name, (row, col) in channel_positions(pattern).items():
        values = mosaic[row::2, col::2]
        line = next(x for x in r.stdout.splitlines() if x.split()[:1] == [name] and "%" in x)
        at_zero, at_top = line.split()[-2:]
        share = 100 * (values == 0).mean()
        assert (at_zero == "0%") if share == 0 else abs(float(at_zero.strip("<%")) - share) <= 0.01, (name, line)
        assert at_top == "0%" and int((values >= white).sum()) > 0, (name, line)


def bad_files(scratch):
    """(file, what its error must say)."""
    mosaic = np.full((32, 32), 1000, np.uint16)
    whole = os.path.join(scratch, "whole.dng")
    write_dng(whole, mosaic, "RGGB", [64] * 4, 4000)
    data = open(whole, "rb").read()
    truncated = os.path.join(scratch, "truncated.dng")
    with tifffile.TiffFile(whole) as tif:  # cut inside the mosaic's data
        cut = tif.pages[0].dataoffsets[0] + 600
    open(truncated, "wb").write(data[:cut])
    huge = os.path.join(scratch, "absurd_dimensions.dng")
    patched = bytearray(data)
    for name in ("ImageWidth", "ImageLength"):
        at = tag_value_offset(whole, name)
        patched[at : at + 4] = (60000).to_bytes(4, "little") if patched[:2] == b"II" else (60000).to_bytes(4, "big")
    open(huge, "wb").write(bytes(patched))
    dark = os.path.join(scratch, "black_above_white.dng")
    write_dng(dark, mosaic, "RGGB", [64, 64, 5000, 64], 4000)
    return [(truncated, "LibRaw cannot decode"), (huge, "exceeds the limit"), (dark, "not below its white level")]


def main():
    imghist, scratch = sys.argv[1], sys.argv[2]
    os.makedirs(scratch, exist_ok=True)
    made = good_files(scratch)
    for path, mosaic, pattern, black, white, preview in made:
        check_file(imghist, path, mosaic, pattern, black, white, preview)
    print(f"camera raw: {len(made)} DNGs counted per CFA channel as numpy and rawpy read them")
    # --subtract-black: each value less its channel's black level, 0 at or below it.
    path, mosaic, pattern, black, white, _ = made[-1]
    r = run(imghist, ["--format", "json", "--subtract-black", "--bins", "65536", "--range", "0:65536", path])
    result = json.loads(r.stdout)["results"][0]
    assert result["camera_raw"]["values"] == "black subtracted", result["camera_raw"]
    for name, (row, col) in channel_positions(pattern).items():
        less_black = np.maximum(mosaic[row::2, col::2].astype(np.int64) - black[row * 2 + col], 0)
        expected = np.bincount(less_black.ravel(), minlength=65536)
        assert np.array_equal(np.asarray(result["histograms"][name]["counts"]), expected), f"--subtract-black {name}"
    check_ev_from_white(imghist, scratch, made)
    print("camera raw: --ev-from-white counted as numpy's log2 of the mosaics")
    check_sums_and_csv(imghist, scratch, made)
    print("camera raw: sums, imghist merge and CSV name the channels R, G1, B, G2; CSV has the sensor's rows")
    check_level_marks(imghist, scratch)
    print("camera raw: the charts mark the black and white levels")
    check_table_shares(imghist, made)
    print("camera raw: the table's share columns are the container's ends, not the white level")
    bad = bad_files(scratch)
    good = made[0][0]
    r = run(imghist, ["--format", "json", *[b for b, _ in bad], good])
    assert r.returncode == 1, f"exit {r.returncode}\n{r.stdout}{r.stderr}"
    report = json.loads(r.stdout)
    errors = {os.path.basename(e["file"]): e["error"] for e in report["errors"]}
    for path, says in bad:
        name = os.path.basename(path)
        assert name in errors and says in errors[name], (name, errors)
    assert len(errors) == len(bad), errors
    assert [os.path.basename(x["file"]) for x in report["results"]] == [os.path.basename(good)], report["results"]
    print("camera raw: " + "; ".join(f"{k}: {v}" for k, v in errors.items()))
    # With no pixel limit the absurd size reaches LibRaw, which refuses it without allocating it.
    r = run(imghist, ["--max-pixels", "0", bad[1][0]])
    assert r.returncode == 1 and "LibRaw cannot decode" in r.stderr, f"exit {r.returncode}\n{r.stderr}"


if __name__ == "__main__":
    main()
