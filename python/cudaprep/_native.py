"""ctypes binding of the C API (libgstreamer-1.0, libgstcudaprep-1.0).

No PyGObject needed. Libraries are found through CUDAPREP_LIB_DIR (a build
tree's gst-libs/gst/cudaprep/ folder), else the libdir meson installed into
(_config.py), else the dynamic loader's search path. The plugin is
registered from CUDAPREP_PLUGIN_DIR (a build tree's gst/cudaprep/, the
folder of libgstcudaprep.so), else the installed plugin folder.

The kernels are compiled at run time by NVRTC (docs/kernels.md). Where
neither CUDAPREP_NVRTC_LIBRARY nor the loader finds one, the NVRTC of a
PyPI wheel (nvidia-cuda-nvrtc, which PyTorch and CuPy install) is used.
"""
import ctypes
import os
import sys

try:
    from . import _config
except ImportError:  # running from the source tree
    _config = None

vp = ctypes.c_void_p
c_size = ctypes.c_size_t
c_u64 = ctypes.c_uint64

GST_CLOCK_TIME_NONE = 2**64 - 1


# Shared by the modules that call the C API (_pipeline, _sources, _warm).
class _GError(ctypes.Structure):
    _fields_ = [("domain", ctypes.c_uint32), ("code", ctypes.c_int), ("message", ctypes.c_char_p)]


def _gpointer(obj):
    """The C pointer of an int or of a PyGObject object (its __gpointer__)."""
    if isinstance(obj, int):
        return obj
    capsule = getattr(obj, "__gpointer__", None)
    if capsule is None:
        raise TypeError("expected a C pointer (int) or a PyGObject object, got %r" % (obj,))
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = vp
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return get(capsule, None)


def _load(name, folder):
    if folder:
        path = os.path.join(folder, name)
        if os.path.exists(path):
            return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    return ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)


def _setup(gst, gobject, prep):
    def proto(lib, name, restype, *argtypes):
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = list(argtypes)

    proto(gst, "gst_init_check", ctypes.c_int, vp, vp, vp)
    proto(gst, "gst_registry_get", vp)
    proto(gst, "gst_registry_scan_path", ctypes.c_int, vp, ctypes.c_char_p)
    proto(gst, "gst_parse_launch", vp, ctypes.c_char_p, ctypes.POINTER(vp))
    proto(gst, "gst_bin_get_by_name", vp, vp, ctypes.c_char_p)
    proto(gst, "gst_element_set_state", ctypes.c_int, vp, ctypes.c_int)
    proto(gst, "gst_element_get_state", ctypes.c_int, vp, vp, vp, c_u64)
    proto(gst, "gst_element_get_bus", vp, vp)
    proto(gst, "gst_bus_timed_pop_filtered", vp, vp, c_u64, ctypes.c_int)
    proto(gst, "gst_message_parse_error", None, vp, ctypes.POINTER(vp), ctypes.POINTER(vp))
    proto(gst, "gst_mini_object_ref", vp, vp)
    proto(gst, "gst_mini_object_unref", None, vp)
    proto(gst, "gst_object_ref", vp, vp)
    proto(gst, "gst_object_unref", None, vp)
    proto(gst, "gst_sample_get_buffer", vp, vp)
    proto(gst, "gst_sample_get_type", ctypes.c_size_t)
    proto(gst, "gst_util_set_object_arg", None, vp, ctypes.c_char_p, ctypes.c_char_p)
    proto(gst, "gst_element_factory_make", vp, ctypes.c_char_p, ctypes.c_char_p)
    proto(gst, "gst_object_ref_sink", vp, vp)
    proto(gobject, "g_object_set", None, vp, ctypes.c_char_p, vp, vp)
    # Reads one property: g_object_get(object, name, &value, NULL).
    proto(gobject, "g_object_get", None, vp, ctypes.c_char_p, vp, vp)
    proto(gst, "gst_object_ref_sink", vp, vp)
    proto(gst, "gst_object_get_name", vp, vp)
    proto(gst, "gst_element_get_static_pad", vp, vp, ctypes.c_char_p)
    proto(gst, "gst_structure_n_fields", ctypes.c_int, vp)
    proto(gst, "gst_structure_nth_field_name", ctypes.c_char_p, vp, ctypes.c_uint)
    proto(gst, "gst_structure_get_field_type", ctypes.c_size_t, vp, ctypes.c_char_p)
    proto(gst, "gst_structure_get_string", ctypes.c_char_p, vp, ctypes.c_char_p)
    proto(gst, "gst_structure_get_uint64", ctypes.c_int, vp, ctypes.c_char_p, vp)
    proto(gst, "gst_structure_get_uint", ctypes.c_int, vp, ctypes.c_char_p, vp)
    proto(gst, "gst_structure_get_boolean", ctypes.c_int, vp, ctypes.c_char_p, vp)
    proto(gst, "gst_structure_free", None, vp)
    proto(gobject, "g_type_name", ctypes.c_char_p, ctypes.c_size_t)
    proto(gobject, "g_free", None, vp)
    proto(gobject, "g_error_free", None, vp)

    proto(prep, "gst_cuda_prep_tensor_sink_get_type", ctypes.c_size_t)
    proto(prep, "gst_cuda_prep_tensor_sink_pull_tensor", vp, vp)
    proto(prep, "gst_cuda_prep_tensor_sink_try_pull_tensor", vp, vp, c_u64)
    proto(prep, "gst_cuda_prep_tensor_sink_is_eos", ctypes.c_int, vp)
    proto(prep, "gst_cuda_prep_tensor_sink_sample_get_tensor", vp, vp)
    proto(prep, "gst_cuda_prep_tensor_sink_sample_export_dlpack", vp, vp, vp, ctypes.c_int)
    proto(prep, "gst_cuda_prep_tensor_sink_sample_download", ctypes.c_int, vp, vp, c_size)
    proto(prep, "gst_cuda_prep_tensor_sink_sample_get_size", c_size, vp)
    proto(prep, "gst_cuda_prep_tensor_sink_sample_begin_read", ctypes.c_int, vp, vp)
    proto(prep, "gst_cuda_prep_tensor_sink_sample_end_read", ctypes.c_int, vp, vp)
    proto(prep, "gst_cuda_prep_tensor_get_item", ctypes.c_int, vp, c_size,
          ctypes.POINTER(c_u64), vp)
    proto(prep, "gst_cuda_prep_tensor_get_clip_frame_pts", ctypes.POINTER(c_u64), vp, c_size,
          ctypes.POINTER(c_size))
    # The geometry and the box helper (gstcudaprepmeta.h, gstcudaprepbox.h):
    # the module's Geometry maps points and boxes through these only.
    c_double, p_double = ctypes.c_double, ctypes.POINTER(ctypes.c_double)
    proto(prep, "gst_cuda_prep_geometry_init_identity", None, vp)
    proto(prep, "gst_cuda_prep_geometry_to_source", None, vp, c_double, c_double,
          p_double, p_double)
    proto(prep, "gst_cuda_prep_geometry_to_output", None, vp, c_double, c_double,
          p_double, p_double)
    proto(prep, "gst_cuda_prep_tensor_box_to_source", ctypes.c_int, vp, c_size,
          c_double, c_double, c_double, c_double, ctypes.c_int, ctypes.c_int,
          p_double, p_double, p_double, p_double)
    proto(prep, "gst_cuda_prep_memory_get_allocation_count", c_u64)
    # Sources on a running batch (gstcudaprepsources.h).
    proto(prep, "gst_cuda_prep_source_new", vp, ctypes.c_char_p, ctypes.c_char_p,
          ctypes.POINTER(vp))
    proto(prep, "gst_cuda_prep_batch_add_source", vp, vp, vp, ctypes.POINTER(vp))
    proto(prep, "gst_cuda_prep_batch_remove_source", ctypes.c_int, vp, vp, ctypes.POINTER(vp))
    # A pipeline's kernels compiled ahead of time (gstcudaprepwarm.h).
    proto(prep, "gst_cuda_prep_warm_kernels", ctypes.c_int, ctypes.c_char_p, ctypes.c_uint,
          ctypes.POINTER(vp))


# Where NVIDIA's wheels put NVRTC, below a folder of sys.path: CUDA 13's
# (one lib folder for the toolkit's wheels), then CUDA 12's.
_WHEEL_NVRTC = (
    os.path.join("nvidia", "cu13", "lib", "libnvrtc.so.13"),
    os.path.join("nvidia", "cuda_nvrtc", "lib", "libnvrtc.so.13"),
    os.path.join("nvidia", "cuda_nvrtc", "lib", "libnvrtc.so.12"),
)


def wheel_nvrtc(search_path):
    """The first NVRTC a wheel installed below a folder of `search_path`,
    or None."""
    for candidate in _WHEEL_NVRTC:
        for folder in search_path:
            path = os.path.join(folder, candidate)
            if os.path.isfile(path):
                return path
    return None


def _loader_finds_nvrtc():
    roots = [os.environ.get("CUDA_HOME"), "/usr/local/cuda"]
    names = ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"]
    names += [os.path.join(root, "lib64", name) for root in roots if root for name in names]
    for name in names:
        try:
            ctypes.CDLL(name)
            return True
        except OSError:
            continue
    return False


def _use_wheel_nvrtc():
    """Points the kernel runtime at a wheel's NVRTC when it would find none
    itself (the C side reads CUDAPREP_NVRTC_LIBRARY at its first compile)."""
    if os.environ.get("CUDAPREP_NVRTC_LIBRARY") or _loader_finds_nvrtc():
        return
    path = wheel_nvrtc(sys.path)
    if path:
        os.environ["CUDAPREP_NVRTC_LIBRARY"] = path


class _Native:
    """The loaded libraries, initialised once."""

    def __init__(self):
        _use_wheel_nvrtc()
        lib_dir = os.environ.get("CUDAPREP_LIB_DIR") or (_config.libdir if _config else None)
        plugin_dir = os.environ.get("CUDAPREP_PLUGIN_DIR") or (
            _config.plugindir if _config else None)
        self.gobject = _load("libgobject-2.0.so.0", None)
        self.gst = _load("libgstreamer-1.0.so.0", None)
        self.prep = _load("libgstcudaprep-1.0.so.0", lib_dir)
        _setup(self.gst, self.gobject, self.prep)
        if not self.gst.gst_init_check(None, None, None):
            raise RuntimeError("GStreamer could not be initialised (gst_init_check failed)")
        if plugin_dir:
            self.gst.gst_registry_scan_path(self.gst.gst_registry_get(), plugin_dir.encode())


_native = None


def native():
    global _native
    if _native is None:
        _native = _Native()
    return _native
