"""Camera raw files from Python: histogram_file, histogram_files and read(raw=True) give the
sensor's channels R, G1, B, G2 with the levels and clipping the imghist command reports.

DNG files are written with tifffile from mosaics of known values (dng_files.py): every Bayer
pattern, 12- and 14-bit values, a black level per position, with and without a preview first.
The counts and levels are checked against numpy over the mosaic, and every result against the
command line's JSON of the same file (IMGHIST_CLI), key for key.
"""

from __future__ import annotations

import json
import pickle
import subprocess

import numpy as np
import pytest

import imghist
from dng_files import CHANNELS, PATTERNS, XTRANS, channel_positions, expected_camera_raw, made_mosaic, write_dng

pytestmark = pytest.mark.usefixtures("file_reader")


@pytest.fixture(scope="module")
def raw_files(tmp_path_factory) -> list:
    """(path, mosaic, pattern, black, white) of 16 DNGs: each pattern, 12 and 14 bits, bare and
    with a preview; the white level below the largest value written, so that some samples clip."""
    folder, rng, made = tmp_path_factory.mktemp("raw"), np.random.default_rng(53), []
    for bits in (12, 14):
        for k, pattern in enumerate(PATTERNS):
            for preview in (False, True):
                mosaic = made_mosaic(rng, bits)
                white, black = (1 << bits) - 1 - 37 * (k + 1), [64 * bits + 16 * i for i in range(4)]
                path = folder / f"{pattern}_{bits}bit_{'preview' if preview else 'bare'}.dng"
                write_dng(path, mosaic, pattern, black, white, preview)
                made.append((str(path), mosaic, pattern, black, white))
    return made


def command_json(cli: str, *args: str) -> dict:
    run = subprocess.run([cli, "--format", "json", *args], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout}{run.stderr}"
    return json.loads(run.stdout)


def as_command_gives(entry: dict) -> dict:
    """A result of the command's JSON without what names the file and its decoder."""
    return {k: v for k, v in entry.items() if k not in ("file", "decoder")}


def test_each_sensor_channel_is_counted_as_numpy_counts_the_mosaic(raw_files):
    for path, mosaic, pattern, black, white in raw_files:
        h = imghist.histogram_file(path, bins=65536, range=(0, 65536))
        assert isinstance(h, imghist.CameraRawHistogram), path
        assert h.channels == CHANNELS and (h.width, h.height) == (mosaic.shape[1] // 2, mosaic.shape[0] // 2)
        for name, (row, col) in channel_positions(pattern).items():
            expected = np.bincount(mosaic[row::2, col::2].ravel(), minlength=65536)
            assert np.array_equal(h[name].counts, expected), (path, name)
            assert h[name].name == name and name in h
        assert [c.name for c in h] == list(CHANNELS)
        got = {k: v for k, v in h.camera_raw.items() if k in ("pattern", "white_level", "channels", "blocks",
                                                                 "clipped_any", "clipped_all")}
        assert got == expected_camera_raw(mosaic, pattern, black, white), path
        assert h.camera_raw["values"] == "as stored" and h.camera_raw["axis"] == "raw units"
        assert any("preview was not counted" in n for n in h.notes) == ("preview" in path), h.notes


@pytest.mark.parametrize("keywords, options", [
    ({}, []),
    ({"subtract_black": True}, ["--subtract-black"]),
    ({"ev_from_white": 3}, ["--ev-from-white", "3"]),
    ({"ev_from_white": 8, "subtract_black": True}, ["--ev-from-white", "8", "--subtract-black"]),
    ({"bins": 64, "range": (0, 16384), "mode": "luma"}, ["--bins", "64", "--range", "0:16384", "--mode", "luma"]),
])
def test_a_file_gives_what_the_command_line_gives(raw_files, command_line, keywords, options):
    paths = [f[0] for f in raw_files[::3]]
    cli = command_json(command_line, *options, *paths)
    for path, entry in zip(paths, cli["results"], strict=True):
        h = imghist.histogram_file(path, sample_stats=True, **keywords)  # the command gives them by default
        assert h.to_dict() == as_command_gives(entry), path
        assert imghist.CameraRawHistogram.from_dict(entry) == h
        again = pickle.loads(pickle.dumps(h))
        assert isinstance(again, imghist.CameraRawHistogram) and again.to_dict() == h.to_dict()


def test_histogram_files_gives_the_command_lines_results_and_sums(raw_files, command_line, tmp_path):
    # An RGBA image counted as R, G, B, A has the channels a raw file is held as: the sums stay apart.
    import tifffile

    rgba = tmp_path / "rgba16.tif"
    tifffile.imwrite(rgba, np.full((8, 8, 4), 1000, np.uint16), photometric="rgb", extrasamples=["unassalpha"])
    paths = [f[0] for f in raw_files[:4]] + [str(rgba)]
    options = dict(mode="rgb", alpha=True, bins=4096, range=(0, 65536), sample_stats=True)
    cli = command_json(command_line, "--sum", "--mode", "rgb", "--alpha", "--bins", "4096", "--range", "0:65536", *paths)
    run = imghist.histogram_files(paths, **options)
    files = list(run)
    for f, entry in zip(files[:4], cli["results"], strict=False):
        assert isinstance(f.histogram, imghist.CameraRawHistogram)
        assert f.histogram.to_dict() == as_command_gives(entry), f.path
    assert type(files[4].histogram) is imghist.Histogram and files[4].histogram.channels == ("R", "G", "B", "A")
    assert len(run.sums) == 2 == len(cli["sums"])
    raw_sum, image_sum = run.sums
    assert isinstance(raw_sum, imghist.CameraRawHistogram) and raw_sum.camera_raw is None
    assert type(image_sum) is imghist.Histogram
    assert raw_sum.to_dict()["histograms"] == cli["sums"][0]["histograms"]
    assert image_sum.to_dict()["histograms"] == cli["sums"][1]["histograms"]
    total = files[0].histogram + files[1].histogram + files[2].histogram + files[3].histogram
    assert isinstance(total, imghist.CameraRawHistogram) and total.camera_raw is None
    assert total.to_dict()["histograms"] == raw_sum.to_dict()["histograms"]
    with pytest.raises(imghist.MergeError, match="camera raw"):
        files[0].histogram + files[4].histogram


def test_dask_sums_raw_files_apart_as_histogram_files_does(raw_files, tmp_path):
    import tifffile

    import imghist.dask

    rgba = tmp_path / "rgba16.tif"
    tifffile.imwrite(rgba, np.full((8, 8, 4), 1000, np.uint16), photometric="rgb", extrasamples=["unassalpha"])
    paths = [str(rgba)] + [f[0] for f in raw_files[:5]]  # the image first: its sum starts the list
    options = dict(mode="rgb", alpha=True, bins=4096, range=(0, 65536))  # the same channels and bins
    local = imghist.histogram_files(paths, **options).run()
    spread = imghist.dask.histogram_files(paths, partition_size=2, **options)
    assert [type(s) for s in spread.sums] == [imghist.Histogram, imghist.CameraRawHistogram]
    assert [s.to_dict()["histograms"] for s in spread.sums] == [s.to_dict()["histograms"] for s in local.sums]


def test_read_raw_gives_the_blocks_and_the_levels(raw_files, command_line):
    for path, mosaic, pattern, black, white in raw_files[::5]:
        blocks, camera_raw = imghist.read(path, raw=True)
        assert blocks.dtype == np.uint16 and blocks.shape == (mosaic.shape[0] // 2, mosaic.shape[1] // 2, 4)
        for k, name in enumerate(CHANNELS):
            row, col = channel_positions(pattern)[name]
            assert np.array_equal(blocks[..., k], mosaic[row::2, col::2]), (path, name)
        assert camera_raw == command_json(command_line, path)["results"][0]["camera_raw"]
        less, _ = imghist.read(path, raw=True, subtract_black=True)
        levels = np.array([camera_raw["channels"][name]["black_level"] for name in CHANNELS])
        assert np.array_equal(less, np.maximum(blocks.astype(np.int64) - levels, 0)), path


def test_bad_keywords_and_files_get_one_clear_error(raw_files, tmp_path):
    path = raw_files[0][0]
    with pytest.raises(imghist.InvalidArgument, match="ev_from_white gives the bins"):
        imghist.histogram_file(path, ev_from_white=3, bins=64)
    with pytest.raises(imghist.InvalidArgument, match="ev_from_white gives the bins"):
        next(iter(imghist.histogram_files([path], ev_from_white=3, range=(0, 10))))
    for per_stop in (0, 257):
        with pytest.raises(imghist.InvalidArgument, match="from 1 to 256"):
            imghist.histogram_file(path, ev_from_white=per_stop)
    with pytest.raises(imghist.ReadError, match=r"raw=True"):
        imghist.read(path)
    with pytest.raises(imghist.InvalidArgument, match="raw=True"):
        imghist.read(path, subtract_black=True)
    png = tmp_path / "not_raw.pgm"
    png.write_bytes(b"P5 2 2 255\n\x00\x01\x02\x03")
    with pytest.raises(imghist.ReadError, match="not one"):
        imghist.read(png, raw=True)
    xtrans = tmp_path / "xtrans.dng"  # counted by the command line neither: one error saying why
    write_dng(xtrans, made_mosaic(np.random.default_rng(6), 12, (48, 72)), XTRANS, [256] * 4, 4095)
    with pytest.raises(imghist.ReadError, match=r"X-Trans sensor \(6 x 6 colour pattern\)"):
        imghist.histogram_file(xtrans)
    truncated = tmp_path / "truncated.dng"
    truncated.write_bytes(open(path, "rb").read()[:2000])
    outcomes = list(imghist.histogram_files([str(truncated), str(xtrans), path]))
    assert outcomes[0].histogram is None and outcomes[0].error
    assert outcomes[1].histogram is None and "X-Trans" in outcomes[1].error
    assert isinstance(outcomes[2].histogram, imghist.CameraRawHistogram)
