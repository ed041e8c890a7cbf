/**
 * SECTION:cudaprep-tensorsink
 *
 * cudatensorsink: where an application takes the tensors of a cudaprep
 * pipeline, as appsink hands out samples.
 *
 * Getting a tensor (link with libgstcudaprep-1.0, include this header; the
 * gst_cuda_prep_tensor_sink_sample_* functions that read a pulled sample are in
 * gstcudatensorsample.h, which it includes):
 *
 * |[<!-- language="C" -->
 *   GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
 *   // consumer=application: the sink keeps every tensor for this
 *   // application from the first one on (see "Who takes the tensors" below).
 *   gst_util_set_object_arg(G_OBJECT(sink), "consumer", "application");
 *   gst_element_set_state(pipeline, GST_STATE_PLAYING);
 *   GstSample *sample = gst_cuda_prep_tensor_sink_pull_tensor(GST_CUDA_PREP_TENSOR_SINK(sink));
 *   // NULL: EOS, a flush, or the sink stopped.
 *   const GstCudaPrepTensor *tensor = gst_cuda_prep_tensor_sink_sample_get_tensor(sample);
 *   // tensor->data: device pointer on tensor->device_id; tensor->dims and
 *   // tensor->strides (bytes) in layout order (image_layout NCHW or NHWC);
 *   // tensor->batch_filled items hold frames, tensor->items[i].pts and
 *   // .geometry map item i back to its source frame.
 *
 *   // Make YOUR stream wait for the tensor on the GPU (no host sync):
 *   gst_cuda_prep_tensor_sink_sample_begin_read(sample, my_stream);
 *   //   (the same as cudaStreamWaitEvent(my_stream, tensor->ready_event, 0))
 *   enqueue_inference(tensor->data, my_stream);  // TensorRT enqueueV3, a kernel...
 *   // Before dropping the sample, tell the pool that my_stream reads it, so
 *   // that the memory is not rewritten before those reads finish:
 *   gst_cuda_prep_tensor_sink_sample_end_read(sample, my_stream);
 *   gst_sample_unref(sample);
 * ]|
 *
 * Or zero-copy into PyTorch/CuPy through DLPack:
 *
 * |[<!-- language="C" -->
 *   DLManagedTensor *dl = gst_cuda_prep_tensor_sink_sample_to_dlpack(sample, torch_stream);
 *   gst_sample_unref(sample);  // the DLPack tensor keeps the buffer alive
 *   // ... the consumer calls dl->deleter(dl) when done.
 * ]|
 *
 * Who takes the tensors (the "consumer" property):
 *
 * - auto (default): the sink holds tensors for an application once one has
 *   shown itself: it called pull/try-pull (once is enough, even one that
 *   returned NULL), set callbacks with new_tensor, or connected a
 *   new-tensor handler with emit-signals=true. Until then nobody takes them
 *   (gst-launch-1.0): a full queue drops its oldest tensor, EOS does not
 *   wait, and the pipeline runs to the end. An application that only
 *   pulls, and starts pulling after tensors may already have arrived, sets
 *   consumer=application (or calls try_pull_tensor(sink, 0) before going to
 *   PLAYING) so that no tensor is dropped before its first pull.
 * - application: an application takes the tensors from the first one on;
 *   max-buffers and drop alone decide (drop=false: nothing is lost, the
 *   pipeline waits for the application).
 *
 * Either way `location` files get every tensor, dropped ones included.
 */
#pragma once

#include <gst/base/gstbasesink.h>
#include <gst/gst.h>

#include "cudaprep-prelude.h"

// The sample API (gst_cuda_prep_tensor_sink_sample_*), with the metas and DLPack.
#include "gstcudatensorsample.h"

G_BEGIN_DECLS

/**
 * GstCudaPrepTensorSink:
 *
 * The cudatensorsink element (its properties and signals: the
 * element-cudatensorsink section).
 */
#define GST_TYPE_CUDA_PREP_TENSOR_SINK (gst_cuda_prep_tensor_sink_get_type())
GST_CUDA_PREP_API
G_DECLARE_FINAL_TYPE(GstCudaPrepTensorSink, gst_cuda_prep_tensor_sink, GST, CUDA_PREP_TENSOR_SINK,
                     GstBaseSink)

/**
 * GstCudaPrepTensorSinkConsumer:
 * @GST_CUDA_PREP_TENSOR_SINK_CONSUMER_AUTO: an application once one shows itself
 * @GST_CUDA_PREP_TENSOR_SINK_CONSUMER_APPLICATION: an application, from the
 *   first tensor on
 *
 * Values of the "consumer" property (see "Who takes the tensors" in the
 * section above).
 */
typedef enum {
  GST_CUDA_PREP_TENSOR_SINK_CONSUMER_AUTO = 0,
  GST_CUDA_PREP_TENSOR_SINK_CONSUMER_APPLICATION = 1,
} GstCudaPrepTensorSinkConsumer;

#define GST_TYPE_CUDA_PREP_TENSOR_SINK_CONSUMER (gst_cuda_prep_tensor_sink_consumer_get_type())
/**
 * gst_cuda_prep_tensor_sink_consumer_get_type:
 *
 * Returns: the GType of #GstCudaPrepTensorSinkConsumer
 */
GST_CUDA_PREP_API GType gst_cuda_prep_tensor_sink_consumer_get_type(void);

/**
 * GstCudaPrepTensorSinkCallbacks:
 * @eos: at EOS, after the queued tensors were taken when wait-on-eos is
 *   true (and the sink has a consumer). Once per EOS; not after a flush.
 * @new_tensor: a tensor was queued: pull it (without blocking long). A flow
 *   other than GST_FLOW_OK stops the pipeline with it.
 *
 * Called from the streaming thread, as appsink's callbacks are; faster than
 * the signals, and when a callback is set its signal is not emitted.
 */
typedef struct {
  void (*eos)(GstCudaPrepTensorSink *sink, gpointer user_data);
  GstFlowReturn (*new_tensor)(GstCudaPrepTensorSink *sink, gpointer user_data);
  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstCudaPrepTensorSinkCallbacks;

/**
 * gst_cuda_prep_tensor_sink_set_callbacks:
 * @sink: the sink
 * @callbacks: (nullable): the callbacks, copied; NULL removes them
 * @user_data: what the callbacks and @notify are called with
 * @notify: (nullable): called on @user_data once the callbacks are
 *   replaced or the sink is finalised and no callback of them runs any more
 *
 * Installs @callbacks. Thread-safe.
 */
GST_CUDA_PREP_API void gst_cuda_prep_tensor_sink_set_callbacks(
    GstCudaPrepTensorSink *sink, const GstCudaPrepTensorSinkCallbacks *callbacks,
    gpointer user_data, GDestroyNotify notify);

/**
 * gst_cuda_prep_tensor_sink_pull_tensor:
 * @sink: the sink
 *
 * The next tensor, waiting for one while the sink is started (PAUSED or
 * PLAYING; a pause keeps it waiting). NULL at once when the sink is not
 * started, is flushing or is at EOS with no tensor left; NULL when a flush
 * starts or the sink stops while it waits. Several threads may pull at once.
 * The sample holds the buffer (with its GstCudaPrepTensorMeta), the caps and
 * the segment. Same as the "pull-tensor" action signal.
 *
 * Returns: (transfer full) (nullable): the next tensor's sample, or NULL
 */
GST_CUDA_PREP_API GstSample *gst_cuda_prep_tensor_sink_pull_tensor(GstCudaPrepTensorSink *sink);

/**
 * gst_cuda_prep_tensor_sink_try_pull_tensor:
 * @sink: the sink
 * @timeout: how long to wait (0: not at all; GST_CLOCK_TIME_NONE: forever)
 *
 * As gst_cuda_prep_tensor_sink_pull_tensor(), waiting at most @timeout; NULL on
 * timeout too. Same as the "try-pull-tensor" action signal.
 *
 * Returns: (transfer full) (nullable): the next tensor's sample, or NULL
 */
GST_CUDA_PREP_API GstSample *gst_cuda_prep_tensor_sink_try_pull_tensor(GstCudaPrepTensorSink *sink,
                                                                       GstClockTime timeout);

/**
 * gst_cuda_prep_tensor_sink_is_eos:
 * @sink: the sink
 *
 * Returns: whether EOS was reached and every tensor taken
 */
GST_CUDA_PREP_API gboolean gst_cuda_prep_tensor_sink_is_eos(GstCudaPrepTensorSink *sink);

G_END_DECLS
