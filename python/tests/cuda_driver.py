"""The CUDA driver through ctypes, for the Python tests: whether a GPU is
there, and a copy to the host ordered on a consumer's stream (no toolkit
or CUDA Python package needed)."""
import ctypes


def _driver():
    try:
        return ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None


def gpu_count():
    cuda = _driver()
    if cuda is None:
        return 0
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return 0
    return count.value


def copy_to_host(device_pointer, host_pointer, size, stream):
    """Copies `size` bytes from the device to the host on `stream` (a
    CUstream as an int), after what that stream already waits for, and
    waits for the copy. Needs a current context (the device's primary)."""
    cuda = _driver()
    cuda.cuMemcpyDtoHAsync_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t,
                                          ctypes.c_void_p]
    cuda.cuStreamSynchronize.argtypes = [ctypes.c_void_p]
    err = cuda.cuMemcpyDtoHAsync_v2(host_pointer, device_pointer, size, stream)
    if err == 0:
        err = cuda.cuStreamSynchronize(stream)
    if err != 0:
        raise RuntimeError("copying %d bytes from the device failed (CUresult %d)" % (size, err))
