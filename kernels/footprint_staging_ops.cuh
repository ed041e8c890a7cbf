// Staging a block of source pixels into shared memory for pass 1 of the
// two-pass antialiased shrink (antialias_two_pass_ops.cuh), namespace
// cudaprep::device: each pixel loaded and converted once, the same bits as
// the reader's load() (source_ops.cuh).
//
// The unit of staging is a pixel, or for the 4:2:0 readers a pixel pair:
// one chroma sample loaded and scaled for both pixels it covers (the values
// of chroma_at() and luma_at(), so load()'s). A warp takes kStageRows rows
// at a time and its lanes neighbouring units of them (neighbouring words:
// at most two-way bank conflicts), kStageSlots units per row and thread,
// so that a row's addresses are computed once for them. A batch is split
// in two: fetch_batch() issues its loads and keeps the raw samples in
// registers, store_batch() converts and stores them, so that a block can
// fetch the next footprint's first batch before it sums the current one
// and the loads' latency passes under that work. Loads past the last row
// or unit read the last one again and are not stored, so that no branch
// separates them.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "color_ops.cuh"
#include "source_ops.cuh"

namespace cudaprep::device {

// Rows a warp stages at a time, and units per row and thread: every load
// of a batch is in flight before its first conversion. Three units: a
// 4K -> 455 footprint of eight warps (81 pairs a row) is one batch per
// warp, all of it fetched ahead, at 128 registers.
constexpr int kStageRows = 4;
constexpr int kStageSlots = 3;

// Where staged pixel (column, row) goes: the block's staged planes (R, G,
// B, each `plane` floats apart), `pitch` floats per row.
struct StagedPlanes {
  float *data;
  int pitch;
  size_t plane;

  __device__ __forceinline__ void store(int row, int column, const Rgba &pixel) const {
    float *at = data + row * pitch + column;
    at[0] = pixel.x;
    at[plane] = pixel.y;
    at[2 * plane] = pixel.z;
  }
};

// One pixel per unit: load() as it is. Unit u is column u, clamped to the
// frame (a footprint rounded up to a pair may end one column past it).
template <class Source>
struct StagingUnit {
  static constexpr int kPixels = 1;
  using Fetched = Rgba;

  __device__ __forceinline__ static Fetched fetch(const Source &src, int unit, int y) {
    return src.load(min(unit, src.width - 1), y);
  }
  __device__ __forceinline__ static void store(const Source &src, const Fetched &fetched,
                                               const StagedPlanes &staged, int row, int column) {
    staged.store(row, column, fetched);
  }
};

// A 4:2:0 pair's raw samples: luma of columns 2p and 2p + 1 (the latter
// clamped to the frame), its chroma pair. Converted by the reader's
// sample_value(): what its load() makes of a loaded sample.
struct PairSamples {
  uint32_t luma[2];
  uint32_t u, v;
};

__device__ __forceinline__ PairSamples pair_samples(const Nv12Source &src, int pair, int y) {
  const uint8_t *row = src.luma + y * src.luma_pitch_bytes;
  const uint8_t *uv = src.chroma + (y / 2) * src.chroma_pitch_bytes + pair * 2;
  return {{__ldg(row + 2 * pair), __ldg(row + min(2 * pair + 1, src.width - 1))},
          __ldg(uv),
          __ldg(uv + 1)};
}
__device__ __forceinline__ float sample_value(const Nv12Source &, uint32_t sample) {
  return static_cast<float>(sample);  // load_byte()
}

__device__ __forceinline__ PairSamples pair_samples(const I420Source &src, int pair, int y) {
  const uint8_t *row = src.luma + y * src.luma_pitch_bytes;
  const int chroma_y = y / 2;
  return {{__ldg(row + 2 * pair), __ldg(row + min(2 * pair + 1, src.width - 1))},
          __ldg(src.u_plane + chroma_y * src.u_pitch_bytes + pair),
          __ldg(src.v_plane + chroma_y * src.v_pitch_bytes + pair)};
}
__device__ __forceinline__ float sample_value(const I420Source &, uint32_t sample) {
  return static_cast<float>(sample);  // load_byte()
}

__device__ __forceinline__ PairSamples pair_samples(const P01xSource &src, int pair, int y) {
  const uint16_t *row = reinterpret_cast<const uint16_t *>(src.luma + y * src.luma_pitch_bytes);
  const uint16_t *uv =
      reinterpret_cast<const uint16_t *>(src.chroma + (y / 2) * src.chroma_pitch_bytes) + pair * 2;
  return {{__ldg(row + 2 * pair), __ldg(row + min(2 * pair + 1, src.width - 1))},
          __ldg(uv),
          __ldg(uv + 1)};
}
__device__ __forceinline__ float sample_value(const P01xSource &, uint32_t sample) {
  return __fmul_rn(static_cast<float>(sample), 1.0f / 256.0f);  // P01xSource::load_sample()
}

template <class Source420>
struct StagingPairUnit {
  static constexpr int kPixels = 2;
  using Fetched = PairSamples;

  __device__ __forceinline__ static Fetched fetch(const Source420 &src, int unit, int y) {
    return pair_samples(src, unit, y);
  }
  __device__ __forceinline__ static void store(const Source420 &src, const Fetched &fetched,
                                               const StagedPlanes &staged, int row, int column) {
    const ScaledChroma chroma =
        scaled_chroma(sample_value(src, fetched.u), sample_value(src, fetched.v), src.matrix);
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      staged.store(row, column + k,
                   scaled_yuv_to_rgb(sample_value(src, fetched.luma[k]), chroma, src.matrix));
    }
  }
};

template <>
struct StagingUnit<Nv12Source> : StagingPairUnit<Nv12Source> {};
template <>
struct StagingUnit<I420Source> : StagingPairUnit<I420Source> {};
template <>
struct StagingUnit<P01xSource> : StagingPairUnit<P01xSource> {};

// A footprint to stage: source rows [first_row, first_row + rows) x units
// [first_unit, first_unit + units), into staged rows and columns from 0.
struct StagingFootprint {
  int first_unit, units;
  int first_row, rows;
};

// The raw samples of one batch of one thread: rows r0 + i, units x0 + 32 k.
template <class Source>
struct FetchedBatch {
  typename StagingUnit<Source>::Fetched units[kStageRows][kStageSlots];
};

// The loads of the batch of rows [r0, r0 + kStageRows) and units x0 + 32 k
// of `footprint`.
template <class Source>
__device__ __forceinline__ void fetch_batch(const Source &src, const StagingFootprint &footprint,
                                            int r0, int x0, FetchedBatch<Source> &fetched) {
#pragma unroll
  for (int i = 0; i < kStageRows; ++i) {
    const int y = footprint.first_row + min(r0 + i, footprint.rows - 1);
#pragma unroll
    for (int k = 0; k < kStageSlots; ++k) {
      const int unit = footprint.first_unit + min(x0 + 32 * k, footprint.units - 1);
      fetched.units[i][k] = StagingUnit<Source>::fetch(src, unit, y);
    }
  }
}

// fetch_batch()'s samples converted and stored, those past the footprint
// left out.
template <class Source>
__device__ __forceinline__ void store_batch(const Source &src, const StagingFootprint &footprint,
                                            int r0, int x0, const FetchedBatch<Source> &fetched,
                                            const StagedPlanes &staged) {
#pragma unroll
  for (int i = 0; i < kStageRows; ++i) {
#pragma unroll
    for (int k = 0; k < kStageSlots; ++k) {
      if (r0 + i >= footprint.rows || x0 + 32 * k >= footprint.units) continue;
      StagingUnit<Source>::store(src, fetched.units[i][k], staged, r0 + i,
                                 (x0 + 32 * k) * StagingUnit<Source>::kPixels);
    }
  }
}

// The first batch of this thread (threadIdx.y the warp, threadIdx.x the
// lane; blockDim.x is 32): the one a block may fetch ahead.
__device__ __forceinline__ int first_batch_row() {
  return static_cast<int>(threadIdx.y) * kStageRows;
}
__device__ __forceinline__ int first_batch_unit() {
  return static_cast<int>(threadIdx.x);
}

// This thread's batches of `footprint`, each fetched and stored in turn;
// `skip_first`: all but the first (fetched ahead and stored by the
// caller). Every thread of the block calls it.
template <class Source>
__device__ __forceinline__ void stage_footprint(const Source &src,
                                                const StagingFootprint &footprint, bool skip_first,
                                                const StagedPlanes &staged) {
  const int warps = static_cast<int>(blockDim.y);
  for (int r0 = first_batch_row(); r0 < footprint.rows; r0 += warps * kStageRows) {
    for (int x0 = first_batch_unit(); x0 < footprint.units; x0 += 32 * kStageSlots) {
      if (skip_first && r0 == first_batch_row() && x0 == first_batch_unit()) continue;
      FetchedBatch<Source> fetched;
      fetch_batch(src, footprint, r0, x0, fetched);
      store_batch(src, footprint, r0, x0, fetched, staged);
    }
  }
}

}  // namespace cudaprep::device
