// preprocess_batch()'s kernel, compiled at run time
// (runtime/runtime_kernels.h): a grid of (tiles x, tiles y, items), each
// block reading its item's source reader, mapping and constants from the
// kernel's parameters and running the pixel function of the single-item
// kernel (device::preprocess_block) on it. Compiled for the readers the
// batch's items hold (Readers), so a batch of NV12 frames carries no RGBA
// path.
#pragma once

#include <cuda_fp16.h>

#include "preprocess_ops.cuh"
#include "source_variant.cuh"

namespace cudaprep {

// One item as the kernel reads it.
struct BatchItem {
  ResizeSource source;
  device::ResizeMapping mapping;
  device::ChannelNormalization norm;
  int batch_index;
};

// The launch copies the whole parameter block whatever the count (about
// 26 KiB for the largest list costs about 7 us of host time per launch on
// the H100), so small batches take a smaller list.
template <int kCapacity>
struct BatchArgs {
  BatchItem items[kCapacity];
  device::TileCapacity capacity;  // the largest tile any item's blocks need
  int width;
  int height;
  ChannelOrder order;
  void *tensor;
  device::TensorStrides strides;
};

// __grid_constant__: items[blockIdx.z] is read in place from the parameter
// space; without it, indexing the array would copy it per thread.
template <Interpolation kMethod, bool kAntialiased, typename Out, int kCapacity, class... Readers>
__global__ void preprocess_batch_kernel(const __grid_constant__ BatchArgs<kCapacity> args) {
  extern __shared__ device::Rgba tile_shared[];
  const BatchItem &item = args.items[blockIdx.z];
  item.source.visit_only<Readers...>([&](const auto &source) {
    using Source = std::decay_t<decltype(source)>;
    device::preprocess_block<kMethod, kAntialiased>(
        source, item.mapping, args.capacity, tile_shared, args.width, args.height,
        [&](const device::Rgba &value, int x, int y) {
          device::store_preprocessed<Out, Source>(value, item.mapping, args.order, item.norm,
                                                  args.tensor, args.strides, item.batch_index, x,
                                                  y);
        });
  });
}

}  // namespace cudaprep
