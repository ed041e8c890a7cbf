// Host side of the two-pass antialiased shrink (antialias_two_pass_ops.cuh):
// whether a preprocess() frame runs it, and the shape of its intermediate
// and its launches.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>

#include "antialias_two_pass.h"
#include "antialias_two_pass_ops.cuh"
#include "launch.cuh"
#include "resize_launch.cuh"

namespace cudaprep {

// The fewest horizontal taps per output column (tile_footprint_bound() of
// one column) at which the chosen path is the two passes: where the tiled
// kernel's row sums cost the most and pass 1's staging the least per tap
// (bench/NOTES-kernels.md has the counts): bicubic shrinks of about 7.5x
// or more, bilinear of 15x or more. bench_kernels times both paths for the
// antialiased W5 rows.
constexpr int kTwoPassTapsAtLeast = 32;

// The most groups of rows a pass-1 block sums in turn, and the fewest
// warps a launch is cut into for them: the more groups, the less of a
// block's work (its weight tables, its first footprint's loads) is neither
// shared nor hidden, but the fewer blocks to spread over the SMs: 6336
// warps are three rounds of 16 warps on each of 132 SMs.
constexpr int kRowSumMostRowGroups = 8;
constexpr int kRowSumWarpsAtLeast = 6336;

// The most dynamic shared memory a block may take on the current device
// (cudaDevAttrMaxSharedMemoryPerBlockOptin): what two_pass_plan() may give
// a pass-1 block, which runtime::launch_kernel() opts the kernel into.
inline cudaError_t row_sums_shared_limit(size_t *bytes) {
  int device = 0, limit = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) {
    err = cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  }
  if (err == cudaSuccess) *bytes = static_cast<size_t>(limit);
  return err;
}

// A frame's two passes, or runs == false: the single-pass kernel.
struct TwoPassPlan {
  bool runs = false;
  device::RowSums sums = {};  // all but data
  device::RowSumsCapacity capacity = {};
  size_t row_sums_shared_bytes = 0;
  LaunchShape row_sums_launch = {};
  int taps = 0;  // vertical weights tabled per output row
  size_t column_taps_shared_bytes = 0;
  LaunchShape output_launch = {};
};

// The plan for `mapping` into a width x height destination under `path`,
// a pass-1 block taking up to `shared_limit` bytes of shared memory
// (row_sums_shared_limit(); kTileSharedBytes at least). No CUDA call: the
// device's pools are checked at launch.
inline TwoPassPlan two_pass_plan(const device::ResizeMapping &mapping, int width, int height,
                                 AntialiasPath path, size_t shared_limit) {
  TwoPassPlan plan;
  const device::ResampleAxes &axes = mapping.axes;
  if (!axes.antialias || path == AntialiasPath::kSinglePass) return plan;
  if (path == AntialiasPath::kChosen &&
      tile_footprint_bound(axes.antialias_x, 1) < kTwoPassTapsAtLeast) {
    return plan;
  }
  // The rectangle's columns and rows some destination pixel lies in.
  const PixelRect &rect = mapping.rect;
  const int column_begin = std::max(0, -rect.x);
  const int column_end =
      static_cast<int>(std::min<long long>(rect.width, static_cast<long long>(width) - rect.x));
  const int row_begin = std::max(0, -rect.y);
  const int row_end =
      static_cast<int>(std::min<long long>(rect.height, static_cast<long long>(height) - rect.y));
  if (column_begin >= column_end || row_begin >= row_end) return plan;

  // As many column groups per block (up to device::kRowSumMostWarps) as the staged
  // footprint leaves room for: the more warps share it, the fewer of its
  // columns neighbouring blocks stage again.
  const int table_pixels = tile_footprint_bound(axes.antialias_x, device::kRowSumColumns);
  for (int warps = device::kRowSumMostWarps; warps >= 1 && plan.capacity.warps == 0; --warps) {
    const int block_columns = warps * device::kRowSumColumns;
    const device::RowSumsCapacity capacity{
        warps, tile_footprint_bound(axes.antialias_x, block_columns), table_pixels, 1};
    const size_t bytes = device::row_sums_shared_layout(capacity).bytes;
    if (bytes <= std::max(shared_limit, kTileSharedBytes)) {
      plan.capacity = capacity;
      plan.row_sums_shared_bytes = bytes;
    }
  }
  plan.taps = tile_footprint_bound(axes.antialias_y, 1);
  plan.column_taps_shared_bytes =
      device::column_taps_layout(plan.taps, static_cast<int>(kBlockHeight)).bytes;
  if (plan.capacity.warps == 0 || plan.column_taps_shared_bytes > kTileSharedBytes) return plan;

  plan.sums.column_begin = column_begin;
  plan.sums.columns = column_end - column_begin;
  plan.sums.pitch = (plan.sums.columns + 31) / 32 * 32;
  plan.sums.rect_row_begin = row_begin;
  plan.sums.rect_row_end = row_end;
  plan.sums.rows =
      std::min(tile_footprint_bound(axes.antialias_y, row_end - row_begin), axes.src_height);
  const int block_columns = plan.capacity.warps * device::kRowSumColumns;
  const int column_blocks = (plan.sums.columns + block_columns - 1) / block_columns;
  const int row_groups = (plan.sums.rows + device::kRowSumRows - 1) / device::kRowSumRows;
  plan.capacity.row_groups =
      std::clamp(column_blocks * row_groups * plan.capacity.warps / kRowSumWarpsAtLeast, 1,
                 kRowSumMostRowGroups);
  plan.row_sums_launch = {
      dim3(column_blocks, (row_groups + plan.capacity.row_groups - 1) / plan.capacity.row_groups),
      dim3(device::kRowSumRows, plan.capacity.warps)};
  plan.output_launch = launch_shape_2d(width, height, 1);
  plan.runs = true;
  return plan;
}

}  // namespace cudaprep
