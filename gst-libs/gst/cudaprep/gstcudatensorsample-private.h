// What the sample API shares with the tensor sink and its .npy writer (not
// installed): the tensor a buffer holds, and the one way the library copies
// a tensor to host memory.
#pragma once

#include <cuda_runtime_api.h>
#include <gst/gst.h>

#include "cudaprep/tensor.h"
#include "gstcudaprepmeta.h"

// The sink's debug category (its class_init registers it), which the sample
// API and the .npy writer log to.
GST_DEBUG_CATEGORY_EXTERN(gst_cuda_prep_tensor_sink_debug);

// The tensor of `buffer` (an image or clip tensor) as an array of its rank,
// dims[0] (N) cut to the items holding frames (a partial batch's padding
// left out): what the DLPack export, the download and the .npy files show.
// False if the buffer has no tensor meta or its first tensor is not an
// image or clip tensor the kernels know (gst_cuda_prep_tensor_to_desc()).
bool gst_cuda_prep_filled_tensor_array(GstBuffer *buffer, const GstCudaPrepTensor **tensor,
                                       cudaprep::ArrayDesc *array);

// Copies array_span_bytes(`array`) bytes from `tensor`->data (`array` as
// gst_cuda_prep_filled_tensor_array() gives it; for a contiguous tensor the
// dense bytes in memory order) to `dest`, host memory of at least that many
// bytes, and waits until they are there. `memory` is the cudaprep memory
// holding the tensor: the copy waits for its last write (begin_read) and is
// recorded as a read of it (end_read), so the pool does not rewrite it
// before the copy is done. Makes tensor->device_id current for the call
// only. Returns the first failing call's error (not consumed: the caller
// reports it) and, if `failed_call` is not NULL, sets it to that call's
// name (NULL on success).
cudaError_t gst_cuda_prep_tensor_copy_to_host(GstMemory *memory, const GstCudaPrepTensor *tensor,
                                              const cudaprep::ArrayDesc &array, gpointer dest,
                                              const gchar **failed_call);
