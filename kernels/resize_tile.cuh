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
// The plain (not antialiased) bilinear, bicubic and area samplers of YUV
// readers are staged the same way when the launch reserves room: the
// block's footprint converted once per source pixel, then each output pixel
// sampled from shared memory with the per-pixel sampler itself (so again
// the same bits). Plain bicubic with row sums (tiled) ran slower at the 2x
// shrink of W2 in a measured version (bench/RESULTS.md), so only the
// conversion is shared; RGB and gray readers, and nearest, stay per pixel.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "antialias_ops.cuh"
#include "color_ops.cuh"
#include "orientation_ops.cuh"
#include "resample_ops.cuh"
#include "source_ops.cuh"

namespace cudaprep::device {

// What the launch reserved per block, in shared memory: when `row_sums`,
// the antialiased row sums for up to `rows` source rows of the tile's
// columns; when `columns` > 0, the converted source footprint (rows x
// columns pixels) of a staged reader. A block whose footprint is larger
// falls back to the per-pixel sampler (same bits, slower), so the capacity
// is a matter of speed only.
struct TileCapacity {
  int rows = 0;
  int columns = 0;
  bool row_sums = false;
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
// (first_column, first_row), read with the source's own coordinates (width
// and height are the source's, which the samplers clamp to).
struct StagedSource {
  const Rgba *pixels;
  int first_column, first_row;
  int columns;
  int width, height;

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

// The source pixels the plain samplers read for rectangle column/row d
// along one axis, clamped as they clamp.
struct TapRange {
  int low, high;
  __device__ __forceinline__ int lowest() const { return low; }
  __device__ __forceinline__ int highest() const { return high; }
};

template <Interpolation kMethod>
__device__ __forceinline__ TapRange plain_tap_range(float position, int size) {
  const int floor_index = static_cast<int>(floorf(position));
  constexpr int kBefore = kMethod == Interpolation::kBicubic ? 1 : 0;
  constexpr int kAfter = kMethod == Interpolation::kBicubic ? 2 : 1;
  return {clamp_index(floor_index - kBefore, size), clamp_index(floor_index + kAfter, size)};
}

__device__ __forceinline__ TapRange area_tap_range(int d, int src_size, int dst_size) {
  const AreaSpan span = area_span(d, src_size, dst_size);
  return {span.first, span.last};
}

template <Interpolation kMethod>
struct PlainAxisTaps {
  __device__ __forceinline__ static TapRange x(int d, const ResampleAxes &axes) {
    if constexpr (kMethod == Interpolation::kArea) {
      return area_tap_range(d, axes.src_width, axes.rect_width);
    } else {
      return plain_tap_range<kMethod>(sample_position_x(d, axes), axes.src_width);
    }
  }
  __device__ __forceinline__ static TapRange y(int d, const ResampleAxes &axes) {
    if constexpr (kMethod == Interpolation::kArea) {
      return area_tap_range(d, axes.src_height, axes.rect_height);
    } else {
      return plain_tap_range<kMethod>(sample_position_y(d, axes), axes.src_height);
    }
  }
};

// Whether a kernel of kMethod reading Source may stage a plain sampler's
// footprint: then its whole block samples together, also the threads whose
// pixel lies outside the destination.
template <Interpolation kMethod, class Source>
__device__ __host__ constexpr bool stages_plain() {
  return converts_on_load<Source>::value && kMethod != Interpolation::kNearest;
}

// Whether a block with `footprint` stages it for a plain sampler.
__device__ __forceinline__ bool fits_staged(const TileFootprint &footprint,
                                            const TileCapacity &capacity) {
  return footprint.rows <= capacity.rows && footprint.columns <= capacity.columns;
}

// Converts the footprint's source pixels into `pixels` (rows x columns),
// the block's threads together.
template <class Source>
__device__ __forceinline__ StagedSource stage_footprint(const Source &src,
                                                        const TileFootprint &footprint,
                                                        const BlockTile &tile, Rgba *pixels) {
  const int columns = footprint.columns;
  for (int r = tile.local_y; r < footprint.rows; r += tile.height) {
    for (int c = tile.local_x; c < columns; c += tile.width) {
      pixels[r * columns + c] = src.load(footprint.first_column + c, footprint.first_row + r);
    }
  }
  __syncthreads();
  return {pixels, footprint.first_column, footprint.first_row, columns, src.width, src.height};
}

// The plain sampler of this thread's pixel from the staged footprint when
// it fits, else per pixel. Every thread of the block calls it.
template <Interpolation kMethod, class Source>
__device__ __forceinline__ Rgba staged_plain_value(const Source &src, const ResizeMapping &mapping,
                                                   const BlockTile &tile,
                                                   const TileCapacity &capacity, Rgba *shared) {
  const int x = tile.x + tile.local_x;
  const int y = tile.y + tile.local_y;
  const TileFootprint footprint = tile_footprint<PlainAxisTaps<kMethod>>(mapping, tile);
  if (footprint.empty() || !fits_staged(footprint, capacity)) {
    return resized_value<kMethod>(src, x, y, mapping);
  }
  const StagedSource staged = stage_footprint(src, footprint, tile, shared);
  return resized_value<kMethod>(staged, x, y, mapping);
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
    horizontal_pass(stage_footprint(src, footprint, tile, shared + capacity.rows * tile.width));
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

// Whether every thread of a kernel's block must call block_resized_value()
// (it may synchronise the block), also those whose pixel lies outside the
// destination.
template <Interpolation kMethod, bool kAntialiased, class Source>
__device__ __host__ constexpr bool samples_as_block() {
  return kAntialiased || stages_plain<kMethod, Source>();
}

// resized_value() of this thread's destination pixel, computed by the whole
// block: tiled when antialiased and the launch reserved shared memory,
// staged when a plain sampler of a YUV reader has room, per pixel
// otherwise. kAntialiased: the kernel may meet antialiased mappings (a
// compile-time choice, so that kernels that never do carry none of the
// tiled code and its registers). Every thread of the block calls it when
// samples_as_block() (their value is unused outside the destination).
template <Interpolation kMethod, bool kAntialiased, class Source>
__device__ __forceinline__ Rgba block_resized_value(const Source &src, const ResizeMapping &mapping,
                                                    const BlockTile &tile,
                                                    const TileCapacity &capacity, Rgba *shared) {
  if constexpr (kAntialiased &&
                (kMethod == Interpolation::kBicubic || kMethod == Interpolation::kBilinear)) {
    if (capacity.row_sums && mapping.axes.antialias) {
      return tiled_antialiased_value<kMethod>(src, mapping, tile, capacity, shared);
    }
  }
  if constexpr (stages_plain<kMethod, Source>()) {
    if (capacity.columns > 0 && !mapping.axes.antialias) {
      return staged_plain_value<kMethod>(src, mapping, tile, capacity, shared);
    }
  }
  return resized_value<kMethod>(src, tile.x + tile.local_x, tile.y + tile.local_y, mapping);
}

}  // namespace cudaprep::device
