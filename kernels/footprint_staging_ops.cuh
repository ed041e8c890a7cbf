// Staging a block of source pixels into shared memory for pass 1 of the
// two-pass antialiased shrink (antialias_two_pass_ops.cuh), namespace
// cudaprep::device: each pixel loaded and converted once, the same bits as
// the reader's load() (source_ops.cuh).
//
// A warp takes a few rows at a time and its lanes neighbouring pixels of
// them (neighbouring words: at most two-way bank conflicts), each thread
// several pixels per row, so that one row's address is computed once for
// them and all their loads go out before the first conversion. The 4:2:0
// readers stage pixel pairs: one chroma sample loaded and scaled for both
// pixels it covers (chroma_at(), luma_at(): load()'s values). Loads past the
// block's last row or column read the last one again and are not stored,
// so that no branch separates them.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "color_ops.cuh"
#include "source_ops.cuh"

namespace cudaprep::device {

// Rows a warp stages at a time, and pixels (or 4:2:0 pairs) per row and
// thread: every load of a batch is in flight before its first conversion.
constexpr int kStageRows = 4;
constexpr int kStageSlots = 2;

// Where staged pixel (x, y) goes: the block's staged planes (R, G, B, each
// `plane` floats apart) at row y - first_row, column x - origin.
struct StagedPlanes {
  float *data;
  int pitch;
  size_t plane;

  __device__ __forceinline__ void store(int row, int column, const Rgba &pixel) const {
    float *at = data + row * pitch + column;
    at[0] = pixel.x;
    at[plane] = pixel.y;
    at[2 * plane] = pixel.z;
  }
};

// Source rows [first_row, first_row + rows) x columns [origin, origin +
// columns) into `staged` (origin even: see stage_420_footprint()). Every
// thread of the block calls it; blockDim.x is 32.
template <class Source>
__device__ __forceinline__ void stage_footprint(const Source &src, int origin, int columns,
                                                int first_row, int rows,
                                                const StagedPlanes &staged) {
  const int lane = static_cast<int>(threadIdx.x);
  const int warps = static_cast<int>(blockDim.y);
  for (int r0 = static_cast<int>(threadIdx.y) * kStageRows; r0 < rows; r0 += warps * kStageRows) {
    for (int x0 = lane; x0 < columns; x0 += 32 * kStageSlots) {
      Rgba pixels[kStageRows][kStageSlots];
#pragma unroll
      for (int i = 0; i < kStageRows; ++i) {
        const int y = first_row + min(r0 + i, rows - 1);
#pragma unroll
        for (int k = 0; k < kStageSlots; ++k) {
          pixels[i][k] = src.load(origin + min(x0 + 32 * k, columns - 1), y);
        }
      }
#pragma unroll
      for (int i = 0; i < kStageRows; ++i) {
#pragma unroll
        for (int k = 0; k < kStageSlots; ++k) {
          if (r0 + i < rows && x0 + 32 * k < columns)
            staged.store(r0 + i, x0 + 32 * k, pixels[i][k]);
        }
      }
    }
  }
}

// The 4:2:0 readers, by pairs of columns (2p, 2p + 1): `origin` even, and
// `columns` rounded up to a pair, so the staged planes hold one column past
// them (its luma clamped to the frame's last column where that is the
// frame's edge; it is never read).
template <class Source420>
__device__ __forceinline__ void stage_420_footprint(const Source420 &src, int origin, int columns,
                                                    int first_row, int rows,
                                                    const StagedPlanes &staged) {
  const int lane = static_cast<int>(threadIdx.x);
  const int warps = static_cast<int>(blockDim.y);
  const int first_pair = origin / 2;
  const int pairs = (columns + 1) / 2;
  const int last_column = src.width - 1;
  for (int r0 = static_cast<int>(threadIdx.y) * kStageRows; r0 < rows; r0 += warps * kStageRows) {
    for (int p0 = lane; p0 < pairs; p0 += 32 * kStageSlots) {
      ScaledChroma chroma[kStageRows][kStageSlots];
      float luma[kStageRows][kStageSlots][2];
#pragma unroll
      for (int i = 0; i < kStageRows; ++i) {
        const int y = first_row + min(r0 + i, rows - 1);
#pragma unroll
        for (int k = 0; k < kStageSlots; ++k) {
          const int pair = first_pair + min(p0 + 32 * k, pairs - 1);
          chroma[i][k] = src.chroma_at(pair, y);
          luma[i][k][0] = src.luma_at(2 * pair, y);
          luma[i][k][1] = src.luma_at(min(2 * pair + 1, last_column), y);
        }
      }
#pragma unroll
      for (int i = 0; i < kStageRows; ++i) {
#pragma unroll
        for (int k = 0; k < kStageSlots; ++k) {
          if (r0 + i >= rows || p0 + 32 * k >= pairs) continue;
          const int column = 2 * (p0 + 32 * k);
          staged.store(r0 + i, column, scaled_yuv_to_rgb(luma[i][k][0], chroma[i][k], src.matrix));
          staged.store(r0 + i, column + 1,
                       scaled_yuv_to_rgb(luma[i][k][1], chroma[i][k], src.matrix));
        }
      }
    }
  }
}

__device__ __forceinline__ void stage_footprint(const Nv12Source &src, int origin, int columns,
                                                int first_row, int rows,
                                                const StagedPlanes &staged) {
  stage_420_footprint(src, origin, columns, first_row, rows, staged);
}
__device__ __forceinline__ void stage_footprint(const I420Source &src, int origin, int columns,
                                                int first_row, int rows,
                                                const StagedPlanes &staged) {
  stage_420_footprint(src, origin, columns, first_row, rows, staged);
}
__device__ __forceinline__ void stage_footprint(const P01xSource &src, int origin, int columns,
                                                int first_row, int rows,
                                                const StagedPlanes &staged) {
  stage_420_footprint(src, origin, columns, first_row, rows, staged);
}

}  // namespace cudaprep::device
