// Zero-copy export of a device tensor as a DLPack DLManagedTensor (DLPack
// 0.6, the Debian libdlpack-dev header), for PyTorch, CuPy, cuda-python...
// The consumer calls the managed tensor's deleter exactly once when done;
// the deleter calls the producer's release callback (cudatensorsink passes
// one that unrefs the GstBuffer owning the memory) and frees the rest.
#pragma once

#include <dlpack/dlpack.h>

#include "cudaprep/tensor.h"

namespace cudaprep {

using DLPackReleaseCallback = void (*)(void *user_data);

// The DLPack type of `dtype`: uint8 -> {kDLUInt, 8, 1}, float16 ->
// {kDLFloat, 16, 1}, float32 -> {kDLFloat, 32, 1}.
DLDataType dlpack_data_type(DataType dtype);

// A DLManagedTensor of `array` (an image or clip tensor, array_desc()) over
// `device_data` on CUDA device `device_id` (kDLCUDA). ndim is array.rank;
// shape is array.dims (memory order); strides are its byte strides divided
// by the element size, as DLPack counts them in elements. `release` (may be
// null) is called with `user_data` by the deleter. Returns nullptr, without
// calling `release`, when the array cannot be expressed (rank not 1 to
// kMaxArrayRank, non-positive dim, stride not a multiple of the element
// size) or memory runs out: the caller still owns what user_data stands for.
DLManagedTensor *export_dlpack(const ArrayDesc &array, void *device_data, int device_id,
                               DLPackReleaseCallback release, void *user_data);

}  // namespace cudaprep
