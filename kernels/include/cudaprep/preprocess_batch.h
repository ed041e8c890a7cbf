// The batched fused preprocess: many (source view, crop, resize, normalize,
// output slot) items into one tensor in ONE kernel launch.
//
// preprocess_batch(items, count, tensor, desc, stream) writes into slot
// items[i].batch_index of the tensor exactly the bytes, bit for bit, that
//
//   preprocess(items[i].src, items[i].resize_params,
//              items[i].normalize_params, tensor, desc, items[i].batch_index)
//
// writes there (preprocess.h), for every i, and touches no other byte. Items
// may differ in source format, size, pitch, crop (a crop is a view:
// sub_image()), letterbox rectangle, pad value, colorimetry and
// normalisation constants; they share the tensor, hence its size, dtype and
// layout, and must share the interpolation method and channel order (one
// kernel is compiled per method; the channel count is the tensor's).
//
// Launches: one per kMaxPreprocessBatchItems items (the item list travels
// in the kernel's parameters, so nothing is copied to the device first and
// the call allocates nothing); a batch of up to that many, of one source
// format, is one launch. Items of several formats (or orientations) are
// launched format by format, each with the kernel compiled for its format
// (kernel_runtime.h): what each format's chain prepared.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "cudaprep/image.h"
#include "cudaprep/normalize.h"
#include "cudaprep/resize.h"
#include "cudaprep/tensor.h"

namespace cudaprep {

// Items one launch of the batched kernel carries.
constexpr int kMaxPreprocessBatchItems = 96;

struct PreprocessItem {
  Image src;                   // the source view (a region: sub_image() of the frame)
  ResizeParams resize_params;  // into the tensor's height x width
  NormalizeParams normalize_params;
  int batch_index = 0;  // the tensor slot this item fills
};

// Why preprocess_batch() cannot run with these arguments, in words naming
// the item, or an empty string when it can. Every item must pass
// preprocess_params_error(); all items share items[0]'s interpolation and
// channel order; no two items fill the same slot; count >= 0 (0 launches
// nothing). Cheap: no device access.
std::string preprocess_batch_error(const PreprocessItem *items, int count, const void *tensor_data,
                                   const TensorDesc &desc);

// Enqueues the batched kernel on `stream` and returns without waiting.
// cudaErrorInvalidValue (nothing launched) when preprocess_batch_error() is
// not empty, otherwise the first failing launch's result.
cudaError_t preprocess_batch(const PreprocessItem *items, int count, void *tensor_data,
                             const TensorDesc &desc, cudaStream_t stream);

// Compiles (or loads from the kernel cache, kernel_runtime.h) on the current
// device what preprocess_batch() launches for batches of up to `max_items`
// items whose sources are of `formats` (any mix of them), with
// `resize_params`'s interpolation, antialias and orientation, into a
// `dtype` tensor. A batch holding a format not listed compiles its kernel
// when it is launched.
cudaError_t prepare_preprocess_batch(const PixelFormat *formats, int format_count,
                                     const ResizeParams &resize_params, DataType dtype,
                                     int max_items);

}  // namespace cudaprep
