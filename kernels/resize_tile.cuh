// The antialiased samplers, separable through shared memory (namespace
// cudaprep::device): the block's threads cover a tile of destination
// pixels, one each, and walk the source rows of the tile's footprint a
// chunk at a time (all of them in one chunk where they fit). Per chunk the
// block computes each row sum (one source row, one output column) once,
// with the column's weights tabled once per block, into shared memory; then
// each output pixel adds the chunk's row sums its vertical taps cover. YUV
// readers whose columns have many taps (tile_capacity()) first stage the
// chunk's footprint, each pixel loaded and converted once with coalesced
// loads, instead of once per tap. The per-pixel sampler of
// antialias_ops.cuh computes every output pixel's row sums again for each
// of its rows (35 x 35 taps for a 4K -> 256 antialiased bicubic), each tap
// a strided load, a conversion and a weight.
//
// Bit for bit the per-pixel result: a row sum depends only on the output
// column and the source row and is row_sum() of antialias_ops.cuh over the
// same taps with the same weights (the table holds weight(k) as computed
// there), handed off the same way (kept as summed, or rounded to 8 bits);
// the vertical pass adds the same products in the same order, the chunks
// being consecutive (add_column_taps()). Only where the values come from
// changes.
//
// Plain bicubic ran tiled too in a measured version and was slower at the
// 2x shrink of W2 (bench/RESULTS.md): it stays per pixel, as do bilinear,
// nearest and area.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "antialias_ops.cuh"
#include "color_ops.cuh"
#include "orientation_ops.cuh"
#include "resample_ops.cuh"
#include "source_ops.cuh"

namespace cudaprep::device {

// What the launch reserved per block, in shared memory (tile_shared_layout()):
// row sums for a chunk of `rows` source rows, the staged footprint's
// `columns` for such a chunk (0: the horizontal pass reads the source
// itself), and `taps` weights per output column. A block whose footprint is
// wider than the staged columns, or a column with more taps, falls back to
// the per-pixel sampler (same bits, slower), so the capacity is a matter of
// speed only. Zero rows: no tiling.
struct TileCapacity {
  int rows = 0;
  int columns = 0;
  int taps = 0;
};

// Where the parts of a tile live in the block's shared memory, for a block
// `width` threads wide.
struct TileSharedLayout {
  // Row pitches in pixels, odd, so that the rows a warp reads or writes at
  // once fall in distinct banks.
  int staged_pitch, row_sums_pitch;
  size_t staged, row_sums, weights, firsts, counts, inverse_totals, bytes;  // byte offsets
};

__host__ __device__ inline TileSharedLayout tile_shared_layout(const TileCapacity &capacity,
                                                               int width) {
  TileSharedLayout layout;
  layout.staged_pitch = capacity.columns > 0 ? capacity.columns | 1 : 0;
  layout.row_sums_pitch = width | 1;
  layout.staged = 0;
  layout.row_sums = layout.staged + sizeof(Rgba) * capacity.rows * layout.staged_pitch;
  layout.weights = layout.row_sums + sizeof(Rgba) * capacity.rows * layout.row_sums_pitch;
  layout.firsts = layout.weights + sizeof(float) * capacity.taps * width;
  layout.counts = layout.firsts + sizeof(int) * width;
  layout.inverse_totals = layout.counts + sizeof(int) * width;
  layout.bytes = layout.inverse_totals + sizeof(float) * width;
  return layout;
}

// Readers that convert at every load (YUV -> RGB): worth staging once per
// source pixel of the footprint.
template <class Source>
struct converts_on_load : std::false_type {};
template <>
struct converts_on_load<Nv12Source> : std::true_type {};
template <>
struct converts_on_load<I420Source> : std::true_type {};
template <>
struct converts_on_load<Yuy2Source> : std::true_type {};
template <>
struct converts_on_load<P01xSource> : std::true_type {};
// A flipped or turned source converts as the source it reads.
template <typename Source>
struct converts_on_load<OrientedSource<Source>> : converts_on_load<Source> {};

// The destination pixels of one block and this thread's place among them.
struct BlockTile {
  int x, y;           // the tile's top-left destination pixel
  int width, height;  // the block's dimensions: one thread per pixel
  int local_x, local_y;
};

// This thread's tile: the block's pixels, one per thread.
__device__ __forceinline__ BlockTile this_block_tile() {
  return {static_cast<int>(blockIdx.x * blockDim.x),
          static_cast<int>(blockIdx.y * blockDim.y),
          static_cast<int>(blockDim.x),
          static_cast<int>(blockDim.y),
          static_cast<int>(threadIdx.x),
          static_cast<int>(threadIdx.y)};
}

// A source's pixels staged in shared memory: rows of `pitch` pixels from
// (first_column, first_row), read with the source's own coordinates.
struct StagedSource {
  const Rgba *pixels;
  int first_column, first_row;
  int pitch;

  __device__ __forceinline__ Rgba load(int x, int y) const {
    return pixels[(y - first_row) * pitch + (x - first_column)];
  }
};

// A column's horizontal taps with their weights read from the block's table
// (weight k at weights[k * stride]), as row_sum() takes taps.
struct TabledTaps {
  int first, taps;
  const float *weights;
  int stride;

  __device__ __forceinline__ int count() const { return taps; }
  __device__ __forceinline__ int index(int k) const { return first + k; }
  __device__ __forceinline__ float weight(int k) const { return weights[k * stride]; }
};

// The antialiased taps of rectangle column/row d along the x or y axis.
template <Interpolation kMethod>
struct AntialiasAxisTaps {
  __device__ __forceinline__ static AntialiasSpan<kMethod> x(int d, const ResampleAxes &axes) {
    return antialias_span<kMethod>(d, axes.antialias_x);
  }
  __device__ __forceinline__ static AntialiasSpan<kMethod> y(int d, const ResampleAxes &axes) {
    return antialias_span<kMethod>(d, axes.antialias_y);
  }
};

// The tile's pixels inside the rectangle (in rectangle coordinates, end
// exclusive) and the source pixels their taps read.
struct TileFootprint {
  int begin_x, end_x, begin_y, end_y;
  int first_row, rows;
  int first_column, columns;

  __device__ __forceinline__ bool empty() const { return begin_x >= end_x || begin_y >= end_y; }
};

// Taps move monotonically with the output pixel (forwards, or backwards
// along a mirrored axis): the footprint is spanned by the tile's first and
// last pixels' taps.
template <class Taps>
__device__ __forceinline__ TileFootprint tile_footprint(const ResizeMapping &mapping,
                                                        const BlockTile &tile) {
  TileFootprint footprint;
  footprint.begin_x = max(tile.x - mapping.rect.x, 0);
  footprint.end_x = min(tile.x + tile.width - mapping.rect.x, mapping.rect.width);
  footprint.begin_y = max(tile.y - mapping.rect.y, 0);
  footprint.end_y = min(tile.y + tile.height - mapping.rect.y, mapping.rect.height);
  if (footprint.empty()) return footprint;
  const auto top = Taps::y(footprint.begin_y, mapping.axes);
  const auto bottom = Taps::y(footprint.end_y - 1, mapping.axes);
  footprint.first_row = min(top.lowest(), bottom.lowest());
  footprint.rows = max(top.highest(), bottom.highest()) - footprint.first_row + 1;
  const auto left = Taps::x(footprint.begin_x, mapping.axes);
  const auto right = Taps::x(footprint.end_x - 1, mapping.axes);
  footprint.first_column = min(left.lowest(), right.lowest());
  footprint.columns = max(left.highest(), right.highest()) - footprint.first_column + 1;
  return footprint;
}

// Whether a block with `footprint` may run tiled (else per pixel); its
// columns' tap counts are checked as the weights are tabled.
__device__ __forceinline__ bool fits_tile(const TileFootprint &footprint,
                                          const TileCapacity &capacity) {
  return capacity.columns == 0 || footprint.columns <= capacity.columns;
}

// The tiled antialiased sampler. Every thread of the block calls it (it
// synchronises the block); returns the value of this thread's destination
// pixel, the pad outside the rectangle.
template <Interpolation kMethod, class Source>
__device__ __forceinline__ Rgba tiled_antialiased_value(const Source &src,
                                                        const ResizeMapping &mapping,
                                                        const BlockTile &tile,
                                                        const TileCapacity &capacity,
                                                        Rgba *shared) {
  using Taps = AntialiasAxisTaps<kMethod>;
  const ResampleAxes &axes = mapping.axes;
  const TileFootprint footprint = tile_footprint<Taps>(mapping, tile);
  if (footprint.empty()) return mapping.pad;
  const int rect_x = tile.x + tile.local_x - mapping.rect.x;
  const int rect_y = tile.y + tile.local_y - mapping.rect.y;
  const bool column_inside = rect_x >= footprint.begin_x && rect_x < footprint.end_x;
  const bool inside = column_inside && rect_y >= footprint.begin_y && rect_y < footprint.end_y;
  const auto per_pixel = [&] {
    return inside ? resample<kMethod>(src, rect_x, rect_y, axes) : mapping.pad;
  };
  if (!fits_tile(footprint, capacity)) return per_pixel();

  const TileSharedLayout layout = tile_shared_layout(capacity, tile.width);
  char *base = reinterpret_cast<char *>(shared);
  Rgba *staged = reinterpret_cast<Rgba *>(base + layout.staged);
  Rgba *row_sums = reinterpret_cast<Rgba *>(base + layout.row_sums);
  float *weights = reinterpret_cast<float *>(base + layout.weights);
  int *firsts = reinterpret_cast<int *>(base + layout.firsts);
  int *counts = reinterpret_cast<int *>(base + layout.counts);
  float *inverse_totals = reinterpret_cast<float *>(base + layout.inverse_totals);

  // The weight table: column local_x's taps, filled by the column's threads.
  bool too_many_taps = false;
  if (column_inside) {
    const auto taps_x = Taps::x(rect_x, axes);
    too_many_taps = taps_x.count() > capacity.taps;
    if (!too_many_taps) {
      for (int k = tile.local_y; k < taps_x.count(); k += tile.height) {
        weights[k * tile.width + tile.local_x] = taps_x.weight(k);
      }
      if (tile.local_y == 0) {
        firsts[tile.local_x] = taps_x.index(0);
        counts[tile.local_x] = taps_x.count();
        inverse_totals[tile.local_x] =
            antialias_row_handoff(taps_x, axes.uint8_intermediate).inverse_total_x;
      }
    }
  }
  if (__syncthreads_or(too_many_taps)) return per_pixel();

  const bool staging = converts_on_load<Source>::value && capacity.columns > 0;
  // This thread's row sums in each chunk: one output column, every
  // tile.height-th source row from its first. Staged, a warp's lanes run
  // down the rows, so its loads fall in distinct banks and its weight loads
  // are a broadcast per column; reading the source, they run along the
  // columns, as the source's rows lie in memory.
  const int thread_index = tile.local_y * tile.width + tile.local_x;
  const int sum_column = staging ? thread_index / tile.height : tile.local_x;
  const int sum_first_row = staging ? thread_index % tile.height : tile.local_y;
  const int sum_rect_x = tile.x + sum_column - mapping.rect.x;
  const bool sum_column_inside = sum_rect_x >= footprint.begin_x && sum_rect_x < footprint.end_x;
  const auto taps_y = Taps::y(rect_y, axes);
  Rgba sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (int chunk = 0; chunk < footprint.rows; chunk += capacity.rows) {
    const int chunk_row = footprint.first_row + chunk;
    const int chunk_rows = min(capacity.rows, footprint.rows - chunk);
    if (staging) {
      for (int r = tile.local_y; r < chunk_rows; r += tile.height) {
        for (int c = tile.local_x; c < footprint.columns; c += tile.width) {
          staged[r * layout.staged_pitch + c] = src.load(footprint.first_column + c, chunk_row + r);
        }
      }
      __syncthreads();
    }
    if (sum_column_inside) {
      const TabledTaps taps_x{firsts[sum_column], counts[sum_column], weights + sum_column,
                              tile.width};
      const AntialiasRowHandoff handoff{axes.uint8_intermediate, inverse_totals[sum_column]};
      const StagedSource reader{staged, footprint.first_column, chunk_row, layout.staged_pitch};
      for (int r = sum_first_row; r < chunk_rows; r += tile.height) {
        const Rgba row_value =
            staging ? row_sum(reader, taps_x, chunk_row + r) : row_sum(src, taps_x, chunk_row + r);
        row_sums[r * layout.row_sums_pitch + sum_column] = handoff(row_value);
      }
    }
    __syncthreads();
    if (inside) {
      const int k_begin = max(chunk_row - taps_y.index(0), 0);
      const int k_end = min(chunk_row + chunk_rows - taps_y.index(0), taps_y.count());
      sum = add_column_taps(sum, taps_y, k_begin, k_end, [&](int row) {
        return row_sums[(row - chunk_row) * layout.row_sums_pitch + tile.local_x];
      });
    }
    // The next chunk's row sums (and staged pixels) replace these.
    if (chunk + capacity.rows < footprint.rows) __syncthreads();
  }
  if (!inside) return mapping.pad;
  return antialias_result(sum, Taps::x(rect_x, axes), taps_y, axes.uint8_intermediate);
}

// resized_value() of this thread's destination pixel, computed by the whole
// block: tiled when antialiased and the launch reserved shared memory, per
// pixel otherwise. kAntialiased: the kernel may meet antialiased mappings
// (a compile-time choice, so that kernels that never do carry none of the
// tiled code and its registers). Every thread of the block calls it, also
// those whose pixel lies outside the destination (their value is unused).
template <Interpolation kMethod, bool kAntialiased, class Source>
__device__ __forceinline__ Rgba block_resized_value(const Source &src, const ResizeMapping &mapping,
                                                    const BlockTile &tile,
                                                    const TileCapacity &capacity, Rgba *shared) {
  if constexpr (kAntialiased &&
                (kMethod == Interpolation::kBicubic || kMethod == Interpolation::kBilinear)) {
    if (capacity.rows > 0 && mapping.axes.antialias) {
      return tiled_antialiased_value<kMethod>(src, mapping, tile, capacity, shared);
    }
  }
  return resized_value<kMethod>(src, tile.x + tile.local_x, tile.y + tile.local_y, mapping);
}

}  // namespace cudaprep::device
