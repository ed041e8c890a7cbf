"""Tensors of cudatensorsink and host arrays, with the DLPack protocol of
the Python array API (__dlpack__, __dlpack_device__)."""
import ctypes
import threading

from . import _dlpack
from ._dlpack import DLDeviceType
from ._native import GST_CLOCK_TIME_NONE, native

vp = ctypes.c_void_p

# GstCudaPrepTensorDataType -> (name, DLPack code, bits)
_DATA_TYPES = {
    1: ("int8", _dlpack.kDLInt, 8),
    2: ("int16", _dlpack.kDLInt, 16),
    3: ("int32", _dlpack.kDLInt, 32),
    4: ("int64", _dlpack.kDLInt, 64),
    6: ("uint8", _dlpack.kDLUInt, 8),
    7: ("uint16", _dlpack.kDLUInt, 16),
    8: ("uint32", _dlpack.kDLUInt, 32),
    9: ("uint64", _dlpack.kDLUInt, 64),
    10: ("float16", _dlpack.kDLFloat, 16),
    11: ("float32", _dlpack.kDLFloat, 32),
    12: ("float64", _dlpack.kDLFloat, 64),
    13: ("bfloat16", _dlpack.kDLBfloat, 16),
}
_BY_NAME = {name: (code, bits) for name, code, bits in _DATA_TYPES.values()}

_MAX_DIMS = 8

# GstCudaPrepDLPackFlags
_VERSIONED = 1 << 0
_CONSUMER_SYNCS = 1 << 1


# GstCudaPrepGeometry, GstCudaPrepTensorItem and GstCudaPrepTensor
# (gstcudaprepgeometry.h, gstcudaprepmeta.h), mirrored field by field: the
# binding reads the C tensor through them and hands them back to the C
# helpers.
# tests/test_geometry.py holds every size and offset against what the C
# compiler makes of the header (and test_gir.py the field names against the
# typelib's).

ORIENTATION_NAMES = ("identity", "90r", "180", "90l", "horiz", "vert", "ul-lr", "ur-ll")

# GST_CUDA_PREP_TENSOR_ITEM_WHOLE_FRAME
_WHOLE_FRAME = -1
# GstCudaPrepTensorImageLayout: images, then clips (T frames of one source
# per item).
_IMAGE_LAYOUTS = {0: "NCHW", 1: "NHWC", 2: "NCTHW", 3: "NTCHW"}
# G_MAXINT: the frame size the box helper gets when the caller knows none,
# and the extent of the tensor a Geometry of one's own is taken to be in.
_UNBOUNDED = 2**31 - 1
_UINT8, _NCHW = 6, 0


class Geometry(ctypes.Structure):
    """GstCudaPrepGeometry: out = R(src - crop) * scale + pad, in continuous
    pixel coordinates (pixel i covers [i, i + 1)), R the flip or rotation
    `orientation` (a GstVideoOrientationMethod value: 0 identity, 1 90r, 2
    180, 3 90l, 4 horiz, 5 vert, 6 ul-lr, 7 ur-ll) as a signed swap of the
    axes. With an orientation, crop is the source point at the turned
    image's top-left (90r of a W x H frame: (0, H)).

    The maths is the C library's: to_source() and to_output() call
    gst_cuda_prep_geometry_to_source() and _to_output(), box_to_source()
    gst_cuda_prep_tensor_box_to_source(). Geometry() starts from the
    identity (gst_cuda_prep_geometry_init_identity(): scale 1; it used to
    start all zero); arguments then set the fields in order, or by name:
    Geometry(crop_x, crop_y, scale_x, scale_y, pad_x, pad_y, orientation).
    """

    _fields_ = [(name, ctypes.c_double)
                for name in ("crop_x", "crop_y", "scale_x", "scale_y", "pad_x", "pad_y")]
    _fields_.append(("orientation", ctypes.c_int))

    def __init__(self, *args, **kwargs):
        native().prep.gst_cuda_prep_geometry_init_identity(ctypes.byref(self))
        super().__init__(*args, **kwargs)

    def _map(self, function, x, y):
        rx, ry = ctypes.c_double(), ctypes.c_double()
        function(ctypes.byref(self), float(x), float(y), ctypes.byref(rx), ctypes.byref(ry))
        return (rx.value, ry.value)

    def to_source(self, x, y):
        """A point of the output (tensor pixels) -> the source frame, as
        floats (gst_cuda_prep_geometry_to_source())."""
        return self._map(native().prep.gst_cuda_prep_geometry_to_source, x, y)

    def to_output(self, x, y):
        """A point of the source frame -> the output, as floats
        (gst_cuda_prep_geometry_to_output())."""
        return self._map(native().prep.gst_cuda_prep_geometry_to_output, x, y)

    def box_to_source(self, box, frame_size=None):
        """(x0, y0, x1, y1) in tensor pixels -> the same box in the source
        frame as floats, corners sorted (a flip or rotation exchanges them),
        clipped as gst_cuda_prep_tensor_box_to_source() clips it, which this
        calls: to the tensor, to the frame (frame_size = (width, height),
        integers, in source pixels) and, for a region item, to its region.
        None when nothing is left (the box lies wholly in the letterbox pad
        or outside the frame or region), when the item holds no frame (not
        below the tensor's batch_filled), for a zero or negative scale, or
        when the tensor is not a rank-4 uint8, float16 or float32 image
        tensor.

        A Tensor item's geometry (tensor.items[i].geometry) is clipped to
        that item of that tensor (also after Tensor.release(): the tensor's
        description is copied). A Geometry of one's own belongs to no tensor:
        it is taken as the one item of a tensor of unbounded size
        (2**31 - 1 pixels), so only coordinates below 0 are cut. Without
        frame_size the frame is unbounded likewise: the box is cut at the
        frame's left and top edges (0) but not at its right and bottom ones.

        Changed: this used to map the two corners with no clipping at all,
        and never returned None."""
        x0, y0, x1, y1 = (float(v) for v in box)
        if frame_size is None:
            width = height = _UNBOUNDED
        else:
            width, height = (max(-_UNBOUNDED - 1, min(_UNBOUNDED, int(v))) for v in frame_size)
        bound = getattr(self, "_item", None)
        if bound is None:
            tensor, index = _TensorCopy.lone(self), 0
        else:
            tensor, index = bound
        out = [ctypes.c_double() for _ in range(4)]
        if not native().prep.gst_cuda_prep_tensor_box_to_source(
                ctypes.byref(tensor.tensor), index, x0, y0, x1, y1, width, height,
                *(ctypes.byref(v) for v in out)):
            return None
        return tuple(v.value for v in out)

    def __repr__(self):
        orientation = self.orientation
        name = (ORIENTATION_NAMES[orientation] if 0 <= orientation < len(ORIENTATION_NAMES)
                else str(orientation))
        return ("Geometry(crop=(%g, %g), scale=(%g, %g), pad=(%g, %g), orientation=%s)" %
                (self.crop_x, self.crop_y, self.scale_x, self.scale_y, self.pad_x, self.pad_y,
                 name))


class _CTensorItem(ctypes.Structure):
    """GstCudaPrepTensorItem."""

    _fields_ = [
        ("pts", ctypes.c_uint64),
        ("geometry", Geometry),
        ("source_index", ctypes.c_int),
        ("region_id", ctypes.c_int),
        ("region_x", ctypes.c_int),
        ("region_y", ctypes.c_int),
        ("region_width", ctypes.c_int),
        ("region_height", ctypes.c_int),
    ]


class _CTensor(ctypes.Structure):
    """GstCudaPrepTensor."""

    _fields_ = [
        ("id", ctypes.c_uint32),
        ("layout", ctypes.c_int),
        ("data_type", ctypes.c_int),
        ("data", vp),
        ("dims_order", ctypes.c_int),
        ("num_dims", ctypes.c_size_t),
        ("dims", ctypes.c_size_t * _MAX_DIMS),
        ("strides", ctypes.c_size_t * _MAX_DIMS),
        ("image_layout", ctypes.c_int),
        ("device_id", ctypes.c_int),
        ("ready_event", vp),
        ("batch_size", ctypes.c_size_t),
        ("batch_filled", ctypes.c_size_t),
        ("items", ctypes.POINTER(_CTensorItem)),
        ("clip_length", ctypes.c_size_t),
        ("clip_filled", ctypes.POINTER(ctypes.c_size_t)),
        ("frame_pts", ctypes.POINTER(ctypes.c_uint64)),
    ]


class _TensorCopy:
    """A GstCudaPrepTensor in Python memory with its own copy of the items,
    for the box helper: outlives the sample it was copied from. `tensor`
    (the _CTensor) and `items` (its array, may be None) stay together."""

    def __init__(self, tensor, items):
        self.tensor = tensor
        self.items = items

    @classmethod
    def of(cls, c):
        """A copy of the C tensor `c` (a _CTensor over the C memory); its
        device pointer, ready event and clip arrays (the box helper reads
        none of them) are left out."""
        tensor = _CTensor()
        ctypes.memmove(ctypes.byref(tensor), ctypes.byref(c), ctypes.sizeof(_CTensor))
        tensor.data = None
        tensor.ready_event = None
        tensor.clip_filled = None
        tensor.frame_pts = None
        items = None
        if c.items:
            items = (_CTensorItem * max(c.batch_size, 1))()
            ctypes.memmove(items, c.items, ctypes.sizeof(_CTensorItem) * c.batch_size)
            tensor.items = ctypes.cast(items, ctypes.POINTER(_CTensorItem))
        return cls(tensor, items)

    @classmethod
    def lone(cls, geometry):
        """A tensor of unbounded size whose one item, filled, holds
        `geometry` (a copy) and no region: where a Geometry of one's own
        takes its boxes."""
        items = (_CTensorItem * 1)()
        items[0].pts = GST_CLOCK_TIME_NONE
        items[0].geometry = geometry
        items[0].region_id = _WHOLE_FRAME
        tensor = _CTensor(data_type=_UINT8, image_layout=_NCHW, num_dims=4,
                          batch_size=1, batch_filled=1,
                          items=ctypes.cast(items, ctypes.POINTER(_CTensorItem)))
        tensor.dims[:4] = (1, 1, _UNBOUNDED, _UNBOUNDED)
        return cls(tensor, items)


class Item:
    """One batch item: its source frame's PTS (ns, None if unknown), the
    geometry mapping its tensor pixels back to that frame
    (geometry.box_to_source() maps a detection back, clipped), the source it
    came from (source_index: cudabatch's sink_N, 0 for one stream) and, for
    a region item, region_id and region (x, y, width, height in source-frame
    pixels); a whole frame has region_id -1 and region None.

    An item of a clip tensor (layout NCTHW or NTCHW) is a clip: pts and
    geometry are its first frame's (every frame of a clip has the same
    geometry), clip_filled the frames written into it (the first ones; the
    rest of the clip is zeros) and frame_pts their PTS, a tuple in clip
    order (None for a frame without one). For an image tensor both are
    None."""

    def __init__(self, pts, geometry, source_index=0, region_id=_WHOLE_FRAME, region=None,
                 frame_pts=None):
        self.pts = pts
        self.geometry = geometry
        self.source_index = source_index
        self.region_id = region_id
        self.region = region
        self.frame_pts = frame_pts
        self.clip_filled = None if frame_pts is None else len(frame_pts)

    def __repr__(self):
        clip = "" if self.frame_pts is None else ", frame_pts=%r" % (self.frame_pts,)
        if self.region is None:
            return "Item(pts=%r, %r%s)" % (self.pts, self.geometry, clip)
        return "Item(pts=%r, %r, region_id=%d, region=%r%s)" % (
            self.pts, self.geometry, self.region_id, self.region, clip)


def _pts(value):
    return None if value == GST_CLOCK_TIME_NONE else value


def _clip_frame_pts(c, index):
    """Clip `index` of the C tensor `c`: its frames' PTS, a tuple
    (gst_cuda_prep_tensor_get_clip_frame_pts()); None for an image
    tensor."""
    if not c.clip_length:
        return None
    count = ctypes.c_size_t()
    pts = native().prep.gst_cuda_prep_tensor_get_clip_frame_pts(ctypes.byref(c), index,
                                                                ctypes.byref(count))
    return tuple(_pts(pts[frame]) for frame in range(count.value)) if pts else ()


def _check_stream_for_cpu(stream):
    if stream is not None:
        raise BufferError("a CPU array takes no stream: stream must be None (got %r)" % (stream,))


def _check_dl_device(dl_device, own):
    if dl_device is None:
        return False
    device = (int(dl_device[0]), int(dl_device[1]))
    if device == own:
        return False
    if device == (int(DLDeviceType.kDLCPU), 0):
        return True
    raise BufferError("cannot export to device %r (the array is on %r)" % (device, own))


class HostArray:
    """An array in host memory (a downloaded tensor, or any writable
    buffer), exported as a kDLCPU DLPack tensor: numpy.from_dlpack takes it
    zero-copy. Strides are in bytes, as NumPy's."""

    _live = {}  # managed-tensor address -> what it keeps alive
    _lock = threading.Lock()

    def __init__(self, buffer, shape, dtype, strides=None):
        if dtype not in _BY_NAME:
            raise ValueError("unknown dtype %r (one of %s)" % (dtype, ", ".join(_BY_NAME)))
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype
        code, bits = _BY_NAME[dtype]
        self.itemsize = bits // 8
        if strides is None:
            strides, step = [], self.itemsize
            for d in reversed(self.shape):
                strides.insert(0, step)
                step *= d
        self.strides = tuple(int(s) for s in strides)
        if len(self.strides) != len(self.shape):
            raise ValueError("shape and strides differ in length")
        if any(s % self.itemsize for s in self.strides):
            raise ValueError("strides %r are not multiples of the item size %d" %
                             (self.strides, self.itemsize))
        view = memoryview(buffer).cast("B")
        needed = 0 if 0 in self.shape else 1 + sum(
            (d - 1) * s for d, s in zip(self.shape, self.strides)) + self.itemsize - 1
        if view.nbytes < needed:
            raise ValueError("the buffer holds %d bytes, the array spans %d" % (view.nbytes, needed))
        if view.readonly:
            raise ValueError("HostArray needs a writable buffer (bytearray, ctypes array...)")
        self._buffer = buffer
        self._storage = (ctypes.c_char * view.nbytes).from_buffer(view)
        self._view = view

    @property
    def address(self):
        return ctypes.addressof(self._storage)

    def __dlpack_device__(self):
        return (DLDeviceType.kDLCPU, 0)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        _check_stream_for_cpu(stream)
        _check_dl_device(dl_device, (int(DLDeviceType.kDLCPU), 0))
        source = self
        if copy:
            source = HostArray(bytearray(self._view), self.shape, self.dtype, self.strides)
        return source._export(_dlpack.wants_versioned(max_version))

    def _export(self, versioned):
        code, bits = _BY_NAME[self.dtype]
        ndim = len(self.shape)
        shape = (ctypes.c_int64 * max(ndim, 1))(*self.shape)
        strides = (ctypes.c_int64 * max(ndim, 1))(*(s // self.itemsize for s in self.strides))
        struct = _dlpack.DLManagedTensorVersioned if versioned else _dlpack.DLManagedTensor
        managed = struct()
        tensor = managed.dl_tensor
        tensor.data = self.address
        tensor.device = _dlpack.DLDevice(int(DLDeviceType.kDLCPU), 0)
        tensor.ndim = ndim
        tensor.dtype = _dlpack.DLDataType(code, bits, 1)
        tensor.shape = shape
        tensor.strides = strides
        tensor.byte_offset = 0
        managed.deleter = _host_deleter
        if versioned:
            managed.version = _dlpack.DLPackVersion(1, 0)
            managed.flags = 0
        address = ctypes.addressof(managed)
        with HostArray._lock:
            HostArray._live[address] = (managed, shape, strides, self)
        return _dlpack.make_capsule(address, versioned)

    @classmethod
    def exported_count(cls):
        """Host exports whose deleter has not run yet (for tests)."""
        with cls._lock:
            return len(cls._live)

    def __repr__(self):
        return "HostArray(shape=%r, dtype=%s, strides=%r)" % (self.shape, self.dtype, self.strides)


@_dlpack.DELETER
def _host_deleter(address):
    with HostArray._lock:
        HostArray._live.pop(address, None)


def _stream_handle(stream):
    """__dlpack__'s stream for CUDA -> (handle, flags). None: the legacy
    default stream (1); -1: the consumer synchronises; 0 is ambiguous."""
    if stream is None:
        return 1, 0
    if not isinstance(stream, int):
        raise TypeError("stream must be an int (a cudaStream_t as an integer) or None")
    if stream == -1:
        return 0, _CONSUMER_SYNCS
    if stream == 0:
        raise ValueError("stream=0 is ambiguous in the array API: pass 1 for the legacy "
                         "default stream, 2 for the per-thread one")
    if stream < -1:
        raise ValueError("stream must be >= -1, got %d" % stream)
    return stream, 0


class Tensor:
    """A tensor pulled from cudatensorsink: device memory of the pipeline,
    zero-copy into PyTorch, CuPy, cuda.core... through DLPack. The consumer
    stream waits for the tensor on the GPU; when the consumer frees its
    array, the buffer goes back to the pipeline after that stream's reads.
    release() (or `with`) drops this object's own hold on the buffer.

    shape and strides (in bytes) have the tensor's rank, in memory order as
    layout names it: "NCHW" or "NHWC" for images, "NCTHW" or "NTCHW" for
    clips of T frames per item (video models); N is the items holding
    frames. items holds one Item per image or clip; a clip's Item also
    has frame_pts and clip_filled. DLPack and download() give the array at
    that rank."""

    def __init__(self, sample):
        """`sample`: a GstSample* (an int) whose reference this tensor owns;
        for PyGObject's Gst.Sample use Tensor.from_sample."""
        self._sample = sample  # a GstSample reference, owned
        lib = native()
        address = lib.prep.gst_cuda_prep_tensor_sink_sample_get_tensor(sample)
        if not address:
            lib.gst.gst_mini_object_unref(sample)
            self._sample = None
            raise ValueError("the sample holds no cudaprep tensor")
        self._c = _CTensor.from_address(address)
        c = self._c
        if c.data_type not in _DATA_TYPES:
            raise ValueError("tensor data type %d has no DLPack equivalent" % c.data_type)
        self.dtype = _DATA_TYPES[c.data_type][0]
        dims = list(c.dims[:c.num_dims])
        filled = c.batch_filled or c.batch_size
        if dims:
            dims[0] = filled
        self.shape = tuple(dims)
        self.strides = tuple(c.strides[:c.num_dims])
        self.layout = _IMAGE_LAYOUTS.get(c.image_layout, str(c.image_layout))
        self.device_id = c.device_id
        self.data_ptr = c.data or 0
        self.ready_event = c.ready_event or 0
        # Each item's geometry is a view into this copy, bound to its item,
        # so that box_to_source() clips to the item as C does.
        copy = _TensorCopy.of(c)
        items = []
        for index in range(filled):
            if copy.items is None or index >= c.batch_size:
                geometry = Geometry()
                geometry._item = (copy, index)
                items.append(Item(None, geometry))
                continue
            item = copy.items[index]
            geometry = item.geometry
            geometry._item = (copy, index)
            region = None
            if item.region_id != _WHOLE_FRAME:
                region = (item.region_x, item.region_y, item.region_width, item.region_height)
            items.append(Item(_pts(item.pts), geometry, item.source_index, item.region_id,
                              region, _clip_frame_pts(c, index)))
        self.items = items

    @classmethod
    def from_sample(cls, sample):
        """The tensor of a PyGObject Gst.Sample (e.g. pulled through the
        typelib: GstCudaPrep.TensorSink.pull_tensor); takes its own
        reference, so the Gst.Sample may be dropped."""
        pointer = _gst_sample_pointer(sample)
        return cls(native().gst.gst_mini_object_ref(pointer))

    @property
    def sample(self):
        """The GstSample* (an int) this tensor holds, for the C API."""
        self._check()
        return self._sample

    def _check(self):
        if self._sample is None:
            raise ValueError("the tensor was released")

    def release(self):
        """Drops this object's reference to the buffer (exports keep theirs)."""
        if self._sample is not None:
            native().gst.gst_mini_object_unref(self._sample)
            self._sample = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()

    def __del__(self):
        try:
            self.release()
        except Exception:  # interpreter shutdown: the libraries may be gone
            pass

    def __dlpack_device__(self):
        return (DLDeviceType.kDLCUDA, self.device_id)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self._check()
        if _check_dl_device(dl_device, (int(DLDeviceType.kDLCUDA), self.device_id)):
            if copy is False:
                raise BufferError("exporting to the CPU needs a copy, and copy=False")
            return self.download().__dlpack__(stream=stream, max_version=max_version)
        if copy:
            raise BufferError("cudaprep exports its device memory as is; copy=True on the "
                              "device is the consumer's to do")
        handle, flags = _stream_handle(stream)
        versioned = _dlpack.wants_versioned(max_version)
        if versioned:
            flags |= _VERSIONED
        address = native().prep.gst_cuda_prep_tensor_sink_sample_export_dlpack(
            self._sample, handle, flags)
        if not address:
            raise BufferError("the DLPack export failed (see the GStreamer log)")
        return _dlpack.make_capsule(address, versioned)

    def download(self):
        """A host copy of the tensor (a HostArray; numpy.from_dlpack takes it)."""
        self._check()
        prep = native().prep
        size = prep.gst_cuda_prep_tensor_sink_sample_get_size(self._sample)
        storage = (ctypes.c_char * size)()
        err = prep.gst_cuda_prep_tensor_sink_sample_download(self._sample, storage, size)
        if err != 0:
            raise RuntimeError("downloading the tensor failed (cudaError %d)" % err)
        return HostArray(storage, self.shape, self.dtype, _dense_strides(self))

    def __repr__(self):
        return "Tensor(shape=%r, dtype=%s, layout=%s, device=cuda:%d)" % (
            self.shape, self.dtype, self.layout, self.device_id)


def _dense_strides(tensor):
    step = _BY_NAME[tensor.dtype][1] // 8
    strides = []
    for d in reversed(tensor.shape):
        strides.insert(0, step)
        step *= d
    return strides


def _gst_sample_pointer(sample):
    """The GstSample* of a PyGObject Gst.Sample (borrowed). PyGObject gives
    boxed types no __gpointer__; its public PyGBoxed struct (pygobject.h) is
    PyObject_HEAD, then the boxed pointer, then its GType, which is checked
    against GstSample's before the pointer is trusted."""
    gtype = getattr(type(sample), "__gtype__", None)
    if gtype is None or getattr(gtype, "name", None) != "GstSample":
        raise TypeError("expected a PyGObject Gst.Sample, got %r" % (sample,))
    base = id(sample) + object.__basicsize__
    boxed_gtype = ctypes.c_size_t.from_address(base + ctypes.sizeof(vp)).value
    if boxed_gtype != native().gst.gst_sample_get_type():
        raise TypeError("this PyGObject's Gst.Sample does not have the PyGBoxed layout "
                        "of pygobject.h")
    pointer = vp.from_address(base).value
    if not pointer:
        raise ValueError("the Gst.Sample wraps no sample")
    return pointer
