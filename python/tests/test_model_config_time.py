#!/usr/bin/env python3
"""bench/model_config_time.py: which library owns each fixture (against the
fixtures' README), the table, the CPU timing, the command line, our
pipeline's elements on the timed stream (GStreamer, no GPU) and, where the
libraries are installed, their output shapes against the chains'. With a
GPU, one config is timed through the real elements. Needs NumPy; the
library cases skip without torch (and cv2 for the letterbox)."""
import contextlib
import ctypes
import io
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
sys.path.insert(0, os.environ.get("CUDAPREP_PYTHON_DIR", os.path.join(HERE, "..")))

try:
    import numpy as np
except ImportError:
    print("SKIP: no numpy")
    sys.exit(77)

import model_config_time as mct  # noqa: E402
import model_config_time_libraries as mct_libs  # noqa: E402
import model_config_time_ours as mct_ours  # noqa: E402
import model_config_time_timing as mct_timing  # noqa: E402
import parity_report_frames as pr_frames  # noqa: E402
import parity_report_references as pr_refs  # noqa: E402
from cuda_driver import gpu_count  # noqa: E402

MODELS = os.path.join(HERE, "..", "..", "tests", "data", "models")


def readme_formats():
    """file -> format column of tests/data/models/README.md's table."""
    formats = {}
    with open(os.path.join(MODELS, "README.md")) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 4 and cells[0].startswith("`"):
                formats[cells[0].strip("`")] = cells[2]
    return formats


def owner_from_readme(fmt):
    for prefix, owner in (("Hugging Face", "transformers"), ("timm", "timm"),
                          ("torchvision", "torchvision"), ("Ultralytics", "ultralytics"),
                          ("GStreamer", None)):
        if fmt.startswith(prefix):
            return owner
    raise AssertionError("unknown format in the README: " + fmt)


def cudaprep_or_none():
    try:
        import cudaprep
        cudaprep.native()
        return cudaprep
    except (ImportError, OSError, RuntimeError):
        return None


class Owners(unittest.TestCase):
    def test_every_fixture_is_listed_and_owned_as_the_readme_says(self):
        formats = readme_formats()
        paths = mct_libs.model_configs(MODELS)
        self.assertEqual(sorted(os.path.basename(p) for p in paths), sorted(formats))
        self.assertEqual(len(paths), 16)
        for path in paths:
            with self.subTest(config=os.path.basename(path)):
                self.assertEqual(mct_libs.owner_of(mct_libs.load_config(path)),
                                 owner_from_readme(formats[os.path.basename(path)]))

    def test_an_unrecognised_config_is_an_error(self):
        with self.assertRaises(ValueError):
            mct_libs.owner_of({"size": 224})

    def test_a_modelinfo_has_no_library_to_run(self):
        frame = np.zeros((8, 8, 3), np.uint8)
        with self.assertRaisesRegex(mct_libs.Unavailable, "no owning library"):
            mct_libs.library_side(os.path.join(MODELS, "gstreamer-ssd-mobilenet-v1.modelinfo"),
                                  frame, "cpu")


class Report(unittest.TestCase):
    def test_format_ms(self):
        self.assertEqual(mct.format_ms(0.01044), "0.0104")
        self.assertEqual(mct.format_ms(12.345), "12.3")
        self.assertEqual(mct.format_ms(1234.6), "1235")
        self.assertEqual(mct.format_ms(None), "")

    def test_table(self):
        rows = [mct.Row("vit", (1920, 1080), 0.0125, 0.031, "transformers X", 0.5, "cuda"),
                mct.Row("yolo", (3840, 2160), 0.02, None, "cv2", 6.0, "cpu"),
                mct.Row("ssd", (1920, 1080), 0.01, 0.02, "none (no library)")]
        lines = mct.markdown_table(rows).splitlines()
        self.assertEqual(len(lines), 5)
        self.assertEqual(len(lines[1].split("|")), len(lines[0].split("|")))
        # 0.5 / 0.0125 = 40, 6.0 / 0.02 = 300
        self.assertEqual(lines[2], "| vit | 1920x1080 | 0.0125 | 0.031 | transformers X | 0.5 | "
                                   "cuda | 40.0x |")
        self.assertEqual(lines[3], "| yolo | 3840x2160 | 0.02 |  | cv2 | 6 | cpu | 300.0x |")
        self.assertEqual(lines[4], "| ssd | 1920x1080 | 0.01 | 0.02 | none (no library) |  |  |  |")

    def test_squeezed_shape_drops_a_batch_of_one_only(self):
        self.assertEqual(mct_libs.squeezed_shape((1, 3, 224, 224)), (3, 224, 224))
        self.assertEqual(mct_libs.squeezed_shape((3, 224, 224)), (3, 224, 224))
        self.assertEqual(mct_libs.squeezed_shape((2, 3, 4, 4)), (2, 3, 4, 4))


class CpuTiming(unittest.TestCase):
    def test_median_of_the_timed_calls_after_the_warm_up(self):
        calls = []
        # warm-up calls read no clock; then start/stop pairs 5, 1 and 3 ms apart
        ticks = iter([10.0, 10.005, 20.0, 20.001, 30.0, 30.003])
        median = mct_timing.median_ms_cpu(lambda: calls.append(1), 2, 3, clock=lambda: next(ticks))
        self.assertEqual(len(calls), 5)
        self.assertAlmostEqual(median, 3.0, places=6)


class CommandLine(unittest.TestCase):
    def parse(self, *argv):
        with contextlib.redirect_stderr(io.StringIO()):
            return mct.parse_args(list(argv))

    def test_defaults(self):
        args = self.parse()
        self.assertEqual(args.size, [(1920, 1080), (3840, 2160)])
        self.assertEqual(len(args.configs), 16)
        self.assertFalse(args.dry_run)

    def test_configs_and_sizes(self):
        path = os.path.join(MODELS, "google-vit-base-patch16-224.json")
        args = self.parse(path, "--size", "640x480", "--frames", "5", "--dry-run")
        self.assertEqual((args.configs, args.size, args.frames, args.dry_run),
                         ([path], [(640, 480)], 5, True))

    def test_errors(self):
        for argv in (["--frames", "0"], ["--warmup", "0"], ["no-such-config.json"],
                     ["--size", "640"]):
            with self.subTest(argv=argv), self.assertRaises(SystemExit):
                self.parse(*argv)


class FakeDriver:
    """Logs what the probes ask of the driver; elapsed_ms gives 1, 2, 3..."""

    def __init__(self, log, fail_on_record=False):
        self.log, self.fail_on_record = log, fail_on_record
        self.events = iter(["start", "stop"])
        self.elapsed = iter(range(1, 100))

    def event(self):
        return next(self.events)

    def set_current(self):
        pass

    def record(self, event, stream):
        if self.fail_on_record:
            raise RuntimeError("cuEventRecord failed")
        self.log.append(("record", event, stream))

    def call(self, name, *args):
        self.log.append((name,) + args)

    def elapsed_ms(self, start, stop):
        self.log.append(("elapsed", start, stop))
        return float(next(self.elapsed))


class FakeGate:
    def __init__(self, log):
        self.log = log

    def hold(self, stream, value):
        self.log.append(("hold", stream, value))

    def open(self, value=mct_timing.Gate.OPEN_ALL):
        self.log.append(("open", value))


class ProbeOrder(unittest.TestCase):
    """The probes' calls, frame by frame: warm-up synchronised, then held
    frames (hold before the start event, stop event before the opening),
    then free ones; a probe never drops a buffer."""

    def frame(self, probes, log):
        del log[:]
        self.assertEqual(probes.enter(None, None, None), mct_ours.GST_PAD_PROBE_OK)
        entered = list(log)
        self.assertEqual(probes.leave(None, None, None), mct_ours.GST_PAD_PROBE_OK)
        return entered, log[len(entered):]

    def test_warm_up_held_and_free_frames(self):
        log = []
        probes = mct_ours.ChainProbes(FakeDriver(log), "S", FakeGate(log), warmup=2, frames=2)
        for _ in range(2):
            self.assertEqual(self.frame(probes, log), ([], [("cuStreamSynchronize", "S")]))
        for value in (3, 4):  # frames 2 and 3, held until the word reaches index + 1
            self.assertEqual(self.frame(probes, log), (
                [("hold", "S", value), ("record", "start", "S")],
                [("record", "stop", "S"), ("open", value), ("elapsed", "start", "stop")]))
        for _ in range(2):
            self.assertEqual(self.frame(probes, log), (
                [("record", "start", "S")],
                [("record", "stop", "S"), ("elapsed", "start", "stop")]))
        self.assertEqual((probes.gpu_ms, probes.span_ms), ([1.0, 2.0], [3.0, 4.0]))
        self.assertIsNone(probes.error)

    def test_a_stall_opens_the_gate_for_good(self):
        log = []
        probes = mct_ours.ChainProbes(FakeDriver(log), "S", FakeGate(log), warmup=1, frames=3)
        self.frame(probes, log)
        probes.enter(None, None, None)  # frame 1 held ...
        probes.check_stall()
        self.assertFalse(probes.stalled)
        probes.held_since -= mct_ours.STALL_S + 1  # ... and still not out after STALL_S
        del log[:]
        probes.check_stall()
        self.assertTrue(probes.stalled)
        self.assertEqual(log, [("open", mct_timing.Gate.OPEN_ALL)])
        probes.leave(None, None, None)
        entered, _ = self.frame(probes, log)
        self.assertEqual(entered, [("record", "start", "S")])  # no hold any more

    def test_a_failure_opens_the_gate_and_keeps_the_buffer(self):
        log = []
        probes = mct_ours.ChainProbes(FakeDriver(log, fail_on_record=True), "S", FakeGate(log),
                                      warmup=0, frames=1)
        self.assertEqual(probes.enter(None, None, None), mct_ours.GST_PAD_PROBE_OK)
        self.assertIn("cuEventRecord failed", str(probes.error))
        self.assertEqual(log[-1], ("open", mct_timing.Gate.OPEN_ALL))


def chain_elements(fragment):
    """The cudaprep elements of a launch fragment, in order (caps left out)."""
    names = [part.strip().split()[0] for part in fragment.split(" ! ")]
    return [n for n in names if n.startswith("cuda")]


@unittest.skipIf(cudaprep_or_none() is None, "the cudaprep module or its plugin does not load")
class OurPipeline(unittest.TestCase):
    """The pipeline is built (not started: no GPU needed) and every element
    of the configured chain takes the timed stream."""

    def test_every_chain_element_takes_the_stream(self):
        cudaprep = cudaprep_or_none()
        lib = cudaprep.native()
        for name in ("facebook-convnext-tiny-224.json", "ultralytics-yolov8n-letterbox.json"):
            with self.subTest(config=name):
                path = os.path.join(MODELS, name)
                chain = cudaprep.preprocessing_for(path, frame_size=(1920, 1080))
                running, elements = mct_ours.build_pipeline(
                    cudaprep, mct_ours.chain_description(path, 1920, 1080, "/nonexistent.rgb", 3))
                factories = sorted(n.rstrip("0123456789") for _, n in elements)
                self.assertEqual(factories, sorted(chain_elements(chain.fragment)))
                fake_stream = 0x5A5A0
                for element, _ in elements:
                    lib.gobject.g_object_set(element, b"cuda-stream", fake_stream, None)
                    back = ctypes.c_void_p()
                    lib.gobject.g_object_get(element, b"cuda-stream", ctypes.byref(back), None)
                    self.assertEqual(back.value, fake_stream)
                del running


def _library_installed():
    try:
        import torch  # noqa: F401
        return True
    except ImportError:
        return False


@unittest.skipIf(cudaprep_or_none() is None, "the cudaprep module or its plugin does not load")
@unittest.skipIf(not _library_installed(), "torch is not installed")
class LibrariesOnTheCpu(unittest.TestCase):
    """Each owning library's call, on the CPU, gives the shape of the chain's
    tensor for the same frame."""

    def test_output_shapes(self):
        cudaprep = cudaprep_or_none()
        frame = pr_frames.synthetic_frames(1, 641, 479)[0]
        for path in mct_libs.model_configs(MODELS):
            if mct_libs.owner_of(mct_libs.load_config(path)) is None:
                continue
            with self.subTest(config=os.path.basename(path)):
                try:
                    side = mct_libs.library_side(path, frame, "cpu")
                except mct_libs.Unavailable as error:
                    self.skipTest(str(error))
                chain = cudaprep.preprocessing_for(path, frame_size=(641, 479))
                self.assertEqual(mct_libs.squeezed_shape(side.run().shape),
                                 mct_libs.squeezed_shape(chain.shape))


class LetterboxOnTheCpu(unittest.TestCase):
    def test_letterbox_is_the_parity_reference(self):
        try:
            import cv2  # noqa: F401
        except ImportError as error:
            self.skipTest("cv2 is not installed: %s" % error)
        frame = pr_frames.synthetic_frames(1, 641, 479)[0]
        side = mct_libs.library_side(os.path.join(MODELS, "ultralytics-yolov8n-letterbox.json"),
                                     frame, "cpu")
        ours = side.run()
        self.assertEqual(ours.dtype, np.float32)
        np.testing.assert_allclose(ours, pr_refs.ref_ultralytics(frame), rtol=0, atol=1e-6)


@unittest.skipIf(gpu_count() == 0, "no CUDA device")
class OnTheGpu(unittest.TestCase):
    def test_one_config_is_timed_both_ways(self):
        import tempfile
        cudaprep = cudaprep_or_none()
        path = os.path.join(MODELS, "facebook-convnext-tiny-224.json")
        frame = pr_frames.synthetic_frames(1, 640, 480)[0]
        chain = cudaprep.preprocessing_for(path, frame_size=(640, 480))
        with tempfile.TemporaryDirectory() as workdir:
            result = mct_ours.time_ours(cudaprep, mct_timing.Driver(), path, frame, 3, 10,
                                        chain.shape, workdir)
        self.assertIsNone(result.why)
        self.assertGreater(result.gpu_ms, 0)
        self.assertGreater(result.span_ms, 0)


if __name__ == "__main__":
    unittest.main()
