#!/usr/bin/env python3
"""cudaprep's Python module without a GPU: the DLPack protocol of host
arrays (NumPy takes them zero-copy), argument errors, versioned capsules,
deleters, and the pipeline binding's errors. Run by `meson test`
(CUDAPREP_LIB_DIR and CUDAPREP_PLUGIN_DIR point at the build tree)."""
import ctypes
import gc
import os
import sys
import unittest

sys.path.insert(0, os.environ.get("CUDAPREP_PYTHON_DIR", os.path.join(os.path.dirname(__file__), "..")))

import cudaprep  # noqa: E402
from cudaprep import _dlpack  # noqa: E402

try:
    import numpy
except ImportError:
    numpy = None


def padded_rgb(width, height, pitch):
    """A width x height RGB image in rows of `pitch` bytes: pixel (x, y) =
    (x, y, x + y) mod 256, the padding bytes 0xEE."""
    data = bytearray(b"\xee" * (pitch * height))
    for y in range(height):
        for x in range(width):
            data[y * pitch + 3 * x:y * pitch + 3 * x + 3] = bytes(
                (x % 256, y % 256, (x + y) % 256))
    return data


class WheelNvrtc(unittest.TestCase):
    """The NVRTC of a PyPI wheel, found below a folder of sys.path."""

    def test_a_cuda13_wheel_is_found_before_a_cuda12_one(self):
        import tempfile
        from cudaprep import _native
        with tempfile.TemporaryDirectory() as site, tempfile.TemporaryDirectory() as other:
            self.assertIsNone(_native.wheel_nvrtc([other, site]))
            old = os.path.join(site, "nvidia", "cuda_nvrtc", "lib")
            os.makedirs(old)
            open(os.path.join(old, "libnvrtc.so.12"), "wb").close()
            self.assertEqual(_native.wheel_nvrtc([other, site]),
                             os.path.join(old, "libnvrtc.so.12"))
            new = os.path.join(other, "nvidia", "cu13", "lib")
            os.makedirs(new)
            open(os.path.join(new, "libnvrtc.so.13"), "wb").close()
            self.assertEqual(_native.wheel_nvrtc([site, other]),
                             os.path.join(new, "libnvrtc.so.13"))


class HostArrayProtocol(unittest.TestCase):
    def test_device_is_cpu(self):
        array = cudaprep.HostArray(bytearray(12), (3, 4), "uint8")
        self.assertEqual(array.__dlpack_device__(), (cudaprep.DLDeviceType.kDLCPU, 0))

    def test_stream_must_be_none_for_a_cpu_array(self):
        array = cudaprep.HostArray(bytearray(12), (3, 4), "uint8")
        for stream in (1, 2, -1, 12345):
            with self.assertRaises(BufferError, msg="stream=%r" % stream):
                array.__dlpack__(stream=stream)
        self.assertEqual(cudaprep.HostArray.exported_count(), 0, "refused exports leave nothing")

    def test_foreign_device_is_refused(self):
        array = cudaprep.HostArray(bytearray(12), (3, 4), "uint8")
        with self.assertRaises(BufferError):
            array.__dlpack__(dl_device=(cudaprep.DLDeviceType.kDLCUDA, 0))

    def test_bad_arguments(self):
        with self.assertRaises(ValueError):
            cudaprep.HostArray(bytearray(11), (3, 4), "uint8")  # too small
        with self.assertRaises(ValueError):
            cudaprep.HostArray(bytes(12), (3, 4), "uint8")  # read-only
        with self.assertRaises(ValueError):
            cudaprep.HostArray(bytearray(48), (3, 4), "complex64")
        with self.assertRaises(ValueError):
            cudaprep.HostArray(bytearray(48), (3, 4), "float32", strides=(16, 2))
        array = cudaprep.HostArray(bytearray(12), (3, 4), "uint8")
        with self.assertRaises(TypeError):
            array.__dlpack__(max_version="1.0")

    def test_unversioned_capsule_describes_the_array(self):
        data = padded_rgb(5, 3, 16)
        array = cudaprep.HostArray(data, (3, 5, 3), "uint8", strides=(16, 3, 1))
        capsule = array.__dlpack__()
        self.assertEqual(_dlpack.capsule_name(capsule), b"dltensor")
        tensor = _dlpack.capsule_tensor(capsule).dl_tensor
        self.assertEqual(tensor.data, ctypes.addressof((ctypes.c_char * len(data)).from_buffer(data)))
        self.assertEqual(tensor.device.device_type, 1)
        self.assertEqual(tensor.ndim, 3)
        self.assertEqual([tensor.shape[i] for i in range(3)], [3, 5, 3])
        self.assertEqual([tensor.strides[i] for i in range(3)], [16, 3, 1])
        self.assertEqual((tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes), (1, 8, 1))

    def test_versioned_capsule_when_asked(self):
        array = cudaprep.HostArray(bytearray(24), (2, 3), "float32")
        for max_version, name in (((1, 0), b"dltensor_versioned"), ((1, 3), b"dltensor_versioned"),
                                  ((0, 8), b"dltensor"), (None, b"dltensor")):
            capsule = array.__dlpack__(max_version=max_version)
            self.assertEqual(_dlpack.capsule_name(capsule), name, max_version)
            if name == b"dltensor_versioned":
                managed = _dlpack.capsule_tensor(capsule)
                self.assertEqual((managed.version.major, managed.version.minor), (1, 0))
                self.assertEqual(managed.flags, 0)
                self.assertEqual([managed.dl_tensor.strides[i] for i in range(2)], [3, 1])
                self.assertEqual((managed.dl_tensor.dtype.code, managed.dl_tensor.dtype.bits),
                                 (2, 32))

    def test_unconsumed_capsule_runs_the_deleter_once(self):
        array = cudaprep.HostArray(bytearray(12), (3, 4), "uint8")
        before = cudaprep.HostArray.exported_count()
        capsules = [array.__dlpack__(), array.__dlpack__(max_version=(1, 0))]
        self.assertEqual(cudaprep.HostArray.exported_count(), before + 2)
        del capsules
        gc.collect()
        self.assertEqual(cudaprep.HostArray.exported_count(), before)


@unittest.skipIf(numpy is None, "NumPy is not installed")
class NumPyTakesHostArrays(unittest.TestCase):
    def test_from_dlpack_is_zero_copy_with_row_padding(self):
        width, height, pitch = 7, 4, 24  # rows padded past 21 bytes
        data = padded_rgb(width, height, pitch)
        array = cudaprep.HostArray(data, (height, width, 3), "uint8", strides=(pitch, 3, 1))
        taken = numpy.from_dlpack(array)
        self.assertEqual(taken.ctypes.data, array.address, "NumPy must share the memory")
        self.assertEqual(taken.shape, (height, width, 3))
        self.assertEqual(taken.strides, (pitch, 3, 1))
        for y in range(height):
            for x in range(width):
                self.assertEqual(tuple(taken[y, x]), (x, y, x + y))
        data[pitch + 3] = 200  # pixel (1, 1) red, written through the buffer
        self.assertEqual(taken[1, 1, 0], 200)

    def test_numpy_release_runs_the_deleter(self):
        before = cudaprep.HostArray.exported_count()
        taken = numpy.from_dlpack(cudaprep.HostArray(bytearray(64), (4, 4), "float32"))
        self.assertEqual(cudaprep.HostArray.exported_count(), before + 1)
        self.assertEqual(float(taken.sum()), 0.0)
        del taken
        gc.collect()
        self.assertEqual(cudaprep.HostArray.exported_count(), before)

    def test_float_values(self):
        values = numpy.arange(12, dtype=numpy.float32) * 0.5 - 1.0
        storage = bytearray(values.tobytes())
        taken = numpy.from_dlpack(cudaprep.HostArray(storage, (3, 4), "float32"))
        numpy.testing.assert_array_equal(taken, values.reshape(3, 4))

    def test_copy_true_gives_other_memory(self):
        array = cudaprep.HostArray(bytearray(b"\x01" * 12), (3, 4), "uint8")
        capsule = array.__dlpack__(copy=True)
        self.assertNotEqual(_dlpack.capsule_tensor(capsule).dl_tensor.data, array.address)


class PipelineBinding(unittest.TestCase):
    def test_invalid_pipeline_names_the_problem(self):
        with self.assertRaises(ValueError) as caught:
            cudaprep.Pipeline("videotestsrc ! no_such_element_anywhere")
        self.assertIn("no_such_element_anywhere", str(caught.exception))

    def test_sink_must_be_a_cudatensorsink(self):
        pipeline = cudaprep.Pipeline("fakesrc ! fakesink name=sink")
        with self.assertRaises(TypeError):
            pipeline.sink("sink")
        with self.assertRaises(KeyError):
            pipeline.sink("nope")

    def test_try_pull_on_a_stopped_sink_returns_none(self):
        pipeline = cudaprep.Pipeline("fakesrc ! cudatensorsink name=sink")
        sink = pipeline.sink("sink")
        self.assertIsNone(sink.pull(timeout=0))
        self.assertIsNone(sink.pull(timeout=0.01))

    def test_geometry_maps_boxes_back(self):
        # crop 100/60, scale 0.4, letterbox pad 128 rows on top
        geometry = cudaprep.Geometry(100.0, 60.0, 0.4, 0.4, 0.0, 128.0)
        self.assertEqual(geometry.box_to_source((0, 128, 640, 512)), (100.0, 60.0, 1700.0, 1020.0))
        x, y = geometry.to_output(*geometry.to_source(33.0, 200.0))
        self.assertAlmostEqual(x, 33.0)
        self.assertAlmostEqual(y, 200.0)

    def test_rotated_geometry_maps_boxes_back(self):
        # A 1920x1080 frame turned clockwise (90r) into 540x960: the source
        # corner at the output's top-left is (0, 1080), scale 0.5.
        geometry = cudaprep.Geometry(0.0, 1080.0, 0.5, 0.5, 0.0, 0.0, 1)
        self.assertEqual(geometry.to_source(0.0, 0.0), (0.0, 1080.0))
        self.assertEqual(geometry.to_source(540.0, 0.0), (0.0, 0.0))
        self.assertEqual(geometry.box_to_source((10, 20, 110, 220)), (40.0, 860.0, 440.0, 1060.0))
        for orientation in range(8):
            geometry.orientation = orientation
            x, y = geometry.to_output(*geometry.to_source(33.0, 200.0))
            self.assertAlmostEqual(x, 33.0)
            self.assertAlmostEqual(y, 200.0)


if __name__ == "__main__":
    unittest.main()
