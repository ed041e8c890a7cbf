"""Parity report: a cudaprep pipeline against the preprocessing a model was
trained with, on the same frames, in 8-bit steps.

    tools/parity_report.py REFERENCE [--pipeline "cudaresize ... ! cudatensorize"]
                           [--size 1920x1080] [--frames 3] [--images a.png b.jpg]

REFERENCE is one of
    torchvision-bilinear, torchvision-bicubic
        Resize(256, antialias=True) + CenterCrop(224) + ImageNet normalise,
        computed with torch.nn.functional.interpolate on float tensors (what
        torchvision's Resize does), on the GPU when there is one
    pil-bilinear, pil-bicubic
        the same transform through PIL (torchvision's classic PIL path)
    depth-anything
        cv2.resize(img / 255.0, short side 518 multiple of 14, INTER_CUBIC) +
        ImageNet normalise
    ultralytics-letterbox
        LetterBox(640x640, pad 114), cv2.resize INTER_LINEAR, / 255
    opencv-bilinear
        cv2.resize(img, 224x224, INTER_LINEAR) + ImageNet normalise

The pipeline (default: the one that matches the reference) runs under
gst-launch-1.0 as  filesrc ! rawvideoparse (RGB) ! cudaframeupload !
PIPELINE ! cudatensorsink location=...npy; its tensor must be float32 NCHW
with batch-size 1. Where the reference centre-crops (torchvision, PIL), the
pipeline's tensor may be the uncropped resize: the report compares its
centred window of the reference's size, which is the crop. Differences are
printed per frame and over all frames as max, mean and p99 of |ours - ref|
in 8-bit steps (a normalised value times std * 255 / scale).
"""
import argparse
import os
import shlex
import subprocess
import sys
import tempfile

import numpy as np

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
IMAGENET = "mean=\"<0.485,0.456,0.406>\" std=\"<0.229,0.224,0.225>\""


def torchvision_resize_size(width, height, short=256):
    """torchvision's Resize(int): the short side to `short`, the long one
    int(short * long / short_side)."""
    if width <= height:
        return short, int(short * height / width)
    return int(short * width / height), short


def centre_window(array, width, height):
    """torchvision's CenterCrop offsets: round((size - crop) / 2)."""
    top = int(round((array.shape[-2] - height) / 2.0))
    left = int(round((array.shape[-1] - width) / 2.0))
    return array[..., top:top + height, left:left + width]


def normalise(rgb01, mean, std):
    """CHW float in [0, 1] -> (x - mean) / std per channel."""
    mean = np.asarray(mean, dtype=np.float64).reshape(3, 1, 1)
    std = np.asarray(std, dtype=np.float64).reshape(3, 1, 1)
    return (rgb01 - mean) / std


def ref_torchvision(frame, mode):
    import torch
    import torch.nn.functional as F
    device = "cuda" if torch.cuda.is_available() else "cpu"
    height, width = frame.shape[:2]
    out_width, out_height = torchvision_resize_size(width, height)
    x = torch.from_numpy(frame).to(device).permute(2, 0, 1)[None].float()
    x = F.interpolate(x, size=(out_height, out_width), mode=mode, align_corners=False,
                      antialias=True)
    x = centre_window(x[0].double().cpu().numpy(), 224, 224)
    return normalise(x / 255.0, IMAGENET_MEAN, IMAGENET_STD)


def ref_pil(frame, mode):
    from PIL import Image
    height, width = frame.shape[:2]
    size = torchvision_resize_size(width, height)
    image = Image.fromarray(frame).resize(size, {"bilinear": Image.BILINEAR,
                                                 "bicubic": Image.BICUBIC}[mode])
    x = centre_window(np.asarray(image).transpose(2, 0, 1).astype(np.float64), 224, 224)
    return normalise(x / 255.0, IMAGENET_MEAN, IMAGENET_STD)


def depth_anything_size(width, height, side=518, multiple=14):
    scale = max(side / width, side / height)

    def snap(value):
        snapped = round(value / multiple) * multiple
        return snapped if snapped >= side else int(np.ceil(value / multiple) * multiple)
    return snap(width * scale), snap(height * scale)


def ref_depth_anything(frame):
    import cv2
    height, width = frame.shape[:2]
    size = depth_anything_size(width, height)
    x = cv2.resize(frame / 255.0, size, interpolation=cv2.INTER_CUBIC)
    return normalise(x.transpose(2, 0, 1), IMAGENET_MEAN, IMAGENET_STD)


def ref_ultralytics(frame, size=640, pad=114):
    import cv2
    height, width = frame.shape[:2]
    r = min(size / height, size / width)
    new_width, new_height = int(round(width * r)), int(round(height * r))
    resized = cv2.resize(frame, (new_width, new_height), interpolation=cv2.INTER_LINEAR)
    dw, dh = (size - new_width) / 2, (size - new_height) / 2
    top, bottom = int(round(dh - 0.1)), int(round(dh + 0.1))
    left, right = int(round(dw - 0.1)), int(round(dw + 0.1))
    boxed = cv2.copyMakeBorder(resized, top, bottom, left, right, cv2.BORDER_CONSTANT,
                               value=(pad, pad, pad))
    return boxed.transpose(2, 0, 1).astype(np.float64) / 255.0


def ref_opencv(frame):
    import cv2
    x = cv2.resize(frame, (224, 224), interpolation=cv2.INTER_LINEAR)
    return normalise(x.transpose(2, 0, 1) / 255.0, IMAGENET_MEAN, IMAGENET_STD)


TV = "cudaresize short-side=256 method={m} antialias=true float-intermediate=true ! " \
     "cudanormalize " + IMAGENET + " ! cudatensorize"
PIL_PIPE = "cudaresize short-side=256 method={m} antialias=true ! cudanormalize " + IMAGENET + \
    " ! cudatensorize"
REFERENCES = {
    # name: (reference(frame), default pipeline, std used to turn values into steps)
    "torchvision-bilinear": (lambda f: ref_torchvision(f, "bilinear"), TV.format(m="bilinear"),
                             IMAGENET_STD),
    "torchvision-bicubic": (lambda f: ref_torchvision(f, "bicubic"), TV.format(m="bicubic"),
                            IMAGENET_STD),
    "pil-bilinear": (lambda f: ref_pil(f, "bilinear"), PIL_PIPE.format(m="bilinear"),
                     IMAGENET_STD),
    "pil-bicubic": (lambda f: ref_pil(f, "bicubic"), PIL_PIPE.format(m="bicubic"), IMAGENET_STD),
    "depth-anything": (ref_depth_anything,
                       "cudaresize short-side=518 multiple-of=14 method=bicubic "
                       "float-intermediate=true ! cudanormalize " + IMAGENET + " ! cudatensorize",
                       IMAGENET_STD),
    "ultralytics-letterbox": (ref_ultralytics,
                              "cudaresize add-borders=true pad-value=\"<114,114,114>\" ! "
                              "video/x-raw(memory:CUDAPitched),width=640,height=640 ! "
                              "cudanormalize ! cudatensorize", (1.0, 1.0, 1.0)),
    "opencv-bilinear": (ref_opencv,
                        "cudaresize ! video/x-raw(memory:CUDAPitched),width=224,height=224 ! "
                        "cudanormalize " + IMAGENET + " ! cudatensorize", IMAGENET_STD),
}


def synthetic_frames(count, width, height, seed=0):
    """Photograph-like test frames: gradients, sharp edges, fine stripes
    (what aliases) and noise, in [0, 255] without saturating much."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    frames = []
    for i in range(count):
        channels = []
        for c in range(3):
            f = rng.uniform(0.002, 0.02, size=2)
            value = 128 + 60 * np.sin(f[0] * x + f[1] * y + c + i)
            value += 40 * (((x // (37 + 11 * c)) + (y // 53)) % 2 - 0.5)  # edges
            value += 20 * np.sin(2.6 * x + 0.3 * c) * (y < height / 2)  # fine stripes
            value += rng.normal(0, 8, size=value.shape)
            channels.append(value)
        frames.append(np.clip(np.rint(np.stack(channels, axis=-1)), 0, 255).astype(np.uint8))
    return frames


def load_images(paths):
    import cv2
    frames = [cv2.cvtColor(cv2.imread(p, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB) for p in paths]
    shapes = {f.shape for f in frames}
    if len(shapes) != 1:
        sys.exit("--images: every image must have the same size, got %s" % sorted(shapes))
    return frames


def run_pipeline(frames, pipeline, workdir):
    height, width = frames[0].shape[:2]
    raw = os.path.join(workdir, "frames.rgb")
    with open(raw, "wb") as f:
        for frame in frames:
            f.write(np.ascontiguousarray(frame).tobytes())
    pattern = os.path.join(workdir, "tensor-%05d.npy")
    launch = (f"filesrc location={raw} ! rawvideoparse format=rgb width={width} height={height} "
              f"framerate=30/1 ! cudaframeupload ! {pipeline} ! cudatensorsink "
              f"location={pattern}")
    # Split as a shell would: gst-launch-1.0 parses its arguments one by one.
    result = subprocess.run(["gst-launch-1.0", "-q"] + shlex.split(launch), capture_output=True,
                            text=True)
    if result.returncode != 0:
        sys.exit("the pipeline failed:\n  gst-launch-1.0 '%s'\n%s%s" % (launch, result.stdout,
                                                                      result.stderr))
    tensors = []
    for index in range(len(frames)):
        path = pattern % index
        if not os.path.exists(path):
            sys.exit("the pipeline wrote no %s (%d frames in)" % (path, len(frames)))
        tensor = np.load(path)
        if tensor.ndim != 4 or tensor.shape[0] != 1 or tensor.shape[1] not in (1, 3):
            sys.exit("%s has shape %s; the report needs float NCHW with batch 1" %
                     (path, tensor.shape))
        tensors.append(tensor[0].astype(np.float64))
    return tensors


def steps(ours, ref, std):
    if ours.shape != ref.shape:
        if ours.shape[-2] < ref.shape[-2] or ours.shape[-1] < ref.shape[-1]:
            sys.exit("the pipeline's tensor %s is smaller than the reference's %s" %
                     (ours.shape, ref.shape))
        ours = centre_window(ours, ref.shape[-1], ref.shape[-2])
    std = np.asarray(std, dtype=np.float64).reshape(3, 1, 1)
    return np.abs(ours - ref) * std * 255.0


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reference", choices=sorted(REFERENCES))
    parser.add_argument("--pipeline", help="elements between cudaframeupload and cudatensorsink")
    parser.add_argument("--size", default="1920x1080", help="synthetic frame size, WxH")
    parser.add_argument("--frames", type=int, default=3, help="synthetic frames")
    parser.add_argument("--images", nargs="+", help="frames from image files instead")
    args = parser.parse_args()
    reference, default_pipeline, std = REFERENCES[args.reference]
    pipeline = args.pipeline or default_pipeline
    if args.images:
        frames = load_images(args.images)
    else:
        width, height = (int(v) for v in args.size.lower().split("x"))
        frames = synthetic_frames(args.frames, width, height)
    with tempfile.TemporaryDirectory() as workdir:
        ours = run_pipeline(frames, pipeline, workdir)
    height, width = frames[0].shape[:2]
    print(f"reference {args.reference}, {len(frames)} frames {width}x{height}")
    print(f"pipeline  {pipeline}")
    everything = []
    for index, (frame, tensor) in enumerate(zip(frames, ours)):
        difference = steps(tensor, reference(frame), std)
        everything.append(difference.ravel())
        print(f"  frame {index}: max {difference.max():.4f}  mean {difference.mean():.4f}  "
              f"p99 {np.percentile(difference, 99):.4f} steps")
    total = np.concatenate(everything)
    print(f"all frames: max {total.max():.4f}  mean {total.mean():.4f}  "
          f"p99 {np.percentile(total, 99):.4f} 8-bit steps")


if __name__ == "__main__":
    main()
