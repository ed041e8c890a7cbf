// 2D copies of pitched images between any two of host, pinned and device
// memory. Every copy is per plane and per row (cudaMemcpy2DAsync): a flat
// memcpy of a pitched or cropped image shears its rows.
#pragma once

#include <cuda_runtime_api.h>

#include "cudaprep/image.h"

namespace cudaprep {

// Copies the visible pixels of `src` into `dst` (same format and size) on
// `stream`; the memory kinds are inferred (unified addressing).
cudaError_t copy_image(const Image &src, const Image &dst, cudaStream_t stream);

}  // namespace cudaprep
