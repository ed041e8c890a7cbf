#!/usr/bin/env python3
"""cudaprep.warm_kernels without a GPU: plain GStreamer pipelines (prerolled,
and a live one played) come up; a line that does not parse, an element's
error and a timeout raise RuntimeError with the library's message. With a
GPU: the chain of docs/kernels.md, into a kernel cache of the test's own.
What the cache holds afterwards is checked by the warm_kernels suite
(tests/lib/test_warm_kernels.cpp)."""
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.environ.get("CUDAPREP_PYTHON_DIR", os.path.join(os.path.dirname(__file__), "..")))

from cuda_driver import gpu_count  # noqa: E402

# Set before the library is loaded: the kernel runtime reads it once.
CACHE = tempfile.mkdtemp(prefix="cudaprep-warm-py-")
os.environ["CUDAPREP_KERNEL_CACHE_DIR"] = CACHE

import cudaprep  # noqa: E402

DOCS_CHAIN = (
    "videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=1920,height=1080 ! "
    "cudaframeupload ! cudaresize add-borders=true ! "
    "video/x-raw(memory:CUDAPitched),width=640,height=640,format=RGB ! "
    "cudanormalize ! cudatensorize ! fakesink")


class WarmKernels(unittest.TestCase):
    def test_plain_pipelines_come_up(self):
        cudaprep.warm_kernels("videotestsrc num-buffers=1 ! fakesink")
        cudaprep.warm_kernels("videotestsrc is-live=true num-buffers=3 ! fakesink",
                              timeout_seconds=10)

    def test_a_line_that_does_not_parse(self):
        with self.assertRaisesRegex(RuntimeError, "nosuchelementwarm"):
            cudaprep.warm_kernels("videotestsrc ! nosuchelementwarm ! fakesink")

    def test_an_elements_error(self):
        with self.assertRaisesRegex(RuntimeError, "reader: .*/nonexistent/warm.mp4"):
            cudaprep.warm_kernels("filesrc name=reader location=/nonexistent/warm.mp4 ! fakesink")

    def test_no_answer_in_time(self):
        with self.assertRaisesRegex(RuntimeError, "no answer in 1 s"):
            cudaprep.warm_kernels("appsrc is-live=true ! fakesink", timeout_seconds=1)


@unittest.skipUnless(gpu_count() > 0, "no CUDA device")
class WarmKernelsGpu(unittest.TestCase):
    def test_the_docs_chain(self):
        cudaprep.warm_kernels(DOCS_CHAIN, timeout_seconds=60)
        modules = [name for name in os.listdir(CACHE) if name.endswith(".module")]
        self.assertTrue(modules, "no module in %s" % CACHE)


if __name__ == "__main__":
    try:
        unittest.main()
    finally:
        shutil.rmtree(CACHE, ignore_errors=True)
