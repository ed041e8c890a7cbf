"""CV-CUDA peer for the batch and region benchmarks of issue 13: the
workloads of bench/RESULTS.md composed from CV-CUDA 0.19's operators the way
a CV-CUDA user would, timed like bench/peer_pytorch.py (CUDA events on one
stream, medians after warm-up, input already on the device).

    bench/cvcuda-wheels.sh install /tmp/cvcuda    (once; the wheels travel in .cvpartN/)
    PYTHONPATH=/tmp/cvcuda python3 bench/peer_cvcuda.py [iterations] [--only PREFIX]
        [--batches 1,8,32]

(a) Batches of 1, 8 and 32 distinct frames (one per camera), per item =
median batch time / batch size. All on CV-CUDA's batched tensor path with
preallocated buffers and the `*_into` operators; the last step,
crop_flip_normalize_reformat (CFNR), takes its input as an
ImageBatchVarShape: the items of the RGB intermediate, wrapped once.
  W1 letterbox 640x640 (bilinear, pad 114, centred), RGB, x/255, float32 NCHW:
    RGBA: resize LINEAR to 640x360 (RGBA) -> cvtcolor RGBA2RGB ->
          CFNR with crop rectangle (0, -140, 640, 640) and border CONSTANT
          114 (the letterbox pad), base 0, scale 1/255 -> float32 NCHW.
    NV12: cvtcolor NV12 -> RGB (whole frame) -> resize LINEAR -> CFNR as above.
    Fallback if CFNR refuses a rectangle outside the image: copymakeborder
    (uint8, 114) -> CFNR.
  W2 924x518 bicubic, ImageNet mean/std, float32 NCHW: as W1 with resize
    CUBIC and CFNR base 255*mean, scale 1/(255*std).
  W3 crop 512x512 at (700, 300) -> 224x224 bilinear, ImageNet, float16 NCHW:
    RGBA: resize LINEAR of the crop (a strided view of the frames, no copy)
          -> cvtcolor RGBA2RGB -> CFNR to float16 NCHW.
    NV12: cvtcolor NV12 -> RGB (whole frame) -> resize of the crop view -> CFNR.
    Fallbacks: customcrop (a copy) instead of the view; CFNR to float32 +
    convertto float16.
  W4 3840x2160 -> W1's output, W1's composition.
(c) 64 regions (bench_kernels.cu's boxes, 48x64 to 300x400, mt19937(11)) of
one 1080p frame -> 224x224 ImageNet float32 NCHW, CV-CUDA's per-sample
path: the boxes are views of the frame in an ImageBatchVarShape.
    RGBA: resize LINEAR (varshape, RGBA 224x224) -> cvtcolor RGBA2RGB
          (varshape) -> CFNR.
    NV12: cvtcolor NV12 -> RGB (whole frame) -> resize (varshape of the box
          views) -> CFNR.
    The varshape batches are built once (as bench_kernels builds its items
    once); a pipeline with new boxes per frame would rebuild them per call.

NV12 is a (N, H*3/2, W, 1) uint8 tensor, CV-CUDA's convention. cvtcolor's
YUV2RGB_NV12 is BT.601 limited range (OpenCV's convention): CV-CUDA has no
BT.709 limited-range NV12 conversion (ours). advcvtcolor takes BT.709 but
with full-range arithmetic; the "advcvtcolor BT.709" lines show its cost.

Per line: median of host-timed batches (CUDA events around one composition,
launch gaps included) and, as "GPU only", ten batches captured in one CUDA
graph per replay (n/a with the reason where capture fails or the replay does
not reproduce the output). "diff": max |CV-CUDA - torch| on the same frames,
in 8-bit levels, torch computing the workload from its definition
(F.interpolate without antialias and F.pad as peer_pytorch.py, the NV12
matrix of the CV-CUDA operator used); CV-CUDA rounds to 8 bits after each
uint8 step, so a level or two is expected. A composition off by more than
24 levels is not the workload: it is rejected and the next one tried.
"""
import argparse
import statistics
import sys
import types

import torch
import torch.nn.functional as F

try:
    import cvcuda
except ImportError as import_error:
    sys.exit(f"peer_cvcuda: cannot import cvcuda ({import_error}); run "
             "`bench/cvcuda-wheels.sh install DEST` and set PYTHONPATH=DEST")

_parser = argparse.ArgumentParser(description="CV-CUDA peer of the batch and region benchmarks")
_parser.add_argument("iterations", type=int, nargs="?", default=100)
_parser.add_argument("--only", default="", help="run the workloads whose name starts with this")
_parser.add_argument("--batches", default="1,8,32", help="batch sizes of (a), comma separated")
ARGS = _parser.parse_args()
ITERATIONS = ARGS.iterations
BATCHES = [int(size) for size in ARGS.batches.split(",")]
DEVICE = torch.device("cuda")
TORCH_STREAM = torch.cuda.Stream()
STREAM = cvcuda.as_stream(TORCH_STREAM)
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
GRAPH_COPIES = 10
REJECT_LEVELS = 24.0
LETTERBOX_SIDE, LETTERBOX_PAD = 640, 114
W3_CROP = (700, 300, 512, 512)  # x, y, width, height
# NV12 -> RGB operators: (Kr, Kb, limited range) of the arithmetic each uses.
NV12_MATRICES = {"cvtcolor": (0.299, 0.114, True), "advcvtcolor": (0.2126, 0.0722, False)}


def _owner(tensor):
    """The tensor's memory for CV-CUDA. Its CUDA array interface says
    version 3, stream -1: the buffers are written and synchronised before
    timing, so CV-CUDA need not wait for anything (torch's own interface names
    the legacy stream, which CV-CUDA answers with a device-wide
    synchronisation)."""
    interface = dict(tensor.__cuda_array_interface__)
    interface.update(version=3, stream=-1)
    return types.SimpleNamespace(_tensor=tensor, __cuda_array_interface__=interface)


def empty(shape, dtype=torch.uint8):
    return torch.empty(shape, dtype=dtype, device=DEVICE)


class Plan:
    """One composition: operators enqueued on STREAM in order, into output.
    It holds the torch tensors it gives CV-CUDA, so they live as long as it."""

    def __init__(self):
        self.steps, self._ops, self._buffers, self.output = [], [], [], None

    def cv(self, tensor, layout):
        self._buffers.append(tensor)
        return cvcuda.as_tensor(_owner(tensor), layout)

    def cv_images(self, tensors, image_format):
        self._buffers.extend(tensors)
        return cvcuda.as_images([_owner(t) for t in tensors], format=image_format)

    def add(self, step, op):
        self.steps.append(step)
        self._ops.append(op)

    def run(self):
        for op in self._ops:
            op()

    def describe(self):
        return " -> ".join(self.steps)


def nv12_to_rgb_into(plan, frames, conversion):
    """Whole frames NV12 -> RGB uint8 NHWC, with the operator named."""
    n, rows, width, _ = frames.shape
    rgb = empty((n, rows * 2 // 3, width, 3))
    src, dst = plan.cv(frames, "NHWC"), plan.cv(rgb, "NHWC")
    if conversion == "cvtcolor":
        plan.add("cvtcolor YUV2RGB_NV12 (BT.601 limited)", lambda: cvcuda.cvtcolor_into(
            dst, src, cvcuda.ColorConversion.YUV2RGB_NV12, stream=STREAM))
    else:
        plan.add("advcvtcolor YUV2RGB_NV12 BT709 (full-range arithmetic)",
                 lambda: cvcuda.advcvtcolor_into(dst, src, cvcuda.ColorConversion.YUV2RGB_NV12,
                                                 cvcuda.ColorSpec.BT709, stream=STREAM))
    return rgb


def crop_of(plan, images, crop, copy):
    """The crop (x, y, w, h) of an NHWC batch: a strided view, or customcrop's copy."""
    x, y, w, h = crop
    if not copy:
        return images[:, y:y + h, x:x + w, :]
    cropped = empty((images.shape[0], h, w, images.shape[3]))
    src, dst = plan.cv(images, "NHWC"), plan.cv(cropped, "NHWC")
    rect = cvcuda.RectI(x=x, y=y, width=w, height=h)
    plan.add("customcrop", lambda: cvcuda.customcrop_into(dst, src, rect, stream=STREAM))
    return cropped


def resize_into(plan, source, size, interp):
    """source (NHWC uint8, maybe a view) resized to size (w, h)."""
    resized = empty((source.shape[0], size[1], size[0], source.shape[3]))
    src, dst = plan.cv(source, "NHWC"), plan.cv(resized, "NHWC")
    plan.add(f"resize {interp.name}", lambda: cvcuda.resize_into(dst, src, interp, stream=STREAM))
    return resized


def rgba_to_rgb_into(plan, rgba):
    rgb = empty(rgba.shape[:3] + (3,))
    src, dst = plan.cv(rgba, "NHWC"), plan.cv(rgb, "NHWC")
    plan.add("cvtcolor RGBA2RGB", lambda: cvcuda.cvtcolor_into(
        dst, src, cvcuda.ColorConversion.RGBA2RGB, stream=STREAM))
    return rgb


def rgb_at(plan, frames, fmt, conversion, size, interp, crop=None, copy_crop=False):
    """RGB uint8 NHWC batch at size (w, h) from the frames or their crop,
    converting at the smaller of the two resolutions where the format allows."""
    if fmt == "RGBA":
        source = frames if crop is None else crop_of(plan, frames, crop, copy_crop)
        return rgba_to_rgb_into(plan, resize_into(plan, source, size, interp))
    rgb = nv12_to_rgb_into(plan, frames, conversion)
    source = rgb if crop is None else crop_of(plan, rgb, crop, copy_crop)
    return resize_into(plan, source, size, interp)


def crop_flip_normalize_reformat_into(plan, rgb, out, rect, border_value, base, scale, what):
    """CFNR of every item of rgb (N x H x W x 3 uint8) into out (NCHW):
    (pixel - base) * scale over the crop rectangle rect (x, y, w, h), pixels
    outside the image reading border_value."""
    n = rgb.shape[0]
    images = plan.cv_images([rgb[i] for i in range(n)], cvcuda.Format.RGB8)
    rects = torch.tensor([rect] * n, dtype=torch.int32, device=DEVICE).view(n, 1, 1, 4)
    flips = torch.full((n, 1), 2, dtype=torch.int32, device=DEVICE)  # not 0, 1, -1: no flip
    bases = torch.tensor(base, dtype=torch.float32, device=DEVICE).view(1, 1, 1, 3)
    scales = torch.tensor(scale, dtype=torch.float32, device=DEVICE).view(1, 1, 1, 3)
    args = dict(dst=plan.cv(out, "NCHW"), src=images, rect=plan.cv(rects, "NHWC"),
                flip_code=plan.cv(flips, "NC"), base=plan.cv(bases, "NHWC"),
                scale=plan.cv(scales, "NHWC"), globalscale=1.0, globalshift=0.0, epsilon=0.0,
                flags=0, border=cvcuda.Border.CONSTANT, bvalue=float(border_value))
    plan.add(f"crop_flip_normalize_reformat ({what})",
             lambda: cvcuda.crop_flip_normalize_reformat_into(**args, stream=STREAM))


def imagenet_into(plan, rgb, out, fp16_by_convertto=False):
    base = [255.0 * m for m in IMAGENET_MEAN]
    scale = [1.0 / (255.0 * s) for s in IMAGENET_STD]
    if not fp16_by_convertto:
        crop_flip_normalize_reformat_into(plan, rgb, out, (0, 0, out.shape[3], out.shape[2]), 0,
                                          base, scale, f"ImageNet, NCHW {out.dtype}")
        return
    out32 = empty(out.shape, torch.float32)
    crop_flip_normalize_reformat_into(plan, rgb, out32, (0, 0, out.shape[3], out.shape[2]), 0,
                                      base, scale, "ImageNet, NCHW float32")
    src, dst = plan.cv(out32, "NCHW"), plan.cv(out, "NCHW")
    plan.add("convertto float16", lambda: cvcuda.convertto_into(dst, src, 1.0, 0.0, stream=STREAM))


def letterbox_geometry(width, height):
    scale = min(LETTERBOX_SIDE / width, LETTERBOX_SIDE / height)
    new_w, new_h = round(width * scale), round(height * scale)
    return new_w, new_h, (LETTERBOX_SIDE - new_w) // 2, (LETTERBOX_SIDE - new_h) // 2


def frame_size(frames, fmt):
    rows = frames.shape[1] if fmt == "RGBA" else frames.shape[1] * 2 // 3
    return frames.shape[2], rows


# --- (a) workloads: build(frames, fmt, conversion, **option) -> Plan -------------------------


def build_w1(frames, fmt, conversion, pad="cfnr border"):
    plan = Plan()
    new_w, new_h, left, top = letterbox_geometry(*frame_size(frames, fmt))
    rgb = rgb_at(plan, frames, fmt, conversion, (new_w, new_h), cvcuda.Interp.LINEAR)
    side = LETTERBOX_SIDE
    plan.output = empty((frames.shape[0], 3, side, side), torch.float32)
    unit = [1.0 / 255.0] * 3
    if pad == "cfnr border":
        crop_flip_normalize_reformat_into(plan, rgb, plan.output, (-left, -top, side, side),
                                          LETTERBOX_PAD, [0.0] * 3, unit,
                                          "letterbox pad as CONSTANT border, x/255, NCHW float32")
        return plan
    padded = empty((frames.shape[0], side, side, 3))
    src, dst = plan.cv(rgb, "NHWC"), plan.cv(padded, "NHWC")
    plan.add("copymakeborder CONSTANT 114", lambda: cvcuda.copymakeborder_into(
        dst, src, cvcuda.Border.CONSTANT, [float(LETTERBOX_PAD)] * 3, top=top, left=left,
        stream=STREAM))
    crop_flip_normalize_reformat_into(plan, padded, plan.output, (0, 0, side, side), 0,
                                      [0.0] * 3, unit, "x/255, NCHW float32")
    return plan


def build_w2(frames, fmt, conversion):
    plan = Plan()
    rgb = rgb_at(plan, frames, fmt, conversion, (924, 518), cvcuda.Interp.CUBIC)
    plan.output = empty((frames.shape[0], 3, 518, 924), torch.float32)
    imagenet_into(plan, rgb, plan.output)
    return plan


def build_w3(frames, fmt, conversion, copy_crop=False, fp16_by_convertto=False):
    plan = Plan()
    rgb = rgb_at(plan, frames, fmt, conversion, (224, 224), cvcuda.Interp.LINEAR, W3_CROP,
                 copy_crop)
    plan.output = empty((frames.shape[0], 3, 224, 224), torch.float16)
    imagenet_into(plan, rgb, plan.output, fp16_by_convertto)
    return plan


W1_OPTIONS = [dict(pad="cfnr border"), dict(pad="copymakeborder")]
W3_OPTIONS = [dict(copy_crop=c, fp16_by_convertto=f) for c in (False, True) for f in (False, True)]


# --- torch references, from the definitions ------------------------------------------------


def reference_rgb(frames, fmt, conversion):
    """Float N x 3 x H x W RGB in [0, 255] as CV-CUDA's conversion makes it."""
    if fmt == "RGBA":
        return frames[..., :3].permute(0, 3, 1, 2).float()
    kr, kb, limited = NV12_MATRICES[conversion]
    n, rows, width, _ = frames.shape
    height = rows * 2 // 3
    y = frames[:, :height, :, 0].float()
    uv = frames[:, height:, :, 0].float().view(n, height // 2, width // 2, 2) - 128.0
    uv = uv.repeat_interleave(2, dim=1).repeat_interleave(2, dim=2)
    u, v = uv[..., 0], uv[..., 1]
    if limited:
        y, u, v = (y - 16.0) * (255.0 / 219.0), u * (255.0 / 224.0), v * (255.0 / 224.0)
    kg = 1.0 - kr - kb
    r = y + 2.0 * (1.0 - kr) * v
    g = y - (2.0 * kb * (1.0 - kb) / kg) * u - (2.0 * kr * (1.0 - kr) / kg) * v
    b = y + 2.0 * (1.0 - kb) * u
    return torch.stack([r, g, b], dim=1).clamp(0, 255).round()


def imagenet(x):
    mean = torch.tensor(IMAGENET_MEAN, device=DEVICE).view(1, 3, 1, 1)
    std = torch.tensor(IMAGENET_STD, device=DEVICE).view(1, 3, 1, 1)
    return (x / 255.0 - mean) / std


def reference_w1(x):
    _, _, h, w = x.shape
    new_w, new_h, left, top = letterbox_geometry(w, h)
    x = F.interpolate(x, size=(new_h, new_w), mode="bilinear", align_corners=False)
    side = LETTERBOX_SIDE
    x = F.pad(x, (left, side - new_w - left, top, side - new_h - top), value=float(LETTERBOX_PAD))
    return x / 255.0


def reference_w2(x):
    x = F.interpolate(x, size=(518, 924), mode="bicubic", align_corners=False).clamp(0, 255)
    return imagenet(x)


def reference_w3(x):
    cx, cy, cw, ch = W3_CROP
    x = F.interpolate(x[:, :, cy:cy + ch, cx:cx + cw], size=(224, 224), mode="bilinear",
                      align_corners=False)
    return imagenet(x).half()


UNIT_LEVELS = (255.0,) * 3
IMAGENET_LEVELS = tuple(255.0 * s for s in IMAGENET_STD)


def levels_apart(out, ref, levels):
    """Max |out - ref| in 8-bit levels (levels: one output unit per channel)."""
    scale = torch.tensor(levels, device=DEVICE).view(1, 3, 1, 1)
    return ((out.float() - ref.float()).abs() * scale).max().item()


# --- timing -------------------------------------------------------------------------------


def median_us(fn, iterations, warmup=20):
    with torch.cuda.stream(TORCH_STREAM):
        for _ in range(warmup):
            fn()
        TORCH_STREAM.synchronize()
        samples = []
        for _ in range(iterations):
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            start.record(TORCH_STREAM)
            fn()
            stop.record(TORCH_STREAM)
            stop.synchronize()
            samples.append(start.elapsed_time(stop) * 1000.0)
    return statistics.median(samples)


def first_line(error):
    text = str(error).strip().splitlines()
    return (text[0] if text else type(error).__name__)[:160]


def graph_us(plan):
    """GPU time of one composition: GRAPH_COPIES of it in one CUDA graph per
    replay. (None, reason) where CV-CUDA's operators cannot be captured."""
    TORCH_STREAM.synchronize()
    expected = plan.output.clone()
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph, stream=TORCH_STREAM, capture_error_mode="thread_local"):
            for _ in range(GRAPH_COPIES):
                plan.run()
        with torch.cuda.stream(TORCH_STREAM):
            plan.output.fill_(float("nan"))
            graph.replay()
        TORCH_STREAM.synchronize()
    except Exception as error:  # CV-CUDA work that a graph cannot hold
        return None, f"capture failed: {first_line(error)}"
    if not torch.equal(plan.output, expected):
        return None, "the graph's replay does not reproduce the output"
    return median_us(graph.replay, max(ITERATIONS // 2, 10), warmup=3) / GRAPH_COPIES, ""


def choose(build, options, expected, levels):
    """The first composition build(**option) that CV-CUDA runs and that
    computes the workload (item i of its output within REJECT_LEVELS of
    expected(i)): (plan, diff in levels, reasons the others were rejected)."""
    reasons = []
    for option in options:
        try:
            plan = build(**option)
            torch.cuda.synchronize()  # frames and parameters written on torch's default stream
            with torch.cuda.stream(TORCH_STREAM):
                plan.run()
            TORCH_STREAM.synchronize()
        except Exception as error:  # a composition CV-CUDA 0.19 refuses: try the next
            reasons.append(f"{option or 'default'}: {first_line(error)}")
            continue
        diff = max(levels_apart(plan.output[i:i + 1], expected(i), levels)
                   for i in range(plan.output.shape[0]))
        if diff <= REJECT_LEVELS:
            return plan, diff, reasons
        reasons.append(f"{option or 'default'}: differs from torch by {diff:.1f} levels")
    return None, None, reasons


def report(name, plan, reasons):
    for reason in reasons:
        print(f"  {name}: rejected {reason}")
    if plan is None:
        print(f"{name:36s}: no composition ran")


def make_frames(fmt, width, height, count):
    shape = (count, height, width, 4) if fmt == "RGBA" else (count, height * 3 // 2, width, 1)
    return torch.randint(0, 256, shape, dtype=torch.uint8, device=DEVICE)


def run_batch(name, fmt, conversion, width, height, count, build, options, reference, levels):
    """One batch size of a workload: (the composition timed, or None)."""
    frames = make_frames(fmt, width, height, count)
    plan, diff, reasons = choose(
        lambda **option: build(frames, fmt, conversion, **option), options,
        lambda i: reference(reference_rgb(frames[i:i + 1], fmt, conversion)), levels)
    report(f"{name} batch {count}", plan, reasons)
    if plan is None:
        return None
    host = median_us(plan.run, ITERATIONS)
    gpu, why = graph_us(plan)
    gpu_text = f"{gpu / count:7.2f} us per item" if gpu is not None else f"n/a ({why})"
    print(f"{name:36s} batch {count:2d}: {host:8.1f} us per batch, {host / count:7.2f} us per "
          f"item host-timed; GPU only {gpu_text}; diff {diff:.1f} levels")
    return plan.describe()


def run_batched(name, *workload):
    described = None
    for count in BATCHES:
        composition = run_batch(name, *workload[:4], count, *workload[4:])
        torch.cuda.empty_cache()
        if composition is not None and composition != described:
            described = composition
            print(f"  {name} batch {count} on: {described}")


# --- (c) regions --------------------------------------------------------------------------


class Mt19937:
    """std::mt19937, for bench_kernels.cu's boxes."""

    def __init__(self, seed):
        self.state = [seed & 0xFFFFFFFF]
        for i in range(1, 624):
            previous = self.state[-1]
            self.state.append((1812433253 * (previous ^ (previous >> 30)) + i) & 0xFFFFFFFF)
        self.index = 624

    def __call__(self):
        if self.index == 624:
            for i in range(624):
                y = (self.state[i] & 0x80000000) | (self.state[(i + 1) % 624] & 0x7FFFFFFF)
                twist = (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
                self.state[i] = self.state[(i + 397) % 624] ^ twist
            self.index = 0
        y = self.state[self.index]
        self.index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        return y ^ (y >> 18)


def region_boxes(count=64, width=1920, height=1080):
    """bench_kernels.cu run_regions' boxes (x, y, w, h): 48x64 to 300x400, even origins."""
    generator = Mt19937(11)
    boxes = []
    for _ in range(count):
        w = 48 + generator() % 253 // 2 * 2
        h = 64 + generator() % 337 // 2 * 2
        x = generator() % (width - w) // 2 * 2
        y = generator() % (height - h) // 2 * 2
        boxes.append((x, y, w, h))
    return boxes


BOXES = region_boxes()


def resized_boxes(plan, whole, image_format):
    """The boxes of one H x W x C uint8 image (an ImageBatchVarShape of its
    views) resized to 224x224: the tensor and its items as images."""
    crops = plan.cv_images([whole[y:y + h, x:x + w, :] for x, y, w, h in BOXES], image_format)
    resized = empty((len(BOXES), 224, 224, whole.shape[2]))
    resized_images = plan.cv_images([item for item in resized], image_format)
    plan.add(f"resize LINEAR (varshape, {whole.shape[2]} channels)", lambda: cvcuda.resize_into(
        resized_images, crops, cvcuda.Interp.LINEAR, stream=STREAM))
    return resized, resized_images


def build_regions(frames, fmt, conversion, convert_first=False):
    plan = Plan()
    if fmt == "RGBA" and not convert_first:
        _, rgba_images = resized_boxes(plan, frames[0], cvcuda.Format.RGBA8)
        rgb = empty((len(BOXES), 224, 224, 3))
        rgb_images = plan.cv_images([item for item in rgb], cvcuda.Format.RGB8)
        plan.add("cvtcolor RGBA2RGB (varshape)", lambda: cvcuda.cvtcolor_into(
            rgb_images, rgba_images, cvcuda.ColorConversion.RGBA2RGB, stream=STREAM))
    else:
        whole = (rgba_to_rgb_into(plan, frames) if fmt == "RGBA" else
                 nv12_to_rgb_into(plan, frames, conversion))[0]
        rgb, _ = resized_boxes(plan, whole, cvcuda.Format.RGB8)
    plan.output = empty((len(BOXES), 3, 224, 224), torch.float32)
    imagenet_into(plan, rgb, plan.output)
    return plan


def run_regions(name, fmt, conversion):
    frames = make_frames(fmt, 1920, 1080, 1)
    whole = reference_rgb(frames, fmt, conversion)

    def expected(i):  # item i of the output is box i of the one frame
        x, y, w, h = BOXES[i]
        return imagenet(F.interpolate(whole[:, :, y:y + h, x:x + w], size=(224, 224),
                                      mode="bilinear", align_corners=False))

    options = [dict(convert_first=False), dict(convert_first=True)] if fmt == "RGBA" else [{}]
    plan, diff, reasons = choose(lambda **option: build_regions(frames, fmt, conversion, **option),
                                 options, expected, IMAGENET_LEVELS)
    report(name, plan, reasons)
    if plan is None:
        return
    print(f"  {name}: {plan.describe()}")
    count = len(BOXES)
    host = median_us(plan.run, ITERATIONS)
    gpu, why = graph_us(plan)
    gpu_text = (f"{gpu:8.1f} us per call, {gpu / count:6.3f} us per region" if gpu is not None
                else f"n/a ({why})")
    print(f"{name:36s}: {host:8.1f} us per call, {host / count:6.3f} us per region host-timed; "
          f"GPU only {gpu_text}; diff {diff:.1f} levels")


def main():
    print(f"GPU {torch.cuda.get_device_name()}, CV-CUDA {cvcuda.__version__}, torch "
          f"{torch.__version__}, {ITERATIONS} iterations, medians; batches {BATCHES}")
    cases = [
        ("W1 detector RGBA", "RGBA", "", 1920, 1080, build_w1, W1_OPTIONS, reference_w1,
         UNIT_LEVELS),
        ("W1 detector NV12", "NV12", "cvtcolor", 1920, 1080, build_w1, W1_OPTIONS, reference_w1,
         UNIT_LEVELS),
        ("W1 detector NV12 advcvtcolor BT.709", "NV12", "advcvtcolor", 1920, 1080, build_w1,
         W1_OPTIONS, reference_w1, UNIT_LEVELS),
        ("W2 depth RGBA", "RGBA", "", 1920, 1080, build_w2, [{}], reference_w2, IMAGENET_LEVELS),
        ("W2 depth NV12", "NV12", "cvtcolor", 1920, 1080, build_w2, [{}], reference_w2,
         IMAGENET_LEVELS),
        ("W3 classifier crop RGBA", "RGBA", "", 1920, 1080, build_w3, W3_OPTIONS, reference_w3,
         IMAGENET_LEVELS),
        ("W3 classifier crop NV12", "NV12", "cvtcolor", 1920, 1080, build_w3, W3_OPTIONS,
         reference_w3, IMAGENET_LEVELS),
        ("W4 4K RGBA", "RGBA", "", 3840, 2160, build_w1, W1_OPTIONS, reference_w1, UNIT_LEVELS),
        ("W4 4K NV12", "NV12", "cvtcolor", 3840, 2160, build_w1, W1_OPTIONS, reference_w1,
         UNIT_LEVELS),
    ]
    for name, fmt, conversion, width, height, build, options, reference, levels in cases:
        if name.startswith(ARGS.only):
            run_batched(name, fmt, conversion, width, height, build, options, reference, levels)
    for name, fmt, conversion in (("regions 64 RGBA", "RGBA", ""),
                                  ("regions 64 NV12", "NV12", "cvtcolor")):
        if name.startswith(ARGS.only):
            run_regions(name, fmt, conversion)


if __name__ == "__main__":
    main()
