// CHECK_CUDA(call): a benchmark stops at the first failing CUDA call,
// naming it and its error.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(call)                                                             \
  do {                                                                               \
    const cudaError_t check_cuda_error = (call);                                     \
    if (check_cuda_error != cudaSuccess) {                                           \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(check_cuda_error)); \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)
