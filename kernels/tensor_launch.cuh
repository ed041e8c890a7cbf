// Launch shape of the per-pixel kernels of normalize and tensorize: one
// thread per pixel, a warp along a row so loads and stores coalesce.
#pragma once

#include <cuda_runtime_api.h>

namespace cudaprep {

struct LaunchShape {
  dim3 grid;
  dim3 block;
};

// Kernels loop over rows by gridDim.y * blockDim.y, so any height fits the
// grid's 65535 limit in y.
inline LaunchShape launch_shape_2d(int width, int height) {
  constexpr unsigned kBlockWidth = 32, kBlockHeight = 8, kMaxGridY = 65535;
  const unsigned grid_x = (static_cast<unsigned>(width) + kBlockWidth - 1) / kBlockWidth;
  unsigned grid_y = (static_cast<unsigned>(height) + kBlockHeight - 1) / kBlockHeight;
  if (grid_y > kMaxGridY) grid_y = kMaxGridY;
  return {dim3(grid_x, grid_y), dim3(kBlockWidth, kBlockHeight)};
}

}  // namespace cudaprep
