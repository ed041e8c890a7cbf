#include "cudaprep/normalize.h"

#include "tensor_launch.cuh"
#include "tensor_ops.cuh"

namespace cudaprep {
namespace {

// Each thread normalises a run of device::kRunLength pixels of a row: one wide
// load of their bytes and, per output channel, one wide store (when the
// views are aligned for them; byte loads and element stores otherwise and
// for the last, partial run of a row). The channel maps and constants are
// indexed with compile-time channel numbers only, so they stay in registers
// and the kernel parameter space (no per-thread stack copy).
template <typename Out, int kBytesPerPixel, int kChannels>
__global__ void normalize_kernel(const uint8_t *src, size_t src_pitch_bytes,
                                 InterleavedChannelMap map, PlanarImage dst,
                                 device::ChannelNormalization norm, bool wide_loads,
                                 bool wide_stores) {
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

template <typename Out, int kBytesPerPixel, int kChannels>
void launch_normalize(const Image &src, const PlanarImage &dst, const InterleavedChannelMap &map,
                      const device::ChannelNormalization &norm, cudaStream_t stream) {
  const ImagePlane &plane = src.planes[0];
  const bool wide_loads = is_aligned(plane.data, static_cast<int64_t>(plane.pitch_bytes),
                                     device::pixel_run_alignment(kBytesPerPixel));
  bool wide_stores = true;
  for (int c = 0; c < kChannels; ++c) {
    wide_stores = wide_stores && is_aligned(dst.planes[c], static_cast<int64_t>(dst.pitch_bytes),
                                            device::kRunLength * sizeof(Out));
  }
  const LaunchShape shape = launch_shape_2d(dst.width, dst.height, device::kRunLength);
  normalize_kernel<Out, kBytesPerPixel, kChannels><<<shape.grid, shape.block, 0, stream>>>(
      plane.data, plane.pitch_bytes, map, dst, norm, wide_loads, wide_stores);
}

template <typename Out>
void launch_normalize(const Image &src, const PlanarImage &dst, const InterleavedChannelMap &map,
                      const device::ChannelNormalization &norm, cudaStream_t stream) {
  switch (map.bytes_per_pixel) {
    case 4:
      launch_normalize<Out, 4, 3>(src, dst, map, norm, stream);
      break;
    case 3:
      launch_normalize<Out, 3, 3>(src, dst, map, norm, stream);
      break;
    default:  // GRAY8: one channel, or its luma in all three
      if (map.num_channels == 1) {
        launch_normalize<Out, 1, 1>(src, dst, map, norm, stream);
      } else {
        launch_normalize<Out, 1, 3>(src, dst, map, norm, stream);
      }
      break;
  }
}

}  // namespace

std::string normalize_error(const Image &src, const PlanarImage &dst,
                            const NormalizeParams &params) {
  InterleavedChannelMap map;
  std::string reason = interleaved_image_error(src, params.channel_order, &map);
  if (!reason.empty()) return reason;
  reason = planar_image_error(dst);
  if (!reason.empty()) return reason;
  if (dst.width != src.width || dst.height != src.height) {
    return "the normalized frame's size differs from the source's";
  }
  if (dst.channels != map.num_channels) {
    return "the normalized frame's channel count does not match the channel order (RGB/BGR: 3, "
           "GRAY: 1)";
  }
  return normalize_constants_error(params);
}

cudaError_t normalize(const Image &src, const PlanarImage &dst, const NormalizeParams &params,
                      cudaStream_t stream) {
  if (!normalize_error(src, dst, params).empty()) return cudaErrorInvalidValue;
  InterleavedChannelMap map;
  interleaved_channel_map(src.format, params.channel_order, &map);
  const device::ChannelNormalization norm = channel_normalization(params);
  if (dst.dtype == DataType::kFloat32) {
    launch_normalize<float>(src, dst, map, norm, stream);
  } else {
    launch_normalize<__half>(src, dst, map, norm, stream);
  }
  return cudaGetLastError();
}

}  // namespace cudaprep
