// preprocess()'s kernel, compiled at run time (runtime/runtime_kernels.h):
// one thread per tensor pixel of item `batch_index`, the block sampling
// together through `capacity`'s shared memory (device::preprocess_block).
#pragma once

#include <cuda_fp16.h>

#include "preprocess_ops.cuh"

namespace cudaprep {

template <class Source>
struct PreprocessArgs {
  Source src;
  device::ResizeMapping mapping;
  device::TileCapacity capacity;
  int width;
  int height;
  ChannelOrder order;
  device::ChannelNormalization norm;
  void *tensor;
  device::TensorStrides strides;
  int batch_index;
};

template <Interpolation kMethod, bool kAntialiased, class Source, typename Out>
__global__ void preprocess_kernel(const __grid_constant__ PreprocessArgs<Source> args) {
  extern __shared__ device::Rgba tile_shared[];
  device::preprocess_block<kMethod, kAntialiased, Out>(
      args.src, args.mapping, args.capacity, tile_shared, args.order, args.norm, args.tensor,
      args.strides, args.batch_index, args.width, args.height);
}

}  // namespace cudaprep
