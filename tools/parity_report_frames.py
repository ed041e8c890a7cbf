"""tools/parity_report.py's frames (HxWx3 uint8 RGB): synthetic ones, kept
as .npy where asked, or the user's images."""
import os
import sys

import numpy as np

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
