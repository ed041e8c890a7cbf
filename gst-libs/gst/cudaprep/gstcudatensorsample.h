/**
 * SECTION:cudaprep-tensorsample
 *
 * Reading the tensor of a sample pulled from cudatensorsink: the tensor
 * itself, ordering a stream after it, the zero-copy DLPack export and a copy
 * to host memory. These functions look only at the sample (its buffer's
 * cudaprep memory and GstCudaPrepTensorMeta), never at the sink: a sample
 * stays readable after the sink is gone. gstcudatensorsink.h and cudaprep.h
 * include this header; see gstcudatensorsink.h for how to pull samples.
 */
#pragma once

#include <cuda_runtime_api.h>
#include <dlpack/dlpack.h>
#include <gst/gst.h>

#include "cudaprep-prelude.h"

#include "gstcudaprepdlpack.h"
#include "gstcudaprepmeta.h"

G_BEGIN_DECLS

/**
 * gst_cuda_prep_tensor_sink_sample_get_tensor:
 * @sample: a sample pulled from the sink
 *
 * Returns: (transfer none) (nullable): the sample's image tensor, or NULL
 *   if it has none; valid while the sample lives
 */
GST_CUDA_PREP_API const GstCudaPrepTensor *gst_cuda_prep_tensor_sink_sample_get_tensor(
    GstSample *sample);

/**
 * gst_cuda_prep_tensor_sink_sample_begin_read: (skip)
 * @sample: a sample pulled from the sink
 * @stream: the stream that will read the tensor (NULL: the legacy default
 *   stream)
 *
 * Makes @stream wait on the GPU until the tensor is written; the host does
 * not wait.
 *
 * Returns: the first failing CUDA call's error, or cudaSuccess
 */
GST_CUDA_PREP_API cudaError_t gst_cuda_prep_tensor_sink_sample_begin_read(GstSample *sample,
                                                                          cudaStream_t stream);

/**
 * gst_cuda_prep_tensor_sink_sample_end_read: (skip)
 * @sample: a sample pulled from the sink
 * @stream: the stream that read the tensor (NULL: the legacy default
 *   stream)
 *
 * Records that @stream has enqueued its reads of the tensor: the pipeline
 * will not rewrite the tensor's memory before they finish. Call it before
 * dropping the sample whenever another stream read the tensor.
 *
 * Returns: the first failing CUDA call's error, or cudaSuccess
 */
GST_CUDA_PREP_API cudaError_t gst_cuda_prep_tensor_sink_sample_end_read(GstSample *sample,
                                                                        cudaStream_t stream);

/**
 * gst_cuda_prep_tensor_sink_sample_to_dlpack: (skip)
 * @sample: a sample pulled from the sink
 * @stream: the consumer's stream (NULL: the legacy default stream,
 *   PyTorch's default)
 *
 * A DLPack (0.6) view of the sample's tensor, zero-copy, on kDLCUDA device
 * tensor->device_id. Its shape is dims in layout order with N =
 * batch_filled (the frames, without a partial batch's padding). @stream is
 * made to wait for the tensor here, and the deleter records that stream's
 * reads before releasing the buffer, so the stream must outlive the DLPack
 * tensor. The DLManagedTensor holds a reference to the buffer until its
 * deleter runs (exactly once, by the consumer).
 *
 * Returns: (nullable): the DLPack tensor, or NULL if the sample has no
 *   tensor or the export fails
 */
GST_CUDA_PREP_API DLManagedTensor *gst_cuda_prep_tensor_sink_sample_to_dlpack(GstSample *sample,
                                                                              cudaStream_t stream);

/**
 * gst_cuda_prep_tensor_sink_sample_export_dlpack: (skip)
 * @sample: a sample pulled from the sink
 * @stream: the consumer's stream
 * @flags: the struct and the synchronisation
 *
 * As gst_cuda_prep_tensor_sink_sample_to_dlpack(), with @flags choosing the
 * struct and the synchronisation (the Python array API's __dlpack__):
 *
 * - %GST_CUDA_PREP_DLPACK_VERSIONED: returns a
 *   #GstCudaPrepDLManagedTensorVersioned (DLPack 1.0), else a
 *   DLManagedTensor (0.6);
 * - %GST_CUDA_PREP_DLPACK_CONSUMER_SYNCS (__dlpack__(stream=-1)): @stream
 *   is ignored: nothing waits here and the deleter records no reads. The
 *   consumer orders its reads after the tensor's ready event itself and
 *   finishes them before it calls the deleter.
 *
 * Returns: (nullable): the DLPack tensor, or NULL if the sample has no
 *   tensor or the export fails
 */
GST_CUDA_PREP_API gpointer gst_cuda_prep_tensor_sink_sample_export_dlpack(
    GstSample *sample, cudaStream_t stream, GstCudaPrepDLPackFlags flags);

/**
 * gst_cuda_prep_tensor_sink_sample_download: (skip)
 * @sample: a sample pulled from the sink
 * @dest: host memory
 * @dest_size: its bytes
 *
 * Copies the sample's tensor (batch_filled items, as the DLPack export
 * shapes it) into @dest, @dest_size bytes of host memory, densely in its
 * own layout order, and waits until the copy is done. The number of bytes
 * needed is gst_cuda_prep_tensor_sink_sample_get_size().
 *
 * Returns: cudaSuccess once the copy is done; cudaErrorInvalidValue if the
 *   sample holds no tensor or @dest_size is too small
 */
GST_CUDA_PREP_API cudaError_t gst_cuda_prep_tensor_sink_sample_download(GstSample *sample,
                                                                        gpointer dest,
                                                                        gsize dest_size);

/**
 * gst_cuda_prep_tensor_sink_sample_get_size:
 * @sample: a sample pulled from the sink
 *
 * Returns: the bytes of the sample's tensor as the DLPack export and
 *   download see it (batch_filled items), or 0 if the sample holds no
 *   tensor
 */
GST_CUDA_PREP_API gsize gst_cuda_prep_tensor_sink_sample_get_size(GstSample *sample);

G_END_DECLS
