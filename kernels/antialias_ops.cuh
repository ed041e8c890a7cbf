// Antialiased samplers (namespace cudaprep::device): torchvision's
// interpolate(..., antialias=True) and PIL's resize (resize.h states the
// definition). Each thread computes the weights of its own taps; the
// normalisation of both axes is one multiply at the end.
#pragma once

#include <cuda_runtime.h>

#include "color_ops.cuh"
#include "cudaprep/resize.h"
#include "sampler_ops.cuh"

namespace cudaprep::device {

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

// Part of the vertical pass: `sum` with taps [k_begin, k_end) of taps_y
// added in order; `row_sum_at(row)` gives the horizontal pass at source row
// `row`. Adding a column's taps in consecutive parts gives column_sum()'s bits.
template <class Taps, class RowSumAt>
__device__ __forceinline__ Rgba add_column_taps(Rgba sum, const Taps &taps_y, int k_begin,
                                                int k_end, RowSumAt &&row_sum_at) {
  for (int k = k_begin; k < k_end; ++k) {
    sum = add_weighted(sum, taps_y.weight(k), row_sum_at(taps_y.index(k)));
  }
  return sum;
}

// The vertical pass over row sums, starting from zero.
template <class Taps, class RowSumAt>
__device__ __forceinline__ Rgba column_sum(const Taps &taps_y, RowSumAt &&row_sum_at) {
  return add_column_taps(make_float4(0.0f, 0.0f, 0.0f, 0.0f), taps_y, 0, taps_y.count(),
                         row_sum_at);
}

template <Interpolation kMethod>
__device__ __forceinline__ float antialias_total(const AntialiasSpan<kMethod> &span) {
  float total = 0.0f;
  for (int i = span.first; i < span.end; ++i) total = __fadd_rn(total, span.weight_of(i));
  return total;
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

// The hand-off of a column whose taps' total (antialias_total()) is `total_x`.
__device__ __forceinline__ AntialiasRowHandoff
antialias_row_handoff_of_total(float total_x, bool uint8_intermediate) {
  return {uint8_intermediate, uint8_intermediate ? __frcp_rn(total_x) : 1.0f};
}

template <Interpolation kMethod>
__device__ __forceinline__ AntialiasRowHandoff
antialias_row_handoff(const AntialiasSpan<kMethod> &span_x, bool uint8_intermediate) {
  return antialias_row_handoff_of_total(uint8_intermediate ? antialias_total(span_x) : 1.0f,
                                        uint8_intermediate);
}

// The output value from `sum`, the vertical pass over the handed-off rows,
// given the taps' totals of its column and row (antialias_total()): uint8,
// the row's normalisation rounded to 8 bits; float, both normalisations in
// one multiply at the end.
__device__ __forceinline__ Rgba antialias_result_of_totals(const Rgba &sum, float total_x,
                                                           float total_y, bool uint8_intermediate) {
  if (uint8_intermediate) return round_half_up_to_bytes(weighted(__frcp_rn(total_y), sum));
  return weighted(__frcp_rn(__fmul_rn(total_x, total_y)), sum);
}

template <Interpolation kMethod>
__device__ __forceinline__ Rgba antialias_result(const Rgba &sum,
                                                 const AntialiasSpan<kMethod> &span_x,
                                                 const AntialiasSpan<kMethod> &span_y,
                                                 bool uint8_intermediate) {
  return antialias_result_of_totals(sum, uint8_intermediate ? 0.0f : antialias_total(span_x),
                                    antialias_total(span_y), uint8_intermediate);
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

}  // namespace cudaprep::device
