#!/usr/bin/env python3
"""GPU time per frame of each model config's chain beside the owning
library's own preprocessing, in one run (issue 24).

    bench/model_config_time.py [CONFIG ...] [--size WxH ...] [--frames N]
        [--warmup N] [--frame-cache FOLDER]
    bench/model_config_time.py --dry-run [CONFIG ...] [--size WxH ...] [--frames N]

CONFIG: model configs (docs/model-configs.md); default every one in
tests/data/models. --size: default 1920x1080 and 3840x2160. Medians over
--frames frames (default 200) after --warmup (default 20), per config and
size, ours and the library's one after the other.

Both sides start from the same decoded RGB frame (tools/parity_report.py's
synthetic frame of that size), already in device memory, and process it
again for every frame:

ours: filesrc ! rawvideoparse ! cudaframeupload ! imagefreeze (the frame,
    uploaded once, repeated on the device) ! cudapreprocess
    model-config=CONFIG ! cudatensorsink; ends at the chain's tensor in
    device memory (NCHW, the config's dtype). Every element of the chain
    runs on one CUDA stream of this script; a pad probe before the chain
    records a start event on it, one after the chain a stop event.
    "GPU": the probe before the chain first holds the stream
    (cuStreamWaitValue32 on a host-mapped word) and the probe after it
    releases it once the frame's kernels are all queued: the events time
    the chain's kernels run back to back, without GStreamer's host time
    between launches. "span": N more frames without the hold: the time
    from the chain's start to its end on the device as the pipeline feeds
    it, host gaps between launches included (what the library's events
    measure).
owning library, CUDA events on torch's current stream around the call
    (torch.cuda.Event, synchronised, as bench/peer_pytorch.py), from the
    frame as a uint8 CHW CUDA tensor:
    transformers: AutoImageProcessor from the config with the torchvision
        backend (backend="torchvision" in transformers 5, use_fast=True in
        4.x), called with device="cuda"; ends at pixel_values, float32 NCHW
        on the device. A processor without that backend in the installed
        version runs its NumPy/PIL path on the CPU (said in the row).
    timm: create_transform(resolve_data_config(pretrained_cfg)) on the
        tensor; its Normalize takes float tensors only, so the frame is
        made float in [0, 1] inside the timed call; ends at float32 CHW on
        the device. A transform that takes no tensor runs on a PIL image on
        the CPU (said in the row).
    torchvision: the weights' transforms() on the uint8 tensor (a PIL image
        on the CPU where the config's `input` is pil, the tensor / 255 where
        it is float); ends at float32 CHW.
    Ultralytics letterbox: cv2 on the CPU (no device path), timed with
        perf_counter from the frame as a uint8 HWC array in host memory to
        the float32 CHW array x / 255 in host memory; the frame's download
        and the tensor's upload are not counted.
    .modelinfo: no owning library; ours only.

Prints a Markdown table: config, input, our GPU and span ms/frame, the
library, its ms/frame, where it ran (cuda/cpu) and library / ours (GPU).

Environment: as tools/parity_report.py (the cudaprep module from python/ or
CUDAPREP_PYTHON_DIR; CUDAPREP_LIB_DIR and CUDAPREP_PLUGIN_DIR for the
library and the plugin, the GStreamer bundle's env.sh where GStreamer is
not installed). torch is needed for the libraries' device paths; nothing is
downloaded (HF_HUB_OFFLINE=1 unless set).

--dry-run needs no GPU: for each config and size it builds our pipeline
(not started), shows the chain and the elements that would run on the
timed stream, and runs the owning library on the CPU (--frames times, with
perf_counter) where it is installed, checking its output's shape against
the chain's tensor shape. Nothing it prints is a GPU figure.
"""
import argparse
import ctypes
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

# Nothing is downloaded (read by huggingface_hub when transformers is imported).
os.environ.setdefault("HF_HUB_OFFLINE", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import parity_report  # noqa: E402  (frames, sizes, the cudaprep module)
from cuda_timing import median_cuda_event_ms  # noqa: E402  (torch imported on the first call)

MODELS = os.path.join(ROOT, "tests", "data", "models")
DEFAULT_SIZES = [(1920, 1080), (3840, 2160)]
# A held stream that no frame leaves for this long means a host wait on the
# GPU inside the chain: the hold is opened and the GPU figures dropped.
STALL_S = 10.0
# No tensor at all for this long: the pipeline is stuck.
NO_PROGRESS_S = 120.0

# --- which library owns a config, and its own preprocessing -------------------------


def model_configs(folder=MODELS):
    """The model config files of `folder` (.json and .modelinfo), sorted."""
    return sorted(os.path.join(folder, name) for name in os.listdir(folder)
                  if name.endswith((".json", ".modelinfo")))


def load_config(path):
    """The config as a dict; None for a .modelinfo (not JSON)."""
    if path.endswith(".modelinfo"):
        return None
    with open(path) as f:
        return json.load(f)


def owner_of(config):
    """The library whose preprocessing the config describes, recognised as
    cudapreprocess does (docs/model-configs.md, "Formats"): transformers,
    timm, torchvision or ultralytics; None for a .modelinfo (no library)."""
    if config is None:
        return None
    if config.get("image_processor_type") or config.get("feature_extractor_type"):
        return "transformers"
    if config.get("format") == "torchvision":
        return "torchvision"
    if config.get("format") == "ultralytics-letterbox":
        return "ultralytics"
    if "pretrained_cfg" in config or "input_size" in config:
        return "timm"
    raise ValueError("no owning library recognised (not a Hugging Face image processor, "
                     "timm cfg, torchvision or ultralytics-letterbox form)")


class Unavailable(Exception):
    """The owning library cannot be run here; the message says why."""


class LibrarySide:
    """One frame of the owning library's preprocessing: run() does it and
    returns the output; device is where it runs (cuda or cpu)."""

    def __init__(self, name, device, starts, ends, run):
        self.name = name
        self.device = device
        self.starts = starts
        self.ends = ends
        self.run = run


def _tensor_frame(frame, device):
    """The HWC uint8 frame as a contiguous uint8 CHW tensor on `device`, as
    a decoder on the device gives it."""
    import torch
    return torch.from_numpy(np.ascontiguousarray(frame)).permute(2, 0, 1).contiguous().to(device)


def _transformers_side(path, frame, device):
    import transformers
    from transformers import AutoImageProcessor
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(path, os.path.join(folder, "preprocessor_config.json"))
        if int(transformers.__version__.split(".")[0]) >= 5:
            processor = AutoImageProcessor.from_pretrained(folder, backend="torchvision")
        else:
            processor = AutoImageProcessor.from_pretrained(folder, use_fast=True)
    name = f"transformers {transformers.__version__} {type(processor).__name__}"
    bases = {cls.__name__ for cls in type(processor).__mro__}
    if not bases & {"TorchvisionBackend", "BaseImageProcessorFast"}:
        return LibrarySide(
            name + " (no torchvision backend: NumPy/PIL)", "cpu", "uint8 HWC array, host",
            "pixel_values, float32 NCHW array, host",
            lambda: processor(images=frame, return_tensors="np")["pixel_values"])
    image = _tensor_frame(frame, device)
    return LibrarySide(
        name, device, f"uint8 CHW tensor, {device}", f"pixel_values, float32 NCHW, {device}",
        lambda: processor(images=image, return_tensors="pt", device=device)["pixel_values"])


def _timm_side(config, frame, device):
    import timm
    import timm.data
    cfg = config.get("pretrained_cfg", config)
    transform = timm.data.create_transform(**timm.data.resolve_data_config(pretrained_cfg=cfg))
    name = f"timm {timm.__version__} create_transform"
    image = _tensor_frame(frame, device)
    try:
        transform(image)
        return LibrarySide(name, device, f"uint8 CHW tensor, {device}",
                           f"float32 CHW, {device}", lambda: transform(image))
    except TypeError:
        pass
    try:
        transform(image.float().div(255))
        return LibrarySide(name, device,
                           f"uint8 CHW tensor, {device} (made float in [0, 1] in the call: "
                           "timm's Normalize takes float tensors only)",
                           f"float32 CHW, {device}", lambda: transform(image.float().div(255)))
    except TypeError as error:
        from PIL import Image
        return LibrarySide(f"{name} (PIL: takes no tensor: {error})", "cpu",
                           "uint8 HWC array, host (made a PIL image in the call)",
                           "float32 CHW, host", lambda: transform(Image.fromarray(frame)))


def _torchvision_side(config, frame, device):
    import torchvision
    enum_name, member = config["weights"].split(".")
    transforms = getattr(getattr(torchvision.models, enum_name), member).transforms()
    name = f"torchvision {torchvision.__version__} {config['weights']}.transforms()"
    if config.get("input", "uint8") == "pil":
        from PIL import Image
        image = Image.fromarray(np.ascontiguousarray(frame))
        return LibrarySide(name + " on a PIL image", "cpu", "PIL image, host",
                           "float32 CHW, host", lambda: transforms(image))
    image = _tensor_frame(frame, device)
    if config.get("input") == "float":
        image = image.float() / 255.0
        return LibrarySide(name + " on a float tensor", device,
                           f"float32 CHW tensor in [0, 1], {device}", f"float32 CHW, {device}",
                           lambda: transforms(image))
    return LibrarySide(name, device, f"uint8 CHW tensor, {device}", f"float32 CHW, {device}",
                       lambda: transforms(image))


def _letterbox_side(config, frame):
    import cv2
    imgsz = config.get("imgsz", 640)
    if isinstance(imgsz, list):
        if imgsz[0] != imgsz[1]:
            raise Unavailable("a non-square imgsz is not written here (LetterBox of a square)")
        imgsz = imgsz[0]
    pad = config.get("pad_value", 114)
    height, width = frame.shape[:2]
    new_width, new_height, top, bottom, left, right = \
        parity_report.ultralytics_letterbox_geometry(width, height, imgsz)

    def run():
        resized = frame
        if (new_width, new_height) != (width, height):
            resized = cv2.resize(frame, (new_width, new_height), interpolation=cv2.INTER_LINEAR)
        boxed = cv2.copyMakeBorder(resized, top, bottom, left, right, cv2.BORDER_CONSTANT,
                                   value=(pad, pad, pad))
        return boxed.transpose(2, 0, 1).astype(np.float32) / np.float32(255)
    return LibrarySide(f"Ultralytics LetterBox({imgsz}) in cv2 {cv2.__version__}", "cpu",
                       "uint8 HWC array, host (no device path)",
                       "float32 CHW array x / 255, host", run)


def library_side(path, frame, device):
    """The owning library's preprocessing of `frame` (HxWx3 uint8 RGB) for
    the config at `path`, on `device` where it has a device path.
    Unavailable when there is no library or it is not installed."""
    config = load_config(path)
    owner = owner_of(config)
    if owner is None:
        raise Unavailable("a .modelinfo has no owning library")
    try:
        if owner == "transformers":
            return _transformers_side(path, frame, device)
        if owner == "timm":
            return _timm_side(config, frame, device)
        if owner == "torchvision":
            return _torchvision_side(config, frame, device)
        return _letterbox_side(config, frame)
    except ImportError as error:
        raise Unavailable(f"{owner} cannot run here: {error}")


def squeezed_shape(shape):
    """The shape without leading 1s (a batch of one)."""
    shape = tuple(int(d) for d in shape)
    while len(shape) > 1 and shape[0] == 1:
        shape = shape[1:]
    return shape


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


# --- the report ----------------------------------------------------------------------

OURS_PATH = ("from the uint8 RGB frame in device memory (cudaframeupload once, repeated by "
             "imagefreeze) to the chain's tensor in device memory; GPU: its kernels back to back "
             "(the stream held while they are queued), span: start to end on the device as the "
             "pipeline feeds it")


def format_ms(value):
    """Three significant figures, no exponent."""
    if value is None:
        return ""
    return f"{value:.0f}" if value >= 1000 else f"{value:.3g}"


def ratio(library_ms, ours_ms):
    if library_ms is None or not ours_ms:
        return ""
    return f"{library_ms / ours_ms:.1f}x"


class Row:
    def __init__(self, config, size, ours_gpu=None, ours_span=None, library="", library_ms=None,
                 where="", notes=()):
        self.config, self.size = config, size
        self.ours_gpu, self.ours_span = ours_gpu, ours_span
        self.library, self.library_ms, self.where = library, library_ms, where
        self.library_path = ""  # what the library starts from and ends at
        self.notes = list(notes)


def markdown_table(rows):
    lines = ["| model config | input | ours: GPU ms/frame | ours: span ms/frame | owning library "
             "| library ms/frame | where | library / ours (GPU) |",
             "|---|---|---:|---:|---|---:|---|---:|"]
    for row in rows:
        lines.append(f"| {row.config} | {row.size[0]}x{row.size[1]} | {format_ms(row.ours_gpu)} | "
                     f"{format_ms(row.ours_span)} | {row.library} | {format_ms(row.library_ms)} | "
                     f"{row.where} | {ratio(row.library_ms, row.ours_gpu)} |")
    return "\n".join(lines)


def config_name(path):
    return os.path.splitext(os.path.basename(path))[0]


def run_library(path, frame, device, warmup, frames, expected_shape, row, dry_run):
    """Times the owning library into `row`."""
    try:
        side = library_side(path, frame, device)
    except Unavailable as error:
        row.library = f"none ({error})"
        return
    row.library = side.name
    row.where = side.device + (" (dry run)" if dry_run else "")
    row.library_path = f"from {side.starts} to {side.ends}"
    print(f"  library: {side.name}, on {side.device}: {row.library_path}")
    try:
        output = side.run()
        if squeezed_shape(output.shape) != squeezed_shape(expected_shape):
            note = (f"the library's output is {tuple(output.shape)}, our tensor "
                    f"{tuple(expected_shape)}")
            print("  NOTE: " + note)
            row.notes.append(note)
        if side.device == "cuda" and not dry_run:
            row.library_ms = median_cuda_event_ms(side.run, warmup, frames)
        else:
            row.library_ms = median_ms_cpu(side.run, warmup, frames)
    except Exception as error:  # the library's own failure is a result, not a crash
        row.library += f" (FAILED: {type(error).__name__}: {error})"
        print(f"  library FAILED: {type(error).__name__}: {error}")


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return f"{line.split(':', 1)[1].strip()}, {os.cpu_count()} cores"
    except OSError:
        pass
    return f"{os.cpu_count()} cores"


def versions():
    found = []
    for module in ("torch", "torchvision", "transformers", "timm", "cv2"):
        try:
            found.append(f"{module} {__import__(module).__version__}")
        except ImportError:
            found.append(f"{module} not installed")
    return ", ".join(found)


def make_parser():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("configs", nargs="*", metavar="CONFIG",
                        help="model configs (default: every one in tests/data/models)")
    parser.add_argument("--size", type=parity_report.parse_size, nargs="+", default=DEFAULT_SIZES,
                        help="frame sizes, WxH (default 1920x1080 3840x2160)")
    parser.add_argument("--frames", type=int, default=200, help="timed frames per side")
    parser.add_argument("--warmup", type=int, default=20, help="untimed frames first")
    parser.add_argument("--frame-cache", metavar="FOLDER",
                        help="keep the synthetic frames there and reuse them")
    parser.add_argument("--dry-run", action="store_true",
                        help="no GPU: build the pipelines without starting them and run the "
                        "owning libraries on the CPU")
    return parser


def parse_args(argv=None):
    parser = make_parser()
    args = parser.parse_args(argv)
    if args.frames < 1:
        parser.error("--frames must be at least 1")
    if args.warmup < 1:
        parser.error("--warmup must be at least 1 (the first frames allocate the pools)")
    args.configs = args.configs or model_configs()
    missing = [p for p in args.configs if not os.path.isfile(p)]
    if missing:
        parser.error("no such config: " + ", ".join(missing))
    return args


def main(argv=None):
    args = parse_args(argv)
    cudaprep = parity_report._import_cudaprep()
    driver = None
    if args.dry_run:
        print("DRY RUN: no GPU figure; the pipelines are built, not started; the libraries run "
              "on the CPU")
    else:
        driver = Driver()
        print(f"GPU: {driver.name()}")
    print(f"CPU: {cpu_name()}")
    print(f"{versions()}; {args.frames} frames after {args.warmup} warm-up, medians")
    print("Both sides start from one decoded RGB frame, processed again for every frame")
    print(f"ours: {OURS_PATH}")
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for width, height in args.size:
            frame = parity_report.cached_synthetic_frames(1, width, height, args.frame_cache)[0]
            for path in args.configs:
                row = Row(config_name(path), (width, height))
                rows.append(row)
                print(f"\n{row.config}, {width}x{height}")
                try:
                    chain = cudaprep.preprocessing_for(path, frame_size=(width, height))
                except ValueError as error:
                    print(f"  FAILED: {error}")
                    row.library = f"(the config failed: {error})"
                    continue
                print(f"  chain: {chain.fragment}")
                if args.dry_run:
                    raw = os.path.join(workdir, "frame.rgb")
                    running, elements = build_pipeline(
                        cudaprep, chain_description(path, width, height, raw, 1))
                    del running
                    print("  on the timed stream: " + ", ".join(name for _, name in elements))
                else:
                    try:
                        ours = time_ours(cudaprep, driver, path, frame, args.warmup, args.frames,
                                         chain.shape, workdir)
                    except RuntimeError as error:
                        print(f"  ours FAILED: {error}")
                        row.notes.append(f"ours failed: {error}")
                        ours = OursResult()
                    row.ours_gpu, row.ours_span = ours.gpu_ms, ours.span_ms
                    if ours.why:
                        print("  NOTE: " + ours.why)
                        row.notes.append(ours.why)
                    print(f"  ours: GPU {format_ms(ours.gpu_ms)} ms, span "
                          f"{format_ms(ours.span_ms)} ms per frame")
                run_library(path, frame, "cpu" if args.dry_run else "cuda", args.warmup,
                            args.frames, chain.shape, row, args.dry_run)
                if row.library_ms is not None:
                    print(f"  library: {format_ms(row.library_ms)} ms per frame on {row.where}")
    print()
    print(markdown_table(rows))
    print(f"\n- ours: {OURS_PATH}")
    libraries_by_path = {}
    for row in rows:
        if row.library_path and row.library not in libraries_by_path.get(row.library_path, []):
            libraries_by_path.setdefault(row.library_path, []).append(row.library)
    for path, libraries in libraries_by_path.items():
        print(f"- {', '.join(libraries)}: {path}")
    notes = [(row, note) for row in rows for note in row.notes]
    for row, note in notes:
        print(f"- {row.config} {row.size[0]}x{row.size[1]}: {note}")
    failed = any(r.ours_span is None for r in rows) and not args.dry_run
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
