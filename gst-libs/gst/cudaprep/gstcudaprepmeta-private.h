// The C++ side of the tensor meta (not installed; the library, the plugin
// and the tests use it): the one conversion point between the public tensor
// struct and the kernel library's TensorDesc. The geometry's conversion is
// in gstcudaprepgeometry-private.h; the buffer's geometry as a FrameGeometry
// (the plugin's accessors) in gst/cudaprep/base/gstcudapreppixelmetas.h.
#pragma once

#include <cuda_runtime_api.h>
#include <gst/gst.h>

#include "cudaprep/tensor.h"
#include "gstcudaprepmeta.h"

// --- Tensor descriptions ----------------------------------------------------

// Describes `tensor` as the rank-4 image tensor `desc` at device pointer
// `data` on `device_id`; (re)allocates batch_size = N items, each with no PTS
// and identity geometry, and sets batch_filled to 0; clip_length to 0, its
// clip arrays freed (NULL). `tensor` is one of a meta's (zeroed when added)
// or one set before. False if desc has a non-positive dim or a negative
// stride.
gboolean gst_cuda_prep_tensor_set_from_desc(GstCudaPrepTensor *tensor, GQuark id,
                                            const cudaprep::TensorDesc &desc, gpointer data,
                                            gint device_id, cudaEvent_t ready_event);

// Describes `tensor` as the rank-5 clip tensor `desc`, as
// gst_cuda_prep_tensor_set_from_desc() does an image tensor; also sets
// clip_length = T and (re)allocates clip_filled (zeros) and frame_pts (NONE).
// dims and strides are desc's (layout order); layout CONTIGUOUS when dense.
gboolean gst_cuda_prep_tensor_set_from_clip_desc(GstCudaPrepTensor *tensor, GQuark id,
                                                 const cudaprep::ClipDesc &desc, gpointer data,
                                                 gint device_id, cudaEvent_t ready_event);

// The kernel library's description of `tensor`; false if it is not an image
// (rank 4, NCHW or NHWC) or clip (rank 5, NCTHW or NTCHW) tensor of a type
// the kernels know (uint8, float16, float32). A
// clip tensor is described by its items' first frames ({N, C, H, W} with
// the clip's batch, channel, row and column strides): what the box helper
// needs of it.
gboolean gst_cuda_prep_tensor_to_desc(const GstCudaPrepTensor *tensor, cudaprep::TensorDesc *desc);

// `tensor` as an array of any rank (dims and byte strides as the meta holds
// them): what copies to the host, .npy files and DLPack take. False if its
// type is not one the kernels know, its dims are not row-major, num_dims is
// not 1 to kMaxArrayRank or a dim or stride does not fit.
gboolean gst_cuda_prep_tensor_to_array(const GstCudaPrepTensor *tensor, cudaprep::ArrayDesc *array);
