// normalize()'s kernel, compiled at run time (runtime/runtime_kernels.h)
// for the output type, the source's bytes per pixel and the channel count.
#pragma once

#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>

#include "cudaprep/tensor.h"
#include "tensor_ops.cuh"

namespace cudaprep {

struct NormalizeArgs {
  const uint8_t *src;
  size_t src_pitch_bytes;
  InterleavedChannelMap map;
  PlanarImage dst;
  device::ChannelNormalization norm;
  bool wide_loads;
  bool wide_stores;
};

// Each thread normalises a run of device::kRunLength pixels of a row: one wide
// load of their bytes and, per output channel, one wide store (when the
// views are aligned for them; byte loads and element stores otherwise and
// for the last, partial run of a row). The channel maps and constants are
// indexed with compile-time channel numbers only, so they stay in registers
// and the kernel parameter space (no per-thread stack copy).
template <typename Out, int kBytesPerPixel, int kChannels>
__global__ void normalize_kernel(const __grid_constant__ NormalizeArgs args) {
  const uint8_t *const src = args.src;
  const size_t src_pitch_bytes = args.src_pitch_bytes;
  const InterleavedChannelMap &map = args.map;
  const PlanarImage &dst = args.dst;
  const device::ChannelNormalization &norm = args.norm;
  const bool wide_loads = args.wide_loads;
  const bool wide_stores = args.wide_stores;
  const int x = (blockIdx.x * blockDim.x + threadIdx.x) * device::kRunLength;
  if (x >= dst.width) return;
  const int valid = min(device::kRunLength, dst.width - x);
  const bool whole_run = valid == device::kRunLength;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < dst.height; y += gridDim.y * blockDim.y) {
    const device::PixelRun<kBytesPerPixel> run = device::load_pixel_run<kBytesPerPixel>(
        src + y * src_pitch_bytes + x * kBytesPerPixel, wide_loads && whole_run, valid);
    const int64_t dst_offset = y * dst.pitch_bytes + x * sizeof(Out);
#pragma unroll
    for (int c = 0; c < kChannels; ++c) {
      Out values[device::kRunLength];
#pragma unroll
      for (int i = 0; i < device::kRunLength; ++i) {
        values[i] = device::normalized_element<Out>(device::run_byte(run, i, map.source_offset[c]),
                                                    norm, c);
      }
      Out *const out = device::byte_offset<Out>(dst.planes[c], dst_offset);
      if (wide_stores && whole_run) {
        device::store_run(out, values);
      } else {
#pragma unroll
        for (int i = 0; i < device::kRunLength; ++i) {
          if (i < valid) out[i] = values[i];
        }
      }
    }
  }
}

}  // namespace cudaprep
