// tensorize_planar()'s and tensorize_interleaved()'s kernels, compiled at
// run time (runtime/runtime_kernels.h).
#pragma once

#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>

#include "cudaprep/tensor.h"
#include "tensor_ops.cuh"

namespace cudaprep {

// How a run of device::kRunLength pixels of all channels reaches the tensor.
enum class RunStore {
  kRows,      // each channel's run is kRunLength contiguous, aligned elements (NCHW)
  kPixels,    // the run is 3 * kRunLength contiguous, aligned elements (packed NHWC, 3 channels)
  kElements,  // one element at a time, any strides
};

struct TensorizePlanarArgs {
  PlanarImage src;
  void *tensor;
  device::TensorStrides strides;
  int batch_index;
  bool wide_loads;
  RunStore store;
};

struct TensorizeInterleavedArgs {
  const uint8_t *src;
  size_t src_pitch_bytes;
  int width;
  int height;
  InterleavedChannelMap map;
  void *tensor;
  device::TensorStrides strides;
  int batch_index;
};

// Each thread moves a run of device::kRunLength pixels of a row, every channel:
// one wide load per channel (when the planes are aligned for it) and wide
// stores as `store` says; element by element for the last, partial run of a
// row. Channels are unrolled to compile-time indices so that the source
// view stays in the kernel parameter space (no per-thread stack copy).
template <typename In, typename Out>
__global__ void tensorize_planar_kernel(const __grid_constant__ TensorizePlanarArgs args) {
  const PlanarImage &src = args.src;
  void *const tensor = args.tensor;
  const device::TensorStrides &strides = args.strides;
  const int batch_index = args.batch_index;
  const bool wide_loads = args.wide_loads;
  const RunStore store = args.store;
  const int x = (blockIdx.x * blockDim.x + threadIdx.x) * device::kRunLength;
  if (x >= src.width) return;
  const int valid = min(device::kRunLength, src.width - x);
  const bool whole_run = valid == device::kRunLength;
  uint8_t *const item = static_cast<uint8_t *>(tensor) + batch_index * strides.batch;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < src.height; y += gridDim.y * blockDim.y) {
    const int64_t src_offset = y * src.pitch_bytes + x * sizeof(In);
    Out values[kMaxChannels][device::kRunLength];
#pragma unroll
    for (int c = 0; c < kMaxChannels; ++c) {
      if (c >= src.channels) break;
      const In *const row = device::byte_offset<In>(src.planes[c], src_offset);
      In loaded[device::kRunLength];
      if (wide_loads && whole_run) {
        device::load_run(row, loaded);
      } else {
#pragma unroll
        for (int i = 0; i < device::kRunLength; ++i) loaded[i] = i < valid ? row[i] : In{};
      }
#pragma unroll
      for (int i = 0; i < device::kRunLength; ++i) {
        values[c][i] = device::from_float<Out>(device::to_float(loaded[i]));
      }
    }
    uint8_t *const tensor_row = item + y * strides.height + x * strides.width;
    if (whole_run && store == RunStore::kRows) {
#pragma unroll
      for (int c = 0; c < kMaxChannels; ++c) {
        if (c >= src.channels) break;
        device::store_run(reinterpret_cast<Out *>(tensor_row + c * strides.channel), values[c]);
      }
    } else if (whole_run && store == RunStore::kPixels) {
      // Element e of the 3 * kRunLength is channel e % 3 of pixel e / 3.
#pragma unroll
      for (int chunk = 0; chunk < 3; ++chunk) {
        Out run[device::kRunLength];
#pragma unroll
        for (int i = 0; i < device::kRunLength; ++i) {
          const int e = chunk * device::kRunLength + i;
          run[i] = values[e % 3][e / 3];
        }
        device::store_run(reinterpret_cast<Out *>(tensor_row) + chunk * device::kRunLength, run);
      }
    } else {
#pragma unroll
      for (int c = 0; c < kMaxChannels; ++c) {
        if (c >= src.channels) break;
#pragma unroll
        for (int i = 0; i < device::kRunLength; ++i) {
          if (i < valid) {
            device::store_element(tensor_row, c * strides.channel + i * strides.width,
                                  values[c][i]);
          }
        }
      }
    }
  }
}

__global__ void tensorize_interleaved_kernel(
    const __grid_constant__ TensorizeInterleavedArgs args) {
  const uint8_t *const src = args.src;
  const size_t src_pitch_bytes = args.src_pitch_bytes;
  const int width = args.width;
  const int height = args.height;
  const InterleavedChannelMap &map = args.map;
  void *const tensor = args.tensor;
  const device::TensorStrides &strides = args.strides;
  const int batch_index = args.batch_index;
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y) {
    const uint8_t *pixel = src + y * src_pitch_bytes + x * map.bytes_per_pixel;
    for (int c = 0; c < map.num_channels; ++c) {
      device::store_element(tensor, device::tensor_offset(strides, batch_index, c, y, x),
                            pixel[map.source_offset[c]]);
    }
  }
}

}  // namespace cudaprep
