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
(antialiased_resize below); the report says which, and
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
import os
import sys
import tempfile

import numpy as np

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
IMAGENET = 'mean="<0.485,0.456,0.406>" std="<0.229,0.224,0.225>"'
UNIT_STD = (1.0, 1.0, 1.0)
METHODS = ("nearest", "bilinear", "bicubic", "area")
# One whole step measured through a float32 tensor is 1 +- 1e-4 (the
# normalised values' rounding): --max-target 1 accepts it.
TARGET_TOLERANCE = 1e-3

# --- geometry rules of the references -----------------------------------------


def torchvision_resize_size(width, height, short=256):
    """torchvision's Resize(int) (_compute_resized_output_size): the short
    side to `short`, the long one int(short * long / short_side)."""
    if width <= height:
        return short, int(short * height / width)
    return int(short * width / height), short


def centre_window(array, width, height):
    """torchvision's CenterCrop offsets: int(round((size - crop) / 2))."""
    top = int(round((array.shape[-2] - height) / 2.0))
    left = int(round((array.shape[-1] - width) / 2.0))
    return array[..., top:top + height, left:left + width]


def depth_anything_size(width, height, side=518, multiple=14):
    """Depth-Anything's Resize(keep_aspect_ratio, lower_bound,
    ensure_multiple_of): the larger scale, then each side to the nearest
    multiple (np.round: half to even), up to the next one when below side."""
    scale = max(side / width, side / height)

    def snap(value):
        snapped = int(np.round(value / multiple) * multiple)
        return snapped if snapped >= side else int(np.ceil(value / multiple) * multiple)
    return snap(width * scale), snap(height * scale)


def ultralytics_letterbox_geometry(width, height, size=640):
    """Ultralytics LetterBox(auto=False, center=True): (new_width,
    new_height, top, bottom, left, right)."""
    r = min(size / height, size / width)
    new_width, new_height = int(round(width * r)), int(round(height * r))
    dw, dh = (size - new_width) / 2, (size - new_height) / 2
    top, bottom = int(round(dh - 0.1)), int(round(dh + 0.1))
    left, right = int(round(dw - 0.1)), int(round(dw + 0.1))
    return new_width, new_height, top, bottom, left, right


def normalise(rgb01, mean, std):
    """CHW float in [0, 1] -> (x - mean) / std per channel."""
    mean = np.asarray(mean, dtype=np.float64).reshape(3, 1, 1)
    std = np.asarray(std, dtype=np.float64).reshape(3, 1, 1)
    return (rgb01 - mean) / std


# --- the antialiased resampling's definition, in NumPy --------------------------


def _filter(mode, x):
    x = np.abs(x)
    if mode == "bilinear":
        return np.where(x < 1.0, 1.0 - x, 0.0)
    a = -0.5  # PIL's and torch's antialiased bicubic
    near = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    far = ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a
    return np.where(x < 1.0, near, np.where(x < 2.0, far, 0.0))


def antialias_taps(in_size, out_size, mode):
    """Source indices and weights (out_size x taps) of one axis, as
    torch's _upsample_*_aa and PIL's resample compute them: the support
    (1 bilinear, 2 bicubic) widened by the downscale factor, the filter
    evaluated at (source centre - output centre) / factor, weights
    normalised per output pixel, no border replication."""
    scale = in_size / out_size
    support = (1.0 if mode == "bilinear" else 2.0) * max(scale, 1.0)
    invscale = 1.0 / scale if scale >= 1.0 else 1.0
    centre = scale * (np.arange(out_size) + 0.5)
    xmin = np.maximum(np.trunc(centre - support + 0.5), 0).astype(np.int64)
    xmax = np.minimum(np.trunc(centre + support + 0.5), in_size).astype(np.int64)
    taps = int((xmax - xmin).max())
    offsets = np.arange(taps)
    index = xmin[:, None] + offsets[None, :]
    weight = _filter(mode, (index - centre[:, None] + 0.5) * invscale)
    weight = np.where(index < xmax[:, None], weight, 0.0)
    weight /= weight.sum(axis=1, keepdims=True)
    return np.minimum(index, in_size - 1), weight


def antialiased_resize(image, out_width, out_height, mode):
    """HxWxC image -> out_height x out_width x C float64, torch's
    interpolate(mode, antialias=True, align_corners=False) on a float
    tensor, without its float32 rounding (separable: rows, then columns)."""
    image = np.asarray(image, dtype=np.float64)
    index, weight = antialias_taps(image.shape[0], out_height, mode)
    rows = sum(weight[:, t, None, None] * image[index[:, t]] for t in range(index.shape[1]))
    index, weight = antialias_taps(image.shape[1], out_width, mode)
    return sum(weight[None, :, t, None] * rows[:, index[:, t]] for t in range(index.shape[1]))


# --- references: frame (HxWx3 uint8 RGB) -> CHW float64 -----------------------


def _available(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def torchvision_backend(preferred="auto"):
    """What computes the torchvision references: "torchvision", "torch"
    (its interpolate, as torchvision's Resize calls it) or "numpy" (the
    definition); auto takes the first installed."""
    if preferred == "auto":
        for backend, module in (("torchvision", "torchvision.transforms.v2"), ("torch", "torch")):
            if _available(module):
                return backend
        return "numpy"
    module = {"torchvision": "torchvision.transforms.v2", "torch": "torch"}.get(preferred)
    if module and not _available(module):
        sys.exit("--reference-backend %s: %s is not installed" % (preferred, module))
    return preferred


def describe_backend(backend):
    if backend == "numpy":
        return "NumPy code of the definition"
    import torch
    if backend == "torch":
        return "torch %s interpolate" % torch.__version__
    import torchvision
    return "torchvision %s (torch %s)" % (torchvision.__version__, torch.__version__)


def torch_uint8_kernel(mode, device):
    """Whether torchvision resizes a uint8 tensor on `device` with torch's
    uint8 kernel (which keeps the horizontal pass in 8 bits, as PIL does):
    on the CPU, bicubic always, bilinear with AVX2 or AVX512. AVX512 is
    inferred: on the GPU machine's CPU torchvision 0.26 gave PIL's figures
    for uint8 bilinear (the uint8 kernel's) while an AVX2-only test here
    took the float path."""
    import torch
    return device == "cpu" and (mode == "bicubic" or
                                torch.backends.cpu.get_cpu_capability().startswith("AVX"))


def torchvision_uint8_intermediate(mode, device, backend):
    """The antialias-intermediate that matches the torchvision reference on
    a uint8 tensor: uint8 where torch's uint8 kernel resizes it, float
    where it is resized as floats and rounded once (the GPU, the NumPy
    backend, bilinear on CPUs without AVX2)."""
    if torchvision_backend(backend) == "numpy":
        return "float"
    return "uint8" if torch_uint8_kernel(mode, device) else "float"


def ref_torchvision(frame, mode, float_input, device, backend="auto"):
    """Resize(256, mode, antialias=True) + CenterCrop(224) + ImageNet,
    on a uint8 tensor (float_input False) or a float one in [0, 1]."""
    height, width = frame.shape[:2]
    size = torchvision_resize_size(width, height)
    backend = torchvision_backend(backend)
    if backend == "numpy":
        x = antialiased_resize(frame if not float_input else frame / 255.0, size[0], size[1], mode)
        if not float_input:  # torchvision's cast back: clamp (bicubic), round half even
            x = np.round(np.clip(x, 0, 255))
        x = centre_window(x.transpose(2, 0, 1), 224, 224)
        return normalise(x if float_input else x / 255.0, IMAGENET_MEAN, IMAGENET_STD)
    import torch
    image = torch.from_numpy(np.ascontiguousarray(frame)).permute(2, 0, 1).to(device)
    if backend == "torchvision":
        from torchvision.transforms import InterpolationMode
        from torchvision.transforms.v2 import functional as TF
        if float_input:
            image = TF.to_dtype(image, torch.float32, scale=True)
        interpolation = {"bilinear": InterpolationMode.BILINEAR,
                         "bicubic": InterpolationMode.BICUBIC}[mode]
        image = TF.resize(image, [256], interpolation=interpolation, antialias=True)
        image = TF.center_crop(image, [224])
        image = TF.to_dtype(image, torch.float32, scale=True)
        image = TF.normalize(image, list(IMAGENET_MEAN), list(IMAGENET_STD))
        return image.double().cpu().numpy()
    # torchvision's resize_image, written out: uint8 stays uint8 where it
    # uses torch's uint8 kernel, else float, clamp (bicubic), round, back to
    # uint8. Within a step of torchvision.
    import torch.nn.functional as F
    x = image if not float_input else image.float() / 255.0
    uint8_kernel = not float_input and torch_uint8_kernel(mode, x.device.type)
    y = F.interpolate((x if uint8_kernel else x.float())[None], size=(size[1], size[0]),
                      mode=mode, align_corners=False, antialias=True)[0]
    if not float_input and not uint8_kernel:
        if mode == "bicubic":
            y = y.clamp(0, 255)
        y = y.round().to(torch.uint8)
    y = y.double().cpu().numpy()
    y = centre_window(y, 224, 224)
    return normalise(y if float_input else y / 255.0, IMAGENET_MEAN, IMAGENET_STD)


def ref_pil(frame, mode):
    from PIL import Image
    height, width = frame.shape[:2]
    size = torchvision_resize_size(width, height)
    filters = {"bilinear": Image.BILINEAR, "bicubic": Image.BICUBIC}
    image = Image.fromarray(np.ascontiguousarray(frame)).resize(size, filters[mode])
    x = centre_window(np.asarray(image).transpose(2, 0, 1).astype(np.float64), 224, 224)
    return normalise(x / 255.0, IMAGENET_MEAN, IMAGENET_STD)


def ref_depth_anything(frame):
    import cv2
    height, width = frame.shape[:2]
    size = depth_anything_size(width, height)
    x = cv2.resize(frame / 255.0, size, interpolation=cv2.INTER_CUBIC)
    return normalise(x.transpose(2, 0, 1), IMAGENET_MEAN, IMAGENET_STD)


def ref_ultralytics(frame, pad=114):
    import cv2
    height, width = frame.shape[:2]
    new_width, new_height, top, bottom, left, right = ultralytics_letterbox_geometry(width, height)
    resized = frame
    if (new_width, new_height) != (width, height):
        resized = cv2.resize(frame, (new_width, new_height), interpolation=cv2.INTER_LINEAR)
    boxed = cv2.copyMakeBorder(resized, top, bottom, left, right, cv2.BORDER_CONSTANT,
                               value=(pad, pad, pad))
    return boxed.transpose(2, 0, 1).astype(np.float64) / 255.0


def ref_opencv(frame, method, out_size):
    import cv2
    flags = {"nearest": cv2.INTER_NEAREST, "bilinear": cv2.INTER_LINEAR,
             "bicubic": cv2.INTER_CUBIC, "area": cv2.INTER_AREA}
    x = cv2.resize(frame, out_size, interpolation=flags[method])
    return normalise(x.transpose(2, 0, 1) / 255.0, IMAGENET_MEAN, IMAGENET_STD)


# --- presets ---------------------------------------------------------------------


class Reference:
    """A named reference: what it computes, the pipeline that matches it
    (settings: method, antialias, antialias_intermediate, float_intermediate;
    antialias_intermediate may be a function of the settings), the std that
    turns its values into 8-bit steps, and the uncropped size it resizes to
    (None when the tensor is the whole output)."""

    def __init__(self, name, compute, method, antialias, float_intermediate, pipeline, std,
                 resize_size=None, antialias_intermediate="float"):
        self.name = name
        self.compute = compute
        self.defaults = {"method": method, "antialias": antialias,
                         "antialias_intermediate": antialias_intermediate,
                         "float_intermediate": float_intermediate}
        self.pipeline = pipeline
        self.std = std
        self.resize_size = resize_size


def _bool(value):
    return "true" if value else "false"


def _antialias_column(s):
    """The summary table's antialias: false, or true with its intermediate."""
    return f"true, {s['antialias_intermediate']}" if s["antialias"] else "false"


def _resampling(s):
    """cudaresize's method, antialias and float-intermediate properties; the
    antialias intermediate where it applies (antialiased, not the default)."""
    intermediate = ""
    if s["antialias"] and s["antialias_intermediate"] != "float":
        intermediate = f"antialias-intermediate={s['antialias_intermediate']} "
    return (f"method={s['method']} antialias={_bool(s['antialias'])} {intermediate}"
            f"float-intermediate={_bool(s['float_intermediate'])}")


def _classifier_pipeline(s):
    return (f"cudaresize short-side=256 {_resampling(s)} ! cudanormalize {IMAGENET} ! "
            f"cudatensorize fuse={_bool(s['fuse'])}")


def _depth_pipeline(s):
    return (f"cudaresize short-side=518 multiple-of=14 {_resampling(s)} ! "
            f"cudanormalize {IMAGENET} ! cudatensorize fuse={_bool(s['fuse'])}")


def _letterbox_pipeline(s):
    return (f"cudaresize {_resampling(s)} add-borders=true "
            'pad-value="<114,114,114>" ! video/x-raw(memory:CUDAPitched),width=640,height=640 ! '
            f"cudanormalize ! cudatensorize fuse={_bool(s['fuse'])}")


def _opencv_pipeline(s):
    width, height = s["out"]
    return (f"cudaresize {_resampling(s)} ! "
            f"video/x-raw(memory:CUDAPitched),width={width},height={height} ! "
            f"cudanormalize {IMAGENET} ! cudatensorize fuse={_bool(s['fuse'])}")


def _references():
    refs = []
    for mode in ("bilinear", "bicubic"):
        for float_input in (False, True):
            name = "torchvision-%s%s" % ("float-" if float_input else "", mode)
            refs.append(Reference(
                name,
                lambda f, o, m=mode, fi=float_input: ref_torchvision(
                    f, m, fi, o["reference_device"], o["reference_backend"]),
                mode, True, float_input, _classifier_pipeline, IMAGENET_STD,
                torchvision_resize_size,
                "float" if float_input else
                lambda o, m=mode: torchvision_uint8_intermediate(m, o["reference_device"],
                                                                 o["reference_backend"])))
        refs.append(Reference("pil-" + mode, lambda f, o, m=mode: ref_pil(f, m), mode, True, False,
                              _classifier_pipeline, IMAGENET_STD, torchvision_resize_size,
                              "uint8"))
    refs.append(Reference("depth-anything", lambda f, o: ref_depth_anything(f), "bicubic", False,
                          True, _depth_pipeline, IMAGENET_STD))
    refs.append(Reference("ultralytics-letterbox", lambda f, o: ref_ultralytics(f), "bilinear",
                          False, False, _letterbox_pipeline, UNIT_STD))
    refs.append(Reference("opencv", lambda f, o: ref_opencv(f, o["method"], o["out"]), "bilinear",
                          False, False, _opencv_pipeline, IMAGENET_STD))
    return {ref.name: ref for ref in refs}


REFERENCES = _references()


def settings_for(reference, args):
    """The preset's settings with the user's overrides."""
    settings = dict(reference.defaults)
    settings["fuse"] = args.fuse != "off"
    settings["out"] = args.out
    settings["reference_device"] = args.reference_device
    settings["reference_backend"] = args.reference_backend
    if args.method:
        settings["method"] = args.method
    if args.antialias:
        settings["antialias"] = args.antialias == "on"
    if args.antialias_intermediate:
        settings["antialias_intermediate"] = args.antialias_intermediate
    elif callable(settings["antialias_intermediate"]):
        settings["antialias_intermediate"] = settings["antialias_intermediate"](settings)
    if args.float_intermediate:
        settings["float_intermediate"] = args.float_intermediate == "on"
    return settings


def pipeline_for(reference, args):
    if args.pipeline:
        return args.pipeline
    return reference.pipeline(settings_for(reference, args))


# --- frames -----------------------------------------------------------------------


def synthetic_frames(count, width, height, seed=0):
    """Natural-looking test frames: a 1/f ("pink") luminance field with
    weaker colour variation, as photographs have, occluding shapes with
    sharp edges, a patch of fine stripes (fabric, fences: what aliases) and
    sensor noise; uint8 RGB, little of it clipped."""
    rng = np.random.default_rng(seed)
    fy = np.fft.fftfreq(height)[:, None]
    fx = np.fft.rfftfreq(width)[None, :]
    radius = np.hypot(fx, fy)
    radius[0, 0] = 1.0
    amplitude = 1.0 / radius
    amplitude[0, 0] = 0.0

    def pink():
        phase = rng.uniform(0, 2 * np.pi, size=amplitude.shape)
        field = np.fft.irfft2(amplitude * np.exp(1j * phase), s=(height, width))
        return field / field.std()

    y, x = np.ogrid[0:height, 0:width]
    frames = []
    for _ in range(count):
        luma = pink()
        image = np.stack([118 + 38 * luma + 12 * pink() for _ in range(3)], axis=-1)
        for _ in range(24):
            colour = rng.uniform(20, 235, size=3)
            cx, cy = rng.uniform(0, width), rng.uniform(0, height)
            rx, ry = rng.uniform(0.02, 0.15) * width, rng.uniform(0.02, 0.15) * height
            if rng.uniform() < 0.5:
                mask = (np.abs(x - cx) < rx) & (np.abs(y - cy) < ry)
            else:
                mask = ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 < 1.0
            shade = 1.0 + 0.1 * luma[mask][:, None]
            image[mask] = colour * shade
        patch = (slice(height // 8, height // 3), slice(width // 2, width // 2 + width // 5))
        period = rng.uniform(2.2, 4.0)
        stripes = 60 * np.sin(2 * np.pi * (x[:, patch[1]] + 0.3 * y[patch[0]]) / period)
        image[patch] += stripes[..., None]
        image += rng.normal(0, 2.0, size=image.shape)
        frames.append(np.clip(np.rint(image), 0, 255).astype(np.uint8))
    return frames


def cached_synthetic_frames(count, width, height, folder=None):
    """synthetic_frames (seeded by the size), kept in `folder` as .npy when
    given: a 4K frame takes seconds to make."""
    if not folder:
        return synthetic_frames(count, width, height, seed=width * height)
    path = os.path.join(folder, "parity-frames-%dx%dx%d.npy" % (count, width, height))
    if os.path.exists(path):
        return list(np.load(path))
    frames = synthetic_frames(count, width, height, seed=width * height)
    os.makedirs(folder, exist_ok=True)
    np.save(path, np.stack(frames))
    return frames


def load_images(paths):
    from PIL import Image
    frames = [np.asarray(Image.open(p).convert("RGB")) for p in paths]
    shapes = {f.shape for f in frames}
    if len(shapes) != 1:
        sys.exit("--images: every image must have the same size, got %s" % sorted(shapes))
    return frames


# --- the pipeline -----------------------------------------------------------------


# --- model configs (--model-config): the owning library's own output ---------------


def transformers_processor(config):
    """transformers' processor for a Hugging Face config: the PIL backend of
    an image processor (transformers 5 names it <Name>ImageProcessorPil,
    where the bare name resizes with torchvision when that is installed), or
    the video processor (torchvision only, on the CPU)."""
    import transformers
    kind = config.get("image_processor_type") or config.get("feature_extractor_type")
    if kind:
        kind = kind.replace("FeatureExtractor", "ImageProcessor")
        cls = getattr(transformers, kind + "Pil", None) or getattr(transformers, kind)
    else:
        cls = getattr(transformers, config["video_processor_type"])
    return cls.from_dict(config)


def config_reference(path, frame):
    """The owning library's tensor (CHW float64) for the model config at
    `path` on `frame` (HxWx3 uint8 RGB), or None with why when there is no
    library to run (a .modelinfo). ImportError when the library is missing."""
    import json
    if path.endswith(".modelinfo"):
        return None, "a .modelinfo has no owning library (GStreamer's inference elements scale it)"
    with open(path) as f:
        config = json.load(f)
    if config.get("image_processor_type") or config.get("feature_extractor_type"):
        processor = transformers_processor(config)
        return processor(frame, return_tensors="np")["pixel_values"][0].astype(np.float64), None
    fmt = config.get("format")
    if fmt == "torchvision":
        import torch
        import torchvision
        enum_name, member = config["weights"].split(".")
        transforms = getattr(getattr(torchvision.models, enum_name), member).transforms()
        image = torch.from_numpy(np.ascontiguousarray(frame)).permute(2, 0, 1)
        if config.get("input", "uint8") == "pil":
            from PIL import Image
            image = Image.fromarray(frame)
        elif config.get("input") == "float":
            image = image.float() / 255.0
        return transforms(image).double().numpy(), None
    if fmt == "ultralytics-letterbox":
        if config.get("imgsz", 640) != 640:
            return None, "the letterbox reference here is LetterBox(640)"
        return ref_ultralytics(frame, config.get("pad_value", 114)), None
    import timm.data
    from PIL import Image
    cfg = config.get("pretrained_cfg", config)
    transform = timm.data.create_transform(**timm.data.resolve_data_config(pretrained_cfg=cfg))
    return transform(Image.fromarray(frame)).double().numpy(), None


def clip_reference(path, clip):
    """transformers' pixel_values for a video config at `path` on `clip`
    (T frames, HxWx3 uint8 RGB) given as one video: pixel_values[0, t] (CHW
    float64) for each frame t. ImportError when transformers is missing."""
    import json
    with open(path) as f:
        config = json.load(f)
    processor = transformers_processor(config)
    video = np.stack(clip) if config.get("video_processor_type") else list(clip)
    values = processor([video], return_tensors="np")["pixel_values"]
    values = np.asarray(values, dtype=np.float64)
    if values.shape[:2] != (1, len(clip)):
        raise ValueError("transformers' pixel_values is %s for one video of %d frames" %
                         (values.shape, len(clip)))
    return list(values[0])


def clip_of(frames, length):
    """`length` frames for one clip from `frames`: frame t is frames[t % n]
    shifted right by 17 t pixels (wrapping), so each frame differs."""
    return [np.roll(frames[t % len(frames)], 17 * t, axis=1) for t in range(length)]


def clip_of_chain(shape, fragment):
    """(T, layout) of a chain whose tensor is a 5-D clip, ntchw or ncthw;
    (0, None) for an image tensor."""
    if len(shape) != 5:
        return 0, None
    return (shape[2], "ncthw") if "layout=ncthw" in fragment else (shape[1], "ntchw")


def normalisation_of(fragment):
    """(scale, std) of the chain's cudanormalize, from its launch fragment."""
    import re
    scale = float(re.search(r"cudanormalize .*?scale=([^ ]+)", fragment).group(1))
    std = [float(v) for v in re.search(r'std="<([^>]+)>"', fragment).group(1).split(",")]
    return scale, std


def run_model_configs(args, frame_sets):
    cudaprep = _import_cudaprep()
    rows, failed = [], False
    for frames in frame_sets:
        height, width = frames[0].shape[:2]
        for path in args.model_config:
            name = os.path.basename(path)
            if name == "preprocessor_config.json":  # a model folder (video models)
                name = os.path.join(os.path.basename(os.path.dirname(path)), name)
            print(f"\n{name}, {len(frames)} frames {width}x{height}")
            pipeline = (f"cudapreprocess model-config={path} frame-width={width} "
                        f"frame-height={height}")
            try:
                chain = cudaprep.preprocessing_for(path, frame_size=(width, height))
            except ValueError as error:
                print(f"  FAILED: {error}")
                failed = True
                rows.append((name, f"{width}x{height}", None))
                continue
            print(f"  chain: {chain.fragment}")
            clip_length, clip_layout = clip_of_chain(chain.shape, chain.fragment)
            inputs = clip_of(frames, clip_length) if clip_length else frames
            clip = (chain.shape, clip_layout) if clip_length else None
            if clip:
                print(f"  clip: {clip_length} frames, {clip_layout} {chain.shape}")
            try:
                if clip_length:
                    references = [(ref, None) for ref in clip_reference(path, inputs)]
                else:
                    references = [config_reference(path, frame) for frame in frames]
            except ImportError as error:
                print(f"  SKIPPED: the owning library is not installed ({error})")
                rows.append((name, f"{width}x{height}", "skipped"))
                continue
            if references[0][0] is None:
                print(f"  SKIPPED: {references[0][1]}")
                rows.append((name, f"{width}x{height}", "skipped"))
                continue
            scale, std = normalisation_of(chain.fragment)
            try:
                with tempfile.TemporaryDirectory() as workdir:
                    tensors = run_pipeline(inputs, pipeline, workdir, clip)
                per_frame = [steps(t, ref, np.asarray(std) / (scale * 255.0))
                             for t, (ref, _) in zip(tensors, references)]
            except (PipelineError, ValueError) as error:
                print(f"  FAILED: {error}")
                failed = True
                rows.append((name, f"{width}x{height}", None))
                continue
            dmax, dmean, dp99 = summary(np.concatenate([d.ravel() for d in per_frame]))
            verdict = ""
            if args.max_target is not None or args.mean_target is not None:
                over = over_target(dmax, dmean, args.max_target, args.mean_target)
                failed |= over
                verdict = "  OVER TARGET" if over else "  within target"
            print(f"  all: max {dmax:.4f}  mean {dmean:.4f}  p99 {dp99:.4f} steps{verdict}")
            rows.append((name, f"{width}x{height}", (dmax, dmean, dp99)))
    print("\n| model config | frames | max | mean | p99 |")
    print("|---|---|---:|---:|---:|")
    for name, size, figures in rows:
        cells = ("failed | | |" if figures is None else "skipped | | |" if figures == "skipped"
                 else "%.4f | %.4f | %.4f |" % figures)
        print(f"| {name} | {len(frame_sets[0])}x {size} | {cells}")
    return 1 if failed else 0


def _import_cudaprep():
    try:
        import cudaprep
    except ImportError:
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path.insert(0, os.environ.get("CUDAPREP_PYTHON_DIR",
                                          os.path.join(here, "..", "python")))
        import cudaprep
    return cudaprep


def launch_description(pipeline, raw_path, width, height):
    return (f"filesrc location={raw_path} ! rawvideoparse format=rgb width={width} "
            f"height={height} framerate=30/1 ! cudaframeupload ! {pipeline} ! "
            "cudatensorsink name=parity_sink consumer=application sync=false")


class PipelineError(Exception):
    pass


def clip_frames(tensor, array, clip):
    """The CHW frames of one downloaded tensor: a 4-D NCHW batch of 1 (one
    frame), or a 5-D clip of the chain's `clip` = (shape, layout), layout
    "ntchw" or "ncthw" (the chain's, which the 5-D shape must equal)."""
    shape = tuple(tensor.shape)
    if clip is None and len(shape) == 4 and shape[0] == 1 and tensor.layout == "NCHW":
        return [array[0]]
    if clip is not None and shape == tuple(clip[0]):
        return list(array[0] if clip[1] == "ntchw" else array[0].transpose(1, 0, 2, 3))
    raise PipelineError("the pipeline's tensor is %s %s; the report needs NCHW with batch size 1 "
                        "or the chain's clip %s" % (tensor.layout, shape,
                                                    None if clip is None else clip[0]))


def run_pipeline(frames, pipeline, workdir, clip=None):
    """The frames through the real elements; the tensors, downloaded, as
    CHW float64 arrays, one per frame (a clip's frames in order). `clip`:
    the chain's 5-D (shape, layout) where it makes clips. PipelineError
    when it fails."""
    cudaprep = _import_cudaprep()
    height, width = frames[0].shape[:2]
    raw = os.path.join(workdir, "frames.rgb")
    with open(raw, "wb") as f:
        for frame in frames:
            f.write(np.ascontiguousarray(frame).tobytes())
    description = launch_description(pipeline, raw, width, height)
    tensors = []
    try:
        with cudaprep.Pipeline(description) as running:
            for tensor in running.sink("parity_sink"):
                with tensor:
                    array = np.from_dlpack(tensor.download()).astype(np.float64)
                    tensors.extend(clip_frames(tensor, array, clip))
    except (RuntimeError, ValueError) as error:
        raise PipelineError("%s\n    %s" % (error, description))
    if len(tensors) != len(frames):
        raise PipelineError("the pipeline gave %d tensors for %d frames" % (len(tensors),
                                                                          len(frames)))
    return tensors


# --- the comparison ---------------------------------------------------------------


def steps(ours, ref, std):
    """|ours - ref| in 8-bit steps; a larger `ours` is compared by its
    centred window (the reference's crop)."""
    if ours.shape[0] != ref.shape[0]:
        raise ValueError("the pipeline's tensor has %d channels, the reference %d" %
                         (ours.shape[0], ref.shape[0]))
    if ours.shape != ref.shape:
        if ours.shape[-2] < ref.shape[-2] or ours.shape[-1] < ref.shape[-1]:
            raise ValueError("the pipeline's tensor %s is smaller than the reference's %s" %
                             (ours.shape, ref.shape))
        ours = centre_window(ours, ref.shape[-1], ref.shape[-2])
    std = np.asarray(std, dtype=np.float64).reshape(-1, 1, 1)
    return np.abs(ours - ref) * std * 255.0


def summary(difference):
    return difference.max(), difference.mean(), np.percentile(difference, 99)


def compare(reference, settings, frames, tensors):
    """Per frame and overall (max, mean, p99) in steps, and a note when the
    pipeline's uncropped size is not the reference's."""
    height, width = frames[0].shape[:2]
    note = None
    if reference.resize_size is not None:
        expected = reference.resize_size(width, height)
        got = (tensors[0].shape[-1], tensors[0].shape[-2])
        if got != expected:
            note = ("the pipeline resized to %dx%d, the reference to %dx%d before its crop: "
                    "sampling positions differ" % (got + expected))
    per_frame = []
    for frame, tensor in zip(frames, tensors):
        per_frame.append(steps(tensor, reference.compute(frame, settings), reference.std))
    return per_frame, summary(np.concatenate([d.ravel() for d in per_frame])), note


def over_target(dmax, dmean, max_target, mean_target):
    """Whether a max or mean exceeds its target (None: none); the max by
    more than TARGET_TOLERANCE."""
    return ((max_target is not None and dmax > max_target + TARGET_TOLERANCE) or
            (mean_target is not None and dmean > mean_target))


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
            verdict = ""
            if args.max_target is not None or args.mean_target is not None:
                over = over_target(dmax, dmean, args.max_target, args.mean_target)
                failed |= over
                verdict = "  OVER TARGET" if over else "  within target"
            print(f"  all: max {dmax:.4f}  mean {dmean:.4f}  p99 {dp99:.4f} steps{verdict}")
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
