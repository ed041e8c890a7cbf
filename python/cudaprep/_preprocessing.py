"""A model's own preprocessing config as a cudaprep chain, asked of the
cudapreprocess element (gst/cudaprep/modelconfig/: one implementation)."""
import collections
import ctypes

from ._native import native

Preprocessing = collections.namedtuple("Preprocessing", ["fragment", "shape"])
Preprocessing.__doc__ = """The chain for a model config.

fragment: the elements in gst_parse syntax, e.g. "cudaresize method=bicubic
    ... ! video/x-raw(memory:CUDAPitched),format=RGB,width=455,height=256 !
    cudacrop ... ! cudanormalize ... ! cudatensorize layout=nchw" (a shell
    needs the caps quoted);
shape: the tensor's dims in its layout's order, e.g. (1, 3, 224, 224)."""


def _string_property(lib, element, name):
    value = ctypes.c_char_p()
    lib.gobject.g_object_get(element, name.encode(), ctypes.byref(value), None)
    if not value.value:
        return None
    text = value.value.decode()
    lib.gobject.g_free(ctypes.cast(value, ctypes.c_void_p))
    return text


def preprocessing_for(path, frame_size=None):
    """The cudaprep chain and tensor shape reproducing the model config at
    `path` (a Hugging Face preprocessor_config.json, a timm config.json,
    cudaprep's torchvision or ultralytics-letterbox JSON form, a GStreamer
    .modelinfo; docs/model-configs.md).

    frame_size=(width, height) is needed by configs whose resize follows the
    frame (shortest edge, kept aspect ratio). Raises ValueError naming the
    file and the key when the config cannot be reproduced exactly.
    """
    lib = native()
    element = lib.gst.gst_element_factory_make(b"cudapreprocess", None)
    if not element:
        raise RuntimeError("the cudapreprocess element is not registered: set "
                           "CUDAPREP_PLUGIN_DIR to the folder of libgstcudaprep.so")
    lib.gst.gst_object_ref_sink(element)
    try:
        if frame_size is not None:
            width, height = frame_size
            lib.gst.gst_util_set_object_arg(element, b"frame-width", str(int(width)).encode())
            lib.gst.gst_util_set_object_arg(element, b"frame-height", str(int(height)).encode())
        lib.gst.gst_util_set_object_arg(element, b"model-config", str(path).encode())
        error = _string_property(lib, element, "config-error")
        if error is not None:
            raise ValueError(error)
        fragment = _string_property(lib, element, "launch-fragment")
        shape = tuple(int(dim) for dim in _string_property(lib, element, "tensor-shape").split("x"))
        return Preprocessing(fragment, shape)
    finally:
        lib.gst.gst_object_unref(element)
