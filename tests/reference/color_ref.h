// CPU reference of colour handling, written from the definitions (Rec. 601 /
// Rec. 709 / Rec. 2020 luma coefficients, limited/full code ranges, OpenCV's RGB2GRAY
// weights) for the GPU tests to compare against.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cudaprep/color.h"
#include "cudaprep/image.h"

namespace cudaprep::ref {

// R, G, B, A on the 8-bit scale, unrounded.
struct RgbaPixel {
  double r = 0.0, g = 0.0, b = 0.0, a = 255.0;
};

// A frame in host memory laid out like a device view: planes of
// plane_height() rows, `pitch_bytes` apart (row bytes + extra_pitch_bytes).
struct HostFrame {
  HostFrame() = default;
  HostFrame(PixelFormat format, int width, int height, size_t extra_pitch_bytes = 0);

  uint8_t *row(int plane, int y) { return planes[plane].data() + y * pitch_bytes[plane]; }
  const uint8_t *row(int plane, int y) const {
    return planes[plane].data() + y * pitch_bytes[plane];
  }

  PixelFormat format = PixelFormat::kRGBA;
  int width = 0;
  int height = 0;
  std::vector<uint8_t> planes[kMaxPlanes];
  size_t pitch_bytes[kMaxPlanes] = {};
};

// One Y'CbCr sample (8-bit code values, any real value) to RGB on the 8-bit
// scale, from E'R = E'Y + 2(1-Kr) E'Pr, E'B = E'Y + 2(1-Kb) E'Pb,
// E'G = (E'Y - Kr E'R - Kb E'B) / Kg; clamped to [0, 255], not rounded.
RgbaPixel yuv_to_rgb(double y, double u, double v, const Colorimetry &colorimetry);

// The same for `bits`-bit code values (10-bit limited: Y in [64, 940]).
RgbaPixel yuv_to_rgb_bits(double y, double u, double v, int bits, const Colorimetry &colorimetry);

// The inverse, RGB in [0, 255] to unrounded Y'CbCr code values (tests only).
void rgb_to_yuv(double r, double g, double b, const Colorimetry &colorimetry, double *y, double *u,
                double *v);

// cv::cvtColor(COLOR_RGB2GRAY): 0.299 R + 0.587 G + 0.114 B.
double rgb_to_gray(const RgbaPixel &pixel);

// Every pixel of `frame` as RGBA, row-major; YUV chroma is shared by the
// pixels of its 2x2 (4:2:0) or 2x1 (4:2:2) block.
std::vector<RgbaPixel> decode_to_rgba(const HostFrame &frame, const Colorimetry &colorimetry);

// Writes `pixel` at (x, y) of an RGB/BGR/RGBA/BGRA/RGBx/BGRx/GRAY8 frame:
// rounded half to even (with `ties_up`: half up), saturated; x bytes get
// 255, GRAY8 gets rgb_to_gray().
void encode_rgba_pixel(HostFrame *frame, int x, int y, const RgbaPixel &pixel,
                       bool ties_up = false);

}  // namespace cudaprep::ref
