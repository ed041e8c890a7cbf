// preprocess_batch()'s kernel, compiled at run time
// (runtime/runtime_kernels.h), in one of two shapes:
//  - runs (BatchArgs::by_runs; bilinear and bicubic kernels that meet no
//    antialiased item, into rows the launch found contiguous and aligned
//    for wide stores): a grid of (blocks per item, items) of
//    one-dimensional blocks, thread i of an item computing its i-th run of
//    kRunLength pixels along a row (device::preprocess_run), the runs
//    numbered row by row;
//    a block's threads fill whole rows one after another, so no lane idles
//    at a row's end whatever the width, and the item's constants and the
//    rows' maths and addresses are paid once per run, not per pixel.
//  - tiles: a grid of (tiles x, tiles y, items), one thread per pixel, the
//    pixel function of the single-item kernel (device::preprocess_block):
//    what the antialiased samplers (which tile a block's footprint through
//    shared memory), nearest and area, and other tensors take.
// Either way each block reads its item's source reader, mapping and
// constants from the kernel's parameters. Compiled for the readers the
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
  bool by_runs;  // the run shape (takes_runs() in preprocess_batch.cu)
};

// Whether a kernel may take the run shape: plain bilinear and bicubic,
// whose rows a run shares, never the antialiased samplers.
CUDAPREP_HD constexpr bool batch_kernel_runs(Interpolation method, bool antialiased) {
  return !antialiased && (method == Interpolation::kBilinear || method == Interpolation::kBicubic);
}

// Threads of every block the batch kernel launches (either shape).
constexpr int kBatchBlockThreads = 256;

// Blocks of a run kernel each SM should hold at once, which bounds its
// registers. Measured on an H200 (bench/RESULTS.md): bilinear 5 (48
// registers at 256 threads), where the 32-bit RGBx runs gain most (W4 4K
// batch 8 5.42 -> 4.61 us per item) and the 4:2:0 runs neither gain nor
// lose at 5 or 6; bicubic 3 (80 registers), where at 4 and 5 the 4:2:0
// readers' taps spill and unbounded (124-255) every reader runs slower (W2
// batch 8: RGBA 6.65 us at 3, 7.30 at 4 and 5, 7.36 unbounded).
CUDAPREP_HD constexpr int batch_kernel_min_blocks(Interpolation method, bool antialiased) {
  if (!batch_kernel_runs(method, antialiased)) return 1;
  return method == Interpolation::kBilinear ? 5 : 3;
}

// __grid_constant__: the item is read in place from the parameter space;
// without it, indexing the array would copy it per thread.
template <Interpolation kMethod, bool kAntialiased, typename Out, int kCapacity, class... Readers>
__global__ void __launch_bounds__(kBatchBlockThreads,
                                  batch_kernel_min_blocks(kMethod, kAntialiased))
    preprocess_batch_kernel(const __grid_constant__ BatchArgs<kCapacity> args) {
  if constexpr (batch_kernel_runs(kMethod, kAntialiased)) {
    if (args.by_runs) {
      const BatchItem &item = args.items[blockIdx.y];
      // The launch keeps every run index within an int (takes_runs()).
      const unsigned runs_per_row =
          (static_cast<unsigned>(args.width) + device::kRunLength - 1) / device::kRunLength;
      const unsigned run = blockIdx.x * blockDim.x + threadIdx.x;
      const unsigned y = run / runs_per_row;
      if (y >= static_cast<unsigned>(args.height)) return;
      const int x = static_cast<int>(run - y * runs_per_row) * device::kRunLength;
      item.source.visit_only<Readers...>([&](const auto &source) {
        device::preprocess_run<kMethod, Out, std::decay_t<decltype(source)>>(
            source, item.mapping, args.order, item.norm, args.tensor, args.strides,
            item.batch_index, x, static_cast<int>(y), args.width);
      });
      return;
    }
  }
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
