// Host side of the kernels that normalise and write tensors (normalize,
// tensorize, the fused preprocess): launch shape, alignment, validation of
// the normalisation constants and of a tensor item, and the by-value kernel
// parameters built from them.
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "cudaprep/tensor.h"
#include "tensor_ops.cuh"

namespace cudaprep {

// Launch shape of the per-pixel kernels of normalize and tensorize: each
// thread handles a run of `columns_per_thread` pixels of one row, a warp
// spans consecutive runs of a row so that loads and stores coalesce.

struct LaunchShape {
  dim3 grid;
  dim3 block;
};

// Kernels loop over rows by gridDim.y * blockDim.y, so any height fits the
// grid's 65535 limit in y.
inline LaunchShape launch_shape_2d(int width, int height, int columns_per_thread) {
  constexpr unsigned kBlockWidth = 32, kBlockHeight = 8, kMaxGridY = 65535;
  const unsigned threads_x = (static_cast<unsigned>(width) + columns_per_thread - 1) /
                             static_cast<unsigned>(columns_per_thread);
  const unsigned grid_x = (threads_x + kBlockWidth - 1) / kBlockWidth;
  unsigned grid_y = (static_cast<unsigned>(height) + kBlockHeight - 1) / kBlockHeight;
  if (grid_y > kMaxGridY) grid_y = kMaxGridY;
  return {dim3(grid_x, grid_y), dim3(kBlockWidth, kBlockHeight)};
}

// True when `address` and every multiple of `stride` added to it are
// multiples of `alignment` (a power of two).
inline bool is_aligned(const void *address, int64_t stride, size_t alignment) {
  return (reinterpret_cast<uintptr_t>(address) | static_cast<uintptr_t>(stride)) % alignment == 0;
}

// Why the scale, means and stds of `params` cannot normalise, or an empty
// string. Only the channel_count(params.channel_order) channels used are
// checked.
inline std::string normalize_constants_error(const NormalizeParams &params) {
  if (!std::isfinite(params.scale)) return "scale is not a finite number";
  for (int c = 0; c < channel_count(params.channel_order); ++c) {
    if (!std::isfinite(params.mean[c])) return "a mean is not a finite number";
    if (!std::isfinite(params.std[c])) return "a std is not a finite number";
    if (params.std[c] == 0.0f) return "a std is 0 (it divides)";
  }
  return {};
}

inline device::ChannelNormalization channel_normalization(const NormalizeParams &params) {
  device::ChannelNormalization norm = {};
  norm.scale = params.scale;
  for (int c = 0; c < kMaxChannels; ++c) {
    norm.mean[c] = params.mean[c];
    norm.std[c] = params.std[c];
  }
  return norm;
}

// Why item `batch_index` of the tensor cannot receive a width x height frame
// of `channels` channels, or an empty string.
inline std::string tensor_item_error(const void *tensor_data, const TensorDesc &desc,
                                     int batch_index, int width, int height, int channels) {
  if (tensor_data == nullptr) return "the tensor has no memory";
  const size_t element_bytes = data_type_size(desc.dtype);
  if (element_bytes == 0) return "the tensor's dtype is unknown";
  if (reinterpret_cast<uintptr_t>(tensor_data) % element_bytes != 0) {
    return "the tensor's memory is not aligned to its element size";
  }
  for (int axis = 0; axis < kTensorRank; ++axis) {
    if (desc.dims[axis] <= 0) return "a tensor dimension is not positive";
    if (desc.strides_bytes[axis] < 0 ||
        desc.strides_bytes[axis] % static_cast<int64_t>(element_bytes) != 0) {
      return "a tensor stride is negative or not a multiple of the element size";
    }
  }
  const TensorShape shape = tensor_shape(desc);
  if (batch_index < 0 || batch_index >= shape.batch) {
    return "the batch index is outside the tensor's batch";
  }
  if (shape.width != width || shape.height != height) {
    return "the frame's size differs from the tensor's width and height";
  }
  if (shape.channels != channels) return "the frame's channel count differs from the tensor's";
  return {};
}

inline device::TensorStrides logical_strides(const TensorDesc &desc) {
  const TensorShape strides = tensor_strides_bytes(desc);
  return {strides.batch, strides.channels, strides.height, strides.width};
}

}  // namespace cudaprep
