#!/usr/bin/env python3
"""GPU time per frame of each model config's chain beside the owning
library's own preprocessing, in one run (issue 24).

    bench/model_config_time.py [CONFIG ...] [--size WxH ...] [--frames N]
        [--warmup N] [--frame-cache FOLDER]
    bench/model_config_time.py --dry-run [CONFIG ...] [--size WxH ...] [--frames N]

CONFIG: model configs (docs/model-configs.md); default every one in
tests/data/models. --size: default 1920x1080 and 3840x2160. Medians over
--frames frames (default 200) after --warmup (default 20), per config and
size, ours and the library's one after the other.

Both sides start from the same decoded RGB frame (tools/parity_report.py's
synthetic frame of that size), already in device memory, and process it
again for every frame:

ours: filesrc ! rawvideoparse ! cudaframeupload ! imagefreeze (the frame,
    uploaded once, repeated on the device) ! cudapreprocess
    model-config=CONFIG ! cudatensorsink; ends at the chain's tensor in
    device memory (NCHW, the config's dtype). Every element of the chain
    runs on one CUDA stream of this script; a pad probe before the chain
    records a start event on it, one after the chain a stop event.
    "GPU": the probe before the chain first holds the stream
    (cuStreamWaitValue32 on a host-mapped word) and the probe after it
    releases it once the frame's kernels are all queued: the events time
    the chain's kernels run back to back, without GStreamer's host time
    between launches. "span": N more frames without the hold: the time
    from the chain's start to its end on the device as the pipeline feeds
    it, host gaps between launches included (what the library's events
    measure).
owning library, CUDA events on torch's current stream around the call
    (torch.cuda.Event, synchronised, as bench/peer_pytorch.py), from the
    frame as a uint8 CHW CUDA tensor:
    transformers: AutoImageProcessor from the config with the torchvision
        backend (backend="torchvision" in transformers 5, use_fast=True in
        4.x), called with device="cuda"; ends at pixel_values, float32 NCHW
        on the device. A processor without that backend in the installed
        version runs its NumPy/PIL path on the CPU (said in the row).
    timm: create_transform(resolve_data_config(pretrained_cfg)) on the
        tensor; its Normalize takes float tensors only, so the frame is
        made float in [0, 1] inside the timed call; ends at float32 CHW on
        the device. A transform that takes no tensor runs on a PIL image on
        the CPU (said in the row).
    torchvision: the weights' transforms() on the uint8 tensor (a PIL image
        on the CPU where the config's `input` is pil, the tensor / 255 where
        it is float); ends at float32 CHW.
    Ultralytics letterbox: cv2 on the CPU (no device path), timed with
        perf_counter from the frame as a uint8 HWC array in host memory to
        the float32 CHW array x / 255 in host memory; the frame's download
        and the tensor's upload are not counted.
    .modelinfo: no owning library; ours only.

Prints a Markdown table: config, input, our GPU and span ms/frame, the
library, its ms/frame, where it ran (cuda/cpu) and library / ours (GPU).

Environment: as tools/parity_report.py (the cudaprep module from python/ or
CUDAPREP_PYTHON_DIR; CUDAPREP_LIB_DIR and CUDAPREP_PLUGIN_DIR for the
library and the plugin, the GStreamer bundle's env.sh where GStreamer is
not installed). torch is needed for the libraries' device paths; nothing is
downloaded (HF_HUB_OFFLINE=1 unless set).

--dry-run needs no GPU: for each config and size it builds our pipeline
(not started), shows the chain and the elements that would run on the
timed stream, and runs the owning library on the CPU (--frames times, with
perf_counter) where it is installed, checking its output's shape against
the chain's tensor shape. Nothing it prints is a GPU figure.
"""
import argparse
import os
import sys
import tempfile

# Nothing is downloaded (read by huggingface_hub when transformers is imported).
os.environ.setdefault("HF_HUB_OFFLINE", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
from parity_report import parse_size  # noqa: E402
from parity_report_frames import cached_synthetic_frames  # noqa: E402
from parity_report_pipeline import _import_cudaprep  # noqa: E402  (the cudaprep module)
from cuda_timing import median_cuda_event_ms  # noqa: E402  (torch imported on the first call)
from model_config_time_libraries import (Unavailable, library_side,  # noqa: E402
                                         model_configs, squeezed_shape)
from model_config_time_ours import (OursResult, build_pipeline,  # noqa: E402
                                    chain_description, time_ours)
from model_config_time_timing import Driver, median_ms_cpu  # noqa: E402

DEFAULT_SIZES = [(1920, 1080), (3840, 2160)]

# --- the report ----------------------------------------------------------------------

OURS_PATH = ("from the uint8 RGB frame in device memory (cudaframeupload once, repeated by "
             "imagefreeze) to the chain's tensor in device memory; GPU: its kernels back to back "
             "(the stream held while they are queued), span: start to end on the device as the "
             "pipeline feeds it")


def format_ms(value):
    """Three significant figures, no exponent."""
    if value is None:
        return ""
    return f"{value:.0f}" if value >= 1000 else f"{value:.3g}"


def ratio(library_ms, ours_ms):
    if library_ms is None or not ours_ms:
        return ""
    return f"{library_ms / ours_ms:.1f}x"


class Row:
    def __init__(self, config, size, ours_gpu=None, ours_span=None, library="", library_ms=None,
                 where="", notes=()):
        self.config, self.size = config, size
        self.ours_gpu, self.ours_span = ours_gpu, ours_span
        self.library, self.library_ms, self.where = library, library_ms, where
        self.library_path = ""  # what the library starts from and ends at
        self.notes = list(notes)


def markdown_table(rows):
    lines = ["| model config | input | ours: GPU ms/frame | ours: span ms/frame | owning library "
             "| library ms/frame | where | library / ours (GPU) |",
             "|---|---|---:|---:|---|---:|---|---:|"]
    for row in rows:
        lines.append(f"| {row.config} | {row.size[0]}x{row.size[1]} | {format_ms(row.ours_gpu)} | "
                     f"{format_ms(row.ours_span)} | {row.library} | {format_ms(row.library_ms)} | "
                     f"{row.where} | {ratio(row.library_ms, row.ours_gpu)} |")
    return "\n".join(lines)


def config_name(path):
    return os.path.splitext(os.path.basename(path))[0]


def run_library(path, frame, device, warmup, frames, expected_shape, row, dry_run):
    """Times the owning library into `row`."""
    try:
        side = library_side(path, frame, device)
    except Unavailable as error:
        row.library = f"none ({error})"
        return
    row.library = side.name
    row.where = side.device + (" (dry run)" if dry_run else "")
    row.library_path = f"from {side.starts} to {side.ends}"
    print(f"  library: {side.name}, on {side.device}: {row.library_path}")
    try:
        output = side.run()
        if squeezed_shape(output.shape) != squeezed_shape(expected_shape):
            note = (f"the library's output is {tuple(output.shape)}, our tensor "
                    f"{tuple(expected_shape)}")
            print("  NOTE: " + note)
            row.notes.append(note)
        if side.device == "cuda" and not dry_run:
            row.library_ms = median_cuda_event_ms(side.run, warmup, frames)
        else:
            row.library_ms = median_ms_cpu(side.run, warmup, frames)
    except Exception as error:  # the library's own failure is a result, not a crash
        row.library += f" (FAILED: {type(error).__name__}: {error})"
        print(f"  library FAILED: {type(error).__name__}: {error}")


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return f"{line.split(':', 1)[1].strip()}, {os.cpu_count()} cores"
    except OSError:
        pass
    return f"{os.cpu_count()} cores"


def versions():
    found = []
    for module in ("torch", "torchvision", "transformers", "timm", "cv2"):
        try:
            found.append(f"{module} {__import__(module).__version__}")
        except ImportError:
            found.append(f"{module} not installed")
    return ", ".join(found)


def make_parser():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("configs", nargs="*", metavar="CONFIG",
                        help="model configs (default: every one in tests/data/models)")
    parser.add_argument("--size", type=parse_size, nargs="+", default=DEFAULT_SIZES,
                        help="frame sizes, WxH (default 1920x1080 3840x2160)")
    parser.add_argument("--frames", type=int, default=200, help="timed frames per side")
    parser.add_argument("--warmup", type=int, default=20, help="untimed frames first")
    parser.add_argument("--frame-cache", metavar="FOLDER",
                        help="keep the synthetic frames there and reuse them")
    parser.add_argument("--dry-run", action="store_true",
                        help="no GPU: build the pipelines without starting them and run the "
                        "owning libraries on the CPU")
    return parser


def parse_args(argv=None):
    parser = make_parser()
    args = parser.parse_args(argv)
    if args.frames < 1:
        parser.error("--frames must be at least 1")
    if args.warmup < 1:
        parser.error("--warmup must be at least 1 (the first frames allocate the pools)")
    args.configs = args.configs or model_configs()
    missing = [p for p in args.configs if not os.path.isfile(p)]
    if missing:
        parser.error("no such config: " + ", ".join(missing))
    return args


def main(argv=None):
    args = parse_args(argv)
    cudaprep = _import_cudaprep()
    driver = None
    if args.dry_run:
        print("DRY RUN: no GPU figure; the pipelines are built, not started; the libraries run "
              "on the CPU")
    else:
        driver = Driver()
        print(f"GPU: {driver.name()}")
    print(f"CPU: {cpu_name()}")
    print(f"{versions()}; {args.frames} frames after {args.warmup} warm-up, medians")
    print("Both sides start from one decoded RGB frame, processed again for every frame")
    print(f"ours: {OURS_PATH}")
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for width, height in args.size:
            frame = cached_synthetic_frames(1, width, height, args.frame_cache)[0]
            for path in args.configs:
                row = Row(config_name(path), (width, height))
                rows.append(row)
                print(f"\n{row.config}, {width}x{height}")
                try:
                    chain = cudaprep.preprocessing_for(path, frame_size=(width, height))
                except ValueError as error:
                    print(f"  FAILED: {error}")
                    row.library = f"(the config failed: {error})"
                    continue
                print(f"  chain: {chain.fragment}")
                if args.dry_run:
                    raw = os.path.join(workdir, "frame.rgb")
                    running, elements = build_pipeline(
                        cudaprep, chain_description(path, width, height, raw, 1))
                    del running
                    print("  on the timed stream: " + ", ".join(name for _, name in elements))
                else:
                    try:
                        ours = time_ours(cudaprep, driver, path, frame, args.warmup, args.frames,
                                         chain.shape, workdir)
                    except RuntimeError as error:
                        print(f"  ours FAILED: {error}")
                        row.notes.append(f"ours failed: {error}")
                        ours = OursResult()
                    row.ours_gpu, row.ours_span = ours.gpu_ms, ours.span_ms
                    if ours.why:
                        print("  NOTE: " + ours.why)
                        row.notes.append(ours.why)
                    print(f"  ours: GPU {format_ms(ours.gpu_ms)} ms, span "
                          f"{format_ms(ours.span_ms)} ms per frame")
                run_library(path, frame, "cpu" if args.dry_run else "cuda", args.warmup,
                            args.frames, chain.shape, row, args.dry_run)
                if row.library_ms is not None:
                    print(f"  library: {format_ms(row.library_ms)} ms per frame on {row.where}")
    print()
    print(markdown_table(rows))
    print(f"\n- ours: {OURS_PATH}")
    libraries_by_path = {}
    for row in rows:
        if row.library_path and row.library not in libraries_by_path.get(row.library_path, []):
            libraries_by_path.setdefault(row.library_path, []).append(row.library)
    for path, libraries in libraries_by_path.items():
        print(f"- {', '.join(libraries)}: {path}")
    notes = [(row, note) for row in rows for note in row.notes]
    for row, note in notes:
        print(f"- {row.config} {row.size[0]}x{row.size[1]}: {note}")
    failed = any(r.ours_span is None for r in rows) and not args.dry_run
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
