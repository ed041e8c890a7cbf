// Launch shape of the per-pixel kernels of normalize and tensorize: each
// thread handles a run of `columns_per_thread` pixels of one row, a warp
// spans consecutive runs of a row so that loads and stores coalesce.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace cudaprep {

struct LaunchShape {
  dim3 grid;
  dim3 block;
};

// Kernels loop over rows by gridDim.y * blockDim.y, so any height fits the
// grid's 65535 limit in y.
inline LaunchShape launch_shape_2d(int width, int height, int columns_per_thread) {
  constexpr unsigned kBlockWidth = 32, kBlockHeight = 8, kMaxGridY = 65535;
  const unsigned threads_x = (static_cast<unsigned>(width) + columns_per_thread - 1) /
                             static_cast<unsigned>(columns_per_thread);
  const unsigned grid_x = (threads_x + kBlockWidth - 1) / kBlockWidth;
  unsigned grid_y = (static_cast<unsigned>(height) + kBlockHeight - 1) / kBlockHeight;
  if (grid_y > kMaxGridY) grid_y = kMaxGridY;
  return {dim3(grid_x, grid_y), dim3(kBlockWidth, kBlockHeight)};
}

// True when `address` and every multiple of `stride` added to it are
// multiples of `alignment` (a power of two).
inline bool is_aligned(const void *address, int64_t stride, size_t alignment) {
  return (reinterpret_cast<uintptr_t>(address) | static_cast<uintptr_t>(stride)) % alignment == 0;
}

}  // namespace cudaprep
