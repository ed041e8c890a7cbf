"""bench/model_config_time.py's clocks: the median of host calls, and the
CUDA driver API through ctypes for the events around our chain."""
import ctypes
import statistics
import time

# --- timing ------------------------------------------------------------------------


def median_ms_cpu(run, warmup, frames, clock=time.perf_counter):
    """Median milliseconds of run() on the host, over `frames` calls after
    `warmup` untimed ones."""
    for _ in range(warmup):
        run()
    samples = []
    for _ in range(frames):
        start = clock()
        run()
        samples.append((clock() - start) * 1e3)
    return statistics.median(samples)


class Driver:
    """The CUDA driver API through ctypes: the device's primary context, a
    stream, events, and a host-mapped word that holds a stream."""

    CU_STREAM_NON_BLOCKING = 0x1
    CU_MEMHOSTALLOC_PORTABLE = 0x1
    CU_MEMHOSTALLOC_DEVICEMAP = 0x2
    CU_STREAM_WAIT_VALUE_GEQ = 0x0

    def __init__(self, device=0):
        self.lib = ctypes.CDLL("libcuda.so.1")
        vp, u32 = ctypes.c_void_p, ctypes.c_uint
        self._protos = {
            "cuInit": [u32], "cuDeviceGet": [ctypes.POINTER(ctypes.c_int), ctypes.c_int],
            "cuDeviceGetName": [ctypes.c_char_p, ctypes.c_int, ctypes.c_int],
            "cuDriverGetVersion": [ctypes.POINTER(ctypes.c_int)],
            "cuDevicePrimaryCtxRetain": [ctypes.POINTER(vp), ctypes.c_int],
            "cuCtxSetCurrent": [vp],
            "cuStreamCreate": [ctypes.POINTER(vp), u32],
            "cuStreamDestroy": [vp], "cuStreamSynchronize": [vp],
            "cuEventCreate": [ctypes.POINTER(vp), u32], "cuEventDestroy": [vp],
            "cuEventRecord": [vp, vp], "cuEventSynchronize": [vp],
            "cuEventElapsedTime": [ctypes.POINTER(ctypes.c_float), vp, vp],
            "cuMemHostAlloc": [ctypes.POINTER(vp), ctypes.c_size_t, u32],
            "cuMemHostGetDevicePointer": [ctypes.POINTER(ctypes.c_uint64), vp, u32],
            "cuMemFreeHost": [vp],
            "cuStreamWaitValue32": [vp, ctypes.c_uint64, ctypes.c_uint32, u32],
            "cuGetErrorName": [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)],
        }
        self._fns = {}
        self.call("cuInit", 0)
        self.device = ctypes.c_int()
        self.call("cuDeviceGet", ctypes.byref(self.device), device)
        self.context = ctypes.c_void_p()
        self.call("cuDevicePrimaryCtxRetain", ctypes.byref(self.context), self.device)
        self.set_current()

    def _fn(self, name):
        """The entry point: name_v2 where the driver has it (the ABI the
        CUDA 12/13 headers compile name to), else name."""
        if name not in self._fns:
            fn = getattr(self.lib, name + "_v2", None) or getattr(self.lib, name)
            fn.restype = ctypes.c_int
            fn.argtypes = self._protos[name]
            self._fns[name] = fn
        return self._fns[name]

    def call(self, name, *args):
        err = self._fn(name)(*args)
        if err != 0:
            text = ctypes.c_char_p()
            self._fn("cuGetErrorName")(err, ctypes.byref(text))
            raise RuntimeError(f"{name} failed: {(text.value or b'?').decode()} ({err})")

    def set_current(self):
        self.call("cuCtxSetCurrent", self.context)

    def name(self):
        buffer = ctypes.create_string_buffer(256)
        self.call("cuDeviceGetName", buffer, 256, self.device)
        version = ctypes.c_int()
        self.call("cuDriverGetVersion", ctypes.byref(version))
        major, minor = version.value // 1000, version.value % 1000 // 10
        return f"{buffer.value.decode()} (driver API {major}.{minor})"

    def stream(self):
        stream = ctypes.c_void_p()
        self.call("cuStreamCreate", ctypes.byref(stream), self.CU_STREAM_NON_BLOCKING)
        return stream.value

    def event(self):
        event = ctypes.c_void_p()
        self.call("cuEventCreate", ctypes.byref(event), 0)
        return event.value

    def record(self, event, stream):
        self.call("cuEventRecord", event, stream)

    def elapsed_ms(self, start, stop):
        """Waits for `stop`; milliseconds from `start` to it."""
        self.call("cuEventSynchronize", stop)
        ms = ctypes.c_float()
        self.call("cuEventElapsedTime", ctypes.byref(ms), start, stop)
        return ms.value


class Gate:
    """A 32-bit word in host memory the device can read: hold(stream, n)
    makes the stream wait until the word reaches n, open(n) writes n."""

    OPEN_ALL = 0x7FFFFFFF

    def __init__(self, driver):
        self.driver = driver
        host = ctypes.c_void_p()
        driver.call("cuMemHostAlloc", ctypes.byref(host), 4,
                    Driver.CU_MEMHOSTALLOC_PORTABLE | Driver.CU_MEMHOSTALLOC_DEVICEMAP)
        self.host = host.value
        self.word = ctypes.c_uint32.from_address(self.host)
        self.word.value = 0
        device = ctypes.c_uint64()
        driver.call("cuMemHostGetDevicePointer", ctypes.byref(device), self.host, 0)
        self.device_address = device.value

    def hold(self, stream, value):
        self.driver.call("cuStreamWaitValue32", stream, self.device_address, value,
                         Driver.CU_STREAM_WAIT_VALUE_GEQ)

    def open(self, value=OPEN_ALL):
        self.word.value = value

    def check(self, stream):
        """Raises when the device cannot wait on the word (no stream memory
        operations): a hold that is already open, then a sync."""
        self.open(1)
        self.hold(stream, 1)
        self.driver.call("cuStreamSynchronize", stream)
        self.open(0)

    def free(self):
        self.driver.call("cuMemFreeHost", self.host)
