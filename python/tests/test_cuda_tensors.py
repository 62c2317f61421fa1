"""Real torch and cupy tensors on a CUDA device, counted where they live by the CUDA backend.

Each test runs once per producer (torch, cupy). It needs imghist's CUDA backend with a usable
device and the producer with CUDA; without them it is skipped, unless IMGHIST_REQUIRE_CUDA_ARRAYS
names the producer (scripts/gpu/python.sh sets "torch,cupy" on the GPU machine): then it fails.

What is checked: every format and pattern against numpy's model of the contract (the model
reads a host copy made by the test, after the count); views and padded rows; the stream
protocol (a count issued on a busy non-default stream must see the pixels that stream is still
making); batches; and that no copy of the pixels reaches the host (a profiler's trace and the
process's peak memory).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import imghist
from contract_model import model_histogram
from images import make_image
from test_values import FORMATS, PATTERNS, format_id

PRODUCERS = ("torch", "cupy")
SPIN_CYCLES = 200_000_000  # about 0.1 s of one GPU thread spinning: the stream is busy for that long


def required_producers() -> list:
    return [p.strip() for p in os.environ.get("IMGHIST_REQUIRE_CUDA_ARRAYS", "").split(",") if p.strip()]


def cuda_backend_available() -> bool:
    return any(b["name"] == "cuda" and b["available"] for b in imghist.backends())


class Torch:
    name = "torch"

    def __init__(self):
        import torch
        self.torch = torch

    def to_device(self, a: np.ndarray):
        return self.torch.from_numpy(np.ascontiguousarray(a)).to("cuda")

    def to_host(self, t) -> np.ndarray:
        return t.cpu().numpy()

    def zeros(self, shape, dtype=np.uint8):
        return self.torch.zeros(shape, dtype=getattr(self.torch, np.dtype(dtype).name), device="cuda")

    def new_stream(self):
        return self.torch.cuda.Stream()

    def using(self, stream):
        return self.torch.cuda.stream(stream)

    def spin(self):
        self.torch.cuda._sleep(SPIN_CYCLES)  # on the current stream

    def fill(self, t, value):
        t.fill_(value)

    def synchronize(self):
        self.torch.cuda.synchronize()


class Cupy:
    name = "cupy"

    def __init__(self):
        import cupy
        self.cupy = cupy
        self.spin_kernel = cupy.RawKernel(r'''
            extern "C" __global__ void spin(long long cycles) {
                const long long start = clock64();
                while (clock64() - start < cycles) {}
            }''', "spin")

    def to_device(self, a: np.ndarray):
        return self.cupy.asarray(np.ascontiguousarray(a))

    def to_host(self, t) -> np.ndarray:
        return self.cupy.asnumpy(t)

    def zeros(self, shape, dtype=np.uint8):
        return self.cupy.zeros(shape, dtype=dtype)

    def new_stream(self):
        return self.cupy.cuda.Stream(non_blocking=True)

    def using(self, stream):
        return stream  # a cupy stream is its own context manager

    def spin(self):
        self.spin_kernel((1,), (1,), (np.int64(SPIN_CYCLES),))  # on the current stream

    def fill(self, t, value):
        t.fill(value)

    def synchronize(self):
        self.cupy.cuda.runtime.deviceSynchronize()


def unavailable_reason(name: str):
    if not cuda_backend_available():
        return "imghist's CUDA backend is not built or has no usable device"
    try:
        producer = Torch() if name == "torch" else Cupy()
    except ImportError as e:
        return f"{name} is not installed ({e})"
    if name == "torch" and not producer.torch.cuda.is_available():
        return "torch has no CUDA device"
    if name == "cupy" and producer.cupy.cuda.runtime.getDeviceCount() == 0:
        return "cupy has no CUDA device"
    return None


_producers = {}


@pytest.fixture(params=PRODUCERS)
def producer(request):
    name = request.param
    if name not in _producers:
        why = unavailable_reason(name)
        _producers[name] = why or (Torch() if name == "torch" else Cupy())
    got = _producers[name]
    if isinstance(got, str):
        if name in required_producers():
            pytest.fail(f"IMGHIST_REQUIRE_CUDA_ARRAYS names {name}, but {got}")
        pytest.skip(got)
    return got


_engines = []


@pytest.fixture
def engine(producer):
    """One imghist.Engine("cuda") for the module, opened after `producer` has decided to run."""
    if not _engines:
        _engines.append(imghist.Engine("cuda"))
    return _engines[0]


def assert_matches(h, host_image: np.ndarray, where: str, **request):
    """h (counted on the device) against the model and the cpu backend on the host copy."""
    model = model_histogram(host_image, **request)
    assert h.backend == "cuda", where
    assert tuple(h.channels) == model.channels, where
    for field in ("counts", "nan", "below", "above"):
        np.testing.assert_array_equal(np.asarray(getattr(h, field)), getattr(model, field), err_msg=f"{field}: {where}")
    for field in ("clipped_low", "clipped_high"):  # device results carry only the proven ones
        got = getattr(h, field)
        if got is not None:
            np.testing.assert_array_equal(np.asarray(got), getattr(model, field), err_msg=f"{field}: {where}")
    cpu = imghist.histogram(host_image, backend="cpu", **request)
    assert np.array_equal(cpu.counts, h.counts) and (h.width, h.height) == (cpu.width, cpu.height), where


# --- values ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("fmt", FORMATS, ids=format_id)
def test_every_format_and_pattern(producer, engine, fmt, pattern):
    dtype, channels, layout = fmt
    image = make_image(pattern, dtype, 241, 317, channels, seed=3)
    t = producer.to_device(image)
    assert_matches(engine.histogram(t, layout=layout), image, f"{producer.name} {fmt} {pattern}", layout=layout)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float16, np.float32], ids=lambda d: np.dtype(d).name)
def test_views_and_padded_rows(producer, engine, dtype):
    image = make_image("random", dtype, 200, 263, 4, seed=5)
    t = producer.to_device(image)
    view = t[10:-3, 7:-5]
    assert_matches(engine.histogram(view), image[10:-3, 7:-5], f"{producer.name} view")
    padded = producer.to_device(make_image("natural", dtype, 64, 300, 4, seed=6))
    assert_matches(engine.histogram(padded[:, :257]), producer.to_host(padded)[:, :257], f"{producer.name} padded")
    gray = producer.to_device(make_image("specials", dtype, 50, 77, 0, seed=7))
    assert_matches(engine.histogram(gray[1:, 2:]), producer.to_host(gray)[1:, 2:], f"{producer.name} gray view")


@pytest.mark.parametrize("request_keys", [
    dict(mode="rgb", bins=64), dict(mode="luma", weights="rec601"), dict(bins=100, range=(0.25, 0.75), clamp=True),
    dict(bins=7, range=(-1.0, 2.0)), dict(alpha=True, mode="all"), dict(bins=1000, range=(0.0, 1.0), clamp=False),
], ids=str)
@pytest.mark.parametrize("dtype", [np.uint16, np.float32, np.float16], ids=lambda d: np.dtype(d).name)
def test_request_keywords(producer, engine, dtype, request_keys):
    if np.issubdtype(dtype, np.integer) and "range" in request_keys:
        lo, hi = request_keys["range"]
        request_keys = dict(request_keys, range=(int(lo * 60000), int(hi * 60000) + 1))
    image = make_image("specials" if dtype != np.uint16 else "random", dtype, 120, 161, 4, seed=8)
    h = engine.histogram(producer.to_device(image), **request_keys)
    assert_matches(h, image, f"{producer.name} {request_keys}", **request_keys)


def test_one_shot_functions_pick_cuda(producer):
    image = make_image("random", np.uint8, 90, 120, 4, seed=9)
    t = producer.to_device(image)
    assert_matches(imghist.histogram(t), image, "histogram()")
    assert_matches(imghist.histogram(t, backend="cuda", device=0), image, "histogram(backend='cuda', device=0)")
    batch = imghist.histogram_batch([t, t[::2]])
    assert_matches(batch[1], image[::2], "histogram_batch()")


# --- the stream protocol ---------------------------------------------------------------------------

def busy_stream_fill(producer, t, value):
    """On a new non-default stream: a kernel that spins for about 0.1 s, then t.fill(value).
    Returns the stream, still busy: a count that does not wait for it sees the old pixels."""
    stream = producer.new_stream()
    with producer.using(stream):
        producer.spin()
        producer.fill(t, value)
    return stream


def test_counted_on_the_producers_current_stream(producer, engine):
    t = producer.zeros((1024, 2048, 4))
    producer.synchronize()
    stream = producer.new_stream()
    with producer.using(stream):
        producer.spin()
        producer.fill(t, 7)
        h = engine.histogram(t, mode="rgb")  # the current stream is `stream`: counted after the fill
    assert h["R"].counts[7] == 1024 * 2048 and h.counts.sum() == 3 * 1024 * 2048
    producer.synchronize()


def test_counted_on_the_stream_keyword(producer, engine):
    t = producer.zeros((1024, 2048, 4))
    producer.synchronize()
    stream = busy_stream_fill(producer, t, 9)
    h = engine.histogram(t, mode="rgb", stream=stream)  # the caller's current stream is the default one
    assert h["G"].counts[9] == 1024 * 2048
    stream = busy_stream_fill(producer, t, 11)
    h = imghist.histogram(t, mode="rgb", stream=stream)
    assert h["B"].counts[11] == 1024 * 2048
    producer.synchronize()


def test_a_batch_on_a_busy_stream(producer, engine):
    frames = [producer.zeros((480 + 16 * i, 640 - 8 * i, 4)) for i in range(5)]
    producer.synchronize()
    stream = producer.new_stream()
    with producer.using(stream):
        producer.spin()
        for i, f in enumerate(frames):
            producer.fill(f, 20 + i)
        batch = engine.histogram_batch(frames, mode="rgb")
    for i, f in enumerate(frames):
        assert batch[i]["R"].counts[20 + i] == f.shape[0] * f.shape[1], i
    producer.synchronize()


# --- batches ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float16, np.float32], ids=lambda d: np.dtype(d).name)
def test_batches_of_tensors(producer, engine, dtype):
    images = [make_image(p, dtype, 60 + 7 * i, 90 - 5 * i, 4, seed=i) for i, p in enumerate(PATTERNS)]
    tensors = [producer.to_device(a) for a in images]
    batch = engine.histogram_batch(tensors)
    assert len(batch) == len(images)
    for i, (h, a) in enumerate(zip(batch, images)):
        assert_matches(h, a, f"{producer.name} batch[{i}]")
    stacked = np.stack([make_image("random", dtype, 40, 50, 3, seed=s) for s in range(6)])
    whole = engine.histogram_batch(producer.to_device(stacked))
    for i in range(len(stacked)):
        assert_matches(whole[i], stacked[i], f"{producer.name} stacked[{i}]")
    assert np.array_equal(whole.sum().counts, imghist.histogram_batch(stacked, backend="cpu").sum().counts)


# --- errors ----------------------------------------------------------------------------------------

def test_errors_with_real_tensors(producer, engine):
    t = producer.to_device(np.zeros((8, 8, 4), np.uint8))
    for backend in ("cpu", "reference"):
        with pytest.raises(imghist.InvalidArgument, match="CUDA device 0"):
            imghist.histogram(t, backend=backend)
    with pytest.raises(imghist.InvalidArgument, match=r"Engine\('cuda'\)"):
        imghist.Engine("cpu").histogram(t)
    with pytest.raises(TypeError, match="uint8, uint16, float16 or float32"):
        engine.histogram(producer.to_device(np.zeros((8, 8, 4), np.int32)))
    with pytest.raises(imghist.InvalidArgument, match="not packed"):
        engine.histogram(t[:, ::2])
    with pytest.raises(imghist.InvalidArgument, match=r"images\[1\]"):
        engine.histogram_batch([t, np.zeros((8, 8, 4), np.uint8)])
    with pytest.raises(imghist.InvalidArgument, match="shape"):
        engine.histogram(producer.to_device(np.zeros((8, 8, 2), np.uint8)))


def test_host_tensors_are_counted_on_the_host(producer):
    if producer.name != "torch":
        pytest.skip("cupy has no host arrays")
    image = make_image("random", np.uint8, 30, 40, 4, seed=10)
    h = imghist.histogram(producer.torch.from_numpy(image), backend="cpu")
    assert np.array_equal(h.counts, imghist.histogram(image, backend="cpu").counts)


# --- no host copy ----------------------------------------------------------------------------------

def test_no_copy_of_the_pixels_in_the_profilers_trace(producer, engine, tmp_path):
    """torch's profiler (CUPTI) records every memcpy of the process: counting a 128 MiB tensor
    copies only the counters (a few KiB) to the host; the control copy of 2 MiB is seen."""
    if producer.name != "torch":
        pytest.skip("the profiler check runs once, with torch's profiler")
    torch = producer.torch
    from torch.profiler import ProfilerActivity, profile
    t = torch.randint(0, 256, (4096, 8192, 4), dtype=torch.uint8, device="cuda")
    engine.histogram(t)  # warm-up: the engine's buffers
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        h = engine.histogram(t)
        control = t[:64].cpu()  # 64 rows, 2 MiB: a copy the trace must show
        torch.cuda.synchronize()
    assert h.counts[:3].sum() == 3 * t.shape[0] * t.shape[1] and control.shape[0] == 64
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    events = json.loads(path.read_text())["traceEvents"]
    copies = [e for e in events if e.get("cat") == "gpu_memcpy"]
    kernels = [e["name"] for e in events if e.get("cat") == "kernel"]
    sizes = sorted(int(e.get("args", {}).get("bytes", 0)) for e in copies)
    control_bytes = 64 * 8192 * 4
    assert any("histogram_kernel" in k or "packed_kernel" in k for k in kernels), kernels
    assert sizes and sizes[-1] == control_bytes, sizes  # the control copy, and nothing as large
    assert sum(sizes) - control_bytes < 64 * 1024, sizes


def test_no_copy_of_the_pixels_in_the_peak_memory(producer):
    """A fresh process counts a 4 GiB tensor: its peak resident memory grows far less than the
    tensor's size, so no host copy of the pixels was made (not even a transient one)."""
    if producer.name != "torch":
        pytest.skip("runs once, with torch")
    script = textwrap.dedent("""
        import resource, torch, imghist
        engine = imghist.Engine("cuda")
        t = torch.full((16384, 65536, 4), 3, dtype=torch.uint8, device="cuda")   # 4 GiB
        engine.histogram(t[:16, :16])
        torch.cuda.synchronize()
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        h = engine.histogram(t, mode="rgb")
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        assert int(h["R"].counts[3]) == 16384 * 65536, h
        print((after - before) * 1024)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    grown = int(out.stdout.split()[-1])
    assert grown < 256 * 2**20, f"peak resident memory grew by {grown / 2**20:.0f} MiB counting a 4 GiB tensor"
