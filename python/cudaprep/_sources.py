"""Sources added to and removed from a running batch (cudabatch, or any
element with sink_%u request pads), through the C API of
gstcudaprepsources.h: no second implementation here."""
import ctypes

from ._native import _GError, _gpointer, native

vp = ctypes.c_void_p

# GTypes of the fields cudaprepsrc's stats hold.
_G_TYPE_BOOLEAN, _G_TYPE_UINT, _G_TYPE_UINT64, _G_TYPE_STRING = 5 << 2, 7 << 2, 11 << 2, 16 << 2


def _raise(error, what):
    text = _GError.from_address(error.value).message.decode(errors="replace")
    native().gobject.g_error_free(error)
    raise RuntimeError("%s: %s" % (what, text))


class Source:
    """A cudaprepsrc feeding a batch; made by add_source()."""

    def __init__(self, batch, element, pad):
        self._lib = native()
        self._batch = self._lib.gst.gst_object_ref(batch)
        self._element = element  # our reference
        self._pad = pad          # the batch's sink_N (our reference)

    @property
    def pointer(self):
        return self._element

    @property
    def pad_name(self):
        """The batch pad it feeds (sink_N: N is the items' source index)."""
        name = self._lib.gst.gst_object_get_name(self._pad)
        try:
            return ctypes.string_at(name).decode()
        finally:
            self._lib.gobject.g_free(name)

    def set(self, prop, value):
        """Sets a property of the source from its string form."""
        self._lib.gst.gst_util_set_object_arg(self._element, prop.encode(), str(value).encode())

    @property
    def stats(self):
        """cudaprepsrc's `stats` as a dict (uri masked)."""
        lib = self._lib
        structure = vp()
        lib.gobject.g_object_get(self._element, b"stats", ctypes.byref(structure), None)
        out = {}
        try:
            for i in range(lib.gst.gst_structure_n_fields(structure)):
                name = lib.gst.gst_structure_nth_field_name(structure, i)
                kind = lib.gst.gst_structure_get_field_type(structure, name)
                if kind == _G_TYPE_STRING:
                    value = lib.gst.gst_structure_get_string(structure, name).decode()
                elif kind == _G_TYPE_UINT64:
                    number = ctypes.c_uint64()
                    lib.gst.gst_structure_get_uint64(structure, name, ctypes.byref(number))
                    value = number.value
                elif kind == _G_TYPE_UINT:
                    number = ctypes.c_uint()
                    lib.gst.gst_structure_get_uint(structure, name, ctypes.byref(number))
                    value = number.value
                elif kind == _G_TYPE_BOOLEAN:
                    flag = ctypes.c_int()
                    lib.gst.gst_structure_get_boolean(structure, name, ctypes.byref(flag))
                    value = bool(flag.value)
                else:
                    continue
                out[name.decode()] = value
        finally:
            lib.gst.gst_structure_free(structure)
        return out

    def remove(self):
        """Takes the source off the batch while the pipeline plays."""
        if not self._element:
            return
        error = vp()
        ok = self._lib.prep.gst_cuda_prep_batch_remove_source(self._batch, self._element,
                                                                ctypes.byref(error))
        self._release()
        if not ok:
            _raise(error, "the source could not be removed")

    def _release(self):
        for attr in ("_pad", "_element", "_batch"):
            pointer = getattr(self, attr, None)
            if pointer:
                self._lib.gst.gst_object_unref(pointer)
                setattr(self, attr, None)

    def __del__(self):
        try:
            self._release()
        except Exception:
            pass


def add_source(batch, uri, chain=None, **properties):
    """Adds a cudaprepsrc for `uri` (with `chain` between its decoder and
    the batch, e.g. "cudaresize ! cudanormalize") to `batch` (a C pointer
    or a PyGObject element) while the pipeline plays. `properties` set the
    source's properties by name, underscores for dashes
    (reconnect_interval=500). Returns a Source."""
    lib = native()
    batch = _gpointer(batch)
    error = vp()
    element = lib.prep.gst_cuda_prep_source_new(uri.encode(), chain.encode() if chain else None,
                                                 ctypes.byref(error))
    if not element:
        _raise(error, "no source")
    lib.gst.gst_object_ref_sink(element)
    for name, value in properties.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        lib.gst.gst_util_set_object_arg(element, name.replace("_", "-").encode(),
                                        str(value).encode())
    pad = lib.prep.gst_cuda_prep_batch_add_source(batch, element, ctypes.byref(error))
    if not pad:
        lib.gst.gst_object_unref(element)
        _raise(error, "the source could not be added")
    return Source(batch, element, pad)
