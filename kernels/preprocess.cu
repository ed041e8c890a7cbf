// The fused preprocess kernel: the per-pixel functions of resize
// (resample_ops.cuh, store_ops.cuh) and of normalize/tensorize (tensor_ops.cuh) composed
// in one thread per tensor pixel (preprocess_ops.cuh), with the host-side constants built by the
// same helpers the unfused launches use (resize_launch.cuh,
// tensor_launch.cuh). Nothing here re-implements a formula: that is what
// makes the result bit-identical to resize -> normalize -> tensorize.
#include "cudaprep/preprocess.h"

#include <cuda_fp16.h>

#include <climits>
#include <cstdint>

#include "preprocess_ops.cuh"
#include "resize_launch.cuh"
#include "tensor_launch.cuh"

namespace cudaprep {
namespace {

// One thread per tensor pixel of item `batch_index`, the block sampling
// together through `capacity`'s shared memory.
template <Interpolation kMethod, bool kAntialiased, class Source, typename Out>
__global__ void preprocess_kernel(Source src, device::ResizeMapping mapping,
                                  device::TileCapacity capacity, int width, int height,
                                  ChannelOrder order, device::ChannelNormalization norm,
                                  void *tensor, device::TensorStrides strides, int batch_index) {
  extern __shared__ device::Rgba tile_shared[];
  device::preprocess_block<kMethod, kAntialiased, Out>(src, mapping, capacity, tile_shared, order,
                                                       norm, tensor, strides, batch_index, width,
                                                       height);
}

template <typename Out, class Source>
void launch_preprocess(const Source &source, const ResizeParams &resize_params,
                       const NormalizeParams &normalize_params, void *tensor_data,
                       const TensorDesc &desc, int batch_index, cudaStream_t stream) {
  const TensorShape shape = tensor_shape(desc);
  const int width = static_cast<int>(shape.width);
  const int height = static_cast<int>(shape.height);
  const device::ResizeMapping mapping =
      resize_mapping(source.width, source.height, width, height, resize_params);
  const device::ChannelNormalization norm = channel_normalization(normalize_params);
  const device::TensorStrides strides = logical_strides(desc);
  const ChannelOrder order = normalize_params.channel_order;
  const LaunchShape launch = launch_shape_2d(width, height, 1);
  const device::TileCapacity capacity = tile_capacity<Source>(mapping.axes);
  with_sampler(
      resize_params.interpolation, resize_params.antialias, [&](auto method, auto antialiased) {
        preprocess_kernel<decltype(method)::value, decltype(antialiased)::value, Source, Out>
            <<<launch.grid, launch.block, tile_shared_bytes(capacity), stream>>>(
                source, mapping, capacity, width, height, order, norm, tensor_data, strides,
                batch_index);
      });
}

}  // namespace

std::string preprocess_params_error(const Image &src, const ResizeParams &resize_params,
                                    const NormalizeParams &normalize_params,
                                    const void *tensor_data, const TensorDesc &desc,
                                    int batch_index) {
  const std::string prefix = "preprocess: ";
  if (desc.dtype != DataType::kFloat32 && desc.dtype != DataType::kFloat16) {
    return prefix + "the tensor must hold float32 or float16, not " + data_type_name(desc.dtype);
  }
  switch (normalize_params.channel_order) {
    case ChannelOrder::kRGB:
    case ChannelOrder::kBGR:
    case ChannelOrder::kGray:
      break;
    default:
      return prefix + "unknown channel order";
  }
  // The output size is the tensor's own, so only its range needs checking.
  const TensorShape shape = tensor_shape(desc);
  if (shape.width > INT_MAX || shape.height > INT_MAX) {
    return prefix + "the tensor's width or height exceeds " + std::to_string(INT_MAX);
  }
  for (const std::string &reason :
       {tensor_item_error(tensor_data, desc, batch_index, static_cast<int>(shape.width),
                          static_cast<int>(shape.height),
                          channel_count(normalize_params.channel_order)),
        normalize_constants_error(normalize_params),
        resize_source_error(src, static_cast<int>(shape.width), static_cast<int>(shape.height),
                            resize_params)}) {
    if (!reason.empty()) return prefix + reason;
  }
  return {};
}

cudaError_t preprocess(const Image &src, const ResizeParams &resize_params,
                       const NormalizeParams &normalize_params, void *tensor_data,
                       const TensorDesc &desc, int batch_index, cudaStream_t stream) {
  if (!preprocess_params_error(src, resize_params, normalize_params, tensor_data, desc, batch_index)
           .empty()) {
    return cudaErrorInvalidValue;
  }
  return with_oriented_source(src, resize_params, [&](const auto &source) {
    if (desc.dtype == DataType::kFloat16) {
      launch_preprocess<__half>(source, resize_params, normalize_params, tensor_data, desc,
                                batch_index, stream);
    } else {
      launch_preprocess<float>(source, resize_params, normalize_params, tensor_data, desc,
                               batch_index, stream);
    }
    return cudaGetLastError();
  });
}

}  // namespace cudaprep
