#!/usr/bin/env python3
"""cudaprep's Python module on a GPU: zero-copy into PyTorch, CuPy,
cuda.core and (downloaded) NumPy, checked against the sink's .npy dump; the
consumer stream's wait and the pool's wait for a consumer still reading,
each with a control that shows the test would catch the missing wait; the
iterator over 10,000 tensors with flat host and device memory.

Exits 77 (skip) without a GPU or without PyTorch."""
import gc
import os
import resource
import sys
import tempfile
import unittest

sys.path.insert(0, os.environ.get("CUDAPREP_PYTHON_DIR", os.path.join(os.path.dirname(__file__), "..")))

from cuda_driver import gpu_count  # noqa: E402


if __name__ == "__main__" and gpu_count() == 0:
    print("SKIP: no CUDA device")
    sys.exit(77)
try:
    import numpy
    import torch
except ImportError as error:
    print("SKIP: %s" % error)
    sys.exit(77)

import cudaprep  # noqa: E402

try:
    import cupy
except ImportError:
    cupy = None
try:
    from cuda.core.experimental import Device as CoreDevice
    from cuda.core.experimental.utils import StridedMemoryView
except ImportError:
    try:
        from cuda.core import Device as CoreDevice
        from cuda.core.utils import StridedMemoryView
    except ImportError:
        StridedMemoryView = None

SIZE = "width=64,height=48"


def chain(frames, extra_src="", tensorize="batch-size=2 layout=nchw dtype=float32",
          location=None, sink="consumer=application sync=false"):
    desc = ("videotestsrc num-buffers=%d %s ! video/x-raw,format=RGB,%s ! cudaframeupload "
            "! cudanormalize mean=\"<0.5,0.5,0.5>\" std=\"<0.25,0.25,0.25>\" "
            "! cudatensorize name=tensorize %s ! cudatensorsink name=sink %s" %
            (frames, extra_src, SIZE, tensorize, sink))
    if location:
        desc += " location=%s/t-%%05d.npy" % location
    return cudaprep.Pipeline(desc)


def npy(folder, index):
    return numpy.load(os.path.join(folder, "t-%05d.npy" % index))


def sleep_cycles(seconds):
    # torch.cuda._sleep spins this many GPU clocks (about 2 GHz on an H100).
    return int(seconds * 2e9)


class ZeroCopy(unittest.TestCase):
    def run_consumer(self, take, check_pointer, frames=6):
        folder = tempfile.mkdtemp(prefix="cudaprep-py-")
        count = 0
        with chain(frames, extra_src="pattern=snow", location=folder) as pipeline:
            for tensor in pipeline.sink():
                array, pointer = take(tensor)
                self.assertEqual(pointer, tensor.data_ptr, "the consumer must share the memory")
                expected = npy(folder, count)
                numpy.testing.assert_array_equal(array, expected)
                self.assertEqual(len(tensor.items), tensor.shape[0])
                count += 1
        self.assertEqual(count, frames // 2)

    def test_pytorch(self):
        stream = torch.cuda.Stream()

        def take(tensor):
            with torch.cuda.stream(stream):
                x = torch.from_dlpack(tensor)  # stream=stream's handle
                host = x.cpu().numpy()
            return host, x.data_ptr()
        self.run_consumer(take, True)

    def test_pytorch_versioned_and_minus_one(self):
        folder = tempfile.mkdtemp(prefix="cudaprep-py-")
        with chain(2, extra_src="pattern=snow", location=folder) as pipeline:
            tensor = pipeline.sink().pull()
            capsule = tensor.__dlpack__(stream=-1, max_version=(1, 0))
            self.assertEqual(cudaprep._dlpack.capsule_name(capsule), b"dltensor_versioned")
            torch.cuda.synchronize()  # stream=-1: we synchronise ourselves
            x = torch.utils.dlpack.from_dlpack(capsule)
            self.assertEqual(x.data_ptr(), tensor.data_ptr)
            numpy.testing.assert_array_equal(x.cpu().numpy(), npy(folder, 0))

    @unittest.skipIf(cupy is None, "CuPy is not installed")
    def test_cupy(self):
        stream = cupy.cuda.Stream(non_blocking=True)

        def take(tensor):
            with stream:
                x = cupy.from_dlpack(tensor)
                host = cupy.asnumpy(x, stream=stream)
                stream.synchronize()
            return host, x.data.ptr
        self.run_consumer(take, True)

    @unittest.skipIf(StridedMemoryView is None, "cuda.core is not installed")
    def test_cuda_core_strided_memory_view(self):
        device = CoreDevice(0)
        device.set_current()
        stream = device.create_stream()
        for stream_ptr in (int(stream.handle), -1):
            def take(tensor):
                if stream_ptr == -1:
                    torch.cuda.synchronize()
                view = StridedMemoryView(tensor, stream_ptr=stream_ptr)
                self.assertEqual(tuple(view.shape), tensor.shape)
                self.assertEqual(view.dtype, numpy.float32)
                stream.sync()
                return numpy.from_dlpack(tensor.download()), view.ptr
            self.run_consumer(take, True, frames=4)

    def test_numpy_host_download(self):
        def take(tensor):
            host = tensor.download()
            array = numpy.from_dlpack(host)
            self.assertEqual(array.ctypes.data, host.address, "NumPy must share the host copy")
            with self.assertRaises(BufferError):
                host.__dlpack__(stream=1)
            return array, tensor.data_ptr
        self.run_consumer(take, True)

    def test_dl_device_cpu_downloads(self):
        with chain(2) as pipeline:
            tensor = pipeline.sink().pull()
            array = numpy.from_dlpack(tensor.download())
            capsule = tensor.__dlpack__(dl_device=(cudaprep.DLDeviceType.kDLCPU, 0))
            self.assertEqual(cudaprep._dlpack.capsule_tensor(capsule).dl_tensor.device.device_type, 1)
            with self.assertRaises(BufferError):
                tensor.__dlpack__(dl_device=(cudaprep.DLDeviceType.kDLCPU, 0), copy=False)
            with self.assertRaises(ValueError):
                tensor.__dlpack__(stream=0)
            self.assertEqual(array.shape, tensor.shape)


class StreamSemantics(unittest.TestCase):
    def slow_producer_read(self, consumer_stream_arg):
        """cudatensorize runs on a stream kept busy for 0.5 s; the consumer
        reads at once on another stream. Returns (early read, final)."""
        producer = torch.cuda.Stream()
        consumer = torch.cuda.Stream()
        pipeline = chain(2, extra_src="pattern=solid-color foreground-color=0xff4080c0",
                         tensorize="batch-size=1 layout=nchw dtype=float32")
        pipeline.set_pointer("tensorize", "cuda-stream", producer.cuda_stream)
        with torch.cuda.stream(producer):
            torch.cuda._sleep(sleep_cycles(0.5))
        with pipeline:
            tensor = pipeline.sink().pull()
            arg = consumer.cuda_stream if consumer_stream_arg else -1
            x = torch.utils.dlpack.from_dlpack(tensor.__dlpack__(stream=arg))
            with torch.cuda.stream(consumer):
                early = x.clone()
            consumer.synchronize()
            torch.cuda.synchronize()
            final = x.clone()
            torch.cuda.synchronize()
            del x
            tensor.release()
        return early.cpu(), final.cpu()

    def test_consumer_stream_waits_for_a_slow_producer(self):
        early, final = self.slow_producer_read(True)
        self.assertTrue(torch.equal(early, final), "the consumer read before the tensor was written")
        # Control: without the wait the same read sees the memory unwritten,
        # so the assertion above would fail if the wait were removed.
        early, final = self.slow_producer_read(False)
        self.assertFalse(torch.equal(early, final),
                         "control did not race: the test cannot detect a missing wait")

    def pool_reuse_read(self, record_reads):
        """The consumer's stream sleeps, then copies the first tensor; the
        tensor is released at once and the pipeline runs on (20 more
        tensors through the pool). Returns (copy, the tensor's .npy)."""
        folder = tempfile.mkdtemp(prefix="cudaprep-py-")
        consumer = torch.cuda.Stream()
        with chain(21, extra_src="pattern=snow",
                   tensorize="batch-size=1 layout=nchw dtype=float32",
                   location=folder) as pipeline:
            sink = pipeline.sink()
            tensor = sink.pull()
            if record_reads:
                x = torch.utils.dlpack.from_dlpack(tensor.__dlpack__(stream=consumer.cuda_stream))
            else:
                torch.cuda.synchronize()
                x = torch.utils.dlpack.from_dlpack(tensor.__dlpack__(stream=-1))
            with torch.cuda.stream(consumer):
                torch.cuda._sleep(sleep_cycles(0.5))
                late = x.clone()
            del x
            tensor.release()  # back to the pool while `consumer` still sleeps
            rest = sum(1 for t in sink)
            consumer.synchronize()
            self.assertEqual(rest, 20)
            return late.cpu().numpy(), npy(folder, 0)

    def test_pool_waits_for_a_consumer_still_reading(self):
        late, expected = self.pool_reuse_read(True)
        numpy.testing.assert_array_equal(late, expected)
        late, expected = self.pool_reuse_read(False)
        self.assertFalse(numpy.array_equal(late, expected),
                         "control did not race: the test cannot detect a pool that does not wait")


class Iterator(unittest.TestCase):
    def test_ten_thousand_tensors_flat_memory(self):
        count = 0
        rss_kb = []
        device_allocations = []
        torch_bytes = []
        total = 10000
        with cudaprep.Pipeline(
                "videotestsrc num-buffers=%d ! video/x-raw,format=RGB,width=32,height=32 "
                "! cudaframeupload ! cudanormalize ! cudatensorize batch-size=1 dtype=float32 "
                "! cudatensorsink name=sink consumer=application sync=false" % total) as pipeline:
            for tensor in pipeline.sink():
                x = torch.from_dlpack(tensor)
                if count % 1000 == 999:
                    gc.collect()
                    rss_kb.append(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
                    device_allocations.append(cudaprep.allocation_count())
                    torch_bytes.append(torch.cuda.memory_allocated())
                del x
                count += 1
        self.assertEqual(count, total)
        print("\n  iterator: %d tensors; max RSS (KiB) per 1000: %s; device allocations: %s" %
              (count, rss_kb, device_allocations))
        self.assertEqual(device_allocations[1], device_allocations[-1], "device memory grew")
        self.assertEqual(torch_bytes[1], torch_bytes[-1])
        self.assertLess(rss_kb[-1] - rss_kb[1], 8 * 1024, "host memory grew by 8 MiB or more")


if __name__ == "__main__":
    unittest.main(verbosity=2)
