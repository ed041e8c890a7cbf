#!/usr/bin/env python3
"""The typelib in PyGObject: it loads, lists the API, and a pipeline built
with Gst.parse_launch hands its cudatensorsink to the sink's methods and to
the cudaprep module. No GPU needed. Exits 77 without PyGObject."""
import ctypes
import os
import sys
import unittest

sys.path.insert(0, os.environ.get("CUDAPREP_PYTHON_DIR", os.path.join(os.path.dirname(__file__), "..")))
try:
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstCudaPrep", "1.0")
    from gi.repository import Gst, GstCudaPrep
except (ImportError, ValueError) as error:
    print("SKIP: PyGObject or the typelib is missing: %s" % error)
    sys.exit(77)

import cudaprep  # noqa: E402

Gst.init(None)
Gst.Registry.get().scan_path(os.environ.get("CUDAPREP_PLUGIN_DIR", ""))


class Typelib(unittest.TestCase):
    def test_lists_the_api(self):
        sink_methods = {m.get_name() for m in GstCudaPrep.TensorSink.__info__.get_methods()}
        for name in ("pull_tensor", "try_pull_tensor", "is_eos", "sample_get_tensor",
                     "sample_get_size", "set_callbacks"):
            self.assertIn(name, sink_methods)
        tensor_methods = {m.get_name() for m in GstCudaPrep.Tensor.__info__.get_methods()}
        for name in ("get_dims", "get_strides", "get_item", "get_data_address", "box_to_source"):
            self.assertIn(name, tensor_methods)
        self.assertTrue(callable(GstCudaPrep.warm_kernels))
        self.assertEqual(GstCudaPrep.TensorDataType.FLOAT32, 11)
        self.assertEqual(GstCudaPrep.TensorImageLayout.NHWC, 1)
        self.assertEqual(int(GstCudaPrep.DLPackFlags.VERSIONED), 1)

    def test_geometry_from_python(self):
        geometry = GstCudaPrep.Geometry()
        geometry.init_identity()
        geometry.crop_x, geometry.scale_x, geometry.pad_y = 100.0, 0.4, 128.0
        geometry.crop_y, geometry.scale_y = 60.0, 0.4
        self.assertEqual(tuple(geometry.to_source(640.0, 512.0)), (1700.0, 1020.0))

    def test_ctypes_mirrors_match_the_typelib(self):
        # The module's ctypes structs have the header's fields, in its order
        # and at the offsets the typelib computed from it. (test_geometry.py
        # holds them against the C compiler; this catches a field that
        # compiler check cannot see, one added in a struct's tail padding.)
        from cudaprep import _tensor
        for record, mirror in ((GstCudaPrep.Geometry, cudaprep.Geometry),
                               (GstCudaPrep.TensorItem, _tensor._CTensorItem),
                               (GstCudaPrep.Tensor, _tensor._CTensor)):
            info = record.__info__
            theirs = [(field.get_name(), field.get_offset()) for field in info.get_fields()]
            ours = [(name, getattr(mirror, name).offset) for name, _ in mirror._fields_]
            self.assertEqual(ours, theirs, info.get_name())
            self.assertEqual(ctypes.sizeof(mirror), info.get_size(), info.get_name())

    def test_parse_launch_gives_a_typed_sink(self):
        pipeline = Gst.parse_launch("fakesrc num-buffers=0 ! cudatensorsink name=sink")
        sink = pipeline.get_by_name("sink")
        self.assertIsInstance(sink, GstCudaPrep.TensorSink)
        self.assertIsNone(sink.try_pull_tensor(0))
        self.assertIsNone(sink.emit("try-pull-tensor", 0))
        # The cudaprep module takes PyGObject's objects.
        wrapped = cudaprep.TensorSink(sink, pipeline)
        self.assertIsNone(wrapped.pull(timeout=0))
        with self.assertRaises(TypeError):
            cudaprep.TensorSink(Gst.ElementFactory.make("fakesink", None))

    def test_tensor_from_a_gst_sample(self):
        # A sample without a cudaprep tensor: refused, and the reference
        # from_sample took is dropped again.
        sample = Gst.Sample.new(Gst.Buffer.new(), None, None, None)
        pointer = cudaprep._tensor._gst_sample_pointer(sample)
        refcount = ctypes.c_int.from_address(pointer + ctypes.sizeof(ctypes.c_size_t))
        before = refcount.value
        with self.assertRaisesRegex(ValueError, "no cudaprep tensor"):
            cudaprep.Tensor.from_sample(sample)
        self.assertEqual(refcount.value, before)
        self.assertIsNone(GstCudaPrep.TensorSink.sample_get_tensor(sample))
        with self.assertRaises(TypeError):
            cudaprep.Tensor.from_sample(Gst.Buffer.new())
        with self.assertRaises(TypeError):
            cudaprep.Tensor.from_sample(pointer)


if __name__ == "__main__":
    unittest.main()
