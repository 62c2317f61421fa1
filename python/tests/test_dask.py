"""imghist.dask.histogram_files() on a LocalCluster of two worker processes.

A few hundred real files (JPEGs and PNGs written by Pillow, a scikit-image dependency) with bad
ones among them: truncated JPEGs and PNGs, files that are no image, missing paths and 2-channel
TIFFs (refused: imghist reads no 2-channel layout but gray + alpha). Gray + alpha PNGs are
counted as gray (docs/cli.md, "Reading policy"), so the dataset has two kinds of sums. Whatever
Dask does (partitions, a worker killed mid-run), the sums must equal one process's
imghist.histogram_files() bit for bit and the errors must be exactly the bad files. A folder of
8-bit, 16-bit and float files gives the same sample statistics through Dask as in one process,
whatever the order of the files and partitions.

Dask and distributed are test dependencies (pyproject.toml's test extra): these tests never skip.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
from PIL import Image

import distributed
import imghist
import imghist.dask
from image_files import write_pfm, write_png
from test_sample_stats import expected, sqrt_rounded

GOOD, BAD_EVERY = 300, 6  # every 6th file is bad or odd: 50 of them


def _write(path, kind: str, rng) -> bool:
    """Writes a file of `kind`; returns whether imghist should count it."""
    height, width = int(rng.integers(24, 96)), int(rng.integers(24, 128))
    rgb = rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
    if kind in ("jpeg", "truncated jpeg"):
        Image.fromarray(rgb).save(path, format="JPEG", quality=90)
    elif kind in ("png", "truncated png"):
        Image.fromarray(rgb).save(path, format="PNG")
    elif kind == "gray+alpha png":
        Image.fromarray(rgb[..., :2].copy(), "LA").save(path, format="PNG")
    elif kind == "2-channel tiff":
        import tifffile  # a scikit-image dependency

        tifffile.imwrite(path, rgb[..., :2].copy(), photometric="minisblack", planarconfig="contig")
    elif kind == "not an image":
        path.write_text("these are not the pixels you are looking for\n")
    if kind.startswith("truncated"):
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    return kind in ("jpeg", "png", "gray+alpha png")


ODD_KINDS = ["truncated jpeg", "truncated png", "not an image", "missing", "2-channel tiff", "gray+alpha png"]
SUFFIX = {"jpeg": ".jpg", "truncated jpeg": ".jpg", "not an image": ".jpg", "2-channel tiff": ".tif"}


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """(paths, bad paths): GOOD files, every BAD_EVERY-th of them bad or odd, in a fixed order."""
    if not imghist.has_file_reader:
        pytest.fail("imghist.dask needs imghist.histogram_files, which needs the file reader (OpenImageIO)")
    folder = tmp_path_factory.mktemp("dask-dataset")
    rng = np.random.default_rng(16)
    paths, bad = [], []
    for i in range(GOOD):
        kind = ODD_KINDS[(i // BAD_EVERY) % len(ODD_KINDS)] if i % BAD_EVERY == 3 else ("jpeg", "png")[i % 2]
        path = folder / f"f{i:04d}{SUFFIX.get(kind, '.png')}"
        counted = kind != "missing" and _write(path, kind, rng)
        if not counted:
            bad.append(str(path))
        paths.append(str(path))
    return paths, bad


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.ERROR) as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def one_process(dataset):
    """The single-process pipeline's outcome: what every Dask run must equal."""
    paths, _ = dataset
    files = list(imghist.histogram_files(paths, backend="cpu"))
    run = imghist.histogram_files(paths, backend="cpu").run()
    return run, files


def _assert_same_outcome(result, run, bad):
    assert [path for path, _ in result.errors] == bad
    assert result.errors == run.errors  # the same messages too
    assert (result.files, result.counted, result.failed, result.bytes) == (run.files, run.counted, run.failed,
                                                                           run.bytes)
    assert [s.channels for s in result.sums] == [("R", "G", "B", "Y"), ("gray",)]
    assert len(result.sums) == len(run.sums)
    for dask_sum, one_sum in zip(result.sums, run.sums):
        assert dask_sum.counts.dtype == np.uint64
        assert dask_sum.counts.tobytes() == one_sum.counts.tobytes()  # bit for bit
        assert dask_sum == one_sum


def test_sums_and_errors_equal_one_process(client, dataset, one_process):
    paths, bad = dataset
    run, files = one_process
    # client=None: the cluster's Client is the default one.
    result = imghist.dask.histogram_files(paths, partition_size=16, backend="cpu", per_file=True)
    assert result.partitions == -(-len(paths) // 16)
    _assert_same_outcome(result, run, bad)
    with pytest.raises(ValueError, match="2 kinds"):
        result.sum
    per_file = result.per_file.compute()
    assert [(f.index, f.path, f.error, f.bytes) for f in per_file] == [(f.index, f.path, f.error, f.bytes)
                                                                        for f in files]
    for mine, theirs in zip(per_file, files):
        assert (mine.histogram is None) == (theirs.histogram is None)
        if mine.histogram is not None:
            assert mine.histogram.counts.tobytes() == theirs.histogram.counts.tobytes()


def test_request_keywords_are_those_of_histogram_files(client, dataset):
    paths, bad = dataset
    good = [p for p in paths if p not in bad and p.endswith(".jpg")]
    result = imghist.dask.histogram_files(good, client=client, partition_size=7, mode="luma", bins=16)
    want = imghist.histogram_files(good, mode="luma", bins=16).run()
    assert result.sum.channels == ("Y",) and result.sum.bins == 16
    assert result.sum.counts.tobytes() == want.sum.counts.tobytes()
    assert result.errors == []
    with pytest.raises(TypeError, match="modes"):
        imghist.dask.histogram_files(paths, client=client, modes="luma")
    with pytest.raises(TypeError, match="engine"):
        imghist.dask.histogram_files(paths, client=client, engine=imghist.Engine("cpu"))
    with pytest.raises(imghist.InvalidArgument, match="mode"):  # checked on a worker, before any file
        imghist.dask.histogram_files(paths, client=client, mode="lightness")
    with pytest.raises(imghist.InvalidArgument, match="partition_size"):
        imghist.dask.histogram_files(paths, client=client, partition_size=0)
    empty = imghist.dask.histogram_files([], client=client)
    assert (empty.sum, empty.errors, empty.files, empty.partitions) == (None, [], 0, 0)


def test_a_worker_killed_mid_run_changes_nothing(client, dataset, one_process):
    paths, bad = dataset
    run, _ = one_process
    before = set(client.scheduler_info()["workers"])
    victim = sorted(before)[0]
    victim_pid = client.run(os.getpid, workers=[victim])[victim]
    # Four times the dataset in small partitions: enough tasks to still be running at the kill.
    many = paths * 4
    result = {}

    def count():
        result["outcome"] = imghist.dask.histogram_files(many, client=client, partition_size=6, backend="cpu")

    counting = threading.Thread(target=count)
    counting.start()
    deadline = time.monotonic() + 30
    while not client.processing(workers=[victim]).get(victim):  # a task of the run is on the victim
        assert time.monotonic() < deadline and counting.is_alive(), "the run never reached the victim worker"
        time.sleep(0.01)
    time.sleep(0.1)  # some partitions done (held on the victim too), some not
    assert counting.is_alive(), "the run ended before the kill: make it longer"
    os.kill(victim_pid, signal.SIGKILL)  # a crash: no goodbye to the scheduler; its nanny starts another
    counting.join(timeout=60)
    assert not counting.is_alive()
    deadline = time.monotonic() + 10
    while victim in client.scheduler_info()["workers"]:  # the scheduler saw it die
        assert time.monotonic() < deadline, "the worker was not killed"
        time.sleep(0.05)

    outcome = result["outcome"]
    assert outcome.files == 4 * run.files
    assert [path for path, _ in outcome.errors] == bad * 4
    for dask_sum, one_sum in zip(outcome.sums, run.sums):
        assert dask_sum.counts.tobytes() == (4 * one_sum.counts).tobytes()


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)


def test_imghist_imports_without_dask_and_says_how_to_get_it():
    done = _python("""
        import sys
        sys.modules["dask"] = sys.modules["distributed"] = None  # as if not installed
        import imghist
        try:
            import imghist.dask
        except ImportError as e:
            print(e)
        else:
            raise SystemExit("imported imghist.dask without dask")
        """)
    assert done.returncode == 0, done.stderr
    assert "pip install 'dask[bag]' 'distributed>=2024.1'" in done.stdout


def test_without_a_client_dask_s_own_scheduler_runs_it(dataset):
    paths, bad = dataset
    done = _python(f"""
        import dask, imghist, imghist.dask
        paths = {paths[:40]!r}
        with dask.config.set(scheduler="sync"):
            result = imghist.dask.histogram_files(paths, partition_size=9, backend="cpu")
        run = imghist.histogram_files(paths, backend="cpu").run()
        assert result.errors == run.errors and result.errors, result.errors
        assert [s.counts.tobytes() for s in result.sums] == [s.counts.tobytes() for s in run.sums]
        print(result.partitions)
        """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["5"]


PERCENTS = [0, 1, 50, 99.5, 100]


@pytest.fixture(scope="module")
def mixed_folder(tmp_path_factory):
    """(folder, {format: [arrays]}): 8-bit and 16-bit RGB PNGs and float RGB PFMs with values
    past [0, 1], below 0, NaN and ±Inf, each written from the array kept here."""
    folder = tmp_path_factory.mktemp("dask-mixed")
    rng = np.random.default_rng(51)
    arrays: dict = {"rgb8": [], "rgb16": [], "rgb_f32": []}
    for i in range(30):
        shape = (int(rng.integers(3, 30)), int(rng.integers(3, 30)), 3)
        kind = ("rgb8", "rgb16", "rgb_f32")[i % 3]
        if kind == "rgb_f32":
            pixels = rng.uniform(-0.5, 3, shape).astype(np.float32)
            pixels.flat[i % 5::11] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45][i % 6]
            write_pfm(folder / f"m{i:02d}.pfm", pixels)
        else:
            pixels = rng.integers(0, 256 if kind == "rgb8" else 65536, shape, dtype=np.uint8 if kind == "rgb8" else np.uint16)
            write_png(folder / f"m{i:02d}.png", pixels)
        arrays[kind].append(pixels)
    return folder, arrays


def _by_format(sums) -> dict:
    """The sums by their files' format: one kind each here, whichever file came first."""
    by_format = {s.format: s for s in sums}
    assert len(by_format) == len(sums)
    return by_format


def test_sample_statistics_equal_one_process_in_any_order(client, mixed_folder):
    folder, arrays = mixed_folder
    one = _by_format(imghist.histogram_files([str(folder)], backend="cpu", sample_stats=PERCENTS).run().sums)
    assert sorted(one) == sorted(arrays)
    # One process against this test's own exact evaluation: every moment exact; percentiles where
    # every bin holds one value (8-bit), absent where the summed bins cannot give them.
    for kind, images in arrays.items():
        for i, channel in enumerate("RGB"):
            want = expected(np.concatenate([image[..., i].ravel() for image in images]), PERCENTS)
            got = one[kind][channel].sample_stats()
            for key in ("count", "sum", "sum_of_squares", "mean", "variance", "stddev", "sample_stddev", "min", "max"):
                assert got[key] == want[key], (kind, channel, key)
            assert got["percentiles"] == (want["percentiles"] if kind == "rgb8" else {}), (kind, channel)
    paths = sorted(str(path) for path in folder.iterdir())
    shuffled = [str(path) for path in np.random.default_rng(3).permutation(paths)]
    for order, partition_size in ((paths, 4), (paths[::-1], 7), (shuffled, 1)):
        result = imghist.dask.histogram_files(order, client=client, partition_size=partition_size, backend="cpu",
                                              sample_stats=PERCENTS)
        through_dask = _by_format(result.sums)
        assert sorted(through_dask) == sorted(one)
        for kind, total in through_dask.items():
            assert total.sample_stats() == one[kind].sample_stats(), (kind, partition_size)
            assert total.counts.tobytes() == one[kind].counts.tobytes()


def test_normalize_of_a_dataset_sum_through_dask(client, mixed_folder):
    folder, arrays = mixed_folder
    paths = sorted(str(path) for path in folder.iterdir())
    result = imghist.dask.histogram_files(paths[::-1], client=client, partition_size=2, backend="cpu",
                                          sample_stats=True)
    for kind, total in _by_format(result.sums).items():
        norm = total.normalize()
        scale = {"rgb8": 255, "rgb16": 65535, "rgb_f32": 1}[kind]
        for i in range(3):
            want = expected(np.concatenate([image[..., i].ravel() for image in arrays[kind]]), [])
            n, s, q = want["count"], want["sum"], want["sum_of_squares"]
            assert norm["mean"][i] == float(s / (n * scale)), (kind, i)
            assert norm["std"][i] == sqrt_rounded((n * q - s * s) / (n * n * scale * scale)), (kind, i)
