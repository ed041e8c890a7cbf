// Pass 2 of the two-pass antialiased shrink (antialias_two_pass_ops.cuh),
// namespace cudaprep::device: every output pixel from the row sums, a band
// of output rows at a time through shared memory.
//
// A block takes kBandRows output rows and 32 output columns. Its threads
// first copy the row sums the band's taps read, for its columns, into
// shared memory (asynchronous copies where the GPU has them, sm_80 on) and
// table each band row's vertical weights and total while the copies fly;
// then each thread sums kBandRows / kBandWarps pixels of its column from
// shared memory. The pass is issue-bound: a tap costs three shared loads,
// a broadcast weight and three FMAs, where a thread per pixel reading its
// taps from L2 spent about 17 instructions on each, mostly 64-bit
// addresses (bench/NOTES-kernels.md).
//
// Bit for bit column_sum() and antialias_result_of_totals(): a pixel's sum
// starts at +0 and adds its taps' products in the taps' order with
// AntialiasSpan's weights, one FMA a channel, and a row's total adds its
// tabled weights in antialias_total()'s order (the same values, so the same
// bits). A band whose taps span more rows than the launch reserved reads
// them from the row sums in memory instead (the same bits, slower).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "antialias_ops.cuh"
#include "antialias_row_walk_ops.cuh"
#include "resample_ops.cuh"

namespace cudaprep::device {

// Output rows of a band (a pass-2 block), its warps (each warp kBandRows /
// kBandWarps of the rows) and its columns (a warp's lanes).
constexpr int kBandRows = 8;
constexpr int kBandWarps = 4;
constexpr int kBandThreads = 32 * kBandWarps;
constexpr int kBandColumns = 32;

// What a pass-2 launch reserved per block: the row sums a band stages (rows
// of kBandColumns floats, per channel), as many as each band row's weights
// (a row's taps lie among the band's).
struct BandCapacity {
  int rows;
};

// Where the parts live in a pass-2 block's shared memory: the staged row
// sums (R, G, B planes of capacity.rows x kBandColumns), then per band row
// its weights, first source row, tap count and total.
struct BandLayout {
  size_t sums, weights, firsts, counts, totals, bytes;  // byte offsets
};

__host__ __device__ inline BandLayout band_layout(const BandCapacity &capacity) {
  BandLayout layout;
  layout.sums = 0;
  layout.weights = layout.sums + sizeof(float) * kRowSumChannels *
                                     static_cast<size_t>(capacity.rows) * kBandColumns;
  layout.firsts = layout.weights + sizeof(float) * kBandRows * static_cast<size_t>(capacity.rows);
  layout.counts = layout.firsts + sizeof(int) * kBandRows;
  layout.totals = layout.counts + sizeof(int) * kBandRows;
  layout.bytes = layout.totals + sizeof(float) * kBandRows;
  return layout;
}

// `bytes` (4 or 16) from global `from` to shared `to`, asynchronously where
// the GPU copies so (sm_80 on; wait_band_copies() waits for them), else
// through a register.
template <int kBytes>
__device__ __forceinline__ void copy_to_shared(void *to, const void *from) {
#if __CUDA_ARCH__ >= 800
  unsigned shared_address;
  asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }"
      : "=r"(shared_address)
      : "l"(to));
  if constexpr (kBytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(shared_address), "l"(from)
                 : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(shared_address), "l"(from)
                 : "memory");
  }
#else
  if constexpr (kBytes == 16) {
    *static_cast<float4 *>(to) = __ldg(static_cast<const float4 *>(from));
  } else {
    *static_cast<float *>(to) = __ldg(static_cast<const float *>(from));
  }
#endif
}

__device__ __forceinline__ void wait_band_copies() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

// Copies rows [row_begin, row_begin + rows) (the sums' rows) of sums columns
// [column, column + kBandColumns) into the staged planes, the columns
// outside [0, sums.pitch) left out (their pixels are the pad's).
__device__ __forceinline__ void stage_band_sums(const RowSums &sums, int row_begin, int rows,
                                                int column, float *staged, int capacity_rows) {
  const int lane = static_cast<int>(threadIdx.x);
  const int warp = static_cast<int>(threadIdx.y);
  const size_t plane = sums.plane_floats();
  const int staged_plane = capacity_rows * kBandColumns;
  if (column % 4 == 0) {
    // 16 bytes at a time, each in or out of the pitch whole: a warp copies
    // 4 rows of 8 chunks per step.
    constexpr int kChunks = kBandColumns / 4;
    const int chunk = lane % kChunks;
    const int at = column + 4 * chunk;
    if (at < 0 || at >= sums.pitch) return;
    const float *from =
        sums.plane(0) + static_cast<size_t>(row_begin + lane / kChunks) * sums.pitch + at;
    float *to = staged + (lane / kChunks) * kBandColumns + 4 * chunk;
    constexpr int kRowsPerStep = 32 / kChunks;
    const size_t step = static_cast<size_t>(kRowsPerStep) * kBandWarps * sums.pitch;
    from += static_cast<size_t>(warp) * kRowsPerStep * sums.pitch;
    to += warp * kRowsPerStep * kBandColumns;
    for (int row = warp * kRowsPerStep + lane / kChunks; row < rows;
         row += kRowsPerStep * kBandWarps) {
#pragma unroll
      for (int channel = 0; channel < kRowSumChannels; ++channel) {
        copy_to_shared<16>(to + channel * staged_plane, from + channel * plane);
      }
      from += step;
      to += kRowsPerStep * kBandWarps * kBandColumns;
    }
  } else {
    // 4 bytes at a time: a warp copies one row per step.
    if (column + lane < 0 || column + lane >= sums.pitch) return;
    const float *from =
        sums.plane(0) + static_cast<size_t>(row_begin + warp) * sums.pitch + column + lane;
    float *to = staged + warp * kBandColumns + lane;
    for (int row = warp; row < rows; row += kBandWarps) {
#pragma unroll
      for (int channel = 0; channel < kRowSumChannels; ++channel) {
        copy_to_shared<4>(to + channel * staged_plane, from + channel * plane);
      }
      from += static_cast<size_t>(kBandWarps) * sums.pitch;
      to += kBandWarps * kBandColumns;
    }
  }
}

// Pass 2 for block (blockIdx.x, blockIdx.y) of 32 x kBandWarps threads:
// destination columns from blockIdx.x * kBandColumns, one per lane, rows
// from blockIdx.y * kBandRows, of a width x height destination from `sums`
// (pass 1's), the pad outside the rectangle; each pixel goes to
// store(x, y, value). Alpha is not carried: inside the rectangle it is 255,
// what an opaque source's taps sum to (resize() runs the passes only where
// that is what it stores). Every thread of the block calls it.
template <Interpolation kMethod, class Store>
__device__ __forceinline__ void sum_band_columns(const RowSums &sums, const ResizeMapping &mapping,
                                                 int width, int height,
                                                 const BandCapacity &capacity, float *shared,
                                                 Store &&store) {
  const ResampleAxes &axes = mapping.axes;
  const int lane = static_cast<int>(threadIdx.x);
  const int warp = static_cast<int>(threadIdx.y);
  const int x = static_cast<int>(blockIdx.x) * kBandColumns + lane;
  const int band_y = static_cast<int>(blockIdx.y) * kBandRows;
  const int band_end = min(band_y + kBandRows, height);
  // The band's rows some rectangle pixel lies in.
  const int y_first = max(band_y, mapping.rect.y + sums.rect_row_begin);
  const int rows = max(min(band_end, mapping.rect.y + sums.rect_row_end) - y_first, 0);
  const int first_row = row_sums_first_row<kMethod>(axes, sums);
  // The block's first column among the sums' columns.
  const int block_column =
      static_cast<int>(blockIdx.x) * kBandColumns - mapping.rect.x - sums.column_begin;
  const BandLayout layout = band_layout(capacity);
  char *base = reinterpret_cast<char *>(shared);
  float *staged = reinterpret_cast<float *>(base + layout.sums);
  float *weights = reinterpret_cast<float *>(base + layout.weights);
  int *firsts = reinterpret_cast<int *>(base + layout.firsts);
  int *counts = reinterpret_cast<int *>(base + layout.counts);
  float *totals = reinterpret_cast<float *>(base + layout.totals);

  // Spans move forward with the row: the first row's first tap and the last
  // row's end bound the band's.
  const auto span_of = [&](int i) {
    return antialias_span<kMethod>(y_first + i - mapping.rect.y, axes.antialias_y);
  };
  const int band_first = rows > 0 ? span_of(0).first : 0;
  const int band_sum_rows = rows > 0 ? span_of(rows - 1).end - band_first : 0;
  const bool staged_band = rows > 0 && band_sum_rows <= capacity.rows;
  if (staged_band) {
    stage_band_sums(sums, band_first - first_row, band_sum_rows, block_column, staged,
                    capacity.rows);
    for (int i = warp; i < rows; i += kBandWarps) {
      const AntialiasSpan<kMethod> span = span_of(i);
      for (int k = lane; k < span.count(); k += 32) weights[i * capacity.rows + k] = span.weight(k);
      __syncwarp();
      if (lane == 0) {
        float total = 0.0f;
        for (int k = 0; k < span.count(); ++k) {
          total = __fadd_rn(total, weights[i * capacity.rows + k]);
        }
        firsts[i] = span.first - band_first;
        counts[i] = span.count();
        totals[i] = total;
      }
    }
    wait_band_copies();
    __syncthreads();
  }
  if (x >= width) return;
  const int column = block_column + lane;
  const bool column_inside = column >= 0 && column < sums.columns;
  const size_t plane = sums.plane_floats();
  const float total_x = column_inside ? __ldg(sums.totals_x() + column) : 0.0f;
  for (int y = band_y + warp; y < band_end; y += kBandWarps) {
    const int i = y - y_first;
    if (!column_inside || i < 0 || i >= rows) {
      store(x, y, mapping.pad);
      continue;
    }
    Rgba sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float total_y;
    if (staged_band) {
      const int staged_plane = capacity.rows * kBandColumns;
      const float *red = staged + firsts[i] * kBandColumns + lane;
      const float *green = red + staged_plane;
      const float *blue = green + staged_plane;
      const float *row_weights = weights + i * capacity.rows;
      const int count = counts[i];
#pragma unroll 4
      for (int k = 0; k < count; ++k) {
        const float weight = row_weights[k];
        sum.x = __fmaf_rn(weight, red[k * kBandColumns], sum.x);
        sum.y = __fmaf_rn(weight, green[k * kBandColumns], sum.y);
        sum.z = __fmaf_rn(weight, blue[k * kBandColumns], sum.z);
      }
      total_y = totals[i];
    } else {
      const AntialiasSpan<kMethod> span_y = span_of(i);
      const float *red = sums.plane(0) + column;
      sum = column_sum(span_y, [&](int row) {
        const float *at = red + static_cast<size_t>(row - first_row) * sums.pitch;
        return make_float4(__ldg(at), __ldg(at + plane), __ldg(at + 2 * plane), 0.0f);
      });
      total_y = antialias_total(span_y);
    }
    Rgba value = antialias_result_of_totals(sum, total_x, total_y, axes.uint8_intermediate);
    value.w = 255.0f;
    store(x, y, value);
  }
}

}  // namespace cudaprep::device
