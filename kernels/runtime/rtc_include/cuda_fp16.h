// NVRTC stand-in for <cuda_fp16.h>: the half type and the conversions the
// kernels use, with the same PTX conversions as the toolkit's header
// (round to nearest even), so a tensor's bytes do not depend on which
// compiler built the kernel.
#pragma once
struct __align__(2) __half {
  unsigned short bits;
};
__device__ __forceinline__ __half __float2half_rn(float value) {
  __half half;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(half.bits) : "f"(value));
  return half;
}
__device__ __forceinline__ float __half2float(__half half) {
  float value;
  asm("cvt.f32.f16 %0, %1;" : "=f"(value) : "h"(half.bits));
  return value;
}
__device__ __forceinline__ unsigned short __half_as_ushort(__half half) { return half.bits; }
__device__ __forceinline__ __half __ushort_as_half(unsigned short bits) {
  __half half;
  half.bits = bits;
  return half;
}
