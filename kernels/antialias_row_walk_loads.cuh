// The readers' 16-byte loads for pass 1 of the two-pass antialiased shrink
// (antialias_row_walk_ops.cuh), namespace cudaprep::device: kWalkChunk
// pixels of one row at a time, converted as the reader's load() converts
// them, the same bits.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "color_ops.cuh"
#include "element_ops.cuh"
#include "source_ops.cuh"

namespace cudaprep::device {

// Pixels a lane takes per step: one 16-byte load of 8-bit luma, walked in
// two halves.
constexpr int kWalkChunk = 16;
constexpr int kWalkHalf = kWalkChunk / 2;

// A reader's 16-byte loads of kWalkChunk pixels of one row, where it has
// them: kVector, aligned() (host: the view's pointers and pitches allow
// them), fetch() the raw samples of pixels [x, x + kWalkChunk) of row y
// (x a multiple of kWalkChunk, the chunk inside the frame), pixel() the
// i-th of the first kWalkHalf of them as load() converts it, next_half()
// moves the second half's samples to the first's place (a walk takes a
// chunk in two halves: half the code, which keeps the loop in the
// instruction cache). Others load each pixel with load().
template <class Source>
struct RowWalkLoads {
  static constexpr bool kVector = false;
  struct Raw {};
};

__host__ __device__ inline bool aligned_16(const void *pointer, size_t pitch_bytes) {
  return ((reinterpret_cast<uintptr_t>(pointer) | pitch_bytes) & 15u) == 0;
}

__device__ __forceinline__ uint32_t word_of(const uint4 &quad, int word) {
  return word == 0 ? quad.x : word == 1 ? quad.y : word == 2 ? quad.z : quad.w;
}

__device__ __forceinline__ float byte_of(const uint4 &quad, int byte) {
  return static_cast<float>((word_of(quad, byte / 4) >> (8 * (byte % 4))) & 0xffu);
}

template <>
struct RowWalkLoads<Nv12Source> {
  static constexpr bool kVector = true;
  struct Raw {
    uint4 luma, chroma;  // 16 luma samples, the 8 U, V pairs they share
  };

  static bool aligned(const Nv12Source &src) {
    return aligned_16(src.luma, src.luma_pitch_bytes) &&
           aligned_16(src.chroma, src.chroma_pitch_bytes);
  }
  __device__ __forceinline__ static Raw fetch(const Nv12Source &src, int x, int y) {
    return {
        __ldg(reinterpret_cast<const uint4 *>(src.luma + y * src.luma_pitch_bytes + x)),
        __ldg(reinterpret_cast<const uint4 *>(src.chroma + (y / 2) * src.chroma_pitch_bytes + x))};
  }
  __device__ __forceinline__ static Rgba pixel(const Nv12Source &src, const Raw &raw, int i) {
    const int pair = i / 2;
    return scaled_yuv_to_rgb(
        byte_of(raw.luma, i),
        scaled_chroma(byte_of(raw.chroma, 2 * pair), byte_of(raw.chroma, 2 * pair + 1), src.matrix),
        src.matrix);
  }
  __device__ __forceinline__ static void next_half(Raw &raw) {
    raw.luma.x = raw.luma.z;
    raw.luma.y = raw.luma.w;
    raw.chroma.x = raw.chroma.z;
    raw.chroma.y = raw.chroma.w;
  }
};

template <>
struct RowWalkLoads<I420Source> {
  static constexpr bool kVector = true;
  struct Raw {
    uint4 luma;  // 16 luma samples
    uint2 u, v;  // the 8 U and 8 V samples they share
  };

  static bool aligned(const I420Source &src) {
    return aligned_16(src.luma, src.luma_pitch_bytes) &&
           ((reinterpret_cast<uintptr_t>(src.u_plane) | src.u_pitch_bytes |
             reinterpret_cast<uintptr_t>(src.v_plane) | src.v_pitch_bytes) &
            7u) == 0;
  }
  __device__ __forceinline__ static Raw fetch(const I420Source &src, int x, int y) {
    const int chroma_y = y / 2, chroma_x = x / 2;
    return {__ldg(reinterpret_cast<const uint4 *>(src.luma + y * src.luma_pitch_bytes + x)),
            __ldg(reinterpret_cast<const uint2 *>(src.u_plane + chroma_y * src.u_pitch_bytes +
                                                  chroma_x)),
            __ldg(reinterpret_cast<const uint2 *>(src.v_plane + chroma_y * src.v_pitch_bytes +
                                                  chroma_x))};
  }
  __device__ __forceinline__ static Rgba pixel(const I420Source &src, const Raw &raw, int i) {
    const int pair = i / 2;
    const float u = static_cast<float>((raw.u.x >> (8 * pair)) & 0xffu);
    const float v = static_cast<float>((raw.v.x >> (8 * pair)) & 0xffu);
    return scaled_yuv_to_rgb(byte_of(raw.luma, i), scaled_chroma(u, v, src.matrix), src.matrix);
  }
  __device__ __forceinline__ static void next_half(Raw &raw) {
    raw.luma.x = raw.luma.z;
    raw.luma.y = raw.luma.w;
    raw.u.x = raw.u.y;
    raw.v.x = raw.v.y;
  }
};

template <>
struct RowWalkLoads<P01xSource> {
  static constexpr bool kVector = true;
  struct Raw {
    uint4 luma[2];    // 16 16-bit luma samples
    uint4 chroma[2];  // the 8 U, V pairs they share
  };

  static bool aligned(const P01xSource &src) {
    return aligned_16(src.luma, src.luma_pitch_bytes) &&
           aligned_16(src.chroma, src.chroma_pitch_bytes);
  }
  __device__ __forceinline__ static Raw fetch(const P01xSource &src, int x, int y) {
    const uint4 *luma =
        reinterpret_cast<const uint4 *>(src.luma + y * src.luma_pitch_bytes + 2 * x);
    const uint4 *chroma =
        reinterpret_cast<const uint4 *>(src.chroma + (y / 2) * src.chroma_pitch_bytes + 2 * x);
    return {{__ldg(luma), __ldg(luma + 1)}, {__ldg(chroma), __ldg(chroma + 1)}};
  }
  // Sample `index` (16-bit) of the 8 in `quad`, on the 8-bit scale as
  // P01xSource::load_sample() makes it.
  __device__ __forceinline__ static float sample(const uint4 &quad, int index) {
    return __fmul_rn(static_cast<float>((word_of(quad, index / 2) >> (16 * (index % 2))) & 0xffffu),
                     1.0f / 256.0f);
  }
  __device__ __forceinline__ static Rgba pixel(const P01xSource &src, const Raw &raw, int i) {
    const int pair = i / 2;
    return scaled_yuv_to_rgb(sample(raw.luma[0], i),
                             scaled_chroma(sample(raw.chroma[0], 2 * pair),
                                           sample(raw.chroma[0], 2 * pair + 1), src.matrix),
                             src.matrix);
  }
  __device__ __forceinline__ static void next_half(Raw &raw) {
    raw.luma[0] = raw.luma[1];
    raw.chroma[0] = raw.chroma[1];
  }
};

template <>
struct RowWalkLoads<InterleavedRgbSource<true>> {
  static constexpr bool kVector = true;
  struct Raw {
    uint4 quads[kWalkChunk / 4];  // four 32-bit pixels each
  };

  static bool aligned(const InterleavedRgbSource<true> &src) {
    return aligned_16(src.data, src.pitch_bytes);
  }
  __device__ __forceinline__ static Raw fetch(const InterleavedRgbSource<true> &src, int x, int y) {
    const uint4 *row = reinterpret_cast<const uint4 *>(src.data + y * src.pitch_bytes) + x / 4;
    Raw raw;
#pragma unroll
    for (int q = 0; q < kWalkChunk / 4; ++q) raw.quads[q] = __ldg(row + q);
    return raw;
  }
  __device__ __forceinline__ static Rgba pixel(const InterleavedRgbSource<true> &src,
                                               const Raw &raw, int i) {
    const uint32_t word = word_of(raw.quads[i / 4], i % 4);
    return make_float4(word_byte_to_float(word, src.r_index), word_byte_to_float(word, src.g_index),
                       word_byte_to_float(word, src.b_index), 0.0f);
  }
  __device__ __forceinline__ static void next_half(Raw &raw) {
    raw.quads[0] = raw.quads[2];
    raw.quads[1] = raw.quads[3];
  }
};

// Whether pass 1 may read `src` with its 16-byte loads (host, at launch).
template <class Source>
bool row_walk_vector_loads(const Source &src) {
  if constexpr (RowWalkLoads<Source>::kVector) {
    return RowWalkLoads<Source>::aligned(src);
  } else {
    return false;
  }
}

}  // namespace cudaprep::device
