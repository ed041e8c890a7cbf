// Host side of the two-pass antialiased shrink (antialias_two_pass_ops.cuh)
// that needs no device code: which path preprocess() and resize() take, and
// the memory of their intermediate.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "cudaprep/image.h"
#include "cudaprep/resize.h"

namespace cudaprep {

// Which sampler preprocess() and resize() run for antialiased bilinear and
// bicubic: kChosen, the two passes where antialias_two_pass_launch.cuh's
// two_pass_plan() chooses them; kSinglePass, never (the tiled kernel of
// resize_tile.cuh); kTwoPass, wherever they fit (for resize(), not where
// the destination keeps a source's alpha). Process-wide, for tests and
// benchmarks that compare the paths; the outputs are the same bits.
enum class AntialiasPath { kChosen, kSinglePass, kTwoPass };

void set_antialias_path(AntialiasPath path);
AntialiasPath antialias_path();

// Whether preprocess() of `src` into a width x height tensor takes the two
// passes on the chosen path on the current device: the plan's choice for
// the frame's reader and geometry (a device without memory pools runs the
// single pass all the same). For the benchmarks and tests that time or
// check the chosen path.
cudaError_t preprocess_chooses_two_passes(const Image &src, const ResizeParams &resize_params,
                                          int width, int height, bool *two_passes);

// `bytes` of device memory for the row sums, ordered on `stream` (stream
// ordered allocation) from a pool of the current device's own that keeps
// what is freed: after the first frames, no call reaches the driver's
// allocator. The pool never releases its memory (its high-water mark: the
// largest intermediates in flight at once, 12.4 MB for a 4K -> 455x256
// shrink). cudaErrorNotSupported where the device has no memory pools.
cudaError_t allocate_row_sums(size_t bytes, cudaStream_t stream, float **data);
// Returns the memory to the pool once `stream` has run what came before.
cudaError_t free_row_sums(float *data, cudaStream_t stream);

// Makes the current device's pool now (prepare_preprocess(): when caps are
// set, not in a frame's launch, which may be under stream capture);
// cudaSuccess where the device has no memory pools (the single pass runs).
cudaError_t prepare_row_sums_pool();

}  // namespace cudaprep
