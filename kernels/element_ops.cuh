// Conversions of single elements between 8-bit values, float and half
// (namespace cudaprep::device), shared by source_ops.cuh, store_ops.cuh and
// tensor_ops.cuh so that every kernel turns a byte into a float, and a float
// into a byte or a half, the same way.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

namespace cudaprep::device {

// A byte placed in the low mantissa bits of 2^23 gives 2^23 + byte exactly;
// subtracting 2^23 (exact) leaves the byte's value. That is one bit
// operation and one add at full rate, instead of the quarter-rate
// integer-to-float conversion, for the same value as static_cast<float>.
constexpr uint32_t kTwoPow23Bits = 0x4b000000u;
constexpr float kTwoPow23 = 8388608.0f;

// The exact float of an 8-bit value (byte < 256).
__device__ __forceinline__ float byte_to_float(uint32_t byte) {
  return __uint_as_float(kTwoPow23Bits | byte) - kTwoPow23;
}

// byte_to_float() of byte `index` (0..3) of `word`: one byte permute moves
// it under the exponent, where a shift and a mask would take two.
__device__ __forceinline__ float word_byte_to_float(uint32_t word, int index) {
  return __uint_as_float(__byte_perm(word, kTwoPow23Bits, 0x7440u | static_cast<unsigned>(index))) -
         kTwoPow23;
}

// Round to nearest, ties to even (as OpenCV's saturate_cast), then saturate.
__device__ __forceinline__ uint8_t to_byte(float value) {
  return static_cast<uint8_t>(min(max(__float2int_rn(value), 0), 255));
}

// to_byte(), or with `ties_up` floor(value + 0.5) saturated: the byte of
// OpenCV's fixed-point 8-bit resize, whose sums start at half a unit
// (ResizeParams::round_half_up).
__device__ __forceinline__ uint8_t to_byte(float value, bool ties_up) {
  if (!ties_up) return to_byte(value);
  return static_cast<uint8_t>(min(max(__float2int_rd(__fadd_rn(value, 0.5f)), 0), 255));
}

// float -> half rounds to nearest, ties to even.
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

}  // namespace cudaprep::device
