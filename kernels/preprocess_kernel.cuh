// preprocess()'s kernel, compiled at run time (runtime/runtime_kernels.h):
// one thread per tensor pixel of item `batch_index`, the block sampling
// together through `capacity`'s shared memory (device::preprocess_block),
// each value stored into each of `copies` tensors alike (the frames of
// overlapping clips that share a source frame: read and resampled once).
#pragma once

#include <cuda_fp16.h>

#include "preprocess_ops.cuh"

namespace cudaprep {

// The most tensors one launch stores into; preprocess_into_each() launches
// again for more.
constexpr int kMaxPreprocessCopies = 8;

template <class Source>
struct PreprocessArgs {
  Source src;
  device::ResizeMapping mapping;
  device::TileCapacity capacity;
  int width;
  int height;
  ChannelOrder order;
  device::ChannelNormalization norm;
  void *tensors[kMaxPreprocessCopies];
  int copies;  // 1..kMaxPreprocessCopies
  device::TensorStrides strides;
  int batch_index;
};

template <Interpolation kMethod, bool kAntialiased, class Source, typename Out>
__global__ void preprocess_kernel(const __grid_constant__ PreprocessArgs<Source> args) {
  extern __shared__ device::Rgba tile_shared[];
  device::preprocess_block<kMethod, kAntialiased>(
      args.src, args.mapping, args.capacity, tile_shared, args.width, args.height,
      [&](const device::Rgba &value, int x, int y) {
        for (int copy = 0; copy < args.copies; ++copy)
          device::store_preprocessed<Out, Source>(value, args.mapping, args.order, args.norm,
                                                  args.tensors[copy], args.strides,
                                                  args.batch_index, x, y);
      });
}

}  // namespace cudaprep
