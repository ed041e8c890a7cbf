// Per-pixel resize of a source into a padded destination (namespace
// cudaprep::device), kept apart from launch code so that kernels compose
// it: a source (source_ops.cuh, orientation_ops.cuh) loads one pixel at
// integer coordinates as Rgba in [0, 255], a sampler (sampler_ops.cuh,
// antialias_ops.cuh) maps an output pixel to a weighted sum of source
// loads, resample() picks the sampler and resized_value() places the
// resampled rectangle in the padded destination; store_ops.cuh writes the
// result in a destination format. Nothing here knows about grids.
// Flat *_ops.cuh files, as element_ops.cuh and tensor_ops.cuh: the suffix marks device maths.
#pragma once

#include "antialias_ops.cuh"
#include "color_ops.cuh"
#include "cudaprep/resize.h"
#include "sampler_ops.cuh"

namespace cudaprep::device {

// How output pixels of a rect_width x rect_height rectangle map onto a
// src_width x src_height source; built once per frame on the host.
struct ResampleAxes {
  int src_width, src_height;
  int rect_width, rect_height;
  float src_per_dst_x, src_per_dst_y;  // src / rect
  // OpenCV's scale 1 / (rect / src): its nearest index and its float positions.
  double nearest_src_per_dst_x, nearest_src_per_dst_y;
  bool antialias;  // bilinear and bicubic: the antialiased samplers
  // Antialiased: the horizontal pass rounded to 8 bits (AntialiasIntermediate::kUint8).
  bool uint8_intermediate;
  // Bilinear and bicubic place samples at opencv_source_coordinate() (the
  // float intermediate) instead of centre_source_coordinate().
  bool opencv_positions;
  // Bilinear, not antialiased, each source side an odd multiple of the
  // rectangle's (1080p into a 640 letterbox shrinks by 3): samples land on
  // whole pixels, where the other taps weigh 0 and add +0 to a pixel in
  // [0, 255], so a sample is one load, the same bits (W1 1.24x -> 0.95x the
  // roofline on an H100, bench/RESULTS.md).
  bool whole_pixels;
  AntialiasAxis antialias_x, antialias_y;
};

// Whether `src_size` is an odd multiple k of `rect_size`: positions (d + 0.5)
// * k - 0.5 are then whole numbers, exact in float and in double (sides
// under 2^24).
inline bool odd_multiple(int src_size, int rect_size) {
  return rect_size > 0 && src_size % rect_size == 0 && (src_size / rect_size) % 2 == 1;
}

inline ResampleAxes resample_axes(int src_width, int src_height, int rect_width, int rect_height,
                                  Interpolation method, bool antialias,
                                  AntialiasIntermediate intermediate) {
  ResampleAxes axes;
  axes.antialias = antialias;
  axes.uint8_intermediate = antialias && intermediate == AntialiasIntermediate::kUint8;
  axes.opencv_positions = false;
  axes.whole_pixels = method == Interpolation::kBilinear && !antialias &&
                      odd_multiple(src_width, rect_width) && odd_multiple(src_height, rect_height);
  axes.antialias_x = antialias_axis(method, src_width, rect_width);
  axes.antialias_y = antialias_axis(method, src_height, rect_height);
  axes.src_width = src_width;
  axes.src_height = src_height;
  axes.rect_width = rect_width;
  axes.rect_height = rect_height;
  axes.src_per_dst_x = static_cast<float>(static_cast<double>(src_width) / rect_width);
  axes.src_per_dst_y = static_cast<float>(static_cast<double>(src_height) / rect_height);
  axes.nearest_src_per_dst_x = 1.0 / (static_cast<double>(rect_width) / src_width);
  axes.nearest_src_per_dst_y = 1.0 / (static_cast<double>(rect_height) / src_height);
  return axes;
}

// The source positions bilinear and bicubic sample for rectangle column x
// and row y: the one place that maps an output pixel to a source position.
// kOpenCvPositions: axes.opencv_positions, known to the caller.
template <bool kOpenCvPositions>
__device__ __forceinline__ float sample_position_x(int x, const ResampleAxes &axes) {
  return kOpenCvPositions ? opencv_source_coordinate(x, axes.nearest_src_per_dst_x)
                          : centre_source_coordinate(x, axes.src_per_dst_x);
}
template <bool kOpenCvPositions>
__device__ __forceinline__ float sample_position_y(int y, const ResampleAxes &axes) {
  return kOpenCvPositions ? opencv_source_coordinate(y, axes.nearest_src_per_dst_y)
                          : centre_source_coordinate(y, axes.src_per_dst_y);
}
__device__ __forceinline__ float sample_position_x(int x, const ResampleAxes &axes) {
  return axes.opencv_positions ? sample_position_x<true>(x, axes)
                               : sample_position_x<false>(x, axes);
}
__device__ __forceinline__ float sample_position_y(int y, const ResampleAxes &axes) {
  return axes.opencv_positions ? sample_position_y<true>(y, axes)
                               : sample_position_y<false>(y, axes);
}

// sample_position_x() of N columns behind one branch: asked per column, the
// compiler predicates the double-precision path and every column issues it
// (the batch kernel's W3 RGBA runs 8 % slower on an H200).
template <int N>
__device__ __forceinline__ void sample_positions_x(const int (&x)[N], const ResampleAxes &axes,
                                                   float (&positions)[N]) {
  if (axes.opencv_positions) {
#pragma unroll
    for (int k = 0; k < N; ++k) positions[k] = sample_position_x<true>(x[k], axes);
  } else {
#pragma unroll
    for (int k = 0; k < N; ++k) positions[k] = sample_position_x<false>(x[k], axes);
  }
}

// The resampled value of output pixel (x, y), counted from the rectangle's
// top-left corner.
template <Interpolation kMethod, class Source>
__device__ __forceinline__ Rgba resample(const Source &src, int x, int y,
                                         const ResampleAxes &axes) {
  if constexpr (kMethod == Interpolation::kNearest) {
    return sample_nearest(src, nearest_index(x, axes.nearest_src_per_dst_x, axes.src_width),
                          nearest_index(y, axes.nearest_src_per_dst_y, axes.src_height));
  } else if constexpr (kMethod == Interpolation::kBilinear) {
    if (axes.antialias) {
      return sample_antialiased<kMethod>(src, x, y, axes.antialias_x, axes.antialias_y,
                                         axes.uint8_intermediate);
    }
    if (axes.whole_pixels) {
      return src.load(clamp_index(static_cast<int>(sample_position_x(x, axes)), src.width),
                      clamp_index(static_cast<int>(sample_position_y(y, axes)), src.height));
    }
    return sample_bilinear(src, sample_position_x(x, axes), sample_position_y(y, axes));
  } else if constexpr (kMethod == Interpolation::kBicubic) {
    if (axes.antialias) {
      return sample_antialiased<kMethod>(src, x, y, axes.antialias_x, axes.antialias_y,
                                         axes.uint8_intermediate);
    }
    return sample_bicubic(src, sample_position_x(x, axes), sample_position_y(y, axes));
  } else {
    return sample_area(src, area_span(x, axes.src_width, axes.rect_width),
                       area_span(y, axes.src_height, axes.rect_height));
  }
}

// Where the resampled source lies in the destination and what fills the
// rest; built once per frame on the host.
struct ResizeMapping {
  PixelRect rect;     // the resampled source, in destination pixels
  ResampleAxes axes;  // source -> rect
  Rgba pad;           // every destination pixel outside rect
  // preprocess(): normalise the unrounded value (ResizeParams::float_intermediate).
  bool float_intermediate;
  // The 8-bit store rounds ties up (ResizeParams::round_half_up).
  bool round_half_up;
};

// The unrounded value of destination pixel (x, y): what resize() rounds
// into its destination format.
template <Interpolation kMethod, class Source>
__device__ __forceinline__ Rgba resized_value(const Source &src, int x, int y,
                                              const ResizeMapping &mapping) {
  const int rect_x = x - mapping.rect.x;
  const int rect_y = y - mapping.rect.y;
  const bool inside =
      rect_x >= 0 && rect_y >= 0 && rect_x < mapping.rect.width && rect_y < mapping.rect.height;
  return inside ? resample<kMethod>(src, rect_x, rect_y, mapping.axes) : mapping.pad;
}

// Pixels (x + k, y), k < N, of a `width`-wide destination along row y,
// inside the rectangle's rows: `sample_at(sx)` samples continuous source
// column sx of the row. A pixel at or past `width` takes pixel width - 1's
// value. Straight-line code (a pixel outside the rectangle is sampled at
// its nearest column and replaced by the pad) so that the compiler shares
// the row's work between the pixels.
template <int N, class SampleAt>
__device__ __forceinline__ void row_run_values(int x, int width, const ResizeMapping &mapping,
                                               const SampleAt &sample_at, Rgba (&values)[N]) {
  int rect_x[N];
  int sampled_x[N];
#pragma unroll
  for (int k = 0; k < N; ++k) {
    rect_x[k] = min(x + k, width - 1) - mapping.rect.x;
    sampled_x[k] = min(max(rect_x[k], 0), mapping.rect.width - 1);
  }
  float positions[N];
  sample_positions_x(sampled_x, mapping.axes, positions);
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const Rgba value = sample_at(positions[k]);
    values[k] = rect_x[k] >= 0 && rect_x[k] < mapping.rect.width ? value : mapping.pad;
  }
}

// resized_value<kMethod>() of destination pixels (x + k, y), k < N, of a
// `width`-wide destination, bilinear or bicubic and not antialiased: the
// rows, their weights and their addresses are worked out once for the run,
// then each pixel's columns (row_run_values()), each pixel summed as
// resample() sums it, so the same bits. The axes' opencv_positions is a
// branch per run (sample_positions_x()), not a template: a second copy of
// the run's straight-line code made ptxas take twice as long on a bicubic
// NV12 batch kernel (sm_90: 2.3 s against 1.2).
template <Interpolation kMethod, int N, class Source>
__device__ __forceinline__ void run_values(const Source &src, int x, int y, int width,
                                           const ResizeMapping &mapping, Rgba (&values)[N]) {
  static_assert(kMethod == Interpolation::kBilinear || kMethod == Interpolation::kBicubic,
                "runs sample bilinear or bicubic");
  const int rect_y = y - mapping.rect.y;
  if (rect_y < 0 || rect_y >= mapping.rect.height) {
#pragma unroll
    for (int k = 0; k < N; ++k) values[k] = mapping.pad;
    return;
  }
  const float sy = sample_position_y(rect_y, mapping.axes);
  if constexpr (kMethod == Interpolation::kBilinear) {
    if (mapping.axes.whole_pixels) {
      const int row = clamp_index(static_cast<int>(sy), src.height);
      row_run_values(
          x, width, mapping,
          [&](float sx) { return src.load(clamp_index(static_cast<int>(sx), src.width), row); },
          values);
      return;
    }
    const BilinearRows rows = bilinear_rows(sy, src.height);
    row_run_values(
        x, width, mapping, [&](float sx) { return sample_bilinear_rows(src, sx, rows); }, values);
  } else {
    const BicubicRows rows = bicubic_rows(sy, src.height);
    row_run_values(
        x, width, mapping, [&](float sx) { return sample_bicubic_rows(src, sx, rows); }, values);
  }
}

}  // namespace cudaprep::device
