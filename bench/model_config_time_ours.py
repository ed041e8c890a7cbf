"""bench/model_config_time.py's side of ours: the chain through the real
elements on a stream of the script's, timed by CUDA events that pad
probes record around it."""
import ctypes
import os
import statistics
import time

import numpy as np

from model_config_time_timing import Gate

# A held stream that no frame leaves for this long means a host wait on the
# GPU inside the chain: the hold is opened and the GPU figures dropped.
STALL_S = 10.0
# No tensor at all for this long: the pipeline is stuck.
NO_PROGRESS_S = 120.0

# --- our chain, through the real elements --------------------------------------------

GST_PAD_PROBE_TYPE_BUFFER = 1 << 4
GST_PAD_PROBE_OK = 1
GST_ITERATOR_DONE, GST_ITERATOR_OK, GST_ITERATOR_RESYNC = 0, 1, 2
_PROBE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


def _gst_protos(lib):
    vp = ctypes.c_void_p
    for owner, name, restype, argtypes in (
            (lib.gst, "gst_bin_iterate_recurse", vp, [vp]),
            (lib.gst, "gst_iterator_next", ctypes.c_int, [vp, vp]),
            (lib.gst, "gst_iterator_resync", None, [vp]),
            (lib.gst, "gst_iterator_free", None, [vp]),
            (lib.gst, "gst_pad_add_probe", ctypes.c_ulong, [vp, ctypes.c_int, _PROBE, vp, vp]),
            (lib.gobject, "g_value_get_object", vp, [vp]),
            (lib.gobject, "g_value_reset", vp, [vp]),
            (lib.gobject, "g_value_unset", None, [vp]),
            (lib.gobject, "g_object_class_find_property", vp, [vp, ctypes.c_char_p])):
        fn = getattr(owner, name)
        fn.restype = restype
        fn.argtypes = argtypes


def elements_with_property(lib, bin_pointer, prop):
    """(pointer, name) of every element inside the bin (recursively) that
    has the property `prop`; the pointers are the bin's (no reference)."""
    _gst_protos(lib)
    iterator = lib.gst.gst_bin_iterate_recurse(bin_pointer)
    value = (ctypes.c_byte * 24)()  # a GValue, zeroed
    found = []
    try:
        while True:
            result = lib.gst.gst_iterator_next(iterator, value)
            if result == GST_ITERATOR_RESYNC:
                lib.gst.gst_iterator_resync(iterator)
                found = []
                continue
            if result != GST_ITERATOR_OK:
                break
            element = lib.gobject.g_value_get_object(value)
            klass = ctypes.c_void_p.from_address(element).value  # GTypeInstance.g_class
            if lib.gobject.g_object_class_find_property(klass, prop.encode()):
                name = lib.gst.gst_object_get_name(element)
                found.append((element, ctypes.string_at(name).decode()))
                lib.gobject.g_free(name)
            lib.gobject.g_value_reset(value)
    finally:
        lib.gobject.g_value_unset(value)
        lib.gst.gst_iterator_free(iterator)
    return found


def chain_description(path, width, height, raw_path, frames):
    """Our pipeline: the frame uploaded once and repeated `frames` times on
    the device by imagefreeze into cudapreprocess (named prep) and the
    sink (named timing_sink), which holds one tensor at most."""
    return (f"filesrc location=\"{raw_path}\" ! rawvideoparse format=rgb width={width} "
            f"height={height} framerate=30/1 ! cudaframeupload ! imagefreeze num-buffers={frames} "
            f"! cudapreprocess name=prep model-config=\"{path}\" frame-width={width} "
            f"frame-height={height} ! cudatensorsink name=timing_sink consumer=application "
            "max-buffers=1 sync=false")


class ChainProbes:
    """The probes around the chain, in the streaming thread. Frame i (from
    0): warm-up below `warmup` (the stream synchronised after the chain, no
    events), then `frames` held frames (GPU), then `frames` free ones
    (span)."""

    def __init__(self, driver, stream, gate, warmup, frames):
        self.driver, self.stream, self.gate = driver, stream, gate
        self.warmup, self.frames = warmup, frames
        self.start, self.stop = driver.event(), driver.event()
        self.entered = self.left = 0
        self.gpu_ms, self.span_ms = [], []
        self.held_since = None
        self.stalled = False
        self.error = None

    def phase(self, index):
        if index < self.warmup:
            return "warmup"
        return "gpu" if index < self.warmup + self.frames else "span"

    def enter(self, pad, info, data):
        try:
            index, self.entered = self.entered, self.entered + 1
            phase = self.phase(index)
            self.driver.set_current()
            if phase == "gpu" and not self.stalled:
                self.gate.hold(self.stream, index + 1)
                self.held_since = time.monotonic()
            if phase != "warmup":
                self.driver.record(self.start, self.stream)
        except Exception as error:  # never drop the buffer (a raising callback returns 0)
            self.fail(error)
        return GST_PAD_PROBE_OK

    def leave(self, pad, info, data):
        try:
            index, self.left = self.left, self.left + 1
            phase = self.phase(index)
            self.driver.set_current()
            if phase == "warmup":
                self.driver.call("cuStreamSynchronize", self.stream)
                return GST_PAD_PROBE_OK
            self.driver.record(self.stop, self.stream)
            if phase == "gpu" and not self.stalled:
                self.gate.open(index + 1)
                self.held_since = None
            ms = self.driver.elapsed_ms(self.start, self.stop)
            (self.gpu_ms if phase == "gpu" else self.span_ms).append(ms)
        except Exception as error:
            self.fail(error)
        return GST_PAD_PROBE_OK

    def fail(self, error):
        if self.error is None:
            self.error = error
        self.gate.open()

    def check_stall(self):
        """From the main thread: a frame held for STALL_S is waiting for
        itself (a host wait on the device inside the chain); open the hold
        for good and drop the GPU figures."""
        since = self.held_since
        if since is not None and time.monotonic() - since > STALL_S:
            self.stalled = True
            self.gate.open()

    def close(self):
        self.driver.call("cuEventDestroy", self.start)
        self.driver.call("cuEventDestroy", self.stop)


class OursResult:
    def __init__(self, gpu_ms=None, span_ms=None, why=None):
        self.gpu_ms, self.span_ms, self.why = gpu_ms, span_ms, why


def build_pipeline(cudaprep, description):
    """The pipeline (not started) and the chain's elements that take a
    cuda-stream, inside prep."""
    running = cudaprep.Pipeline(description)
    prep = running.element("prep")
    try:
        elements = elements_with_property(cudaprep.native(), prep, "cuda-stream")
    finally:
        cudaprep.native().gst.gst_object_unref(prep)
    if not elements:
        raise RuntimeError("no element inside cudapreprocess takes a cuda-stream")
    return running, elements


def time_ours(cudaprep, driver, path, frame, warmup, frames, expected_shape, workdir):
    """Our chain's median GPU and span ms per frame for `frame`."""
    height, width = frame.shape[:2]
    raw = os.path.join(workdir, f"frame-{width}x{height}.rgb")
    if not os.path.exists(raw):
        with open(raw, "wb") as f:
            f.write(np.ascontiguousarray(frame).tobytes())
    lib = cudaprep.native()
    running, elements = build_pipeline(
        cudaprep, chain_description(path, width, height, raw, warmup + 2 * frames))
    stream = driver.stream()
    gate = probes = None
    pads = []
    try:
        gate = Gate(driver)
        why = None
        try:
            gate.check(stream)
        except RuntimeError as error:
            why = f"the stream cannot be held ({error}): span only"
        probes = ChainProbes(driver, stream, gate, warmup, frames)
        if why:
            probes.stalled = True  # never hold
        for element, _ in elements:
            lib.gobject.g_object_set(element, b"cuda-stream", stream, None)
        callbacks = (_PROBE(probes.enter), _PROBE(probes.leave))  # alive while it runs
        for element_name, callback in (("prep", callbacks[0]), ("timing_sink", callbacks[1])):
            element = running.element(element_name)
            pad = lib.gst.gst_element_get_static_pad(element, b"sink")
            lib.gst.gst_object_unref(element)
            pads.append(pad)
            lib.gst.gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, callback, None, None)
        count = 0
        with running:
            try:
                sink = running.sink("timing_sink")
                last = time.monotonic()
                while True:
                    tensor = sink.pull(timeout=0.5)
                    if tensor is None:
                        if sink.is_eos():
                            break
                        error = running.error()
                        if error:
                            raise RuntimeError("the pipeline failed: " + error)
                        probes.check_stall()
                        if time.monotonic() - last > NO_PROGRESS_S:
                            raise RuntimeError(f"no tensor for {NO_PROGRESS_S:.0f} s")
                        continue
                    with tensor:
                        if count == 0 and tuple(tensor.shape) != tuple(expected_shape):
                            raise RuntimeError(f"the chain's tensor is {tensor.shape}, "
                                               f"cudaprep.preprocessing_for said {expected_shape}")
                    count += 1
                    last = time.monotonic()
            finally:
                gate.open()  # before the pipeline stops: a held frame would block it
        if probes.error is not None:
            raise RuntimeError(f"a probe failed: {probes.error}")
        if count != warmup + 2 * frames:
            raise RuntimeError(f"{count} tensors for {warmup + 2 * frames} frames")
    finally:
        for pad in pads:
            lib.gst.gst_object_unref(pad)
        del running  # back in NULL: no element uses the stream any more
        if probes is not None:
            probes.close()
        if gate is not None:
            gate.free()
        driver.call("cuStreamDestroy", stream)
    if probes.stalled and why is None:
        why = ("a held frame waited for itself (a host wait on the device inside the chain): "
               "GPU figure dropped, span only")
    gpu = statistics.median(probes.gpu_ms) if probes.gpu_ms and why is None else None
    span = statistics.median(probes.span_ms) if probes.span_ms else None
    return OursResult(gpu, span, why)
