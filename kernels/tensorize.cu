#include "cudaprep/tensorize.h"

#include <cstdint>

#include "normalize_ops.cuh"
#include "tensor_launch.cuh"

namespace cudaprep {
namespace {

template <typename In, typename Out>
__global__ void tensorize_planar_kernel(PlanarImage src, void *tensor, ops::TensorStrides strides,
                                        int batch_index) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= src.width) return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < src.height; y += gridDim.y * blockDim.y) {
    const int64_t src_offset = y * src.pitch_bytes + x * sizeof(In);
    for (int c = 0; c < src.channels; ++c) {
      const In value = *ops::byte_offset<In>(src.planes[c], src_offset);
      ops::store_element(tensor, ops::tensor_offset(strides, batch_index, c, y, x),
                         ops::from_float<Out>(ops::to_float(value)));
    }
  }
}

__global__ void tensorize_interleaved_kernel(const uint8_t *src, size_t src_pitch_bytes, int width,
                                             int height, InterleavedChannelMap map, void *tensor,
                                             ops::TensorStrides strides, int batch_index) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y) {
    const uint8_t *pixel = src + y * src_pitch_bytes + x * map.bytes_per_pixel;
    for (int c = 0; c < map.num_channels; ++c) {
      ops::store_element(tensor, ops::tensor_offset(strides, batch_index, c, y, x),
                         pixel[map.source_offset[c]]);
    }
  }
}

// Why item `batch_index` of the tensor cannot receive a width x height frame
// of `channels` channels, or nullptr.
const char *validate_tensor_item(const void *tensor_data, const TensorDesc &desc, int batch_index,
                                 int width, int height, int channels) {
  if (tensor_data == nullptr) return "the tensor has no memory";
  const size_t element_bytes = data_type_size(desc.dtype);
  if (element_bytes == 0) return "the tensor's dtype is unknown";
  if (reinterpret_cast<uintptr_t>(tensor_data) % element_bytes != 0) {
    return "the tensor's memory is not aligned to its element size";
  }
  for (int axis = 0; axis < kTensorRank; ++axis) {
    if (desc.dims[axis] <= 0) return "a tensor dimension is not positive";
    if (desc.strides_bytes[axis] < 0 ||
        desc.strides_bytes[axis] % static_cast<int64_t>(element_bytes) != 0) {
      return "a tensor stride is negative or not a multiple of the element size";
    }
  }
  const TensorShape shape = tensor_shape(desc);
  if (batch_index < 0 || batch_index >= shape.batch) {
    return "the batch index is outside the tensor's batch";
  }
  if (shape.width != width || shape.height != height) {
    return "the frame's size differs from the tensor's width and height";
  }
  if (shape.channels != channels) return "the frame's channel count differs from the tensor's";
  return nullptr;
}

ops::TensorStrides logical_strides(const TensorDesc &desc) {
  const TensorShape strides = tensor_strides_bytes(desc);
  return {strides.batch, strides.channels, strides.height, strides.width};
}

template <typename In, typename Out>
void launch_tensorize_planar(const PlanarImage &src, void *tensor_data, const TensorDesc &desc,
                             int batch_index, cudaStream_t stream) {
  const LaunchShape shape = launch_shape_2d(src.width, src.height);
  tensorize_planar_kernel<In, Out><<<shape.grid, shape.block, 0, stream>>>(
      src, tensor_data, logical_strides(desc), batch_index);
}

}  // namespace

const char *validate_tensorize_planar(const PlanarImage &src, const void *tensor_data,
                                      const TensorDesc &desc, int batch_index) {
  if (const char *reason = validate_planar_image(src)) return reason;
  if (desc.dtype != DataType::kFloat32 && desc.dtype != DataType::kFloat16) {
    return "a tensor made from a planar float frame holds float32 or float16";
  }
  return validate_tensor_item(tensor_data, desc, batch_index, src.width, src.height, src.channels);
}

cudaError_t tensorize_planar(const PlanarImage &src, void *tensor_data, const TensorDesc &desc,
                             int batch_index, cudaStream_t stream) {
  if (validate_tensorize_planar(src, tensor_data, desc, batch_index) != nullptr) {
    return cudaErrorInvalidValue;
  }
  const bool src_half = src.dtype == DataType::kFloat16;
  const bool dst_half = desc.dtype == DataType::kFloat16;
  if (src_half && dst_half) {
    launch_tensorize_planar<__half, __half>(src, tensor_data, desc, batch_index, stream);
  } else if (src_half) {
    launch_tensorize_planar<__half, float>(src, tensor_data, desc, batch_index, stream);
  } else if (dst_half) {
    launch_tensorize_planar<float, __half>(src, tensor_data, desc, batch_index, stream);
  } else {
    launch_tensorize_planar<float, float>(src, tensor_data, desc, batch_index, stream);
  }
  return cudaGetLastError();
}

const char *validate_tensorize_interleaved(const Image &src, ChannelOrder channel_order,
                                           const void *tensor_data, const TensorDesc &desc,
                                           int batch_index) {
  InterleavedChannelMap map;
  if (const char *reason = validate_interleaved_image(src, channel_order, &map)) return reason;
  if (desc.dtype != DataType::kUInt8) {
    return "a tensor made directly from 8-bit pixels holds uint8 (normalize first for floats)";
  }
  return validate_tensor_item(tensor_data, desc, batch_index, src.width, src.height,
                              map.num_channels);
}

cudaError_t tensorize_interleaved(const Image &src, ChannelOrder channel_order, void *tensor_data,
                                  const TensorDesc &desc, int batch_index, cudaStream_t stream) {
  if (validate_tensorize_interleaved(src, channel_order, tensor_data, desc, batch_index) !=
      nullptr) {
    return cudaErrorInvalidValue;
  }
  InterleavedChannelMap map;
  interleaved_channel_map(src.format, channel_order, &map);
  const LaunchShape shape = launch_shape_2d(src.width, src.height);
  tensorize_interleaved_kernel<<<shape.grid, shape.block, 0, stream>>>(
      src.planes[0].data, src.planes[0].pitch_bytes, src.width, src.height, map, tensor_data,
      logical_strides(desc), batch_index);
  return cudaGetLastError();
}

}  // namespace cudaprep
