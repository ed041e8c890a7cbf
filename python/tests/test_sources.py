#!/usr/bin/env python3
"""cudaprep.add_source / Source.remove without a GPU: a decoded file added
to a playing compositor (a plain GStreamer aggregator with sink_%u pads, as
cudabatch has) and removed again, several times, while a live test source
goes on; statistics with the URI masked; errors that name the problem."""
import os
import sys
import time
import unittest

sys.path.insert(0, os.environ.get("CUDAPREP_PYTHON_DIR", os.path.join(os.path.dirname(__file__), "..")))

import cudaprep  # noqa: E402
from cudaprep._native import native  # noqa: E402

DATA = os.environ.get("CUDAPREP_TEST_DATA_DIR",
                      os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data"))
STREAM = "file://" + os.path.abspath(os.path.join(DATA, "smpte-640x360.h264"))


def wait_until(done, seconds):
    end = time.monotonic() + seconds
    while not done():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def sink_pad_count(element):
    """How many of the aggregator's sink_0..sink_63 exist."""
    lib = native()
    count = 0
    for i in range(64):
        pad = lib.gst.gst_element_get_static_pad(element, ("sink_%d" % i).encode())
        if pad:
            count += 1
            lib.gst.gst_object_unref(pad)
    return count


class AddRemove(unittest.TestCase):
    def setUp(self):
        self.pipeline = cudaprep.Pipeline(
            "videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1 ! "
            "compositor name=mix ! fakesink name=sink sync=false")
        self.pipeline.start()

    def tearDown(self):
        self.pipeline.stop()

    def test_add_and_remove_while_playing(self):
        mix = self.pipeline.element("mix")
        try:
            for cycle in range(3):
                source = self.pipeline.add_source(
                    "mix", STREAM, chain="videoconvert", queue_size=8, reconnect_attempts=0)
                self.assertEqual(source.pad_name, "sink_%d" % (cycle + 1))
                self.assertTrue(wait_until(lambda: source.stats["frames-out"] >= 10, 10),
                                "cycle %d: no frames: %r" % (cycle, source.stats))
                self.assertEqual(sink_pad_count(mix), 2)
                source.remove()
                self.assertEqual(sink_pad_count(mix), 1, "cycle %d: the pad stayed" % cycle)
                self.assertIsNone(self.pipeline.error())
        finally:
            native().gst.gst_object_unref(mix)

    def test_stats_mask_the_password(self):
        source = self.pipeline.add_source("mix", "rtsp://admin:Hunter22@127.0.0.1:9/none",
                                          reconnect_interval=5000)
        try:
            stats = source.stats
            self.assertEqual(stats["uri"], "rtsp://admin:***@127.0.0.1:9/none")
            self.assertNotIn("Hunter22", repr(stats))
            self.assertIn(stats["state"], ("connecting", "reconnecting"))
        finally:
            source.remove()

    def test_errors_name_the_problem(self):
        sink = self.pipeline.element("sink")
        try:
            with self.assertRaisesRegex(RuntimeError, "sink_%u|no new"):
                cudaprep.add_source(sink, STREAM)
        finally:
            native().gst.gst_object_unref(sink)
        with self.assertRaisesRegex(KeyError, "nosuchbatch"):
            self.pipeline.add_source("nosuchbatch", STREAM)


if __name__ == "__main__":
    unittest.main()
