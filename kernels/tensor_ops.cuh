// Per-element device maths of normalize and tensorize (namespace
// cudaprep::device, shared with store_ops.cuh): wide loads of pixel runs,
// normalisation, and stores into tensors of any strides. normalize(),
// tensorize_*() and the fused preprocess() compose the same functions, which
// is what keeps the fused result bit-identical to the chain.
#pragma once

#include <cuda_fp16.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "cudaprep/normalize.h"
#include "cudaprep/tensor.h"
#include "element_ops.cuh"

namespace cudaprep::device {

// Normalisation constants of each output channel, by value for a kernel.
struct ChannelNormalization {
  float scale;
  float mean[kMaxChannels];
  float std[kMaxChannels];
  // 1 / std rounded to nearest, and whether the constants lie where
  // dividing through it is exact (divide_by_reciprocal()).
  float inverse_std[kMaxChannels];
  bool by_reciprocal;
};

// a / b rounded to nearest, from inverse = 1 / b rounded to nearest: q =
// a * inverse is within an ulp of a / b, the residual a - b q is exact in
// one FMA, and one FMA step from q rounds a / b correctly (Markstein's
// theorem), as long as nothing overflows or underflows on the way;
// reciprocal_division_safe() (tensor_launch.cuh) checks the ranges that
// keep it so. Three instructions instead of a division's ten.
CUDAPREP_HD float divide_by_reciprocal(float a, float b, float inverse) {
#ifdef __CUDA_ARCH__
  const float q = __fmul_rn(a, inverse);
  return __fmaf_rn(__fmaf_rn(-q, b, a), inverse, q);
#else
  const float q = std::fmaf(a, inverse, -0.0f);  // a * inverse, never contracted
  return std::fmaf(std::fmaf(-q, b, a), inverse, q);
#endif
}

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

// Pixels (or elements) one thread of normalize, tensorize and the batched
// preprocess's run path handles along a row: a run of four makes their loads
// and stores 4 elements wide.
constexpr int kRunLength = 4;

// A run of kRunLength 8-bit pixels of kBytesPerPixel bytes, as the
// kBytesPerPixel little-endian 32-bit words that hold them.
template <int kBytesPerPixel>
struct PixelRun {
  uint32_t words[kBytesPerPixel];
};

// Alignment of the run's address that load_pixel_run() needs for its wide
// loads: 16 bytes for one 16-byte load, else 4 for 32-bit loads.
constexpr size_t pixel_run_alignment(int bytes_per_pixel) {
  return bytes_per_pixel == 4 ? 16 : 4;
}

// The `valid` (<= kRunLength) pixels at `pixels`: with `wide`, all
// kRunLength of them in the widest loads pixel_run_alignment() allows, else
// byte by byte (any alignment; bytes past `valid` pixels read as 0 and are
// never touched in memory).
template <int kBytesPerPixel>
__device__ __forceinline__ PixelRun<kBytesPerPixel> load_pixel_run(const uint8_t *pixels, bool wide,
                                                                   int valid) {
  PixelRun<kBytesPerPixel> run;
  if (wide) {
    if constexpr (kBytesPerPixel == 4) {
      const uint4 words = __ldg(reinterpret_cast<const uint4 *>(pixels));
      run.words[0] = words.x;
      run.words[1] = words.y;
      run.words[2] = words.z;
      run.words[3] = words.w;
    } else {
#pragma unroll
      for (int w = 0; w < kBytesPerPixel; ++w) {
        run.words[w] = __ldg(reinterpret_cast<const uint32_t *>(pixels) + w);
      }
    }
    return run;
  }
#pragma unroll
  for (int w = 0; w < kBytesPerPixel; ++w) run.words[w] = 0;
#pragma unroll
  for (int b = 0; b < kRunLength * kBytesPerPixel; ++b) {
    if (b < valid * kBytesPerPixel) {
      run.words[b / 4] |= static_cast<uint32_t>(__ldg(pixels + b)) << (8 * (b % 4));
    }
  }
  return run;
}

// Byte `offset` (0..3, known at run time) of pixel `pixel` (a compile-time
// constant once unrolled) of the run; constant word indices keep the run in
// registers.
template <int kBytesPerPixel>
__device__ __forceinline__ uint32_t run_byte(const PixelRun<kBytesPerPixel> &run, int pixel,
                                             int offset) {
  const int first = pixel * kBytesPerPixel;  // byte index of the pixel in the run
  const uint32_t low = run.words[first / 4];
  const uint32_t high = first / 4 + 1 < kBytesPerPixel ? run.words[first / 4 + 1] : 0u;
  return __byte_perm(low, high, static_cast<unsigned>(first % 4 + offset)) & 0xffu;
}

// x * scale - mean, each operation rounded to nearest in float32 and never
// contracted into an FMA.
__device__ __forceinline__ float centred_value(float x, const ChannelNormalization &norm,
                                               int channel) {
  return __fsub_rn(__fmul_rn(x, norm.scale), norm.mean[channel]);
}

// y = (x * scale - mean) / std, the IEEE float32 evaluation of the
// definition (bit-identical to a CPU doing the same).
__device__ __forceinline__ float normalize_value(float x, const ChannelNormalization &norm,
                                                 int channel) {
  return __fdiv_rn(centred_value(x, norm, channel), norm.std[channel]);
}

// normalize_value() of an 8-bit value: the same bits, through the
// reciprocal where the launch found that exact (kByReciprocal: the caller
// knows norm.by_reciprocal at compile time).
template <bool kByReciprocal>
__device__ __forceinline__ float normalize_byte_value(float x, const ChannelNormalization &norm,
                                                      int channel) {
  const float centred = centred_value(x, norm, channel);
  return kByReciprocal ? divide_by_reciprocal(centred, norm.std[channel], norm.inverse_std[channel])
                       : __fdiv_rn(centred, norm.std[channel]);
}
__device__ __forceinline__ float normalize_byte_value(float x, const ChannelNormalization &norm,
                                                      int channel) {
  return norm.by_reciprocal ? normalize_byte_value<true>(x, norm, channel)
                            : normalize_byte_value<false>(x, norm, channel);
}

// Output channel `channel` of an 8-bit value as normalize stores it. Keep
// `channel` a compile-time constant (unrolled loops) so that `norm` stays in
// the kernel's parameter space. normalized_byte_element<Out, kByReciprocal>:
// the same with norm.by_reciprocal known at compile time.
template <typename Out>
__device__ __forceinline__ Out normalized_element(uint32_t byte, const ChannelNormalization &norm,
                                                  int channel) {
  return from_float<Out>(normalize_byte_value(byte_to_float(byte), norm, channel));
}
template <typename Out, bool kByReciprocal>
__device__ __forceinline__ Out normalized_byte_element(uint32_t byte,
                                                       const ChannelNormalization &norm,
                                                       int channel) {
  return from_float<Out>(normalize_byte_value<kByReciprocal>(byte_to_float(byte), norm, channel));
}

// normalized_element() of a value on the 8-bit scale that was not rounded to
// a byte: a source deeper than 8 bits, or preprocess()'s float intermediate.
template <typename Out>
__device__ __forceinline__ Out normalized_value(float value, const ChannelNormalization &norm,
                                                int channel) {
  return from_float<Out>(normalize_value(value, norm, channel));
}

template <typename T>
__device__ __forceinline__ void store_element(void *base, int64_t offset_bytes, T value) {
  *byte_offset<T>(base, offset_bytes) = value;
}

// kRunLength consecutive elements at `address`, aligned to kRunLength *
// sizeof(T): one 16-byte (float) or 8-byte (half) store.
__device__ __forceinline__ void store_run(float *address, const float (&values)[kRunLength]) {
  *reinterpret_cast<float4 *>(address) = make_float4(values[0], values[1], values[2], values[3]);
}
__device__ __forceinline__ void store_run(__half *address, const __half (&values)[kRunLength]) {
  const auto pair = [&](int i) {
    return static_cast<uint32_t>(__half_as_ushort(values[i])) |
           static_cast<uint32_t>(__half_as_ushort(values[i + 1])) << 16;
  };
  *reinterpret_cast<uint2 *>(address) = make_uint2(pair(0), pair(2));
}

// kRunLength consecutive elements from `address`, aligned as for store_run.
__device__ __forceinline__ void load_run(const float *address, float (&values)[kRunLength]) {
  const float4 run = __ldg(reinterpret_cast<const float4 *>(address));
  values[0] = run.x;
  values[1] = run.y;
  values[2] = run.z;
  values[3] = run.w;
}
__device__ __forceinline__ void load_run(const __half *address, __half (&values)[kRunLength]) {
  const uint2 run = __ldg(reinterpret_cast<const uint2 *>(address));
  values[0] = __ushort_as_half(static_cast<unsigned short>(run.x & 0xffffu));
  values[1] = __ushort_as_half(static_cast<unsigned short>(run.x >> 16));
  values[2] = __ushort_as_half(static_cast<unsigned short>(run.y & 0xffffu));
  values[3] = __ushort_as_half(static_cast<unsigned short>(run.y >> 16));
}

// Byte offset of element (batch, channel, y, x) of a tensor.
__device__ __forceinline__ int64_t tensor_offset(const TensorStrides &strides, int batch,
                                                 int channel, int y, int x) {
  return batch * strides.batch + channel * strides.channel + y * strides.height + x * strides.width;
}

}  // namespace cudaprep::device
