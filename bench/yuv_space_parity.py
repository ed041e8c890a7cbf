#!/usr/bin/env python3
"""Would interpolating in YUV (each output pixel converted once) stay within
issue 34's parity bound (max 1 step, mean 0.01 step of 8 bits) of the
definition the kernels keep: each tap converted to RGB and clamped to
[0, 255] (what a uint8 RGB image holds), then interpolated?

CPU only (NumPy and scikit-image's photos), no GPU and no project code:
    python3 -m venv v && v/bin/pip install numpy scikit-image
    v/bin/python bench/yuv_space_parity.py

Each photo goes to 8-bit BT.601 limited-range NV12 (chroma averaged over
2x2, as encoders subsample), and is then resized bilinear (half-pixel
centres, border replicate) three ways, rounded to 8 bits:
  - the definition: convert and clamp each pixel, then interpolate;
  - YUV space: interpolate Y, U, V (chroma at luma positions, as the
    readers take pair x / 2), then convert and clamp once;
  - guarded: YUV space where every tap is in gamut (its conversion needs no
    clamp), the definition elsewhere, with the share of output pixels that
    fall back;
and the guarded rule is applied to antialiased footprints (every source
pixel within `support` of the output pixel's centre), which tells how many
output pixels of a large shrink would keep the definition's path.
Results: bench/NOTES-kernels.md, "Interpolating in YUV".
"""
import numpy as np
import skimage.data

KR, KB = 0.299, 0.114
KG = 1.0 - KR - KB
F = np.float32


def to_nv12(rgb):
    r, g, b = (rgb[..., i].astype(np.float64) for i in range(3))
    y = KR * r + KG * g + KB * b
    u = (b - y) / (2 * (1 - KB))
    v = (r - y) / (2 * (1 - KR))
    height, width = (rgb.shape[0] // 2) * 2, (rgb.shape[1] // 2) * 2
    code = lambda value, offset, gain: np.clip(np.round(offset + value * gain), 0, 255)
    luma = code(y, 16, 219 / 255)[:height, :width]
    subsample = lambda c: c[:height, :width].reshape(height // 2, 2, width // 2, 2).mean(axis=(1, 3)).round()
    chroma_u = subsample(code(u, 128, 224 / 255))
    chroma_v = subsample(code(v, 128, 224 / 255))
    at_luma = lambda c: np.repeat(np.repeat(c, 2, 0), 2, 1)  # pair x / 2, row y / 2
    return luma.astype(F), at_luma(chroma_u).astype(F), at_luma(chroma_v).astype(F)


def convert(y, u, v, clamp=True):
    """color_ops.cuh's scaled_yuv_to_rgb() in float32."""
    luma = (y - F(16)) * F(255 / 219)
    cb, cr = (u - F(128)) * F(255 / 224), (v - F(128)) * F(255 / 224)
    rgb = np.stack([luma + F(2 * (1 - KR)) * cr,
                    luma + F(-2 * KB * (1 - KB) / KG) * cb + F(-2 * KR * (1 - KR) / KG) * cr,
                    luma + F(2 * (1 - KB)) * cb], -1)
    return np.clip(rgb, 0, 255) if clamp else rgb


def bilinear_taps(size, out_size):
    position = np.maximum((np.arange(out_size) + 0.5) * size / out_size - 0.5, 0)
    first = np.minimum(np.floor(position).astype(int), size - 1)
    return first, np.minimum(first + 1, size - 1), (position - np.floor(position)).astype(F)


def bilinear(image, out_height, out_width):
    image = image[..., None] if image.ndim == 2 else image
    y0, y1, ty = bilinear_taps(image.shape[0], out_height)
    x0, x1, tx = bilinear_taps(image.shape[1], out_width)
    ty, tx = ty[:, None, None], tx[None, :, None]
    top = image[y0][:, x0] * (1 - tx) + image[y0][:, x1] * tx
    bottom = image[y1][:, x0] * (1 - tx) + image[y1][:, x1] * tx
    return (top * (1 - ty) + bottom * ty).astype(F)


def taps_in_gamut(in_gamut, out_height, out_width):
    y0, y1, _ = bilinear_taps(in_gamut.shape[0], out_height)
    x0, x1, _ = bilinear_taps(in_gamut.shape[1], out_width)
    return in_gamut[y0][:, x0] & in_gamut[y0][:, x1] & in_gamut[y1][:, x0] & in_gamut[y1][:, x1]


def footprints_in_gamut(in_gamut, scale, support):
    """Output pixels of a `scale`x antialiased shrink whose footprint (source
    pixels within support * scale of the centre) is all in gamut."""
    out_of_gamut = (~in_gamut).astype(np.int64)
    summed = np.pad(out_of_gamut.cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    height, width = in_gamut.shape
    radius = support * scale
    ok = []
    for oy in range(int(height / scale)):
        cy = (oy + 0.5) * scale
        top, bottom = max(int(np.floor(cy - radius)), 0), min(int(np.ceil(cy + radius)), height)
        for ox in range(int(width / scale)):
            cx = (ox + 0.5) * scale
            left, right = max(int(np.floor(cx - radius)), 0), min(int(np.ceil(cx + radius)), width)
            bad = summed[bottom, right] - summed[top, right] - summed[bottom, left] + summed[top, left]
            ok.append(bad == 0)
    return np.mean(ok)


def rounded(values):
    return np.floor(values + F(0.5))


def main():
    print(f"{'photo':22s} {'resize':12s} {'out of gamut':>12s} | {'YUV space: max':>14s} {'mean':>7s} | "
          f"{'guarded: max':>12s} {'mean':>8s} {'fallback':>8s}")
    for name in ["astronaut", "coffee", "chelsea", "rocket", "immunohistochemistry"]:
        y, u, v = to_nv12(getattr(skimage.data, name)()[..., :3])
        exact = convert(y, u, v)
        in_gamut = np.all(convert(y, u, v, clamp=False) == exact, -1)
        height, width = y.shape
        for label, factor in [("shrink 0.44", 0.44), ("shrink 0.8", 0.8), ("upscale 2.2", 2.2)]:
            out_height, out_width = int(height * factor), int(width * factor)
            definition = rounded(bilinear(exact, out_height, out_width))
            yuv = [bilinear(c, out_height, out_width)[..., 0] for c in (y, u, v)]
            yuv_space = rounded(convert(*yuv))
            ok = taps_in_gamut(in_gamut, out_height, out_width)
            guarded = np.where(ok[..., None], yuv_space, definition)
            plain, safe = np.abs(definition - yuv_space), np.abs(definition - guarded)
            print(f"{name:22s} {label:12s} {100 * (1 - in_gamut.mean()):11.2f}% | {plain.max():14.0f} "
                  f"{plain.mean():7.4f} | {safe.max():12.0f} {safe.mean():8.5f} {100 * (1 - ok.mean()):7.2f}%")
        for method, support in [("bilinear", 1.0), ("bicubic", 2.0)]:
            kept = footprints_in_gamut(in_gamut, 8.44, support)
            print(f"{name:22s} 8.44x shrink, antialiased {method}: {100 * (1 - kept):.1f}% of output pixels "
                  "have an out-of-gamut pixel in their footprint")


if __name__ == "__main__":
    main()
