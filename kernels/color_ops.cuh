// Colour maths of the resize device headers (namespace cudaprep::device):
// the Rgba value that sources load, samplers sum and stores write, YUV ->
// RGB through a per-frame matrix, BT.601 luma, and the clamp to [0, 255].
//
// Rounding is pinned in every resize device header (color_ops.cuh,
// source_ops.cuh, sampler_ops.cuh, antialias_ops.cuh, resample_ops.cuh,
// store_ops.cuh): every float product is __fmul_rn or part of an explicit __fmaf_rn, so
// neither nvcc nor ptxas can contract a multiply and an add into an FMA
// differently in different kernels. resize() and the fused preprocess()
// inline these functions into different kernels and must still compute the
// same bits (preprocess == resize -> normalize -> tensorize, bit for bit).
#pragma once

#include <cuda_runtime.h>

#include "cudaprep/color.h"
#include "cudaprep/image.h"

namespace cudaprep::device {

// R, G, B, A in [0, 255]; kept unrounded until the final store.
using Rgba = float4;

__device__ __forceinline__ float clamp_channel(float value) {
  return fminf(fmaxf(value, 0.0f), 255.0f);
}

// R = Y' + r_from_v Cr, G = Y' + g_from_u Cb + g_from_v Cr, B = Y' + b_from_u Cb
// with Y' = (Y - y_offset) * y_gain and Cb, Cr = (U/V - 128) * chroma_gain,
// Y, U, V on the 8-bit scale (an n-bit code divided by 2^(n-8)).
struct YuvToRgbMatrix {
  float y_offset;
  float y_gain;
  float chroma_gain;
  float r_from_v;
  float g_from_u;
  float g_from_v;
  float b_from_u;
};

// `bits`: significant bits of the samples (bits_per_sample()). Limited
// range scales exactly with the bit depth; full range spans 2^n - 1 codes,
// so on the 8-bit scale its gain is 255 * 2^(n-8) / (2^n - 1).
CUDAPREP_HD YuvToRgbMatrix yuv_to_rgb_matrix(Colorimetry colorimetry, int bits = 8) {
  const float kr = colorimetry.matrix.kr;
  const float kb = colorimetry.matrix.kb;
  const float kg = 1.0f - kr - kb;
  const bool limited = colorimetry.range == ColorRange::kLimited;
  const float full_gain = bits == 8 ? 1.0f
                                    : 255.0f * static_cast<float>(1 << (bits - 8)) /
                                          static_cast<float>((1 << bits) - 1);
  YuvToRgbMatrix matrix;
  matrix.y_offset = limited ? 16.0f : 0.0f;
  matrix.y_gain = limited ? 255.0f / 219.0f : full_gain;
  matrix.chroma_gain = limited ? 255.0f / 224.0f : full_gain;
  matrix.r_from_v = 2.0f * (1.0f - kr);
  matrix.g_from_u = -2.0f * kb * (1.0f - kb) / kg;
  matrix.g_from_v = -2.0f * kr * (1.0f - kr) / kg;
  matrix.b_from_u = 2.0f * (1.0f - kb);
  return matrix;
}

// yuv_to_rgb() in its steps, so that a reader can scale a chroma sample
// once for the several pixels that share it (4:2:0) and still compute
// every pixel's bits as yuv_to_rgb() does.
struct ScaledChroma {
  float cb, cr;
};

__device__ __forceinline__ ScaledChroma scaled_chroma(float u, float v, const YuvToRgbMatrix &m) {
  return {__fmul_rn(u - 128.0f, m.chroma_gain), __fmul_rn(v - 128.0f, m.chroma_gain)};
}

__device__ __forceinline__ Rgba scaled_yuv_to_rgb(float y, const ScaledChroma &chroma,
                                                  const YuvToRgbMatrix &m) {
  const float luma = __fmul_rn(y - m.y_offset, m.y_gain);
  return make_float4(
      clamp_channel(__fmaf_rn(m.r_from_v, chroma.cr, luma)),
      clamp_channel(__fmaf_rn(m.g_from_v, chroma.cr, __fmaf_rn(m.g_from_u, chroma.cb, luma))),
      clamp_channel(__fmaf_rn(m.b_from_u, chroma.cb, luma)), 255.0f);
}

// Clamped so that resampling sees what a uint8 RGB image would hold.
__device__ __forceinline__ Rgba yuv_to_rgb(float y, float u, float v, const YuvToRgbMatrix &m) {
  return scaled_yuv_to_rgb(y, scaled_chroma(u, v, m), m);
}

// cv::cvtColor(COLOR_RGB2GRAY) weights.
__device__ __forceinline__ float luma_bt601(const Rgba &rgba) {
  return __fmaf_rn(0.114f, rgba.z, __fmaf_rn(0.587f, rgba.y, __fmul_rn(0.299f, rgba.x)));
}

}  // namespace cudaprep::device
