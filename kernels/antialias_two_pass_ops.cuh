// The antialiased samplers in two passes (namespace cudaprep::device), for
// shrinks whose row sums the tiled kernels (resize_tile.cuh) would compute
// again in every block whose footprint holds them. Pass 1
// (antialias_row_walk_ops.cuh) computes every row sum (one output column,
// one source row) exactly once into RowSums, a device intermediate of float
// planes; pass 2 adds, per output pixel, the row sums its vertical taps
// cover.
//
// Bit for bit the per-pixel sampler of antialias_ops.cuh: pass 1 sums each
// column's taps in the taps' order from zero with AntialiasSpan's weights
// and hands the sum off as row_sum()'s caller does
// (antialias_row_handoff_of_total()); pass 2 adds the rows in
// add_column_taps()'s order and finishes with antialias_result_of_totals(),
// the totals being antialias_total()'s.
#pragma once

#include <cuda_runtime.h>

#include "antialias_ops.cuh"
#include "antialias_row_walk_ops.cuh"
#include "resample_ops.cuh"
#include "resize_tile.cuh"

namespace cudaprep::device {

// Where the parts live in a pass-2 block's shared memory: per output row of
// the block, `taps` vertical weights, its first source row, its tap count
// and its taps' total.
struct ColumnTapsLayout {
  size_t weights, firsts, counts, totals, bytes;  // byte offsets
};

__host__ __device__ inline ColumnTapsLayout column_taps_layout(int taps, int rows) {
  ColumnTapsLayout layout;
  layout.weights = 0;
  layout.firsts = layout.weights + sizeof(float) * taps * rows;
  layout.counts = layout.firsts + sizeof(int) * rows;
  layout.totals = layout.counts + sizeof(int) * rows;
  layout.bytes = layout.totals + sizeof(float) * rows;
  return layout;
}

// Pass 2: the value of this thread's destination pixel (blockIdx, threadIdx
// as launch_shape_2d() lays out one thread per pixel) of a width x height
// destination from `sums` (pass 1's), the pad outside the rectangle. Every
// thread of the block calls it. Alpha is not carried: inside the
// rectangle it is 255, what an opaque source's taps sum to (resize() runs
// the passes only where that is what it stores). `taps`: the
// vertical weights the block tables per row; a row with more adds its
// weights as computed.
template <Interpolation kMethod>
__device__ __forceinline__ Rgba two_pass_value(const RowSums &sums, const ResizeMapping &mapping,
                                               int width, int height, int taps, float *shared) {
  const ResampleAxes &axes = mapping.axes;
  const int rows = static_cast<int>(blockDim.y);
  const int local_y = static_cast<int>(threadIdx.y);
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  const int rect_x = x - mapping.rect.x;
  const int rect_y = y - mapping.rect.y;
  const bool row_inside = y < height && rect_y >= 0 && rect_y < mapping.rect.height;
  const ColumnTapsLayout layout = column_taps_layout(taps, rows);
  char *base = reinterpret_cast<char *>(shared);
  float *weights = reinterpret_cast<float *>(base + layout.weights) + local_y * taps;
  int *firsts = reinterpret_cast<int *>(base + layout.firsts);
  int *counts = reinterpret_cast<int *>(base + layout.counts);
  float *totals = reinterpret_cast<float *>(base + layout.totals);
  const AntialiasSpan<kMethod> span_y =
      antialias_span<kMethod>(row_inside ? rect_y : 0, axes.antialias_y);
  const bool tabled = span_y.count() <= taps;
  if (row_inside) {
    if (tabled) {
      for (int k = static_cast<int>(threadIdx.x); k < span_y.count();
           k += static_cast<int>(blockDim.x)) {
        weights[k] = span_y.weight(k);
      }
    }
    if (threadIdx.x == 0) {
      firsts[local_y] = span_y.first;
      counts[local_y] = span_y.count();
    }
  }
  __syncthreads();
  // The row's total, its tabled weights added in antialias_total()'s order
  // (the same values, so the same bits) by one thread.
  if (row_inside && threadIdx.x == 0) {
    float total = 0.0f;
    if (tabled) {
      for (int k = 0; k < span_y.count(); ++k) total = __fadd_rn(total, weights[k]);
    } else {
      total = antialias_total(span_y);
    }
    totals[local_y] = total;
  }
  __syncthreads();
  const bool inside = row_inside && x < width && rect_x >= 0 && rect_x < mapping.rect.width;
  if (!inside) return mapping.pad;

  const int first_row = row_sums_first_row<kMethod>(axes, sums);
  const int column = rect_x - sums.column_begin;
  const size_t plane = sums.plane_floats();
  const Rgba zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  Rgba sum = zero;
  if (tabled) {
    // add_column_taps()'s order: tap k, source row firsts[local_y] + k.
    const float *red =
        sums.plane(0) + static_cast<size_t>(firsts[local_y] - first_row) * sums.pitch + column;
    const float *green = red + plane;
    const float *blue = green + plane;
    const int count = counts[local_y];
    // 32-bit offsets: a plane of row sums holds far fewer than 2^32 floats.
    const unsigned pitch = static_cast<unsigned>(sums.pitch);
#pragma unroll 8
    for (int k = 0; k < count; ++k) {
      const unsigned at = static_cast<unsigned>(k) * pitch;
      sum = add_weighted(sum, weights[k],
                         make_float4(__ldg(red + at), __ldg(green + at), __ldg(blue + at), 0.0f));
    }
  } else {
    const float *red = sums.plane(0) + column;
    sum = add_column_taps(zero, span_y, 0, span_y.count(), [&](int row) {
      const float *at = red + static_cast<size_t>(row - first_row) * sums.pitch;
      return make_float4(__ldg(at), __ldg(at + plane), __ldg(at + 2 * plane), 0.0f);
    });
  }
  Rgba value = antialias_result_of_totals(sum, __ldg(sums.totals_x() + column), totals[local_y],
                                          axes.uint8_intermediate);
  value.w = 255.0f;
  return value;
}

}  // namespace cudaprep::device
