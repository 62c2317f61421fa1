"""histogram_files(..., progress=True): a tqdm bar where tqdm is installed, else the command
line's progress line on stderr; a callable is still called with 1 per file."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import imghist
from image_files import write_png

pytestmark = pytest.mark.usefixtures("file_reader")


def _files(tmp_path, count: int) -> list:
    rng = np.random.default_rng(3)
    paths = []
    for i in range(count):
        path = tmp_path / f"f{i}.png"
        write_png(path, rng.integers(0, 256, (4, 5, 3), dtype=np.uint8))
        paths.append(str(path))
    return paths + [str(tmp_path / "missing.png")]


def test_without_tqdm_the_command_s_progress_lines_go_to_stderr(tmp_path):
    paths = _files(tmp_path, 2)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(f"""
        import sys
        sys.modules["tqdm"] = None  # as if not installed
        import imghist
        run = imghist.histogram_files({paths!r}, backend="cpu", progress=True).run()
        print(run.counted, run.failed)
        """)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "1"]
    lines = done.stderr.splitlines()
    # stderr is a pipe, not a terminal: the first file's line at once, then (within a second) the summary
    assert re.fullmatch(r"\[1/3 33%\]  \S+ files/s  \S+ MB/s  (0 errors|1 error)  ETA \S+  \S+", lines[0]), lines
    assert re.fullmatch(r"imghist: 3 files in [0-9.]+ s \(\S+ files/s, \S+ MB/s\), 1 error", lines[-1]), lines
    assert "\r" not in done.stderr and "\x1b" not in done.stderr


def test_with_tqdm_a_bar_counts_the_files(tmp_path, capsys):
    pytest.importorskip("tqdm")
    paths = _files(tmp_path, 3)
    run = imghist.histogram_files(paths, backend="cpu", progress=True).run()
    assert (run.counted, run.failed) == (3, 1)
    bar = capsys.readouterr().err
    assert "4/4" in bar and "file/s" in bar and "errors=1" in bar


def test_a_run_closed_early_closes_its_bar(tmp_path, capsys):
    tqdm = pytest.importorskip("tqdm")
    paths = _files(tmp_path, 3)
    with imghist.histogram_files(paths, backend="cpu", progress=True) as run:
        next(run)
    assert not [bar for bar in getattr(tqdm.tqdm, "_instances", ()) if bar.desc == "imghist"]


def test_progress_refuses_what_it_cannot_call(tmp_path):
    with pytest.raises(TypeError, match="progress must be"):
        imghist.histogram_files(_files(tmp_path, 1), backend="cpu", progress="yes")
