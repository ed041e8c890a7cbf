// The fused preprocess: resize (with colour conversion and letterbox),
// normalize and tensorize of one frame in ONE kernel, which reads the source
// once and writes the tensor item once, with no intermediate frames.
//
// preprocess(src, resize_params, normalize_params, tensor, desc, i, stream)
// writes into item i of the tensor exactly the bytes, bit for bit, that this
// chain writes there:
//
//   resize(src, R, resize_params)        R: desc's width x height, 8-bit RGB
//                                        (GRAY8 when normalize_params.
//                                        channel_order is kGray)
//   normalize(R, P, normalize_params)    P: planar, desc.dtype
//   tensorize_planar(P, tensor, desc, i)
//
// In particular each sampled value is rounded to 8 bits exactly as resize()
// stores it before it is normalised, so the definitions of resize.h and
// normalize.h (and their tolerances against OpenCV and the CPU references)
// hold unchanged. It touches no other byte of the tensor.
//
// Sources deeper than 8 bits (P010, P012, P016) are the one exception: an
// 8-bit RGB frame cannot hold their precision, so each resampled value is
// clamped to [0, 255] and normalised unrounded (the fused chain keeps 10
// bits; an unfused chain through an 8-bit frame rounds them).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "cudaprep/image.h"
#include "cudaprep/resize.h"
#include "cudaprep/tensor.h"

namespace cudaprep {

// Why preprocess() cannot run with these arguments, in words a user can act
// on, or an empty string when it can. `src` is any resize() source view (any
// format of image.h, any offset and pitch: a crop is a view); the output
// size is the tensor's height x width, in which resize_params.dst_rect
// lies or which it covers in part (resize.h); the tensor has dtype float32
// or float16, non-negative byte strides that are multiples of the element
// size (NCHW or NHWC, typically contiguous),
// channel_count(normalize_params.channel_order) channels, and 0 <=
// batch_index < its batch. Cheap when valid: call it at configure time.
std::string preprocess_params_error(const Image &src, const ResizeParams &resize_params,
                                    const NormalizeParams &normalize_params,
                                    const void *tensor_data, const TensorDesc &desc,
                                    int batch_index);

// Enqueues the fused kernel on `stream` and returns without waiting.
// cudaErrorInvalidValue (nothing launched) when preprocess_params_error() is
// not empty, otherwise the launch's result. `src` and the tensor must not
// overlap. Antialiased shrinks of many horizontal taps (aligned NV12, I420
// and P01x frames shrunk about 3.3x or more bicubic, 6.5x bilinear; 32-bit
// RGB 4x bicubic, 15x bilinear) run in two kernels, their intermediate row
// sums in memory ordered on `stream` from a pool of the library's own per
// device, which keeps what they free: no allocation reaches the driver once
// frames of that size have run. Otherwise it allocates nothing.
cudaError_t preprocess(const Image &src, const ResizeParams &resize_params,
                       const NormalizeParams &normalize_params, void *tensor_data,
                       const TensorDesc &desc, int batch_index, cudaStream_t stream);

// As preprocess(), into item `batch_index` of each of `count` (>= 1)
// tensors alike (each described by `desc`, at its own pointer): the source
// is read and resampled once, and each tensor gets the bytes preprocess()
// would write there. Clips that overlap take a frame this way into each
// clip that holds it. cudaErrorInvalidValue (nothing launched) when
// preprocess_params_error() is not empty for one of them; the tensors must
// not overlap each other or `src`.
cudaError_t preprocess_into_each(const Image &src, const ResizeParams &resize_params,
                                 const NormalizeParams &normalize_params, void *const *tensors,
                                 int count, const TensorDesc &desc, int batch_index,
                                 cudaStream_t stream);

// Compiles (or loads from the kernel cache, kernel_runtime.h) on the current
// device what preprocess() launches for `src_format` frames with
// `resize_params`'s interpolation, antialias and orientation into a `dtype`
// tensor, so that the first frame does not wait for it; antialiased, also
// the two passes' kernels and memory pool.
// cudaErrorInvalidValue for a format or dtype preprocess() refuses.
cudaError_t prepare_preprocess(PixelFormat src_format, const ResizeParams &resize_params,
                               DataType dtype);

}  // namespace cudaprep
