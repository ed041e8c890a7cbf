// Pixel sources of the resize (namespace cudaprep::device): one reader per
// source format, each with width, height and load(x, y) for 0 <= x < width,
// 0 <= y < height, returning the pixel as Rgba in [0, 255] (YUV converted
// by color_ops.cuh). Byte loads unless the launch checked the view's
// alignment for wider ones (views of 3-byte formats, and crops, have no
// alignment to rely on).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "color_ops.cuh"
#include "element_ops.cuh"

namespace cudaprep::device {

__device__ __forceinline__ float load_byte(const uint8_t *address) {
  return static_cast<float>(__ldg(address));
}

// RGBA BGRA RGBx BGRx RGB BGR: interleaved channels at fixed byte indices.
// kPacked32: a 4-byte format whose view (pointer and pitch) is 4-byte
// aligned, read with one 32-bit load per pixel instead of byte loads.
template <bool kPacked32>
struct InterleavedRgbSource {
  static constexpr const char *kRuntimeName = kPacked32
                                                  ? "cudaprep::device::InterleavedRgbSource<true>"
                                                  : "cudaprep::device::InterleavedRgbSource<false>";
  const uint8_t *data;
  size_t pitch_bytes;
  int width;
  int height;
  int bytes_per_pixel;
  int r_index, g_index, b_index;
  int alpha_index;  // -1: no alpha, reads as 255

  __device__ __forceinline__ Rgba load(int x, int y) const {
    if constexpr (kPacked32) {
      const uint32_t pixel = __ldg(reinterpret_cast<const uint32_t *>(data + y * pitch_bytes) + x);
      return make_float4(word_byte_to_float(pixel, r_index), word_byte_to_float(pixel, g_index),
                         word_byte_to_float(pixel, b_index),
                         alpha_index < 0 ? 255.0f : word_byte_to_float(pixel, alpha_index));
    } else {
      const uint8_t *pixel = data + y * pitch_bytes + static_cast<size_t>(x) * bytes_per_pixel;
      return make_float4(load_byte(pixel + r_index), load_byte(pixel + g_index),
                         load_byte(pixel + b_index),
                         alpha_index < 0 ? 255.0f : load_byte(pixel + alpha_index));
    }
  }
};

struct GraySource {
  static constexpr const char *kRuntimeName = "cudaprep::device::GraySource";
  const uint8_t *data;
  size_t pitch_bytes;
  int width;
  int height;

  __device__ __forceinline__ Rgba load(int x, int y) const {
    const float gray = load_byte(data + y * pitch_bytes + x);
    return make_float4(gray, gray, gray, 255.0f);
  }
};

// 4:2:0 with interleaved U, V; each chroma sample covers a 2x2 block.
struct Nv12Source {
  static constexpr const char *kRuntimeName = "cudaprep::device::Nv12Source";
  const uint8_t *luma;
  size_t luma_pitch_bytes;
  const uint8_t *chroma;
  size_t chroma_pitch_bytes;
  int width;
  int height;
  YuvToRgbMatrix matrix;

  __device__ __forceinline__ Rgba load(int x, int y) const {
    const uint8_t *uv = chroma + (y / 2) * chroma_pitch_bytes + (x / 2) * 2;
    return yuv_to_rgb(load_byte(luma + y * luma_pitch_bytes + x), load_byte(uv), load_byte(uv + 1),
                      matrix);
  }

  // Row y's chroma sample `pair` (column pair * 2) and luma sample x, for load_taps().
  __device__ __forceinline__ ScaledChroma chroma_at(int pair, int y) const {
    const uint8_t *uv = chroma + (y / 2) * chroma_pitch_bytes + pair * 2;
    return scaled_chroma(load_byte(uv), load_byte(uv + 1), matrix);
  }
  __device__ __forceinline__ float luma_at(int x, int y) const {
    return load_byte(luma + y * luma_pitch_bytes + x);
  }
};

// 4:2:0 with separate U and V planes.
struct I420Source {
  static constexpr const char *kRuntimeName = "cudaprep::device::I420Source";
  const uint8_t *luma;
  size_t luma_pitch_bytes;
  const uint8_t *u_plane;
  size_t u_pitch_bytes;
  const uint8_t *v_plane;
  size_t v_pitch_bytes;
  int width;
  int height;
  YuvToRgbMatrix matrix;

  __device__ __forceinline__ Rgba load(int x, int y) const {
    const int chroma_x = x / 2;
    const int chroma_y = y / 2;
    return yuv_to_rgb(load_byte(luma + y * luma_pitch_bytes + x),
                      load_byte(u_plane + chroma_y * u_pitch_bytes + chroma_x),
                      load_byte(v_plane + chroma_y * v_pitch_bytes + chroma_x), matrix);
  }

  __device__ __forceinline__ ScaledChroma chroma_at(int pair, int y) const {
    const int chroma_y = y / 2;
    return scaled_chroma(load_byte(u_plane + chroma_y * u_pitch_bytes + pair),
                         load_byte(v_plane + chroma_y * v_pitch_bytes + pair), matrix);
  }
  __device__ __forceinline__ float luma_at(int x, int y) const {
    return load_byte(luma + y * luma_pitch_bytes + x);
  }
};

// P010 / P012 / P016: NV12's layout with 16-bit little-endian samples,
// significant bits at the top. A sample w reads as w / 256 (exact in
// float): the 8-bit scale with the extra bits kept as a fraction, so the
// 8-bit matrix constants apply and nothing is rounded to 8 bits.
struct P01xSource {
  static constexpr const char *kRuntimeName = "cudaprep::device::P01xSource";
  const uint8_t *luma;
  size_t luma_pitch_bytes;
  const uint8_t *chroma;
  size_t chroma_pitch_bytes;
  int width;
  int height;
  YuvToRgbMatrix matrix;

  __device__ __forceinline__ static float load_sample(const uint8_t *address) {
    return __fmul_rn(static_cast<float>(__ldg(reinterpret_cast<const uint16_t *>(address))),
                     1.0f / 256.0f);
  }

  __device__ __forceinline__ Rgba load(int x, int y) const {
    const uint8_t *uv = chroma + (y / 2) * chroma_pitch_bytes + (x / 2) * 4;
    return yuv_to_rgb(load_sample(luma + y * luma_pitch_bytes + 2 * x), load_sample(uv),
                      load_sample(uv + 2), matrix);
  }

  __device__ __forceinline__ ScaledChroma chroma_at(int pair, int y) const {
    const uint8_t *uv = chroma + (y / 2) * chroma_pitch_bytes + pair * 4;
    return scaled_chroma(load_sample(uv), load_sample(uv + 2), matrix);
  }
  __device__ __forceinline__ float luma_at(int x, int y) const {
    return load_sample(luma + y * luma_pitch_bytes + 2 * x);
  }
};

// Sources whose samples carry more than 8 bits: the fused preprocess keeps
// their precision instead of rounding to bytes.
template <class Source>
struct is_high_bit_depth_source : std::false_type {};
template <>
struct is_high_bit_depth_source<P01xSource> : std::true_type {};

// 4:2:2 packed as Y0 U Y1 V per pair of pixels.
struct Yuy2Source {
  static constexpr const char *kRuntimeName = "cudaprep::device::Yuy2Source";
  const uint8_t *data;
  size_t pitch_bytes;
  int width;
  int height;
  YuvToRgbMatrix matrix;

  __device__ __forceinline__ Rgba load(int x, int y) const {
    const uint8_t *pair = data + y * pitch_bytes + (x / 2) * 4;
    return yuv_to_rgb(load_byte(pair + (x & 1) * 2), load_byte(pair + 1), load_byte(pair + 3),
                      matrix);
  }
};

// The pixels of row y at `columns`, as the samplers read a row of taps:
// pixels[k] = src.load(columns[k], y). The 4:2:0 readers below do it with
// each chroma sample loaded and scaled once for the taps that share it
// (half as many as taps, plus one), the same bits as load().
template <int N, class Source>
__device__ __forceinline__ void load_taps(const Source &src, const int (&columns)[N], int y,
                                          Rgba (&pixels)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) pixels[k] = src.load(columns[k], y);
}

// columns: non-decreasing and at most one apart (a sampler's clamped taps),
// so they read the chroma pairs columns[0] / 2 .. columns[N - 1] / 2, at
// most N / 2 + 1 of them.
template <int N, class Source420>
__device__ __forceinline__ void load_420_taps(const Source420 &src, const int (&columns)[N], int y,
                                              Rgba (&pixels)[N]) {
  constexpr int kPairs = N / 2 + 1;
  const int first_pair = columns[0] / 2;
  const int last_pair = columns[N - 1] / 2;
  ScaledChroma chroma[kPairs];
#pragma unroll
  for (int p = 0; p < kPairs; ++p) chroma[p] = src.chroma_at(min(first_pair + p, last_pair), y);
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const int pair = columns[k] / 2 - first_pair;
    ScaledChroma shared = chroma[0];
#pragma unroll
    for (int p = 1; p < kPairs; ++p) {
      if (pair == p) shared = chroma[p];
    }
    pixels[k] = scaled_yuv_to_rgb(src.luma_at(columns[k], y), shared, src.matrix);
  }
}

template <int N>
__device__ __forceinline__ void load_taps(const Nv12Source &src, const int (&columns)[N], int y,
                                          Rgba (&pixels)[N]) {
  load_420_taps(src, columns, y, pixels);
}
template <int N>
__device__ __forceinline__ void load_taps(const I420Source &src, const int (&columns)[N], int y,
                                          Rgba (&pixels)[N]) {
  load_420_taps(src, columns, y, pixels);
}
template <int N>
__device__ __forceinline__ void load_taps(const P01xSource &src, const int (&columns)[N], int y,
                                          Rgba (&pixels)[N]) {
  load_420_taps(src, columns, y, pixels);
}

}  // namespace cudaprep::device
