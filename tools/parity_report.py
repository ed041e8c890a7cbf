#!/usr/bin/env python3
"""Parity report: a cudaprep pipeline against the preprocessing a model was
trained with, on the same frames, in 8-bit steps.

    tools/parity_report.py REFERENCE [REFERENCE ...] [--size WxH ...] [--frames N]
        [--images a.png ...] [--frame-cache DIR] [--method M] [--antialias on|off]
        [--antialias-intermediate float|uint8] [--float-intermediate on|off]
        [--fuse on|off] [--out WxH] [--pipeline "..."]
        [--reference-device cpu|cuda] [--reference-backend auto|torchvision|torch|numpy]
        [--max-target S] [--mean-target S]
    tools/parity_report.py --list
    tools/parity_report.py --model-config CONFIG [CONFIG ...] [--size WxH ...] [--frames N]
        [--images ...] [--max-target S] [--mean-target S]

REFERENCE (--list prints them with their default pipelines):
    torchvision-bilinear, torchvision-bicubic
        torchvision's classifier eval transform (ImageClassification, what
        weights.transforms() gives) on a uint8 image tensor, as decode_image
        returns it: Resize(256, antialias=True), whose result is rounded back
        to uint8, CenterCrop(224), to float /255, ImageNet normalise
    torchvision-float-bilinear, torchvision-float-bicubic
        the same on a float tensor in [0, 1] (ToDtype first): no rounding
        between the resize and the normalisation
    pil-bilinear, pil-bicubic
        the same transform on a PIL image (torchvision's classic path)
    depth-anything
        cv2.resize(img / 255.0, INTER_CUBIC) to the short side 518, both sides
        multiples of 14 (Depth-Anything's Resize, lower_bound) + ImageNet
    ultralytics-letterbox
        LetterBox(640, pad 114), cv2.resize INTER_LINEAR, / 255
    opencv
        cv2.resize to --out (default 224x224) with --method's INTER_* flag +
        ImageNet normalise

torchvision references use torchvision when it is installed, else the same
steps written with torch.nn.functional.interpolate (what torchvision's
tensor Resize calls), else NumPy code of the same definition
(antialiased_resize in parity_report_references.py); the report says which, and
--reference-backend picks one.

The pipeline (default: the preset matching the reference, adjusted by
--method/--antialias/--antialias-intermediate/--float-intermediate/--fuse)
runs through the real elements, through the cudaprep Python module:
    filesrc ! rawvideoparse format=rgb ! cudaframeupload ! PIPELINE !
    cudatensorsink
Its tensor must be NCHW with batch size 1. Where the reference centre-crops
(torchvision, PIL) the pipeline's tensor is the uncropped resize and the
report compares its centred window, which is the crop (cudaresize has no
crop after the resize); the uncropped sizes must agree, or the sampling
positions would differ, and the report says so.

cudaresize's antialias-intermediate follows the reference: uint8 for PIL
and for torchvision on uint8 tensors where torchvision resizes them with
torch's CPU uint8 kernels (bicubic; bilinear with AVX2/AVX512), which keep
the horizontal pass in 8 bits as PIL does; float where the reference
resizes floats and rounds once (float tensors, --reference-device cuda, the
NumPy backend, bilinear on CPUs without AVX2).

--model-config runs each model config (docs/model-configs.md) through
cudapreprocess model-config=CONFIG frame-width=W frame-height=H (the chain
cudaprep.preprocessing_for reports) against the library that owns the
config, run on the same frames: transformers' PIL image processor
(`<Name>ImageProcessorPil` in transformers 5, the slow `<Name>ImageProcessor`
in 4.x), timm's eval transform on a PIL image, the torchvision weights'
transforms() on a uint8 tensor (or a PIL image, per the file's `input`), the
Ultralytics letterbox (cv2). A .modelinfo has no owning library and is
skipped with a note. Steps are |ours - ref| * std / scale, std and scale
being the chain's cudanormalize's.

A video config (VideoMAE: tests/data/models/<model>/preprocessor_config.json,
whose chain's tensor is 5-D, NTCHW 1xTxCxHxW) runs on a clip of T frames
made from the synthetic ones (each shifted by its index, so no two are
alike), and transformers' processor gets the clip as one video: frame t of
our tensor against its pixel_values[0, t].

Unit: one 8-bit step is the change of one input level, 1/255, carried
through the normalisation: |ours - ref| / ((1/255) / std) = |ours - ref| *
std * 255 for normalised outputs (std 1 for a plain /255). Printed per
frame and over all frames: max, mean and 99th percentile. With
--max-target/--mean-target the exit status is 1 when a result exceeds them
(the max by more than the float32 rounding of a step, 1e-3).
"""
import argparse
import sys
import tempfile

from parity_report_comparison import compare, print_overall, summary
from parity_report_frames import cached_synthetic_frames, load_images
from parity_report_model_configs import run_model_configs
from parity_report_pipeline import PipelineError, run_pipeline
from parity_report_presets import REFERENCES, _antialias_column, _bool, pipeline_for, settings_for
from parity_report_references import describe_backend, torchvision_backend

METHODS = ("nearest", "bilinear", "bicubic", "area")


def parse_size(text):
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError("expected WIDTHxHEIGHT, got %r" % text)
    if width < 1 or height < 1:
        raise argparse.ArgumentTypeError("both sides must be at least 1, got %r" % text)
    return width, height


def make_parser():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("references", nargs="*", metavar="REFERENCE",
                        help="one or more of: " + ", ".join(REFERENCES))
    parser.add_argument("--list", action="store_true",
                        help="print the references and their default pipelines, then exit")
    parser.add_argument("--size", type=parse_size, nargs="+", default=[(1920, 1080)],
                        help="synthetic frame sizes, WxH (default 1920x1080)")
    parser.add_argument("--frames", type=int, default=2, help="synthetic frames per size")
    parser.add_argument("--images", nargs="+", help="frames from image files instead")
    parser.add_argument("--frame-cache", metavar="FOLDER",
                        help="keep the synthetic frames there and reuse them")
    parser.add_argument("--method", choices=METHODS, help="cudaresize method (default: the "
                        "reference's; also the opencv reference's INTER_ flag)")
    parser.add_argument("--antialias", choices=("on", "off"),
                        help="cudaresize antialias (default: on for torchvision and PIL)")
    parser.add_argument("--antialias-intermediate", choices=("float", "uint8"),
                        help="cudaresize antialias-intermediate (default: uint8 for PIL and for "
                        "torchvision on uint8 tensors where torch's CPU uint8 kernels resize "
                        "them, else float)")
    parser.add_argument("--float-intermediate", choices=("on", "off"),
                        help="cudaresize float-intermediate (default: on for torchvision-float "
                        "and depth-anything)")
    parser.add_argument("--fuse", choices=("on", "off"), default="on",
                        help="cudatensorize fuse (default on)")
    parser.add_argument("--out", type=parse_size, default=(224, 224),
                        help="the opencv reference's output size (default 224x224)")
    parser.add_argument("--pipeline", help="the elements between cudaframeupload and "
                        "cudatensorsink, instead of the preset (then --method, --antialias, "
                        "--antialias-intermediate, --float-intermediate and --fuse do not "
                        "apply)")
    parser.add_argument("--reference-device", choices=("cpu", "cuda"), default="cpu",
                        help="where torch/torchvision compute their references (default cpu, "
                        "as a DataLoader's workers do)")
    parser.add_argument("--reference-backend", choices=("auto", "torchvision", "torch", "numpy"),
                        default="auto", help="what computes the torchvision references (default: "
                        "torchvision, else torch, else NumPy)")
    parser.add_argument("--model-config", nargs="+", metavar="CONFIG",
                        help="compare cudapreprocess model-config=CONFIG with the library that "
                        "owns each config instead of the presets")
    parser.add_argument("--max-target", type=float, help="exit 1 when a max exceeds this")
    parser.add_argument("--mean-target", type=float, help="exit 1 when a mean exceeds this")
    return parser


def check_args(parser, args):
    if args.list:
        return
    if args.model_config:
        if args.references or args.pipeline:
            parser.error("--model-config replaces the REFERENCEs and --pipeline")
        if args.frames < 1:
            parser.error("--frames must be at least 1")
        return
    if not args.references:
        parser.error("name at least one REFERENCE (--list shows them)")
    unknown = [r for r in args.references if r not in REFERENCES]
    if unknown:
        parser.error("unknown reference %s; one of %s" % (", ".join(unknown),
                                                          ", ".join(REFERENCES)))
    if args.pipeline and (args.method or args.antialias or args.antialias_intermediate or
                          args.float_intermediate or args.fuse != "on"):
        parser.error("--pipeline replaces the preset: --method, --antialias, "
                     "--antialias-intermediate, --float-intermediate and --fuse only change "
                     "presets")
    if args.frames < 1:
        parser.error("--frames must be at least 1")


def main(argv=None):
    parser = make_parser()
    args = parser.parse_args(argv)
    check_args(parser, args)
    if args.list:
        for name, reference in REFERENCES.items():
            print("%-28s %s" % (name, pipeline_for(reference, args)))
        return 0
    frame_sets = []
    if args.images:
        frame_sets.append(load_images(args.images))
    else:
        frame_sets = [cached_synthetic_frames(args.frames, w, h, args.frame_cache)
                      for w, h in args.size]
    if args.model_config:
        print("unit: 8-bit steps, |ours - ref| * std / scale (one input level through the "
              "normalisation)")
        return run_model_configs(args, frame_sets)
    print("unit: 8-bit steps, |ours - ref| * std * 255 (one input level through the "
          "normalisation)")
    if any(n.startswith("torchvision") for n in args.references):
        backend = torchvision_backend(args.reference_backend)
        print("torchvision references: %s, on %s" % (
            describe_backend(backend), "cpu" if backend == "numpy" else args.reference_device))
    rows, failed = [], False
    for frames in frame_sets:
        height, width = frames[0].shape[:2]
        for name in args.references:
            reference = REFERENCES[name]
            settings = settings_for(reference, args)
            pipeline = pipeline_for(reference, args)
            print(f"\n{name}, {len(frames)} frames {width}x{height}")
            print(f"  pipeline: {pipeline}")
            try:
                with tempfile.TemporaryDirectory() as workdir:
                    tensors = run_pipeline(frames, pipeline, workdir)
                per_frame, (dmax, dmean, dp99), note = compare(reference, settings, frames,
                                                               tensors)
            except (PipelineError, ValueError) as error:
                print(f"  FAILED: {error}")
                failed = True
                rows.append((name, f"{width}x{height}", settings, None, None, None))
                continue
            if note:
                print("  NOTE: " + note)
            for index, difference in enumerate(per_frame):
                fmax, fmean, fp99 = summary(difference)
                print(f"  frame {index}: max {fmax:.4f}  mean {fmean:.4f}  p99 {fp99:.4f}")
            failed |= print_overall(dmax, dmean, dp99, args.max_target, args.mean_target)
            rows.append((name, f"{width}x{height}", settings, dmax, dmean, dp99))
    print("\n| reference | frames | method | antialias | float intermediate | fused | max | "
          "mean | p99 |")
    print("|---|---|---|---|---|---|---:|---:|---:|")
    custom = args.pipeline is not None
    for name, size, s, dmax, dmean, dp99 in rows:
        figures = ("failed | | |" if dmax is None else
                   f"{dmax:.4f} | {dmean:.4f} | {dp99:.4f} |")
        print(f"| {name} | {len(frame_sets[0])}x {size} | "
              f"{'custom' if custom else s['method']} | "
              f"{'' if custom else _antialias_column(s)} | "
              f"{'' if custom else _bool(s['float_intermediate'])} | "
              f"{'' if custom else _bool(s['fuse'])} | {figures}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
