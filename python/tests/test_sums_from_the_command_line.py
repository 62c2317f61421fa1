"""Sums of files as Histograms: the command line's JSON "sums" and histogram_files()' sums.

A sum has no size (its files' sizes differ): Histogram.from_dict() reads the command line's own
sum entries ("formats" and "pixels" where a result has "width", "height" and "format"), and a
sum's repr says "sum of <format>" rather than a size of 0x0. The counts are checked against the
reference backend's histograms of the pixels that made the files, added here.
"""

from __future__ import annotations

import json
import os
import subprocess

import numpy as np
import pytest

import imghist
from image_files import write_pfm, write_pnm

pytestmark = pytest.mark.usefixtures("file_reader")


def files_of_three_layouts(tmp_path) -> list:
    """(path, pixels) of 8-bit RGB, 16-bit RGB and float RGB files; two of each, sizes differing."""
    rng = np.random.default_rng(17)
    files = []
    for i, (height, width) in enumerate([(7, 11), (13, 5)]):
        for kind, write, make in [
            ("rgb8", write_pnm, lambda s: rng.integers(0, 256, s, dtype=np.uint8)),
            ("rgb16", write_pnm, lambda s: rng.integers(0, 65536, s, dtype=np.uint16)),
            ("rgb_f32", write_pfm, lambda s: rng.uniform(-0.5, 2.0, s).astype(np.float32)),
        ]:
            pixels = make((height, width, 3))
            path = tmp_path / f"{kind}_{i}.{'pfm' if kind == 'rgb_f32' else 'ppm'}"
            write(path, pixels)
            files.append((str(path), pixels))
    return files


def expected_counts(files, names) -> np.ndarray:
    """The reference backend's counts of the named files, added."""
    pixels = dict(files)
    return sum(imghist.histogram(pixels[name], backend="reference", extremes=pixels[name].dtype == np.float32).counts
               for name in names)


def test_from_dict_reads_the_command_lines_sums(tmp_path):
    cli = os.environ.get("IMGHIST_CLI")
    if not cli:
        pytest.skip("IMGHIST_CLI is not set (scripts/python-test.sh sets it when the command is built)")
    files = files_of_three_layouts(tmp_path)
    out = subprocess.run([cli, "--backend", "cpu", "--format", "json", "--sum", *(p for p, _ in files)],
                         check=True, capture_output=True, text=True).stdout
    doc = json.loads(out)
    assert doc["errors"] == [] and len(doc["sums"]) == 3
    for entry, fmt in zip(doc["sums"], ["rgb8", "rgb16", "rgb_f32"]):
        h = imghist.Histogram.from_dict(entry)
        assert (h.format, h.width, h.height, h.channels) == (fmt, 0, 0, ("R", "G", "B", "Y"))
        np.testing.assert_array_equal(h.counts, expected_counts(files, entry["files"]))
        if fmt == "rgb_f32":  # the value extremes come back too
            finite_min = min(float(p[..., 0].min()) for _, p in files if p.dtype == np.float32)
            assert h["R"].finite_min == finite_min
        assert repr(h).startswith(f"<imghist.Histogram sum of {fmt} channels=R,G,B,Y "), repr(h)
        assert imghist.Histogram.from_dict(h.to_dict()) == h


def test_a_sum_of_histogram_files_says_it_is_a_sum(tmp_path):
    files = files_of_three_layouts(tmp_path)
    run = imghist.histogram_files([p for p, _ in files], backend="cpu").run()
    assert [s.format for s in run.sums] == ["rgb8", "rgb16", "rgb_f32"]
    for s in run.sums:
        names = [p for p, _ in files if p.rsplit("/", 1)[-1].startswith(s.format + "_")]
        np.testing.assert_array_equal(s.counts, expected_counts(files, names))
        assert repr(s).startswith(f"<imghist.Histogram sum of {s.format} channels=R,G,B,Y "), repr(s)
        assert "0x0" not in repr(s) and "region=" not in repr(s)
    # A single file's repr keeps its size.
    one = imghist.histogram_file(files[0][0], backend="cpu")
    assert repr(one).startswith("<imghist.Histogram rgb8 11x7 channels=R,G,B,Y "), repr(one)
