// Small CUDA kernels the tests use to provoke timing hazards.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace cudaprep::test {

// Spins for `spin_ns` nanoseconds on the GPU, then copies `bytes` from src to
// dst: a reader that is still reading long after it was enqueued.
cudaError_t slow_copy(const uint8_t *src, uint8_t *dst, size_t bytes, uint64_t spin_ns,
                      cudaStream_t stream);

// Spins for `spin_ns` nanoseconds: keeps a stream busy.
cudaError_t spin(uint64_t spin_ns, cudaStream_t stream);

}  // namespace cudaprep::test
