// Writing one frame into item `batch_index` of a batch tensor (NCHW or NHWC,
// any byte strides, typically contiguous) in a single pass over memory.
#pragma once

#include <cuda_runtime_api.h>

#include "cudaprep/image.h"
#include "cudaprep/tensor.h"

namespace cudaprep {

// Why tensorize_planar() would refuse these arguments, or nullptr. The
// source's size and channel count must match the tensor's; source dtype
// float32 or float16, tensor dtype float32 or float16 (float32 -> float16
// rounds to nearest even, float16 -> float32 is exact).
const char *validate_tensorize_planar(const PlanarImage &src, const void *tensor_data,
                                      const TensorDesc &desc, int batch_index);

// Copies planar `src` (channel c -> tensor channel c) into item
// `batch_index` of the tensor at `tensor_data`, converting the element type.
cudaError_t tensorize_planar(const PlanarImage &src, void *tensor_data, const TensorDesc &desc,
                             int batch_index, cudaStream_t stream);

// Why tensorize_interleaved() would refuse these arguments, or nullptr. The
// source is an 8-bit interleaved format (RGB, BGR, RGBA, BGRA, RGBx, BGRx,
// GRAY8) and the tensor's dtype uint8 with channel_count(channel_order)
// channels.
const char *validate_tensorize_interleaved(const Image &src, ChannelOrder channel_order,
                                           const void *tensor_data, const TensorDesc &desc,
                                           int batch_index);

// Copies the 8-bit pixels of `src` unchanged into item `batch_index` of a
// uint8 tensor, channels in `channel_order` (alpha dropped).
cudaError_t tensorize_interleaved(const Image &src, ChannelOrder channel_order, void *tensor_data,
                                  const TensorDesc &desc, int batch_index, cudaStream_t stream);

}  // namespace cudaprep
