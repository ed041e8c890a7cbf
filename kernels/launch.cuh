// Host side shared by every launcher: the launch shape, and the alignment
// test that decides between wide loads and stores and narrow ones.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace cudaprep {

// 32 threads along a row: each warp reads and writes a contiguous stretch of
// one row, so that its accesses coalesce.
constexpr unsigned kBlockWidth = 32;
constexpr unsigned kBlockHeight = 8;
constexpr unsigned kMaxGridHeight = 65535;

struct LaunchShape {
  dim3 grid;
  dim3 block;
};

// Each thread handles `columns_per_thread` consecutive pixels of a row. The
// grid's height is capped at kMaxGridHeight: kernels that loop over rows by
// gridDim.y * blockDim.y cover any height; a kernel with one thread per
// pixel must refuse heights above kMaxGridHeight * kBlockHeight (as
// resize_source_error() does).
inline LaunchShape launch_shape_2d(int width, int height, int columns_per_thread) {
  const unsigned threads_x = (static_cast<unsigned>(width) + columns_per_thread - 1) /
                             static_cast<unsigned>(columns_per_thread);
  const unsigned grid_x = (threads_x + kBlockWidth - 1) / kBlockWidth;
  unsigned grid_y = (static_cast<unsigned>(height) + kBlockHeight - 1) / kBlockHeight;
  if (grid_y > kMaxGridHeight) grid_y = kMaxGridHeight;
  return {dim3(grid_x, grid_y), dim3(kBlockWidth, kBlockHeight)};
}

// True when `address` and every multiple of `stride` added to it are
// multiples of `alignment` (a power of two).
inline bool is_aligned(const void *address, int64_t stride, size_t alignment) {
  return (reinterpret_cast<uintptr_t>(address) | static_cast<uintptr_t>(stride)) % alignment == 0;
}

}  // namespace cudaprep
