// Launch side of resize(): validates the views, picks the source reader and
// the sampler at compile time (6 readers x 4 methods), one thread per
// destination pixel, antialiased sampling tiled (resize_tile.cuh). The per-pixel maths lives
// in the *_ops.cuh headers (resample_ops.cuh composes them, store_ops.cuh writes pixels), the
// host side shared with preprocess() in resize_launch.cuh.
#include "cudaprep/resize.h"

#include "color_ops.cuh"
#include "resample_ops.cuh"
#include "resize_launch.cuh"
#include "store_ops.cuh"

namespace cudaprep {
namespace {

using device::DestinationLayout;
using device::ResizeMapping;

// One thread per destination pixel; the block samples together
// (device::block_resized_value), tiled through `capacity`'s shared memory.
template <Interpolation kMethod, bool kAntialiased, class Source>
__global__ void resize_kernel(Source src, uint8_t *dst, size_t dst_pitch_bytes, int dst_width,
                              int dst_height, DestinationLayout layout, ResizeMapping mapping,
                              device::TileCapacity capacity) {
  extern __shared__ device::Rgba tile_shared[];
  const device::BlockTile tile = device::this_block_tile();
  const int x = tile.x + tile.local_x;
  const int y = tile.y + tile.local_y;
  const bool outside = x >= dst_width || y >= dst_height;
  if (!kAntialiased && outside) return;  // only tiling needs the whole block
  const device::Rgba value =
      device::block_resized_value<kMethod, kAntialiased>(src, mapping, tile, capacity, tile_shared);
  if (outside) return;
  device::store_pixel(dst + y * dst_pitch_bytes, x, value, layout, mapping.round_half_up);
}

template <class Source>
cudaError_t launch(const Source &source, const Image &dst, const ResizeParams &params,
                   cudaStream_t stream) {
  const ResizeMapping mapping =
      resize_mapping(source.width, source.height, dst.width, dst.height, params);
  const DestinationLayout layout = device::destination_layout(dst.format);
  const LaunchShape shape = launch_shape_2d(dst.width, dst.height, 1);
  const device::TileCapacity capacity = tile_capacity<Source>(mapping.axes);
  with_sampler(params.interpolation, params.antialias, [&](auto method, auto antialiased) {
    resize_kernel<decltype(method)::value, decltype(antialiased)::value>
        <<<shape.grid, shape.block, tile_shared_bytes(capacity), stream>>>(
            source, dst.planes[0].data, dst.planes[0].pitch_bytes, dst.width, dst.height, layout,
            mapping, capacity);
  });
  return cudaGetLastError();
}

}  // namespace

bool is_resize_source_format(PixelFormat format) {
  return format_info(format).num_planes > 0;
}

bool is_resize_destination_format(PixelFormat format) {
  return device::destination_layout(format).bytes_per_pixel > 0;
}

std::string resize_params_error(const Image &src, const Image &dst, const ResizeParams &params) {
  if (!is_resize_destination_format(dst.format)) {
    return std::string("resize: cannot write ") + pixel_format_name(dst.format) +
           "; destinations are RGB, BGR, RGBA, BGRA, RGBx, BGRx and GRAY8";
  }
  if (params.float_intermediate) {
    return "resize: float_intermediate is for preprocess(); resize() writes 8-bit pixels";
  }
  const std::string error = resize_source_error(src, dst.width, dst.height, params);
  if (!error.empty()) return error;
  const std::string dst_error = plane_error("destination", dst, 0);
  if (!dst_error.empty()) return "resize: " + dst_error;
  return {};
}

cudaError_t resize(const Image &src, const Image &dst, const ResizeParams &params,
                   cudaStream_t stream) {
  if (!resize_params_error(src, dst, params).empty()) return cudaErrorInvalidValue;
  return with_oriented_source(
      src, params, [&](const auto &source) { return launch(source, dst, params, stream); });
}

}  // namespace cudaprep
