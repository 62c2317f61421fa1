"""histogram_files() takes paths as the command line does: one path alone is a TypeError (its
characters are not paths), and a directory is walked by the command's own rule (docs/cli.md,
"Inputs"), checked here against a tree of known files, and against the imghist command's JSON
where it is built (IMGHIST_CLI)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import imghist
from image_files import write_png, write_pnm


@pytest.mark.parametrize("one_path", ["photo.png", b"photo.png", pathlib.Path("photo.png")],
                         ids=["str", "bytes", "PathLike"])
def test_one_path_alone_is_a_type_error(one_path):
    with pytest.raises(TypeError, match=r"give \[path\]"):
        imghist.histogram_files(one_path)


def _tree(root: pathlib.Path) -> dict:
    """A folder of images, a sidecar, files a walk does not read, a hidden image and a
    subfolder; an empty folder beside it. Returns {path: pixels} of the images a walk reads."""
    rng = np.random.default_rng(5)
    images = {}
    shots = root / "shots"
    (shots / "day2").mkdir(parents=True)
    (root / "empty").mkdir()
    for name, shape in [("b.png", (9, 7, 3)), ("a.ppm", (5, 11, 3)), ("day2/c.png", (6, 6, 3))]:
        pixels = rng.integers(0, 256, shape, dtype=np.uint8)
        (write_png if name.endswith(".png") else write_pnm)(shots / name, pixels)
        images[str(shots / name)] = pixels
    write_png(shots / ".hidden.png", rng.integers(0, 256, (3, 3, 3), dtype=np.uint8))
    (shots / "b.xmp").write_text("<x:xmpmeta/>")  # a sidecar: left out
    (shots / "notes.py").write_text("print()")    # not an image extension: an error
    (shots / "readme").write_text("hello")        # no extension: an error
    return images


def test_a_directory_is_walked_as_the_command_walks_it(tmp_path, file_reader):
    images = _tree(tmp_path)
    shots, empty = tmp_path / "shots", tmp_path / "empty"
    outcomes = list(run := imghist.histogram_files([shots, empty], backend="cpu"))

    failed = [(f.path, f.error) for f in outcomes if f.error is not None]
    assert [path for path, _ in failed] == [str(shots / "notes.py"), str(shots / "readme"), str(empty)]
    assert ".py is not an image extension" in failed[0][1]
    assert "no file extension" in failed[1][1]
    assert failed[2][1] == "directory holds no image files"
    counted = [f for f in outcomes if f.error is None]
    assert [f.path for f in counted] == [str(shots / "a.ppm"), str(shots / "b.png"), str(shots / "day2/c.png")]
    assert [f.index for f in outcomes] == list(range(6))
    assert (run.files, run.counted, run.failed) == (6, 3, 3)
    assert run.errors == failed

    expected = None
    for f in counted:  # each file's counts: the reference backend's, of the pixels that made it
        reference = imghist.histogram(images[f.path], backend="reference")
        np.testing.assert_array_equal(f.histogram.counts, reference.counts)
        expected = reference if expected is None else expected + reference
    np.testing.assert_array_equal(run.sum.counts, expected.counts)


def test_the_walk_finds_what_the_command_finds(tmp_path, file_reader):
    command = os.environ.get("IMGHIST_CLI")
    if not command:
        pytest.skip("IMGHIST_CLI is not set (scripts/python-test.sh sets it when the command is built)")
    _tree(tmp_path)
    inputs = [str(tmp_path / "shots"), str(tmp_path / "empty")]
    done = subprocess.run([command, "--format", "json", "--no-progress", "--backend", "cpu", *inputs],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr  # files that failed
    report = json.loads(done.stdout)
    run = imghist.histogram_files(inputs, backend="cpu")
    outcomes = list(run)
    assert [f.path for f in outcomes if f.error is None] == [r["file"] for r in report["results"]]
    assert run.errors == [(e["file"], e["error"]) for e in report["errors"]]


def test_dask_walks_a_directory_and_gives_its_files_the_directory_s_index(tmp_path, file_reader):
    dask = pytest.importorskip("dask")
    import imghist.dask

    images = _tree(tmp_path)
    single = tmp_path / "single.png"
    write_png(single, np.zeros((2, 2, 3), dtype=np.uint8))
    paths = [str(single), str(tmp_path / "shots")]
    with dask.config.set(scheduler="sync"):
        result = imghist.dask.histogram_files(paths, backend="cpu", per_file=True, partition_size=1)
        per_file = result.per_file.compute()
    local = imghist.histogram_files(paths, backend="cpu").run()
    assert result.errors == local.errors and result.counted == local.counted == 1 + len(images)
    np.testing.assert_array_equal(result.sum.counts, local.sum.counts)
    assert [(f.index, f.path) for f in per_file if f.error is None] == \
        [(0, str(single))] + [(1, path) for path in sorted(images)]
