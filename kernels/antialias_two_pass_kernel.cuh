// The antialiased shrinks of preprocess() and resize() in two kernels,
// compiled at run time (runtime/runtime_kernels.h): antialias_row_sums_kernel
// fills the row sums (device::compute_row_sums, a block per kWalkWarps x 32
// source rows and a segment of output columns), then pass 2 sums their
// columns (device::sum_band_columns, a block per band of output rows and 32
// columns) and stores each pixel:
// preprocess_two_pass_kernel as preprocess_kernel does
// (store_preprocessed_as() into each of `copies` tensors),
// resize_two_pass_kernel as resize_kernel does (store_pixel()).
// antialias_two_pass_ops.cuh states why the bits are the per-pixel
// sampler's.
#pragma once

#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>

#include "antialias_two_pass_ops.cuh"
#include "preprocess_kernel.cuh"
#include "preprocess_ops.cuh"
#include "store_ops.cuh"

namespace cudaprep {

template <class Source>
struct RowSumsArgs {
  Source src;
  device::ResampleAxes axes;
  device::RowSums sums;
  device::RowWalkCapacity capacity;
  bool vector_loads;  // device::row_walk_vector_loads(src)
};

template <Interpolation kMethod, class Source>
__global__ void __launch_bounds__(device::kWalkThreads)
    antialias_row_sums_kernel(const __grid_constant__ RowSumsArgs<Source> args) {
  extern __shared__ float4 row_sums_shared[];
  device::compute_row_sums<kMethod>(args.src, args.axes, args.sums, args.capacity,
                                    args.vector_loads, reinterpret_cast<float *>(row_sums_shared));
}

struct PreprocessTwoPassArgs {
  device::RowSums sums;
  device::ResizeMapping mapping;
  device::BandCapacity capacity;
  int width;
  int height;
  ChannelOrder order;
  device::ChannelNormalization norm;
  void *tensors[kMaxPreprocessCopies];
  int copies;  // 1..kMaxPreprocessCopies
  device::TensorStrides strides;
  int batch_index;
};

// kHighBitDepth: the row sums came from a source deeper than 8 bits
// (device::is_high_bit_depth_source), which the store keeps unrounded.
template <Interpolation kMethod, bool kHighBitDepth, typename Out>
__global__ void __launch_bounds__(device::kBandThreads)
    preprocess_two_pass_kernel(const __grid_constant__ PreprocessTwoPassArgs args) {
  extern __shared__ float4 band_shared[];
  device::sum_band_columns<kMethod>(
      args.sums, args.mapping, args.width, args.height, args.capacity,
      reinterpret_cast<float *>(band_shared), [&](int x, int y, const device::Rgba &value) {
        for (int copy = 0; copy < args.copies; ++copy) {
          device::store_preprocessed_as<Out, kHighBitDepth>(value, args.mapping, args.order,
                                                            args.norm, args.tensors[copy],
                                                            args.strides, args.batch_index, x, y);
        }
      });
}

struct ResizeTwoPassArgs {
  device::RowSums sums;
  device::ResizeMapping mapping;
  device::BandCapacity capacity;
  uint8_t *dst;
  size_t dst_pitch_bytes;
  int dst_width;
  int dst_height;
  device::DestinationLayout layout;
};

template <Interpolation kMethod>
__global__ void __launch_bounds__(device::kBandThreads)
    resize_two_pass_kernel(const __grid_constant__ ResizeTwoPassArgs args) {
  extern __shared__ float4 band_shared[];
  device::sum_band_columns<kMethod>(
      args.sums, args.mapping, args.dst_width, args.dst_height, args.capacity,
      reinterpret_cast<float *>(band_shared), [&](int x, int y, const device::Rgba &value) {
        device::store_pixel(args.dst + y * args.dst_pitch_bytes, x, value, args.layout,
                            args.mapping.round_half_up);
      });
}

}  // namespace cudaprep
