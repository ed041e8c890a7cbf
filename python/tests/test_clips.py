#!/usr/bin/env python3
"""README's Python example of cudatensorize's clips, taken from README.md
itself (the `clips = (...)` description of its block): without a GPU, the
pipeline parses and cudatensorize holds the block's clip settings. With a
GPU, the block's pipeline runs: 40 frames in 16-frame clips beginning every
8 frames are 5 tensors of shape (1, 3, 16, 224, 224) in NCTHW; clips 0 to 3
hold 16 frames and clip 4 the last 8 (the rest zeros); each clip's frame PTS
are its frames' (videotestsrc: 30 frames/s), and torch reads the 5-D tensor
through DLPack with the byte strides of a dense NCTHW array."""
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


def frame_pts(index):
    """videotestsrc's PTS of frame `index` at 30 frames/s (rounded down)."""
    return index * 1_000_000_000 // 30


def readme_clips():
    """The pipeline description of README's clips example."""
    return readme_pipeline("clips")


def tensorize_uint(pipeline, prop):
    """A guint property of the pipeline's cudatensorize."""
    lib = native()
    tensorize = pipeline.element("t")
    value = ctypes.c_uint(0)
    lib.gobject.g_object_get(tensorize, prop.encode(), ctypes.byref(value), None)
    lib.gst.gst_object_unref(tensorize)
    return value.value


class ClipsWithoutGpu(unittest.TestCase):
    def test_the_readme_pipeline_parses_with_its_clip_settings(self):
        pipeline = cudaprep.Pipeline(readme_clips().replace("cudatensorize ", "cudatensorize name=t ", 1))
        self.assertEqual(tensorize_uint(pipeline, "clip-length"), 16)
        self.assertEqual(tensorize_uint(pipeline, "clip-stride"), 8)
        self.assertEqual(tensorize_uint(pipeline, "clip-frame-stride"), 1)


@unittest.skipIf(gpu_count() == 0, "no CUDA device")
class ClipsOnGpu(unittest.TestCase):
    def test_tensors_are_clips_with_their_frames(self):
        starts = []
        with cudaprep.Pipeline(readme_clips()) as p:
            for tensor in p.sink("sink"):
                self.assertEqual(tensor.shape, (1, 3, 16, 224, 224))
                self.assertEqual(tensor.layout, "NCTHW")
                self.assertEqual(tensor.strides, tuple(
                    4 * n for n in (3 * 16 * 224 * 224, 16 * 224 * 224, 224 * 224, 224, 1)))
                clip = tensor.items[0]
                start = len(starts) * 8
                filled = min(16, 40 - start)
                self.assertEqual(clip.clip_filled, filled)
                self.assertEqual(len(clip.frame_pts), filled)
                for t, pts in enumerate(clip.frame_pts):
                    self.assertEqual(pts, frame_pts(start + t))
                starts.append(start)
                try:
                    import torch
                except ImportError:
                    continue
                with torch.cuda.device(tensor.device_id):
                    array = torch.from_dlpack(tensor)  # on torch's current stream
                    self.assertEqual(tuple(array.shape), (1, 3, 16, 224, 224))
                    if filled < 16:
                        self.assertEqual(float(array[:, :, filled:].abs().max()), 0.0,
                                         "frames not written are zeros")
                    self.assertGreater(float(array[:, :, :filled].abs().max()), 0.0)
        self.assertEqual(starts, [0, 8, 16, 24, 32])


if __name__ == "__main__":
    unittest.main()
