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

// The most groups of rows a pass-1 block sums in turn.
constexpr int kRowSumMostRowGroups = 8;

// What a device offers pass 1: the dynamic shared memory a block may opt
// into (which runtime::launch_kernel() does), an SM's shared memory and
// the SMs.
struct RowSumsDevice {
  size_t block_shared_limit;
  size_t sm_shared;
  int sms;
};

// The current device's RowSumsDevice.
inline cudaError_t row_sums_device(RowSumsDevice *device_limits) {
  int device = 0, block_limit = 0, sm_shared = 0, sms = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) {
    err = cudaDeviceGetAttribute(&block_limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  }
  if (err == cudaSuccess) {
    err = cudaDeviceGetAttribute(&sm_shared, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  }
  if (err == cudaSuccess) {
    err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  }
  if (err == cudaSuccess) {
    *device_limits = {static_cast<size_t>(block_limit), static_cast<size_t>(sm_shared), sms};
  }
  return err;
}

// The row groups per pass-1 block for `column_blocks` x `row_groups` groups
// in all, `blocks_per_sm` blocks running on each of `sms` SMs at once: the
// fewest rounds of blocks times a block's time, a block taking one group's
// time per group and one more for what its groups do not share (the
// weight tables, the first group's loads, which nothing hides). 4K -> 455
// bicubic on 132 SMs: eight groups, 261 blocks for 264 places, one round.
inline int row_groups_per_block(int column_blocks, int row_groups, int blocks_per_sm, int sms) {
  const long long places = std::max(1LL, static_cast<long long>(blocks_per_sm) * sms);
  int best = 1;
  long long best_cost = 0;
  for (int per_block = 1; per_block <= kRowSumMostRowGroups; ++per_block) {
    const long long blocks =
        static_cast<long long>(column_blocks) * ((row_groups + per_block - 1) / per_block);
    const long long cost = (blocks + places - 1) / places * (per_block + 1);
    if (per_block == 1 || cost < best_cost) {
      best = per_block;
      best_cost = cost;
    }
  }
  return best;
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

// The plan for `mapping` into a width x height destination under `path`
// on a device that offers `device_limits` (row_sums_device()): a pass-1
// block takes up to its block_shared_limit (kTileSharedBytes at least). No
// CUDA call: the device's pools are checked at launch.
inline TwoPassPlan two_pass_plan(const device::ResizeMapping &mapping, int width, int height,
                                 AntialiasPath path, const RowSumsDevice &device_limits) {
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

  // As many column groups per block (up to kRowSumMostWarps) as the
  // staged footprint leaves room for: the more warps share it, the fewer
  // of its columns neighbouring blocks stage again.
  const int table_pixels = tile_footprint_bound(axes.antialias_x, device::kRowSumColumns);
  for (int warps = device::kRowSumMostWarps; warps >= 1 && plan.capacity.warps == 0; --warps) {
    const int block_columns = warps * device::kRowSumColumns;
    const device::RowSumsCapacity capacity{
        warps, tile_footprint_bound(axes.antialias_x, block_columns), table_pixels, 1};
    const size_t bytes = device::row_sums_shared_layout(capacity).bytes;
    if (bytes <= std::max(device_limits.block_shared_limit, kTileSharedBytes)) {
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
  // Blocks per SM: registers (at most 128 a thread, the kernel's launch
  // bounds), threads and shared memory (1 KB more a block for the system).
  const int block_threads = plan.capacity.warps * device::kRowSumRows;
  const int blocks_per_sm =
      std::min({65536 / (128 * block_threads), 2048 / block_threads,
                static_cast<int>(device_limits.sm_shared / (plan.row_sums_shared_bytes + 1024))});
  plan.capacity.row_groups =
      row_groups_per_block(column_blocks, row_groups, blocks_per_sm, device_limits.sms);
  plan.row_sums_launch = {
      dim3(column_blocks, (row_groups + plan.capacity.row_groups - 1) / plan.capacity.row_groups),
      dim3(device::kRowSumRows, plan.capacity.warps)};
  plan.output_launch = launch_shape_2d(width, height, 1);
  plan.runs = true;
  return plan;
}

}  // namespace cudaprep
