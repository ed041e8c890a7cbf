// Per-pixel maths of normalize and tensorize as small device functions that
// compose (load -> normalise -> convert -> store), kept apart from the launch
// code so that a later fused kernel (sample, convert colour, normalise, store
// into the tensor) reuses them unchanged.
#pragma once

#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>

#include "cudaprep/normalize.h"
#include "cudaprep/tensor.h"

namespace cudaprep::ops {

// Normalisation constants of each output channel, by value for a kernel.
struct ChannelNormalization {
  float scale;
  float mean[kMaxChannels];
  float std[kMaxChannels];
};

// Byte strides of the logical tensor axes, by value for a kernel.
struct TensorStrides {
  int64_t batch, channel, height, width;
};

template <typename T>
__device__ __forceinline__ T *byte_offset(void *base, int64_t offset_bytes) {
  return reinterpret_cast<T *>(static_cast<uint8_t *>(base) + offset_bytes);
}

template <typename T>
__device__ __forceinline__ const T *byte_offset(const void *base, int64_t offset_bytes) {
  return reinterpret_cast<const T *>(static_cast<const uint8_t *>(base) + offset_bytes);
}

// Output channel `channel` of the 8-bit interleaved pixel at `pixel`.
__device__ __forceinline__ float load_interleaved_channel(const uint8_t *pixel,
                                                          const InterleavedChannelMap &map,
                                                          int channel) {
  return static_cast<float>(pixel[map.source_offset[channel]]);
}

// y = (x * scale - mean) / std with each operation rounded to nearest in
// float32 and never contracted into an FMA, so the result is the IEEE
// float32 evaluation of the definition (bit-identical to a CPU doing the same).
__device__ __forceinline__ float normalize_value(float x, float scale, float mean, float std) {
  return __fdiv_rn(__fsub_rn(__fmul_rn(x, scale), mean), std);
}

// Element conversions. float -> half rounds to nearest, ties to even.
template <typename T>
__device__ __forceinline__ T from_float(float value);

template <>
__device__ __forceinline__ float from_float<float>(float value) {
  return value;
}

template <>
__device__ __forceinline__ __half from_float<__half>(float value) {
  return __float2half_rn(value);
}

__device__ __forceinline__ float to_float(float value) {
  return value;
}
__device__ __forceinline__ float to_float(__half value) {
  return __half2float(value);
}

template <typename T>
__device__ __forceinline__ void store_element(void *base, int64_t offset_bytes, T value) {
  *byte_offset<T>(base, offset_bytes) = value;
}

// Byte offset of element (batch, channel, y, x) of a tensor.
__device__ __forceinline__ int64_t tensor_offset(const TensorStrides &strides, int batch,
                                                 int channel, int y, int x) {
  return batch * strides.batch + channel * strides.channel + y * strides.height + x * strides.width;
}

}  // namespace cudaprep::ops
