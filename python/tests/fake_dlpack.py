"""A DLPack producer made with ctypes, for testing how imghist treats arrays on devices that the
test machine may not have (CUDA, ROCm): it reports any device and exports a real DLPack capsule
(dlpack.h's DLManagedTensor, unversioned) whose data pointer is never meant to be read.

It records the stream each __dlpack__ call asked for, so that tests can check the protocol.
"""
import ctypes

import numpy as np

CPU, CUDA, CUDA_HOST, OPENCL, VULKAN, METAL, ROCM, CUDA_MANAGED = 1, 2, 3, 4, 7, 8, 10, 13


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int32),
                ("dtype", _DataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _ManagedTensor(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(_ManagedTensor))
_ManagedTensor._fields_ = [("dl_tensor", _Tensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter)]

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

_DTYPES = {np.dtype(np.uint8): (1, 8), np.dtype(np.uint16): (1, 16), np.dtype(np.float16): (2, 16),
           np.dtype(np.float32): (2, 32), np.dtype(np.int32): (0, 32), np.dtype(np.float64): (2, 64)}


class FakeDeviceArray:
    """An array of `shape` and `dtype` on DLPack device (device_type, device_id), at `address`.

    The capsule's memory (and its no-op deleter) lives as long as this object; keep it alive
    for as long as imghist may hold the capsule."""

    def __init__(self, shape, dtype=np.uint8, device_type=CUDA, device_id=0, address=0x7F0000000000,
                 strides=None):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.device = (device_type, device_id)
        self.address = address
        self.elem_strides = strides or tuple(int(np.prod(self.shape[i + 1:])) for i in range(len(self.shape)))
        self.streams = []  # the stream of every __dlpack__ call, in order
        self.exports = 0
        self._keep = []

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, **_):
        self.streams.append(stream)
        self.exports += 1
        return self.capsule()

    def capsule(self):
        ndim = len(self.shape)
        shape = (ctypes.c_int64 * ndim)(*self.shape)
        strides = (ctypes.c_int64 * ndim)(*self.elem_strides)
        code, bits = _DTYPES[self.dtype]
        managed = _ManagedTensor()
        managed.dl_tensor = _Tensor(self.address, _Device(*self.device), ndim, _DataType(code, bits, 1),
                                    ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64)),
                                    ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64)), 0)
        deleter = _Deleter(lambda _: None)
        managed.deleter = deleter
        self._keep += [shape, strides, managed, deleter]
        return _capsule_new(ctypes.addressof(managed), b"dltensor", None)
