// NVRTC stand-in for <cuda_runtime_api.h>: NVRTC declares cudaError_t;
// the shared headers name cudaStream_t in host declarations.
#pragma once
typedef struct CUstream_st *cudaStream_t;
