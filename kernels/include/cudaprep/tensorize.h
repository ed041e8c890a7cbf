// Writing one frame into item `batch_index` of a batch tensor (NCHW or NHWC,
// any byte strides, typically contiguous) in a single pass over memory.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "cudaprep/image.h"
#include "cudaprep/tensor.h"

namespace cudaprep {

// Why tensorize_planar() cannot run with these arguments, in words a user
// can act on, or an empty string when it can. The source's size and channel
// count must match the tensor's; source dtype float32 or float16, tensor
// dtype float32 or float16 (float32 -> float16 rounds to nearest even,
// float16 -> float32 is exact); 0 <= batch_index < the tensor's batch.
std::string tensorize_planar_error(const PlanarImage &src, const void *tensor_data,
                                   const TensorDesc &desc, int batch_index);

// Enqueues the copy of planar `src` (channel c -> tensor channel c) into
// item `batch_index` of the tensor at `tensor_data`, converting the element
// type, and returns without waiting. cudaErrorInvalidValue (nothing
// launched) when tensorize_planar_error() is not empty, otherwise the
// launch's result.
cudaError_t tensorize_planar(const PlanarImage &src, void *tensor_data, const TensorDesc &desc,
                             int batch_index, cudaStream_t stream);

// Why tensorize_interleaved() cannot run with these arguments, in words a
// user can act on, or an empty string when it can. The source is an 8-bit
// interleaved format (RGB, BGR, RGBA, BGRA, RGBx, BGRx, GRAY8) and the
// tensor's dtype uint8 with channel_count(channel_order) channels.
std::string tensorize_interleaved_error(const Image &src, ChannelOrder channel_order,
                                        const void *tensor_data, const TensorDesc &desc,
                                        int batch_index);

// Enqueues the copy of the 8-bit pixels of `src`, unchanged, into item
// `batch_index` of a uint8 tensor, channels in `channel_order` (alpha
// dropped), and returns without waiting. cudaErrorInvalidValue (nothing
// launched) when tensorize_interleaved_error() is not empty, otherwise the
// launch's result.
cudaError_t tensorize_interleaved(const Image &src, ChannelOrder channel_order, void *tensor_data,
                                  const TensorDesc &desc, int batch_index, cudaStream_t stream);

// Compile (or load from the kernel cache, kernel_runtime.h) on the current
// device what tensorize_planar() launches for `src_dtype` planes into a
// `dtype` tensor, and what tensorize_interleaved() launches, so that the
// first frame does not wait for it. cudaErrorInvalidValue for dtypes
// tensorize_planar() refuses.
cudaError_t prepare_tensorize_planar(DataType src_dtype, DataType dtype);
cudaError_t prepare_tensorize_interleaved();

}  // namespace cudaprep
