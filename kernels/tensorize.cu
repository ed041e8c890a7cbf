#include "cudaprep/tensorize.h"

#include <cstdint>

#include "tensor_launch.cuh"
#include "tensor_ops.cuh"

namespace cudaprep {
namespace {

// How a run of device::kRunLength pixels of all channels reaches the tensor.
enum class RunStore {
  kRows,      // each channel's run is kRunLength contiguous, aligned elements (NCHW)
  kPixels,    // the run is 3 * kRunLength contiguous, aligned elements (packed NHWC, 3 channels)
  kElements,  // one element at a time, any strides
};

// Each thread moves a run of device::kRunLength pixels of a row, every channel:
// one wide load per channel (when the planes are aligned for it) and wide
// stores as `store` says; element by element for the last, partial run of a
// row. Channels are unrolled to compile-time indices so that the source
// view stays in the kernel parameter space (no per-thread stack copy).
template <typename In, typename Out>
__global__ void tensorize_planar_kernel(PlanarImage src, void *tensor,
                                        device::TensorStrides strides, int batch_index,
                                        bool wide_loads, RunStore store) {
  const int x = (blockIdx.x * blockDim.x + threadIdx.x) * device::kRunLength;
  if (x >= src.width) return;
  const int valid = min(device::kRunLength, src.width - x);
  const bool whole_run = valid == device::kRunLength;
  uint8_t *const item = static_cast<uint8_t *>(tensor) + batch_index * strides.batch;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < src.height; y += gridDim.y * blockDim.y) {
    const int64_t src_offset = y * src.pitch_bytes + x * sizeof(In);
    Out values[kMaxChannels][device::kRunLength];
#pragma unroll
    for (int c = 0; c < kMaxChannels; ++c) {
      if (c >= src.channels) break;
      const In *const row = device::byte_offset<In>(src.planes[c], src_offset);
      In loaded[device::kRunLength];
      if (wide_loads && whole_run) {
        device::load_run(row, loaded);
      } else {
#pragma unroll
        for (int i = 0; i < device::kRunLength; ++i) loaded[i] = i < valid ? row[i] : In{};
      }
#pragma unroll
      for (int i = 0; i < device::kRunLength; ++i) {
        values[c][i] = device::from_float<Out>(device::to_float(loaded[i]));
      }
    }
    uint8_t *const tensor_row = item + y * strides.height + x * strides.width;
    if (whole_run && store == RunStore::kRows) {
#pragma unroll
      for (int c = 0; c < kMaxChannels; ++c) {
        if (c >= src.channels) break;
        device::store_run(reinterpret_cast<Out *>(tensor_row + c * strides.channel), values[c]);
      }
    } else if (whole_run && store == RunStore::kPixels) {
      // Element e of the 3 * kRunLength is channel e % 3 of pixel e / 3.
#pragma unroll
      for (int chunk = 0; chunk < 3; ++chunk) {
        Out run[device::kRunLength];
#pragma unroll
        for (int i = 0; i < device::kRunLength; ++i) {
          const int e = chunk * device::kRunLength + i;
          run[i] = values[e % 3][e / 3];
        }
        device::store_run(reinterpret_cast<Out *>(tensor_row) + chunk * device::kRunLength, run);
      }
    } else {
#pragma unroll
      for (int c = 0; c < kMaxChannels; ++c) {
        if (c >= src.channels) break;
#pragma unroll
        for (int i = 0; i < device::kRunLength; ++i) {
          if (i < valid) {
            device::store_element(tensor_row, c * strides.channel + i * strides.width,
                                  values[c][i]);
          }
        }
      }
    }
  }
}

__global__ void tensorize_interleaved_kernel(const uint8_t *src, size_t src_pitch_bytes, int width,
                                             int height, InterleavedChannelMap map, void *tensor,
                                             device::TensorStrides strides, int batch_index) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y) {
    const uint8_t *pixel = src + y * src_pitch_bytes + x * map.bytes_per_pixel;
    for (int c = 0; c < map.num_channels; ++c) {
      device::store_element(tensor, device::tensor_offset(strides, batch_index, c, y, x),
                            pixel[map.source_offset[c]]);
    }
  }
}

// The widest way runs of `channels` channels of `Out` can be stored into
// item `batch_index` of the tensor.
template <typename Out>
RunStore run_store(const void *tensor_data, const TensorDesc &desc, int batch_index, int channels) {
  const device::TensorStrides strides = logical_strides(desc);
  constexpr size_t kRunBytes = device::kRunLength * sizeof(Out);
  const uint8_t *const item =
      static_cast<const uint8_t *>(tensor_data) + batch_index * strides.batch;
  if (!is_aligned(item, strides.height, kRunBytes)) return RunStore::kElements;
  const int64_t element = static_cast<int64_t>(sizeof(Out));
  if (strides.width == element && (channels == 1 || strides.channel % kRunBytes == 0)) {
    return RunStore::kRows;
  }
  if (channels == 3 && strides.channel == element && strides.width == 3 * element) {
    return RunStore::kPixels;
  }
  return RunStore::kElements;
}

template <typename In, typename Out>
void launch_tensorize_planar(const PlanarImage &src, void *tensor_data, const TensorDesc &desc,
                             int batch_index, cudaStream_t stream) {
  bool wide_loads = true;
  for (int c = 0; c < src.channels; ++c) {
    wide_loads = wide_loads && is_aligned(src.planes[c], static_cast<int64_t>(src.pitch_bytes),
                                          device::kRunLength * sizeof(In));
  }
  const RunStore store = run_store<Out>(tensor_data, desc, batch_index, src.channels);
  const LaunchShape shape = launch_shape_2d(src.width, src.height, device::kRunLength);
  tensorize_planar_kernel<In, Out><<<shape.grid, shape.block, 0, stream>>>(
      src, tensor_data, logical_strides(desc), batch_index, wide_loads, store);
}

}  // namespace

std::string tensorize_planar_error(const PlanarImage &src, const void *tensor_data,
                                   const TensorDesc &desc, int batch_index) {
  const std::string reason = planar_image_error(src);
  if (!reason.empty()) return reason;
  if (desc.dtype != DataType::kFloat32 && desc.dtype != DataType::kFloat16) {
    return "a tensor made from a planar float frame holds float32 or float16";
  }
  return tensor_item_error(tensor_data, desc, batch_index, src.width, src.height, src.channels);
}

cudaError_t tensorize_planar(const PlanarImage &src, void *tensor_data, const TensorDesc &desc,
                             int batch_index, cudaStream_t stream) {
  if (!tensorize_planar_error(src, tensor_data, desc, batch_index).empty()) {
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

std::string tensorize_interleaved_error(const Image &src, ChannelOrder channel_order,
                                        const void *tensor_data, const TensorDesc &desc,
                                        int batch_index) {
  InterleavedChannelMap map;
  const std::string reason = interleaved_image_error(src, channel_order, &map);
  if (!reason.empty()) return reason;
  if (desc.dtype != DataType::kUInt8) {
    return "a tensor made directly from 8-bit pixels holds uint8 (normalize first for floats)";
  }
  return tensor_item_error(tensor_data, desc, batch_index, src.width, src.height, map.num_channels);
}

cudaError_t tensorize_interleaved(const Image &src, ChannelOrder channel_order, void *tensor_data,
                                  const TensorDesc &desc, int batch_index, cudaStream_t stream) {
  if (!tensorize_interleaved_error(src, channel_order, tensor_data, desc, batch_index).empty()) {
    return cudaErrorInvalidValue;
  }
  InterleavedChannelMap map;
  interleaved_channel_map(src.format, channel_order, &map);
  const LaunchShape shape = launch_shape_2d(src.width, src.height, 1);
  tensorize_interleaved_kernel<<<shape.grid, shape.block, 0, stream>>>(
      src.planes[0].data, src.planes[0].pitch_bytes, src.width, src.height, map, tensor_data,
      logical_strides(desc), batch_index);
  return cudaGetLastError();
}

}  // namespace cudaprep
