// Samplers of the resize (namespace cudaprep::device): nearest, bilinear,
// bicubic and area, each the weighted sum of a source's loads that gives
// one output pixel, and the coordinates they sample at: d is the output
// pixel of an axis resized from src_size to dst_size. Any type with width,
// height and load(x, y) (source_ops.cuh, orientation_ops.cuh) is a source;
// a row of taps is read through load_taps() (4:2:0 readers share chroma).
#pragma once

#include <cuda_runtime.h>

#include "color_ops.cuh"
#include "source_ops.cuh"

namespace cudaprep::device {

__device__ __forceinline__ int clamp_index(int index, int size) {
  return min(max(index, 0), size - 1);
}

// weight * value, each channel rounded once.
__device__ __forceinline__ Rgba weighted(float weight, const Rgba &value) {
  return make_float4(__fmul_rn(weight, value.x), __fmul_rn(weight, value.y),
                     __fmul_rn(weight, value.z), __fmul_rn(weight, value.w));
}

// sum + weight * value, each channel one FMA.
__device__ __forceinline__ Rgba add_weighted(const Rgba &sum, float weight, const Rgba &value) {
  return make_float4(__fmaf_rn(weight, value.x, sum.x), __fmaf_rn(weight, value.y, sum.y),
                     __fmaf_rn(weight, value.z, sum.z), __fmaf_rn(weight, value.w, sum.w));
}

// OpenCV's INTER_NEAREST index, bit for bit: floor(d * (1 / (dst / src)))
// in double. `src_per_dst` is 1.0 / (double(dst_size) / src_size).
__device__ __forceinline__ int nearest_index(int d, double src_per_dst, int src_size) {
  return min(static_cast<int>(floor(d * src_per_dst)), src_size - 1);
}

// Continuous source coordinate of output pixel d's centre, in the frame where
// source pixel i's centre is i (half-pixel centres, align_corners = false).
__device__ __forceinline__ float centre_source_coordinate(int d, float src_per_dst) {
  return __fmaf_rn(static_cast<float>(d) + 0.5f, src_per_dst, -0.5f);
}

// OpenCV's sample position for float images (cv::resize, INTER_LINEAR and
// INTER_CUBIC): (d + 0.5) * scale - 0.5 in double, scale = 1 / (dst / src)
// in double, rounded once to float. The float intermediate uses it: a float
// scale (centre_source_coordinate) is up to 6e-5 px off at d = 1000, which
// bicubic's slope makes 0.02 of an 8-bit step.
__device__ __forceinline__ float opencv_source_coordinate(int d, double src_per_dst) {
  return __double2float_rn(__dadd_rn(__dmul_rn(static_cast<double>(d) + 0.5, src_per_dst), -0.5));
}

template <class Source>
__device__ __forceinline__ Rgba sample_nearest(const Source &src, int x, int y) {
  return src.load(x, y);
}

// The two source rows bilinear reads for continuous row sy (border
// replicate) and the bottom row's weight: the part of a sample that a run of
// pixels along an output row shares.
struct BilinearRows {
  int top, bottom;
  float weight;  // of the bottom row
};

__device__ __forceinline__ BilinearRows bilinear_rows(float sy, int height) {
  const float floor_y = floorf(sy);
  return {clamp_index(static_cast<int>(floor_y), height),
          clamp_index(static_cast<int>(floor_y) + 1, height), sy - floor_y};
}

// Bilinear at continuous column sx of `rows`, with border replicate.
template <class Source>
__device__ __forceinline__ Rgba sample_bilinear_rows(const Source &src, float sx,
                                                     const BilinearRows &rows) {
  const float floor_x = floorf(sx);
  const float tx = sx - floor_x;
  const int columns[2] = {clamp_index(static_cast<int>(floor_x), src.width),
                          clamp_index(static_cast<int>(floor_x) + 1, src.width)};
  Rgba top_taps[2], bottom_taps[2];
  load_taps(src, columns, rows.top, top_taps);
  load_taps(src, columns, rows.bottom, bottom_taps);
  const Rgba top = add_weighted(weighted(1.0f - tx, top_taps[0]), tx, top_taps[1]);
  const Rgba bottom = add_weighted(weighted(1.0f - tx, bottom_taps[0]), tx, bottom_taps[1]);
  return add_weighted(weighted(1.0f - rows.weight, top), rows.weight, bottom);
}

// Bilinear at continuous (sx, sy) with border replicate.
template <class Source>
__device__ __forceinline__ Rgba sample_bilinear(const Source &src, float sx, float sy) {
  return sample_bilinear_rows(src, sx, bilinear_rows(sy, src.height));
}

// Keys cubic convolution weights (A = -0.75, OpenCV's INTER_CUBIC) of the
// taps at floor - 1 .. floor + 2 for fractional offset t in [0, 1).
__device__ __forceinline__ void cubic_weights(float t, float weights[4]) {
  constexpr float kA = -0.75f;
  const float t1 = t + 1.0f;  // distance to tap floor - 1, in (1, 2]
  const float u = 1.0f - t;   // distance to tap floor + 1, in (0, 1]
  // Horner form of the Keys polynomials, one FMA per step; the constants
  // (kA + 2, 5 kA, ...) are exact.
  weights[0] = __fmaf_rn(__fmaf_rn(__fmaf_rn(kA, t1, -5.0f * kA), t1, 8.0f * kA), t1, -4.0f * kA);
  weights[1] = __fmaf_rn(__fmul_rn(__fmaf_rn(kA + 2.0f, t, -(kA + 3.0f)), t), t, 1.0f);
  weights[2] = __fmaf_rn(__fmul_rn(__fmaf_rn(kA + 2.0f, u, -(kA + 3.0f)), u), u, 1.0f);
  weights[3] = 1.0f - weights[0] - weights[1] - weights[2];
}

// The four source rows bicubic reads for continuous row sy (border
// replicate) and their weights: the part of a sample that a run of pixels
// along an output row shares.
struct BicubicRows {
  int rows[4];
  float weights[4];
};

__device__ __forceinline__ BicubicRows bicubic_rows(float sy, int height) {
  const float floor_y = floorf(sy);
  BicubicRows rows;
  cubic_weights(sy - floor_y, rows.weights);
  for (int tap = 0; tap < 4; ++tap) {
    rows.rows[tap] = clamp_index(static_cast<int>(floor_y) - 1 + tap, height);
  }
  return rows;
}

// Bicubic at continuous column sx of `rows`, with border replicate: each
// row's taps summed left to right, then the rows top to bottom.
template <class Source>
__device__ __forceinline__ Rgba sample_bicubic_rows(const Source &src, float sx,
                                                    const BicubicRows &rows) {
  const float floor_x = floorf(sx);
  float weights_x[4];
  cubic_weights(sx - floor_x, weights_x);
  int columns[4];
  for (int tap = 0; tap < 4; ++tap) {
    columns[tap] = clamp_index(static_cast<int>(floor_x) - 1 + tap, src.width);
  }
  Rgba sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (int tap_y = 0; tap_y < 4; ++tap_y) {
    Rgba taps[4];
    load_taps(src, columns, rows.rows[tap_y], taps);
    Rgba row_sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int tap_x = 0; tap_x < 4; ++tap_x) {
      row_sum = add_weighted(row_sum, weights_x[tap_x], taps[tap_x]);
    }
    sum = add_weighted(sum, rows.weights[tap_y], row_sum);
  }
  return sum;
}

template <class Source>
__device__ __forceinline__ Rgba sample_bicubic(const Source &src, float sx, float sy) {
  return sample_bicubic_rows(src, sx, bicubic_rows(sy, src.height));
}

// The source pixels output pixel d covers along one axis, in exact integer
// arithmetic: scaled by dst_size, source pixel i spans [i * dst, (i + 1) *
// dst) and output pixel d spans [d * src, (d + 1) * src).
struct AreaSpan {
  long long begin;  // d * src_size
  long long end;    // (d + 1) * src_size
  int dst_size;
  int first;             // first source pixel touched
  int last;              // last source pixel touched
  float inverse_length;  // 1 / src_size: turns an overlap into a weight

  __device__ __forceinline__ float weight(int i) const {
    const long long overlap = min(end, static_cast<long long>(i + 1) * dst_size) -
                              max(begin, static_cast<long long>(i) * dst_size);
    return __fmul_rn(static_cast<float>(overlap), inverse_length);
  }
};

__device__ __forceinline__ AreaSpan area_span(int d, int src_size, int dst_size) {
  AreaSpan span;
  span.begin = static_cast<long long>(d) * src_size;
  span.end = span.begin + src_size;
  span.dst_size = dst_size;
  span.first = static_cast<int>(span.begin / dst_size);
  span.last = static_cast<int>((span.end - 1) / dst_size);
  span.inverse_length = 1.0f / static_cast<float>(src_size);
  return span;
}

template <class Source>
__device__ __forceinline__ Rgba sample_area(const Source &src, const AreaSpan &span_x,
                                            const AreaSpan &span_y) {
  Rgba sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (int row = span_y.first; row <= span_y.last; ++row) {
    Rgba row_sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int column = span_x.first; column <= span_x.last; ++column) {
      row_sum = add_weighted(row_sum, span_x.weight(column), src.load(column, row));
    }
    sum = add_weighted(sum, span_y.weight(row), row_sum);
  }
  return sum;
}

}  // namespace cudaprep::device
