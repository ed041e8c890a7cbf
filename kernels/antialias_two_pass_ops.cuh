// The antialiased samplers in two passes (namespace cudaprep::device), for
// shrinks whose row sums the tiled kernels (resize_tile.cuh) would compute
// again in every block whose footprint holds them. Pass 1 computes every row
// sum (one output column, one source row) exactly once into RowSums, a
// device intermediate of float planes; pass 2 adds, per output pixel, the
// row sums its vertical taps cover.
//
// Bit for bit the per-pixel sampler of antialias_ops.cuh: pass 1 sums each
// column's taps over the pixels the reader loads (staged in shared memory,
// each loaded and converted once per block), the weights being
// AntialiasSpan's, in the taps' order from zero, and hands the sum off as
// row_sum()'s caller does (antialias_row_handoff_of_total()); pass 2 adds
// the rows in add_column_taps()'s order and finishes with
// antialias_result_of_totals(), the totals being antialias_total()'s.
//
// Pass 1 is dense: a thread sums kRowSumColumns neighbouring columns at one
// source row, walking the pixels of their joint span once, each pixel
// weighted for every column, with weight zero outside a column's taps. A
// zero weight leaves a sum's bits as they are: the sum starts at +0, and a
// float sum of finite values is never -0 unless both terms are -0, so
// fma(0, p, s) == s for any finite pixel p. What it saves: each staged pixel
// is read from shared memory once for two columns, and their two weights
// in one 8-byte broadcast, where row_sum() reads a pixel and a weight per
// tap. Two columns rather than four: a block's staged footprint, which
// bounds the blocks per SM, is shared by twice the warps
// (bench/NOTES-kernels.md counts both). A warp's lanes run down 32 source
// rows of the same columns: their weights are one broadcast, their pixels
// fall in distinct banks (odd pitch). A block sums a few groups of 32 rows
// in turn: its weight tables are made once for all, and each group's
// first staging batch (for 4K -> 455 its whole footprint) is loaded while
// the block sums the group before (footprint_staging_ops.cuh stages the
// pixels).
#pragma once

#include <cuda_runtime.h>

#include "antialias_ops.cuh"
#include "color_ops.cuh"
#include "footprint_staging_ops.cuh"
#include "resample_ops.cuh"
#include "resize_tile.cuh"
#include "source_ops.cuh"

namespace cudaprep::device {

// Output columns one pass-1 thread sums (the weights of one pixel for all
// of them are one float2).
constexpr int kRowSumColumns = 2;
// Source rows of one pass-1 block: one per lane of each warp.
constexpr int kRowSumRows = 32;
// The most warps (column groups) of a pass-1 block: two blocks of them fit
// an SM at 128 registers a thread (the kernel's launch bounds).
constexpr int kRowSumMostWarps = 8;
constexpr int kRowSumMostThreads = kRowSumRows * kRowSumMostWarps;
// R, G, B: the fused preprocess stores no alpha.
constexpr int kRowSumChannels = 3;

// The row sums, handed off (kept as summed or rounded to 8 bits): plane c
// (R, G, B) holds at row r - first_row and column d - column_begin the
// sum of rect column d at source row r, for the rect columns
// [column_begin, column_begin + columns) some output pixel lies in and the
// source rows the taps of the rect rows [rect_row_begin, rect_row_end)
// read (first_row: the first of them, row_sums_first_row()). After the
// planes, `pitch` floats: each column's antialias_total().
struct RowSums {
  float *data;
  int pitch;  // floats per row, a multiple of 32 (rows start 128-byte aligned)
  int rows;   // rows allocated per plane: at least the rows the taps read
  int column_begin, columns;
  int rect_row_begin, rect_row_end;

  __host__ __device__ size_t plane_floats() const { return static_cast<size_t>(rows) * pitch; }
  __host__ __device__ size_t bytes() const {
    return sizeof(float) * (kRowSumChannels * plane_floats() + pitch);
  }
  __device__ __forceinline__ float *plane(int channel) const {
    return data + channel * plane_floats();
  }
  __device__ __forceinline__ float *totals_x() const {
    return data + kRowSumChannels * plane_floats();
  }
};

template <Interpolation kMethod>
__device__ __forceinline__ int row_sums_first_row(const ResampleAxes &axes, const RowSums &sums) {
  return antialias_span<kMethod>(sums.rect_row_begin, axes.antialias_y).first;
}

// What a pass-1 launch reserved per block: `warps` column groups, the
// staged footprint's columns per row, each group's weight-table entries
// (the pixels its columns' joint span covers), and the groups of
// kRowSumRows source rows the block sums one after the other. A block
// whose footprint needs more sums straight from the source (same bits,
// slower).
struct RowSumsCapacity {
  int warps;
  int staged_columns;
  int table_pixels;
  int row_groups;
};

// Where the parts live in a pass-1 block's shared memory: the weight
// tables (float2 per pixel: one weight per column of the group), the
// columns' totals, then the staged R, G, B planes of kRowSumRows rows at an
// odd pitch: the staged columns and two more, as the staging starts at an
// even column and ends after a whole pair (the 4:2:0 readers' StagingUnit).
struct RowSumsSharedLayout {
  int staged_pitch;
  size_t tables, totals, staged, bytes;  // byte offsets
};

__host__ __device__ inline RowSumsSharedLayout row_sums_shared_layout(
    const RowSumsCapacity &capacity) {
  RowSumsSharedLayout layout;
  layout.staged_pitch = (capacity.staged_columns + 2) | 1;
  layout.tables = 0;
  layout.totals = layout.tables + sizeof(float2) * capacity.warps * capacity.table_pixels;
  layout.staged = layout.totals + sizeof(float) * capacity.warps * kRowSumColumns;
  layout.bytes =
      layout.staged + sizeof(float) * kRowSumChannels * kRowSumRows * layout.staged_pitch;
  return layout;
}

// One lane's row sums of its warp's `columns` columns (1 to
// kRowSumColumns) at one source row: every pixel of their joint span
// (`pixels` from `red`, the lane's staged row at the span's first pixel;
// green and blue `plane` floats on) once, weighted for each column from
// `table`, handed off (`totals`: the columns' totals, read for a uint8
// hand-off only) and stored at `out` of each of the sums' planes.
__device__ __forceinline__ void add_row_sums(const RowSums &sums, const float *totals,
                                             bool uint8_intermediate, const float2 *table,
                                             int pixels, const float *red, size_t plane, size_t out,
                                             int columns) {
  float sum[kRowSumColumns][kRowSumChannels] = {};
  const float *green = red + plane;
  const float *blue = green + plane;
#pragma unroll 8
  for (int j = 0; j < pixels; ++j) {
    const float2 weight = table[j];
    const float weights[kRowSumColumns] = {weight.x, weight.y};
    const float pixel[kRowSumChannels] = {red[j], green[j], blue[j]};
#pragma unroll
    for (int g = 0; g < kRowSumColumns; ++g) {
#pragma unroll
      for (int c = 0; c < kRowSumChannels; ++c) {
        sum[g][c] = __fmaf_rn(weights[g], pixel[c], sum[g][c]);
      }
    }
  }

  // Straight out: a lane's columns are 8 aligned bytes of its row in each
  // plane (the pitch is a multiple of 32 floats, groups start at multiples
  // of kRowSumColumns).
  float values[kRowSumChannels][kRowSumColumns];
#pragma unroll
  for (int g = 0; g < kRowSumColumns; ++g) {
    const Rgba value =
        antialias_row_handoff_of_total(uint8_intermediate ? totals[g] : 1.0f, uint8_intermediate)(
            make_float4(sum[g][0], sum[g][1], sum[g][2], 0.0f));
    values[0][g] = value.x;
    values[1][g] = value.y;
    values[2][g] = value.z;
  }
  if (columns == kRowSumColumns) {
#pragma unroll
    for (int c = 0; c < kRowSumChannels; ++c) {
      *reinterpret_cast<float2 *>(sums.plane(c) + out) = make_float2(values[c][0], values[c][1]);
    }
  } else {
#pragma unroll
    for (int g = 0; g < kRowSumColumns; ++g) {
      if (g >= columns) break;
#pragma unroll
      for (int c = 0; c < kRowSumChannels; ++c) sums.plane(c)[out + g] = values[c][g];
    }
  }
}

// Pass 1 for block (blockIdx.x, blockIdx.y) of kRowSumRows x capacity.warps
// threads: rect columns column_begin + blockIdx.x * warps * kRowSumColumns
// onwards (warp w the w-th group of kRowSumColumns), capacity.row_groups
// groups of kRowSumRows source rows from first_row + blockIdx.y *
// row_groups * kRowSumRows on (lane l the l-th row of each). The weight
// tables are made once for all of them; each group's first staging batch
// is fetched while the block sums the group before. Every thread of the
// block calls it.
template <Interpolation kMethod, class Source>
__device__ __forceinline__ void compute_row_sums(const Source &src, const ResampleAxes &axes,
                                                 const RowSums &sums,
                                                 const RowSumsCapacity &capacity, float *shared) {
  const AntialiasAxis &axis_x = axes.antialias_x;
  const int lane = static_cast<int>(threadIdx.x);
  const int warp = static_cast<int>(threadIdx.y);
  const int block_columns = capacity.warps * kRowSumColumns;
  const int block_begin = sums.column_begin + static_cast<int>(blockIdx.x) * block_columns;
  const int block_end = min(block_begin + block_columns, sums.column_begin + sums.columns);
  const int first_row = row_sums_first_row<kMethod>(axes, sums);
  const int end_row = min(antialias_span<kMethod>(sums.rect_row_end - 1, axes.antialias_y).end,
                          first_row + sums.rows);
  const int block_row =
      first_row + static_cast<int>(blockIdx.y) * capacity.row_groups * kRowSumRows;
  // Source rows of row group g of this block (0 once past the last).
  const auto group_rows = [&](int g) {
    return max(0, min(kRowSumRows, end_row - (block_row + g * kRowSumRows)));
  };

  // This warp's columns [group_begin, group_end) (maybe none) and the
  // pixels [group_first, group_last_end) their taps read.
  const int group_begin = block_begin + warp * kRowSumColumns;
  const int group_end = min(group_begin + kRowSumColumns, block_end);
  AntialiasSpan<kMethod> spans[kRowSumColumns];
#pragma unroll
  for (int g = 0; g < kRowSumColumns; ++g) {
    spans[g] = antialias_span<kMethod>(min(group_begin + g, block_end - 1), axis_x);
  }
  const int group_first = spans[0].first;
  const int group_pixels =
      group_begin < group_end ? spans[kRowSumColumns - 1].end - group_first : 0;
  const int staged_first = antialias_span<kMethod>(block_begin, axis_x).first;
  const int staged_end = antialias_span<kMethod>(block_end - 1, axis_x).end;
  const bool fits = __syncthreads_and(staged_end - staged_first <= capacity.staged_columns &&
                                      group_pixels <= capacity.table_pixels);

  const RowSumsSharedLayout layout = row_sums_shared_layout(capacity);
  char *base = reinterpret_cast<char *>(shared);
  float2 *table = reinterpret_cast<float2 *>(base + layout.tables) + warp * capacity.table_pixels;
  float *totals = reinterpret_cast<float *>(base + layout.totals) + warp * kRowSumColumns;
  float *staged = reinterpret_cast<float *>(base + layout.staged);
  const int pitch = layout.staged_pitch;
  const size_t staged_plane = static_cast<size_t>(kRowSumRows) * pitch;
  // Where this lane's row of row group g starts in the row sums' planes.
  const auto sums_row = [&](int g) {
    return static_cast<size_t>(block_row + g * kRowSumRows + lane - first_row) * sums.pitch;
  };

  if (!fits) {
    // Straight from the source, as the per-pixel sampler does.
    for (int column = group_begin; column < group_end; ++column) {
      const AntialiasSpan<kMethod> span = antialias_span<kMethod>(column, axis_x);
      const float total = antialias_total(span);
      if (blockIdx.y == 0 && lane == 0) sums.totals_x()[column - sums.column_begin] = total;
      for (int g = 0; g < capacity.row_groups && lane < group_rows(g); ++g) {
        const Rgba value = antialias_row_handoff_of_total(
            total, axes.uint8_intermediate)(row_sum(src, span, block_row + g * kRowSumRows + lane));
        const float channels[kRowSumChannels] = {value.x, value.y, value.z};
        for (int c = 0; c < kRowSumChannels; ++c) {
          sums.plane(c)[sums_row(g) + (column - sums.column_begin)] = channels[c];
        }
      }
    }
    return;
  }

  // The weight table of this warp's columns.
  for (int j = lane; j < group_pixels; j += kRowSumRows) {
    const int pixel = group_first + j;
    float weights[kRowSumColumns];
#pragma unroll
    for (int g = 0; g < kRowSumColumns; ++g) {
      const bool tap =
          group_begin + g < group_end && pixel >= spans[g].first && pixel < spans[g].end;
      weights[g] = tap ? spans[g].weight_of(pixel) : 0.0f;
    }
    table[j] = make_float2(weights[0], weights[1]);
  }
  __syncwarp();
  // Each column's total, where a uint8 hand-off or the first block row
  // needs it: its tabled weights added in antialias_total()'s order (the
  // same values, so the same bits), one lane per column.
  const bool totals_needed = axes.uint8_intermediate || blockIdx.y == 0;
  if (totals_needed && lane < kRowSumColumns && group_begin + lane < group_end) {
    const AntialiasSpan<kMethod> span = antialias_span<kMethod>(group_begin + lane, axis_x);
    const float *weights = reinterpret_cast<const float *>(table) + lane;
    float total = 0.0f;
    for (int j = span.first - group_first; j < span.end - group_first; ++j) {
      total = __fadd_rn(total, weights[j * kRowSumColumns]);
    }
    totals[lane] = total;
    if (blockIdx.y == 0) sums.totals_x()[group_begin + lane - sums.column_begin] = total;
  }

  // From an even column, for the 4:2:0 readers' pairs.
  using Unit = StagingUnit<Source>;
  const int staged_origin = staged_first & ~1;
  const auto footprint = [&](int g) {
    return StagingFootprint{staged_origin / Unit::kPixels,
                            (staged_end - staged_origin + Unit::kPixels - 1) / Unit::kPixels,
                            block_row + g * kRowSumRows, group_rows(g)};
  };
  const StagedPlanes planes{staged, pitch, staged_plane};
  stage_footprint(src, footprint(0), false, planes);
  for (int g = 0; g < capacity.row_groups && group_rows(g) > 0; ++g) {
    __syncthreads();  // row group g staged
    const bool next = g + 1 < capacity.row_groups && group_rows(g + 1) > 0;
    FetchedBatch<Source> ahead;
    if (next) fetch_batch(src, footprint(g + 1), first_batch_row(), first_batch_unit(), ahead);
    if (lane < group_rows(g) && group_begin < group_end) {
      add_row_sums(sums, totals, axes.uint8_intermediate, table, group_pixels,
                   staged + static_cast<size_t>(lane) * pitch + (group_first - staged_origin),
                   staged_plane, sums_row(g) + (group_begin - sums.column_begin),
                   group_end - group_begin);
    }
    __syncthreads();  // row group g read
    if (next) {
      store_batch(src, footprint(g + 1), first_batch_row(), first_batch_unit(), ahead, planes);
      stage_footprint(src, footprint(g + 1), true, planes);
    }
  }
}

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
// thread of the block calls it. Alpha is not carried (0). `taps`: the
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
      totals[local_y] = antialias_total(span_y);
    }
  }
  __syncthreads();
  const bool inside = row_inside && x < width && rect_x >= 0 && rect_x < mapping.rect.width;
  if (!inside) return mapping.pad;

  const int first_row = row_sums_first_row<kMethod>(axes, sums);
  const int column = rect_x - sums.column_begin;
  const float *red = sums.plane(0) + column;
  const float *green = sums.plane(1) + column;
  const float *blue = sums.plane(2) + column;
  const auto row_value = [&](int row) {
    const size_t at = static_cast<size_t>(row - first_row) * sums.pitch;
    return make_float4(__ldg(red + at), __ldg(green + at), __ldg(blue + at), 0.0f);
  };
  const Rgba zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  const Rgba sum =
      tabled ? add_column_taps(zero, TabledTaps{firsts[local_y], counts[local_y], weights, 1}, 0,
                               counts[local_y], row_value)
             : add_column_taps(zero, span_y, 0, span_y.count(), row_value);
  return antialias_result_of_totals(sum, __ldg(sums.totals_x() + column), totals[local_y],
                                    axes.uint8_intermediate);
}

}  // namespace cudaprep::device
