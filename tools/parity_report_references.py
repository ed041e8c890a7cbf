"""tools/parity_report.py's references: the geometry rules of the
preprocessing models were trained with, the antialiased resampling's
definition in NumPy, and each reference's output for a frame."""
import sys

import numpy as np

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)

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
