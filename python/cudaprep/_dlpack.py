"""DLPack structs and capsules through ctypes.

Capsule protocol (DLPack's Python spec): a producer returns a PyCapsule
named "dltensor" (DLManagedTensor, 0.x) or "dltensor_versioned"
(DLManagedTensorVersioned, 1.x); a consumer that takes it renames it
"used_dltensor"/"used_dltensor_versioned" and calls the deleter itself
later. The capsule's destructor therefore calls the deleter only while the
name is still the unconsumed one.
"""
import ctypes
import enum

vp = ctypes.c_void_p


class DLDeviceType(enum.IntEnum):
    """The device types of __dlpack_device__ (DLPack's DLDeviceType)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", vp),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


DELETER = ctypes.CFUNCTYPE(None, vp)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", vp), ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", vp),
        ("deleter", DELETER),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


# DLPack data type codes.
kDLInt, kDLUInt, kDLFloat, kDLBfloat = 0, 1, 2, 4

# Capsule names; module constants, so the pointers a capsule keeps stay valid.
NAME = b"dltensor"
NAME_VERSIONED = b"dltensor_versioned"

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [vp, ctypes.c_char_p, vp]
# The destructor gets the dying capsule: raw PyObject* (no new reference).
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [vp, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = vp
_api.PyCapsule_GetPointer.argtypes = [vp, ctypes.c_char_p]

_pyobj_api = ctypes.PyDLL(None)
_pyobj_api.PyCapsule_GetPointer.restype = vp
_pyobj_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_pyobj_api.PyCapsule_GetName.restype = ctypes.c_char_p
_pyobj_api.PyCapsule_GetName.argtypes = [ctypes.py_object]


def _destroy(capsule, name, struct):
    if _api.PyCapsule_IsValid(capsule, name):
        managed = struct.from_address(_api.PyCapsule_GetPointer(capsule, name))
        if managed.deleter:
            managed.deleter(ctypes.addressof(managed))


_DESTRUCTOR_TYPE = ctypes.CFUNCTYPE(None, vp)
_destroy_unversioned = _DESTRUCTOR_TYPE(lambda cap: _destroy(cap, NAME, DLManagedTensor))
_destroy_versioned = _DESTRUCTOR_TYPE(
    lambda cap: _destroy(cap, NAME_VERSIONED, DLManagedTensorVersioned))


def make_capsule(address, versioned):
    """A capsule owning the managed tensor at `address` until a consumer
    takes it; dropped unconsumed, its destructor calls the deleter."""
    if versioned:
        return _api.PyCapsule_New(address, NAME_VERSIONED,
                                  ctypes.cast(_destroy_versioned, vp).value)
    return _api.PyCapsule_New(address, NAME, ctypes.cast(_destroy_unversioned, vp).value)


def capsule_name(capsule):
    return _pyobj_api.PyCapsule_GetName(capsule)


def capsule_tensor(capsule):
    """The DLTensor of an unconsumed capsule (for inspection and tests)."""
    name = capsule_name(capsule)
    struct = DLManagedTensorVersioned if name == NAME_VERSIONED else DLManagedTensor
    managed = struct.from_address(_pyobj_api.PyCapsule_GetPointer(capsule, name))
    return managed


def wants_versioned(max_version):
    """Whether a consumer's max_version asks for DLPack 1.x."""
    if max_version is None:
        return False
    if not (isinstance(max_version, tuple) and len(max_version) == 2 and
            all(isinstance(v, int) for v in max_version)):
        raise TypeError("max_version must be a (major, minor) tuple of ints or None, got %r" %
                        (max_version,))
    return max_version[0] >= 1
