// A stand-in for the application's own GPU work (e.g. TensorRT enqueue).
#pragma once

#include <cuda_runtime_api.h>

// means[n * channels + c] = mean of plane (n, c) of a contiguous NCHW float32
// tensor; one block per plane, enqueued on `stream`.
cudaError_t channel_means(const float *nchw, int batch, int channels, int plane_size, float *means,
                          cudaStream_t stream);
