"""A pipeline and its cudatensorsink, through the C API (no PyGObject), or
around PyGObject's objects where the application has them."""
import ctypes

from ._native import _GError, _gpointer, native
from ._sources import add_source as _add_source
from ._tensor import Tensor

vp = ctypes.c_void_p

GST_STATE_NULL, GST_STATE_PLAYING = 1, 4
GST_STATE_CHANGE_FAILURE = 0
GST_MESSAGE_EOS, GST_MESSAGE_ERROR = 1 << 0, 1 << 1


def _pop_error(element):
    """The first error message on `element`'s bus, or None."""
    gst = native().gst
    bus = gst.gst_element_get_bus(element)
    if not bus:
        return None
    try:
        message = gst.gst_bus_timed_pop_filtered(bus, 0, GST_MESSAGE_ERROR)
        if not message:
            return None
        error, debug = vp(), vp()
        gst.gst_message_parse_error(message, ctypes.byref(error), ctypes.byref(debug))
        text = _GError.from_address(error.value).message.decode(errors="replace")
        native().gobject.g_error_free(error)
        native().gobject.g_free(debug)
        gst.gst_mini_object_unref(message)
        return text
    finally:
        gst.gst_object_unref(bus)


class TensorSink:
    """A cudatensorsink: pull() tensors, or iterate until EOS.

    `sink` is the element as a C pointer (int) or a PyGObject Gst.Element;
    `pipeline` (same kinds, optional) is the bin whose bus reports errors.
    """

    def __init__(self, sink, pipeline=None):
        lib = native()
        self._lib = lib
        self._sink = self._pipeline = None
        pointer = _gpointer(sink)
        type_name = self._type_name(pointer)
        if type_name != b"GstCudaPrepTensorSink":
            raise TypeError("not a cudatensorsink: %s" % type_name.decode())
        self._sink = lib.gst.gst_object_ref(pointer)
        self._pipeline = lib.gst.gst_object_ref(_gpointer(pipeline)) if pipeline else None

    def _type_name(self, pointer):
        # GTypeInstance starts with its class, whose first member is the GType.
        klass = ctypes.c_void_p.from_address(pointer).value
        gtype = ctypes.c_size_t.from_address(klass).value
        return self._lib.gobject.g_type_name(gtype)

    @property
    def pointer(self):
        return self._sink

    def pull(self, timeout=None):
        """The next tensor, waiting at most `timeout` seconds (None: until
        one comes); None at EOS, on a flush, when stopped or on timeout."""
        if timeout is None:
            sample = self._lib.prep.gst_cuda_prep_tensor_sink_pull_tensor(self._sink)
        else:
            ns = max(0, int(timeout * 1e9))
            sample = self._lib.prep.gst_cuda_prep_tensor_sink_try_pull_tensor(self._sink, ns)
        return Tensor(sample) if sample else None

    def is_eos(self):
        return bool(self._lib.prep.gst_cuda_prep_tensor_sink_is_eos(self._sink))

    def __iter__(self):
        """Tensors until EOS; an error of the pipeline raises RuntimeError."""
        while True:
            tensor = self.pull()
            if tensor is not None:
                yield tensor
                continue
            error = _pop_error(self._pipeline) if self._pipeline else None
            if error:
                raise RuntimeError("the pipeline failed: " + error)
            return

    def __del__(self):
        try:
            if self._pipeline:
                self._lib.gst.gst_object_unref(self._pipeline)
            if self._sink:
                self._lib.gst.gst_object_unref(self._sink)
        except Exception:
            pass


class Pipeline:
    """gst_parse_launch(description), started with start(), stopped (NULL)
    by stop() or at the end of a `with` block."""

    def __init__(self, description):
        lib = native()
        self._lib = lib
        error = vp()
        self._pipeline = lib.gst.gst_parse_launch(description.encode(), ctypes.byref(error))
        if error.value:
            text = _GError.from_address(error.value).message.decode(errors="replace")
            lib.gobject.g_error_free(error)
            if self._pipeline:
                lib.gst.gst_object_unref(self._pipeline)
                self._pipeline = None
            raise ValueError("invalid pipeline: " + text)

    @property
    def pointer(self):
        return self._pipeline

    def element(self, name):
        """The element named `name` (a C pointer; unref with gst_object_unref)."""
        element = self._lib.gst.gst_bin_get_by_name(self._pipeline, name.encode())
        if not element:
            raise KeyError("no element named %r in the pipeline" % name)
        return element

    def sink(self, name="sink"):
        element = self.element(name)
        try:
            return TensorSink(element, self._pipeline)
        finally:
            self._lib.gst.gst_object_unref(element)

    def set(self, element_name, prop, value):
        """Sets a property from its string form (gst_util_set_object_arg)."""
        element = self.element(element_name)
        self._lib.gst.gst_util_set_object_arg(element, prop.encode(), str(value).encode())
        self._lib.gst.gst_object_unref(element)

    def set_pointer(self, element_name, prop, pointer):
        """Sets a pointer property (e.g. cuda-stream to an int cudaStream_t)."""
        element = self.element(element_name)
        self._lib.gobject.g_object_set(element, prop.encode(), pointer, None)
        self._lib.gst.gst_object_unref(element)

    def add_source(self, batch_name, uri, chain=None, **properties):
        """Adds a cudaprepsrc for `uri` to the batch element named
        `batch_name` while the pipeline plays (cudaprep.add_source); returns
        the Source, whose remove() takes it off again."""
        batch = self.element(batch_name)
        try:
            return _add_source(batch, uri, chain, **properties)
        finally:
            self._lib.gst.gst_object_unref(batch)

    def start(self):
        if self._lib.gst.gst_element_set_state(self._pipeline, GST_STATE_PLAYING) == \
                GST_STATE_CHANGE_FAILURE:
            error = _pop_error(self._pipeline)
            raise RuntimeError("the pipeline did not start: %s" % (error or "state change failed"))
        return self

    def error(self):
        """The pipeline's first pending error message, or None."""
        return _pop_error(self._pipeline)

    def stop(self):
        if self._pipeline:
            self._lib.gst.gst_element_set_state(self._pipeline, GST_STATE_NULL)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def __del__(self):
        try:
            if self._pipeline:
                self.stop()
                self._lib.gst.gst_object_unref(self._pipeline)
                self._pipeline = None
        except Exception:
            pass
