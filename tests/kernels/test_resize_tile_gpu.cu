// The tiled antialiased samplers (kernels/resize_tile.cuh: antialiased
// bilinear and bicubic through shared memory) against the per-pixel sampler
// of antialias_ops.cuh that they replace: one kernel computes both for every
// destination pixel, and the float bits must be equal, not close.
// test_resize_gpu and test_preprocess_gpu check the samplers' values against
// the CPU references; this suite proves the tiling changed no bit.
// Cases: every reader (32-bit and byte interleaved, gray, NV12, I420, YUY2,
// P010) x antialiased bilinear / bicubic x shrinks, enlargements, mixed
// axes, crops and letterbox rectangles, each with either intermediate
// between the passes (float, or rounded to 8 bits as PIL keeps it), each with the launch's own
// capacity, staged (YUV readers' pixels converted once into shared memory), unstaged, in chunks
// of one source row, with one staged column
// (blocks whose footprint is wider fall back to the per-pixel sampler) and with room for one tap
// per column (blocks find a column with more as they table the weights, and fall back). The kernel
// also counts the blocks that ran tiled and staged, so a case cannot pass by never taking the
// path it is meant to.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "common/cuda_test.h"
#include "common/kernel_helpers.h"
#include "resize_launch.cuh"
#include "resize_tile.cuh"

namespace cudaprep {
namespace {

using device::Rgba;
using device::TileCapacity;
using test::DeviceAllocations;
using test::make_random_frame;

// Blocks with pixels in the rectangle, those that ran tiled, those staged.
struct BlockCounts {
  int blocks, tiled, staged;
};

// Whether the block runs tiled, decided from the definition: room for row
// sums, a footprint no wider than the staged columns (if any) and no column
// with more taps than the table holds; staged: a converting reader given
// columns.
template <Interpolation kMethod, class Source>
__device__ void count_block(const device::ResizeMapping &mapping, const device::BlockTile &tile,
                            const TileCapacity &capacity, BlockCounts *counts) {
  if (tile.local_x != 0 || tile.local_y != 0) return;
  using Taps = device::AntialiasAxisTaps<kMethod>;
  const device::TileFootprint footprint = device::tile_footprint<Taps>(mapping, tile);
  if (footprint.empty()) return;
  atomicAdd(&counts->blocks, 1);
  bool tiled =
      capacity.rows > 0 && (capacity.columns == 0 || footprint.columns <= capacity.columns);
  for (int d = footprint.begin_x; tiled && d < footprint.end_x; ++d) {
    tiled = Taps::x(d, mapping.axes).count() <= capacity.taps;
  }
  if (!tiled) return;
  atomicAdd(&counts->tiled, 1);
  if (device::converts_on_load<Source>::value && capacity.columns > 0) {
    atomicAdd(&counts->staged, 1);
  }
}

template <Interpolation kMethod, class Source>
__global__ void tiled_and_per_pixel(Source src, device::ResizeMapping mapping,
                                    TileCapacity capacity, int width, int height, Rgba *tiled,
                                    Rgba *per_pixel, BlockCounts *counts) {
  extern __shared__ Rgba tile_shared[];
  const device::BlockTile tile = device::this_block_tile();
  const Rgba value =
      device::block_resized_value<kMethod, true>(src, mapping, tile, capacity, tile_shared);
  count_block<kMethod, Source>(mapping, tile, capacity, counts);
  const int x = tile.x + tile.local_x;
  const int y = tile.y + tile.local_y;
  if (x >= width || y >= height) return;
  tiled[y * width + x] = value;
  per_pixel[y * width + x] = device::resized_value<kMethod>(src, x, y, mapping);
}

bool is_yuv(PixelFormat format) {
  return format == PixelFormat::kNV12 || format == PixelFormat::kI420 ||
         format == PixelFormat::kYUY2 || format == PixelFormat::kP010;
}

enum class Capacity { kLaunch, kStaged, kUnstaged, kOneRow, kOneColumn, kOneTap };

const char *capacity_name(Capacity capacity) {
  switch (capacity) {
    case Capacity::kLaunch:
      return "launch's";
    case Capacity::kStaged:
      return "staged";
    case Capacity::kUnstaged:
      return "unstaged";
    case Capacity::kOneRow:
      return "one row";
    case Capacity::kOneColumn:
      return "one column";
    case Capacity::kOneTap:
      return "one tap";
  }
  return "?";
}

struct Geometry {
  int src_width, src_height;
  int crop_x, crop_y;  // the view's offset in a frame larger by twice as much
  int dst_width, dst_height;
  PixelRect rect;  // 0x0: the whole destination
};

const AntialiasIntermediate kIntermediates[] = {AntialiasIntermediate::kFloat,
                                                AntialiasIntermediate::kUint8};

class ResizeTileGpu : public test::GpuStreamTest {
 protected:
  // Runs one case on `view` and checks bits and block counts.
  void run_case(const Image &view, const Geometry &geometry, Interpolation method,
                AntialiasIntermediate intermediate, Capacity capacity_mode,
                Orientation orientation = Orientation::kIdentity) {
    ResizeParams params;
    params.interpolation = method;
    params.antialias = true;
    params.antialias_intermediate = intermediate;
    params.orientation = orientation;
    params.dst_rect = geometry.rect;
    params.pad_value[0] = 114;
    params.source_colorimetry = Colorimetry{ColorMatrix::kBT709, ColorRange::kLimited};
    const int width = geometry.dst_width;
    const int height = geometry.dst_height;
    ASSERT_EQ("", resize_source_error(view, width, height, params));
    const std::string which =
        std::string(pixel_format_name(view.format)) + " " + std::to_string(view.width) + "x" +
        std::to_string(view.height) + " -> " + std::to_string(width) + "x" +
        std::to_string(height) + " " + interpolation_name(method) + " antialiased, " +
        antialias_intermediate_name(intermediate) + " intermediate, capacity " +
        capacity_name(capacity_mode) + ", " + orientation_name(orientation);
    DeviceAllocations allocations;
    const size_t pixels = static_cast<size_t>(width) * height;
    uint8_t *tiled = nullptr, *per_pixel = nullptr, *counts = nullptr;
    CUDA_ASSERT_OK(allocations.allocate(pixels * sizeof(Rgba), &tiled));
    CUDA_ASSERT_OK(allocations.allocate(pixels * sizeof(Rgba), &per_pixel));
    CUDA_ASSERT_OK(allocations.allocate(sizeof(BlockCounts), &counts));
    CUDA_ASSERT_OK(cudaMemsetAsync(tiled, 0xff, pixels * sizeof(Rgba), stream_));
    CUDA_ASSERT_OK(cudaMemsetAsync(per_pixel, 0xfe, pixels * sizeof(Rgba), stream_));
    CUDA_ASSERT_OK(cudaMemsetAsync(counts, 0, sizeof(BlockCounts), stream_));
    TileCapacity capacity;
    const auto launch = [&](const auto &source) {
      using Source = std::decay_t<decltype(source)>;
      const device::ResizeMapping mapping =
          resize_mapping(source.width, source.height, width, height, params);
      capacity = tile_capacity<Source>(mapping.axes);
      if (capacity.rows > 0) {
        // Staged whatever the taps (the launch stages columns of many taps only).
        if (capacity_mode == Capacity::kStaged) {
          capacity = fitted_tile_capacity(
              {0, tile_footprint_bound(mapping.axes.antialias_x, kBlockWidth), capacity.taps},
              tile_footprint_bound(mapping.axes.antialias_y, kBlockHeight));
        }
        if (capacity_mode == Capacity::kUnstaged) capacity.columns = 0;
        if (capacity_mode == Capacity::kOneRow) capacity.rows = 1;
        if (capacity_mode == Capacity::kOneColumn) capacity.columns = 1;
        if (capacity_mode == Capacity::kOneTap) capacity.taps = 1;
      }
      const LaunchShape shape = launch_shape_2d(width, height, 1);
      return with_interpolation(method, [&](auto kind) {
        tiled_and_per_pixel<decltype(kind)::value>
            <<<shape.grid, shape.block, tile_shared_bytes(capacity), stream_>>>(
                source, mapping, capacity, width, height, reinterpret_cast<Rgba *>(tiled),
                reinterpret_cast<Rgba *>(per_pixel), reinterpret_cast<BlockCounts *>(counts));
        return cudaGetLastError();
      });
    };
    // A turned source is tiled in its own (turned) coordinates.
    const cudaError_t err = with_oriented_source(view, params, launch);
    CUDA_ASSERT_OK(err);
    std::vector<Rgba> tiled_values(pixels), per_pixel_values(pixels);
    BlockCounts block_counts;
    CUDA_ASSERT_OK(cudaMemcpyAsync(tiled_values.data(), tiled, pixels * sizeof(Rgba),
                                   cudaMemcpyDeviceToHost, stream_));
    CUDA_ASSERT_OK(cudaMemcpyAsync(per_pixel_values.data(), per_pixel, pixels * sizeof(Rgba),
                                   cudaMemcpyDeviceToHost, stream_));
    CUDA_ASSERT_OK(cudaMemcpyAsync(&block_counts, counts, sizeof(BlockCounts),
                                   cudaMemcpyDeviceToHost, stream_));
    CUDA_ASSERT_OK(cudaStreamSynchronize(stream_));
    size_t differing = 0, first = pixels;
    for (size_t i = 0; i < pixels; ++i) {
      if (std::memcmp(&tiled_values[i], &per_pixel_values[i], sizeof(Rgba)) != 0) {
        if (differing++ == 0) first = i;
      }
    }
    ASSERT_EQ(0u, differing) << which << ": first at (" << first % width << ", " << first / width
                             << "): tiled " << tiled_values[first].x << " per pixel "
                             << per_pixel_values[first].x;
    ASSERT_GT(block_counts.blocks, 0) << which;
    const bool shrunk = capacity_mode == Capacity::kOneTap ||
                        (capacity_mode == Capacity::kOneColumn && capacity.columns > 0);
    if (capacity.rows == 0) {
      EXPECT_EQ(0, block_counts.tiled) << which;
    } else if (shrunk) {
      // Blocks whose taps span a single source column still fit.
      EXPECT_LT(block_counts.tiled, block_counts.blocks) << which;
    } else {
      // The bounds hold every block's footprint and taps: all ran tiled.
      EXPECT_EQ(block_counts.blocks, block_counts.tiled) << which;
    }
    if ((capacity_mode == Capacity::kLaunch || capacity_mode == Capacity::kStaged) &&
        is_yuv(view.format) && capacity.rows > 0 && capacity.columns > 0) {
      EXPECT_EQ(block_counts.tiled, block_counts.staged) << which;
    }
    if (!is_yuv(view.format) || capacity.columns == 0) EXPECT_EQ(0, block_counts.staged) << which;
    ++cases_;
    tiled_blocks_ += block_counts.tiled;
    staged_blocks_ += block_counts.staged;
    if (capacity_mode == Capacity::kLaunch && capacity.rows == 0) ++per_pixel_launches_;
  }

  int cases_ = 0, per_pixel_launches_ = 0;
  long long tiled_blocks_ = 0, staged_blocks_ = 0;
};

TEST_F(ResizeTileGpu, TiledEqualsPerPixelBitForBit) {
  const PixelFormat formats[] = {PixelFormat::kRGBA,  PixelFormat::kBGRx, PixelFormat::kRGB,
                                 PixelFormat::kGRAY8, PixelFormat::kNV12, PixelFormat::kI420,
                                 PixelFormat::kYUY2,  PixelFormat::kP010};
  const Geometry geometries[] = {
      {1920, 1080, 0, 0, 924, 518, {}},           // W2's 2.08x shrink
      {101, 67, 6, 4, 33, 29, {}},                // odd sizes, a cropped view
      {37, 23, 2, 2, 64, 48, {}},                 // enlargement
      {300, 200, 0, 0, 600, 37, {}},              // up along x, down along y
      {640, 360, 4, 0, 96, 96, {0, 21, 96, 54}},  // letterbox: tiles half in the pad
      {1920, 1080, 0, 0, 455, 256, {}},           // torchvision Resize(256)
      {2000, 1000, 0, 0, 9, 7, {}},               // too steep for any tile: per pixel
      {5, 3, 0, 0, 70, 50, {3, 5, 61, 40}},       // tiny source, rectangle off the origin
  };
  unsigned seed = 13;
  for (const PixelFormat format : formats) {
    for (const Geometry &geometry : geometries) {
      DeviceAllocations allocations;
      Image frame;
      // Odd padding makes the interleaved views unaligned (byte loads);
      // P010 keeps 2-byte rows, RGBA and NV12 aligned ones.
      const size_t extra_pitch = format == PixelFormat::kP010   ? 2
                                 : format == PixelFormat::kRGBA ? 0
                                 : format == PixelFormat::kNV12 ? 0
                                                                : 3;
      make_random_frame(format, geometry.src_width + 2 * geometry.crop_x,
                        geometry.src_height + 2 * geometry.crop_y, extra_pitch, seed++,
                        &allocations, &frame);
      if (HasFatalFailure()) return;
      const Image view = sub_image(frame, geometry.crop_x, geometry.crop_y, geometry.src_width,
                                   geometry.src_height);
      for (const Interpolation method : {Interpolation::kBilinear, Interpolation::kBicubic}) {
        for (const AntialiasIntermediate intermediate : kIntermediates) {
          for (const Capacity capacity :
               {Capacity::kLaunch, Capacity::kStaged, Capacity::kUnstaged, Capacity::kOneRow,
                Capacity::kOneColumn, Capacity::kOneTap}) {
            run_case(view, geometry, method, intermediate, capacity);
            if (HasFatalFailure()) return;
          }
        }
      }
    }
  }
  // Turned sources (an axis swap, a mirror along both): tiled and staged in
  // the turned coordinates, equal to their per-pixel samples.
  for (const PixelFormat format : {PixelFormat::kRGBA, PixelFormat::kNV12, PixelFormat::kP010}) {
    for (const Orientation orientation : {Orientation::kRotate90, Orientation::kAntiTranspose}) {
      DeviceAllocations allocations;
      Image frame;
      make_random_frame(format, 644, 364, 0, seed++, &allocations, &frame);
      if (HasFatalFailure()) return;
      const Image view = sub_image(frame, 4, 4, 636, 356);
      for (const Interpolation method : {Interpolation::kBilinear, Interpolation::kBicubic}) {
        for (const AntialiasIntermediate intermediate : kIntermediates) {
          for (const Capacity capacity : {Capacity::kLaunch, Capacity::kStaged}) {
            run_case(view, Geometry{636, 356, 4, 4, 150, 227, {}}, method, intermediate, capacity,
                     orientation);
            if (HasFatalFailure()) return;
          }
        }
      }
    }
  }
  // 4K NV12 to 256 lines (35 x 35 antialiased bicubic taps): the largest
  // footprint a launch still tiles.
  DeviceAllocations allocations;
  Image frame;
  make_random_frame(PixelFormat::kNV12, 3840, 2160, 0, seed, &allocations, &frame);
  if (HasFatalFailure()) return;
  for (const Interpolation method : {Interpolation::kBilinear, Interpolation::kBicubic}) {
    for (const AntialiasIntermediate intermediate : kIntermediates) {
      run_case(frame, Geometry{3840, 2160, 0, 0, 455, 256, {}}, method, intermediate,
               Capacity::kLaunch);
      if (HasFatalFailure()) return;
    }
  }
  std::printf(
      "[ tiled == per pixel ] %d cases, %lld blocks tiled, %lld of them staged, %d launches too "
      "steep to tile\n",
      cases_, tiled_blocks_, staged_blocks_, per_pixel_launches_);
  EXPECT_GT(staged_blocks_, 0);
  EXPECT_GT(per_pixel_launches_, 0);  // 2000x1000 -> 9x7
}

}  // namespace
}  // namespace cudaprep
