// resize()'s kernel, compiled at run time (runtime/runtime_kernels.h) for
// the sampler and the source reader a launch needs: one thread per
// destination pixel, the block sampling together
// (device::block_resized_value), tiled through `capacity`'s shared memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cudaprep/resize.h"
#include "resample_ops.cuh"
#include "resize_tile.cuh"
#include "store_ops.cuh"

namespace cudaprep {

template <class Source>
struct ResizeArgs {
  Source src;
  uint8_t *dst;
  size_t dst_pitch_bytes;
  int dst_width;
  int dst_height;
  device::DestinationLayout layout;
  device::ResizeMapping mapping;
  device::TileCapacity capacity;
};

template <Interpolation kMethod, bool kAntialiased, class Source>
__global__ void resize_kernel(const __grid_constant__ ResizeArgs<Source> args) {
  extern __shared__ device::Rgba tile_shared[];
  const device::BlockTile tile = device::this_block_tile();
  const int x = tile.x + tile.local_x;
  const int y = tile.y + tile.local_y;
  const bool outside = x >= args.dst_width || y >= args.dst_height;
  if (!kAntialiased && outside) return;  // only tiling needs the whole block
  const device::Rgba value = device::block_resized_value<kMethod, kAntialiased>(
      args.src, args.mapping, tile, args.capacity, tile_shared);
  if (outside) return;
  device::store_pixel(args.dst + y * args.dst_pitch_bytes, x, value, args.layout,
                      args.mapping.round_half_up);
}

}  // namespace cudaprep
