#include "common/gpu_helpers.h"

namespace cudaprep::test {
namespace {

__device__ uint64_t global_timer_ns() {
  uint64_t now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__device__ void spin_for(uint64_t spin_ns) {
  const uint64_t start = global_timer_ns();
  while (global_timer_ns() - start < spin_ns) {
  }
}

__global__ void slow_copy_kernel(const uint8_t *src, uint8_t *dst, size_t bytes, uint64_t spin_ns) {
  spin_for(spin_ns);
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < bytes;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

__global__ void spin_kernel(uint64_t spin_ns) {
  spin_for(spin_ns);
}

}  // namespace

cudaError_t slow_copy(const uint8_t *src, uint8_t *dst, size_t bytes, uint64_t spin_ns,
                      cudaStream_t stream) {
  slow_copy_kernel<<<32, 256, 0, stream>>>(src, dst, bytes, spin_ns);
  return cudaGetLastError();
}

cudaError_t spin(uint64_t spin_ns, cudaStream_t stream) {
  spin_kernel<<<1, 1, 0, stream>>>(spin_ns);
  return cudaGetLastError();
}

}  // namespace cudaprep::test
