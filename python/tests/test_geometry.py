#!/usr/bin/env python3
"""The Python module's geometry is the C library's, without a GPU.

geometry_probe (geometry_probe.c, plain C against the public header) says
what the C compiler makes of GstCudaPrepGeometry / TensorItem / Tensor and
what the C helpers answer for tensors it builds from the C structs
themselves. Here: the module's ctypes mirrors have the compiler's sizes and
offsets; tensors built through the module's binding (a GstSample holding a
tensor meta, as cudatensorsink hands them out) give, through Tensor.items
and Geometry.box_to_source(), exactly the boxes the probe gets from
gst_cuda_prep_tensor_box_to_source() for the same numbers, over many random
geometries, orientations, regions and boxes partly outside the tensor, the
frame and the region; points map as gst_cuda_prep_geometry_to_source() and
_to_output() map them; and a few boxes land where the definition (out =
R(src - crop) * scale + pad, then clipping) puts them by hand. Clip
tensors (rank 5) come out with their shape, layout and each clip's frame
PTS.

    test_geometry.py PATH_OF_geometry_probe   (meson test passes it)
"""
import ctypes
import os
import random
import subprocess
import sys
import unittest

sys.path.insert(0, os.environ.get("CUDAPREP_PYTHON_DIR", os.path.join(os.path.dirname(__file__), "..")))

import cudaprep  # noqa: E402
from cudaprep import _tensor  # noqa: E402
from cudaprep._native import GST_CLOCK_TIME_NONE, native  # noqa: E402

PROBE = sys.argv.pop(1) if len(sys.argv) > 1 else os.environ.get("CUDAPREP_GEOMETRY_PROBE")
G_MAXINT = 2**31 - 1
SUPPORTED_TYPES = {6: 1, 10: 2, 11: 4}  # uint8, float16, float32 -> bytes
MIRRORS = {
    "GstCudaPrepGeometry": cudaprep.Geometry,
    "GstCudaPrepTensorItem": _tensor._CTensorItem,
    "GstCudaPrepTensor": _tensor._CTensor,
}


def probe(*args, stdin=""):
    if not PROBE:
        raise unittest.SkipTest("no geometry_probe given (meson test passes its path)")
    result = subprocess.run([PROBE, *args], input=stdin, capture_output=True, text=True,
                            check=False)
    if result.returncode != 0:
        raise AssertionError("geometry_probe %s failed: %s" % (" ".join(args), result.stderr))
    return result.stdout.splitlines()


def probe_layout():
    """{struct name: (size, align, [(field, offset, size, align)])}"""
    structs, current = {}, None
    for line in probe("layout"):
        kind, name, *numbers = line.split()
        numbers = [int(n) for n in numbers]
        if kind == "struct":
            current = structs[name] = (numbers[0], numbers[1], [])
        else:
            current[2].append((name, *numbers))
    return structs


def hexes(*values):
    return " ".join(float(v).hex() for v in values)


def geometry_fields(g):
    return (g.crop_x, g.crop_y, g.scale_x, g.scale_y, g.pad_x, g.pad_y)


def geometry_line(g):
    return "%s %d" % (hexes(*geometry_fields(g)), g.orientation)


def parse_box(line):
    words = line.split()
    if words[:2] == ["box", "0"]:
        return None
    assert words[:2] == ["box", "1"], line
    return tuple(float.fromhex(w) for w in words[2:])


# --- Tensors through the module's binding ------------------------------------

_protos_set = False


def _protos():
    global _protos_set
    lib = native()
    if not _protos_set:
        vp = ctypes.c_void_p
        glib = ctypes.CDLL("libglib-2.0.so.0")
        glib.g_malloc0.restype = vp
        glib.g_malloc0.argtypes = [ctypes.c_size_t]
        lib.gst.gst_buffer_new.restype = vp
        lib.gst.gst_buffer_new.argtypes = []
        lib.gst.gst_sample_new.restype = vp
        lib.gst.gst_sample_new.argtypes = [vp, vp, vp, vp]
        lib.prep.gst_buffer_add_cuda_prep_tensor_meta.restype = vp
        lib.prep.gst_buffer_add_cuda_prep_tensor_meta.argtypes = [vp, ctypes.c_size_t]
        lib.glib = glib
        _protos_set = True
    return lib


class TensorSpec:
    """A tensor as both sides build it: NCHW/NHWC dims, data type, items
    (pts, Geometry, source_index, region_id, (x, y, w, h))."""

    def __init__(self, image_layout, data_type, num_dims, n, c, h, w, filled, items):
        self.image_layout, self.data_type, self.num_dims = image_layout, data_type, num_dims
        self.width, self.height = w, h
        self.dims = (n, c, h, w) if image_layout == 0 else (n, h, w, c)
        self.filled = filled
        self.items = items

    def probe_lines(self):
        lines = ["tensor %d %d %d %d %d %d %d %d %d" % (
            self.image_layout, self.data_type, self.num_dims, *self.dims, self.dims[0],
            self.filled)]
        for _, geometry, _, _, region in self.items:
            lines.append("item %s %d %d %d %d" % (geometry_line(geometry), *region))
        return lines

    def make(self):
        """A cudaprep.Tensor over a GstSample whose buffer carries this
        tensor in a tensor meta, written through the module's _CTensor."""
        sample, c = sample_with_c_tensor()
        c.id = 1
        c.data_type = self.data_type
        c.image_layout = self.image_layout
        c.num_dims = self.num_dims
        step = SUPPORTED_TYPES.get(self.data_type, 4)
        for axis in (3, 2, 1, 0):
            c.dims[axis] = self.dims[axis]
            c.strides[axis] = step
            step *= self.dims[axis]
        c.batch_size = self.dims[0]
        c.batch_filled = self.filled
        c.items = g_array(_tensor._CTensorItem, self.dims[0])
        for index, (pts, geometry, source_index, region_id, region) in enumerate(self.items):
            item = c.items[index]
            item.pts = GST_CLOCK_TIME_NONE if pts is None else pts
            item.geometry = geometry
            item.source_index = source_index
            item.region_id = region_id
            item.region_x, item.region_y, item.region_width, item.region_height = region
        return cudaprep.Tensor(sample)


def sample_with_c_tensor():
    """(GstSample*, its zeroed tensor as the module's _CTensor): a sample
    whose buffer carries a one-tensor meta, as cudatensorsink hands out."""
    lib = _protos()
    buffer = lib.gst.gst_buffer_new()
    if not lib.prep.gst_buffer_add_cuda_prep_tensor_meta(buffer, 1):
        raise AssertionError("building the tensor meta failed")
    sample = lib.gst.gst_sample_new(buffer, None, None, None)
    lib.gst.gst_mini_object_unref(buffer)
    address = lib.prep.gst_cuda_prep_tensor_sink_sample_get_tensor(sample)
    if not address:
        raise AssertionError("the sample holds no tensor")
    return sample, _tensor._CTensor.from_address(address)


def g_array(element, count):
    """A zeroed array of `count` ctypes `element`s from g_malloc0, as a
    pointer: the meta frees its arrays with g_free."""
    memory = _protos().glib.g_malloc0(ctypes.sizeof(element) * count)
    return ctypes.cast(memory, ctypes.POINTER(element))


ORIENTATION_CORNER = {  # where the turned image's top-left lies in a w x h rectangle
    0: (0, 0), 1: (0, 1), 2: (1, 1), 3: (1, 0), 4: (1, 0), 5: (0, 1), 6: (0, 0), 7: (1, 1)}
SWAPS = {1, 3, 6, 7}


def letterbox(rect, tensor_w, tensor_h, orientation):
    """The geometry of a resize with borders of `rect` (x, y, w, h in the
    frame), turned by `orientation`, into tensor_w x tensor_h: test input,
    built as cudaresize builds it (centred letterbox)."""
    x, y, w, h = rect
    turned_w, turned_h = (h, w) if orientation in SWAPS else (w, h)
    scale = min(tensor_w / turned_w, tensor_h / turned_h)
    cx, cy = ORIENTATION_CORNER[orientation]
    return cudaprep.Geometry(x + cx * w, y + cy * h, scale, scale,
                             (tensor_w - turned_w * scale) / 2, (tensor_h - turned_h * scale) / 2,
                             orientation)


def random_geometry(rng, tensor_w, tensor_h, frame):
    """Mostly a letterbox of the frame or of a region of it; else anything,
    a zero or negative scale and an unknown orientation now and then.
    -> (Geometry, region_id, (x, y, w, h) or zeros)"""
    frame_w, frame_h = frame
    orientation = rng.randrange(8)
    pick = rng.random()
    if pick < 0.35:
        whole = (0, 0, frame_w, frame_h)
        return letterbox(whole, tensor_w, tensor_h, orientation), -1, (0, 0, 0, 0)
    if pick < 0.75:
        rx, ry = rng.randrange(frame_w), rng.randrange(frame_h)
        rect = (rx, ry, rng.randint(1, frame_w - rx), rng.randint(1, frame_h - ry))
        if rng.random() < 0.1:  # a region reaching past the frame
            rect = (rx, ry, frame_w, frame_h)
        return letterbox(rect, tensor_w, tensor_h, orientation), rng.randrange(100), rect
    geometry = cudaprep.Geometry(rng.uniform(-100, 2000), rng.uniform(-100, 2000),
                                 rng.uniform(0.05, 3), rng.uniform(0.05, 3),
                                 rng.uniform(-50, 300), rng.uniform(-50, 300), orientation)
    if rng.random() < 0.1:
        setattr(geometry, rng.choice(("scale_x", "scale_y")), rng.choice((0.0, -0.5)))
    if rng.random() < 0.05:
        geometry.orientation = rng.choice((-1, 8, 9))  # C takes it as the identity
    region = (0, 0, 0, 0)
    if rng.random() < 0.3:
        region = (rng.randrange(-50, 1500), rng.randrange(-50, 1500), rng.randrange(-5, 800),
                  rng.randrange(-5, 800))
    return geometry, rng.randrange(-1, 5), region


def random_box(rng, width, height):
    def coordinate(extent):
        if rng.random() < 0.2:
            return float(rng.randint(-extent // 3, extent + extent // 3))
        return rng.uniform(-0.3 * extent, 1.3 * extent)
    x0, y0, x1, y1 = coordinate(width), coordinate(height), coordinate(width), coordinate(height)
    if rng.random() < 0.05:
        x1 = x0  # degenerate
    return (x0, y0, x1, y1)


class Layout(unittest.TestCase):
    """The ctypes mirrors against the C compiler's layout of the header."""

    def test_mirrors_have_the_c_sizes_and_offsets(self):
        layout = probe_layout()
        self.assertEqual(set(layout), set(MIRRORS))
        for name, mirror in MIRRORS.items():
            size, align, fields = layout[name]
            ours = [(field, getattr(mirror, field).offset, getattr(mirror, field).size)
                    for field, _ in mirror._fields_]
            theirs = [(field, offset, field_size) for field, offset, field_size, _ in fields]
            self.assertEqual(ours, theirs, name)
            self.assertEqual(ctypes.sizeof(mirror), size, name)
            self.assertEqual(ctypes.alignment(mirror), align, name)

    def test_the_probe_lists_every_field(self):
        # The fields it names fill each struct but for alignment padding: a
        # field added to the header, not to the probe, would leave a hole.
        # (One hiding in the tail padding would not; test_gir.py compares
        # the names with the typelib's.)
        for name, (size, align, fields) in probe_layout().items():
            end = 0
            for field, offset, field_size, field_align in fields:
                self.assertEqual(offset, -(-end // field_align) * field_align,
                                 "%s: a hole before %s" % (name, field))
                end = offset + field_size
            self.assertEqual(size, -(-end // align) * align, "%s: a hole at the end" % name)


class Parity(unittest.TestCase):
    """The module's answers are the C library's, bit for bit."""

    def test_tensor_items_box_like_c(self):
        rng = random.Random(22)
        lines, ours, seen = [], [], {"none": 0, "tensor": 0, "frame": 0, "region": 0,
                                     "inside": 0, "no_frame": 0, "unsupported": 0}
        tensors = []
        for _ in range(300):
            tensor_w, tensor_h = rng.randint(1, 700), rng.randint(1, 700)
            frame = (rng.randint(16, 1920), rng.randint(16, 1080))
            batch = rng.randint(1, 4)
            filled = batch if rng.random() < 0.7 else rng.randint(0, batch)
            items = []
            for _ in range(batch):
                geometry, region_id, region = random_geometry(rng, tensor_w, tensor_h, frame)
                pts = None if rng.random() < 0.2 else rng.randrange(10**12)
                items.append((pts, geometry, rng.randrange(4), region_id, region))
            data_type = rng.choice((6, 10, 11)) if rng.random() < 0.95 else 3  # 3: int32
            num_dims = 4 if rng.random() < 0.97 else 3
            spec = TensorSpec(rng.randrange(2), data_type, num_dims, batch, rng.randint(1, 4),
                              tensor_h, tensor_w, filled, items)
            tensor = spec.make()
            tensors.append(tensor)
            lines += spec.probe_lines()
            self.assertEqual(len(tensor.items), filled or batch)
            for index, item in enumerate(tensor.items):
                pts, geometry, source_index, region_id, region = items[index]
                self.assertEqual(item.pts, pts)
                self.assertEqual(geometry_fields(item.geometry), geometry_fields(geometry))
                self.assertEqual(item.geometry.orientation, geometry.orientation)
                self.assertEqual((item.source_index, item.region_id), (source_index, region_id))
                self.assertEqual(item.region, None if region_id == -1 else region)
            for _ in range(20):
                index = rng.randrange(len(tensor.items))
                box = random_box(rng, tensor_w, tensor_h)
                frame_size = None if rng.random() < 0.2 else (
                    frame if rng.random() < 0.7 else (rng.randint(-5, 2000), rng.randint(-5, 1200)))
                result = tensor.items[index].geometry.box_to_source(box, frame_size)
                ours.append(result)
                size = (G_MAXINT, G_MAXINT) if frame_size is None else frame_size
                lines.append("box %d %s %d %d" % (index, hexes(*box), *size))
                # What the random boxes exercise.
                region = items[index][4]
                if data_type not in SUPPORTED_TYPES or num_dims != 4:
                    seen["unsupported"] += 1
                if result is None:
                    seen["none"] += 1
                    continue
                if min(box[0], box[2]) < 0 or max(box[0], box[2]) > tensor_w or \
                        min(box[1], box[3]) < 0 or max(box[1], box[3]) > tensor_h:
                    seen["tensor"] += 1
                if frame_size is None:
                    seen["no_frame"] += 1
                elif result[2] == size[0] or result[3] == size[1]:
                    seen["frame"] += 1
                if region[2] > 0 and region[3] > 0 and (
                        result[0] == region[0] or result[1] == region[1] or
                        result[2] == region[0] + region[2] or result[3] == region[1] + region[3]):
                    seen["region"] += 1
                if result[0] > 0 and result[1] > 0:
                    seen["inside"] += 1
        theirs = [parse_box(line) for line in probe("run", stdin="\n".join(lines) + "\n")]
        self.assertEqual(len(theirs), len(ours))
        for number, (mine, c) in enumerate(zip(ours, theirs)):
            self.assertEqual(mine, c, "box %d" % number)
        for what, count in seen.items():
            self.assertGreater(count, 30, "too few random boxes exercise %s: %r" % (what, seen))
        # The copies the items hold outlive the samples.
        def fixed_boxes():
            return [item.geometry.box_to_source((-5, -5, 100, 100), (1920, 1080))
                    for tensor in tensors for item in tensor.items]
        before = fixed_boxes()
        for tensor in tensors:
            tensor.release()
        self.assertEqual(fixed_boxes(), before)
        self.assertGreater(sum(box is not None for box in before), 30)

    def test_own_geometries_box_like_c_on_an_unbounded_tensor(self):
        # A Geometry of one's own: the one item of a 2**31 - 1 square tensor.
        rng = random.Random(23)
        lines, ours = [], []
        for _ in range(300):
            geometry, _, _ = random_geometry(rng, 640, 480, (1920, 1080))
            lines.append("tensor 0 6 4 1 1 %d %d 1 1" % (G_MAXINT, G_MAXINT))
            lines.append("item %s 0 0 0 0" % geometry_line(geometry))
            for _ in range(5):
                box = random_box(rng, 640, 480)
                frame_size = None if rng.random() < 0.5 else (1920, 1080)
                ours.append(geometry.box_to_source(box, frame_size))
                size = (G_MAXINT, G_MAXINT) if frame_size is None else frame_size
                lines.append("box 0 %s %d %d" % (hexes(*box), *size))
        theirs = [parse_box(line) for line in probe("run", stdin="\n".join(lines) + "\n")]
        self.assertEqual(ours, theirs)
        self.assertGreater(sum(box is None for box in ours), 30)
        self.assertGreater(sum(box is not None for box in ours), 300)

    def test_points_map_like_c(self):
        rng = random.Random(24)
        lines, ours = [], []
        for _ in range(2000):
            geometry, _, _ = random_geometry(rng, 640, 480, (1920, 1080))
            x, y = rng.uniform(-500, 2500), rng.uniform(-500, 2500)
            lines.append("point %s %s" % (geometry_line(geometry), hexes(x, y)))
            ours.append(geometry.to_source(x, y) + geometry.to_output(x, y))
        theirs = [tuple(float.fromhex(w) for w in line.split()[1:])
                  for line in probe("run", stdin="\n".join(lines) + "\n")]
        self.assertEqual(len(ours), len(theirs))
        for number, (mine, c) in enumerate(zip(ours, theirs)):
            # NaN (a zero scale) compares by its text.
            self.assertEqual([repr(v) for v in mine], [repr(v) for v in c], "point %d" % number)


class ByHand(unittest.TestCase):
    """Boxes worked out from the definition: out = R(src - crop) * scale +
    pad; the box is cut to the tensor, mapped, sorted, cut to the frame and
    to a region item's rectangle."""

    def item(self, geometry, tensor_w=640, tensor_h=640, region_id=-1, region=(0, 0, 0, 0),
             batch=2, filled=1):
        items = [(1000, geometry, 0, region_id, region)]
        items += [(None, cudaprep.Geometry(), 0, -1, (0, 0, 0, 0))] * (batch - 1)
        tensor = TensorSpec(0, 11, 4, batch, 3, tensor_h, tensor_w, filled, items).make()
        self.assertEqual(len(tensor.items), filled)
        return tensor, tensor.items[0]

    def assertBox(self, got, expected):
        self.assertIsNotNone(got)
        for g, e in zip(got, expected):
            self.assertAlmostEqual(g, e, places=9, msg="%r != %r" % (got, expected))

    def test_letterbox_cuts_the_tensor_the_pad_and_the_frame(self):
        # 1920x1080 into 640x640: scale 1/3, 140 rows of pad above and below.
        tensor, item = self.item(cudaprep.Geometry(0, 0, 1 / 3, 1 / 3, 0, 140))
        # x from -10 to 700 is cut to the tensor's 0..640 -> 0..1920; y 100
        # (in the top pad) -> (100 - 140) * 3 = -120, cut to the frame's 0;
        # y 200 -> 180.
        self.assertBox(item.geometry.box_to_source((-10, 100, 700, 200), (1920, 1080)),
                       (0, 0, 1920, 180))
        # The same box given the other way round.
        self.assertBox(item.geometry.box_to_source((700, 200, -10, 100), (1920, 1080)),
                       (0, 0, 1920, 180))
        # Wholly in the top pad (rows 0..140): nothing left.
        self.assertIsNone(item.geometry.box_to_source((10, 0, 50, 130), (1920, 1080)))
        # A frame narrower than the mapping: cut at 1000.
        self.assertBox(item.geometry.box_to_source((300, 200, 400, 300), (1000, 1080)),
                       (900, 180, 1000, 480))
        # Without a frame size: cut only where the frame starts.
        self.assertBox(item.geometry.box_to_source((600, 100, 640, 700)), (1800, 0, 1920, 1500))

    def test_region_item_is_cut_to_its_region(self):
        # Region (100, 200, 400, 300) at scale 1 in the top-left of a 640x640
        # tensor (the rest is pad): (350, 250)-(500, 350) -> (450, 450)-(600,
        # 550), cut to the region's right (500) and bottom (500) edges.
        region = (100, 200, 400, 300)
        tensor, item = self.item(cudaprep.Geometry(100, 200), region_id=7, region=region)
        self.assertEqual((item.region_id, item.region), (7, region))
        self.assertBox(item.geometry.box_to_source((350, 250, 500, 350), (1920, 1080)),
                       (450, 450, 500, 500))
        # A Geometry of one's own with the same numbers knows no region.
        own = cudaprep.Geometry(100, 200)
        self.assertBox(own.box_to_source((350, 250, 500, 350), (1920, 1080)),
                       (450, 450, 600, 550))
        # Wholly in the pad right of the region.
        self.assertIsNone(item.geometry.box_to_source((420, 10, 600, 100), (1920, 1080)))

    def test_turned_clockwise(self):
        # A 1920x1080 frame turned 90r into 540x960 at scale 0.5: the output's
        # top-left is the source's (0, 1080); R = (x, y) -> (-y, x), so
        # src = (out_y / 0.5, 1080 - out_x / 0.5).
        tensor, item = self.item(cudaprep.Geometry(0, 1080, 0.5, 0.5, 0, 0, 1), 540, 960)
        self.assertBox(item.geometry.box_to_source((10, 20, 110, 220), (1920, 1080)),
                       (40, 860, 440, 1060))
        # Reaching past the tensor's right edge (540): x is cut to 540, so
        # (500, 0)-(540, 100) -> corners (0, 80) and (200, 0).
        self.assertBox(item.geometry.box_to_source((500, 0, 600, 100), (1920, 1080)),
                       (0, 0, 200, 80))

    def test_unfilled_item_and_zero_scale_give_none(self):
        tensor, item = self.item(cudaprep.Geometry(), batch=2, filled=1)
        self.assertBox(item.geometry.box_to_source((1, 2, 3, 4), (100, 100)), (1, 2, 3, 4))
        # batch_filled 0: the module lists every item (as the sink exports
        # them all), but to the box helper none holds a frame.
        tensor = TensorSpec(0, 11, 4, 2, 3, 64, 64, 0,
                            [(None, cudaprep.Geometry(), 0, -1, (0, 0, 0, 0))] * 2).make()
        self.assertEqual(len(tensor.items), 2)
        self.assertIsNone(tensor.items[0].geometry.box_to_source((1, 2, 3, 4), (100, 100)))
        geometry = cudaprep.Geometry(scale_x=0.0)
        self.assertIsNone(geometry.box_to_source((1, 2, 3, 4), (100, 100)))

    def test_own_geometry_starts_at_identity(self):
        geometry = cudaprep.Geometry()
        self.assertEqual(geometry_fields(geometry) + (geometry.orientation,),
                         (0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0))
        geometry = cudaprep.Geometry(5.0, 6.0, pad_y=2.0)
        self.assertEqual(geometry_fields(geometry), (5.0, 6.0, 1.0, 1.0, 0.0, 2.0))
        self.assertEqual(geometry.to_source(1, 3), (6.0, 7.0))
        self.assertEqual(geometry.to_output(6, 7), (1.0, 3.0))



class Clips(unittest.TestCase):
    """A clip tensor (5 dims, T frames per item) through the module: its
    shape, strides and layout, and each clip's frames and their PTS."""

    def make(self, image_layout, dims, filled, clip_filled, frame_pts):
        sample, c = sample_with_c_tensor()
        c.data_type = 11  # float32
        c.image_layout = image_layout
        c.num_dims = 5
        step = 4
        for axis in reversed(range(5)):
            c.dims[axis] = dims[axis]
            c.strides[axis] = step
            step *= dims[axis]
        batch, clip_length = dims[0], dims[2 if image_layout == 2 else 1]
        c.batch_size, c.batch_filled, c.clip_length = batch, filled, clip_length
        c.items = g_array(_tensor._CTensorItem, batch)
        c.clip_filled = g_array(ctypes.c_size_t, batch)
        c.frame_pts = g_array(ctypes.c_uint64, batch * clip_length)
        for index in range(batch):
            written = [GST_CLOCK_TIME_NONE if pts is None else pts for pts in frame_pts[index]]
            padded = written + [GST_CLOCK_TIME_NONE] * (clip_length - len(written))
            c.items[index].pts = padded[0]
            c.items[index].region_id = -1
            c.clip_filled[index] = clip_filled[index]
            for frame, pts in enumerate(padded):
                c.frame_pts[index * clip_length + frame] = pts
        return cudaprep.Tensor(sample)

    def test_ncthw_clips_shape_layout_and_frames(self):
        # N = 3, C = 3, T = 4, H = 2, W = 5; two clips filled, the second cut
        # short after two frames, the third padding.
        tensor = self.make(2, (3, 3, 4, 2, 5), 2, (4, 2, 0),
                           ((100, 200, 300, 400), (500, 600), ()))
        self.assertEqual(tensor.layout, "NCTHW")
        self.assertEqual(tensor.shape, (2, 3, 4, 2, 5))
        self.assertEqual(tensor.strides, (3 * 4 * 2 * 5 * 4, 4 * 2 * 5 * 4, 2 * 5 * 4, 5 * 4, 4))
        self.assertEqual(len(tensor.items), 2)
        self.assertEqual(tensor.items[0].frame_pts, (100, 200, 300, 400))
        self.assertEqual(tensor.items[0].clip_filled, 4)
        self.assertEqual(tensor.items[0].pts, 100)
        self.assertEqual(tensor.items[1].frame_pts, (500, 600))
        self.assertEqual(tensor.items[1].clip_filled, 2)
        tensor.release()

    def test_ntchw_layout_and_a_frame_without_pts(self):
        tensor = self.make(3, (1, 2, 3, 4, 4), 1, (2,), ((None, 7),))
        self.assertEqual(tensor.layout, "NTCHW")
        self.assertEqual(tensor.shape, (1, 2, 3, 4, 4))
        self.assertEqual(tensor.items[0].frame_pts, (None, 7))
        tensor.release()

    def test_image_items_have_no_clip_fields(self):
        tensor = TensorSpec(1, 11, 4, 2, 3, 8, 8, 2,
                            [(5, cudaprep.Geometry(), 0, -1, (0, 0, 0, 0))] * 2).make()
        self.assertEqual(tensor.layout, "NHWC")
        self.assertIsNone(tensor.items[0].frame_pts)
        self.assertIsNone(tensor.items[0].clip_filled)
        tensor.release()

if __name__ == "__main__":
    unittest.main()
