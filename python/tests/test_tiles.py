#!/usr/bin/env python3
"""README's Python example of cudabatch's tiles, taken from README.md itself
(the `tiles = (...)` description of its block): without a GPU, the
pipeline parses and the tiled pad holds the block's settings (tile-overlap-
pixels 128 in place of the fraction); an overlap not smaller than the tile
stops the start with an error naming the pad and the values. With a GPU,
the block's pipeline runs: each tensor holds the 32 tiles of a 4K frame,
region ids and regions as worked out by hand (128 of 640 pixels: a step of
512, the last column and row moved back to the edge), and a box on a tile
maps back to the frame shifted by the tile's origin (640x640 tiles into a
640x640 tensor: scale 1, no padding)."""
import ctypes
import os
import sys
import unittest

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.environ.get("CUDAPREP_PYTHON_DIR", os.path.join(HERE, "..")))

import cudaprep  # noqa: E402
from cudaprep._native import native  # noqa: E402
from cuda_driver import gpu_count  # noqa: E402
from readme_example import readme_pipeline  # noqa: E402


def readme_tiles():
    """The pipeline description of README's tiles example."""
    return readme_pipeline("tiles")


def pad_int(pipeline, prop):
    """An int property of the batch element's sink_0."""
    lib = native()
    batch = pipeline.element("b")
    pad = lib.gst.gst_element_get_static_pad(batch, b"sink_0")
    lib.gst.gst_object_unref(batch)
    if not pad:
        raise AssertionError("cudabatch has no sink_0")
    value = ctypes.c_int(-1)
    lib.gobject.g_object_get(pad, prop.encode(), ctypes.byref(value), None)
    lib.gst.gst_object_unref(pad)
    return value.value


def tiles_of_4k():
    """(x, y, 640, 640) row by row: columns 0, 512, ..., 3072, then 3200 in
    place of 3584; rows 0, 512, 1024, then 1520 in place of 1536."""
    return [(x, y, 640, 640) for y in (0, 512, 1024, 1520)
            for x in (0, 512, 1024, 1536, 2048, 2560, 3072, 3200)]


class TilesWithoutGpu(unittest.TestCase):
    def test_the_readme_pipeline_parses_with_its_tile_settings(self):
        pipeline = cudaprep.Pipeline(readme_tiles())
        self.assertEqual(pad_int(pipeline, "tile-width"), 640)
        self.assertEqual(pad_int(pipeline, "tile-height"), 640)
        self.assertEqual(pad_int(pipeline, "tile-overlap-pixels"), 128)

    def test_an_overlap_not_smaller_than_the_tile_stops_the_start(self):
        pipeline = cudaprep.Pipeline(
            "cudabatch name=b sink_0::region-source=tiles sink_0::tile-width=640 "
            "sink_0::tile-height=480 sink_0::tile-overlap-pixels=480 ! fakesink "
            "videotestsrc num-buffers=1 ! cudaframeupload ! cudanormalize ! b.sink_0")
        with self.assertRaises(RuntimeError) as raised:
            pipeline.start()
        pipeline.stop()
        self.assertIn("sink_0: tile-overlap-pixels=480 is not smaller than the tile "
                      "(tile-width=640, tile-height=480)", str(raised.exception))


@unittest.skipIf(gpu_count() == 0, "no CUDA device")
class TilesOnGpu(unittest.TestCase):
    def test_items_are_the_tiles_and_boxes_map_back(self):
        tensors = 0
        with cudaprep.Pipeline(readme_tiles()) as p:
            for tensor in p.sink("sink"):
                tensors += 1
                self.assertEqual(tensor.shape[0], 32)
                self.assertEqual([item.region_id for item in tensor.items], list(range(32)))
                self.assertEqual([item.region for item in tensor.items], tiles_of_4k())
                for item in tensor.items:
                    x, y, w, h = item.region
                    box = item.geometry.box_to_source((10, 20, 110, 220), frame_size=(3840, 2160))
                    self.assertEqual(box, (x + 10.0, y + 20.0, x + 110.0, y + 220.0))
                    whole = item.geometry.box_to_source((-5, -5, 700, 700))
                    self.assertEqual(whole, (float(x), float(y), x + 640.0, y + 640.0),
                                     "cut to the tile")
        self.assertEqual(tensors, 10)


if __name__ == "__main__":
    unittest.main()
