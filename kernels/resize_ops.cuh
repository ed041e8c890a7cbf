// Per-pixel device maths of resize and colour conversion (namespace
// cudaprep::device, shared with tensor_ops.cuh), kept apart from launch
// code so that kernels compose them: a *source* loads one pixel at integer
// coordinates as RGBA floats in [0, 255], a *sampler* maps an output pixel
// to a weighted sum of source loads, resized_value() places the resampled
// rectangle in the padded destination, and store_pixel() writes the result
// in a destination format. Nothing here knows about grids.
//
// Rounding is pinned: every float product is __fmul_rn or part of an
// explicit __fmaf_rn, so neither nvcc nor ptxas can contract a multiply and
// an add into an FMA differently in different kernels. resize() and the
// fused preprocess() inline these functions into different kernels and must
// still compute the same bits (preprocess == resize -> normalize ->
// tensorize, bit for bit).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "cudaprep/color.h"
#include "cudaprep/image.h"
#include "cudaprep/resize.h"
#include "element_ops.cuh"
#include "tensor_ops.cuh"

namespace cudaprep::device {

// R, G, B, A in [0, 255]; kept unrounded until the final store.
using Rgba = float4;

__device__ __forceinline__ int clamp_index(int index, int size) {
  return min(max(index, 0), size - 1);
}

__device__ __forceinline__ float clamp_channel(float value) {
  return fminf(fmaxf(value, 0.0f), 255.0f);
}

// ---------------------------------------------------------------------------
// YUV -> RGB

// R = Y' + r_from_v Cr, G = Y' + g_from_u Cb + g_from_v Cr, B = Y' + b_from_u Cb
// with Y' = (Y - y_offset) * y_gain and Cb, Cr = (U/V - 128) * chroma_gain,
// Y, U, V on the 8-bit scale (an n-bit code divided by 2^(n-8)).
struct YuvToRgbMatrix {
  float y_offset;
  float y_gain;
  float chroma_gain;
  float r_from_v;
  float g_from_u;
  float g_from_v;
  float b_from_u;
};

// `bits`: significant bits of the samples (bits_per_sample()). Limited
// range scales exactly with the bit depth; full range spans 2^n - 1 codes,
// so on the 8-bit scale its gain is 255 * 2^(n-8) / (2^n - 1).
CUDAPREP_HD YuvToRgbMatrix yuv_to_rgb_matrix(Colorimetry colorimetry, int bits = 8) {
  const float kr = colorimetry.matrix.kr;
  const float kb = colorimetry.matrix.kb;
  const float kg = 1.0f - kr - kb;
  const bool limited = colorimetry.range == ColorRange::kLimited;
  const float full_gain = bits == 8 ? 1.0f
                                    : 255.0f * static_cast<float>(1 << (bits - 8)) /
                                          static_cast<float>((1 << bits) - 1);
  YuvToRgbMatrix matrix;
  matrix.y_offset = limited ? 16.0f : 0.0f;
  matrix.y_gain = limited ? 255.0f / 219.0f : full_gain;
  matrix.chroma_gain = limited ? 255.0f / 224.0f : full_gain;
  matrix.r_from_v = 2.0f * (1.0f - kr);
  matrix.g_from_u = -2.0f * kb * (1.0f - kb) / kg;
  matrix.g_from_v = -2.0f * kr * (1.0f - kr) / kg;
  matrix.b_from_u = 2.0f * (1.0f - kb);
  return matrix;
}

// Clamped so that resampling sees what a uint8 RGB image would hold.
__device__ __forceinline__ Rgba yuv_to_rgb(float y, float u, float v, const YuvToRgbMatrix &m) {
  const float luma = __fmul_rn(y - m.y_offset, m.y_gain);
  const float cb = __fmul_rn(u - 128.0f, m.chroma_gain);
  const float cr = __fmul_rn(v - 128.0f, m.chroma_gain);
  return make_float4(clamp_channel(__fmaf_rn(m.r_from_v, cr, luma)),
                     clamp_channel(__fmaf_rn(m.g_from_v, cr, __fmaf_rn(m.g_from_u, cb, luma))),
                     clamp_channel(__fmaf_rn(m.b_from_u, cb, luma)), 255.0f);
}

// cv::cvtColor(COLOR_RGB2GRAY) weights.
__device__ __forceinline__ float luma_bt601(const Rgba &rgba) {
  return __fmaf_rn(0.114f, rgba.z, __fmaf_rn(0.587f, rgba.y, __fmul_rn(0.299f, rgba.x)));
}

// ---------------------------------------------------------------------------
// Sources: width, height and load(x, y) for 0 <= x < width, 0 <= y < height.
// Byte loads unless the launch checked the view's alignment for wider ones
// (views of 3-byte formats, and crops, have no alignment to rely on).

__device__ __forceinline__ float load_byte(const uint8_t *address) {
  return static_cast<float>(__ldg(address));
}

// RGBA BGRA RGBx BGRx RGB BGR: interleaved channels at fixed byte indices.
// kPacked32: a 4-byte format whose view (pointer and pitch) is 4-byte
// aligned, read with one 32-bit load per pixel instead of byte loads.
template <bool kPacked32>
struct InterleavedRgbSource {
  const uint8_t *data;
  size_t pitch_bytes;
  int width;
  int height;
  int bytes_per_pixel;
  int r_index, g_index, b_index;
  int alpha_index;  // -1: no alpha, reads as 255

  __device__ __forceinline__ Rgba load(int x, int y) const {
    if constexpr (kPacked32) {
      const uint32_t pixel = __ldg(reinterpret_cast<const uint32_t *>(data + y * pitch_bytes) + x);
      return make_float4(word_byte_to_float(pixel, r_index), word_byte_to_float(pixel, g_index),
                         word_byte_to_float(pixel, b_index),
                         alpha_index < 0 ? 255.0f : word_byte_to_float(pixel, alpha_index));
    } else {
      const uint8_t *pixel = data + y * pitch_bytes + static_cast<size_t>(x) * bytes_per_pixel;
      return make_float4(load_byte(pixel + r_index), load_byte(pixel + g_index),
                         load_byte(pixel + b_index),
                         alpha_index < 0 ? 255.0f : load_byte(pixel + alpha_index));
    }
  }
};

struct GraySource {
  const uint8_t *data;
  size_t pitch_bytes;
  int width;
  int height;

  __device__ __forceinline__ Rgba load(int x, int y) const {
    const float gray = load_byte(data + y * pitch_bytes + x);
    return make_float4(gray, gray, gray, 255.0f);
  }
};

// 4:2:0 with interleaved U, V; each chroma sample covers a 2x2 block.
struct Nv12Source {
  const uint8_t *luma;
  size_t luma_pitch_bytes;
  const uint8_t *chroma;
  size_t chroma_pitch_bytes;
  int width;
  int height;
  YuvToRgbMatrix matrix;

  __device__ __forceinline__ Rgba load(int x, int y) const {
    const uint8_t *uv = chroma + (y / 2) * chroma_pitch_bytes + (x / 2) * 2;
    return yuv_to_rgb(load_byte(luma + y * luma_pitch_bytes + x), load_byte(uv), load_byte(uv + 1),
                      matrix);
  }
};

// 4:2:0 with separate U and V planes.
struct I420Source {
  const uint8_t *luma;
  size_t luma_pitch_bytes;
  const uint8_t *u_plane;
  size_t u_pitch_bytes;
  const uint8_t *v_plane;
  size_t v_pitch_bytes;
  int width;
  int height;
  YuvToRgbMatrix matrix;

  __device__ __forceinline__ Rgba load(int x, int y) const {
    const int chroma_x = x / 2;
    const int chroma_y = y / 2;
    return yuv_to_rgb(load_byte(luma + y * luma_pitch_bytes + x),
                      load_byte(u_plane + chroma_y * u_pitch_bytes + chroma_x),
                      load_byte(v_plane + chroma_y * v_pitch_bytes + chroma_x), matrix);
  }
};

// P010 / P012 / P016: NV12's layout with 16-bit little-endian samples,
// significant bits at the top. A sample w reads as w / 256 (exact in
// float): the 8-bit scale with the extra bits kept as a fraction, so the
// 8-bit matrix constants apply and nothing is rounded to 8 bits.
struct P01xSource {
  const uint8_t *luma;
  size_t luma_pitch_bytes;
  const uint8_t *chroma;
  size_t chroma_pitch_bytes;
  int width;
  int height;
  YuvToRgbMatrix matrix;

  __device__ __forceinline__ static float load_sample(const uint8_t *address) {
    return __fmul_rn(static_cast<float>(__ldg(reinterpret_cast<const uint16_t *>(address))),
                     1.0f / 256.0f);
  }

  __device__ __forceinline__ Rgba load(int x, int y) const {
    const uint8_t *uv = chroma + (y / 2) * chroma_pitch_bytes + (x / 2) * 4;
    return yuv_to_rgb(load_sample(luma + y * luma_pitch_bytes + 2 * x), load_sample(uv),
                      load_sample(uv + 2), matrix);
  }
};

// Sources whose samples carry more than 8 bits: the fused preprocess keeps
// their precision instead of rounding to bytes.
template <class Source>
struct is_high_bit_depth_source : std::false_type {};
template <>
struct is_high_bit_depth_source<P01xSource> : std::true_type {};

// 4:2:2 packed as Y0 U Y1 V per pair of pixels.
struct Yuy2Source {
  const uint8_t *data;
  size_t pitch_bytes;
  int width;
  int height;
  YuvToRgbMatrix matrix;

  __device__ __forceinline__ Rgba load(int x, int y) const {
    const uint8_t *pair = data + y * pitch_bytes + (x / 2) * 4;
    return yuv_to_rgb(load_byte(pair + (x & 1) * 2), load_byte(pair + 1), load_byte(pair + 3),
                      matrix);
  }
};

// ---------------------------------------------------------------------------
// Orientation (resize.h's Orientation): a source seen flipped or rotated.
// The samplers see the oriented image; only load()'s coordinates change.

// Source pixel of oriented pixel (x, y):
//   (x0 + x_from_x * x + x_from_y * y, y0 + y_from_x * x + y_from_y * y).
struct OrientationMap {
  int x0, x_from_x, x_from_y;
  int y0, y_from_x, y_from_y;
};

CUDAPREP_HD OrientationMap orientation_map(Orientation orientation, int src_width, int src_height) {
  const int last_x = src_width - 1;
  const int last_y = src_height - 1;
  switch (orientation) {
    case Orientation::kRotate90:
      return {0, 0, 1, last_y, -1, 0};
    case Orientation::kRotate180:
      return {last_x, -1, 0, last_y, 0, -1};
    case Orientation::kRotate270:
      return {last_x, 0, -1, 0, 1, 0};
    case Orientation::kFlipHorizontal:
      return {last_x, -1, 0, 0, 0, 1};
    case Orientation::kFlipVertical:
      return {0, 1, 0, last_y, 0, -1};
    case Orientation::kTranspose:
      return {0, 0, 1, 0, 1, 0};
    case Orientation::kAntiTranspose:
      return {last_x, 0, -1, last_y, -1, 0};
    case Orientation::kIdentity:
      break;
  }
  return {0, 1, 0, 0, 0, 1};
}

// `Source` as `orientation` shows it: width and height are the oriented
// image's. Launches use the source itself for the identity.
template <class Source>
struct OrientedSource {
  Source source;
  OrientationMap map;
  int width;
  int height;

  __device__ __forceinline__ Rgba load(int x, int y) const {
    return source.load(map.x0 + map.x_from_x * x + map.x_from_y * y,
                       map.y0 + map.y_from_x * x + map.y_from_y * y);
  }
};

template <class Source>
OrientedSource<Source> oriented(const Source &source, Orientation orientation) {
  const bool swapped = swaps_axes(orientation);
  return {source, orientation_map(orientation, source.width, source.height),
          swapped ? source.height : source.width, swapped ? source.width : source.height};
}

template <class Source>
struct is_high_bit_depth_source<OrientedSource<Source>> : is_high_bit_depth_source<Source> {};

// ---------------------------------------------------------------------------
// Samplers. Output pixel d of an axis resized from src_size to dst_size.

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

// Bilinear at continuous (sx, sy) with border replicate.
template <class Source>
__device__ __forceinline__ Rgba sample_bilinear(const Source &src, float sx, float sy) {
  const float floor_x = floorf(sx);
  const float floor_y = floorf(sy);
  const float tx = sx - floor_x;
  const float ty = sy - floor_y;
  const int x0 = clamp_index(static_cast<int>(floor_x), src.width);
  const int x1 = clamp_index(static_cast<int>(floor_x) + 1, src.width);
  const int y0 = clamp_index(static_cast<int>(floor_y), src.height);
  const int y1 = clamp_index(static_cast<int>(floor_y) + 1, src.height);
  const Rgba top = add_weighted(weighted(1.0f - tx, src.load(x0, y0)), tx, src.load(x1, y0));
  const Rgba bottom = add_weighted(weighted(1.0f - tx, src.load(x0, y1)), tx, src.load(x1, y1));
  return add_weighted(weighted(1.0f - ty, top), ty, bottom);
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

template <class Source>
__device__ __forceinline__ Rgba sample_bicubic(const Source &src, float sx, float sy) {
  const float floor_x = floorf(sx);
  const float floor_y = floorf(sy);
  float weights_x[4];
  float weights_y[4];
  cubic_weights(sx - floor_x, weights_x);
  cubic_weights(sy - floor_y, weights_y);
  int columns[4];
  for (int tap = 0; tap < 4; ++tap) {
    columns[tap] = clamp_index(static_cast<int>(floor_x) - 1 + tap, src.width);
  }
  Rgba sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (int tap_y = 0; tap_y < 4; ++tap_y) {
    const int row = clamp_index(static_cast<int>(floor_y) - 1 + tap_y, src.height);
    Rgba row_sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int tap_x = 0; tap_x < 4; ++tap_x) {
      row_sum = add_weighted(row_sum, weights_x[tap_x], src.load(columns[tap_x], row));
    }
    sum = add_weighted(sum, weights_y[tap_y], row_sum);
  }
  return sum;
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

// ---------------------------------------------------------------------------
// Antialiased samplers: torchvision's interpolate(..., antialias=True) and
// PIL's resize (resize.h states the definition). Each thread computes the
// weights of its own taps; the normalisation of both axes is one multiply
// at the end.

// One axis of an antialiased resample, built once per frame on the host.
struct AntialiasAxis {
  float scale;                 // src_size / dst_size
  float support;               // base support * max(scale, 1)
  float inverse_filter_scale;  // 1 / max(scale, 1)
  int src_size;
};

inline AntialiasAxis antialias_axis(Interpolation method, int src_size, int dst_size) {
  const double scale = static_cast<double>(src_size) / dst_size;
  const double filter_scale = scale > 1.0 ? scale : 1.0;
  const double base_support = method == Interpolation::kBicubic ? 2.0 : 1.0;
  return {static_cast<float>(scale), static_cast<float>(base_support * filter_scale),
          static_cast<float>(1.0 / filter_scale), src_size};
}

// The triangle filter (bilinear) or PIL's cubic filter with A = -0.5
// (bicubic), at distance x in filter units.
template <Interpolation kMethod>
__device__ __forceinline__ float antialias_filter(float x) {
  const float s = fabsf(x);
  if constexpr (kMethod == Interpolation::kBicubic) {
    constexpr float kA = -0.5f;
    if (s < 1.0f) return __fmaf_rn(__fmul_rn(__fmaf_rn(kA + 2.0f, s, -(kA + 3.0f)), s), s, 1.0f);
    if (s < 2.0f) return __fmul_rn(__fmaf_rn(__fmaf_rn(s - 5.0f, s, 8.0f), s, -4.0f), kA);
    return 0.0f;
  } else {
    return fmaxf(1.0f - s, 0.0f);
  }
}

// The taps of output pixel d along one axis and their unnormalised weights.
template <Interpolation kMethod>
struct AntialiasSpan {
  int first;  // first source pixel
  int end;    // one past the last
  float centre;
  float inverse_filter_scale;

  // The unnormalised weight of source pixel i.
  __device__ __forceinline__ float weight_of(int i) const {
    return antialias_filter<kMethod>(
        __fmul_rn(__fadd_rn(__fsub_rn(static_cast<float>(i), centre), 0.5f), inverse_filter_scale));
  }

  // As taps (row_sum(), column_sum()): tap k is source pixel first + k.
  __device__ __forceinline__ int count() const { return end - first; }
  __device__ __forceinline__ int index(int k) const { return first + k; }
  __device__ __forceinline__ float weight(int k) const { return weight_of(first + k); }
  __device__ __forceinline__ int lowest() const { return first; }
  __device__ __forceinline__ int highest() const { return end - 1; }
};

template <Interpolation kMethod>
__device__ __forceinline__ AntialiasSpan<kMethod> antialias_span(int d, const AntialiasAxis &axis) {
  AntialiasSpan<kMethod> span;
  span.centre = __fmul_rn(axis.scale, static_cast<float>(d) + 0.5f);
  // Truncation toward zero, as torchvision's and PIL's int casts.
  span.first = max(static_cast<int>(__fadd_rn(__fsub_rn(span.centre, axis.support), 0.5f)), 0);
  span.end =
      min(static_cast<int>(__fadd_rn(__fadd_rn(span.centre, axis.support), 0.5f)), axis.src_size);
  span.inverse_filter_scale = axis.inverse_filter_scale;
  return span;
}

// The antialiased samplers' passes over "taps" (AntialiasSpan): count()
// taps, tap k at source index index(k) with weight weight(k), all within
// [lowest(), highest()]. The per-pixel sampler and the tiled kernels
// (resize_tile.cuh) sum the same taps in the same order through these, which
// is what keeps them bit for bit equal.

// The horizontal pass at one source row: taps_x's weighted sum of `row`,
// each tap one FMA per channel, starting from zero.
template <class Source, class Taps>
__device__ __forceinline__ Rgba row_sum(const Source &src, const Taps &taps_x, int row) {
  Rgba sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (int k = 0; k < taps_x.count(); ++k) {
    sum = add_weighted(sum, taps_x.weight(k), src.load(taps_x.index(k), row));
  }
  return sum;
}

// The vertical pass over row sums: `row_sum_at(row)` gives the horizontal
// pass at source row `row`.
template <class Taps, class RowSumAt>
__device__ __forceinline__ Rgba column_sum(const Taps &taps_y, RowSumAt &&row_sum_at) {
  Rgba sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (int k = 0; k < taps_y.count(); ++k) {
    sum = add_weighted(sum, taps_y.weight(k), row_sum_at(taps_y.index(k)));
  }
  return sum;
}

template <Interpolation kMethod>
__device__ __forceinline__ float antialias_total(const AntialiasSpan<kMethod> &span) {
  float total = 0.0f;
  for (int i = span.first; i < span.end; ++i) total = __fadd_rn(total, span.weight_of(i));
  return total;
}

// The normalisation of both axes, one multiply at the end.
template <Interpolation kMethod>
__device__ __forceinline__ Rgba antialias_normalised(const Rgba &sum,
                                                     const AntialiasSpan<kMethod> &span_x,
                                                     const AntialiasSpan<kMethod> &span_y) {
  return weighted(__frcp_rn(__fmul_rn(antialias_total(span_x), antialias_total(span_y))), sum);
}

// floor(value + 0.5) clamped to [0, 255]: the byte PIL's and torch's
// fixed-point passes store (their sums start at half a unit, then shift).
__device__ __forceinline__ float round_half_up_to_byte(float value) {
  return clamp_channel(floorf(__fadd_rn(value, 0.5f)));
}

__device__ __forceinline__ Rgba round_half_up_to_bytes(const Rgba &value) {
  return make_float4(round_half_up_to_byte(value.x), round_half_up_to_byte(value.y),
                     round_half_up_to_byte(value.z), round_half_up_to_byte(value.w));
}

// What the horizontal pass hands the vertical pass for one source row
// (ResizeParams::antialias_intermediate): the row sum as it is (float: both
// normalisations wait for antialias_result()), or normalised by the row
// taps' own total and rounded to 8 bits (uint8).
struct AntialiasRowHandoff {
  bool uint8_intermediate;
  float inverse_total_x;  // uint8 only

  __device__ __forceinline__ Rgba operator()(const Rgba &row_sum) const {
    return uint8_intermediate ? round_half_up_to_bytes(weighted(inverse_total_x, row_sum))
                              : row_sum;
  }
};

template <Interpolation kMethod>
__device__ __forceinline__ AntialiasRowHandoff
antialias_row_handoff(const AntialiasSpan<kMethod> &span_x, bool uint8_intermediate) {
  return {uint8_intermediate, uint8_intermediate ? __frcp_rn(antialias_total(span_x)) : 1.0f};
}

// The output value from `sum`, the vertical pass over the handed-off rows.
template <Interpolation kMethod>
__device__ __forceinline__ Rgba antialias_result(const Rgba &sum,
                                                 const AntialiasSpan<kMethod> &span_x,
                                                 const AntialiasSpan<kMethod> &span_y,
                                                 bool uint8_intermediate) {
  if (uint8_intermediate) {
    return round_half_up_to_bytes(weighted(__frcp_rn(antialias_total(span_y)), sum));
  }
  return antialias_normalised(sum, span_x, span_y);
}

// Rows first, then the column of handed-off rows, for one output pixel.
template <Interpolation kMethod, class Source>
__device__ __forceinline__ Rgba sample_antialiased(const Source &src, int x, int y,
                                                   const AntialiasAxis &axis_x,
                                                   const AntialiasAxis &axis_y,
                                                   bool uint8_intermediate) {
  const AntialiasSpan<kMethod> span_x = antialias_span<kMethod>(x, axis_x);
  const AntialiasSpan<kMethod> span_y = antialias_span<kMethod>(y, axis_y);
  const AntialiasRowHandoff handoff = antialias_row_handoff(span_x, uint8_intermediate);
  const Rgba sum = column_sum(span_y, [&](int row) { return handoff(row_sum(src, span_x, row)); });
  return antialias_result(sum, span_x, span_y, uint8_intermediate);
}

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
  AntialiasAxis antialias_x, antialias_y;
};

inline ResampleAxes resample_axes(int src_width, int src_height, int rect_width, int rect_height,
                                  Interpolation method, bool antialias,
                                  AntialiasIntermediate intermediate) {
  ResampleAxes axes;
  axes.antialias = antialias;
  axes.uint8_intermediate = antialias && intermediate == AntialiasIntermediate::kUint8;
  axes.opencv_positions = false;
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
__device__ __forceinline__ float sample_position_x(int x, const ResampleAxes &axes) {
  return axes.opencv_positions ? opencv_source_coordinate(x, axes.nearest_src_per_dst_x)
                               : centre_source_coordinate(x, axes.src_per_dst_x);
}
__device__ __forceinline__ float sample_position_y(int y, const ResampleAxes &axes) {
  return axes.opencv_positions ? opencv_source_coordinate(y, axes.nearest_src_per_dst_y)
                               : centre_source_coordinate(y, axes.src_per_dst_y);
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

// ---------------------------------------------------------------------------
// Destinations

// RGB BGR RGBA BGRA RGBx BGRx GRAY8 as byte indices of each channel.
struct DestinationLayout {
  int bytes_per_pixel;
  int r_index, g_index, b_index;
  int alpha_index;    // -1: none
  bool alpha_filler;  // the x of RGBx/BGRx: always 255
  bool gray;          // one byte of BT.601 luma
};

CUDAPREP_HD DestinationLayout destination_layout(PixelFormat format) {
  switch (format) {
    case PixelFormat::kRGB:
      return {3, 0, 1, 2, -1, false, false};
    case PixelFormat::kBGR:
      return {3, 2, 1, 0, -1, false, false};
    case PixelFormat::kRGBA:
      return {4, 0, 1, 2, 3, false, false};
    case PixelFormat::kBGRA:
      return {4, 2, 1, 0, 3, false, false};
    case PixelFormat::kRGBx:
      return {4, 0, 1, 2, 3, true, false};
    case PixelFormat::kBGRx:
      return {4, 2, 1, 0, 3, true, false};
    case PixelFormat::kGRAY8:
      return {1, 0, 0, 0, -1, false, true};
    default:
      return {0, 0, 0, 0, -1, false, false};
  }
}

// The byte a GRAY8 destination holds for `value`.
__device__ __forceinline__ uint8_t gray_byte(const Rgba &value) {
  return to_byte(luma_bt601(value));
}

__device__ __forceinline__ void store_pixel(uint8_t *row, int x, const Rgba &value,
                                            const DestinationLayout &layout) {
  uint8_t *pixel = row + static_cast<size_t>(x) * layout.bytes_per_pixel;
  if (layout.gray) {
    pixel[0] = gray_byte(value);
    return;
  }
  pixel[layout.r_index] = to_byte(value.x);
  pixel[layout.g_index] = to_byte(value.y);
  pixel[layout.b_index] = to_byte(value.z);
  if (layout.alpha_index >= 0) {
    pixel[layout.alpha_index] = layout.alpha_filler ? 255 : to_byte(value.w);
  }
}

// Tensor pixel `pixel` (channel c at pixel + c * channel_stride) of the
// resampled `value` normalised unrounded and unclamped, channels in `order`;
// GRAY is the BT.601 luma of the unrounded RGB.
template <typename Out>
__device__ __forceinline__ void store_unrounded_pixel(void *tensor, int64_t pixel,
                                                      int64_t channel_stride, const Rgba &value,
                                                      ChannelOrder order,
                                                      const ChannelNormalization &norm) {
  if (order == ChannelOrder::kGray) {
    store_element(tensor, pixel, normalized_value<Out>(luma_bt601(value), norm, 0));
    return;
  }
  const bool bgr = order == ChannelOrder::kBGR;
  const float channels[kMaxChannels] = {bgr ? value.z : value.x, value.y, bgr ? value.x : value.z};
#pragma unroll
  for (int c = 0; c < kMaxChannels; ++c) {
    store_element(tensor, pixel + c * channel_stride, normalized_value<Out>(channels[c], norm, c));
  }
}

}  // namespace cudaprep::device
