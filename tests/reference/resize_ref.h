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

// Where bilinear and bicubic place output pixel d's sample: kExact at
// (d + 0.5) * src / dst - 0.5 in double; kOpenCvFloat as cv::resize does
// for float images (and the float intermediate, sampler_ops.cuh), at
// (d + 0.5) * (1 / (dst / src)) - 0.5 computed in double and rounded to
// float. Weights are then computed in double either way.
enum class SamplePositions { kExact, kOpenCvFloat };

// The source pixel (*src_x, *src_y) that pixel (x, y) of a src_width x
// src_height image oriented by `orientation` holds, from resize.h's table.
void oriented_source_pixel(Orientation orientation, int src_width, int src_height, int x, int y,
                           int *src_x, int *src_y);

// `src` as `orientation` shows it: height x width for the rotations by 90
// and 270 and the diagonal flips.
RgbaImage orient(const RgbaImage &src, Orientation orientation);

// The same on a frame, plane by plane, each pixel unit moved whole: the
// packed formats, GRAY8, and 4:2:0 (NV12, I420, P01x) of even width and
// height, whose chroma planes are oriented as half-size images (a 2x2
// block stays one block). Fails the test for YUY2 or odd 4:2:0 sizes.
HostFrame orient(const HostFrame &src, Orientation orientation);

// `src` resampled to dst_width x dst_height:
//   kNearest   OpenCV INTER_NEAREST: index floor(d * (1 / (dst / src))) in
//              double, capped at src - 1.
//   kBilinear  tent filter at half-pixel centres, border replicate.
//   kBicubic   Keys kernel, A = -0.75, at half-pixel centres, replicate.
//   kArea      mean of the source weighted by the area of each source pixel
//              inside the output pixel's footprint.
// With `antialias` (bilinear, bicubic): PIL's and torchvision's antialiased
// definition, the filter widened by the downscale factor (see resize.h);
// with `intermediate` kUint8 the horizontal pass over every source row
// first, each value rounded half up and clamped to [0, 255], then the
// vertical pass over those, rounded and clamped the same way (PIL's order).
//
// A horizontal value within kTieWindow of a rounding boundary (x.5) rounds
// either way in a float implementation (its error is near 1e-4 steps): no
// order of float operations is more right than another there. With
// `tie_steps` (kUint8 only), per output pixel the most 8-bit steps any
// channel moves when those values round the other way (0 almost
// everywhere), so that a comparison allows them; resized to dst_width x
// dst_height and zero without ties or for kFloat.
constexpr double kTieWindow = 1e-3;
RgbaImage resample(const RgbaImage &src, int dst_width, int dst_height, Interpolation interpolation,
                   bool antialias = false, SamplePositions positions = SamplePositions::kExact,
                   AntialiasIntermediate intermediate = AntialiasIntermediate::kFloat,
                   std::vector<uint8_t> *tie_steps = nullptr);

// The whole of resize(): decode `src`, orient it by params.orientation, resample into
// params.dst_rect (the whole destination when 0x0; its part inside the destination when it
// reaches beyond), pad the rest, encode as `dst_format` (ties up with params.round_half_up).
// `tie_steps` (may be null): resample()'s, per pixel of the destination (0 in the padding).
HostFrame resize_reference(const HostFrame &src, PixelFormat dst_format, int dst_width,
                           int dst_height, const ResizeParams &params,
                           std::vector<uint8_t> *tie_steps = nullptr);

}  // namespace cudaprep::ref
