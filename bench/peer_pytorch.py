"""PyTorch peer for the kernel benchmark: the same four workloads written the
way a user would in PyTorch on the GPU (interpolate + pad + normalise +
layout), timed with CUDA events (median of many runs after warm-up), with
the input already on the device and uploaded from pinned host memory.

    python3 bench/peer_pytorch.py [iterations] [--only PREFIX]

Prints one line per workload (--only: those whose name starts with PREFIX,
e.g. W5); bench/RESULTS.md puts them next to ours. W5 adds interpolate
alone on the float NCHW frame (torch's own antialiased resampling, the
format conversion and normalisation left out).
"""
import argparse

import torch
import torch.nn.functional as F

from cuda_timing import median_cuda_event_ms

_parser = argparse.ArgumentParser(description="PyTorch peer of bench_kernels")
_parser.add_argument("iterations", type=int, nargs="?", default=200)
_parser.add_argument("--only", default="", help="run the workloads whose name starts with this")
ARGS = _parser.parse_args()
ITERATIONS = ARGS.iterations
WARMUP_ITERATIONS = 20
DEVICE = torch.device("cuda")
IMAGENET_MEAN = torch.tensor([0.485, 0.456, 0.406], device=DEVICE).view(1, 3, 1, 1)
IMAGENET_STD = torch.tensor([0.229, 0.224, 0.225], device=DEVICE).view(1, 3, 1, 1)


def nv12_to_rgb(y_plane, uv_plane):
    """BT.709 limited range NV12 -> float RGB [0, 255], chroma replicated 2x2."""
    y = (y_plane.float() - 16.0) * (255.0 / 219.0)
    uv = uv_plane.float().view(uv_plane.shape[0], uv_plane.shape[1] // 2, 2) - 128.0
    uv = uv.repeat_interleave(2, dim=0).repeat_interleave(2, dim=1) * (255.0 / 224.0)
    u, v = uv[..., 0], uv[..., 1]
    r = y + 1.5748 * v
    g = y - 0.1873 * u - 0.4681 * v
    b = y + 1.8556 * u
    return torch.stack([r, g, b]).clamp(0, 255).unsqueeze(0)  # 1x3xHxW


def to_rgb_nchw(frame, fmt):
    if fmt == "RGBA":
        return frame[..., :3].permute(2, 0, 1).unsqueeze(0).float()
    height = frame.shape[0] * 2 // 3
    return nv12_to_rgb(frame[:height], frame[height:])


def letterbox(x, size, pad):
    _, _, h, w = x.shape
    scale = min(size / w, size / h)
    new_w, new_h = round(w * scale), round(h * scale)
    x = F.interpolate(x, size=(new_h, new_w), mode="bilinear", align_corners=False)
    left, top = (size - new_w) // 2, (size - new_h) // 2
    return F.pad(x, (left, size - new_w - left, top, size - new_h - top), value=pad)


def w1(frame, fmt):
    x = to_rgb_nchw(frame, fmt)
    return (letterbox(x, 640, 114.0) / 255.0).contiguous()


def w2(frame, fmt):
    x = to_rgb_nchw(frame, fmt)
    x = F.interpolate(x, size=(518, 924), mode="bicubic", align_corners=False).clamp(0, 255)
    return ((x / 255.0 - IMAGENET_MEAN) / IMAGENET_STD).contiguous()


def w3(frame, fmt):
    x = to_rgb_nchw(frame[300:812, 700:1212], fmt)
    x = F.interpolate(x, size=(224, 224), mode="bilinear", align_corners=False)
    return ((x / 255.0 - IMAGENET_MEAN) / IMAGENET_STD).half().contiguous()


def w5(mode, antialias):
    """torchvision's classifier eval transform on the device: Resize(256)
    (interpolate, antialias as asked) + CenterCrop(224) + ImageNet."""
    def transform(frame, fmt):
        x = to_rgb_nchw(frame, fmt)
        _, _, h, w = x.shape
        size = (256, int(256 * w / h)) if h <= w else (int(256 * h / w), 256)
        x = F.interpolate(x, size=size, mode=mode, align_corners=False, antialias=antialias)
        top, left = round((size[0] - 224) / 2), round((size[1] - 224) / 2)
        x = x[:, :, top:top + 224, left:left + 224]
        return ((x / 255.0 - IMAGENET_MEAN) / IMAGENET_STD).contiguous()
    return transform


def w5_interpolate_only(mode):
    """F.interpolate(antialias=True) alone, on the frame already float NCHW."""
    prepared = {}

    def transform(frame, fmt):
        key = frame.data_ptr()
        if key not in prepared:
            prepared[key] = to_rgb_nchw(frame, fmt).contiguous()
        x = prepared[key]
        _, _, h, w = x.shape
        size = (256, int(256 * w / h)) if h <= w else (int(256 * h / w), 256)
        return F.interpolate(x, size=size, mode=mode, align_corners=False, antialias=True)
    return transform


def make_frame(fmt, width, height):
    shape = (height, width, 4) if fmt == "RGBA" else (height * 3 // 2, width)
    return torch.randint(0, 256, shape, dtype=torch.uint8)


def median_us(fn, iterations):
    return median_cuda_event_ms(fn, WARMUP_ITERATIONS, iterations) * 1000.0


def main():
    print(f"GPU {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"{ITERATIONS} iterations, medians per frame")
    cases = [
        ("W1 detector RGBA", "RGBA", 1920, 1080, w1),
        ("W2 depth RGBA", "RGBA", 1920, 1080, w2),
        ("W3 classifier crop RGBA", "RGBA", 1920, 1080, w3),
        ("W1 detector NV12", "NV12", 1920, 1080, w1),
        ("W2 depth NV12", "NV12", 1920, 1080, w2),
        ("W4 4K NV12", "NV12", 3840, 2160, w1),
    ]
    for fmt, width, height in (("RGBA", 1920, 1080), ("NV12", 3840, 2160)):
        for mode in ("bilinear", "bicubic"):
            for antialias in (False, True):
                label = f"W5 {fmt} {height}p {mode}{' aa' if antialias else ''}"
                cases.append((label, fmt, width, height, w5(mode, antialias)))
            cases.append((f"W5 {fmt} {height}p {mode} aa interpolate only", fmt, width, height,
                          w5_interpolate_only(mode)))
    for name, fmt, width, height, workload in cases:
        if not name.startswith(ARGS.only):
            continue
        host = make_frame(fmt, width, height).pin_memory()
        device = host.to(DEVICE)
        on_device = median_us(lambda: workload(device, fmt), ITERATIONS)
        if name.endswith("interpolate only"):
            print(f"{name:40s} on device {on_device:8.1f} us")
            continue
        uploaded = median_us(lambda: workload(host.to(DEVICE, non_blocking=True), fmt), ITERATIONS)
        print(f"{name:40s} on device {on_device:8.1f} us   uploaded from pinned host "
              f"{uploaded:8.1f} us")


if __name__ == "__main__":
    main()
