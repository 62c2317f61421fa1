"""Arrays that are not numpy's: DLPack exporters on the host, and arrays on devices (CUDA, ROCm)
as the binding sees them before any pixel is read. Runs everywhere: the device arrays here are
fakes (fake_dlpack.py) whose memory is never touched, so what is tested is what imghist does
with them: which backend may count them, which stream it asks the producer for, and the errors.
Real torch and cupy tensors on a GPU are test_cuda_tensors.py's."""
import numpy as np
import pytest

import imghist
from contract_model import model_histogram
from fake_dlpack import CPU, CUDA, CUDA_HOST, CUDA_MANAGED, METAL, OPENCL, ROCM, VULKAN, FakeDeviceArray

RNG = np.random.default_rng(29)
HOST_BACKENDS = ("cpu", "reference", "opencl", "vulkan")


def cuda_is_available() -> bool:
    return any(b["name"] == "cuda" and b["available"] for b in imghist.backends())


def same(a, b) -> bool:
    return a.channels == b.channels and np.array_equal(a.counts, b.counts) and \
        np.array_equal(a.nan, b.nan) and np.array_equal(a.below, b.below) and np.array_equal(a.above, b.above)


class DLPackOnly:
    """Only DLPack's two methods (no buffer protocol), as torch and cupy CPU tensors present."""
    def __init__(self, array):
        self.array = array
        self.calls = 0

    def __dlpack__(self, **kwargs):
        self.calls += 1
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


# --- host arrays through DLPack ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float16, np.float32])
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_a_dlpack_host_array_is_counted_like_the_numpy_array(dtype, channels):
    a = RNG.integers(0, 256, (37, 53, channels)).astype(dtype)
    if dtype in (np.float16, np.float32):
        a = (a / 255).astype(dtype)
    view = a[3:-2, 5:-4]
    wrapped = DLPackOnly(view)
    got = imghist.histogram(wrapped, backend="cpu")
    assert wrapped.calls == 1
    assert same(got, imghist.histogram(view, backend="cpu"))
    model = model_histogram(view)
    for field in ("counts", "nan", "below", "above"):
        np.testing.assert_array_equal(np.asarray(getattr(got, field)), getattr(model, field), err_msg=field)


def test_a_cuda_host_capsule_is_host_memory():
    """DLPack's kDLCUDAHost (pinned host memory) is counted as host memory by any backend."""
    a = RNG.integers(0, 256, (16, 24, 4), dtype=np.uint8)
    fake = FakeDeviceArray(a.shape, np.uint8, device_type=CUDA_HOST, address=a.ctypes.data)
    got = imghist.histogram(fake, backend="cpu")
    assert same(got, imghist.histogram(a, backend="cpu"))
    assert fake.streams == [None]  # host memory: no stream is asked for


def test_a_raw_host_capsule_is_counted():
    a = RNG.integers(0, 256, (9, 11, 3), dtype=np.uint8)
    fake = FakeDeviceArray(a.shape, np.uint8, device_type=CPU, address=a.ctypes.data)
    assert same(imghist.histogram(fake.capsule(), backend="cpu"), imghist.histogram(a, backend="cpu"))


def test_stream_is_refused_for_host_arrays():
    a = np.zeros((4, 4, 4), np.uint8)
    for call in (lambda: imghist.histogram(a, stream=7), lambda: imghist.Engine("cpu").histogram(a, stream=7),
                 lambda: imghist.histogram_batch([a, a], stream=7)):
        with pytest.raises(imghist.InvalidArgument, match="stream= is for CUDA arrays"):
            call()


# --- CUDA arrays: which backend may count them ---------------------------------------------------

@pytest.mark.parametrize("device_type", [CUDA, CUDA_MANAGED])
@pytest.mark.parametrize("host_backend", HOST_BACKENDS)
def test_a_cuda_array_is_never_copied_to_a_host_backend(host_backend, device_type):
    fake = FakeDeviceArray((32, 32, 4), device_type=device_type)
    with pytest.raises(imghist.InvalidArgument) as e:
        imghist.histogram(fake, backend=host_backend)
    message = str(e.value)
    assert "CUDA device 0" in message and f"backend '{host_backend}'" in message and "backend='cuda'" in message
    with pytest.raises(imghist.InvalidArgument, match="CUDA device 0"):
        imghist.histogram_batch([fake, fake], backend=host_backend)


def test_a_host_engine_refuses_a_cuda_array():
    fake = FakeDeviceArray((8, 8, 4))
    engine = imghist.Engine("cpu")
    with pytest.raises(imghist.InvalidArgument, match=r"Engine\('cuda'\)"):
        engine.histogram(fake)
    with pytest.raises(imghist.InvalidArgument, match=r"Engine\('cuda'\)"):
        engine.histogram_batch([fake])
    assert same(engine.histogram(np.zeros((2, 2, 4), np.uint8)), imghist.histogram(np.zeros((2, 2, 4), np.uint8)))


def test_auto_sends_a_cuda_array_to_the_cuda_backend():
    """backend="auto" means "cuda" for a CUDA array: without a CUDA device that is
    BackendUnavailable; with one, this fake's pointer is not device memory, which the CUDA
    backend refuses before reading anything."""
    fake = FakeDeviceArray((8, 8, 4))
    expected = imghist.InvalidArgument if cuda_is_available() else imghist.BackendUnavailable
    for call in (lambda: imghist.histogram(fake), lambda: imghist.histogram(fake, backend="cuda"),
                 lambda: imghist.histogram_batch([fake, fake])):
        with pytest.raises(expected, match="CUDA|cuda"):
            call()


@pytest.mark.parametrize("device_type, name", [(ROCM, "ROCm"), (OPENCL, "OpenCL"), (VULKAN, "Vulkan"),
                                                (METAL, "Metal"), (99, "type 99")])
def test_other_devices_are_refused_without_an_export(device_type, name):
    fake = FakeDeviceArray((8, 8, 4), device_type=device_type)
    with pytest.raises(imghist.InvalidArgument, match=f"DLPack device of {name}.*copy it to the host"):
        imghist.histogram(fake)
    assert fake.exports == 0
    with pytest.raises(imghist.InvalidArgument, match=name):
        imghist.histogram(fake.capsule(), backend="cpu")


# --- the checks of the array come first, wherever it lives ----------------------------------------

@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_a_cuda_array_of_another_dtype_is_a_type_error(dtype):
    with pytest.raises(TypeError, match="uint8, uint16, float16 or float32"):
        imghist.histogram(FakeDeviceArray((8, 8, 4), dtype))


def test_a_cuda_array_of_bad_shape_or_strides_is_refused():
    with pytest.raises(imghist.InvalidArgument, match="shape"):
        imghist.histogram(FakeDeviceArray((8, 8, 2)))
    with pytest.raises(imghist.InvalidArgument, match="pixels of a row are not packed"):
        imghist.histogram(FakeDeviceArray((8, 8, 4), strides=(64, 8, 1)))  # every other pixel
    with pytest.raises(imghist.InvalidArgument, match="empty"):
        imghist.histogram(FakeDeviceArray((0, 8, 4)))


# --- DLPack's stream protocol: the stream the producer is asked to make the pixels ready on -------

class TorchLikeStream:
    cuda_stream = 0xABC0


class CupyLikeStream:
    ptr = 0xDEF0


class CudaPythonStream:
    def __cuda_stream__(self):
        return (0, 0x1230)


@pytest.mark.parametrize("stream, asked", [(None, 1), (0, 1), (1, 1), (2, 2), (0x7000, 0x7000),
                                           (TorchLikeStream(), 0xABC0), (CupyLikeStream(), 0xDEF0),
                                           (CudaPythonStream(), 0x1230)])
def test_the_producer_is_asked_for_the_stream_that_is_counted_on(stream, asked):
    """stream=None: an unknown producer's data is assumed ready on the legacy default stream
    (DLPack's 1); CUDA's 0 is the same stream, which DLPack spells 1."""
    fake = FakeDeviceArray((8, 8, 4))
    with pytest.raises(imghist.InvalidArgument):  # the host backend then refuses it
        imghist.histogram(fake, backend="cpu", stream=stream)
    assert fake.streams == [asked]
    batch = FakeDeviceArray((3, 8, 8, 4))
    with pytest.raises(imghist.InvalidArgument):
        imghist.histogram_batch(batch, backend="cpu", stream=stream)
    assert batch.streams == [asked]


@pytest.mark.parametrize("stream, error", [("7", TypeError), (True, TypeError), (1.5, TypeError),
                                           (-1, imghist.InvalidArgument)])
def test_a_bad_stream_is_refused(stream, error):
    with pytest.raises(error, match="stream"):
        imghist.histogram(FakeDeviceArray((8, 8, 4)), stream=stream)


# --- batches ---------------------------------------------------------------------------------------

def test_a_batch_is_all_host_or_all_on_one_cuda_device():
    host = np.zeros((8, 8, 4), np.uint8)
    with pytest.raises(imghist.InvalidArgument, match=r"images\[1\]: it is on CUDA device 0 but images\[0\] is in host"):
        imghist.histogram_batch([host, FakeDeviceArray((8, 8, 4))])
    with pytest.raises(imghist.InvalidArgument, match=r"images\[1\]: it is in host memory but images\[0\] is on CUDA"):
        imghist.histogram_batch([FakeDeviceArray((8, 8, 4)), host])
    with pytest.raises(imghist.InvalidArgument, match=r"images\[1\]: it is on CUDA device 1 but images\[0\] is on CUDA device 0"):
        imghist.histogram_batch([FakeDeviceArray((8, 8, 4)), FakeDeviceArray((8, 8, 4), device_id=1)])


def test_a_batch_of_cuda_arrays_checks_each_image():
    with pytest.raises(imghist.InvalidArgument, match=r"images\[1\]: .*not packed"):
        imghist.histogram_batch([FakeDeviceArray((8, 8, 4)), FakeDeviceArray((8, 8, 4), strides=(64, 8, 1))])
    with pytest.raises(imghist.InvalidArgument, match=r"images\[1\]: its pixel format is rgb8"):
        imghist.histogram_batch([FakeDeviceArray((8, 8, 4)), FakeDeviceArray((8, 8, 3))])
    with pytest.raises(imghist.InvalidArgument, match=r"\(N, H, W\) or \(N, H, W, C\)"):
        imghist.histogram_batch(FakeDeviceArray((8, 4)))
    with pytest.raises(imghist.InvalidArgument, match="at least one image"):
        imghist.histogram_batch(FakeDeviceArray((0, 8, 8, 4)))
