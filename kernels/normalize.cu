#include "cudaprep/normalize.h"

#include <cmath>

#include "tensor_launch.cuh"
#include "normalize_ops.cuh"

namespace cudaprep {
namespace {

template <typename Out>
__global__ void normalize_kernel(const uint8_t *src, size_t src_pitch_bytes,
                                 InterleavedChannelMap map, PlanarImage dst,
                                 ops::ChannelNormalization norm) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= dst.width) return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < dst.height; y += gridDim.y * blockDim.y) {
    const uint8_t *pixel = src + y * src_pitch_bytes + x * map.bytes_per_pixel;
    const int64_t dst_offset = y * dst.pitch_bytes + x * sizeof(Out);
    for (int c = 0; c < map.num_channels; ++c) {
      const float value = ops::normalize_value(ops::load_interleaved_channel(pixel, map, c),
                                               norm.scale, norm.mean[c], norm.std[c]);
      ops::store_element(dst.planes[c], dst_offset, ops::from_float<Out>(value));
    }
  }
}

}  // namespace

const char *validate_normalize(const Image &src, const PlanarImage &dst,
                               const NormalizeParams &params) {
  InterleavedChannelMap map;
  if (const char *reason = validate_interleaved_image(src, params.channel_order, &map)) {
    return reason;
  }
  if (const char *reason = validate_planar_image(dst)) return reason;
  if (dst.width != src.width || dst.height != src.height) {
    return "the normalized frame's size differs from the source's";
  }
  if (dst.channels != map.num_channels) {
    return "the normalized frame's channel count does not match the channel order (RGB/BGR: 3, "
           "GRAY: 1)";
  }
  if (!std::isfinite(params.scale)) return "scale is not a finite number";
  for (int c = 0; c < map.num_channels; ++c) {
    if (!std::isfinite(params.mean[c])) return "a mean is not a finite number";
    if (!std::isfinite(params.std[c])) return "a std is not a finite number";
    if (params.std[c] == 0.0f) return "a std is 0 (it divides)";
  }
  return nullptr;
}

cudaError_t normalize(const Image &src, const PlanarImage &dst, const NormalizeParams &params,
                      cudaStream_t stream) {
  if (validate_normalize(src, dst, params) != nullptr) return cudaErrorInvalidValue;
  InterleavedChannelMap map;
  interleaved_channel_map(src.format, params.channel_order, &map);
  ops::ChannelNormalization norm = {};
  norm.scale = params.scale;
  for (int c = 0; c < kMaxChannels; ++c) {
    norm.mean[c] = params.mean[c];
    norm.std[c] = params.std[c];
  }
  const LaunchShape shape = launch_shape_2d(dst.width, dst.height);
  if (dst.dtype == DataType::kFloat32) {
    normalize_kernel<float><<<shape.grid, shape.block, 0, stream>>>(
        src.planes[0].data, src.planes[0].pitch_bytes, map, dst, norm);
  } else {
    normalize_kernel<__half><<<shape.grid, shape.block, 0, stream>>>(
        src.planes[0].data, src.planes[0].pitch_bytes, map, dst, norm);
  }
  return cudaGetLastError();
}

}  // namespace cudaprep
