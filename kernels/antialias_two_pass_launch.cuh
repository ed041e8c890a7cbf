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

// What the chosen path weighs of the frame's reader: whether pass 1 reads
// it with 16-byte loads (device::row_walk_vector_loads()), without which
// it walks pixel by pixel and is not chosen, and whether it converts each
// pixel it loads (YUV: device::converts_on_load), which the single pass
// does again for every tap.
struct TwoPassReader {
  bool vector_loads;
  bool converts_on_load;
};

template <class Source>
TwoPassReader two_pass_reader(const Source &src) {
  return {device::row_walk_vector_loads(src), device::converts_on_load<Source>::value};
}

// The fewest horizontal taps per output column (tile_footprint_bound() of
// one column) at which the chosen path is the two passes: bicubic from any
// reader, and bilinear from readers that convert each pixel (YUV), from 16;
// bilinear from those that do not (RGB), from 32. Measured on the W5 rows
// -> 455x256 (bench/RESULTS.md, eighteenth and nineteenth sessions): from
// 4K (19 taps bilinear, 36 bicubic) YUV and RGBA bicubic run faster in two
// passes, RGBA bilinear in one; from 1080p (11 and 19 taps) bicubic in two,
// bilinear in one. RGBA bicubic on the W6 rows (twentieth session, an
// H100): two passes faster from 16 taps (4K -> 1138x640: GPU only 89.0 ->
// 77.7 us).
constexpr int kTwoPassTapsAtLeast = 16;
constexpr int kTwoPassTapsAtLeastRgbBilinear = 32;

// What a device offers pass 1: its SMs, which the segments fill.
struct RowSumsDevice {
  int sms;
};

// The current device's RowSumsDevice.
inline cudaError_t row_sums_device(RowSumsDevice *device_limits) {
  int device = 0, sms = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (err == cudaSuccess) device_limits->sms = sms;
  return err;
}

// Output columns per pass-1 block (a segment): the widest that still
// gives every SM kWalkWarpsPerSmAtLeast warps, down to the narrowest. A
// segment's blocks read its first column's taps again where the segment
// before ended (about 26 pixels of a 4K -> 455 bicubic row), so wider is
// better where the frame has rows enough to fill the device.
constexpr int kWalkSegmentColumnsMost = 64;
constexpr int kWalkSegmentColumnsLeast = 16;
constexpr int kWalkWarpsPerSmAtLeast = 12;

// The segment width for `columns` output columns over `rows` source rows
// on `sms` SMs.
inline int walk_segment_columns(int columns, int rows, int sms) {
  const long long row_groups = (rows + device::kWalkRows - 1) / device::kWalkRows;
  int segment = kWalkSegmentColumnsMost;
  while (segment > kWalkSegmentColumnsLeast &&
         row_groups * ((columns + segment - 1) / segment) <
             static_cast<long long>(kWalkWarpsPerSmAtLeast) * sms) {
    segment /= 2;
  }
  return segment;
}

// Whether `path` may take a frame of `axes` from `reader` in two passes:
// an antialiased sampler, and on the chosen path a reader with 16-byte
// loads and enough horizontal taps. two_pass_plan() decides the rest (the
// fit); a caller asks the device for its limits only where this holds.
inline bool two_passes_considered(const device::ResampleAxes &axes, const TwoPassReader &reader,
                                  AntialiasPath path) {
  if (!axes.antialias || path == AntialiasPath::kSinglePass) return false;
  if (path == AntialiasPath::kTwoPass) return true;
  // The filter's support in its own units: 2 bicubic, 1 bilinear.
  const bool bicubic = axes.antialias_x.support * axes.antialias_x.inverse_filter_scale > 1.5f;
  const int taps_at_least =
      reader.converts_on_load || bicubic ? kTwoPassTapsAtLeast : kTwoPassTapsAtLeastRgbBilinear;
  return reader.vector_loads && tile_footprint_bound(axes.antialias_x, 1) >= taps_at_least;
}

// A frame's two passes, or runs == false: the single-pass kernel.
struct TwoPassPlan {
  bool runs = false;
  device::RowSums sums = {};  // all but data
  device::RowWalkCapacity capacity = {};
  size_t row_sums_shared_bytes = 0;
  LaunchShape row_sums_launch = {};
  device::BandCapacity band = {};
  size_t band_shared_bytes = 0;
  LaunchShape output_launch = {};
};

// The plan for `mapping` into a width x height destination from `reader`
// under `path` on a device that offers `device_limits` (row_sums_device());
// both passes' blocks within the default shared memory. No CUDA call: the
// device's pools are checked at launch.
inline TwoPassPlan two_pass_plan(const device::ResizeMapping &mapping, int width, int height,
                                 const TwoPassReader &reader, AntialiasPath path,
                                 const RowSumsDevice &device_limits) {
  TwoPassPlan plan;
  const device::ResampleAxes &axes = mapping.axes;
  if (!two_passes_considered(axes, reader, path)) return plan;
  // The rectangle's columns and rows some destination pixel lies in.
  const PixelRect &rect = mapping.rect;
  const int column_begin = std::max(0, -rect.x);
  const int column_end =
      static_cast<int>(std::min<long long>(rect.width, static_cast<long long>(width) - rect.x));
  const int row_begin = std::max(0, -rect.y);
  const int row_end =
      static_cast<int>(std::min<long long>(rect.height, static_cast<long long>(height) - rect.y));
  if (column_begin >= column_end || row_begin >= row_end) return plan;

  // Pass 2 stages a band's row sums where they fit the default shared
  // memory; elsewhere its blocks read them from memory.
  plan.band = {tile_footprint_bound(axes.antialias_y, device::kBandRows)};
  if (device::band_layout(plan.band).bytes > kTileSharedBytes) plan.band = {0};
  plan.band_shared_bytes = device::band_layout(plan.band).bytes;

  plan.sums.column_begin = column_begin;
  plan.sums.columns = column_end - column_begin;
  plan.sums.pitch = (plan.sums.columns + 31) / 32 * 32;
  plan.sums.rect_row_begin = row_begin;
  plan.sums.rect_row_end = row_end;
  plan.sums.rows =
      std::min(tile_footprint_bound(axes.antialias_y, row_end - row_begin), axes.src_height);
  const int segment = walk_segment_columns(plan.sums.columns, plan.sums.rows, device_limits.sms);
  // The segment's taps widened to whole chunks at both ends.
  plan.capacity = {segment,
                   tile_footprint_bound(axes.antialias_x, segment) + 2 * device::kWalkChunk};
  plan.row_sums_shared_bytes = device::row_walk_shared_layout(plan.capacity).bytes;
  if (plan.row_sums_shared_bytes > kTileSharedBytes) return plan;
  const int row_groups = (plan.sums.rows + device::kWalkRows - 1) / device::kWalkRows;
  plan.row_sums_launch = {dim3((plan.sums.columns + segment - 1) / segment,
                               (row_groups + device::kWalkWarps - 1) / device::kWalkWarps),
                          dim3(device::kWalkRows, device::kWalkWarps)};
  plan.output_launch = {dim3((width + device::kBandColumns - 1) / device::kBandColumns,
                             (height + device::kBandRows - 1) / device::kBandRows),
                        dim3(32, device::kBandWarps)};
  plan.runs = true;
  return plan;
}

}  // namespace cudaprep
