// The antialiased samplers, separable through shared memory (namespace
// cudaprep::device): the block's threads cover a tile of destination
// pixels, one each; the horizontal pass runs once per (source row, output
// column) of the tile into shared memory, the vertical pass once per output
// pixel from there. The per-pixel sampler of antialias_ops.cuh computes every
// output pixel's row sums again for each of its rows (35 x 35 taps for a
// 4K -> 256 antialiased bicubic); here a row sum is computed once and read
// by every output row of the tile that uses it.
//
// Bit for bit the per-pixel result: a row sum depends only on the output
// column and the source row, both passes are row_sum() and column_sum() of
// antialias_ops.cuh (with the same AntialiasRowHandoff between them: kept as
// summed, or rounded to 8 bits), so each output pixel adds the same
// products in the same order; only where the values come from changes. YUV sources are also
// converted once per source pixel of the tile's footprint (staged into
// shared memory) when it fits, instead of once per tap.
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

// What the launch reserved per block, in shared memory: row sums for up to
// `rows` source rows of the tile's columns and, when `columns` > 0, the
// converted source footprint (rows x columns pixels) of a staged reader.
// A block whose footprint is larger falls back to the per-pixel sampler
// (same bits, slower), so the capacity is a matter of speed only.
struct TileCapacity {
  int rows = 0;
  int columns = 0;
};

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

// A source's converted pixels in shared memory: rows x columns from
// (first_column, first_row), read with the source's own coordinates.
struct StagedSource {
  const Rgba *pixels;
  int first_column, first_row;
  int columns;

  __device__ __forceinline__ Rgba load(int x, int y) const {
    return pixels[(y - first_row) * columns + (x - first_column)];
  }
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

// Whether a block with `footprint` runs tiled (else per pixel) and stages
// its source pixels.
__device__ __forceinline__ bool fits_tile(const TileFootprint &footprint,
                                          const TileCapacity &capacity) {
  return footprint.rows <= capacity.rows;
}
template <class Source>
__device__ __forceinline__ bool stages(const TileFootprint &footprint,
                                       const TileCapacity &capacity) {
  return converts_on_load<Source>::value && footprint.columns <= capacity.columns;
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
  if (!fits_tile(footprint, capacity)) {
    return inside ? resample<kMethod>(src, rect_x, rect_y, axes) : mapping.pad;
  }
  const int first_row = footprint.first_row;
  const int rows = footprint.rows;
  Rgba *row_sums = shared;  // rows x tile.width
  const auto horizontal_pass = [&](const auto &reader) {
    if (!column_inside) return;
    const auto taps_x = Taps::x(rect_x, axes);
    const AntialiasRowHandoff handoff = antialias_row_handoff(taps_x, axes.uint8_intermediate);
    for (int r = tile.local_y; r < rows; r += tile.height) {
      row_sums[r * tile.width + tile.local_x] = handoff(row_sum(reader, taps_x, first_row + r));
    }
  };
  if (stages<Source>(footprint, capacity)) {
    Rgba *pixels = shared + capacity.rows * tile.width;
    const int columns = footprint.columns;
    for (int r = tile.local_y; r < rows; r += tile.height) {
      for (int c = tile.local_x; c < columns; c += tile.width) {
        pixels[r * columns + c] = src.load(footprint.first_column + c, first_row + r);
      }
    }
    __syncthreads();
    horizontal_pass(StagedSource{pixels, footprint.first_column, first_row, columns});
  } else {
    horizontal_pass(src);
  }
  __syncthreads();
  if (!inside) return mapping.pad;
  const auto taps_y = Taps::y(rect_y, axes);
  const Rgba sum = column_sum(
      taps_y, [&](int row) { return row_sums[(row - first_row) * tile.width + tile.local_x]; });
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
