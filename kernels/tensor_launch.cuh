// Host side of the kernels that normalise and write tensors (normalize,
// tensorize, the fused preprocess): validation of the normalisation
// constants and of a tensor item, and the by-value kernel parameters built
// from them.
#pragma once

#include <cuda_fp16.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "cudaprep/tensor.h"
#include "launch.cuh"
#include "tensor_ops.cuh"

namespace cudaprep {

// A tensor element type as a kernel's name expression spells it.
template <typename T>
constexpr const char *element_type_name() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, __half>);
  return std::is_same_v<T, float> ? "float" : "__half";
}

// Calls with_type(float or __half) for a float32 or float16 `dtype`.
template <class WithType>
auto with_float_type(DataType dtype, WithType &&with_type) {
  if (dtype == DataType::kFloat16) return with_type(__half{});
  return with_type(float{});
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

// Whether divide_by_reciprocal() is exact for every byte x (0..255) with
// `params` (the channels its order uses): x * scale - mean and its
// quotient by std stay far from overflow, and a nonzero centred value (at
// least 2^-43 with these ranges) keeps the residual and the correction out
// of the subnormal range.
inline bool reciprocal_division_safe(const NormalizeParams &params) {
  const auto zero_or_within = [](float value) {
    const float magnitude = std::fabs(value);
    return value == 0.0f || (magnitude >= 0x1p-20f && magnitude <= 0x1p20f);
  };
  if (!zero_or_within(params.scale)) return false;
  for (int c = 0; c < channel_count(params.channel_order); ++c) {
    if (!zero_or_within(params.mean[c])) return false;
    if (params.std[c] == 0.0f || !zero_or_within(params.std[c])) return false;
  }
  return true;
}

inline device::ChannelNormalization channel_normalization(const NormalizeParams &params) {
  device::ChannelNormalization norm = {};
  norm.scale = params.scale;
  for (int c = 0; c < kMaxChannels; ++c) {
    norm.mean[c] = params.mean[c];
    norm.std[c] = params.std[c];
    norm.inverse_std[c] = params.std[c] != 0.0f ? 1.0f / params.std[c] : 0.0f;
  }
  norm.by_reciprocal = reciprocal_division_safe(params);
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
