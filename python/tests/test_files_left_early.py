"""Leaving an imghist.histogram_files() loop early: break, return, Ctrl-C, del, with, exit.

Each case runs in a Python process of its own, since what went wrong was the interpreter
itself aborting at exit ("terminate called without an active exception", SIGABRT) while the
pipeline's thread was still inside the C++ pipeline, and nanobind reporting leaked instances.
The process must end as Python ends it (exit 0, or SIGINT for an uncaught Ctrl-C), with the
pipeline's thread gone and nothing leaked. tests/data/repro/python_iterator_abort.py is the
reviewer's own reproducer (tests/data/repro/README.md).
"""

from __future__ import annotations

import pathlib
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import imghist
from image_files import write_pnm

REPRO = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "repro" / "python_iterator_abort.py"

# The code each case's process starts with: the pipeline's thread, by its name.
PRELUDE = """
import gc, os, signal, sys, threading
import imghist
paths = sys.argv[1:]
def pipeline_threads():
    return [t for t in threading.enumerate() if t.name == "imghist.histogram_files"]
"""


pytestmark = pytest.mark.usefixtures("file_reader")


@pytest.fixture
def many_files(tmp_path) -> list:
    """More small PGM files than the pipeline holds at once, so it is mid-run when left."""
    rng = np.random.default_rng(5)
    paths = []
    for i in range(120):
        pixels = rng.integers(0, 256, (16, 24), dtype=np.uint8)
        path = tmp_path / f"f{i:03}.pgm"
        write_pnm(path, pixels)
        paths.append(str(path))
    return paths


def run_python(arguments: list, paths: list) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *arguments, *paths], capture_output=True, text=True, timeout=120)


def run_case(code: str, paths: list) -> subprocess.CompletedProcess:
    return run_python(["-c", PRELUDE + textwrap.dedent(code)], paths)


def assert_clean_exit(proc: subprocess.CompletedProcess, returncode: int = 0) -> None:
    assert proc.returncode == returncode, (proc.returncode, proc.stdout, proc.stderr)
    assert "terminate called" not in proc.stderr, proc.stderr
    assert "leaked" not in proc.stderr, proc.stderr  # nanobind's report of instances left alive


def test_the_reviewers_reproducer_leaves_the_loop_and_exits_cleanly(many_files):
    proc = run_python([str(REPRO)], many_files)
    assert_clean_exit(proc)
    assert proc.stdout.strip() == "left the loop after 2 files"


def test_return_from_the_loop_stops_the_pipeline(many_files):
    proc = run_case("""
        def first(paths):
            for f in imghist.histogram_files(paths, max_pending=1):
                return f
        f = first(paths)
        print(f.index, f.histogram.counts[0].sum(), len(pipeline_threads()))
    """, many_files)
    assert_clean_exit(proc)
    assert proc.stdout.split() == ["0", str(16 * 24), "0"]


def test_del_and_collect_stop_the_pipeline_and_free_its_histograms(many_files):
    proc = run_case("""
        run = imghist.histogram_files(paths, max_pending=1)
        next(run)
        del run
        gc.collect()
        print(len(pipeline_threads()))
    """, many_files)
    assert_clean_exit(proc)
    assert proc.stdout.split() == ["0"]


def test_a_with_block_closes_the_run(many_files):
    proc = run_case("""
        with imghist.histogram_files(paths, max_pending=1) as run:
            first = next(run)
        print(first.index, len(pipeline_threads()), list(run))
    """, many_files)
    assert_clean_exit(proc)
    assert proc.stdout.split() == ["0", "0", "[]"]


def test_a_run_left_open_at_exit_is_stopped(many_files):
    # A module global that is never closed: the interpreter stops its pipeline at exit.
    proc = run_case("""
        run = imghist.histogram_files(paths, max_pending=1)
        print(next(run).index)
    """, many_files)
    assert_clean_exit(proc)
    assert proc.stdout.split() == ["0"]


def test_ctrl_c_in_the_loop_stops_the_pipeline(many_files):
    caught = run_case("""
        try:
            for f in imghist.histogram_files(paths, max_pending=1):
                os.kill(os.getpid(), signal.SIGINT)
        except KeyboardInterrupt:
            print("interrupted at", f.index, len(pipeline_threads()))
    """, many_files)
    assert_clean_exit(caught)
    assert caught.stdout.split() == ["interrupted", "at", "0", "0"]
    # Not caught: Python ends itself with SIGINT, as for any Ctrl-C, not with SIGABRT.
    uncaught = run_case("""
        run = imghist.histogram_files(paths, max_pending=1)
        for f in run:
            os.kill(os.getpid(), signal.SIGINT)
    """, many_files)
    assert_clean_exit(uncaught, returncode=-signal.SIGINT)
    assert "KeyboardInterrupt" in uncaught.stderr
