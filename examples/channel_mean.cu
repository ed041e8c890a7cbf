#include "channel_mean.h"

namespace {

constexpr int kThreads = 256;

__global__ void channel_means_kernel(const float *nchw, int plane_size, float *means) {
  __shared__ float partial[kThreads];
  const float *plane = nchw + static_cast<size_t>(blockIdx.x) * plane_size;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < plane_size; i += kThreads) sum += plane[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) means[blockIdx.x] = partial[0] / plane_size;
}

}  // namespace

cudaError_t channel_means(const float *nchw, int batch, int channels, int plane_size, float *means,
                          cudaStream_t stream) {
  if (batch <= 0 || channels <= 0 || plane_size <= 0) return cudaErrorInvalidValue;
  channel_means_kernel<<<batch * channels, kThreads, 0, stream>>>(nchw, plane_size, means);
  return cudaGetLastError();
}
