// Normalisation of an 8-bit interleaved frame into a planar float frame:
//   y[c] = (x[c] * scale - mean[c]) / std[c]
// with the output channels in the requested order (RGB or BGR whatever the
// source order; alpha and padding bytes dropped; GRAY8 gives GRAY, or three
// equal channels when RGB/BGR is asked for). Each operation is evaluated in
// IEEE float32 (no FMA contraction); float16 output is that float32 value
// rounded to nearest, ties to even.
//
// Between cudanormalize and cudatensorize the frame travels as
//   application/x-cudaprep-planar(memory:CUDAPitched),
//     dtype=(string){float32,float16}, channels=(int)[1,3],
//     channel-order=(string){RGB,BGR,GRAY}, width, height, framerate
// (the spellings are data_type_name() and channel_order_name()): one pitched
// plane per channel, channel 0 first (CHW), all planes sharing one pitch.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "cudaprep/image.h"
#include "cudaprep/tensor.h"

namespace cudaprep {

// NormalizeParams (the scale, means, stds and channel order) is in tensor.h,
// which needs no CUDA headers.

// Why normalize() cannot run with these arguments, in words a user can act
// on, or an empty string when it can. `src` is an 8-bit interleaved view
// that can give params.channel_order; `dst` must have the source's size,
// channel_count(params.channel_order) planes, dtype float32 or float16, and
// element-aligned planes and pitch; the constants finite, no std 0.
std::string normalize_error(const Image &src, const PlanarImage &dst,
                            const NormalizeParams &params);

// Enqueues the normalisation of `src` into `dst` on `stream` and returns
// without waiting. cudaErrorInvalidValue (nothing launched) when
// normalize_error() is not empty, otherwise the launch's result (the first
// launch of a variant compiles it: kernel_runtime.h).
cudaError_t normalize(const Image &src, const PlanarImage &dst, const NormalizeParams &params,
                      cudaStream_t stream);

// Compiles (or loads from the kernel cache) on the current device what
// normalize() launches for 8-bit `src_format` frames into `dtype` planes
// with `order`, so that the first frame does not wait for it.
// cudaErrorInvalidValue for a combination normalize() refuses; otherwise
// as kernel_runtime.h's requests.
cudaError_t prepare_normalize(PixelFormat src_format, ChannelOrder order, DataType dtype);

}  // namespace cudaprep
