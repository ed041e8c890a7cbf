#!/usr/bin/env python3
"""The PyGObject path on a GPU: Gst.parse_launch builds the pipeline, its
cudatensorsink is pulled through the typelib (TensorSink.pull_tensor,
sample_get_tensor and the Tensor's getters), each Gst.Sample goes to the
cudaprep module (Tensor.from_sample) and on, zero-copy, to cuda.core's
StridedMemoryView (on a real stream, and with -1) and to NumPy (host,
through download); every tensor is checked against the sink's .npy dump and
against the typelib's device pointer.

Runs with Debian's python3 (python3-gi, python3-gst-1.0): in CI, and on
the GPU machine from .py311-bundle (tests/stage-pygobject.sh). Exits 77
(skip) without PyGObject and the typelib, without NumPy, or without a GPU;
test_gir.py covers what needs no GPU."""
import ctypes
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.environ.get("CUDAPREP_PYTHON_DIR", os.path.join(os.path.dirname(__file__), "..")))

from cuda_driver import copy_to_host, gpu_count  # noqa: E402

try:
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstCudaPrep", "1.0")
    from gi.repository import Gst, GstCudaPrep
    import numpy
except (ImportError, ValueError) as error:
    print("SKIP: PyGObject, the typelib or NumPy is missing: %s" % error)
    sys.exit(77)
if __name__ == "__main__" and gpu_count() == 0:
    print("SKIP: no CUDA device")
    sys.exit(77)

import cudaprep  # noqa: E402

try:
    from cuda.core import Device as CoreDevice
    from cuda.core.utils import StridedMemoryView
except ImportError:
    try:
        from cuda.core.experimental import Device as CoreDevice
        from cuda.core.experimental.utils import StridedMemoryView
    except ImportError:
        StridedMemoryView = None

Gst.init(None)
Gst.Registry.get().scan_path(os.environ.get("CUDAPREP_PLUGIN_DIR", ""))

BATCH = 2


def pull_through_typelib(frames, consume):
    """Runs a pipeline of `frames` snow frames into batches of BATCH,
    calling consume(sample, gi_tensor, expected) for every tensor pulled
    with GstCudaPrep.TensorSink.pull_tensor; returns the count."""
    folder = tempfile.mkdtemp(prefix="cudaprep-gi-")
    pipeline = Gst.parse_launch(
        "videotestsrc num-buffers=%d pattern=snow ! video/x-raw,format=RGB,width=64,height=48 "
        "! cudaframeupload ! cudanormalize mean=\"<0.5,0.5,0.5>\" std=\"<0.25,0.25,0.25>\" "
        "! cudatensorize batch-size=%d layout=nchw dtype=float32 "
        "! cudatensorsink name=sink consumer=application sync=false location=%s/t-%%05d.npy" %
        (frames, BATCH, folder))
    sink = pipeline.get_by_name("sink")
    assert isinstance(sink, GstCudaPrep.TensorSink)
    count = 0
    try:
        if pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
            raise RuntimeError("the pipeline did not start")
        while True:
            sample = sink.pull_tensor()
            if sample is None:
                break
            gi_tensor = GstCudaPrep.TensorSink.sample_get_tensor(sample)
            expected = numpy.load(os.path.join(folder, "t-%05d.npy" % count))
            consume(sample, gi_tensor, expected)
            count += 1
        error = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
        if error is not None:
            raise RuntimeError("the pipeline failed: %s" % (error.parse_error()[0].message,))
        assert sink.is_eos(), "pull_tensor returned None before EOS"
    finally:
        pipeline.set_state(Gst.State.NULL)
    return count


class ThroughTheTypelib(unittest.TestCase):
    def check_typelib_view(self, sample, gi_tensor, tensor):
        """The typelib's view of the tensor agrees with cudaprep's."""
        self.assertIsNotNone(gi_tensor, "the sample holds no tensor")
        self.assertEqual(gi_tensor.get_data_address(), tensor.data_ptr)
        self.assertEqual(gi_tensor.data_type, GstCudaPrep.TensorDataType.FLOAT32)
        self.assertEqual(gi_tensor.batch_filled or gi_tensor.batch_size, BATCH)
        self.assertEqual(tuple(gi_tensor.dims[:gi_tensor.num_dims]), (BATCH, 3, 48, 64))
        self.assertEqual(tensor.shape, (BATCH, 3, 48, 64))
        self.assertEqual(GstCudaPrep.TensorSink.sample_get_size(sample),
                         BATCH * 3 * 48 * 64 * 4)

    @unittest.skipIf(StridedMemoryView is None, "cuda.core is not installed")
    def test_cuda_core_strided_memory_view(self):
        device = CoreDevice(0)
        device.set_current()
        stream = device.create_stream()
        for stream_ptr in (int(stream.handle), -1):
            pointers = []

            def consume(sample, gi_tensor, expected):
                tensor = cudaprep.Tensor.from_sample(sample)
                self.check_typelib_view(sample, gi_tensor, tensor)
                view = StridedMemoryView(tensor, stream_ptr=stream_ptr)
                self.assertEqual(view.ptr, gi_tensor.get_data_address(),
                                 "cuda.core must view the pipeline's memory")
                self.assertEqual(tuple(view.shape), tensor.shape)
                self.assertEqual(view.dtype, numpy.float32)
                host = numpy.empty(tensor.shape, numpy.float32)
                if stream_ptr == -1:
                    device.sync()  # -1: the consumer synchronises itself
                # Read on the consumer stream, which waits for the tensor on
                # the GPU (real stream) or after the device sync (-1).
                copy_to_host(view.ptr, host.ctypes.data, host.nbytes,
                             int(stream.handle))
                numpy.testing.assert_array_equal(host, expected)
                pointers.append(view.ptr)
                del view
                tensor.release()
            self.assertEqual(pull_through_typelib(2 * BATCH, consume), 2)
            print("\n  StridedMemoryView(stream_ptr=%s): tensors at %s, each the typelib's "
                  "pointer and equal to its .npy" %
                  ("-1" if stream_ptr == -1 else "stream", [hex(p) for p in pointers]))

    def test_numpy_host_download(self):
        def consume(sample, gi_tensor, expected):
            tensor = cudaprep.Tensor.from_sample(sample)
            self.check_typelib_view(sample, gi_tensor, tensor)
            host = tensor.download()
            array = numpy.from_dlpack(host)
            self.assertEqual(array.ctypes.data, host.address, "NumPy must share the host copy")
            numpy.testing.assert_array_equal(array, expected)
            with self.assertRaises(BufferError):
                host.__dlpack__(stream=1)  # a CPU array takes no stream
        self.assertEqual(pull_through_typelib(3 * BATCH, consume), 3)

    def test_tensor_outlives_its_sample(self):
        """Tensor.from_sample takes its own reference: the tensor outlives
        the Gst.Sample (read while the next one is pulled), and releasing
        it drops only that reference."""
        held = []

        def consume(sample, gi_tensor, expected):
            if held:
                tensor, previous = held.pop()
                numpy.testing.assert_array_equal(numpy.from_dlpack(tensor.download()), previous)
                tensor.release()
            refcount = ctypes.c_int.from_address(
                cudaprep._tensor._gst_sample_pointer(sample) + ctypes.sizeof(ctypes.c_size_t))
            before = refcount.value
            tensor = cudaprep.Tensor.from_sample(sample)
            self.assertEqual(refcount.value, before + 1)
            held.append((tensor, expected))
        self.assertEqual(pull_through_typelib(3 * BATCH, consume), 3)
        held.pop()[0].release()

if __name__ == "__main__":
    unittest.main(verbosity=2)
