// cudatensorsink: where an application takes the tensors of a cudaprep
// pipeline, as appsink hands out samples.
//
// Getting a tensor (link with libgstcudaprep-1.0, include this header):
//
//   GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
//   GstSample *sample = gst_cuda_tensor_sink_pull_tensor(GST_CUDA_TENSOR_SINK(sink));
//   // NULL: EOS, or the sink stopped.
//   const GstCudaPrepTensor *tensor = gst_cuda_tensor_sink_sample_get_tensor(sample);
//   // tensor->data: device pointer on tensor->device_id; tensor->dims and
//   // tensor->strides (bytes) in layout order (image_layout NCHW or NHWC);
//   // tensor->batch_filled items hold frames, tensor->items[i].pts and
//   // .geometry map item i back to its source frame.
//
//   // Make YOUR stream wait for the tensor on the GPU (no host sync):
//   gst_cuda_tensor_sink_sample_begin_read(sample, my_stream);
//   //   (the same as cudaStreamWaitEvent(my_stream, tensor->ready_event, 0))
//   enqueue_inference(tensor->data, my_stream);  // TensorRT enqueueV3, a kernel...
//   // Before dropping the sample, tell the pool that my_stream reads it, so
//   // that the memory is not rewritten before those reads finish:
//   gst_cuda_tensor_sink_sample_end_read(sample, my_stream);
//   gst_sample_unref(sample);
//
// Or zero-copy into PyTorch/CuPy through DLPack:
//   DLManagedTensor *dl = gst_cuda_tensor_sink_sample_to_dlpack(sample, torch_stream);
//   gst_sample_unref(sample);  // the DLPack tensor keeps the buffer alive
//   ... the consumer calls dl->deleter(dl) when done.
#pragma once

#include <cuda_runtime_api.h>
#include <dlpack/dlpack.h>
#include <gst/base/gstbasesink.h>
#include <gst/gst.h>

#include "gstcudaprepmeta.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_TENSOR_SINK (gst_cuda_tensor_sink_get_type())
G_DECLARE_FINAL_TYPE(GstCudaTensorSink, gst_cuda_tensor_sink, GST, CUDA_TENSOR_SINK, GstBaseSink)

GST_ELEMENT_REGISTER_DECLARE(cudatensorsink);

// The next tensor, waiting for one while the sink is playing. NULL at EOS
// (once the queued tensors are taken) or when the sink stops or flushes.
// The sample holds the buffer (with its GstCudaPrepTensorMeta), the caps and
// the segment. Same as the "pull-tensor" action signal.
GstSample *gst_cuda_tensor_sink_pull_tensor(GstCudaTensorSink *sink);

// As pull_tensor, waiting at most `timeout` (GST_CLOCK_TIME_NONE: forever);
// NULL on timeout too. Same as the "try-pull-tensor" action signal.
GstSample *gst_cuda_tensor_sink_try_pull_tensor(GstCudaTensorSink *sink, GstClockTime timeout);

// Whether EOS was reached and every tensor taken.
gboolean gst_cuda_tensor_sink_is_eos(GstCudaTensorSink *sink);

// The image tensor of a pulled sample, or NULL if it has none. Valid while
// the sample lives.
const GstCudaPrepTensor *gst_cuda_tensor_sink_sample_get_tensor(GstSample *sample);

// Makes `stream` (NULL: the legacy default stream) wait on the GPU until the
// tensor is written; the host does not wait.
cudaError_t gst_cuda_tensor_sink_sample_begin_read(GstSample *sample, cudaStream_t stream);

// Records that `stream` has enqueued its reads of the tensor: the pipeline
// will not rewrite the tensor's memory before they finish. Call it before
// dropping the sample whenever another stream read the tensor.
cudaError_t gst_cuda_tensor_sink_sample_end_read(GstSample *sample, cudaStream_t stream);

// A DLPack (0.6) view of the sample's tensor, zero-copy, on kDLCUDA device
// tensor->device_id. Its shape is dims in layout order with N =
// batch_filled (the frames, without a partial batch's padding). `stream`
// (NULL: the legacy default stream, PyTorch's default) is the consumer's:
// it is made to wait for the tensor here, and the deleter records that
// stream's reads before releasing the buffer, so the stream must outlive the
// DLPack tensor. The DLManagedTensor holds a reference to the buffer until
// its deleter runs (exactly once, by the consumer). NULL if the sample has
// no tensor or the export fails.
DLManagedTensor *gst_cuda_tensor_sink_sample_to_dlpack(GstSample *sample, cudaStream_t stream);

G_END_DECLS
