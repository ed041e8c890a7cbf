"""bench/model_config_time.py's owning libraries: which library a model
config's preprocessing belongs to, and one frame of that library's own
preprocessing, on the device where it has a device path."""
import json
import os
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import parity_report_references  # noqa: E402  (the letterbox's geometry)

MODELS = os.path.join(ROOT, "tests", "data", "models")

# --- which library owns a config, and its own preprocessing -------------------------


def model_configs(folder=MODELS):
    """The model config files of `folder` (.json and .modelinfo), sorted."""
    return sorted(os.path.join(folder, name) for name in os.listdir(folder)
                  if name.endswith((".json", ".modelinfo")))


def load_config(path):
    """The config as a dict; None for a .modelinfo (not JSON)."""
    if path.endswith(".modelinfo"):
        return None
    with open(path) as f:
        return json.load(f)


def owner_of(config):
    """The library whose preprocessing the config describes, recognised as
    cudapreprocess does (docs/model-configs.md, "Formats"): transformers,
    timm, torchvision or ultralytics; None for a .modelinfo (no library)."""
    if config is None:
        return None
    if config.get("image_processor_type") or config.get("feature_extractor_type"):
        return "transformers"
    if config.get("format") == "torchvision":
        return "torchvision"
    if config.get("format") == "ultralytics-letterbox":
        return "ultralytics"
    if "pretrained_cfg" in config or "input_size" in config:
        return "timm"
    raise ValueError("no owning library recognised (not a Hugging Face image processor, "
                     "timm cfg, torchvision or ultralytics-letterbox form)")


class Unavailable(Exception):
    """The owning library cannot be run here; the message says why."""


class LibrarySide:
    """One frame of the owning library's preprocessing: run() does it and
    returns the output; device is where it runs (cuda or cpu)."""

    def __init__(self, name, device, starts, ends, run):
        self.name = name
        self.device = device
        self.starts = starts
        self.ends = ends
        self.run = run


def _tensor_frame(frame, device):
    """The HWC uint8 frame as a contiguous uint8 CHW tensor on `device`, as
    a decoder on the device gives it."""
    import torch
    return torch.from_numpy(np.ascontiguousarray(frame)).permute(2, 0, 1).contiguous().to(device)


def _transformers_side(path, frame, device):
    import transformers
    from transformers import AutoImageProcessor
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(path, os.path.join(folder, "preprocessor_config.json"))
        if int(transformers.__version__.split(".")[0]) >= 5:
            processor = AutoImageProcessor.from_pretrained(folder, backend="torchvision")
        else:
            processor = AutoImageProcessor.from_pretrained(folder, use_fast=True)
    name = f"transformers {transformers.__version__} {type(processor).__name__}"
    bases = {cls.__name__ for cls in type(processor).__mro__}
    if not bases & {"TorchvisionBackend", "BaseImageProcessorFast"}:
        return LibrarySide(
            name + " (no torchvision backend: NumPy/PIL)", "cpu", "uint8 HWC array, host",
            "pixel_values, float32 NCHW array, host",
            lambda: processor(images=frame, return_tensors="np")["pixel_values"])
    image = _tensor_frame(frame, device)
    return LibrarySide(
        name, device, f"uint8 CHW tensor, {device}", f"pixel_values, float32 NCHW, {device}",
        lambda: processor(images=image, return_tensors="pt", device=device)["pixel_values"])


def _timm_side(config, frame, device):
    import timm
    import timm.data
    cfg = config.get("pretrained_cfg", config)
    transform = timm.data.create_transform(**timm.data.resolve_data_config(pretrained_cfg=cfg))
    name = f"timm {timm.__version__} create_transform"
    image = _tensor_frame(frame, device)
    try:
        transform(image)
        return LibrarySide(name, device, f"uint8 CHW tensor, {device}",
                           f"float32 CHW, {device}", lambda: transform(image))
    except TypeError:
        pass
    try:
        transform(image.float().div(255))
        return LibrarySide(name, device,
                           f"uint8 CHW tensor, {device} (made float in [0, 1] in the call: "
                           "timm's Normalize takes float tensors only)",
                           f"float32 CHW, {device}", lambda: transform(image.float().div(255)))
    except TypeError as error:
        from PIL import Image
        return LibrarySide(f"{name} (PIL: takes no tensor: {error})", "cpu",
                           "uint8 HWC array, host (made a PIL image in the call)",
                           "float32 CHW, host", lambda: transform(Image.fromarray(frame)))


def _torchvision_side(config, frame, device):
    import torchvision
    enum_name, member = config["weights"].split(".")
    transforms = getattr(getattr(torchvision.models, enum_name), member).transforms()
    name = f"torchvision {torchvision.__version__} {config['weights']}.transforms()"
    if config.get("input", "uint8") == "pil":
        from PIL import Image
        image = Image.fromarray(np.ascontiguousarray(frame))
        return LibrarySide(name + " on a PIL image", "cpu", "PIL image, host",
                           "float32 CHW, host", lambda: transforms(image))
    image = _tensor_frame(frame, device)
    if config.get("input") == "float":
        image = image.float() / 255.0
        return LibrarySide(name + " on a float tensor", device,
                           f"float32 CHW tensor in [0, 1], {device}", f"float32 CHW, {device}",
                           lambda: transforms(image))
    return LibrarySide(name, device, f"uint8 CHW tensor, {device}", f"float32 CHW, {device}",
                       lambda: transforms(image))


def _letterbox_side(config, frame):
    import cv2
    imgsz = config.get("imgsz", 640)
    if isinstance(imgsz, list):
        if imgsz[0] != imgsz[1]:
            raise Unavailable("a non-square imgsz is not written here (LetterBox of a square)")
        imgsz = imgsz[0]
    pad = config.get("pad_value", 114)
    height, width = frame.shape[:2]
    new_width, new_height, top, bottom, left, right = \
        parity_report_references.ultralytics_letterbox_geometry(width, height, imgsz)

    def run():
        resized = frame
        if (new_width, new_height) != (width, height):
            resized = cv2.resize(frame, (new_width, new_height), interpolation=cv2.INTER_LINEAR)
        boxed = cv2.copyMakeBorder(resized, top, bottom, left, right, cv2.BORDER_CONSTANT,
                                   value=(pad, pad, pad))
        return boxed.transpose(2, 0, 1).astype(np.float32) / np.float32(255)
    return LibrarySide(f"Ultralytics LetterBox({imgsz}) in cv2 {cv2.__version__}", "cpu",
                       "uint8 HWC array, host (no device path)",
                       "float32 CHW array x / 255, host", run)


def library_side(path, frame, device):
    """The owning library's preprocessing of `frame` (HxWx3 uint8 RGB) for
    the config at `path`, on `device` where it has a device path.
    Unavailable when there is no library or it is not installed."""
    config = load_config(path)
    owner = owner_of(config)
    if owner is None:
        raise Unavailable("a .modelinfo has no owning library")
    try:
        if owner == "transformers":
            return _transformers_side(path, frame, device)
        if owner == "timm":
            return _timm_side(config, frame, device)
        if owner == "torchvision":
            return _torchvision_side(config, frame, device)
        return _letterbox_side(config, frame)
    except ImportError as error:
        raise Unavailable(f"{owner} cannot run here: {error}")


def squeezed_shape(shape):
    """The shape without leading 1s (a batch of one)."""
    shape = tuple(int(d) for d in shape)
    while len(shape) > 1 and shape[0] == 1:
        shape = shape[1:]
    return shape
