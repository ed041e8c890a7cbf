// CPU reference of cudaprep::resize(), written from the definitions of each
// interpolation (see cudaprep/resize.h) in double precision.
#pragma once

#include <vector>

#include "cudaprep/resize.h"
#include "reference/color_ref.h"

namespace cudaprep::ref {

// Row-major RGBA on the 8-bit scale, unrounded.
struct RgbaImage {
  int width = 0;
  int height = 0;
  std::vector<RgbaPixel> pixels;

  const RgbaPixel &at(int x, int y) const { return pixels[static_cast<size_t>(y) * width + x]; }
};

// `src` resampled to dst_width x dst_height:
//   kNearest   OpenCV INTER_NEAREST: index floor(d * (1 / (dst / src))) in
//              double, capped at src - 1.
//   kBilinear  tent filter at half-pixel centres, border replicate.
//   kBicubic   Keys kernel, A = -0.75, at half-pixel centres, replicate.
//   kArea      mean of the source weighted by the area of each source pixel
//              inside the output pixel's footprint.
// With `antialias` (bilinear, bicubic): PIL's and torchvision's antialiased
// definition, the filter widened by the downscale factor (see resize.h).
RgbaImage resample(const RgbaImage &src, int dst_width, int dst_height, Interpolation interpolation,
                   bool antialias = false);

// The whole of resize(): decode `src`, resample into params.dst_rect (the
// whole destination when 0x0), pad the rest, encode as `dst_format`.
HostFrame resize_reference(const HostFrame &src, PixelFormat dst_format, int dst_width,
                           int dst_height, const ResizeParams &params);

}  // namespace cudaprep::ref
